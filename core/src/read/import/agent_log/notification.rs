//! `<task-notification>`: how Claude Code and qwen-code tell an agent that a
//! background run finished (task id, tool-use id, status, summary, result,
//! usage), in a user record, a queue record or an attachment.

use super::super::build::{Row, RowKind, Stamp};
use super::super::subagent_fold::Trailer;
use super::super::tool::ToolStatus;
use super::{Body, Fold, Item, Owner};

/// A background run that finished, as its notification tells it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Completion {
    /// The agent (or shell) id, and the launching call's id when given.
    pub(crate) task_id: String,
    pub(crate) tool_use_id: String,
    /// In the payload's vocabulary (`completion_status`).
    pub(crate) status: String,
    pub(crate) summary: String,
    /// The run's answer, or for a failed or stopped run why.
    pub(crate) result: String,
    pub(crate) usage: Trailer,
}

impl Completion {
    /// The `<task-notification>` in `text`, its XML escapes read back.
    fn parse(body: &str) -> Completion {
        let field = |name: &str| tag(body, name).map(str::trim).unwrap_or("").to_string();
        let status = completion_status(&field("status")).to_string();
        let summary = unescape_xml(&field("summary"));
        let result = match tag(body, "result") {
            Some(result) => unescape_xml(trim_one_newline(result)),
            None if status == "failed" => failure_reason(&summary).to_string(),
            None => String::new(),
        };
        let result = match status.as_str() {
            "failed" | "cancelled" => error_of(&result).unwrap_or(&result).to_string(),
            _ => result,
        };
        Completion {
            task_id: field("task-id"),
            tool_use_id: field("tool-use-id"),
            status,
            summary,
            result,
            usage: tag(body, "usage")
                .map(Trailer::parse_usage)
                .unwrap_or_default(),
        }
    }
}

impl Fold {
    /// A `<task-notification>`: a background run finished (see
    /// `background_finished`). The same notification may be written more
    /// than once (a user record and its `queue-operation` twin,
    /// docs/formats.md §7 Claude Code 6) and is read once.
    pub(crate) fn notification(&mut self, text: &str, stamp: &Stamp) {
        let Some(body) = tag(text, "task-notification") else {
            return;
        };
        let body = body.trim();
        if self.notifications.insert(body.to_string()) {
            self.pending_completions.retain(|(_, b, _)| b != body);
            self.background_finished(Completion::parse(body), stamp);
        }
    }

    /// A notification as queued (Claude Code's `queue-operation`, written in
    /// the main file for every agent of the session): read as delivered when
    /// it is a known card's, else held until its card is read (a nested
    /// agent's, launched in a subagent's transcript read later) or its
    /// delivered copy is (in the conversation it reached).
    pub(crate) fn queued_notification(&mut self, text: &str, stamp: &Stamp) {
        let Some(body) = tag(text, "task-notification") else {
            return;
        };
        let c = Completion::parse(body);
        if self.card_of(&c).is_some() {
            self.notification(text, stamp);
        } else if !self.notifications.contains(body.trim()) {
            self.pending_completions
                .push((c, body.trim().to_string(), stamp.clone()));
        }
    }

    /// The card a completion is for, when its launch has been read: by
    /// the launching call's id, else by the agent id.
    pub(crate) fn card_of(&self, c: &Completion) -> Option<String> {
        let is_card = |id: &str| matches!(self.items.get(id), Some(Item { body: Body::Tool(t), .. }) if t.subagent.is_some());
        if !c.tool_use_id.is_empty() && is_card(&c.tool_use_id) {
            return Some(c.tool_use_id.clone());
        }
        self.task_of_agent
            .get(&c.task_id)
            .filter(|task| is_card(task))
            .cloned()
    }

    /// A background run finished: one of a known subagent settles its card
    /// (docs/behaviour.md §1: status, result, tokens, duration); one of a subagent
    /// whose launch is not read yet (a sidecar names it) waits for its card;
    /// any other (a background command's) is one status line.
    pub(crate) fn background_finished(&mut self, c: Completion, stamp: &Stamp) {
        let task = self.card_of(&c);
        if task.is_none() && self.launch_unread(&c) {
            self.pending_completions
                .push((c, String::new(), stamp.clone()));
            return;
        }
        let found = task.as_deref().and_then(|id| match self.items.get_mut(id) {
            Some(Item {
                body: Body::Tool(t),
                ..
            }) => Some(t),
            _ => None,
        });
        match found {
            Some(tool) => {
                if let Some(s) = ToolStatus::parse(&c.status) {
                    tool.call.status.advance(s);
                }
                if let Some(fold) = &mut tool.subagent {
                    fold.apply_completion(&c.status, &c.result, c.usage);
                }
            }
            None => {
                let line = if c.summary.is_empty() {
                    format!("Background task {} {}", c.task_id, c.status)
                } else {
                    c.summary
                };
                self.push_row(
                    &Owner::Main,
                    Row::new("", RowKind::Status, line.trim(), stamp),
                );
            }
        }
    }

    /// True when `c` is the result of a subagent a sidecar names whose
    /// launching call is not read yet.
    fn launch_unread(&self, c: &Completion) -> bool {
        let unread = |id: &str| !id.is_empty() && !self.has_item(id);
        self.task_of_agent
            .get(&c.task_id)
            .is_some_and(|task| unread(task))
            || (unread(&c.tool_use_id) && self.sidecars.contains_key(&c.tool_use_id))
    }

    /// Applies the held results whose card has been read since; a queued
    /// one whose card never comes (a background command's) is dropped
    /// with its delivered copy's status line standing for it.
    pub(crate) fn apply_pending_completions(&mut self) {
        if self.pending_completions.is_empty() {
            return;
        }
        for (c, body, stamp) in std::mem::take(&mut self.pending_completions) {
            if self.card_of(&c).is_some() {
                if !body.is_empty() {
                    self.notifications.insert(body);
                }
                self.background_finished(c, &stamp);
            } else {
                self.pending_completions.push((c, body, stamp));
            }
        }
    }
}

/// The error a failed run's result names when it is a thrown error's dump
/// (qwen-code: `Error: Unhandled error. ({ … error: '<reason>', … })`):
/// the reason.
fn error_of(result: &str) -> Option<&str> {
    if !result.contains("Unhandled error.") {
        return None;
    }
    result.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("error:")?.trim();
        let quoted = rest.strip_prefix('\'')?;
        quoted
            .rfind('\'')
            .map(|end| &quoted[..end])
            .filter(|e| !e.is_empty())
    })
}

/// The text between `<name>` and the next `</name>`.
fn tag<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let start = text.find(&open)? + open.len();
    let len = text[start..].find(&format!("</{name}>"))?;
    Some(&text[start..start + len])
}

/// A notification's status in the payload's vocabulary: a run its parent
/// stopped (`killed`) reads `cancelled` (docs/behaviour.md §3.4).
pub(crate) fn completion_status(status: &str) -> &str {
    match status {
        "killed" | "stopped" => "cancelled",
        other => other,
    }
}

/// Why a run failed, from its notification's summary (`Agent "x" failed:
/// <reason>`): the reason, else the whole summary.
fn failure_reason(summary: &str) -> &str {
    summary
        .split_once(" failed: ")
        .map_or(summary, |(_, reason)| reason.trim())
}

/// Text with the XML escapes a notification's elements carry (`&lt;`,
/// `&gt;`, `&quot;`, `&apos;`, `&#39;`, `&amp;`) read back.
fn unescape_xml(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Drops the line break the XML layout puts right inside a tag.
fn trim_one_newline(s: &str) -> &str {
    let s = s.strip_prefix('\n').unwrap_or(s);
    s.strip_suffix('\n').unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_run_reads_cancelled_and_a_failed_one_keeps_its_reason() {
        assert_eq!(completion_status("killed"), "cancelled");
        assert_eq!(completion_status("failed"), "failed");
        assert_eq!(
            failure_reason(
                "Agent \"List open TODOs\" failed: Agent terminated early due to an API error: 500"
            ),
            "Agent terminated early due to an API error: 500"
        );
        assert_eq!(failure_reason("it broke"), "it broke");
    }

    #[test]
    fn a_failed_runs_thrown_error_reads_as_its_reason() {
        let dump = "Error: Unhandled error. ({\n  subagentId: 'planner-call_9y',\n  error: 'Overloaded',\n  timestamp: 1796394210271\n})";
        assert_eq!(error_of(dump), Some("Overloaded"));
        assert_eq!(error_of("Could not read CHANGELOG.md"), None);
        let body = format!(
            "<status>failed</status><result>{}</result>",
            dump.replace('\'', "&apos;")
        );
        assert_eq!(Completion::parse(&body).result, "Overloaded");
    }

    #[test]
    fn a_notifications_escaped_text_reads_back() {
        assert_eq!(
            unescape_xml("Result&lt;Vec&lt;Token&gt;, E&gt; &amp;lt; &quot;x&quot;"),
            "Result<Vec<Token>, E> &lt; \"x\""
        );
    }

    #[test]
    fn notification_tags_are_read() {
        let text = "<task-notification>\n<task-id>a9</task-id>\n<result>\nline 1\nline 2\n</result>\n</task-notification>";
        let body = tag(text, "task-notification").unwrap();
        assert_eq!(tag(body, "task-id"), Some("a9"));
        assert_eq!(
            tag(body, "result").map(trim_one_newline),
            Some("line 1\nline 2")
        );
        assert_eq!(tag(body, "status"), None);
    }
}
