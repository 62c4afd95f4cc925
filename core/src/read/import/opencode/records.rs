//! OpenCode parts read into the shared session-log fold (`agent_log`): each
//! part of a message becomes one record (the part with its message's role,
//! model and time), and a message that ended in an error one more.

use super::super::agent_log::{Completion, Dialect, Fold, Owner};
use super::super::build::{Row, RowKind, Stamp};
use super::super::jsonl::Reading;
use super::super::tool::ToolStatus;
use super::model_of;
use crate::model::message::{bool_at, str_at};
use crate::model::time::format_millis;
use serde_json::{json, Map, Value};

/// The tool that launches a subagent session.
const TASK_TOOL: &str = "task";

/// The kind of the record a message's error becomes.
const MESSAGE_ERROR: &str = "message-error";

/// Parts that carry no conversation: a step's bounds and cost, file
/// snapshots and patches, agent switches, retries, compaction markers.
const BOOKKEEPING: [&str; 8] = [
    "step-start",
    "step-finish",
    "snapshot",
    "patch",
    "agent",
    "retry",
    "compaction",
    "subtask",
];

/// The OpenCode dialect of session logs.
pub(super) struct OpenCode;

/// Building the records the fold reads.
pub(super) struct Record;

impl Record {
    /// Part `part` of a message (`info`) of the session tree rooted at
    /// `root`: the part's fields, plus `uuid`, `sessionId` (the root, as
    /// the fold groups by it), `timestamp` (RFC 3339), `role` and `model`.
    pub(super) fn part(part: &Value, info: &Value, root: &str) -> Value {
        let mut record = match part {
            Value::Object(o) => o.clone(),
            _ => Map::new(),
        };
        let state = part.get("state").unwrap_or(&Value::Null);
        let millis = [
            part.get("time").and_then(|t| t.get("start")),
            state.get("time").and_then(|t| t.get("start")),
            info.get("time").and_then(|t| t.get("created")),
        ]
        .into_iter()
        .find_map(|t| t.and_then(Value::as_i64));
        record.insert("uuid".into(), str_at(part, "id").into());
        record.insert("sessionId".into(), root.into());
        record.insert(
            "timestamp".into(),
            millis.map(format_millis).unwrap_or_default().into(),
        );
        record.insert("role".into(), str_at(info, "role").into());
        record.insert("messageId".into(), str_at(info, "id").into());
        record.insert("modelID".into(), message_model(info).into());
        Value::Object(record)
    }

    /// The error message `info` ended in (an API error the CLI gave up on),
    /// as a record; `None` when it ended well.
    pub(super) fn error(info: &Value, root: &str) -> Option<Value> {
        let error = info.get("error").filter(|e| e.is_object())?;
        let data = error.get("data").unwrap_or(&Value::Null);
        let text = [
            str_at(data, "message"),
            str_at(error, "message"),
            str_at(error, "name"),
        ]
        .into_iter()
        .find(|t| !t.trim().is_empty())
        .unwrap_or_else(|| "The model request failed".into());
        let done = info
            .get("time")
            .and_then(|t| t.get("completed").or_else(|| t.get("created")))
            .and_then(Value::as_i64);
        Some(json!({
            "type": MESSAGE_ERROR,
            "uuid": format!("{}-error", str_at(info, "id")),
            "sessionId": root,
            "timestamp": done.map(format_millis).unwrap_or_default(),
            "role": "assistant",
            "text": text,
        }))
    }
}

impl Dialect for OpenCode {
    fn is_record(v: &Value) -> bool {
        v.get("type").is_some_and(Value::is_string) && v.get("role").is_some()
    }

    fn record(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
        let kind = str_at(v, "type");
        match kind.as_str() {
            "text" => text(fold, v, owner, stamp),
            "reasoning" => {
                let id = str_at(v, "uuid");
                fold.text_block(&id, RowKind::Thinking, &str_at(v, "text"), owner, stamp, "");
                Reading::Conversation
            }
            "tool" => tool(fold, v, owner, stamp),
            MESSAGE_ERROR => {
                fold.push_row(
                    owner,
                    Row::new("", RowKind::Error, &str_at(v, "text"), stamp),
                );
                Reading::Conversation
            }
            k if BOOKKEEPING.contains(&k) => Reading::NoConversation,
            // An attached file is what the user sent along, not speech.
            "file" => Reading::NoConversation,
            _ => Reading::UnknownKind,
        }
    }
}

/// A text part: the assistant's reply, the user's prompt (a child
/// session's first one is its card's prompt), or a synthetic notification
/// `<task id=… state=…>` that settles a background run's card.
fn text(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let body = str_at(v, "text");
    if str_at(v, "role") == "assistant" {
        let id = str_at(v, "uuid");
        fold.text_block(
            &id,
            RowKind::AgentText,
            &body,
            owner,
            stamp,
            &str_at(v, "modelID"),
        );
        return Reading::Conversation;
    }
    if let Some(done) = notification(&body) {
        fold.background_finished(done, stamp);
        return Reading::Conversation;
    }
    if bool_at(v, "synthetic") || bool_at(v, "ignored") || body.trim().is_empty() {
        // Text the CLI added in the user's place (a file's contents, a reminder).
        return Reading::NoConversation;
    }
    fold.user_text(&body, owner, stamp);
    Reading::Conversation
}

/// A tool part: a `task` is a subagent card, any other a tool row, each
/// with its status, output and times as `state` has them.
fn tool(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let id = str_at(v, "callID");
    let name = str_at(v, "tool");
    let Some(state) = v.get("state").filter(|s| s.is_object()) else {
        return Reading::Unreadable;
    };
    if id.is_empty() || name.is_empty() {
        return Reading::Unreadable;
    }
    let input = state.get("input").cloned().unwrap_or(Value::Null);
    let status = str_at(state, "status");
    let ended = Stamp {
        created_at: state
            .get("time")
            .and_then(|t| t.get("end"))
            .and_then(Value::as_i64)
            .map(format_millis)
            .unwrap_or_else(|| stamp.created_at.clone()),
        ..stamp.clone()
    };
    if name == TASK_TOOL {
        task(fold, &id, &input, state, &status, owner, (stamp, &ended));
    } else {
        fold.tool_use(&id, &name, &input, false, owner, stamp);
    }
    if status == "running" {
        if let Some(tool) = fold.tool_entry(&id, owner, stamp) {
            tool.call.status.advance(ToolStatus::InProgress);
        }
    }
    if name == TASK_TOOL {
        return Reading::Conversation;
    }
    match status.as_str() {
        "completed" => {
            fold.tool_result(&id, &str_at(state, "output"), false, None, owner, &ended);
            let exit = state
                .get("metadata")
                .and_then(|m| m.get("exit"))
                .and_then(Value::as_i64);
            if let (Some(code), Some(tool)) = (exit, fold.tool_entry(&id, owner, stamp)) {
                tool.call.exit_code = Some(code);
            }
        }
        "error" => fold.tool_result(&id, &str_at(state, "error"), true, None, owner, &ended),
        _ => {}
    }
    Reading::Conversation
}

/// A `task` part: the card (its input in the shape cards fold: a
/// background launch is `run_in_background`), the child session it runs
/// in, its model, and its end: a foreground result between `<task_result>`
/// tags, a background launch that waits for its notification, or an error.
fn task(
    fold: &mut Fold,
    id: &str,
    input: &Value,
    state: &Value,
    status: &str,
    owner: &Owner,
    (started, ended): (&Stamp, &Stamp),
) {
    let mut card = match input {
        Value::Object(o) => o.clone(),
        _ => Map::new(),
    };
    let meta = state.get("metadata").unwrap_or(&Value::Null);
    let background = bool_at(input, "background") || bool_at(meta, "background");
    card.insert("run_in_background".into(), background.into());
    fold.tool_use(id, TASK_TOOL, &Value::Object(card), true, owner, started);
    let child = str_at(meta, "sessionId");
    let model = model_of(meta.get("model"));
    let mut response = json!({ "agentId": child, "resolvedModel": model });
    let output = str_at(state, "output");
    match status {
        "completed" if background || output.contains("state=\"running\"") => {
            response["status"] = "async_launched".into();
            fold.tool_result(id, "", false, Some(&response), owner, ended);
        }
        "completed" => {
            response["status"] = "completed".into();
            let answer = between(&output, "task_result").unwrap_or(output.as_str());
            fold.tool_result(id, answer.trim(), false, Some(&response), owner, ended);
        }
        "error" => {
            response["status"] = "failed".into();
            let reason = failure_reason(&str_at(state, "error"));
            fold.tool_result(id, &reason, true, Some(&response), owner, ended);
        }
        _ => fold.name_agent(id, &child),
    }
}

/// Why a subagent failed, without the frame `Subagent failed (task_id: …): `;
/// an API error's JSON body reads as its `message`.
fn failure_reason(error: &str) -> String {
    let reason = match error.strip_prefix("Subagent failed (") {
        Some(rest) => rest.split_once("): ").map_or(error, |(_, reason)| reason),
        None => error,
    };
    serde_json::from_str::<Value>(reason)
        .ok()
        .map(|body| str_at(&body, "message"))
        .filter(|m| !m.trim().is_empty())
        .unwrap_or_else(|| reason.to_string())
}

/// A synthetic `<task id="<session>" state="completed|error">` text: a
/// background run finished, with its answer (`<task_result>`) or why it
/// failed (`<task_error>`). `None` for any other text, and for a run still
/// `running`.
fn notification(text: &str) -> Option<Completion> {
    let rest = text.trim_start().strip_prefix("<task id=\"")?;
    let (session, rest) = rest.split_once('"')?;
    let state = rest
        .trim_start()
        .strip_prefix("state=\"")?
        .split('"')
        .next()?;
    let status = match state {
        "completed" => "completed",
        "error" | "failed" => "failed",
        "cancelled" => "cancelled",
        _ => return None,
    };
    let result = between(text, "task_result")
        .or_else(|| between(text, "task_error"))
        .unwrap_or("")
        .trim();
    Some(Completion {
        task_id: session.to_string(),
        status: status.into(),
        summary: between(text, "summary").unwrap_or("").trim().to_string(),
        result: failure_reason(result),
        ..Completion::default()
    })
}

/// The text between `<name>` and the last `</name>` (a report may hold
/// the tag itself).
fn between<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let start = text.find(&open)? + open.len();
    let end = text.rfind(&format!("</{name}>")).filter(|&e| e >= start)?;
    Some(&text[start..end])
}

/// The model of a message: `modelID`, or its `model{modelID}`.
fn message_model(info: &Value) -> String {
    match str_at(info, "modelID") {
        m if m.is_empty() => model_of(info.get("model")),
        m => m,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_background_runs_notification_reads_as_its_completion() {
        let done = notification("<task id=\"ses_a\" state=\"completed\">\n<summary>Background task completed: X</summary>\n<task_result>\n## Summary\n\nok\n</task_result>\n</task>").unwrap();
        assert_eq!(
            (
                done.task_id.as_str(),
                done.status.as_str(),
                done.result.as_str()
            ),
            ("ses_a", "completed", "## Summary\n\nok")
        );
        let failed = notification("<task id=\"ses_b\" state=\"error\">\n<task_error>\nSubagent failed (task_id: ses_b): Overloaded\n</task_error>\n</task>").unwrap();
        assert_eq!(
            (failed.status.as_str(), failed.result.as_str()),
            ("failed", "Overloaded")
        );
        assert!(notification("<task id=\"ses_c\" state=\"running\">").is_none());
        assert!(notification("Review <task id=\"x\" state=\"completed\">").is_none());
    }

    #[test]
    fn a_failed_subagent_reads_as_its_reason() {
        assert_eq!(
            failure_reason("Subagent failed (task_id: ses_x): Internal server error"),
            "Internal server error"
        );
        assert_eq!(failure_reason("Task cancelled"), "Task cancelled");
        assert_eq!(
            failure_reason(
                r#"Subagent failed (task_id: ses_y): {"message":"Overloaded","type":"overloaded_error"}"#
            ),
            "Overloaded"
        );
    }
}
