//! Messages in kandev's list shape, for tests: one session (`s`), whole
//! seconds from the start of a test day, tool calls named `tc<message id>`. Builders
//! return JSON so a test can change any field before it becomes an event
//! ([`added`], [`updated`]); [`MessageJson`] names the usual changes.

use serde_json::{json, Value};
use taskview_core::model::event::Event;
use taskview_core::model::message::{Message, MessagePatch};

/// `2026-08-03T<h>:<m>:<s>Z`, `n` seconds into the test day; later days of
/// August from 86,400 on, so that times keep their order in long sessions
/// (up to 29 days, 2.5 million seconds).
pub fn at(n: u64) -> String {
    format!(
        "2026-08-{:02}T{:02}:{:02}:{:02}Z",
        3 + n / 86_400,
        n / 3600 % 24,
        n / 60 % 60,
        n % 60
    )
}

/// The tool call id of the tool message `id`.
pub fn tool_call_id(id: &str) -> String {
    format!("tc{id}")
}

/// A complete tool message of `kind` (`tool_read`, `tool_call`, …), titled
/// `Tool <id>`.
pub fn tool(id: &str, n: u64, turn: &str, kind: &str) -> Value {
    json!({"id": id, "session_id": "s", "turn_id": turn, "author_type": "agent", "type": kind,
        "content": format!("run {id}"), "created_at": at(n), "updated_at": at(n),
        "metadata": {"tool_call_id": tool_call_id(id), "title": format!("Tool {id}"),
            "status": "complete"}})
}

/// A `tool_read` made by the subagent (or tool) message `parent`.
pub fn child(id: &str, n: u64, turn: &str, parent: &str) -> Value {
    tool(id, n, turn, "tool_read").under(parent)
}

/// A subagent: a `tool_call` whose payload is `sa` (`subagent_task`).
pub fn subagent(id: &str, n: u64, turn: &str, sa: Value) -> Value {
    let mut v = tool(id, n, turn, "tool_call");
    v["metadata"]["normalized"] = json!({"kind": "subagent_task", "subagent_task": sa});
    v
}

/// A text message by `author` (`user` or `agent`), saying `text <id>`.
pub fn text(id: &str, n: u64, turn: Option<&str>, author: &str) -> Value {
    json!({"id": id, "session_id": "s", "turn_id": turn, "author_type": author, "type": "message",
        "content": format!("text {id}"), "created_at": at(n), "updated_at": at(n)})
}

/// A user prompt saying `content`.
pub fn user(id: &str, n: u64, turn: &str, content: &str) -> Value {
    text(id, n, Some(turn), "user").saying(content)
}

/// A thinking message.
pub fn thought(id: &str, n: u64, turn: &str) -> Value {
    json!({"id": id, "session_id": "s", "turn_id": turn, "type": "thinking",
        "content": "weighing options", "created_at": at(n), "updated_at": at(n)})
}

/// Turn `turn` of the test session starts.
pub fn turn_started(turn: &str) -> Event {
    Event::turn(true, "s", turn)
}

/// Turn `turn` of the test session completes.
pub fn turn_completed(turn: &str) -> Event {
    Event::turn(false, "s", turn)
}

/// An `added` event.
pub fn added(v: Value) -> Event {
    Event::MessageAdded(Message::from_value(&v).expect("test message is readable"))
}

/// An `updated` event.
pub fn updated(v: Value) -> Event {
    Event::MessageUpdated(MessagePatch::from_value(&v).expect("test patch is readable"))
}

/// The changes tests make to a built message.
pub trait MessageJson {
    /// Its title and content both `title` (how kandev writes a tool).
    fn titled(self, title: &str) -> Value;
    /// Its content.
    fn saying(self, content: &str) -> Value;
    /// Its `metadata.status`.
    fn status(self, status: &str) -> Value;
    /// Made by the subagent (or tool) message `parent`.
    fn under(self, parent: &str) -> Value;
}

impl MessageJson for Value {
    fn titled(mut self, title: &str) -> Value {
        self["content"] = json!(title);
        self["metadata"]["title"] = json!(title);
        self
    }

    fn saying(mut self, content: &str) -> Value {
        self["content"] = json!(content);
        self
    }

    fn status(mut self, status: &str) -> Value {
        self["metadata"]["status"] = json!(status);
        self
    }

    fn under(mut self, parent: &str) -> Value {
        self["metadata"]["parent_tool_call_id"] = json!(tool_call_id(parent));
        self
    }
}
