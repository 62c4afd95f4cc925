//! Copilot CLI events (docs/formats.md §10.3) read into the shared
//! session-log fold (`agent_log`): user and assistant messages, tool
//! executions, the `subagent.*` lifecycle, errors; bookkeeping skipped.

use super::super::agent_log::{CallTools, Completion, Dialect, Fold, Owner};
use super::super::build::{Row, RowKind, Stamp};
use super::super::jsonl::Reading;
use super::super::subagent_fold::Trailer;
use crate::model::message::{str_at, u64_at};
use serde_json::{json, Value};

/// `task` launches a subagent; `read_agent` fetches a finished agent's
/// reply: transport, not work (the reply is the card's answer already).
const TOOLS: CallTools = CallTools {
    launch: "task",
    transport: &["read_agent"],
    launch_input,
};

/// Events that carry no conversation: skipped and counted (docs/behaviour.md §1).
const BOOKKEEPING: [&str; 16] = [
    "session.start",
    "session.shutdown",
    "session.permissions_changed",
    "session.model_change",
    "session.usage_record",
    "session.info",
    "session.context_changed",
    "session.truncation",
    "system.message",
    "system.notification",
    "assistant.turn_start",
    "assistant.turn_end",
    "assistant.usage",
    "subagent.selected",
    "subagent.configured",
    "hook.start",
];

/// The Copilot CLI dialect of session logs.
pub(super) struct Copilot;

impl Dialect for Copilot {
    fn is_record(v: &Value) -> bool {
        super::is_record(v)
    }

    fn record(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
        let data = v.get("data").unwrap_or(&Value::Null);
        let kind = str_at(v, "type");
        if let Some(event) = kind.strip_prefix("subagent.") {
            if let Some(reading) = lifecycle(fold, event, v, stamp) {
                return reading;
            }
        }
        let owner = match str_at(v, "agentId") {
            agent if agent.is_empty() => owner.clone(),
            agent => fold.owner_of(v, Some(&agent)),
        };
        match kind.as_str() {
            "user.message" => user_message(fold, data, &owner, stamp),
            "assistant.message" => assistant_message(fold, data, &owner, stamp),
            "assistant.reasoning" => {
                let id = format!("reasoning-{}", str_at(data, "reasoningId"));
                let text = str_at(data, "content");
                fold.text_block(&id, RowKind::Thinking, &text, &owner, stamp, "");
                Reading::Conversation
            }
            "tool.execution_start" => {
                let args = data.get("arguments").cloned().unwrap_or(Value::Null);
                let (id, name) = (str_at(data, "toolCallId"), str_at(data, "toolName"));
                fold.call(&TOOLS, &id, &name, args, &owner, stamp);
                Reading::Conversation
            }
            "tool.execution_complete" => {
                executed(fold, data, &owner, stamp);
                Reading::Conversation
            }
            "session.error" => {
                let text = error_text(data);
                // A subagent's error is its card's (its status and reason).
                if text.is_empty() || owner != Owner::Main {
                    return Reading::NoConversation;
                }
                fold.push_row(&owner, Row::new("", RowKind::Error, &text, stamp));
                Reading::Conversation
            }
            "session.resume" => {
                fold.resumed(stamp);
                Reading::Conversation
            }
            "session.compaction_start" => {
                fold.compaction(&str_at(data, "trigger"), stamp);
                Reading::Conversation
            }
            "session.compaction_complete" => {
                let summary = without_section_tags(&str_at(data, "summaryContent"));
                if summary.trim().is_empty() {
                    return Reading::NoConversation;
                }
                fold.compaction_summary(&summary, stamp);
                Reading::Conversation
            }
            k if k.starts_with("model.") => Reading::NoConversation,
            "session.warning" => {
                let text = str_at(data, "message");
                if text.trim().is_empty() {
                    return Reading::NoConversation;
                }
                fold.push_row(&owner, Row::new("", RowKind::Status, &text, stamp));
                Reading::Conversation
            }
            k if BOOKKEEPING.contains(&k) => Reading::NoConversation,
            _ => Reading::UnknownKind,
        }
    }
}

/// A `subagent.*` event `v`: the run of the card its `toolCallId` names
/// (`started`: its agent, type, model and mode; `completed`, `failed`: its
/// end, tokens, tool count and duration; the envelope's `agentId` is the
/// run's agent); `None` for another kind, read as the agent's own event.
fn lifecycle(fold: &mut Fold, event: &str, v: &Value, stamp: &Stamp) -> Option<Reading> {
    let data = v.get("data").unwrap_or(&Value::Null);
    let task = str_at(data, "toolCallId");
    match event {
        "started" => {
            let agent = str_at(v, "agentId");
            let background = str_at(data, "executionMode") == "background";
            if let Some(card) = fold.subagent_mut(&task) {
                card.retype(&str_at(data, "agentType"));
                let mut response = json!({ "resolvedModel": str_at(data, "model") });
                if background {
                    response["isAsync"] = true.into();
                }
                card.apply_response(&response);
            }
            fold.name_agent(&task, &agent);
            Some(Reading::NoConversation)
        }
        "completed" | "failed" => {
            let failed = event == "failed";
            let usage = Trailer {
                total_tokens: u64_at(data, "totalTokens"),
                tool_uses: u64_at(data, "totalToolCalls"),
                duration_ms: u64_at(data, "durationMs"),
                ..Trailer::default()
            };
            let cancelled = data.get("cancelled").and_then(Value::as_bool) == Some(true);
            let status = match () {
                _ if failed => "failed",
                _ if cancelled => "cancelled",
                _ => "completed",
            };
            let completion = Completion {
                tool_use_id: task,
                status: status.into(),
                result: if failed {
                    error_text(data)
                } else {
                    String::new()
                },
                usage,
                ..Completion::default()
            };
            fold.background_finished(completion, stamp);
            Some(Reading::NoConversation)
        }
        _ => None,
    }
}

/// A user message: the user's prompt in the main conversation, a
/// subagent's prompt (its first) or a message sent to it since.
fn user_message(fold: &mut Fold, data: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let text = str_at(data, "content");
    if text.trim().is_empty() {
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

/// An assistant message: its reasoning, its text and its tool requests.
fn assistant_message(fold: &mut Fold, data: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let id = str_at(data, "messageId");
    let model = str_at(data, "model");
    fold.child_reply(owner, &id, &model, 0);
    let reasoning = str_at(data, "reasoningText");
    fold.text_block(&id, RowKind::Thinking, &reasoning, owner, stamp, &model);
    fold.text_block(
        &id,
        RowKind::AgentText,
        &str_at(data, "content"),
        owner,
        stamp,
        &model,
    );
    for request in data
        .get("toolRequests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let args = request.get("arguments").cloned().unwrap_or(Value::Null);
        let (call_id, name) = (str_at(request, "toolCallId"), str_at(request, "name"));
        fold.call(&TOOLS, &call_id, &name, args, owner, stamp);
    }
    Reading::Conversation
}

/// A `task` call's arguments in the shape a card folds: its `agent_type`
/// types it, its `description` (else its `name`) describes it, `mode:
/// background` runs it in the background.
fn launch_input(args: Value) -> Value {
    let background = str_at(&args, "mode") == "background";
    let kind = match str_at(&args, "agent_type") {
        t if t.is_empty() => "general-purpose".to_string(),
        t => t,
    };
    let mut input = match args {
        Value::Object(o) => o,
        _ => serde_json::Map::new(),
    };
    input.insert("subagent_type".into(), kind.into());
    input.insert("run_in_background".into(), background.into());
    Value::Object(input)
}

/// A tool's execution ended: its result (a command's exit code too); a
/// background launch's result is a placeholder that names the agent.
fn executed(fold: &mut Fold, data: &Value, owner: &Owner, stamp: &Stamp) {
    let id = str_at(data, "toolCallId");
    if fold.held.contains(&id) {
        return;
    }
    let result = data.get("result").unwrap_or(&Value::Null);
    let code = data
        .get("shellExecution")
        .and_then(|s| s.get("exitCode"))
        .and_then(Value::as_i64);
    let failed =
        data.get("success").and_then(Value::as_bool) == Some(false) || code.is_some_and(|c| c != 0);
    let text = match str_at(result, "content") {
        t if t.is_empty() && failed => error_text(data),
        t => without_shell_trailer(&t).to_string(),
    };
    if fold.subagent_mut(&id).is_some() {
        if let Some(agent) = launched_agent(&text) {
            let response = json!({ "status": "async_launched", "agentId": agent });
            fold.tool_result(&id, "", false, Some(&response), owner, stamp);
            return;
        }
    }
    fold.tool_result(&id, &text, failed, None, owner, stamp);
    if let (Some(code), Some(tool)) = (code, fold.tool_entry(&id, owner, stamp)) {
        tool.call.exit_code = Some(code);
    }
}

/// A command's output without the line the CLI adds after it
/// (`<shellId: 0 completed with exit code 1>`).
fn without_shell_trailer(text: &str) -> &str {
    let body = text.trim_end();
    match body.rsplit_once('\n') {
        Some((head, last)) if last.starts_with("<shellId:") && last.ends_with('>') => head,
        None if body.starts_with("<shellId:") && body.ends_with('>') => "",
        _ => text,
    }
}

/// The agent a background launch's result names ("Agent started in
/// background with agent_id: <id>. …").
fn launched_agent(text: &str) -> Option<&str> {
    let rest = text
        .strip_prefix("Agent started in background")?
        .split_once("agent_id:")?
        .1
        .trim_start();
    let id = rest
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .next()?;
    (!id.is_empty()).then_some(id)
}

/// The message of an event's error: `error` as text or `{message}`, else
/// its own `message`.
fn error_text(data: &Value) -> String {
    match data.get("error") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(e @ Value::Object(_)) if !str_at(e, "message").is_empty() => str_at(e, "message"),
        _ => str_at(data, "message"),
    }
}

/// A compaction summary without the section tags the CLI asks the model
/// for (`<overview>`, `<history>`, …): a line that is only a tag goes, a
/// tag around a line's text leaves the text.
fn without_section_tags(summary: &str) -> String {
    let is_tag = |s: &str| {
        let name = s.trim_start_matches('/');
        !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_')
    };
    let mut out = String::with_capacity(summary.len());
    for line in summary.lines() {
        let mut text = line.trim();
        if let Some(inner) = text.strip_prefix('<').and_then(|t| t.split_once('>')) {
            if is_tag(inner.0) {
                text = inner.1;
            }
        }
        if let Some((rest, tag)) = text.rsplit_once("</") {
            if tag.strip_suffix('>').is_some_and(is_tag) {
                text = rest;
            }
        }
        if !text.trim().is_empty() {
            out.push_str(text);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_background_launch_names_its_agent() {
        let text = "Agent started in background with agent_id: 90ab1572-045f-4809-9470-79c08ed21689. You'll be notified when it completes.";
        assert_eq!(
            launched_agent(text),
            Some("90ab1572-045f-4809-9470-79c08ed21689")
        );
        assert_eq!(launched_agent("## Summary\nagent_id: x"), None);
    }

    #[test]
    fn a_commands_output_loses_the_shell_line() {
        assert_eq!(
            without_shell_trailer("cat: x: No such file\n<shellId: 0 completed with exit code 1>"),
            "cat: x: No such file"
        );
        assert_eq!(without_shell_trailer("<shellId: 3 completed>"), "");
        assert_eq!(without_shell_trailer("plain\n"), "plain\n");
    }

    #[test]
    fn an_errors_message_is_read_from_either_shape() {
        assert_eq!(error_text(&json!({"error": "boom"})), "boom");
        assert_eq!(error_text(&json!({"error": {"message": "429"}})), "429");
        assert_eq!(error_text(&json!({"message": "plain"})), "plain");
    }
}
