//! Claude Code's records read into the shared session-log fold
//! (`agent_log`): user and assistant messages (content blocks, tool uses and
//! their results with `toolUseResult`), system lines, `agent_progress`
//! mirrors, and the records that carry a `<task-notification>` (a queue
//! operation, a `queued_command` attachment). The kinds it writes for
//! itself are skipped by rule (`bookkeeping`); any other kind is left to the
//! shared test (`jsonl::Reading::UnknownKind`).

use super::super::agent_log::{Dialect, Fold, Owner};
use super::super::build::{Row, RowKind, Stamp};
use super::super::companions::is_agent_id;
use super::super::jsonl::Reading;
use super::super::subagent_fold::join_text_blocks;
use super::super::tokens;
use super::bookkeeping;
use super::harness::strip_tags;
use super::is_record;
use super::refusal;
use super::session_events;
use super::task_output;
use super::workflow::{launch_summary, workflow_call, workflow_title};
use crate::model::message::{bool_at, str_at};
use serde_json::Value;

/// The Claude Code dialect of session logs.
pub(super) struct Claude;

impl Dialect for Claude {
    fn is_record(v: &Value) -> bool {
        is_record(v)
    }

    fn record(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "user" => user(fold, v, owner, stamp),
            "assistant" => assistant(fold, v, owner, stamp),
            "system" => system(fold, v, stamp),
            "progress" => progress(fold, v),
            "queue-operation" => match v.get("content").and_then(Value::as_str) {
                Some(text) if text.contains("<task-notification>") => {
                    fold.queued_notification(text, stamp);
                    Reading::Conversation
                }
                _ => Reading::NoConversation,
            },
            "attachment" => attachment(fold, v, owner, stamp),
            kind if bookkeeping::is_bookkeeping(kind) => Reading::NoConversation,
            _ => Reading::UnknownKind,
        }
    }

    fn copied_from(v: &Value) -> Option<String> {
        Claude::copied_from_record(v)
    }
}

impl Claude {
    /// A forked session's copy of an assistant record names the session
    /// whose request produced it (`requestSessionId`, not its own).
    pub(super) fn copied_from_record(v: &Value) -> Option<String> {
        let from = str_at(v, "requestSessionId");
        (!from.is_empty() && from != str_at(v, "sessionId")).then_some(from)
    }
}

/// An attachment: a `<task-notification>` (a `queued_command` of the main
/// conversation), or a message sent to a running subagent (a
/// `queued_command` in its transcript, SendMessage): a user row in its card.
/// Other attachments carry no conversation.
fn attachment(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let a = v.get("attachment").unwrap_or(&Value::Null);
    let text = ["prompt", "content"].iter().find_map(|k| a.get(*k));
    let sent = text
        .and_then(Value::as_str)
        .filter(|t| !t.contains("<task-notification>") && !t.trim().is_empty());
    match (owner, sent) {
        (Owner::Sidechain(_), Some(message)) if str_at(a, "type") == "queued_command" => {
            fold.message_to_subagent(message, owner, stamp);
            Reading::Conversation
        }
        _ => notification_in(fold, text, stamp),
    }
}

/// A record that may carry a `<task-notification>` (a queue operation, a
/// `queued_command` attachment): conversation when it does.
fn notification_in(fold: &mut Fold, text: Option<&Value>, stamp: &Stamp) -> Reading {
    match text.and_then(Value::as_str) {
        Some(text) if text.contains("<task-notification>") => {
            fold.notification(text, stamp);
            Reading::Conversation
        }
        _ => Reading::NoConversation,
    }
}

fn user(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    if *owner == Owner::Main {
        if let Some(reading) = session_events::compact_summary(fold, v, stamp) {
            return reading;
        }
    }
    if bool_at(v, "isMeta") {
        return Reading::NoConversation;
    }
    let content = v
        .get("message")
        .and_then(|m| m.get("content"))
        .unwrap_or(&Value::Null);
    match content {
        Value::String(text) => user_text(fold, text, owner, stamp),
        Value::Array(blocks) => {
            let results: Vec<&Value> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                .collect();
            let structured = v.get("toolUseResult").filter(|_| results.len() == 1);
            // 2.0.x names the agent on the main record carrying a Task's result.
            let agent = match owner {
                Owner::Main if results.len() == 1 => str_at(v, "agentId"),
                _ => String::new(),
            };
            let decision = v.get("permissionDecision").filter(|_| results.len() == 1);
            for block in &results {
                tool_result(fold, block, structured, &agent, owner, stamp);
                let id = str_at(block, "tool_use_id");
                let output = block.get("content").map(result_text).unwrap_or_default();
                if let Some((status, reason)) = refusal::refusal(decision, &output) {
                    fold.refused(&id, status, &reason);
                } else if refusal::stopped_by_user(v) {
                    fold.cut_off(&id);
                }
            }
            let text = user_blocks_text(blocks);
            if !text.trim().is_empty() {
                user_text(fold, &text, owner, stamp);
            }
        }
        _ => return Reading::Unreadable,
    }
    Reading::Conversation
}

/// A user text: a slash command's records are one command row
/// (`session_events`), other harness lines (interruptions) are status rows;
/// the rest is the shared fold's.
fn user_text(fold: &mut Fold, text: &str, owner: &Owner, stamp: &Stamp) {
    if *owner == Owner::Main && session_events::command_text(fold, text, stamp) {
        return;
    }
    let t = text.trim_start();
    let harness = t.starts_with("<command-")
        || t.starts_with("<local-command-")
        || t.starts_with("[Request interrupted");
    if harness && *owner == Owner::Main {
        fold.push_row(
            owner,
            Row::new("", RowKind::Status, &strip_tags(text), stamp),
        );
    } else {
        fold.user_text(text, owner, stamp);
    }
}

/// A `tool_result` block; `structured` is the record's `toolUseResult` and
/// `record_agent` the agent id the record names, if any. A `Workflow`
/// launch names its run and its summary.
fn tool_result(
    fold: &mut Fold,
    block: &Value,
    structured: Option<&Value>,
    record_agent: &str,
    owner: &Owner,
    stamp: &Stamp,
) {
    let id = str_at(block, "tool_use_id");
    if id.is_empty() {
        return;
    }
    let output = block.get("content").map(result_text).unwrap_or_default();
    fold.tool_result(
        &id,
        &output,
        bool_at(block, "is_error"),
        structured,
        owner,
        stamp,
    );
    let Some(tool) = fold.tool_entry(&id, owner, stamp) else {
        return;
    };
    if tool.call.name == task_output::TASK_OUTPUT_TOOL {
        let input = tool.call.input.clone();
        task_output::settle(fold, &input, &output, structured, stamp);
        return;
    }
    if tool.call.name != "Workflow" {
        if is_agent_id(record_agent) {
            fold.name_agent(&id, record_agent);
        }
        return;
    }
    if let (Some(summary), Some(card)) = (launch_summary(&output), &mut tool.subagent) {
        card.apply_response(&serde_json::json!({ "description": summary }));
    }
    let structured = structured.unwrap_or(&Value::Null);
    fold.workflow_launched(&str_at(structured, "runId"), &id);
    let task_id = str_at(structured, "taskId");
    if !task_id.is_empty() {
        fold.link_agent(&task_id, &id);
    }
}

fn assistant(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let Some(message) = v.get("message").filter(|m| m.is_object()) else {
        return Reading::Unreadable;
    };
    let model = str_at(message, "model");
    let message_id = match message.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => str_at(v, "uuid"),
    };
    let tokens = message.get("usage").map_or(0, usage_tokens);
    fold.child_reply(owner, &message_id, &model, tokens);
    let blocks = match message.get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
        _ => return Reading::Unreadable,
    };
    let api_error = bool_at(v, "isApiErrorMessage");
    if let Owner::Sidechain(key) = owner {
        // An API error that ends a subagent's file is how its run ended.
        fold.child_mut(key).ended = api_error.then(|| ("failed".into(), error_text(message)));
    }
    let text_kind = if api_error {
        RowKind::Error
    } else {
        RowKind::AgentText
    };
    for block in &blocks {
        match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => fold.text_block(
                &message_id,
                text_kind,
                &str_at(block, "text"),
                owner,
                stamp,
                &model,
            ),
            "thinking" => fold.text_block(
                &message_id,
                RowKind::Thinking,
                &str_at(block, "thinking"),
                owner,
                stamp,
                &model,
            ),
            "tool_use" => tool_use(fold, block, owner, stamp),
            _ => {}
        }
    }
    Reading::Conversation
}

/// A `tool_use` block: `Task` and `Agent` launch subagents; a `Workflow`
/// is a card of its own.
fn tool_use(fold: &mut Fold, block: &Value, owner: &Owner, stamp: &Stamp) {
    let name = str_at(block, "name");
    let input = block.get("input").cloned().unwrap_or(Value::Null);
    let subagent = name == "Task" || name == "Agent";
    let Some(tool) = fold.tool_use(&str_at(block, "id"), &name, &input, subagent, owner, stamp)
    else {
        return;
    };
    if name == "Workflow" && tool.subagent.is_none() {
        tool.subagent = Some(workflow_call(&input));
        tool.call.title = workflow_title(&input);
    }
}

fn system(fold: &mut Fold, v: &Value, stamp: &Stamp) -> Reading {
    if let Some(reading) = session_events::system(fold, v, stamp) {
        return reading;
    }
    let text = str_at(v, "content");
    if text.trim().is_empty() {
        return Reading::NoConversation;
    }
    let error = str_at(v, "subtype") == "api_error" || str_at(v, "level") == "error";
    let kind = if error {
        RowKind::Error
    } else {
        RowKind::Status
    };
    fold.push_row(&Owner::Main, Row::new("", kind, &strip_tags(&text), stamp));
    Reading::Conversation
}

/// A `progress` record mirroring a subagent's activity into the main file
/// (2.1.3x); other progress kinds carry no conversation. The mirrored
/// records carry the child file's uuids: each is read once.
fn progress(fold: &mut Fold, v: &Value) -> Reading {
    let data = v.get("data").unwrap_or(&Value::Null);
    if str_at(data, "type") != "agent_progress" {
        return Reading::NoConversation;
    }
    let parent = str_at(v, "parentToolUseID");
    let Some(inner) = data.get("message").filter(|m| m.is_object()) else {
        return Reading::NoConversation;
    };
    let agent = str_at(data, "agentId");
    let key = if agent.is_empty() {
        format!("progress-{parent}")
    } else {
        agent
    };
    if !parent.is_empty() && !fold.task_of_agent.contains_key(&key) {
        fold.link_agent(&key, &parent);
    }
    fold.record_uuid = str_at(inner, "uuid");
    if fold.seen_before(&fold.record_uuid.clone()) {
        return Reading::Conversation;
    }
    fold.child_mut(&key);
    let owner = Owner::Sidechain(key);
    let stamp = fold.stamp(v);
    match str_at(inner, "type").as_str() {
        "user" => user(fold, inner, &owner, &stamp),
        "assistant" => assistant(fold, inner, &owner, &stamp),
        _ => Reading::NoConversation,
    }
}

/// The text of an API error message (its text blocks).
fn error_text(message: &Value) -> String {
    message
        .get("content")
        .map(join_text_blocks)
        .unwrap_or_default()
}

/// The tokens of one API message's `usage`: input (cache reads and writes
/// included) and output.
fn usage_tokens(usage: &Value) -> u64 {
    tokens::total(
        [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        ]
        .iter()
        .filter_map(|k| usage.get(*k).and_then(Value::as_u64)),
    )
}

/// A `tool_result.content` as text: a string, or its text blocks joined
/// (images noted as `[image]`).
fn result_text(content: &Value) -> String {
    match content {
        Value::Array(blocks)
            if blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("image")) =>
        {
            user_blocks_text(blocks)
        }
        other => join_text_blocks(other),
    }
}

/// The typed text of a user record's blocks (tool results excluded).
fn user_blocks_text(blocks: &[Value]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b.get("type").and_then(Value::as_str) {
            Some("text") => b.get("text").and_then(Value::as_str).map(str::to_string),
            Some("image") => Some("[image]".into()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
