//! The kandev HTTP + WebSocket protocol (docs/protocol.md §5), typed once and
//! shared by the browser client and `taskview serve`, so the two cannot drift
//! (docs/ARCHITECTURE.md "Modules and their one job").
//!
//! Pure serde: no I/O, no runtime. The pieces, in the order a client meets
//! them, one module each (all re-exported here):
//!
//! - `envelope`: [`parse_frame`], one WebSocket text frame → envelopes
//!   (several JSON objects separated by `\n` are tolerated), each parsed
//!   leniently; [`Envelope`] and its builders.
//! - `request`: [`Request`] (typed request payloads, built by the client,
//!   parsed and validated by the server), [`MessagesQuery`], [`Ack`].
//! - `errors`: [`ErrorPayload`] and [`ErrorCode`].
//! - `notification`: [`event_from_notification`], a notification → a store
//!   [`Event`](crate::model::event::Event), telling an unknown action apart from a
//!   malformed payload; and the reverse, [`notification_for_event`], used by
//!   the server.
//! - `http`: the HTTP shapes, [`MessagesPage`], [`WorkspaceList`],
//!   [`WorkflowList`], [`Snapshot`], [`TaskDto`], [`SessionDto`], [`TurnList`].
//! - `paths`: the API paths the client reads ([`task_path`],
//!   [`messages_path`], …), one spelling for the app's fetches and the
//!   server's preload announcements.

mod envelope;
mod errors;
mod http;
mod notification;
mod paths;
mod request;

pub use envelope::*;
pub use errors::*;
pub use http::*;
pub use notification::*;
pub use paths::*;
pub use request::*;

/// Action names used by taskview (docs/protocol.md §5.2).
pub mod action {
    /// Request, sent on every (re)connect.
    pub const USER_SUBSCRIBE: &str = "user.subscribe";
    /// Request `{session_id}`: receive that session's `session.message.*`.
    pub const SESSION_SUBSCRIBE: &str = "session.subscribe";
    /// Request `{session_id}`.
    pub const SESSION_UNSUBSCRIBE: &str = "session.unsubscribe";
    /// Request `{session_id}` (kandev: git fast-poll; acknowledged only).
    pub const SESSION_FOCUS: &str = "session.focus";
    /// Request `{session_id}`.
    pub const SESSION_UNFOCUS: &str = "session.unfocus";
    /// Request `{task_id}` (task notifications reach everyone anyway).
    pub const TASK_SUBSCRIBE: &str = "task.subscribe";
    /// Request `{task_id}`.
    pub const TASK_UNSUBSCRIBE: &str = "task.unsubscribe";
    /// Request `{session_id, limit, before?, after?, sort}` → a messages page.
    pub const MESSAGE_LIST: &str = "message.list";
    /// Notification to session subscribers: a new message.
    pub const SESSION_MESSAGE_ADDED: &str = "session.message.added";
    /// Notification to session subscribers: the full current message.
    pub const SESSION_MESSAGE_UPDATED: &str = "session.message.updated";
    /// Notification to session subscribers.
    pub const SESSION_MESSAGE_DELETED: &str = "session.message.deleted";
    /// Broadcast: a turn record `{id, session_id, task_id, started_at, …}`.
    pub const SESSION_TURN_STARTED: &str = "session.turn.started";
    /// Broadcast: the turn record with `completed_at`.
    pub const SESSION_TURN_COMPLETED: &str = "session.turn.completed";
    /// Broadcast: `{task_id, session_id, old_state, new_state, …}`.
    pub const SESSION_STATE_CHANGED: &str = "session.state_changed";
    /// Broadcast: `{task_id, session_id, foreground_activity, active_subagent_count}`.
    pub const SESSION_ACTIVITY_CHANGED: &str = "session.activity_changed";
    /// Broadcast: a task payload (`task_id`, not `id`).
    pub const TASK_CREATED: &str = "task.created";
    /// Broadcast: a task payload; carries `active_subagent_count`.
    pub const TASK_UPDATED: &str = "task.updated";
    /// Broadcast: a task payload plus `old_state`/`new_state`.
    pub const TASK_STATE_CHANGED: &str = "task.state_changed";
    /// Broadcast: `{task_id}`.
    pub const TASK_DELETED: &str = "task.deleted";
}

/// True for notifications that go only to the subscribers of their session
/// (`session.message.*`); every other notification goes to every client.
pub fn is_session_scoped(action: &str) -> bool {
    action.starts_with("session.message.")
}

#[cfg(test)]
mod tests;
