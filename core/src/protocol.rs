//! The kandev HTTP + WebSocket protocol (kandev-wire.md §5), typed once and
//! shared by the browser client and `taskview serve`, so the two cannot drift
//! (ARCHITECTURE.md "the protocol is typed once").
//!
//! Pure serde: no I/O, no runtime. The pieces, in the order a client meets them:
//!
//! - [`parse_frame`]: one WebSocket text frame → envelopes (several JSON
//!   objects separated by `\n` are tolerated), each parsed leniently.
//! - [`Envelope`] and its builders; [`Request`] (typed request payloads, built
//!   by the client, parsed and validated by the server); [`ErrorPayload`] and
//!   [`ErrorCode`].
//! - [`event_from_notification`]: a notification → a store [`Event`], telling
//!   an unknown action apart from a malformed payload; and the reverse,
//!   [`notification_for_event`], used by the server.
//! - HTTP shapes: [`MessagesQuery`] and [`MessagesPage`], [`WorkflowList`],
//!   [`Snapshot`], [`TaskDto`], [`SessionDto`], [`TurnList`], [`Ack`].

use crate::board::TaskPatch;
use crate::event::Event;
use crate::import::kandev;
use crate::model::{bool_at, json_kind, opt_str_at, u64_at, Message, MessagePatch};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Action names used by taskview (kandev-wire.md §5.2).
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

/// The envelope `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EnvelopeType {
    Request,
    Response,
    Notification,
    Error,
}

impl EnvelopeType {
    /// Reads a wire `type`.
    pub fn parse(s: &str) -> Option<EnvelopeType> {
        match s {
            "request" => Some(EnvelopeType::Request),
            "response" => Some(EnvelopeType::Response),
            "notification" => Some(EnvelopeType::Notification),
            "error" => Some(EnvelopeType::Error),
            _ => None,
        }
    }
}

/// One protocol frame: `{id?, type, action, payload, timestamp, metadata?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// Present on requests and echoed by their response or error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(rename = "type")]
    pub kind: EnvelopeType,
    pub action: String,
    #[serde(default)]
    pub payload: Value,
    /// RFC 3339; set by the server, absent on client requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

impl Envelope {
    /// A client request `{id, type: "request", action, payload}`.
    pub fn request(id: impl Into<String>, action: &str, payload: Value) -> Envelope {
        Envelope {
            id: Some(id.into()),
            kind: EnvelopeType::Request,
            action: action.to_string(),
            payload,
            timestamp: None,
            metadata: None,
        }
    }

    /// A successful reply to `request`, echoing its id and action.
    pub fn response_to(request: &Envelope, payload: Value, timestamp: &str) -> Envelope {
        Envelope {
            id: request.id.clone(),
            kind: EnvelopeType::Response,
            action: request.action.clone(),
            payload,
            timestamp: Some(timestamp.to_string()),
            metadata: None,
        }
    }

    /// An error envelope; `id` and `action` echo the request when there was one.
    pub fn error(
        id: Option<String>,
        action: &str,
        error: ErrorPayload,
        timestamp: &str,
    ) -> Envelope {
        Envelope {
            id,
            kind: EnvelopeType::Error,
            action: action.to_string(),
            payload: error.to_value(),
            timestamp: Some(timestamp.to_string()),
            metadata: None,
        }
    }

    /// A server notification (no id).
    pub fn notification(action: &str, payload: Value, timestamp: &str) -> Envelope {
        Envelope {
            id: None,
            kind: EnvelopeType::Notification,
            action: action.to_string(),
            payload,
            timestamp: Some(timestamp.to_string()),
            metadata: None,
        }
    }

    /// Reads an envelope leniently: `type` must be one of the four and
    /// `action` a string; a numeric `id` is accepted as its decimal text;
    /// a missing payload is `null`; unknown fields are ignored.
    pub fn from_value(v: &Value) -> Result<Envelope, String> {
        let Some(obj) = v.as_object() else {
            return Err(format!("expected a JSON object, found {}", json_kind(v)));
        };
        let kind = match obj.get("type") {
            Some(Value::String(s)) => {
                EnvelopeType::parse(s).ok_or_else(|| format!("unknown envelope type {s:?}"))?
            }
            Some(other) => {
                return Err(format!("type must be a string, found {}", json_kind(other)))
            }
            None => return Err("envelope has no type".into()),
        };
        let action = match obj.get("action") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(format!(
                    "action must be a string, found {}",
                    json_kind(other)
                ))
            }
            None => return Err("envelope has no action".into()),
        };
        let id = match obj.get("id") {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        Ok(Envelope {
            id,
            kind,
            action,
            payload: obj.get("payload").cloned().unwrap_or(Value::Null),
            timestamp: opt_str_at(v, "timestamp"),
            metadata: obj.get("metadata").filter(|m| !m.is_null()).cloned(),
        })
    }

    /// The envelope as one JSON text (one WebSocket frame).
    pub fn to_json(&self) -> String {
        // Serializing a struct of strings and `Value`s cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A frame part that could not be read as an envelope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameError {
    /// The offending text, as received.
    pub raw: String,
    pub error: String,
}

/// Splits one WebSocket text frame into envelopes (kandev-wire.md §5.2).
///
/// A frame normally holds one JSON object; several objects separated by `\n`
/// are tolerated. Each part is read on its own, so one bad part neither hides
/// the others nor aborts the frame. Blank parts are skipped.
pub fn parse_frame(text: &str) -> Vec<Result<Envelope, FrameError>> {
    let read = |part: &str| {
        serde_json::from_str::<Value>(part)
            .map_err(|e| format!("invalid JSON: {e}"))
            .and_then(|v| Envelope::from_value(&v))
            .map_err(|error| FrameError {
                raw: part.to_string(),
                error,
            })
    };
    // A whole frame that parses is one envelope, even when pretty-printed.
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return vec![Envelope::from_value(&v).map_err(|error| FrameError {
            raw: text.to_string(),
            error,
        })];
    }
    text.split('\n')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(read)
        .collect()
}

/// Error codes of error envelopes (kandev-wire.md §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    BadRequest,
    NotFound,
    InternalError,
    Unauthorized,
    Forbidden,
    ValidationError,
    Conflict,
    UnknownAction,
}

impl ErrorCode {
    /// Every code, for exhaustive tests and lookups.
    pub const ALL: [ErrorCode; 8] = [
        ErrorCode::BadRequest,
        ErrorCode::NotFound,
        ErrorCode::InternalError,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::ValidationError,
        ErrorCode::Conflict,
        ErrorCode::UnknownAction,
    ];

    /// The wire spelling, e.g. `UNKNOWN_ACTION`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "BAD_REQUEST",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::Forbidden => "FORBIDDEN",
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::UnknownAction => "UNKNOWN_ACTION",
        }
    }

    /// Reads a wire spelling.
    pub fn parse(s: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// The payload of an error envelope (and of HTTP error bodies):
/// `{code, message, details?}`. `code` stays a string so a code this version
/// does not know is still readable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorPayload {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl ErrorPayload {
    /// An error with a known code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ErrorPayload {
        ErrorPayload {
            code: code.as_str().to_string(),
            message: message.into(),
            details: None,
        }
    }

    /// The code, when it is one of the known ones.
    pub fn code(&self) -> Option<ErrorCode> {
        ErrorCode::parse(&self.code)
    }

    /// Reads an error payload leniently (missing fields are empty).
    pub fn from_value(v: &Value) -> ErrorPayload {
        ErrorPayload {
            code: opt_str_at(v, "code").unwrap_or_default(),
            message: opt_str_at(v, "message").unwrap_or_default(),
            details: v.get("details").filter(|d| !d.is_null()).cloned(),
        }
    }

    /// The payload as JSON.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Message order of a page: `asc` (oldest first, the default) or `desc`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SortOrder {
    #[default]
    Asc,
    Desc,
}

impl SortOrder {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            SortOrder::Asc => "asc",
            SortOrder::Desc => "desc",
        }
    }
}

/// Paging parameters of `GET …/messages` and of `message.list`
/// (kandev-wire.md §5.1). `before`/`after` are message ids (exclusive);
/// the page is the range between them in `sort` order, cut at `limit`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessagesQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort: Option<SortOrder>,
}

impl MessagesQuery {
    /// The URL query string, without `?` (empty when nothing is set);
    /// values are percent-encoded.
    pub fn to_query_string(&self) -> String {
        let mut parts = Vec::new();
        if let Some(limit) = self.limit {
            parts.push(format!("limit={limit}"));
        }
        if let Some(before) = &self.before {
            parts.push(format!("before={}", percent_encode(before)));
        }
        if let Some(after) = &self.after {
            parts.push(format!("after={}", percent_encode(after)));
        }
        if let Some(sort) = self.sort {
            parts.push(format!("sort={}", sort.as_str()));
        }
        parts.join("&")
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `message.list` request payload: a session and its paging parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessageListRequest {
    pub session_id: String,
    pub query: MessagesQuery,
}

/// A typed client request (kandev-wire.md §5.2). The client builds one and
/// sends [`Request::to_envelope`]; the server reads one with [`Request::parse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    UserSubscribe,
    SessionSubscribe { session_id: String },
    SessionUnsubscribe { session_id: String },
    SessionFocus { session_id: String },
    SessionUnfocus { session_id: String },
    TaskSubscribe { task_id: String },
    TaskUnsubscribe { task_id: String },
    MessageList(MessageListRequest),
}

impl Request {
    /// The action name.
    pub fn action(&self) -> &'static str {
        match self {
            Request::UserSubscribe => action::USER_SUBSCRIBE,
            Request::SessionSubscribe { .. } => action::SESSION_SUBSCRIBE,
            Request::SessionUnsubscribe { .. } => action::SESSION_UNSUBSCRIBE,
            Request::SessionFocus { .. } => action::SESSION_FOCUS,
            Request::SessionUnfocus { .. } => action::SESSION_UNFOCUS,
            Request::TaskSubscribe { .. } => action::TASK_SUBSCRIBE,
            Request::TaskUnsubscribe { .. } => action::TASK_UNSUBSCRIBE,
            Request::MessageList(_) => action::MESSAGE_LIST,
        }
    }

    /// The request payload.
    pub fn payload(&self) -> Value {
        match self {
            Request::UserSubscribe => json!({}),
            Request::SessionSubscribe { session_id }
            | Request::SessionUnsubscribe { session_id }
            | Request::SessionFocus { session_id }
            | Request::SessionUnfocus { session_id } => json!({ "session_id": session_id }),
            Request::TaskSubscribe { task_id } | Request::TaskUnsubscribe { task_id } => {
                json!({ "task_id": task_id })
            }
            Request::MessageList(list) => {
                let mut v = serde_json::to_value(&list.query).unwrap_or_else(|_| json!({}));
                if let Some(obj) = v.as_object_mut() {
                    obj.insert("session_id".into(), list.session_id.clone().into());
                }
                v
            }
        }
    }

    /// The request envelope with the given id (a UUID in the browser).
    pub fn to_envelope(&self, id: impl Into<String>) -> Envelope {
        Envelope::request(id, self.action(), self.payload())
    }

    /// Reads and validates a request. Errors are ready to send back:
    /// `UNKNOWN_ACTION` for an action taskview does not serve,
    /// `VALIDATION_ERROR` for a missing or mistyped field.
    pub fn parse(action: &str, payload: &Value) -> Result<Request, ErrorPayload> {
        let session_id = || required_id(payload, "session_id");
        let task_id = || required_id(payload, "task_id");
        Ok(match action {
            action::USER_SUBSCRIBE => Request::UserSubscribe,
            action::SESSION_SUBSCRIBE => Request::SessionSubscribe {
                session_id: session_id()?,
            },
            action::SESSION_UNSUBSCRIBE => Request::SessionUnsubscribe {
                session_id: session_id()?,
            },
            action::SESSION_FOCUS => Request::SessionFocus {
                session_id: session_id()?,
            },
            action::SESSION_UNFOCUS => Request::SessionUnfocus {
                session_id: session_id()?,
            },
            action::TASK_SUBSCRIBE => Request::TaskSubscribe {
                task_id: task_id()?,
            },
            action::TASK_UNSUBSCRIBE => Request::TaskUnsubscribe {
                task_id: task_id()?,
            },
            action::MESSAGE_LIST => Request::MessageList(MessageListRequest {
                session_id: session_id()?,
                query: MessagesQuery {
                    limit: optional_limit(payload)?,
                    before: optional_string(payload, "before")?,
                    after: optional_string(payload, "after")?,
                    sort: optional_sort(payload)?,
                },
            }),
            other => {
                return Err(ErrorPayload::new(
                    ErrorCode::UnknownAction,
                    format!("unknown action {other:?}"),
                ))
            }
        })
    }
}

fn validation(message: String) -> ErrorPayload {
    ErrorPayload::new(ErrorCode::ValidationError, message)
}

/// A required non-empty string field (`"<key> is required"` otherwise).
fn required_id(payload: &Value, key: &str) -> Result<String, ErrorPayload> {
    match payload.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        None | Some(Value::Null) | Some(Value::String(_)) => {
            Err(validation(format!("{key} is required")))
        }
        Some(other) => Err(validation(format!(
            "{key} must be a string, found {}",
            json_kind(other)
        ))),
    }
}

/// An optional string field; `null` and `""` count as absent.
fn optional_string(payload: &Value, key: &str) -> Result<Option<String>, ErrorPayload> {
    match payload.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone()).filter(|s| !s.is_empty())),
        Some(other) => Err(validation(format!(
            "{key} must be a string, found {}",
            json_kind(other)
        ))),
    }
}

fn optional_limit(payload: &Value) -> Result<Option<u32>, ErrorPayload> {
    match payload.get("limit") {
        None | Some(Value::Null) => Ok(None),
        Some(_) => u64_at(payload, "limit")
            .and_then(|n| u32::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| validation("limit must be a non-negative integer".into())),
    }
}

fn optional_sort(payload: &Value) -> Result<Option<SortOrder>, ErrorPayload> {
    match payload.get("sort") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s == "asc" => Ok(Some(SortOrder::Asc)),
        Some(Value::String(s)) if s == "desc" => Ok(Some(SortOrder::Desc)),
        Some(_) => Err(validation("sort must be \"asc\" or \"desc\"".into())),
    }
}

/// The reply to subscribe-like requests: `{success: true, session_id?}` or
/// `{success: true, task_id?}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ack {
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
}

/// A page of messages: the body of `GET …/messages` and the payload of the
/// `message.list` response. `total` is the number of messages in this page;
/// `cursor` is the id of the last one (`null` for an empty page).
///
/// `messages` stay JSON values so one unreadable element cannot fail the
/// page; [`MessagesPage::events`] reads them as the importer does.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MessagesPage {
    pub messages: Vec<Value>,
    pub total: u64,
    pub has_more: bool,
    pub cursor: Option<String>,
}

impl MessagesPage {
    /// Reads a page leniently: wrong or missing fields fall back to defaults.
    pub fn from_value(v: &Value) -> MessagesPage {
        MessagesPage {
            messages: kandev::messages_array(v).cloned().unwrap_or_default(),
            total: u64_at(v, "total").unwrap_or(0),
            has_more: bool_at(v, "has_more"),
            cursor: opt_str_at(v, "cursor").filter(|c| !c.is_empty()),
        }
    }

    /// The page's messages as store events, in page order; an unreadable
    /// element becomes [`Event::Unreadable`] in its position.
    pub fn events(&self) -> Vec<Event> {
        self.messages.iter().map(kandev::event_for).collect()
    }
}

/// A workflow (a board) as listed by `GET /api/v1/workflows`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkflowDto {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub sort_order: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// `GET /api/v1/workflows` → `{workflows, total}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkflowList {
    pub workflows: Vec<WorkflowDto>,
    pub total: u64,
}

/// A workflow step: one board column.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepDto {
    pub id: String,
    pub workflow_id: String,
    pub name: String,
    pub position: i64,
    pub color: String,
    pub allow_manual_move: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_start_step: bool,
}

/// The HTTP task shape (kandev-wire.md §4.1 a): snake_case, `id`, and
/// `active_subagent_count` always serialized.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskDto {
    pub id: String,
    pub workspace_id: String,
    pub workflow_id: String,
    pub workflow_step_id: String,
    pub title: String,
    pub description: String,
    pub state: String,
    pub priority: String,
    pub position: i64,
    pub wip_admitted: bool,
    pub repositories: Vec<Value>,
    pub primary_session_id: Option<String>,
    pub primary_session_state: Option<String>,
    pub primary_session_pending_action: Option<String>,
    pub task_pending_action: Option<String>,
    /// Omitted when there is none (HTTP); explicit `null` in notifications.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foreground_activity: Option<String>,
    pub active_subagent_count: u64,
    pub session_count: u64,
    pub is_remote_executor: bool,
    pub autopilot: bool,
    pub archived_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl TaskDto {
    /// The `task.*` notification payload (kandev-wire.md §4.1 b): `task_id`
    /// instead of `id`, `is_ephemeral`, and `foreground_activity` always present.
    pub fn notification_payload(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or_else(|_| json!({}));
        if let Some(obj) = v.as_object_mut() {
            if let Some(id) = obj.remove("id") {
                obj.insert("task_id".into(), id);
            }
            obj.insert("is_ephemeral".into(), Value::Bool(false));
            obj.entry("foreground_activity").or_insert(Value::Null);
        }
        v
    }
}

/// `GET /api/v1/workflows/{id}/snapshot` → `{workflow, steps, tasks}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Snapshot {
    pub workflow: WorkflowDto,
    pub steps: Vec<StepDto>,
    pub tasks: Vec<TaskDto>,
}

/// `GET /api/v1/task-sessions/{sid}` → one session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionDto {
    pub id: String,
    pub task_id: String,
    /// `STARTING`, `RUNNING`, `WAITING_FOR_INPUT`, `COMPLETED`, `FAILED`, …
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foreground_activity: Option<String>,
    pub active_subagent_count: u64,
    pub message_count: u64,
    pub created_at: String,
    pub updated_at: String,
}

/// A turn record (kandev-wire.md §1.6); also the payload of `session.turn.*`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnDto {
    pub id: String,
    pub session_id: String,
    pub task_id: String,
    pub started_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// `GET /api/v1/task-sessions/{sid}/turns` → `{turns, total}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnList {
    pub turns: Vec<TurnDto>,
    pub total: u64,
}

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
///   reads `task.updated` only, kandev-wire.md §4.1);
/// - `Err(UnknownAction)` / `Err(MalformedPayload)` otherwise.
///
/// An `added` payload that cannot be read as a message is not an error: it
/// becomes [`Event::Unreadable`], a visible row (SPEC.md §1).
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
            if action == action::SESSION_TURN_STARTED {
                Event::TurnStarted {
                    session_id,
                    turn_id,
                }
            } else {
                Event::TurnCompleted {
                    session_id,
                    turn_id,
                }
            }
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
/// spelled `message_id` (kandev-wire.md §1.1).
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
/// (`BoardLoaded`, `Unreadable`, and a viewer's own bookkeeping such as
/// `TranscriptOpened`) give `None`. Payloads carry what the event
/// knows; the server may add context keys (e.g. `task_id`).
pub fn notification_for_event(event: &Event, timestamp: &str) -> Option<Envelope> {
    let (name, payload) = match event {
        Event::MessageAdded(m) => (action::SESSION_MESSAGE_ADDED, message_payload(m)),
        Event::MessageUpdated(p) => (action::SESSION_MESSAGE_UPDATED, patch_payload(p)),
        Event::MessageDeleted { id } => {
            (action::SESSION_MESSAGE_DELETED, json!({ "message_id": id }))
        }
        Event::TurnStarted {
            session_id,
            turn_id,
        } => (
            action::SESSION_TURN_STARTED,
            json!({ "id": turn_id, "session_id": session_id }),
        ),
        Event::TurnCompleted {
            session_id,
            turn_id,
        } => (
            action::SESSION_TURN_COMPLETED,
            json!({ "id": turn_id, "session_id": session_id }),
        ),
        Event::TaskUpdated(t) => (action::TASK_UPDATED, task_patch_payload(t)),
        Event::TaskDeleted { task_id } => (action::TASK_DELETED, json!({ "task_id": task_id })),
        Event::BoardLoaded(_)
        | Event::Unreadable { .. }
        | Event::TranscriptOpened { .. }
        | Event::BoardRequested { .. }
        | Event::BoardRequestFailed { .. }
        | Event::SessionReadStarted { .. }
        | Event::SessionReadFinished { .. } => return None,
    };
    Some(Envelope::notification(name, payload, timestamp))
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

#[cfg(test)]
mod tests;
