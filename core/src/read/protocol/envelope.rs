//! Envelopes: one frame part `{id?, type, action, payload, timestamp,
//! metadata?}`, their builders, and splitting a text frame into them.

use super::ErrorPayload;
use crate::model::message::json_kind;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// a missing payload is `null`; unknown fields are ignored. Takes the
    /// value, so the payload is moved out, not copied.
    pub fn from_value(v: Value) -> Result<Envelope, String> {
        let Value::Object(mut obj) = v else {
            return Err(format!("expected a JSON object, found {}", json_kind(&v)));
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
        let timestamp = obj
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_string);
        Ok(Envelope {
            id,
            kind,
            action,
            payload: obj.remove("payload").unwrap_or(Value::Null),
            timestamp,
            metadata: obj.remove("metadata").filter(|m| !m.is_null()),
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

/// Splits one WebSocket text frame into envelopes (docs/protocol.md §5.2).
///
/// A frame normally holds one JSON object (pretty-printed or not); several
/// objects separated by `\n` are read in the same pass. When a part is not
/// JSON, each line is read on its own, so one bad part neither hides the
/// others nor aborts the frame. Blank parts are skipped.
pub fn parse_frame(text: &str) -> Vec<Result<Envelope, FrameError>> {
    let envelope = |raw: &str, v: Value| {
        Envelope::from_value(v).map_err(|error| FrameError {
            raw: raw.to_string(),
            error,
        })
    };
    let mut parts = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut start = 0;
    while let Some(next) = stream.next() {
        let Ok(v) = next else {
            return text
                .split('\n')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|part| match serde_json::from_str::<Value>(part) {
                    Ok(v) => envelope(part, v),
                    Err(e) => Err(FrameError {
                        raw: part.to_string(),
                        error: format!("invalid JSON: {e}"),
                    }),
                })
                .collect();
        };
        let end = stream.byte_offset();
        parts.push(envelope(text[start..end].trim(), v));
        start = end;
    }
    parts
}
