//! Is the agent that writes this session working right now? (docs/behaviour.md §7,
//! "Watching agents at work": a session's task is in progress while its
//! agent works.) Read from the newest records of a session file that is
//! still being written, so a recordings folder can tell a turn under way
//! from one that ended, even while the file is quiet (a model reply that
//! takes a minute writes nothing until it is done).
//!
//! Subagents are not judged here: a background subagent still running keeps
//! its task busy through the one running rule (`status::is_running_subagent`),
//! counted from the imported messages.

use super::detect::Dialect;
use super::jsonl::{self, Line};
use serde_json::Value;

/// `Some(true)` while the newest conversation records of `text` say its agent
/// is in the middle of a turn, `Some(false)` when its last turn ended;
/// `None` when the dialect does not say (the caller falls back on whether
/// the file still grows).
pub fn agent_working(dialect: Dialect, text: &str) -> Option<bool> {
    record_says(dialect).map(|says| newest_says(text, says))
}

/// What one record of `dialect` says of its agent: `Some(working)` when it
/// tells, `None` when it says nothing (bookkeeping); `None` for a dialect
/// whose records do not tell.
pub(crate) fn record_says(dialect: Dialect) -> Option<fn(&Value) -> Option<bool>> {
    match dialect {
        Dialect::ClaudeCode => Some(claude_code_record_says),
        Dialect::QwenCode => Some(qwen_code_record_says),
        Dialect::Codex => Some(codex_record_says),
        Dialect::Copilot => Some(super::copilot::record_says),
        Dialect::Kimi => Some(super::kimi::record_says),
        Dialect::Otlp => Some(super::otlp::record_says),
        _ => None,
    }
}

/// What the main conversation's record `value` says (a subagent's
/// sidechain record says nothing of its parent).
pub(crate) fn main_record_says(says: fn(&Value) -> Option<bool>, value: &Value) -> Option<bool> {
    if value.get("isSidechain").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    says(value)
}

fn newest_says(text: &str, says: fn(&Value) -> Option<bool>) -> bool {
    let newest_first = text.lines().rev().filter(|l| !l.trim().is_empty());
    for line in newest_first.map(jsonl::read_line) {
        let Line::Object { value, .. } = line else {
            continue;
        };
        if let Some(working) = main_record_says(says, &value) {
            return working;
        }
    }
    true
}

/// Claude Code: an assistant reply that stopped for good (`end_turn`,
/// `stop_sequence`, `max_tokens`, `refusal`) with no tool call ends the turn;
/// a request sent to the model (`api-request`), a prompt, a tool result, a
/// tool call awaiting its result, or a queued prompt or notification
/// (`queue-operation` `enqueue`) means work is under way; an interruption or
/// a local command's output ends it.
fn claude_code_record_says(record: &Value) -> Option<bool> {
    match at(record, "/type")? {
        "assistant" => {
            let calls_a_tool = content_blocks(record).any(|b| at(b, "/type") == Some("tool_use"));
            let stopped = matches!(
                at(record, "/message/stop_reason"),
                Some("end_turn" | "stop_sequence" | "max_tokens" | "refusal")
            );
            Some(calls_a_tool || !stopped)
        }
        "user" => Some(!ends_the_turn(record)),
        "api-request" => Some(true),
        "queue-operation" => match at(record, "/operation") {
            Some("enqueue") => Some(true),
            _ => None,
        },
        _ => None,
    }
}

/// qwen-code (`chats/<session>.jsonl`): a model reply with no function call
/// ends the turn; one that calls a function, a tool result, a prompt or a
/// delivered notification means work is under way. Its replies are written
/// whole, so a reply being generated leaves the newest record a prompt or a
/// tool result: working.
fn qwen_code_record_says(record: &Value) -> Option<bool> {
    match at(record, "/type")? {
        "assistant" => Some(
            record
                .pointer("/message/parts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .any(|part| part.get("functionCall").is_some()),
        ),
        "user" | "tool_result" => Some(true),
        _ => None,
    }
}

/// Codex (a rollout's `event_msg` records): `task_started` opens a turn,
/// `task_complete` or `turn_aborted` ends it; a prompt (`user_message`)
/// means work is under way. Everything else (replies, calls, token counts)
/// happens inside a turn and says nothing new.
fn codex_record_says(record: &Value) -> Option<bool> {
    if at(record, "/type")? != "event_msg" {
        return None;
    }
    match at(record, "/payload/type")? {
        "task_started" | "user_message" => Some(true),
        "task_complete" | "turn_aborted" => Some(false),
        _ => None,
    }
}

/// The string at JSON pointer `pointer`, if it is one.
fn at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// The blocks of a record's `message.content` (none when it is a string).
fn content_blocks(record: &Value) -> impl Iterator<Item = &Value> {
    record
        .pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// A user record after which the model is not asked anything: the user
/// stopped the turn (`[Request interrupted by user…]`), or a local command's
/// output (`/cost`, `/clear`: `<local-command-stdout>…`).
fn ends_the_turn(record: &Value) -> bool {
    const FINAL: [&str; 2] = ["[Request interrupted by user", "<local-command-"];
    let is_final = |text: &str| FINAL.iter().any(|p| text.trim_start().starts_with(p));
    match record.pointer("/message/content") {
        Some(Value::String(s)) => is_final(s),
        _ => content_blocks(record).any(|b| at(b, "/text").is_some_and(is_final)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn working(records: &[&str]) -> bool {
        newest_says(&records.join("\n"), claude_code_record_says)
    }

    const PROMPT: &str = r#"{"type":"user","message":{"role":"user","content":"Review it"}}"#;
    const REQUEST: &str = r#"{"type":"api-request","requestId":"r1"}"#;
    const CALL: &str = r#"{"type":"assistant","message":{"stop_reason":"tool_use","content":[{"type":"tool_use","id":"t1","name":"Agent","input":{}}]}}"#;
    const RESULT: &str = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#;
    const DONE: &str = r#"{"type":"assistant","message":{"stop_reason":"end_turn","content":[{"type":"text","text":"All four are out."}]}}"#;
    const ENQUEUE: &str =
        r#"{"type":"queue-operation","operation":"enqueue","content":"<task-notification>…"}"#;
    const DEQUEUE: &str = r#"{"type":"queue-operation","operation":"dequeue"}"#;
    const COST: &str = r#"{"type":"cost-state","totalCostUsd":0}"#;

    #[test]
    fn a_turn_under_way_is_work_until_the_reply_that_ends_it() {
        assert!(working(&[PROMPT]));
        assert!(working(&[PROMPT, REQUEST]));
        assert!(working(&[PROMPT, REQUEST, CALL]));
        assert!(working(&[PROMPT, REQUEST, CALL, RESULT]));
        assert!(!working(&[PROMPT, REQUEST, CALL, RESULT, REQUEST, DONE]));
    }

    #[test]
    fn bookkeeping_after_the_end_does_not_reopen_the_turn() {
        let last_prompt = r#"{"type":"last-prompt","lastPrompt":"Review it"}"#;
        assert!(!working(&[
            PROMPT,
            DONE,
            last_prompt,
            COST,
            "{\"type\":\"atis-la"
        ]));
    }

    #[test]
    fn a_queued_notification_starts_work_again() {
        assert!(working(&[PROMPT, DONE, ENQUEUE]));
        assert!(working(&[PROMPT, DONE, ENQUEUE, DEQUEUE]));
    }

    #[test]
    fn a_reply_still_streaming_is_work() {
        let streaming = r#"{"type":"assistant","message":{"stop_reason":null,"content":[{"type":"text","text":"Let me"}]}}"#;
        assert!(working(&[PROMPT, streaming]));
    }

    #[test]
    fn an_interruption_ends_the_turn() {
        let interrupted = r#"{"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}"#;
        assert!(!working(&[PROMPT, CALL, interrupted]));
    }

    #[test]
    fn a_local_command_asks_the_model_nothing() {
        let cost = r#"{"type":"user","message":{"content":"<local-command-stdout>Total cost: $0.00</local-command-stdout>"}}"#;
        assert!(!working(&[PROMPT, DONE, cost]));
    }

    #[test]
    fn old_inline_sidechain_records_do_not_speak_for_the_main_agent() {
        let child = r#"{"type":"user","isSidechain":true,"message":{"content":"go"}}"#;
        assert!(!working(&[PROMPT, DONE, child]));
    }

    #[test]
    fn qwen_code_works_until_a_reply_calls_no_function() {
        let qwen = |records: &[&str]| newest_says(&records.join("\n"), qwen_code_record_says);
        let prompt = r#"{"type":"user","message":{"role":"user","parts":[{"text":"Measure it"}]}}"#;
        let call = r#"{"type":"assistant","message":{"role":"model","parts":[{"text":"On it."},{"functionCall":{"id":"c1","name":"agent","args":{}}}]}}"#;
        let result = r#"{"type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"c1"}}]}}"#;
        let done = r#"{"type":"assistant","message":{"role":"model","parts":[{"text":"Four agents are out."}]}}"#;
        let telemetry = r#"{"type":"system","subtype":"ui_telemetry","systemPayload":{}}"#;
        let notified = r#"{"type":"user","subtype":"notification","message":{"role":"user","parts":[{"text":"<task-notification>…"}]}}"#;
        assert!(qwen(&[prompt, telemetry]));
        assert!(qwen(&[prompt, call]));
        assert!(qwen(&[prompt, call, result, telemetry]));
        assert!(!qwen(&[prompt, call, result, done, telemetry]));
        assert!(qwen(&[prompt, call, result, done, notified]));
    }

    #[test]
    fn codex_works_from_task_started_to_task_complete_or_an_abort() {
        let codex = |records: &[&str]| agent_working(Dialect::Codex, &records.join("\n"));
        let meta = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s"}}"#;
        let started = r#"{"timestamp":"t","type":"event_msg","payload":{"type":"task_started"}}"#;
        let call = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"spawn_agent"}}"#;
        let tokens = r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count"}}"#;
        let complete = r#"{"timestamp":"t","type":"event_msg","payload":{"type":"task_complete"}}"#;
        let aborted = r#"{"timestamp":"t","type":"event_msg","payload":{"type":"turn_aborted"}}"#;
        assert_eq!(codex(&[meta]), Some(true));
        assert_eq!(codex(&[meta, started, call, tokens]), Some(true));
        assert_eq!(codex(&[meta, started, call, tokens, complete]), Some(false));
        assert_eq!(codex(&[meta, started, call, aborted, tokens]), Some(false));
        assert_eq!(codex(&[meta, started, complete, started]), Some(true));
    }

    #[test]
    fn only_dialects_that_say_are_judged() {
        assert_eq!(agent_working(Dialect::ClaudeCode, PROMPT), Some(true));
        assert_eq!(agent_working(Dialect::Kandev, "[]"), None);
    }
}
