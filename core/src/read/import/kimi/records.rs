//! Kimi Code wire records (docs/formats.md §10.3) read into the
//! shared session-log fold (`agent_log`): prompts, loop events, the
//! `subagent.*` lifecycle and background task ends, model API retries (one
//! quiet row per turn, `session_events`); bookkeeping skipped.

use super::super::agent_log::{completion_status, status_reason, Completion, Dialect, Fold, Owner};
use super::super::build::{Row, RowKind, Stamp};
use super::super::jsonl::Reading;
use super::super::subagent_fold::Trailer;
use super::super::tokens;
use crate::model::message::str_at;
use crate::model::time::format_millis;
use serde_json::{json, Value};

/// The tool that launches a subagent.
const AGENT_TOOL: &str = "Agent";

/// Records that carry no conversation, or repeat what the loop events
/// hold (`context.append_message`, `agent.message.appended`): skipped and
/// counted (docs/behaviour.md §1).
const BOOKKEEPING: [&str; 23] = [
    "metadata",
    "runtime.set_binding",
    "profile.bind",
    "permission.set_mode",
    "plugin.session_start",
    "llm.tools_snapshot",
    "llm.request",
    "usage.record",
    "token_counting.measured",
    "token_counting.turn_recorded",
    "context.append_message",
    "agent.message.appended",
    "agent.turn.started",
    "agent.turn.ended",
    "turn.ended",
    "prompt.completed",
    "subagent.started",
    "task.started",
    "notify.state",
    "goal.updated",
    "context.spliced",
    "agent.status.updated",
    "turn.step.interrupted",
];

/// The Kimi Code dialect of session logs.
pub(super) struct Kimi;

impl Dialect for Kimi {
    fn is_record(v: &Value) -> bool {
        super::is_record(v)
    }

    fn record(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
        match str_at(v, "type").as_str() {
            "turn.prompt" => prompt(fold, v, owner, stamp),
            "context.append_loop_event" => loop_event(fold, v, owner, stamp),
            "subagent.spawned" => {
                spawned(fold, v);
                Reading::NoConversation
            }
            "subagent.completed" | "subagent.failed" | "subagent.cancelled" => {
                subagent_ended(fold, v, stamp);
                Reading::NoConversation
            }
            "task.terminated" => {
                task_terminated(fold, v, stamp);
                Reading::NoConversation
            }
            "turn.step.retrying" => {
                let status = v.get("statusCode").and_then(Value::as_u64).unwrap_or(0);
                let reason = status_reason(status).unwrap_or_else(|| str_at(v, "errorMessage"));
                fold.api_retry(owner, &reason, stamp);
                Reading::Conversation
            }
            "error" => {
                let text = str_at(v, "message");
                if text.trim().is_empty() || *owner != Owner::Main {
                    return Reading::NoConversation;
                }
                fold.push_row(owner, Row::new("", RowKind::Error, &text, stamp));
                Reading::Conversation
            }
            k if BOOKKEEPING.contains(&k) => Reading::NoConversation,
            _ => Reading::UnknownKind,
        }
    }
}

/// Gives a record with an epoch-ms `time` the RFC 3339 `timestamp` the
/// fold stamps rows with.
pub(super) fn stamp_time(record: &mut Value) {
    let Some(ms) = record.get("time").and_then(Value::as_i64) else {
        return;
    };
    if let Some(o) = record.as_object_mut() {
        o.insert("timestamp".into(), format_millis(ms).into());
    }
}

/// The text of a prompt's `input` parts.
fn input_text(v: &Value) -> String {
    let parts = v.get("input").and_then(Value::as_array);
    let texts: Vec<String> = parts
        .into_iter()
        .flatten()
        .filter(|p| str_at(p, "type") == "text")
        .map(|p| str_at(p, "text"))
        .collect();
    texts.join("\n")
}

/// A turn's prompt: a background run's `<notification>` settles its card;
/// the user's text starts a turn; a subagent's first is its prompt; a
/// prompt the CLI made on its own (no user typed it) is skipped.
fn prompt(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let text = input_text(v);
    if text.trim_start().starts_with("<notification") {
        notification(fold, &text, stamp);
        return Reading::Conversation;
    }
    if text.trim().is_empty() {
        return Reading::NoConversation;
    }
    let origin = v.get("origin").unwrap_or(&Value::Null);
    match owner {
        Owner::Sidechain(key) if !fold.child_mut(key).first_prompt.is_empty() => {
            fold.message_to_subagent(&text, owner, stamp);
        }
        Owner::Sidechain(_) => fold.user_text(&text, owner, stamp),
        Owner::Main if str_at(origin, "kind") == "user" => fold.user_text(&text, owner, stamp),
        Owner::Main => return Reading::NoConversation,
    }
    Reading::Conversation
}

/// One loop event: a text or thinking part, a tool call or its result;
/// step marks are bookkeeping.
fn loop_event(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let event = v.get("event").unwrap_or(&Value::Null);
    match str_at(event, "type").as_str() {
        "content.part" => {
            let part = event.get("part").unwrap_or(&Value::Null);
            let step = str_at(event, "stepUuid");
            let (kind, text) = match str_at(part, "type").as_str() {
                "think" => (RowKind::Thinking, str_at(part, "think")),
                "text" => (RowKind::AgentText, str_at(part, "text")),
                _ => return Reading::NoConversation,
            };
            fold.text_block(&step, kind, &text, owner, stamp, "");
            Reading::Conversation
        }
        "tool.call" => {
            let (id, name) = (str_at(event, "toolCallId"), str_at(event, "name"));
            let args = event.get("args").cloned().unwrap_or(Value::Null);
            fold.tool_use(&id, &name, &args, name == AGENT_TOOL, owner, stamp);
            Reading::Conversation
        }
        "tool.result" => {
            tool_result(fold, event, owner, stamp);
            Reading::Conversation
        }
        _ => Reading::NoConversation,
    }
}

/// A tool's result. An `Agent` result is transport (its agent, status,
/// `[summary]` and resume hint): the card's answer comes from
/// `subagent.completed`; a launch that failed keeps its error as the reason.
fn tool_result(fold: &mut Fold, event: &Value, owner: &Owner, stamp: &Stamp) {
    let id = str_at(event, "toolCallId");
    let result = event.get("result").unwrap_or(&Value::Null);
    let output = match result.get("output") {
        Some(Value::String(s)) => s.clone(),
        Some(other) if !other.is_null() => other.to_string(),
        _ => str_at(result, "error"),
    };
    let failed = result.get("isError").and_then(Value::as_bool) == Some(true)
        || result.get("is_error").and_then(Value::as_bool) == Some(true);
    if fold.subagent_mut(&id).is_none() {
        fold.tool_result(&id, &output, failed, None, owner, stamp);
        return;
    }
    let duration = result.get("durationMs").and_then(Value::as_u64);
    let mut response = json!({});
    if let Some(ms) = duration {
        response["totalDurationMs"] = ms.into();
    }
    if line_value(&output, "status") == Some("running") {
        response["status"] = "async_launched".into();
        if let Some(agent) = line_value(&output, "agent_id") {
            response["agentId"] = agent.into();
        }
    }
    let reason = if failed { output.as_str() } else { "" };
    fold.tool_result(&id, reason, failed, Some(&response), owner, stamp);
}

/// The value of a `key: value` line of a tool result.
fn line_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// `subagent.spawned`: the card its `parentToolCallId` names gets its type,
/// model, agent and mode as the CLI recorded them.
fn spawned(fold: &mut Fold, v: &Value) {
    let task = str_at(v, "parentToolCallId");
    let agent = str_at(v, "subagentId");
    let background = v.get("runInBackground").and_then(Value::as_bool) == Some(true);
    if let Some(card) = fold.subagent_mut(&task) {
        card.retype(&str_at(v, "subagentName"));
        let mut response = json!({ "resolvedModel": str_at(v, "model") });
        if background {
            response["isAsync"] = true.into();
        }
        card.apply_response(&response);
    }
    fold.name_agent(&task, &agent);
}

/// The card of agent `agent` (its launching call's id), if one is known.
fn card_of_agent(fold: &Fold, agent: &str) -> String {
    fold.task_of_agent.get(agent).cloned().unwrap_or_default()
}

/// `subagent.completed` (its answer and tokens), `.failed` (its error) or
/// `.cancelled`: the end of the run of the card its agent names.
fn subagent_ended(fold: &mut Fold, v: &Value, stamp: &Stamp) {
    let task = card_of_agent(fold, &str_at(v, "subagentId"));
    if task.is_empty() {
        return;
    }
    let (status, result) = match str_at(v, "type").as_str() {
        "subagent.completed" => ("completed", str_at(v, "resultSummary")),
        "subagent.failed" => ("failed", str_at(v, "error")),
        _ => ("cancelled", String::new()),
    };
    let usage = Trailer {
        total_tokens: v.get("usage").map(total_tokens).filter(|n| *n > 0),
        ..Trailer::default()
    };
    let completion = Completion {
        tool_use_id: task,
        status: status.into(),
        result,
        usage,
        ..Completion::default()
    };
    fold.background_finished(completion, stamp);
}

/// The tokens of a `usage` record in all: input, output and cache.
fn total_tokens(usage: &Value) -> u64 {
    tokens::total(
        [
            "inputOther",
            "output",
            "inputCacheRead",
            "inputCacheCreation",
        ]
        .iter()
        .filter_map(|k| usage.get(*k).and_then(Value::as_u64)),
    )
}

/// `task.terminated` for a background agent: its end status and how long
/// it ran (a run that timed out or was lost failed; one killed was
/// cancelled). Other tasks (background commands) are bookkeeping.
fn task_terminated(fold: &mut Fold, v: &Value, stamp: &Stamp) {
    let info = v.get("info").unwrap_or(&Value::Null);
    if str_at(info, "kind") != "agent" {
        return;
    }
    let task = match str_at(info, "parentToolCallId") {
        t if t.is_empty() => card_of_agent(fold, &str_at(info, "agentId")),
        t => t,
    };
    let status = match str_at(info, "status").as_str() {
        "timed_out" | "lost" => "failed".to_string(),
        s => completion_status(s).to_string(),
    };
    if task.is_empty() || status.is_empty() || status == "running" {
        return;
    }
    let ms = |k: &str| info.get(k).and_then(Value::as_u64);
    let duration = ms("endedAt")
        .zip(ms("startedAt"))
        .map(|(e, s)| e.saturating_sub(s));
    let reason = match status.as_str() {
        "failed" | "cancelled" => str_at(info, "stopReason"),
        _ => String::new(),
    };
    let completion = Completion {
        tool_use_id: task,
        status,
        result: reason,
        usage: Trailer {
            duration_ms: duration,
            ..Trailer::default()
        },
        ..Completion::default()
    };
    fold.background_finished(completion, stamp);
}

/// A `<notification … type="task.<end>" source_id=… agent_id=…>` prompt:
/// the background run it names ended (its card settles; the answer came
/// with `subagent.completed`). One that names no agent's card is a
/// background command's, and carries no conversation either.
fn notification(fold: &mut Fold, text: &str, stamp: &Stamp) {
    let head = text.split('>').next().unwrap_or("");
    let attr = |name: &str| {
        let key = format!(" {name}=\"");
        let start = head.find(&key)? + key.len();
        let len = head[start..].find('"')?;
        Some(head[start..start + len].to_string())
    };
    let Some(agent) = attr("agent_id") else {
        return;
    };
    let task = card_of_agent(fold, &agent);
    let status = match attr("type").as_deref() {
        Some("task.completed") => "completed",
        Some("task.killed") => "cancelled",
        Some("task.failed" | "task.timed_out" | "task.lost") => "failed",
        _ => return,
    };
    if task.is_empty() {
        return;
    }
    let completion = Completion {
        tool_use_id: task,
        status: status.into(),
        ..Completion::default()
    };
    fold.background_finished(completion, stamp);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_results_lines_are_read_by_key() {
        let launch = "task_id: agent-0e8jsea3\nstatus: running\nagent_id: agent-0\n";
        assert_eq!(line_value(launch, "status"), Some("running"));
        assert_eq!(line_value(launch, "agent_id"), Some("agent-0"));
        assert_eq!(line_value(launch, "stop_reason"), None);
    }

    #[test]
    fn usage_counts_input_output_and_cache() {
        let usage = json!({"inputOther": 8434, "output": 137, "inputCacheRead": 10, "inputCacheCreation": 0});
        assert_eq!(total_tokens(&usage), 8581);
    }

    #[test]
    fn a_records_time_becomes_its_timestamp() {
        let mut record = json!({"type": "turn.ended", "time": 1_796_544_219_458_i64});
        stamp_time(&mut record);
        assert_eq!(record["timestamp"], "2026-12-06T08:03:39.458Z");
    }
}
