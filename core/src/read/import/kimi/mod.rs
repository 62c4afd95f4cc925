//! Kimi Code sessions (docs/formats.md §10.3): a session folder
//! `~/.kimi-code/sessions/wd_<dir>_<hash>/session_<uuid>/` holds one
//! `agents/<agent id>/wire.jsonl` per agent (wire protocol 1.5: one typed
//! record `{type, …, time}` a line, `time` in epoch ms). The main agent's
//! file (`agents/main/wire.jsonl`) is the transcript; each subagent's file
//! is its card's children. Read through the session-log fold the other
//! agent CLIs share (`agent_log`).
//!
//! - the loop events (`context.append_loop_event`: text and thinking parts,
//!   tool calls and results) are the rows; a turn's `turn.prompt` from the
//!   user starts a turn, a subagent's first is its prompt;
//! - an `Agent` call is a card; what the CLI recorded wins (docs/behaviour.md §1):
//!   `subagent.spawned` (keyed by `parentToolCallId`) says its type, model,
//!   agent and whether it runs in the background, `subagent.completed` its
//!   answer and tokens, `task.terminated` its end status and duration;
//! - the `Agent` result text (`agent_id: …`, `[summary]`, `resume_hint: …`)
//!   and the `<notification … type="task.completed">` prompts that tell the
//!   main agent a background run ended are transport: they settle the card
//!   and are never text on screen;
//! - bookkeeping (requests, usage, token counts, the tool snapshot, the
//!   system prompt, echoes of messages already read) is skipped and counted.

mod records;

use super::agent_log::Fold;
use super::jsonl::{self, Line};
use crate::model::event::Event;
use records::Kimi;
use serde_json::Value;

/// The folder of the main agent's file in a session folder.
pub const MAIN_AGENT: &str = "main";

/// The file each agent's records are in (`agents/<agent id>/wire.jsonl`).
pub const WIRE_FILE: &str = "wire.jsonl";

/// Turns a main agent's `wire.jsonl` into events.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    import_with_files(text, &[])
}

/// Turns a main agent's `wire.jsonl` plus the files found beside it into
/// events: each `<agent id>/wire.jsonl` but the main one is that
/// subagent's transcript; other files are ignored.
pub fn import_with_files(text: &str, files: &[(&str, &str)]) -> Result<Vec<Event>, String> {
    let mut fold = Fold::default();
    for line in jsonl::lines(text) {
        read_line(&mut fold, line, None);
    }
    if fold.records == 0 {
        return Err(
            "no Kimi Code wire records found (expected agents/main/wire.jsonl of a session folder)"
                .into(),
        );
    }
    for (path, text) in files {
        if let Some(agent) = agent_of_path(path).filter(|a| *a != MAIN_AGENT) {
            for line in jsonl::lines(text) {
                read_line(&mut fold, line, Some(agent));
            }
        }
    }
    Ok(fold.finish())
}

/// The agent whose file `path` is (`…/<agent id>/wire.jsonl`), or `None`
/// for any other file.
pub fn agent_of_path(path: &str) -> Option<&str> {
    let mut parts = path.rsplit(['/', '\\']);
    let file = parts.next()?;
    let agent = parts.next()?;
    (file == WIRE_FILE && super::companions::is_agent_id(agent)).then_some(agent)
}

/// The files a main agent's wire `text` opened by URL wants beside it and
/// `found` does not hold yet: the wire of each subagent its
/// `subagent.spawned` records name, `../<agent id>/wire.jsonl` (every
/// agent's folder lies beside the main agent's, `agents/<agent id>/`).
pub fn companion_paths(text: &str, found: &[(&str, &str)]) -> Vec<String> {
    let mut wanted: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| l.contains("\"subagent.spawned\"")) {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let agent = record
            .get("subagentId")
            .and_then(Value::as_str)
            .unwrap_or("");
        if agent == MAIN_AGENT || !super::companions::is_agent_id(agent) {
            continue;
        }
        let held = found
            .iter()
            .any(|(name, _)| agent_of_path(name) == Some(agent));
        let path = format!("../{agent}/{WIRE_FILE}");
        if !held && !wanted.contains(&path) {
            wanted.push(path);
        }
    }
    wanted
}

/// True when one of the first lines of `text` is a Kimi Code wire record.
pub fn looks_like(text: &str) -> bool {
    jsonl::leading_objects(text, 32).any(|v| is_record(&v))
}

/// True for a Kimi Code wire record: a dotted `type` and a numeric `time`
/// (epoch ms), or the file's opening `metadata` record with its
/// `protocol_version`; no other dialect's records look so.
pub(crate) fn is_record(v: &Value) -> bool {
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    let dotted = kind.contains('.') && !kind.starts_with('.') && !kind.ends_with('.');
    let opening = kind == "metadata" && v.get("protocol_version").is_some_and(Value::is_string);
    let timed = v.get("time").is_some_and(Value::is_u64);
    (opening || (dotted && timed))
        && ["data", "payload", "jsonrpc", "uuid", "sessionId"]
            .iter()
            .all(|k| v.get(*k).is_none())
}

/// Reads one line of a wire file into the fold (`agent`: the subagent
/// whose file it is; `None` for the main agent's), its `time` read as the
/// record's timestamp.
pub(crate) fn read_line(fold: &mut Fold, line: Line<'_>, agent: Option<&str>) {
    let line = match line {
        Line::Object { mut value, raw } => {
            records::stamp_time(&mut value);
            Line::Object { value, raw }
        }
        unreadable => unreadable,
    };
    fold.read_line::<Kimi>(line, agent);
}

/// What a main-agent record says of its agent (`working::record_says`): a
/// prompt or a turn starting means work is under way, a turn ending (or
/// the prompt completing) ends it; a running subagent is the chip's.
pub(crate) fn record_says(record: &Value) -> Option<bool> {
    match record.get("type")?.as_str()? {
        "turn.prompt" | "agent.turn.started" => Some(true),
        "turn.ended" | "agent.turn.ended" | "prompt.completed" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_wire_file_names_its_agent_by_its_folder() {
        assert_eq!(agent_of_path("agents/agent-0/wire.jsonl"), Some("agent-0"));
        assert_eq!(agent_of_path("s/agents/main/wire.jsonl"), Some("main"));
        assert_eq!(agent_of_path("agents/main/tasks/a.json"), None);
        assert_eq!(agent_of_path("wire.jsonl"), None);
    }

    #[test]
    fn wire_records_are_told_from_other_dialects() {
        assert!(is_record(
            &json!({"type": "metadata", "protocol_version": "1.5", "created_at": 1})
        ));
        assert!(is_record(
            &json!({"type": "turn.ended", "agentId": "main", "time": 1_796_544_219_458_u64})
        ));
        // Copilot CLI's envelope has `data`, a string `timestamp` and an `id`.
        assert!(!is_record(
            &json!({"type": "session.start", "data": {}, "id": "e", "timestamp": "t"})
        ));
        assert!(!is_record(&json!({"type": "user", "time": 1, "uuid": "u"})));
    }

    #[test]
    fn turn_records_say_whether_the_main_agent_works() {
        assert_eq!(record_says(&json!({"type": "turn.prompt"})), Some(true));
        assert_eq!(record_says(&json!({"type": "turn.ended"})), Some(false));
        assert_eq!(record_says(&json!({"type": "usage.record"})), None);
    }
}
