//! GitHub Copilot CLI sessions (docs/formats.md §10.3):
//! `~/.copilot/session-state/<session>/events.jsonl`, one typed event
//! `{type, data, id, timestamp, parentId}` per line, the subagents' events
//! inline beside the main agent's (each carries its `agentId`), read
//! through the session-log fold the other agent CLIs share (`agent_log`).
//!
//! - `task` calls are subagents; what the CLI recorded about each wins
//!   (docs/behaviour.md §1): `subagent.started` links the agent to its call and says
//!   its type and mode, `subagent.completed` its tokens, tool count and
//!   duration, `subagent.failed` its error;
//! - events with an `agentId` are that agent's: its card's children (its
//!   first user message is its prompt), nested launches included;
//! - a background run's launch result is a placeholder; the run settles with
//!   its `subagent.completed` (its answer: its last reply). The
//!   `system.notification` that tells the main agent is skipped and counted,
//!   and the `read_agent` calls the CLI makes on its own to fetch a finished
//!   agent's reply are transport, not rows (their text repeats the answer);
//! - bookkeeping (session start and shutdown, turn marks, usage records,
//!   model changes, the system prompt) is skipped and counted.

mod records;

use super::agent_log::Fold;
use super::jsonl;
use crate::model::event::Event;
use records::Copilot;
use serde_json::Value;

/// Turns a Copilot CLI `events.jsonl` into events.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    let mut fold = Fold::default();
    fold.read::<Copilot>(text, None);
    if fold.records == 0 {
        return Err(
            "no Copilot CLI events found (expected events.jsonl, one typed event per line)".into(),
        );
    }
    Ok(fold.finish())
}

/// True when one of the first lines of `text` is a Copilot CLI event.
pub fn looks_like(text: &str) -> bool {
    jsonl::leading_objects(text, 32).any(|v| is_record(&v))
}

/// True for a Copilot CLI event: an envelope `{type, data, id, timestamp}`
/// whose type is dotted (`session.start`, `assistant.message`, …) and whose
/// `data` is an object; no other dialect's records look so.
pub(crate) fn is_record(v: &Value) -> bool {
    let dotted = v
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.contains('.') && !t.starts_with('.') && !t.ends_with('.'));
    dotted
        && v.get("data").is_some_and(Value::is_object)
        && v.get("id").is_some_and(Value::is_string)
        && v.get("timestamp").is_some_and(Value::is_string)
        && ["payload", "jsonrpc", "message", "uuid", "sessionId"]
            .iter()
            .all(|k| v.get(*k).is_none())
}

/// Reads one line of an `events.jsonl` into the fold (the follower's way).
pub(crate) fn read_line(fold: &mut Fold, line: jsonl::Line<'_>) {
    fold.read_line::<Copilot>(line, None);
}

/// What a main-agent event says of its agent (`working::record_says`): a
/// prompt, a turn starting, a tool running or a notification arriving mean
/// work is under way; a turn ending, the user interrupting, the session
/// going idle or shutting down end it.
/// A subagent's events (with an `agentId`) say nothing of the main agent.
pub(crate) fn record_says(record: &Value) -> Option<bool> {
    if record.get("agentId").is_some() {
        return None;
    }
    match record.get("type")?.as_str()? {
        "user.message"
        | "assistant.turn_start"
        | "tool.execution_start"
        | "system.notification" => Some(true),
        "assistant.turn_end" | "agent.interrupted" | "session.idle" | "session.shutdown" => {
            Some(false)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_main_agents_turn_events_say_whether_it_works() {
        let event = |kind: &str| json!({"type": kind, "data": {}, "id": "e", "timestamp": "t"});
        assert_eq!(record_says(&event("assistant.turn_start")), Some(true));
        assert_eq!(record_says(&event("assistant.turn_end")), Some(false));
        assert_eq!(record_says(&event("agent.interrupted")), Some(false));
        assert_eq!(record_says(&event("session.usage_record")), None);
        let mut child = event("assistant.turn_end");
        child["agentId"] = "a1".into();
        assert_eq!(record_says(&child), None, "a subagent's turn is its own");
    }
}
