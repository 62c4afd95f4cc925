//! `<task-notification>`: how Claude Code and qwen-code tell an agent that a
//! background run finished (task id, tool-use id, status, summary, result,
//! usage), in a user record, a queue record or an attachment.

use super::super::build::{Row, RowKind, Stamp};
use super::super::subagent_fold::Trailer;
use super::super::tool::ToolStatus;
use super::{Body, Fold, Item, Owner};

impl Fold {
    /// A `<task-notification>`: a background run finished. One for a known
    /// subagent settles its card (SPEC.md §1); any other (a background
    /// command's) is one status line. The same notification may be written
    /// more than once (a user record and its `queue-operation` twin,
    /// dialects.md §7 Claude Code 6) and is read once.
    pub(crate) fn notification(&mut self, text: &str, stamp: &Stamp) {
        let Some(body) = tag(text, "task-notification") else {
            return;
        };
        if !self.notifications.insert(body.trim().to_string()) {
            return;
        }
        let tool_use_id = tag(body, "tool-use-id").map(str::trim).unwrap_or("");
        let task_id = tag(body, "task-id").map(str::trim).unwrap_or("");
        let status = completion_status(tag(body, "status").map(str::trim).unwrap_or(""));
        let summary = tag(body, "summary")
            .map(|s| unescape_xml(s.trim()))
            .unwrap_or_default();
        let result = match tag(body, "result") {
            Some(result) => unescape_xml(trim_one_newline(result)),
            None if status == "failed" => failure_reason(&summary).to_string(),
            None => String::new(),
        };
        let usage = tag(body, "usage")
            .map(Trailer::parse_usage)
            .unwrap_or_default();
        let is_task = |id: &str| matches!(self.items.get(id), Some(Item { body: Body::Tool(t), .. }) if t.subagent.is_some());
        let task = if !tool_use_id.is_empty() && is_task(tool_use_id) {
            Some(tool_use_id.to_string())
        } else {
            self.task_of_agent.get(task_id).cloned()
        };
        let found = task.as_deref().and_then(|id| match self.items.get_mut(id) {
            Some(Item {
                body: Body::Tool(t),
                ..
            }) => Some(t),
            _ => None,
        });
        match found {
            Some(tool) => {
                if let Some(s) = ToolStatus::parse(status) {
                    tool.call.status.advance(s);
                }
                if let Some(fold) = &mut tool.subagent {
                    fold.apply_completion(status, &result, usage);
                }
            }
            None => {
                let line = if summary.is_empty() {
                    format!("Background task {task_id} {status}")
                } else {
                    summary
                };
                self.push_row(
                    &Owner::Main,
                    Row::new("", RowKind::Status, line.trim(), stamp),
                );
            }
        }
    }
}

/// The text between `<name>` and the next `</name>`.
fn tag<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let start = text.find(&open)? + open.len();
    let len = text[start..].find(&format!("</{name}>"))?;
    Some(&text[start..start + len])
}

/// A notification's status in the payload's vocabulary: a run its parent
/// stopped (`killed`) reads `cancelled` (SPEC.md §3.4).
fn completion_status(status: &str) -> &str {
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
