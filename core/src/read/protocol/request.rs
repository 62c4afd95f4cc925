//! Typed client requests: built by the browser, parsed and validated by the
//! server; the messages query shared with HTTP; the acknowledgement.

use super::{action, Envelope, ErrorCode, ErrorPayload};
use crate::model::message::{json_kind, u64_at};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

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
/// (docs/protocol.md §5.1). `before`/`after` are message ids (exclusive);
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
pub fn percent_encode(s: &str) -> String {
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

/// A typed client request (docs/protocol.md §5.2). The client builds one and
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
