//! qwen-code's chat records (docs/formats.md §8.1) read into the
//! shared session-log fold (`agent_log`): Gemini-style `parts` (text,
//! thoughts, `functionCall`, `functionResponse`), `toolCallResult` with a
//! subagent's `task_execution` display, and both `usageMetadata` shapes.
//! Telemetry, attribution snapshots, a fork's inherited history and other
//! system records carry no conversation.

use super::super::agent_log::{completion_status, Completion, Dialect, Fold, Owner};
use super::super::build::{RowKind, Stamp};
use super::super::jsonl::Reading;
use super::super::tokens;
use super::session_events;
use super::workflow::{run_output, workflow_call};
use crate::model::message::{str_at, u64_at};
use serde_json::{json, Map, Value};

/// The tool that launches a subagent (`task` before it was renamed).
const SUBAGENT_TOOLS: [&str; 2] = ["agent", "task"];

/// The tool that runs a workflow (see `workflow`).
const WORKFLOW_TOOL: &str = "workflow";

/// The qwen-code dialect of session logs.
pub(super) struct Qwen;

impl Dialect for Qwen {
    fn is_record(v: &Value) -> bool {
        super::is_record(v)
    }

    fn record(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
        match str_at(v, "type").as_str() {
            "user" => user(fold, v, owner, stamp),
            "assistant" => assistant(fold, v, owner, stamp),
            "tool_result" => tool_result(fold, v, owner, stamp),
            "system" => system(fold, v, stamp),
            _ => Reading::UnknownKind,
        }
    }
}

/// The parts of a record's message, if it has any.
fn parts(v: &Value) -> Option<&Vec<Value>> {
    v.get("message")?.get("parts")?.as_array()
}

/// The text parts of a message joined (thoughts left out).
fn text_of(parts: &[Value]) -> String {
    parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A user record: a prompt, a `<task-notification>` (subtype
/// `notification`), or, in a subagent's transcript after its prompt, a
/// message sent to it (`externalInputKind`).
fn user(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let Some(parts) = parts(v) else {
        return Reading::Unreadable;
    };
    let text = text_of(parts);
    if text.trim().is_empty() {
        return Reading::NoConversation;
    }
    match owner {
        Owner::Main if session_events::resume_text(fold, &text, owner, stamp) => {}
        Owner::Sidechain(_) if v.get("externalInputKind").is_some() => {
            fold.message_to_subagent(&text, owner, stamp)
        }
        _ => fold.user_text(&text, owner, stamp),
    }
    Reading::Conversation
}

/// An assistant record: text, thoughts and tool calls, and the tokens of
/// its API response (a record of usage alone is part of the conversation).
fn assistant(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let Some(parts) = parts(v) else {
        return Reading::Unreadable;
    };
    let model = str_at(v, "model");
    let message_id = str_at(v, "uuid");
    let tokens = v.get("usageMetadata").map_or(0, usage_tokens);
    fold.child_reply(owner, &message_id, &model, tokens);
    for part in parts {
        if let Some(call) = part.get("functionCall") {
            let name = str_at(call, "name");
            let args = call.get("args").cloned().unwrap_or(Value::Null);
            let subagent = SUBAGENT_TOOLS.contains(&name.as_str());
            let tool = fold.tool_use(&str_at(call, "id"), &name, &args, subagent, owner, stamp);
            if let Some(tool) =
                tool.filter(|t| t.call.name == WORKFLOW_TOOL && t.subagent.is_none())
            {
                tool.subagent = Some(workflow_call());
            }
        } else if let Some(text) = part.get("text").and_then(Value::as_str) {
            let kind = if part.get("thought").and_then(Value::as_bool) == Some(true) {
                RowKind::Thinking
            } else {
                RowKind::AgentText
            };
            fold.text_block(&message_id, kind, text, owner, stamp, &model);
        }
    }
    if parts.is_empty() && tokens == 0 {
        Reading::NoConversation
    } else {
        Reading::Conversation
    }
}

/// The tokens of a `usageMetadata`: the Gemini shape's `totalTokenCount`,
/// or the early recorder's `total`, else the sum of the parts it has.
fn usage_tokens(usage: &Value) -> u64 {
    u64_at(usage, "totalTokenCount")
        .or_else(|| u64_at(usage, "total"))
        .unwrap_or_else(|| {
            tokens::total(
                [
                    "promptTokenCount",
                    "candidatesTokenCount",
                    "input",
                    "output",
                ]
                .iter()
                .filter_map(|k| u64_at(usage, k)),
            )
        })
}

/// A tool result record: each `functionResponse` (its `output`, or its
/// `error`) pairs with its call; a subagent's result reads its
/// `task_execution` display, and a background launch names its agent.
fn tool_result(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let Some(parts) = parts(v) else {
        return Reading::Unreadable;
    };
    let result = v.get("toolCallResult").unwrap_or(&Value::Null);
    for part in parts {
        let Some(response) = part.get("functionResponse") else {
            continue;
        };
        let id = str_at(response, "id");
        let body = response.get("response").unwrap_or(&Value::Null);
        let error = body.get("error").and_then(Value::as_str);
        let output = error
            .or_else(|| body.get("output").and_then(Value::as_str))
            .unwrap_or("");
        let failed = error.is_some() || str_at(result, "status") == "error";
        let mine = str_at(result, "callId") == id || parts.len() == 1;
        let structured = subagent_response(result).filter(|_| mine);
        let (output, run) = match str_at(response, "name").as_str() {
            WORKFLOW_TOOL => run_output(output),
            _ => (output, None),
        };
        fold.tool_result(&id, output, failed, structured.as_ref(), owner, stamp);
        if let Some(run) = run {
            fold.workflow_launched(run, &id);
        }
        if let Some(agent) = launched_agent(output) {
            fold.name_agent(&id, agent);
        }
    }
    Reading::Conversation
}

/// What a subagent's result display says, in the shape a card folds
/// (`SubagentFold::apply_response`): a background launch reads
/// `async_launched`; the run's duration is its summary's, else the call's.
fn subagent_response(result: &Value) -> Option<Value> {
    let display = result
        .get("resultDisplay")
        .filter(|d| str_at(d, "type") == "task_execution");
    let duration = u64_at(result, "durationMs");
    let Some(display) = display else {
        return duration.map(|ms| json!({ "totalDurationMs": ms }));
    };
    let summary = display.get("executionSummary").unwrap_or(&Value::Null);
    let status = match str_at(display, "status").as_str() {
        "background" => "async_launched".to_string(),
        other => other.to_string(),
    };
    let mut r = Map::new();
    let mut put = |k: &str, v: Value| {
        if !v.is_null() && v != json!("") {
            r.insert(k.into(), v);
        }
    };
    put("status", status.into());
    put("agentType", str_at(display, "subagentName").into());
    put("description", str_at(display, "taskDescription").into());
    put("prompt", str_at(display, "taskPrompt").into());
    put("content", str_at(display, "result").into());
    put(
        "totalDurationMs",
        u64_at(summary, "totalDurationMs").or(duration).into(),
    );
    put("totalTokens", u64_at(summary, "totalTokens").into());
    put(
        "totalToolUseCount",
        u64_at(summary, "totalToolCalls").into(),
    );
    Some(Value::Object(r))
}

/// The agent a background launch names (`task_id: <agent id> (…)`).
fn launched_agent(output: &str) -> Option<&str> {
    output
        .lines()
        .find_map(|l| l.trim().strip_prefix("task_id:"))
        .and_then(|rest| rest.split_whitespace().next())
}

/// A system record: a background task's `notification` (a
/// `<task-notification>` text, or a `backgroundTask` payload) settles its
/// card; any other (telemetry, snapshots, a fork's inherited history, its
/// launch prompt) carries no conversation (telemetry still names the model
/// an agent's requests went to).
fn system(fold: &mut Fold, v: &Value, stamp: &Stamp) -> Reading {
    let payload = v.get("systemPayload").unwrap_or(&Value::Null);
    match str_at(v, "subtype").as_str() {
        "notification" => {}
        "chat_compression" => {
            session_events::compression(fold, payload, stamp);
            return Reading::Conversation;
        }
        "ui_telemetry" => {
            // Not shown, but it names the model of a subagent whose own
            // records do not (a workflow's agents).
            let event = payload.get("uiEvent").unwrap_or(&Value::Null);
            fold.report_model(&str_at(event, "subagent_id"), &str_at(event, "model"));
            return if session_events::api_error(fold, event, stamp) {
                Reading::Conversation
            } else {
                Reading::NoConversation
            };
        }
        _ => return Reading::UnknownKind,
    }
    let text = parts(v).map(|p| text_of(p)).unwrap_or_default();
    if text.contains("<task-notification>") {
        fold.notification(&text, stamp);
        return Reading::Conversation;
    }
    let Some(task) = payload.get("backgroundTask") else {
        return Reading::NoConversation;
    };
    fold.background_finished(
        Completion {
            task_id: str_at(task, "taskId"),
            tool_use_id: str_at(task, "toolUseId"),
            status: completion_status(&str_at(task, "status")).to_string(),
            summary: str_at(task, "description"),
            ..Completion::default()
        },
        stamp,
    );
    Reading::Conversation
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_usage_shapes_read_as_their_total() {
        let gemini =
            json!({"promptTokenCount": 4038, "candidatesTokenCount": 19, "totalTokenCount": 4057});
        let early = json!({"input": 900, "output": 100, "cached": 0, "thoughts": 0, "tool": 0, "total": 1000});
        let parts_only = json!({"promptTokenCount": 40, "candidatesTokenCount": 2});
        assert_eq!(
            [gemini, early, parts_only].map(|u| usage_tokens(&u)),
            [4057, 1000, 42]
        );
    }

    #[test]
    fn a_background_launch_names_its_agent() {
        let output = "Background agent launched successfully.\ntask_id: Explore-call_XJ7 (internal ID — do not mention)\nThe agent is working.";
        assert_eq!(launched_agent(output), Some("Explore-call_XJ7"));
        assert_eq!(launched_agent("## Summary\nDone."), None);
    }
}
