//! Codex rollout records (docs/formats.md §3.1) read into the shared
//! session-log fold (`agent_log`): `response_item`s (messages, reasoning,
//! function and custom tool calls and their outputs), the `event_msg`s that
//! say how a turn ended and what it cost, and `turn_context`'s model.

use super::super::agent_log::{CallTools, Completion, Dialect, Fold, Owner};
use super::super::build::{Row, RowKind, Stamp};
use super::super::jsonl::Reading;
use crate::model::message::{str_at, u64_at};
use serde_json::{json, Value};

/// `spawn_agent` launches a subagent thread; the other multi-agent tools
/// carry a subagent's state back rather than do work (`wait` is an older
/// name of `wait_agent`).
const TOOLS: CallTools = CallTools {
    launch: "spawn_agent",
    transport: &["wait_agent", "wait", "close_agent"],
    launch_input,
};

/// The envelope a subagent's state reaches its parent in.
const NOTIFICATION: &str = "subagent_notification";

/// The Codex dialect of session logs.
pub(super) struct Codex;

impl Dialect for Codex {
    fn is_record(v: &Value) -> bool {
        super::is_record(v)
    }

    fn record(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
        let payload = v.get("payload").unwrap_or(&Value::Null);
        match str_at(v, "type").as_str() {
            "response_item" => response_item(fold, payload, owner, stamp),
            "event_msg" => event(fold, payload, owner, stamp),
            "turn_context" => {
                fold.child_reply(owner, "", &str_at(payload, "model"), 0);
                Reading::NoConversation
            }
            "session_meta" | "compacted" | "world_state" | "token_usage_record" => {
                Reading::NoConversation
            }
            _ => Reading::UnknownKind,
        }
    }
}

/// A response item: what the model saw and said.
fn response_item(fold: &mut Fold, p: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    fold.record_uuid = str_at(p, "id");
    match str_at(p, "type").as_str() {
        "message" => message(fold, p, owner, stamp),
        "reasoning" => {
            let text = texts(p.get("summary"), &["summary_text"])
                .into_iter()
                .chain(texts(p.get("content"), &["reasoning_text", "text"]))
                .collect::<Vec<_>>()
                .join("\n\n");
            if text.trim().is_empty() {
                // Encrypted only.
                return Reading::NoConversation;
            }
            let id = item_id(p, "reasoning");
            fold.text_block(&id, RowKind::Thinking, &text, owner, stamp, "");
            Reading::Conversation
        }
        kind @ ("function_call" | "custom_tool_call") => {
            // A custom tool's input is free text.
            let args = match kind {
                "function_call" => arguments(p.get("arguments")),
                _ => json!({ "input": str_at(p, "input") }),
            };
            let (id, name) = (str_at(p, "call_id"), str_at(p, "name"));
            fold.call(&TOOLS, &id, &name, args, owner, stamp);
            Reading::Conversation
        }
        "local_shell_call" => {
            let action = p.get("action").cloned().unwrap_or(Value::Null);
            let id = [str_at(p, "call_id"), str_at(p, "id")]
                .into_iter()
                .find(|i| !i.is_empty())
                .unwrap_or_default();
            fold.call(&TOOLS, &id, "local_shell", action, owner, stamp);
            Reading::Conversation
        }
        "web_search_call" => {
            let action = p.get("action").cloned().unwrap_or(Value::Null);
            let id = str_at(p, "id");
            fold.call(&TOOLS, &id, "web_search", action, owner, stamp);
            fold.tool_result(&id, "", false, None, owner, stamp);
            Reading::Conversation
        }
        "function_call_output" | "custom_tool_call_output" => {
            output(fold, p, owner, stamp);
            Reading::Conversation
        }
        _ => Reading::UnknownKind,
    }
}

/// The texts of the blocks in `blocks` whose type is one of `types`.
fn texts(blocks: Option<&Value>, types: &[&str]) -> Vec<String> {
    blocks
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| types.contains(&str_at(b, "type").as_str()))
        .map(|b| str_at(b, "text"))
        .filter(|t| !t.trim().is_empty())
        .collect()
}

/// An item's id, else one made from `what` and the record being read.
fn item_id(p: &Value, what: &str) -> String {
    match str_at(p, "id") {
        id if id.is_empty() => format!("{what}-{}", str_at(p, "call_id")),
        id => id,
    }
}

/// A message: the user's (or, in a child thread, its prompt and what was
/// sent to it since), the assistant's reply, or the CLI's context (a
/// developer message, an `<environment_context>`-style envelope), which is
/// not speech. A `<subagent_notification>` settles its agent's card.
fn message(fold: &mut Fold, p: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let Some(content) = p.get("content").filter(|c| c.is_array() || c.is_string()) else {
        return Reading::Unreadable;
    };
    let text = match content {
        Value::String(s) => s.clone(),
        blocks => texts(
            Some(blocks),
            &["input_text", "output_text", "text", "refusal"],
        )
        .join("\n"),
    };
    match str_at(p, "role").as_str() {
        "assistant" => {
            let id = item_id(p, "message");
            fold.text_block(&id, RowKind::AgentText, &text, owner, stamp, "");
            Reading::Conversation
        }
        "user" => {
            if let Some(body) = envelope(&text, NOTIFICATION) {
                notification(fold, body, stamp);
                return Reading::Conversation;
            }
            if text.trim().is_empty() || is_context(&text) {
                return Reading::NoConversation;
            }
            match owner {
                Owner::Sidechain(key) if !fold.child_mut(key).first_prompt.is_empty() => {
                    fold.message_to_subagent(&text, owner, stamp);
                }
                _ => fold.user_text(&text, owner, stamp),
            }
            Reading::Conversation
        }
        _ => Reading::NoConversation,
    }
}

/// Text the CLI puts in the user's place: one element wrapping it all
/// (`<environment_context>…</environment_context>`, `<turn_aborted>…`,
/// `<user_instructions>…`).
fn is_context(text: &str) -> bool {
    let text = text.trim();
    let Some(name) = text
        .strip_prefix('<')
        .and_then(|rest| rest.split_once('>'))
        .map(|(name, _)| name)
        .filter(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_lowercase() || c == '_' || c == '-')
        })
    else {
        return false;
    };
    text.ends_with(&format!("</{name}>"))
}

/// The body of `<name>…</name>` when `text` is that element.
fn envelope<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.trim()
        .strip_prefix(&format!("<{name}>"))?
        .strip_suffix(&format!("</{name}>"))
}

/// A tool call's arguments: a JSON object, or a string holding one.
fn arguments(args: Option<&Value>) -> Value {
    match args {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| json!({ "input": s })),
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

/// A spawn's arguments in the shape a card folds: its prompt (`message`,
/// or `prompt`) describes it; its type is `agent_type` (else the nickname
/// its output gives, else `agent`), none for a fork (`fork_context`).
fn launch_input(args: Value) -> Value {
    let prompt = ["message", "prompt"]
        .iter()
        .map(|k| str_at(&args, k))
        .find(|p| !p.trim().is_empty())
        .unwrap_or_default();
    let fork = args.get("fork_context").and_then(Value::as_bool) == Some(true);
    let kind = match str_at(&args, "agent_type") {
        _ if fork => String::new(),
        t if t.is_empty() => "agent".into(),
        t => t,
    };
    let mut input = match args {
        Value::Object(o) => o,
        _ => serde_json::Map::new(),
    };
    input.insert("subagent_type".into(), kind.into());
    input.insert("description".into(), prompt.clone().into());
    input.insert("prompt".into(), prompt.into());
    Value::Object(input)
}

/// A call's output: a transport call's states settle cards; a spawn's
/// names its thread and nickname (or says why it failed); any other is the
/// tool's result (a command's exit code read from its header).
fn output(fold: &mut Fold, p: &Value, owner: &Owner, stamp: &Stamp) {
    let id = str_at(p, "call_id");
    let text = match p.get("output") {
        Some(Value::String(s)) => s.clone(),
        Some(o @ Value::Object(_)) => str_at(o, "content"),
        _ => String::new(),
    };
    if fold.held.contains(&id) {
        let states = serde_json::from_str::<Value>(&text).unwrap_or(Value::Null);
        for (agent, state) in states
            .get("status")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            settle(fold, agent, state, stamp);
        }
        return;
    }
    if fold.subagent_mut(&id).is_some() {
        spawned(fold, &id, &text, owner, stamp);
        return;
    }
    let (body, code) = command_output(&text);
    let failed = code.is_some_and(|c| c != 0)
        || p.get("output")
            .and_then(|o| o.get("success"))
            .and_then(Value::as_bool)
            == Some(false);
    fold.tool_result(&id, body, failed, None, owner, stamp);
    if let Some(tool) = fold.tool_entry(&id, owner, stamp) {
        tool.call.exit_code = code;
    }
}

/// A spawn's output: `{"agent_id", "nickname"}` launches the thread in the
/// background (its nickname types an untyped card); any other text is why
/// it could not start.
fn spawned(fold: &mut Fold, id: &str, text: &str, owner: &Owner, stamp: &Stamp) {
    let launched = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
    let agent = str_at(&launched, "agent_id");
    if agent.is_empty() {
        fold.tool_result(id, text, true, None, owner, stamp);
        return;
    }
    let response = json!({ "status": "async_launched", "agentId": agent });
    fold.tool_result(id, "", false, Some(&response), owner, stamp);
    let nickname = str_at(&launched, "nickname");
    let untyped = fold
        .tool_entry(id, owner, stamp)
        .is_some_and(|t| str_at(&t.call.input, "subagent_type") == "agent");
    if let Some(card) = fold.subagent_mut(id).filter(|_| untyped) {
        card.retype(&nickname);
    }
}

/// A `<subagent_notification>`: `{"agent_path": <thread>, "status": <state>}`.
fn notification(fold: &mut Fold, body: &str, stamp: &Stamp) {
    let v = serde_json::from_str::<Value>(body.trim()).unwrap_or(Value::Null);
    let agent = [str_at(&v, "agent_path"), str_at(&v, "agent_id")]
        .into_iter()
        .find(|a| !a.is_empty())
        .unwrap_or_default();
    if let Some(state) = v.get("status") {
        settle(fold, &agent, state, stamp);
    }
}

/// Agent `agent` is in `state`: `{"completed": answer}`, `{"errored":
/// reason}`, `"shutdown"` (closed while it ran: stopped), `"running"`, …;
/// a final one settles its card, once its launch named it.
fn settle(fold: &mut Fold, agent: &str, state: &Value, stamp: &Stamp) {
    let Some((status, text)) = final_state(state) else {
        return;
    };
    let Some(task) = fold.task_of_agent.get(agent).cloned() else {
        return;
    };
    let running = fold
        .subagent_mut(&task)
        .is_some_and(|card| card.is_awaiting_completion());
    if status == "cancelled" && !running {
        // Closed after it finished: its end stands.
        return;
    }
    fold.background_finished(
        Completion {
            task_id: agent.to_string(),
            tool_use_id: task,
            status: status.into(),
            result: text,
            ..Completion::default()
        },
        stamp,
    );
}

/// The status a final agent state reads as, with its answer or reason;
/// `None` for one still running (or unknown).
fn final_state(state: &Value) -> Option<(&'static str, String)> {
    let (word, text) = match state {
        Value::String(word) => (word.as_str(), String::new()),
        Value::Object(o) => {
            let (word, text) = o.iter().next()?;
            (word.as_str(), text.as_str().unwrap_or("").to_string())
        }
        _ => return None,
    };
    let status = match word {
        "completed" => "completed",
        "errored" | "error" | "failed" => "failed",
        "shutdown" | "interrupted" | "cancelled" | "canceled" => "cancelled",
        _ => return None,
    };
    Some((status, text))
}

/// A command's output without the header the CLI puts above it (`Chunk ID`,
/// `Wall time`, `Process exited with code N`, `Original token count`,
/// `Output:`), and its exit code.
fn command_output(text: &str) -> (&str, Option<i64>) {
    let Some((head, body)) = text.split_once("\nOutput:\n") else {
        return (text, None);
    };
    if !head.starts_with("Chunk ID:") && !head.contains("Wall time:") {
        return (text, None);
    }
    let code = head.lines().find_map(|l| {
        l.strip_prefix("Process exited with code ")
            .and_then(|c| c.trim().parse().ok())
    });
    (body, code)
}

/// An event: how a turn ended, its tokens, the thread's model; the rest
/// repeats the response items or is bookkeeping.
fn event(fold: &mut Fold, p: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    match str_at(p, "type").as_str() {
        "token_count" => {
            let total = p
                .get("info")
                .and_then(|i| i.get("total_token_usage"))
                .and_then(|u| u64_at(u, "total_tokens"))
                .unwrap_or(0);
            fold.child_reply(owner, "token_count", "", total);
            Reading::NoConversation
        }
        "thread_settings_applied" => {
            let settings = p.get("thread_settings").unwrap_or(&Value::Null);
            fold.child_reply(owner, "", &str_at(settings, "model"), 0);
            Reading::NoConversation
        }
        "task_complete" => {
            let error = p
                .get("error")
                .map(|e| str_at(e, "message"))
                .filter(|m| !m.is_empty());
            let how = match &error {
                Some(reason) => ("failed", reason.clone()),
                None => ("completed", str_at(p, "last_agent_message")),
            };
            ended(fold, owner, how);
            match error {
                // A child's failure is its card's (its status and reason).
                Some(reason) if *owner == Owner::Main => {
                    event_row(fold, p, RowKind::Error, &reason, owner, stamp);
                    Reading::Conversation
                }
                _ => Reading::NoConversation,
            }
        }
        "turn_aborted" => {
            ended(fold, owner, ("cancelled", String::new()));
            let reason = str_at(p, "reason");
            let line = if reason.is_empty() {
                "Turn aborted".to_string()
            } else {
                format!("Turn aborted: {reason}")
            };
            event_row(fold, p, RowKind::Status, &line, owner, stamp);
            Reading::Conversation
        }
        "error" => {
            let text = str_at(p, "message");
            if text.trim().is_empty() {
                return Reading::NoConversation;
            }
            event_row(fold, p, RowKind::Error, &text, owner, stamp);
            Reading::Conversation
        }
        _ => Reading::NoConversation,
    }
}

/// A row an event makes, its id the event's kind and turn
/// (`turn_aborted-<turn id>`).
fn event_row(fold: &mut Fold, p: &Value, kind: RowKind, text: &str, owner: &Owner, stamp: &Stamp) {
    fold.record_uuid = format!("{}-{}", str_at(p, "type"), str_at(p, "turn_id"));
    fold.push_row(owner, Row::new("", kind, text, stamp));
}

/// A child thread's run ended as `how` says: a status and its answer or
/// reason (see `ChildTranscript::ended`).
fn ended(fold: &mut Fold, owner: &Owner, (status, text): (&str, String)) {
    if let Owner::Sidechain(key) = owner {
        fold.child_mut(key).ended = Some((status.to_string(), text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commands_output_loses_its_header_and_keeps_its_exit_code() {
        let text = "Chunk ID: 46ccb3\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 12\nOutput:\ncat: CHANGELOG.md: No such file or directory\n";
        assert_eq!(
            command_output(text),
            ("cat: CHANGELOG.md: No such file or directory\n", Some(1))
        );
        let running = "Chunk ID: 4c1758\nWall time: 0.2518 seconds\nProcess running with session ID 63441\nOriginal token count: 0\nOutput:\n";
        assert_eq!(command_output(running), ("", None));
        assert_eq!(command_output("plain"), ("plain", None));
    }

    #[test]
    fn an_agents_final_state_reads_as_its_status_and_text() {
        assert_eq!(
            final_state(&json!({"completed": "## Summary\nok"})),
            Some(("completed", "## Summary\nok".to_string()))
        );
        assert_eq!(
            final_state(&json!({"errored": "Overloaded"})),
            Some(("failed", "Overloaded".to_string()))
        );
        assert_eq!(
            final_state(&json!("shutdown")),
            Some(("cancelled", String::new()))
        );
        assert_eq!(final_state(&json!("running")), None);
        assert_eq!(final_state(&json!("pending_init")), None);
    }

    #[test]
    fn the_clis_context_in_the_users_place_is_not_speech() {
        assert!(is_context(
            "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"
        ));
        assert!(is_context(
            "<turn_aborted>\nThe user interrupted.\n</turn_aborted>"
        ));
        assert!(!is_context("Audit parser-kit for panics."));
        assert!(!is_context("<b>bold</b> claims"));
    }
}
