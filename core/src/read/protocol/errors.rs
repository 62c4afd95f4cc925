//! Error codes and the error payload of error envelopes and HTTP bodies.

use crate::model::message::opt_str_at;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Error codes of error envelopes (docs/protocol.md §5.2).
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
