//! Claude Code's records of what happens to a session besides conversation
//! (docs/behaviour.md §4, docs/formats.md §9), read into the fold's
//! session event rows (`agent_log::session_events`):
//! - a `system` record `subtype: "compact_boundary"` (with
//!   `compactMetadata.trigger`) and the `isCompactSummary` user record after
//!   it are one compaction row, expandable to the summary without the
//!   `<system-reminder>` the CLI wraps around its notes;
//! - the user records a slash command leaves (`<local-command-caveat>`,
//!   `<command-name>…`, `<local-command-stdout>…`) are one command row: the
//!   caveat and terminal key hints (`(ctrl+o to see full summary)`) are not
//!   shown;
//! - `system` records `subtype: "api_error"` (`error.status`,
//!   `retryAttempt`, `retryInMs`; older ones a `content` text) are the
//!   turn's retry marker.

use super::super::agent_log::{status_reason, Fold, Owner};
use super::super::build::Stamp;
use super::super::jsonl::Reading;
use crate::model::message::{bool_at, str_at};
use serde_json::Value;

/// A `system` record that is a session event; `None` for others.
pub(super) fn system(fold: &mut Fold, v: &Value, stamp: &Stamp) -> Option<Reading> {
    match str_at(v, "subtype").as_str() {
        "compact_boundary" => {
            let trigger = v
                .get("compactMetadata")
                .map(|m| str_at(m, "trigger"))
                .unwrap_or_default();
            fold.compaction(&trigger, stamp);
        }
        "api_error" => {
            let reason = status_reason(error_status(v.get("error")))
                .unwrap_or_else(|| str_at(v, "content").trim().to_string());
            fold.api_retry(&Owner::Main, &reason, stamp);
        }
        _ => return None,
    }
    Some(Reading::Conversation)
}

/// The HTTP status of an `api_error` record's `error` (its `status`, or a
/// status the message names), 0 when unknown.
fn error_status(error: Option<&Value>) -> u64 {
    let Some(error) = error else {
        return 0;
    };
    if let Some(status) = error.get("status").and_then(Value::as_u64) {
        return status;
    }
    let text = match error {
        Value::String(s) => s.clone(),
        other => str_at(other, "message"),
    };
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|n| n.len() == 3)
        .filter_map(|n| n.parse::<u64>().ok())
        .find(|n| (400..600).contains(n))
        .unwrap_or(0)
}

/// A user record that is a compaction summary; `None` for others.
pub(super) fn compact_summary(fold: &mut Fold, v: &Value, stamp: &Stamp) -> Option<Reading> {
    if !bool_at(v, "isCompactSummary") {
        return None;
    }
    let content = v
        .get("message")
        .and_then(|m| m.get("content"))
        .unwrap_or(&Value::Null);
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    fold.compaction_summary(&without_reminders(&text), stamp);
    Some(Reading::Conversation)
}

/// A user text a slash command left; false for other text.
pub(super) fn command_text(fold: &mut Fold, text: &str, stamp: &Stamp) -> bool {
    let t = text.trim_start();
    if t.starts_with("<local-command-caveat>") {
        return true;
    }
    if let Some(name) = element(t, "command-name") {
        let args = element(t, "command-args").unwrap_or_default();
        fold.command(&format!("{} {}", name.trim(), args.trim()), stamp);
        return true;
    }
    let output = element(t, "local-command-stdout").or_else(|| element(t, "local-command-stderr"));
    match output {
        Some(output) if t.starts_with("<local-command-") => {
            fold.command_output(&without_key_hints(output), stamp);
            true
        }
        _ => false,
    }
}

/// The text of the first `<name>…</name>` element in `text`.
fn element<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&format!("</{name}>"))?;
    Some(&text[start..start + end])
}

/// `text` without its `<system-reminder>…</system-reminder>` blocks (an
/// unclosed one runs to the end).
fn without_reminders(text: &str) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        rest = match rest[at..].find(CLOSE) {
            Some(end) => &rest[at + end + CLOSE.len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out.trim().to_string()
}

/// A command's output without the terminal's key hints (`(ctrl+o to see
/// full summary)`, `(esc to …)`): they name keys of a terminal that is not
/// here.
fn without_key_hints(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('(') {
        let inner = &rest[at + 1..];
        let hint = ["ctrl+", "esc ", "shift+", "alt+"]
            .iter()
            .any(|key| inner.to_ascii_lowercase().starts_with(key));
        match inner.find(')').filter(|_| hint) {
            Some(end) => {
                out.push_str(rest[..at].trim_end());
                rest = &inner[end + 1..];
            }
            None => {
                out.push_str(&rest[..=at]);
                rest = inner;
            }
        }
    }
    out.push_str(rest);
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn terminal_key_hints_are_cut_from_a_command_s_output() {
        assert_eq!(
            without_key_hints("Compacted (ctrl+o to see full summary)"),
            "Compacted"
        );
        assert_eq!(
            without_key_hints("Kept (a note) and (Esc to cancel) gone"),
            "Kept (a note) and gone"
        );
        assert_eq!(
            without_key_hints("open ( never closed"),
            "open ( never closed"
        );
    }

    #[test]
    fn system_reminders_are_cut_from_a_compaction_summary() {
        assert_eq!(
            without_reminders(
                "This session is being continued.\n<system-reminder><tools-used-before-summary>Bash</tools-used-before-summary></system-reminder>\nSummary: done."
            ),
            "This session is being continued.\n\nSummary: done."
        );
        assert_eq!(without_reminders("a <system-reminder>unclosed"), "a");
    }

    #[test]
    fn an_api_error_s_status_comes_from_its_error_or_its_message() {
        assert_eq!(error_status(Some(&json!({"status": 529}))), 529);
        assert_eq!(
            error_status(Some(&json!({"message": "API Error: 500 Internal"}))),
            500
        );
        assert_eq!(error_status(Some(&json!("overloaded 529"))), 529);
        assert_eq!(error_status(Some(&json!({"message": "port 35529"}))), 0);
        assert_eq!(error_status(None), 0);
    }
}
