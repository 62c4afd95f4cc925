//! What happens to a session besides conversation, one quiet row each
//! (docs/behaviour.md §4): a compaction (`Conversation compacted · manual|auto`,
//! expandable to the summary the agent continues from), a resume
//! (`Resumed`, with the time), a slash command and its output as one
//! command row, and the model API's retries as one marker per turn of the
//! main agent, or per subagent inside its card (`3 retries · 529
//! overloaded`).
//!
//! Each is a status row whose `metadata.event` names what it is
//! (`compaction`, `resume`, `command`, `api_retry`) and whose
//! `metadata.detail`, when present, is what expanding it shows.

use super::super::build::{Row, RowKind, Stamp};
use super::{Body, Fold, Item, Owner};
use serde_json::Value;
use std::collections::HashMap;

/// The `metadata.event` of each kind of session event row.
pub(crate) const COMPACTION: &str = "compaction";
pub(crate) const RESUME: &str = "resume";
pub(crate) const COMMAND: &str = "command";
pub(crate) const API_RETRY: &str = "api_retry";

/// The rows of session events still open to what follows them.
#[derive(Default)]
pub(crate) struct SessionEvents {
    /// The latest compaction row, until its summary arrives.
    compaction: Option<String>,
    /// The latest command row, until its output arrives.
    command: Option<String>,
    /// Each owner's retry marker (by `owner_key`): its turn, its row and
    /// how many retries.
    retries: HashMap<String, (Option<String>, String, u64)>,
}

impl Fold {
    /// A compaction boundary (`trigger`: `manual`, `auto`, or unknown when
    /// empty): one quiet row, whose summary arrives next.
    pub(crate) fn compaction(&mut self, trigger: &str, stamp: &Stamp) {
        let text = match trigger {
            "" => "Conversation compacted".to_string(),
            trigger => format!("Conversation compacted · {trigger}"),
        };
        let key = self.push_event(COMPACTION, &text, stamp);
        self.events.compaction = Some(key);
    }

    /// The summary a compaction left the agent to continue from: the detail
    /// of the latest compaction row still without one, else a compaction
    /// row of its own.
    pub(crate) fn compaction_summary(&mut self, summary: &str, stamp: &Stamp) {
        let key = match self.events.compaction.take() {
            Some(key) => key,
            None => self.push_event(COMPACTION, "Conversation compacted", stamp),
        };
        self.set_detail(&key, summary.trim());
    }

    /// A slash command the user ran (`/compact`, with its arguments): one
    /// command row, whose output arrives next.
    pub(crate) fn command(&mut self, command: &str, stamp: &Stamp) {
        let key = self.push_event(COMMAND, command.trim(), stamp);
        self.events.command = Some(key);
    }

    /// A local command's output: the detail of the latest command row still
    /// without one, else a command row of its own.
    pub(crate) fn command_output(&mut self, output: &str, stamp: &Stamp) {
        let output = output.trim();
        let key = match self.events.command.take() {
            Some(key) => key,
            None if output.is_empty() => return,
            None => self.push_event(COMMAND, "Command", stamp),
        };
        if !output.is_empty() {
            self.set_detail(&key, output);
        }
    }

    /// The session was resumed in a later run: a `Resumed` row with the
    /// time.
    pub(crate) fn resumed(&mut self, stamp: &Stamp) {
        let text = match clock_time(&stamp.created_at) {
            Some(at) => format!("Resumed · {at}"),
            None => "Resumed".to_string(),
        };
        self.push_event(RESUME, &text, stamp);
    }

    /// A failed model request of `owner` the CLI retries (`reason`: what
    /// failed, as `status_reason` words it, empty when unknown): the retry
    /// marker of the main agent's turn, or of the subagent, counts it and
    /// says the latest reason.
    pub(crate) fn api_retry(&mut self, owner: &Owner, reason: &str, stamp: &Stamp) {
        let owner_key = match owner {
            Owner::Main => String::new(),
            Owner::Sidechain(key) => key.clone(),
        };
        let turn = match owner {
            Owner::Main => self.turn.clone(),
            Owner::Sidechain(_) => None,
        };
        let open = self
            .events
            .retries
            .remove(&owner_key)
            .filter(|(at, key, _)| *at == turn && self.items.get(key).is_some());
        let (key, count) = match open {
            Some((_, key, count)) => (key, count + 1),
            None => {
                let mut row = Row::new("", RowKind::Status, "", stamp);
                row.extra.insert("event".into(), API_RETRY.into());
                (self.push_row(owner, row), 1)
            }
        };
        let retries = if count == 1 { "retry" } else { "retries" };
        let text = match reason.trim() {
            "" => format!("{count} {retries}"),
            reason => format!("{count} {retries} · {reason}"),
        };
        if let Some(Item {
            body: Body::Row(row),
            ..
        }) = self.items.get_mut(&key)
        {
            row.text = text;
            row.extra.insert("retries".into(), count.into());
        }
        self.events.retries.insert(owner_key, (turn, key, count));
    }

    /// Appends a quiet row of the main conversation for session event
    /// `event`.
    fn push_event(&mut self, event: &str, text: &str, stamp: &Stamp) -> String {
        let mut row = Row::new("", RowKind::Status, text, stamp);
        row.extra.insert("event".into(), event.into());
        self.push_row(&Owner::Main, row)
    }

    /// Sets what expanding row `key` shows.
    fn set_detail(&mut self, key: &str, detail: &str) {
        if let Some(Item {
            body: Body::Row(row),
            ..
        }) = self.items.get_mut(key)
        {
            row.extra.insert("detail".into(), Value::from(detail));
        }
    }
}

/// `529 overloaded`-style reasons for the statuses model APIs retry.
pub(crate) fn status_reason(status: u64) -> Option<String> {
    let name = match status {
        0 => return None,
        429 => "rate limited",
        500 => "server error",
        502 => "bad gateway",
        503 => "unavailable",
        504 => "gateway timeout",
        529 => "overloaded",
        _ => "",
    };
    Some(format!("{status} {name}").trim_end().to_string())
}

/// `2026-12-05 14:03 UTC` from an RFC 3339 time in UTC; the date and time
/// as written for another offset; `None` for anything else.
fn clock_time(rfc3339: &str) -> Option<String> {
    let date = rfc3339.get(..10)?;
    let time = rfc3339.get(11..16)?;
    let valid = date.as_bytes()[4] == b'-' && time.as_bytes()[2] == b':';
    let zone = if rfc3339.ends_with('Z') { " UTC" } else { "" };
    valid.then(|| format!("{date} {time}{zone}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resume_row_says_when_in_utc() {
        assert_eq!(
            clock_time("2026-12-05T14:03:12.123Z").as_deref(),
            Some("2026-12-05 14:03 UTC")
        );
        assert_eq!(
            clock_time("2026-12-05T14:03:12+01:00").as_deref(),
            Some("2026-12-05 14:03")
        );
        assert_eq!(clock_time("yesterday"), None);
        assert_eq!(clock_time(""), None);
    }

    #[test]
    fn a_retry_marker_names_the_status_and_its_reason() {
        assert_eq!(status_reason(529).as_deref(), Some("529 overloaded"));
        assert_eq!(status_reason(500).as_deref(), Some("500 server error"));
        assert_eq!(status_reason(418).as_deref(), Some("418"));
        assert_eq!(status_reason(0), None);
    }
}
