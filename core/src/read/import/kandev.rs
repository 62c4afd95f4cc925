//! kandev message lists: the body of `GET /api/v1/task-sessions/{sid}/messages`
//! (`{messages: [...]}`), a bare array, or a saved response wrapper
//! (`{response: {messages: [...]}}`).
//!
//! Reading is per element: one bad element becomes an `Event::Unreadable` in
//! its position, and a truncated file keeps every element before the cut.

use crate::model::event::Event;
use crate::model::message::{json_kind, Message};
use serde_json::Value;

/// Turns a kandev message list into events, in list order. A document that
/// parses whole is read through any accepted wrapper; a damaged one is read
/// element by element from its message array.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    let body = text.trim_start_matches('\u{feff}').trim();
    match serde_json::from_str::<Value>(body) {
        Ok(v) => from_value(&v),
        Err(_) => Ok(Stream::new(text)?.collect()),
    }
}

/// A kandev message list read element by element: each element is parsed on
/// its own when it is reached, so a long list starts giving events at once,
/// never holds the whole document as one JSON tree, and a truncated or
/// damaged file keeps every element before the damage.
#[derive(Clone, Debug)]
pub struct Stream<'a> {
    elements: Elements<'a>,
}

impl<'a> Stream<'a> {
    /// Finds the message array of `text` (any accepted wrapper).
    pub fn new(text: &'a str) -> Result<Stream<'a>, String> {
        let body = text.trim_start_matches('\u{feff}').trim();
        let start = array_start(body).ok_or_else(|| match serde_json::from_str::<Value>(body) {
            Ok(v) => format!(
                "expected a list of messages or an object with \"messages\", found {}",
                json_kind(&v)
            ),
            Err(e) => format!("not a kandev message list: {e}"),
        })?;
        Ok(Stream {
            elements: Elements::new(&body[start..]),
        })
    }

    /// Bytes of the message array read so far (to resume with [`Stream::skip_bytes`]).
    pub fn offset(&self) -> usize {
        self.elements.inner.len() - self.elements.rest.len()
    }

    /// Resumes after the first `offset` bytes of the array, a value that
    /// [`Stream::offset`] gave for the same text.
    pub fn skip_bytes(&mut self, offset: usize) {
        let inner = self.elements.inner;
        self.elements.rest = inner.get(offset..).unwrap_or("");
    }

    /// How far through the text reading is, from 0 to 1.
    pub fn progress(&self) -> f64 {
        let inner = self.elements.inner.len();
        if inner == 0 {
            return 1.0;
        }
        self.offset() as f64 / inner as f64
    }
}

impl Iterator for Stream<'_> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        let piece = self.elements.next()?;
        Some(match serde_json::from_str::<Value>(piece) {
            Ok(v) => event_for(&v),
            Err(e) => Event::Unreadable {
                raw: piece.to_string(),
                error: format!("invalid JSON: {e}"),
            },
        })
    }
}

/// True when `text` is an object whose first key is `messages`, holding an
/// array: a saved messages page, recognised from its first bytes (a 50 MB
/// file need not be scanned whole before its first rows show).
pub fn opens_with_message_list(text: &str) -> bool {
    let mut rest = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    for token in ["{", "\"messages\"", ":", "["] {
        match rest.strip_prefix(token) {
            Some(after) => rest = after.trim_start(),
            None => return false,
        }
    }
    true
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
pub(crate) fn split_elements(inner: &str) -> Vec<&str> {
    Elements::new(inner).collect()
}

/// The element texts of an array's inside, one at a time.
#[derive(Clone, Debug)]
pub(crate) struct Elements<'a> {
    inner: &'a str,
    rest: &'a str,
}

impl<'a> Elements<'a> {
    fn new(inner: &'a str) -> Elements<'a> {
        Elements { inner, rest: inner }
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        loop {
            let text = self.rest;
            if text.is_empty() {
                return None;
            }
            let (end, next, last) = element_end(text);
            self.rest = if last { "" } else { &text[next..] };
            let piece = text[..end].trim();
            if !piece.is_empty() {
                return Some(piece);
            }
        }
    }
}

/// Where the first element of `text` ends: its end, where the next starts,
/// and whether it was the last (a closing bracket or the end of the text).
fn element_end(text: &str) -> (usize, usize, bool) {
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    for (i, &b) in text.as_bytes().iter().enumerate() {
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
            b']' => return (i, i + 1, true),
            b',' if depth == 0 => return (i, i + 1, false),
            _ => {}
        }
    }
    (text.len(), text.len(), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::import::test_support::ids;

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
    fn a_stream_gives_events_one_element_at_a_time_and_reports_progress() {
        let text = r#"{"messages":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#;
        let mut stream = Stream::new(text).unwrap();
        assert!(stream.progress() < 0.5);
        assert!(matches!(stream.next(), Some(Event::MessageAdded(m)) if m.id == "a"));
        let rest: Vec<Event> = stream.by_ref().collect();
        assert_eq!(ids(&rest), ["b", "c"]);
        assert_eq!(stream.progress(), 1.0);
    }

    #[test]
    fn a_response_wrapper_holding_the_array_directly_is_read() {
        let events = import(r#"{"response":[{"id":"a"},{"id":"b"}]}"#).unwrap();
        assert_eq!(ids(&events), ["a", "b"]);
    }

    #[test]
    fn a_messages_page_is_recognised_from_its_first_bytes() {
        assert!(opens_with_message_list(
            "\u{feff} {\n \"messages\" : [ {\"id\":\"a\"}"
        ));
        assert!(opens_with_message_list(r#"{"messages":[]}"#));
        assert!(!opens_with_message_list(r#"{"total":1,"messages":[]}"#));
        assert!(!opens_with_message_list(r#"{"messages":{"a":1}}"#));
        assert!(!opens_with_message_list(r#"[{"id":"a"}]"#));
        assert!(!opens_with_message_list(r#"{"turns":[]}"#));
        assert!(!opens_with_message_list(""));
    }

    #[test]
    fn not_a_list_is_a_clear_error() {
        assert!(import(r#"{"hello": 1}"#).unwrap_err().contains("messages"));
        assert!(import("garbage").is_err());
    }
}
