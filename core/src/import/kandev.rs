//! kandev message lists: the body of `GET /api/v1/task-sessions/{sid}/messages`
//! (`{messages: [...]}`), a bare array, or a saved response wrapper
//! (`{response: {messages: [...]}}`).
//!
//! Reading is per element: one bad element becomes an `Event::Unreadable` in
//! its position, and a truncated file keeps every element before the cut.

use crate::event::Event;
use crate::model::{json_kind, Message};
use serde_json::Value;

/// Turns a kandev message list into events, in list order.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    let body = text.trim_start_matches('\u{feff}').trim();
    match serde_json::from_str::<Value>(body) {
        Ok(v) => from_value(&v),
        Err(_) => recover_truncated(body),
    }
}

/// True when `text` looks like a kandev list (used by dialect detection).
pub fn looks_like(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('[') {
        return true;
    }
    t.starts_with('{')
        && t.get(..4096.min(t.len()))
            .is_some_and(|h| h.contains("\"messages\""))
}

/// Events from an already parsed list body.
pub fn from_value(v: &Value) -> Result<Vec<Event>, String> {
    let list = messages_array(v).ok_or_else(|| {
        format!(
            "expected a list of messages or an object with \"messages\", found {}",
            json_kind(v)
        )
    })?;
    Ok(list.iter().map(event_for).collect())
}

/// The message array inside any of the accepted wrappers.
pub fn messages_array(v: &Value) -> Option<&Vec<Value>> {
    match v {
        Value::Array(a) => Some(a),
        Value::Object(o) => o
            .get("messages")
            .and_then(Value::as_array)
            .or_else(|| o.get("response").and_then(messages_array))
            .or_else(|| o.get("payload").and_then(messages_array)),
        _ => None,
    }
}

/// One list element as an event: a message, or an unreadable row keeping its text.
pub fn event_for(v: &Value) -> Event {
    match Message::from_value(v) {
        Ok(m) => Event::MessageAdded(m),
        Err(error) => Event::Unreadable {
            raw: v.to_string(),
            error,
        },
    }
}

/// The file is not valid JSON: find the message array and read its elements
/// one by one, so everything before the damage survives.
fn recover_truncated(body: &str) -> Result<Vec<Event>, String> {
    let start = array_start(body).ok_or_else(|| {
        let e = serde_json::from_str::<Value>(body).err();
        format!(
            "not a kandev message list: {}",
            e.map(|e| e.to_string()).unwrap_or_default()
        )
    })?;
    let mut events = Vec::new();
    for piece in split_elements(&body[start..]) {
        match serde_json::from_str::<Value>(piece) {
            Ok(v) => events.push(event_for(&v)),
            Err(e) => events.push(Event::Unreadable {
                raw: piece.to_string(),
                error: format!("invalid JSON: {e}"),
            }),
        }
    }
    Ok(events)
}

/// Byte offset just after the `[` that opens the message array.
fn array_start(body: &str) -> Option<usize> {
    if body.starts_with('[') {
        return Some(1);
    }
    let key = body.find("\"messages\"")?;
    let after = &body[key + "\"messages\"".len()..];
    let colon = after.find(':')?;
    let rest = &after[colon + 1..];
    let open = rest.find(|c: char| !c.is_whitespace())?;
    (rest[open..].starts_with('[')).then(|| body.len() - rest.len() + open + 1)
}

/// Splits the inside of an array into element texts at top-level commas,
/// respecting strings and nesting; stops at the closing bracket or the end.
fn split_elements(inner: &str) -> Vec<&str> {
    let bytes = inner.as_bytes();
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => depth -= 1,
            b']' => {
                push_piece(&mut pieces, &inner[start..i]);
                return pieces;
            }
            b',' if depth == 0 => {
                push_piece(&mut pieces, &inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    push_piece(&mut pieces, &inner[start..]);
    pieces
}

fn push_piece<'a>(pieces: &mut Vec<&'a str>, piece: &'a str) {
    let p = piece.trim();
    if !p.is_empty() {
        pieces.push(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                Event::MessageAdded(m) => m.id.clone(),
                Event::Unreadable { .. } => "?".into(),
                other => panic!("unexpected {other:?}"),
            })
            .collect()
    }

    #[test]
    fn accepts_bare_arrays_pages_and_saved_responses() {
        let bare = r#"[{"id":"a"},{"id":"b"}]"#;
        let page = r#"{"messages":[{"id":"a"},{"id":"b"}],"has_more":false}"#;
        let saved = r#"{"request":"GET","response":{"messages":[{"id":"a"},{"id":"b"}]}}"#;
        for text in [bare, page, saved] {
            assert_eq!(ids(&import(text).unwrap()), ["a", "b"]);
        }
    }

    #[test]
    fn a_bad_element_becomes_an_unreadable_row_in_place() {
        let events = import(r#"[{"id":"a"}, 17, {"id":"c"}]"#).unwrap();
        assert_eq!(ids(&events), ["a", "?", "c"]);
        let Event::Unreadable { raw, .. } = &events[1] else {
            unreachable!()
        };
        assert_eq!(raw, "17");
    }

    #[test]
    fn truncated_json_keeps_everything_before_the_cut() {
        let text = r#"{"messages":[{"id":"a","content":"x, [y]"},{"id":"b"},{"id":"c","cont"#;
        let events = import(text).unwrap();
        assert_eq!(ids(&events), ["a", "b", "?"]);
    }

    #[test]
    fn not_a_list_is_a_clear_error() {
        assert!(import(r#"{"hello": 1}"#).unwrap_err().contains("messages"));
        assert!(import("garbage").is_err());
    }
}
