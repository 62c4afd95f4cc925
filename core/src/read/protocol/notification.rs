//! Notifications ⇄ store events: what a client makes of a notification,
//! and what the server announces for an event.

use super::{action, Envelope};
use crate::model::board::TaskPatch;
use crate::model::event::Event;
use crate::model::message::{opt_str_at, Message, MessagePatch};
use serde_json::{json, Map, Value};

/// Why a notification produced no event. The browser counts and logs each
/// kind once; neither is fatal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotificationError {
    /// An action this version does not know.
    UnknownAction(String),
    /// A known action whose payload lacks what the event needs.
    MalformedPayload { action: String, error: String },
}

impl std::fmt::Display for NotificationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotificationError::UnknownAction(a) => write!(f, "unknown notification {a:?}"),
            NotificationError::MalformedPayload { action, error } => {
                write!(f, "malformed {action} payload: {error}")
            }
        }
    }
}

/// Turns a notification into a store event.
///
/// - `Ok(Some(event))` for `session.message.added|updated|deleted`,
///   `session.turn.started|completed` and `task.created|updated|state_changed|deleted`;
/// - `Ok(None)` for known notifications that carry nothing for the store
///   (`session.state_changed`, `session.activity_changed`: the board chip
///   reads `task.updated` only, docs/protocol.md §4.1);
/// - `Err(UnknownAction)` / `Err(MalformedPayload)` otherwise.
///
/// An `added` payload that cannot be read as a message is not an error: it
/// becomes [`Event::Unreadable`], a visible row (docs/behaviour.md §1).
pub fn event_from_notification(
    action: &str,
    payload: &Value,
) -> Result<Option<Event>, NotificationError> {
    let malformed = |error: String| NotificationError::MalformedPayload {
        action: action.to_string(),
        error,
    };
    let event = match action {
        action::SESSION_MESSAGE_ADDED => match Message::from_value(payload) {
            Ok(m) => Event::MessageAdded(m),
            Err(error) => Event::Unreadable {
                raw: payload.to_string(),
                error,
            },
        },
        action::SESSION_MESSAGE_UPDATED => {
            Event::MessageUpdated(MessagePatch::from_value(payload).map_err(malformed)?)
        }
        action::SESSION_MESSAGE_DELETED => Event::MessageDeleted {
            id: MessagePatch::from_value(payload).map_err(malformed)?.id,
        },
        action::SESSION_TURN_STARTED | action::SESSION_TURN_COMPLETED => {
            let session_id = nonempty_str(payload, "session_id")
                .ok_or_else(|| malformed("a turn needs session_id".into()))?;
            let turn_id = nonempty_str(payload, "id")
                .or_else(|| nonempty_str(payload, "turn_id"))
                .ok_or_else(|| malformed("a turn needs an id".into()))?;
            Event::turn(action == action::SESSION_TURN_STARTED, session_id, turn_id)
        }
        action::TASK_CREATED | action::TASK_UPDATED | action::TASK_STATE_CHANGED => {
            Event::TaskUpdated(
                TaskPatch::from_value(payload).ok_or_else(|| malformed("no task_id".into()))?,
            )
        }
        action::TASK_DELETED => Event::TaskDeleted {
            task_id: nonempty_str(payload, "task_id")
                .or_else(|| nonempty_str(payload, "id"))
                .ok_or_else(|| malformed("no task_id".into()))?,
        },
        action::SESSION_STATE_CHANGED | action::SESSION_ACTIVITY_CHANGED => return Ok(None),
        other => return Err(NotificationError::UnknownAction(other.to_string())),
    };
    Ok(Some(event))
}

fn nonempty_str(v: &Value, key: &str) -> Option<String> {
    opt_str_at(v, key).filter(|s| !s.is_empty())
}

/// A message in the live-event shape: the HTTP list shape with `id`
/// spelled `message_id` (docs/protocol.md §1.1).
pub fn message_payload(m: &Message) -> Value {
    rename_id(m.to_value(), "message_id")
}

/// The fields a patch defines, in the live-event shape (`message_id`).
pub fn patch_payload(p: &MessagePatch) -> Value {
    let mut m = Map::new();
    m.insert("message_id".into(), p.id.clone().into());
    let strings = [
        ("session_id", &p.session_id),
        ("task_id", &p.task_id),
        ("turn_id", &p.turn_id),
        ("content", &p.content),
        ("created_at", &p.created_at),
        ("updated_at", &p.updated_at),
    ];
    for (key, value) in strings {
        if let Some(s) = value {
            m.insert(key.into(), s.clone().into());
        }
    }
    if let Some(a) = p.author {
        m.insert("author_type".into(), a.as_str().into());
    }
    if let Some(k) = &p.kind {
        m.insert("type".into(), k.as_str().into());
    }
    if let Some(meta) = &p.metadata {
        // The metadata as a full message would write it (subagent payload included).
        let whole = Message {
            metadata: meta.clone(),
            ..Message::default()
        };
        if let Some(v) = whole.to_value().get("metadata") {
            m.insert("metadata".into(), v.clone());
        }
    }
    Value::Object(m)
}

/// The reverse of [`event_from_notification`], for the server: the
/// notification that announces `event`. Events that have no notification
/// (`BoardLoaded`, `Unreadable`, `NotShown`, and a viewer's own bookkeeping such as
/// `TranscriptOpened`) give `None`. Payloads carry what the event
/// knows; the server may add context keys (e.g. `task_id`).
pub fn notification_for_event(event: &Event, timestamp: &str) -> Option<Envelope> {
    let (name, payload) = match event {
        Event::MessageAdded(m) => (action::SESSION_MESSAGE_ADDED, message_payload(m)),
        Event::MessageUpdated(p) => (action::SESSION_MESSAGE_UPDATED, patch_payload(p)),
        Event::MessageReplaced(m) => (
            action::SESSION_MESSAGE_UPDATED,
            patch_payload(&MessagePatch::from(m.clone())),
        ),
        Event::MessageDeleted { id } => {
            (action::SESSION_MESSAGE_DELETED, json!({ "message_id": id }))
        }
        Event::TurnStarted {
            session_id,
            turn_id,
        } => (
            action::SESSION_TURN_STARTED,
            turn_payload(session_id, turn_id),
        ),
        Event::TurnCompleted {
            session_id,
            turn_id,
        } => (
            action::SESSION_TURN_COMPLETED,
            turn_payload(session_id, turn_id),
        ),
        Event::TaskUpdated(t) => (action::TASK_UPDATED, task_patch_payload(t)),
        Event::TaskDeleted { task_id } => (action::TASK_DELETED, json!({ "task_id": task_id })),
        Event::BoardLoaded(_)
        | Event::Unreadable { .. }
        | Event::NotShown { .. }
        | Event::TranscriptOpened { .. }
        | Event::BoardRequested { .. }
        | Event::BoardRequestFailed { .. }
        | Event::SessionReadStarted { .. }
        | Event::SessionReadFinished { .. } => return None,
    };
    Some(Envelope::notification(name, payload, timestamp))
}

/// A turn in the `session.turn.*` shape (the fields a store reads).
fn turn_payload(session_id: &str, turn_id: &str) -> Value {
    json!({ "id": turn_id, "session_id": session_id })
}

/// A task patch in the `task.updated` shape; absent fields stay absent.
fn task_patch_payload(t: &TaskPatch) -> Value {
    let mut m = Map::new();
    m.insert("task_id".into(), t.task_id.clone().into());
    let strings = [
        ("workflow_id", &t.workflow_id),
        ("workflow_step_id", &t.step_id),
        ("title", &t.title),
        ("description", &t.description),
        ("state", &t.state),
        ("primary_session_id", &t.primary_session_id),
        ("primary_session_state", &t.primary_session_state),
    ];
    for (key, value) in strings {
        if let Some(s) = value {
            m.insert(key.into(), s.clone().into());
        }
    }
    if let Some(p) = t.position {
        m.insert("position".into(), p.into());
    }
    if let Some(p) = &t.pending_action {
        m.insert("primary_session_pending_action".into(), p.clone().into());
    }
    if let Some(c) = t.active_subagent_count {
        m.insert("active_subagent_count".into(), c.into());
    }
    if t.ephemeral {
        m.insert("is_ephemeral".into(), true.into());
    }
    Value::Object(m)
}

/// Renames an object's `id` key (a no-op for non-objects).
fn rename_id(mut v: Value, to: &str) -> Value {
    if let Some(obj) = v.as_object_mut() {
        if let Some(id) = obj.remove("id") {
            obj.insert(to.into(), id);
        }
    }
    v
}
