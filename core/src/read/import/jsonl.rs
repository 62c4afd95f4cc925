//! JSON Lines reading shared by the line-based importers (ACP, Claude Code,
//! qwen-code), and what becomes of a record no importer reads (docs/behaviour.md §1).
//!
//! Blank lines are skipped. Every other line is either a JSON object or an
//! unreadable line that keeps its raw text, so it can stay in its position.
//!
//! Agents' files hold more than conversation, and each release adds record
//! kinds. An importer says of every record what it made of it
//! ([`Reading`]): conversation, a kind it reads that carried none this time,
//! a conversation record it could not read (an unreadable row), or a kind it
//! does not read at all. That last one is settled by one positive test,
//! [`should_be_a_message`]: a node of the conversation (it has an id) with a
//! role, content blocks or a message body is an unreadable row; any other
//! record (request snapshots, telemetry, latches, cost totals) is skipped
//! and counted by its kind ([`NotShown`]), so tomorrow's kinds stay off the
//! screen without anyone listing them.

use crate::model::event::Event;
use crate::model::message::{json_kind, str_at};
use serde_json::Value;
use std::collections::BTreeMap;

/// One non-blank line of a JSON Lines text.
pub(crate) enum Line<'a> {
    /// The line parsed as a JSON object, with its text.
    Object { value: Value, raw: &'a str },
    /// The line is not a JSON object: its text and the reason.
    Unreadable { raw: &'a str, error: String },
}

/// The non-blank lines of `text` in order; a leading byte-order mark and
/// `\r\n` endings are tolerated.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    text.trim_start_matches('\u{feff}')
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(read_line)
}

pub(crate) fn read_line(raw: &str) -> Line<'_> {
    match serde_json::from_str::<Value>(raw.trim()) {
        Ok(value) if value.is_object() => Line::Object { value, raw },
        Ok(v) => Line::Unreadable {
            raw,
            error: format!("expected a JSON object, found {}", json_kind(&v)),
        },
        Err(e) => Line::Unreadable {
            raw,
            error: format!("invalid JSON: {e}"),
        },
    }
}

/// The JSON objects among the first `limit` non-blank lines (for detection).
pub(crate) fn leading_objects(text: &str, limit: usize) -> impl Iterator<Item = Value> + '_ {
    lines(text).take(limit).filter_map(|line| match line {
        Line::Object { value, .. } => Some(value),
        Line::Unreadable { .. } => None,
    })
}

/// What an importer made of one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// It carried conversation (or repeated a record already read).
    Conversation,
    /// A kind the importer reads, carrying no conversation this time (an
    /// injected prompt, queue bookkeeping): skipped and counted.
    NoConversation,
    /// A conversation record (a user or assistant message) the importer
    /// could not read: an unreadable row.
    Unreadable,
    /// Not a kind the importer reads: [`should_be_a_message`] says whether
    /// it is an unreadable row or skipped.
    UnknownKind,
}

/// True when a record of a kind no importer reads should have been a
/// message: a node of the conversation (a non-empty `uuid` or `id`) with a
/// `role`, content blocks (`content` or `parts` as an array), or a
/// `message` body with a role or content; or an envelope whose `payload` is
/// such a node (Codex rollouts). Request snapshots (which copy a
/// message body but are no node of the conversation), telemetry, cost
/// totals, latches and queue bookkeeping are not.
pub(crate) fn should_be_a_message(v: &Value) -> bool {
    let node = ["uuid", "id"].iter().any(|k| !str_at(v, k).is_empty());
    let role = |o: &Value| !str_at(o, "role").is_empty();
    let blocks = |o: &Value| {
        ["content", "parts"]
            .iter()
            .any(|k| o.get(*k).is_some_and(Value::is_array))
    };
    let body = |m: &Value| role(m) || blocks(m) || m.get("content").is_some_and(Value::is_string);
    let payload = || {
        v.get("payload")
            .is_some_and(|p| p.is_object() && should_be_a_message(p))
    };
    (node && (role(v) || blocks(v) || v.get("message").is_some_and(|m| m.is_object() && body(m))))
        || payload()
}

/// A record's kind as the view names it: its `type` (or `kind`), with the
/// `subtype` of a system record, the `type` of an attachment or of an
/// envelope's payload after a colon (`attachment:deferred_tools_delta`,
/// `system:ui_telemetry`, `event_msg:token_count`).
pub(crate) fn record_kind(v: &Value) -> String {
    let kind = ["type", "kind"]
        .iter()
        .map(|k| str_at(v, k))
        .find(|k| !k.is_empty())
        .unwrap_or_else(|| "untyped".into());
    let detail = match (v.get("attachment"), v.get("payload")) {
        (Some(a), _) => str_at(a, "type"),
        (None, Some(p)) if v.get("subtype").is_none() => str_at(p, "type"),
        _ => str_at(v, "subtype"),
    };
    if detail.is_empty() {
        kind
    } else {
        format!("{kind}:{detail}")
    }
}

/// The records skipped as carrying no conversation, counted by kind.
#[derive(Debug, Default)]
pub(crate) struct NotShown(BTreeMap<String, u64>);

impl NotShown {
    /// Settles a record after its importer's `reading`: conversation is
    /// done with; a record that carried none, or was not read and should
    /// not have been a message, is counted; `Some(reason)` when it should
    /// have been a message and could not be read (an unreadable row).
    pub(crate) fn settle(&mut self, reading: Reading, v: &Value) -> Option<String> {
        match reading {
            Reading::Conversation => None,
            Reading::Unreadable => Some(format!(
                "a {} record that could not be read",
                record_kind(v)
            )),
            Reading::UnknownKind if should_be_a_message(v) => Some(format!(
                "a {} record that could not be read",
                record_kind(v)
            )),
            Reading::NoConversation | Reading::UnknownKind => {
                *self.0.entry(record_kind(v)).or_default() += 1;
                None
            }
        }
    }

    /// Counts one record of `kind` skipped whole (a fork's inherited
    /// history, which its importer does not read).
    pub(crate) fn count(&mut self, kind: &str) {
        *self.0.entry(kind.to_string()).or_default() += 1;
    }

    /// One [`Event::NotShown`] per kind, in name order.
    pub(crate) fn into_events(self) -> impl Iterator<Item = Event> {
        self.0
            .into_iter()
            .map(|(kind, count)| Event::NotShown { kind, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_record_that_carries_no_conversation_is_counted_by_kind_whatever_its_kind() {
        let mut not_shown = NotShown::default();
        for v in [
            json!({"type": "api-request-shape", "uuid": "1", "shape": {"model": "m"}}),
            json!({"type": "api-request-blob", "hash": "h", "message": {"role": "user", "content": []}}),
            json!({"type": "atis-latch", "sessionId": "s", "latched": true}),
            json!({"type": "attachment", "attachment": {"type": "deferred_tools_delta", "added": []}}),
            json!({"type": "system", "subtype": "ui_telemetry", "systemPayload": {}}),
            json!({"type": "queue-operation", "operation": "dequeue", "content": "hi"}),
            json!({"type": "a-kind-from-tomorrow", "message": "rate limited"}),
            json!({"no": "type"}),
        ] {
            assert_eq!(not_shown.settle(Reading::UnknownKind, &v), None, "{v}");
        }
        assert_eq!(
            not_shown.settle(
                Reading::NoConversation,
                &json!({"type": "user", "isMeta": true})
            ),
            None
        );
        let events: Vec<(String, u64)> = not_shown
            .into_events()
            .map(|e| match e {
                Event::NotShown { kind, count } => (kind, count),
                other => panic!("{other:?}"),
            })
            .collect();
        let kinds: Vec<(&str, u64)> = events.iter().map(|(k, n)| (k.as_str(), *n)).collect();
        assert_eq!(
            kinds,
            [
                ("a-kind-from-tomorrow", 1),
                ("api-request-blob", 1),
                ("api-request-shape", 1),
                ("atis-latch", 1),
                ("attachment:deferred_tools_delta", 1),
                ("queue-operation", 1),
                ("system:ui_telemetry", 1),
                ("untyped", 1),
                ("user", 1),
            ]
        );
    }

    #[test]
    fn a_record_that_should_be_a_message_and_cannot_be_read_is_unreadable() {
        let mut not_shown = NotShown::default();
        for (reading, v) in [
            (
                Reading::Unreadable,
                json!({"type": "assistant", "message": {"role": "assistant", "content": 7}}),
            ),
            (
                Reading::UnknownKind,
                json!({"type": "new-turn", "uuid": "u", "message": {"content": "hello"}}),
            ),
            (
                Reading::UnknownKind,
                json!({"type": "reply", "id": "r", "role": "assistant", "text": "hi"}),
            ),
            (
                Reading::UnknownKind,
                json!({"type": "model", "uuid": "m", "parts": [{"text": "hi"}]}),
            ),
        ] {
            let reason = not_shown.settle(reading, &v);
            assert!(
                reason.is_some_and(|r| r.contains("could not be read")),
                "{v}"
            );
        }
        assert_eq!(not_shown.into_events().count(), 0);
    }

    #[test]
    fn conversation_is_neither_counted_nor_unreadable() {
        let mut not_shown = NotShown::default();
        let v = json!({"type": "user", "message": {"role": "user", "content": "hi"}});
        assert_eq!(not_shown.settle(Reading::Conversation, &v), None);
        assert_eq!(not_shown.into_events().count(), 0);
    }

    #[test]
    fn blank_lines_are_skipped_and_bad_lines_keep_their_text() {
        let text = "\u{feff}{\"a\":1}\r\n\n  \n[1]\nnot json\n{\"b\":2}";
        let kinds: Vec<String> = lines(text)
            .map(|l| match l {
                Line::Object { value, .. } => value.to_string(),
                Line::Unreadable { raw, .. } => format!("?{raw}"),
            })
            .collect();
        assert_eq!(kinds, [r#"{"a":1}"#, "?[1]", "?not json", r#"{"b":2}"#]);
    }
}
