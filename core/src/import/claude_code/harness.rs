//! Harness text: `<task-notification>` records and the markup of command
//! and status lines.

use super::super::build::{Row, RowKind, Stamp};
use super::super::subagent_fold::Trailer;
use super::super::tool::ToolStatus;
use super::fold::{Body, Fold, Item, Owner};

impl Fold {
    /// A `<task-notification>`: a background run finished. One for a known
    /// Task settles its card; any other (a background command's) is one
    /// status line. Each is written twice (a user record and its
    /// `queue-operation` twin) and read once (dialects.md §7 Claude Code 6).
    pub(super) fn notification(&mut self, text: &str, stamp: &Stamp) {
        let Some(body) = tag(text, "task-notification") else {
            return;
        };
        if !self.notifications.insert(body.trim().to_string()) {
            return;
        }
        let tool_use_id = tag(body, "tool-use-id").map(str::trim).unwrap_or("");
        let task_id = tag(body, "task-id").map(str::trim).unwrap_or("");
        let status = tag(body, "status").map(str::trim).unwrap_or("");
        let result = tag(body, "result").map(trim_one_newline).unwrap_or("");
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
                    fold.apply_completion(status, result, usage);
                }
            }
            None => {
                let summary = tag(body, "summary").map(str::trim).unwrap_or("");
                let line = if summary.is_empty() {
                    format!("Background task {task_id} {status}")
                } else {
                    summary.to_string()
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

/// Drops the line break the XML layout puts right inside a tag.
fn trim_one_newline(s: &str) -> &str {
    let s = s.strip_prefix('\n').unwrap_or(s);
    s.strip_suffix('\n').unwrap_or(s)
}

/// Harness text without its `<tag>` markup, one line per non-empty part.
pub(super) fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_len = after
            .strip_prefix('/')
            .unwrap_or(after)
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(0);
        let slash = usize::from(after.starts_with('/'));
        if name_len > 0 && after[slash + name_len..].starts_with('>') {
            out.push('\n');
            rest = &after[slash + name_len + 1..];
        } else {
            out.push('<');
            rest = after;
        }
    }
    out.push_str(rest);
    out.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_markup_is_stripped_for_status_rows() {
        let text = "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>";
        assert_eq!(strip_tags(text), "/model\nmodel");
        assert_eq!(strip_tags("a < b and <c"), "a < b and <c");
    }

    #[test]
    pub(super) fn notification_tags_are_read() {
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
