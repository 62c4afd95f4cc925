//! Claude Code session JSONL (docs/formats.md §2): the helpers that
//! build records, and the suites: the record rules, and what real captures
//! do (docs/formats.md §7).

use crate::common::*;
use serde_json::{json, Value};
use taskview_core::model::message::Message;
use taskview_core::read::import::claude_code;

mod real;
mod records;

pub const SESSION: &str = "dialects/claude-code-session.jsonl";
pub const TASK: &str = "toolu_01Kx7TaskBilling3qZ";
pub const AGENT: &str = "a3f9c2e1b7d40c5e8";

pub fn import(records: &[Value]) -> Vec<Message> {
    messages(&claude_code::import(&lines(records)).expect("Claude Code import"))
}

pub fn lines(records: &[Value]) -> String {
    records
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn user(uuid: &str, content: Value) -> Value {
    json!({"type": "user", "uuid": uuid, "sessionId": "s1", "timestamp": "2026-03-12T14:00:00Z",
           "message": {"role": "user", "content": content}})
}

pub fn assistant(uuid: &str, message_id: &str, block: Value) -> Value {
    json!({"type": "assistant", "uuid": uuid, "sessionId": "s1", "timestamp": "2026-03-12T14:00:01Z",
           "message": {"id": message_id, "role": "assistant", "model": "claude-opus-4-6", "content": [block]}})
}

pub fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

/// The main agent's `Task` call launching a subagent, in message `msg_1`.
pub fn task_launch(
    uuid: &str,
    tool_id: &str,
    description: &str,
    prompt: &str,
    kind: &str,
) -> Value {
    assistant(
        uuid,
        "msg_1",
        tool_use(
            tool_id,
            "Task",
            json!({"description": description, "prompt": prompt, "subagent_type": kind}),
        ),
    )
}

pub fn tool_result(
    uuid: &str,
    tool: &str,
    content: Value,
    is_error: bool,
    structured: Option<Value>,
) -> Value {
    let mut record = user(
        uuid,
        json!([{"type": "tool_result", "tool_use_id": tool, "content": content, "is_error": is_error}]),
    );
    if let Some(s) = structured {
        record["toolUseResult"] = s;
    }
    record
}

/// The fixture's main-conversation lines and its sidechain lines, apart.
pub fn split_fixture() -> (String, String) {
    let text = fixture(SESSION);
    let (side, main): (Vec<&str>, Vec<&str>) = text
        .lines()
        .partition(|l| l.contains("\"isSidechain\":true"));
    (main.join("\n"), side.join("\n"))
}

pub fn assert_fixture_card(msgs: &[Message]) {
    let cards = cards(msgs);
    assert_eq!(cards.len(), 1);
    assert_eq!(cards[0].id, TASK);
    assert_eq!(cards[0].content, "Map Stripe webhook retries");
    assert_eq!(cards[0].metadata.status.as_deref(), Some("complete"));
    let sa = payload(msgs, TASK);
    assert_eq!(sa.subagent_type, "Explore");
    assert!(!sa.is_fork);
    assert_eq!(sa.description, "Map Stripe webhook retries");
    assert_eq!(sa.status, "completed");
    assert_eq!(sa.agent_id, AGENT);
    assert_eq!(
        (sa.duration_ms, sa.total_tokens, sa.tool_use_count),
        (Some(52344), Some(24781), Some(3))
    );
    assert_eq!(
        summary_line(sa).as_deref(),
        Some("Webhook retries live in two places:")
    );
    assert_eq!(sa.result_text.lines().count(), 6);
    assert!(sa
        .prompt
        .starts_with("Find every place the billing service retries"));
}
