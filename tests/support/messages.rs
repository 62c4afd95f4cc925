//! Messages in the kandev shape for browser tests: a user prompt, tool
//! calls, thinking, subagents and their children, at minute-second times.
#![allow(dead_code)] // each test binary uses its own subset

use serde_json::{json, Value};
use taskview_core::event::Event;
use taskview_core::model::Message;

/// `2026-08-03T10:MM:SSZ`, `n` seconds after ten.
pub fn at(n: u64) -> String {
    format!("2026-08-03T10:{:02}:{:02}Z", n / 60, n % 60)
}

pub fn added(v: Value) -> Event {
    Event::MessageAdded(Message::from_value(&v).unwrap())
}

pub fn user(id: &str, n: u64, turn: &str, text: &str) -> Event {
    added(
        json!({"id": id, "session_id": "s", "turn_id": turn, "author_type": "user",
        "type": "message", "content": text, "created_at": at(n), "updated_at": at(n)}),
    )
}

pub fn tool(id: &str, n: u64, turn: &str, kind: &str, title: &str) -> Value {
    json!({"id": id, "session_id": "s", "turn_id": turn, "author_type": "agent", "type": kind,
        "content": title, "created_at": at(n), "updated_at": at(n),
        "metadata": {"tool_call_id": format!("tc-{id}"), "title": title, "status": "complete"}})
}

pub fn thought(id: &str, n: u64, turn: &str) -> Event {
    added(
        json!({"id": id, "session_id": "s", "turn_id": turn, "type": "thinking",
        "content": "weighing options", "created_at": at(n), "updated_at": at(n)}),
    )
}

pub fn child(id: &str, n: u64, turn: &str, parent: &str, title: &str) -> Event {
    let mut v = tool(id, n, turn, "tool_read", title);
    v["metadata"]["parent_tool_call_id"] = json!(format!("tc-{parent}"));
    added(v)
}

pub fn subagent(id: &str, n: u64, turn: &str, status: &str, sa: Value) -> Value {
    let mut v = tool(id, n, turn, "tool_call", "Task");
    v["metadata"]["status"] = json!(status);
    v["metadata"]["normalized"] = json!({"kind": "subagent_task", "subagent_task": sa});
    v
}
