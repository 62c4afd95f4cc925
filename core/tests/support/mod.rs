//! Shared test helpers: fixtures, a tiny WebSocket-frame → Event mapping (the
//! real one is `core::protocol`, written elsewhere), and a store + layout pair.
#![allow(dead_code)] // each test binary uses a different part

use serde_json::{json, Value};
use taskview_core::board::TaskPatch;
use taskview_core::event::Event;
use taskview_core::import::kandev;
use taskview_core::layout::{Layout, Row, RowDiff, RowKey, RowKind};
use taskview_core::model::{Message, MessagePatch};
use taskview_core::store::Store;
use taskview_core::view::card::{card_view, CardView};
use taskview_core::view::group::group_view;

pub fn fixture_text(name: &str) -> String {
    let path = format!("{}/../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn fixture_json(name: &str) -> Value {
    serde_json::from_str(&fixture_text(name)).expect("fixture is JSON")
}

/// `{action, payload}` of a notification as an event, for the actions the
/// transcript and board consume; `None` for the others.
pub fn frame_event(frame: &Value) -> Option<Event> {
    let payload = frame.get("payload")?;
    let text = |k: &str| {
        payload
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Some(match frame.get("action")?.as_str()? {
        "session.message.added" => match Message::from_value(payload) {
            Ok(m) => Event::MessageAdded(m),
            Err(error) => Event::Unreadable {
                raw: payload.to_string(),
                error,
            },
        },
        "session.message.updated" => Event::MessageUpdated(MessagePatch::from_value(payload).ok()?),
        "session.message.deleted" => Event::MessageDeleted {
            id: MessagePatch::from_value(payload).ok()?.id,
        },
        "session.turn.started" => Event::TurnStarted {
            session_id: text("session_id"),
            turn_id: text("id"),
        },
        "session.turn.completed" => Event::TurnCompleted {
            session_id: text("session_id"),
            turn_id: text("id"),
        },
        "task.updated" | "task.created" => Event::TaskUpdated(TaskPatch::from_value(payload)?),
        _ => return None,
    })
}

/// An `added` event from JSON.
pub fn added(v: Value) -> Event {
    Event::MessageAdded(Message::from_value(&v).expect("test message is readable"))
}

/// An `updated` event from JSON.
pub fn updated(v: Value) -> Event {
    Event::MessageUpdated(MessagePatch::from_value(&v).expect("test patch is readable"))
}

/// A timestamp `n` seconds into the test day.
pub fn at(n: u64) -> String {
    format!(
        "2026-08-03T{:02}:{:02}:{:02}Z",
        n / 3600 % 24,
        n / 60 % 60,
        n % 60
    )
}

/// A tool message of `kind` with `tool_call_id` `tc{id}`.
pub fn tool(id: &str, n: u64, turn: &str, kind: &str) -> Value {
    json!({"id": id, "session_id": "s", "turn_id": turn, "type": kind, "content": format!("run {id}"),
        "created_at": at(n), "updated_at": at(n),
        "metadata": {"tool_call_id": format!("tc{id}"), "title": format!("Tool {id}"), "status": "complete"}})
}

/// A child of `parent`'s tool call.
pub fn child(id: &str, n: u64, turn: &str, parent: &str) -> Value {
    let mut v = tool(id, n, turn, "tool_read");
    v["metadata"]["parent_tool_call_id"] = json!(format!("tc{parent}"));
    v
}

/// A subagent tool call with payload `sa`.
pub fn subagent(id: &str, n: u64, turn: &str, sa: Value) -> Value {
    let mut v = tool(id, n, turn, "tool_call");
    v["metadata"]["normalized"] = json!({"kind": "subagent_task", "subagent_task": sa});
    v
}

/// A text message.
pub fn text(id: &str, n: u64, turn: Option<&str>, author: &str) -> Value {
    json!({"id": id, "session_id": "s", "turn_id": turn, "author_type": author, "type": "message",
        "content": format!("text {id}"), "created_at": at(n), "updated_at": at(n)})
}

/// A thinking message.
pub fn thought(id: &str, n: u64, turn: &str) -> Value {
    json!({"id": id, "session_id": "s", "turn_id": turn, "type": "thinking", "content": "hmm",
        "created_at": at(n), "updated_at": at(n)})
}

/// A store and its incrementally maintained layout.
#[derive(Default)]
pub struct Session {
    pub store: Store,
    pub layout: Layout,
}

impl Session {
    pub fn new() -> Session {
        Session::default()
    }

    pub fn with(events: impl IntoIterator<Item = Event>) -> Session {
        let mut s = Session::new();
        for e in events {
            s.apply(e);
        }
        s
    }

    /// Applies all events to the store, then updates the layout once (how a
    /// file or a fetched page is loaded).
    pub fn load(events: impl IntoIterator<Item = Event>) -> Session {
        let mut s = Session::new();
        let changes = s.store.apply_all(events);
        s.layout.update(&s.store, &changes);
        s
    }

    /// Applies one event to the store and the layout.
    pub fn apply(&mut self, e: Event) -> RowDiff {
        let changes = self.store.apply(e);
        self.layout.update(&self.store, &changes)
    }

    /// Top-level rows as short strings: `msg:<id>`, `card:<id>`,
    /// `group:<label>`, `orphans:<p>`, `unreadable`.
    pub fn top(&self) -> Vec<String> {
        self.layout.top_rows().map(describe).collect()
    }

    /// Every row with its depth, cards followed by their children.
    pub fn outline(&self) -> Vec<String> {
        self.layout
            .outline()
            .into_iter()
            .map(|r| format!("{}{}", "  ".repeat(r.depth), describe(r)))
            .collect()
    }

    pub fn card(&self, id: &str) -> CardView {
        card_view(&self.store, &self.layout, id).expect("card exists")
    }

    /// Asserts the incremental layout equals a from-scratch one.
    pub fn assert_matches_full_layout(&self) {
        let full = Layout::from_store(&self.store);
        let inc: Vec<Row> = self.layout.outline().into_iter().cloned().collect();
        let scratch: Vec<Row> = full.outline().into_iter().cloned().collect();
        assert_eq!(
            inc, scratch,
            "incremental layout differs from a full layout"
        );
    }
}

pub fn describe(r: &Row) -> String {
    match (&r.kind, &r.key) {
        (RowKind::Message, k) => format!("msg:{k}"),
        (RowKind::Subagent, k) => format!("card:{k}"),
        (RowKind::Group(g), _) => format!("group:{}", group_view(g).label),
        (RowKind::Orphans, RowKey::Orphans(p)) => format!("orphans:{p}"),
        (RowKind::Orphans, k) => format!("orphans?{k}"),
        (RowKind::Unreadable, _) => "unreadable".into(),
    }
}

pub fn kandev_events(name: &str) -> Vec<Event> {
    kandev::import(&fixture_text(name)).expect("fixture imports")
}
