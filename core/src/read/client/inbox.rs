//! What an incoming WebSocket frame means to the client: replies to settle,
//! events for the store, and issues (frames that are not JSON, unknown
//! actions, payloads of the wrong shape) that are counted per kind and logged
//! once per kind, never shown as errors and never fatal (docs/behaviour.md §8).

use crate::model::event::Event;
use crate::read::protocol::NotificationError;
use crate::read::protocol::{event_from_notification, parse_frame, Envelope, EnvelopeType};
use serde_json::Value;
use std::collections::BTreeMap;

/// One part of a frame, read.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// A `response` or `error` echoing a request id.
    Reply(Envelope),
    /// A notification for the store (boxed: events are large).
    Event(Box<Event>),
    /// A notification with nothing for the store (a known action that
    /// carries nothing it keeps).
    Ignored,
    /// Something the client could not use.
    Issue(FrameIssue),
}

/// A frame part the client could not use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameIssue {
    /// Not JSON, or not an envelope.
    InvalidFrame { error: String },
    /// A notification whose action this version does not know.
    UnknownAction { action: String },
    /// A known notification whose payload lacks what it needs.
    MalformedPayload { action: String, error: String },
    /// An envelope a server should not send: a request, or a reply without
    /// an id (e.g. the server's answer to a frame it could not read).
    Unexpected { kind: String, action: String },
}

impl FrameIssue {
    /// The kind this issue is counted under: one log line per kind.
    pub fn kind(&self) -> String {
        match self {
            FrameIssue::InvalidFrame { .. } => "invalid frame".into(),
            FrameIssue::UnknownAction { action } => format!("unknown action {action:?}"),
            FrameIssue::MalformedPayload { action, .. } => format!("malformed {action} payload"),
            FrameIssue::Unexpected { kind, action } => format!("unexpected {kind} {action:?}"),
        }
    }
}

impl std::fmt::Display for FrameIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameIssue::InvalidFrame { error } => write!(f, "invalid frame: {error}"),
            FrameIssue::MalformedPayload { error, .. } => write!(f, "{}: {error}", self.kind()),
            FrameIssue::UnknownAction { .. } | FrameIssue::Unexpected { .. } => {
                f.write_str(&self.kind())
            }
        }
    }
}

/// Reads one text frame. Which session a message event belongs to is the
/// store's business (it ignores other sessions' messages while one is open).
pub fn read_frame(text: &str) -> Vec<Incoming> {
    parse_frame(text)
        .into_iter()
        .map(|part| match part {
            Ok(envelope) => read_envelope(envelope),
            Err(bad) => Incoming::Issue(FrameIssue::InvalidFrame { error: bad.error }),
        })
        .collect()
}

fn read_envelope(envelope: Envelope) -> Incoming {
    match envelope.kind {
        EnvelopeType::Response | EnvelopeType::Error if envelope.id.is_some() => {
            Incoming::Reply(envelope)
        }
        EnvelopeType::Notification => read_notification(&envelope.action, &envelope.payload),
        kind => Incoming::Issue(FrameIssue::Unexpected {
            kind: format!("{kind:?}").to_lowercase(),
            action: envelope.action,
        }),
    }
}

fn read_notification(action: &str, payload: &Value) -> Incoming {
    match event_from_notification(action, payload) {
        Ok(Some(event)) => Incoming::Event(Box::new(event)),
        Ok(None) => Incoming::Ignored,
        Err(NotificationError::UnknownAction(action)) => {
            Incoming::Issue(FrameIssue::UnknownAction { action })
        }
        Err(NotificationError::MalformedPayload { action, error }) => {
            Incoming::Issue(FrameIssue::MalformedPayload { action, error })
        }
    }
}

/// At most this many distinct kinds are tracked; the rest count as one.
const MAX_KINDS: usize = 64;
/// The kind every issue falls under once [`MAX_KINDS`] are tracked.
const OTHER_KIND: &str = "other issues";

/// Issue counts per kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IssueLog {
    counts: BTreeMap<String, u64>,
}

impl IssueLog {
    /// An empty log.
    pub fn new() -> IssueLog {
        IssueLog::default()
    }

    /// Counts `issue`; true when its kind is new (the one time to log it).
    pub fn record(&mut self, issue: &FrameIssue) -> bool {
        let mut kind = issue.kind();
        if !self.counts.contains_key(&kind) && self.counts.len() >= MAX_KINDS {
            kind = OTHER_KIND.to_string();
        }
        let count = self.counts.entry(kind).or_insert(0);
        *count += 1;
        *count == 1
    }

    /// Counts per kind, in kind order.
    pub fn counts(&self) -> &BTreeMap<String, u64> {
        &self.counts
    }

    /// Issues counted in all.
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> Incoming {
        let mut parts = read_frame(text);
        assert_eq!(parts.len(), 1, "{parts:?}");
        parts.remove(0)
    }

    fn event(incoming: Incoming) -> Option<Event> {
        match incoming {
            Incoming::Event(e) => Some(*e),
            _ => None,
        }
    }

    fn issue_kind(text: &str) -> String {
        match one(text) {
            Incoming::Issue(i) => i.kind(),
            other => panic!("expected an issue, got {other:?}"),
        }
    }

    #[test]
    fn replies_with_an_id_are_replies() {
        let text = r#"{"id":"tv-1","type":"response","action":"user.subscribe","payload":{"success":true}}"#;
        assert!(matches!(one(text), Incoming::Reply(e) if e.id.as_deref() == Some("tv-1")));
        let text = r#"{"id":"tv-2","type":"error","action":"x","payload":{"code":"NOT_FOUND","message":"m"}}"#;
        assert!(matches!(one(text), Incoming::Reply(_)));
    }

    #[test]
    fn notifications_become_events_and_quiet_ones_are_ignored() {
        let text = json!({"type": "notification", "action": "task.updated",
            "payload": {"task_id": "t", "active_subagent_count": 2}})
        .to_string();
        assert!(matches!(event(one(&text)), Some(Event::TaskUpdated(p)) if p.task_id == "t"));
        let text = json!({"type": "notification", "action": "session.activity_changed",
            "payload": {"session_id": "s", "active_subagent_count": 2}})
        .to_string();
        assert_eq!(one(&text), Incoming::Ignored);
    }

    #[test]
    fn message_events_of_any_session_become_events_for_the_store_to_sort() {
        let text = json!({"type": "notification", "action": "session.message.added",
            "payload": {"message_id": "m", "session_id": "other", "content": "x"}})
        .to_string();
        assert!(matches!(event(one(&text)), Some(Event::MessageAdded(_))));
        let text = json!({"type": "notification", "action": "session.turn.started",
            "payload": {"id": "turn-1", "session_id": "other"}})
        .to_string();
        assert!(matches!(event(one(&text)), Some(Event::TurnStarted { .. })));
    }

    #[test]
    fn bad_frames_are_issues_of_their_kind() {
        assert_eq!(issue_kind("{not json"), "invalid frame");
        assert_eq!(
            issue_kind(r#"{"type":"banana","action":"x"}"#),
            "invalid frame"
        );
        assert_eq!(
            issue_kind(r#"{"type":"notification","action":"taskview.bogus","payload":{}}"#),
            "unknown action \"taskview.bogus\""
        );
        assert_eq!(
            issue_kind(
                r#"{"type":"notification","action":"task.updated","payload":{"task_id":42}}"#
            ),
            "malformed task.updated payload"
        );
        assert_eq!(
            issue_kind(
                r#"{"type":"notification","action":"session.message.updated","payload":{"message_id":{}}}"#
            ),
            "malformed session.message.updated payload"
        );
        assert_eq!(
            issue_kind(r#"{"type":"error","action":"","payload":{"code":"BAD_REQUEST"}}"#),
            "unexpected error \"\""
        );
        assert_eq!(
            issue_kind(r#"{"id":"1","type":"request","action":"user.subscribe"}"#),
            "unexpected request \"user.subscribe\""
        );
    }

    #[test]
    fn one_bad_part_does_not_hide_the_others() {
        let good =
            json!({"type": "notification", "action": "task.deleted", "payload": {"task_id": "t"}});
        let mut parts = read_frame(&format!("{good}\n{{oops\n{good}"));
        assert_eq!(parts.len(), 3);
        assert!(matches!(
            parts[1],
            Incoming::Issue(FrameIssue::InvalidFrame { .. })
        ));
        assert!(matches!(
            event(parts.remove(2)),
            Some(Event::TaskDeleted { .. })
        ));
    }

    #[test]
    fn the_log_says_when_a_kind_is_new_and_counts_every_issue() {
        let mut log = IssueLog::new();
        let bad = FrameIssue::InvalidFrame { error: "e1".into() };
        let bad2 = FrameIssue::InvalidFrame { error: "e2".into() };
        let unknown = FrameIssue::UnknownAction { action: "x".into() };
        assert!(log.record(&bad));
        assert!(!log.record(&bad2), "same kind, other detail");
        assert!(log.record(&unknown));
        assert!(!log.record(&unknown));
        assert_eq!(log.counts()["invalid frame"], 2);
        assert_eq!(log.counts()["unknown action \"x\""], 2);
        assert_eq!(log.total(), 4);
    }

    #[test]
    fn distinct_kinds_are_capped() {
        let mut log = IssueLog::new();
        let logged = (0..100)
            .filter(|n| {
                log.record(&FrameIssue::UnknownAction {
                    action: format!("a{n}"),
                })
            })
            .count();
        assert_eq!(logged, MAX_KINDS + 1);
        assert_eq!(log.counts().len(), MAX_KINDS + 1);
        assert_eq!(log.counts()[OTHER_KIND], 100 - MAX_KINDS as u64);
    }
}
