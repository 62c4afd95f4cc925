//! Request/response correlation: each request gets an id, a deadline and a
//! waiter (whatever the app resumes with the answer); a `response` or `error`
//! envelope echoing the id settles it, a timer expires it, a lost socket
//! fails everything still waiting.

use crate::read::protocol::{action, Envelope, EnvelopeType, ErrorPayload};
use serde_json::Value;
use std::collections::HashMap;

/// How long to wait for a reply (docs/protocol.md §5.2): 10 s for
/// `message.list`, 5 s for everything else.
pub fn timeout_ms(action_name: &str) -> f64 {
    if action_name == action::MESSAGE_LIST {
        10_000.0
    } else {
        5_000.0
    }
}

/// Why a request got no successful reply.
#[derive(Clone, Debug, PartialEq)]
pub enum RequestError {
    /// The server answered with an error envelope.
    Rejected(ErrorPayload),
    /// No reply before the deadline.
    TimedOut,
    /// The socket closed (or was not open) before the reply.
    Disconnected,
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestError::Rejected(e) => write!(f, "{}: {}", e.code, e.message),
            RequestError::TimedOut => f.write_str("no reply in time"),
            RequestError::Disconnected => f.write_str("the connection closed"),
        }
    }
}

/// A request waiting for its reply.
#[derive(Debug)]
struct Waiting<T> {
    action: String,
    deadline_ms: f64,
    waiter: T,
}

/// Requests in flight, by id. `T` is what the app resumes (a channel sender).
#[derive(Debug)]
pub struct Pending<T> {
    prefix: String,
    next: u64,
    waiting: HashMap<String, Waiting<T>>,
}

impl<T> Pending<T> {
    /// An empty table whose ids start with `prefix` (e.g. a per-page random
    /// token, so ids of two tabs never look alike in server logs).
    pub fn new(prefix: impl Into<String>) -> Pending<T> {
        Pending {
            prefix: prefix.into(),
            next: 0,
            waiting: HashMap::new(),
        }
    }

    /// Registers a request for `action` sent at `now_ms`; returns its id.
    pub fn register(&mut self, action: &str, now_ms: f64, waiter: T) -> String {
        self.next += 1;
        let id = format!("{}-{}", self.prefix, self.next);
        self.waiting.insert(
            id.clone(),
            Waiting {
                action: action.to_string(),
                deadline_ms: now_ms + timeout_ms(action),
                waiter,
            },
        );
        id
    }

    /// Settles the request a reply answers: its waiter and the outcome. `None`
    /// for notifications, replies without an id, and ids not (or no longer)
    /// waiting, e.g. a reply that came after its deadline.
    pub fn settle(&mut self, reply: &Envelope) -> Option<(T, Result<Value, RequestError>)> {
        let outcome = match reply.kind {
            EnvelopeType::Response => Ok(reply.payload.clone()),
            EnvelopeType::Error => Err(RequestError::Rejected(ErrorPayload::from_value(
                &reply.payload,
            ))),
            EnvelopeType::Request | EnvelopeType::Notification => return None,
        };
        let waiting = self.waiting.remove(reply.id.as_deref()?)?;
        Some((waiting.waiter, outcome))
    }

    /// Forgets one request (it could not be sent); its waiter.
    pub fn remove(&mut self, id: &str) -> Option<T> {
        self.waiting.remove(id).map(|w| w.waiter)
    }

    /// Removes the requests whose deadline has passed: `(action, waiter)`.
    pub fn expire(&mut self, now_ms: f64) -> Vec<(String, T)> {
        let due: Vec<String> = self
            .waiting
            .iter()
            .filter(|(_, w)| w.deadline_ms <= now_ms)
            .map(|(id, _)| id.clone())
            .collect();
        due.into_iter()
            .filter_map(|id| self.waiting.remove(&id))
            .map(|w| (w.action, w.waiter))
            .collect()
    }

    /// Removes every waiting request (the socket closed).
    pub fn drain(&mut self) -> Vec<T> {
        self.waiting.drain().map(|(_, w)| w.waiter).collect()
    }

    /// The earliest deadline, to arm a timer.
    pub fn next_deadline(&self) -> Option<f64> {
        self.waiting
            .values()
            .map(|w| w.deadline_ms)
            .min_by(f64::total_cmp)
    }

    /// Number of requests waiting.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// True when nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::protocol::{ErrorCode, Request};
    use serde_json::json;

    #[test]
    fn a_response_settles_the_request_with_its_id_once() {
        let mut p = Pending::new("tv");
        let a = p.register("user.subscribe", 0.0, "a");
        let b = p.register("session.subscribe", 0.0, "b");
        assert_ne!(a, b);
        assert!(a.starts_with("tv-"));
        let reply = Envelope::response_to(
            &Request::SessionSubscribe {
                session_id: "s".into(),
            }
            .to_envelope(b.clone()),
            json!({"success": true}),
            "t",
        );
        let (waiter, outcome) = p.settle(&reply).unwrap();
        assert_eq!(waiter, "b");
        assert_eq!(outcome.unwrap()["success"], true);
        assert!(p.settle(&reply).is_none(), "a second reply is ignored");
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn an_error_envelope_rejects_with_its_payload() {
        let mut p = Pending::new("tv");
        let id = p.register("session.subscribe", 0.0, ());
        let error = ErrorPayload::new(ErrorCode::NotFound, "session x not found");
        let reply = Envelope::error(Some(id), "session.subscribe", error.clone(), "t");
        let (_, outcome) = p.settle(&reply).unwrap();
        assert_eq!(outcome, Err(RequestError::Rejected(error)));
    }

    #[test]
    fn notifications_and_unknown_ids_settle_nothing() {
        let mut p = Pending::new("tv");
        p.register("user.subscribe", 0.0, ());
        let note = Envelope::notification("task.updated", json!({}), "t");
        assert!(p.settle(&note).is_none());
        let stray =
            Envelope::response_to(&Request::UserSubscribe.to_envelope("zz"), json!({}), "t");
        assert!(p.settle(&stray).is_none());
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn deadlines_are_five_seconds_and_ten_for_message_list() {
        let mut p = Pending::new("tv");
        p.register(action::USER_SUBSCRIBE, 1000.0, "sub");
        p.register(action::MESSAGE_LIST, 1000.0, "list");
        assert_eq!(p.next_deadline(), Some(6000.0));
        assert!(p.expire(5999.0).is_empty());
        let expired = p.expire(6000.0);
        assert_eq!(expired, [("user.subscribe".to_string(), "sub")]);
        assert_eq!(p.next_deadline(), Some(11_000.0));
        assert_eq!(p.expire(20_000.0).len(), 1);
        assert!(p.is_empty() && p.next_deadline().is_none());
    }

    #[test]
    fn a_lost_socket_drains_every_waiter() {
        let mut p = Pending::new("tv");
        p.register("a", 0.0, 1);
        p.register("b", 0.0, 2);
        let mut drained = p.drain();
        drained.sort();
        assert_eq!(drained, [1, 2]);
        assert!(p.is_empty());
    }

    #[test]
    fn a_removed_request_is_no_longer_settled() {
        let mut p = Pending::new("tv");
        let id = p.register("user.subscribe", 0.0, 7);
        assert_eq!(p.remove(&id), Some(7));
        assert_eq!(p.remove(&id), None);
        let reply = Envelope::response_to(&Request::UserSubscribe.to_envelope(id), json!({}), "t");
        assert!(p.settle(&reply).is_none());
    }
}
