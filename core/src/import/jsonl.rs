//! JSON Lines reading shared by the line-based importers (ACP, Claude Code).
//!
//! Blank lines are skipped. Every other line is either a JSON object or an
//! unreadable line that keeps its raw text, so it can stay in its position.

use crate::model::json_kind;
use serde_json::Value;

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

#[cfg(test)]
mod tests {
    use super::*;

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
