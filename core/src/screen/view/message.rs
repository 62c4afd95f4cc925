//! View-models for plain transcript rows (docs/behaviour.md §4): what each message kind
//! shows, read leniently from the message and its metadata.

use crate::model::message::{Author, Message, MessageType};
use crate::model::status::{left_unfinished, message_run_state, RunState};
use crate::screen::view::format::count_label;
use crate::screen::view::lifecycle::INTERRUPTED_TEXT;
use serde_json::Value;

/// Thinking longer than this (or with a newline) starts collapsed.
pub const THINKING_INLINE_MAX_CHARS: usize = 100;

/// One todo entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TodoItem {
    pub text: String,
    pub done: bool,
    /// `pending`, `in_progress`, `completed`, … as given.
    pub status: String,
}

/// Which kind of request a request row shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestKind {
    Permission,
    Clarification,
}

impl RequestKind {
    /// The request row's heading.
    pub fn label(self) -> &'static str {
        match self {
            RequestKind::Permission => "Permission requested",
            RequestKind::Clarification => "Question",
        }
    }
}

/// Who a text bubble is from: `You` or `Agent`.
pub fn author_label(author: Author) -> &'static str {
    match author {
        Author::User => "You",
        Author::Agent => "Agent",
    }
}

/// The summary of a closed tool output: `output · 1 line` / `output · N lines`.
pub fn output_label(text: &str) -> String {
    let lines = text.lines().count() as u64;
    format!("output · {}", count_label(lines, "line", "lines"))
}

/// A non-zero exit code is shown as a failure.
pub fn exit_code_failed(code: i64) -> bool {
    code != 0
}

/// What a plain row renders.
#[derive(Clone, Debug, PartialEq)]
pub enum MessageView {
    /// User or agent text: markdown where a single newline is a line break.
    Text { author: Author, markdown: String },
    /// Thinking; `collapsed` when long. Empty thinking renders nothing.
    Thinking { text: String, collapsed: bool },
    /// A file read: path and line range.
    Read {
        tool: ToolHead,
        path: String,
        range: Option<String>,
        output: Option<String>,
    },
    /// A file edit: path and diff.
    Edit {
        tool: ToolHead,
        path: String,
        diff: Option<String>,
    },
    /// A shell command: command, exit code, output.
    Execute {
        tool: ToolHead,
        command: String,
        exit_code: Option<i64>,
        output: Option<String>,
    },
    /// A search: query and hit count.
    Search {
        tool: ToolHead,
        query: String,
        hits: Option<String>,
    },
    /// Any other tool call: title, status, output.
    Tool {
        tool: ToolHead,
        output: Option<String>,
    },
    /// A todo list.
    Todo { items: Vec<TodoItem> },
    /// A permission or clarification request, read-only.
    Request {
        kind: RequestKind,
        question: String,
        state: String,
        options: Vec<String>,
    },
    /// A status, progress or error line.
    Status { text: String, is_error: bool },
    /// What happened to the session besides conversation (docs/behaviour.md §4): a
    /// quiet row (`Conversation compacted · manual`, `/compact`, `Resumed
    /// · …`, `3 retries · 529 overloaded`), expandable to its `detail` (a
    /// compaction's summary, a command's output) when it has one.
    SessionEvent {
        event: String,
        text: String,
        detail: Option<String>,
    },
    /// A message of a type this version does not know: its text and raw JSON.
    Unknown { type_name: String, text: String },
}

/// The head line shared by every tool row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolHead {
    pub title: String,
    pub state: RunState,
    /// Left running when a file nobody writes any more ends (docs/behaviour.md §8):
    /// it reads `interrupted · no result recorded`, without a spinner.
    pub interrupted: bool,
    /// Left `pending` or `in_progress` (`status::left_unfinished`): settled
    /// once its turn ends in a live source, interrupted in a still one.
    pub unfinished: bool,
}

impl ToolHead {
    /// Whether its spinner shows: running, and not cut off by the end of a
    /// still file.
    pub fn spins(&self) -> bool {
        self.state.is_running() && !self.interrupted
    }

    /// Its state's stable name, for `data-state`: `interrupted` when cut off.
    pub fn state_name(&self) -> &'static str {
        if self.interrupted {
            "interrupted"
        } else {
            self.state.as_str()
        }
    }

    /// The word shown next to its icon (never colour alone).
    pub fn state_text(&self) -> &'static str {
        if self.interrupted {
            INTERRUPTED_TEXT
        } else {
            self.state.label()
        }
    }
}

impl MessageView {
    /// The same row in a source nobody writes any more (docs/behaviour.md §8): a tool
    /// call left running, or left pending or in progress with no result,
    /// reads interrupted, judged from the file's newest record (it ends
    /// before the call reported back), and never spins. One left pending
    /// with a result is settled (docs/behaviour.md §3.4).
    pub fn in_still_source(mut self) -> MessageView {
        let has_result = self.shows_result();
        if let Some(tool) = self.tool_head_mut() {
            tool.interrupted = tool.state.is_running() || (tool.unfinished && !has_result);
        }
        self
    }

    /// Whether a tool row shows what its call returned.
    fn shows_result(&self) -> bool {
        match self {
            MessageView::Read { output, .. } | MessageView::Tool { output, .. } => output.is_some(),
            MessageView::Execute {
                exit_code, output, ..
            } => exit_code.is_some() || output.is_some(),
            MessageView::Search { hits, .. } => hits.is_some(),
            _ => false,
        }
    }

    /// The tool head of a tool row.
    fn tool_head_mut(&mut self) -> Option<&mut ToolHead> {
        match self {
            MessageView::Read { tool, .. }
            | MessageView::Edit { tool, .. }
            | MessageView::Execute { tool, .. }
            | MessageView::Search { tool, .. }
            | MessageView::Tool { tool, .. } => Some(tool),
            _ => None,
        }
    }

    /// The view-model of one message; `turn_active` says whether its turn is running.
    pub fn of(message: &Message, turn_active: bool) -> MessageView {
        let meta = &message.metadata;
        let payload = meta.kind_payload().unwrap_or(&Value::Null);
        let head = || ToolHead {
            title: tool_head_title(message),
            state: message_run_state(message, turn_active),
            interrupted: false,
            unfinished: left_unfinished(message),
        };
        match &message.kind {
            MessageType::Message | MessageType::Content => MessageView::Text {
                author: message.author,
                markdown: message.content.clone(),
            },
            MessageType::Thinking => {
                let text = meta
                    .raw_str("thinking")
                    .filter(|t| !t.trim().is_empty())
                    .unwrap_or(&message.content)
                    .to_string();
                let collapsed =
                    text.contains('\n') || text.chars().count() > THINKING_INLINE_MAX_CHARS;
                MessageView::Thinking { text, collapsed }
            }
            MessageType::ToolRead => MessageView::Read {
                path: first_str(payload, &["file_path", "path"]).unwrap_or_default(),
                range: read_range(payload),
                output: payload
                    .get("output")
                    .and_then(|o| o.get("content"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or_else(|| generic_output(message)),
                tool: head(),
            },
            MessageType::ToolEdit => MessageView::Edit {
                path: first_str(payload, &["file_path", "path"]).unwrap_or_default(),
                diff: edit_diff(payload),
                tool: head(),
            },
            MessageType::ToolExecute => MessageView::Execute {
                command: first_str(payload, &["command"])
                    .unwrap_or_else(|| message.content.clone()),
                exit_code: payload
                    .get("output")
                    .and_then(|o| o.get("exit_code"))
                    .and_then(Value::as_i64),
                output: shell_output(payload).or_else(|| generic_output(message)),
                tool: head(),
            },
            MessageType::ToolSearch => MessageView::Search {
                query: first_str(payload, &["query", "pattern"])
                    .unwrap_or_else(|| message.content.clone()),
                hits: search_hits(payload),
                tool: head(),
            },
            MessageType::ToolCall => MessageView::Tool {
                output: generic_output(message),
                tool: head(),
            },
            MessageType::Todo => MessageView::Todo {
                items: todo_items(meta.raw.get("todos")),
            },
            MessageType::PermissionRequest | MessageType::ClarificationRequest => {
                request_view(message)
            }
            MessageType::Status if meta.raw_str("event").is_some() => MessageView::SessionEvent {
                event: meta.raw_str("event").unwrap_or_default().to_string(),
                text: message.content.clone(),
                detail: meta
                    .raw_str("detail")
                    .filter(|d| !d.trim().is_empty())
                    .map(str::to_string),
            },
            MessageType::Status | MessageType::Progress | MessageType::Log => MessageView::Status {
                text: message.content.clone(),
                is_error: false,
            },
            MessageType::Error => MessageView::Status {
                text: message.content.clone(),
                is_error: true,
            },
            MessageType::ScriptExecution | MessageType::AgentPlan | MessageType::Other(_) => {
                MessageView::Unknown {
                    type_name: message.kind.as_str().to_string(),
                    text: message.content.clone(),
                }
            }
        }
    }
}

/// What a tool row's head says when the message has no title (docs/protocol.md
/// §1.2 row 10).
const UNTITLED_TOOL: &str = "Tool call";

/// A tool's head title: the message's one title rule ([`Message::title`]),
/// else [`UNTITLED_TOOL`].
fn tool_head_title(message: &Message) -> String {
    let title = message.title();
    if title.is_empty() {
        UNTITLED_TOOL.to_string()
    } else {
        title
    }
}

fn first_str(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// `lines 10–30`, `from line 10`, or `212 lines` from a read payload.
fn read_range(p: &Value) -> Option<String> {
    let offset = p.get("offset").and_then(Value::as_u64);
    let limit = p.get("limit").and_then(Value::as_u64);
    match (offset, limit) {
        (Some(o), Some(l)) => Some(format!(
            "lines {}–{}",
            o.max(1),
            o.max(1) + l.saturating_sub(1)
        )),
        (Some(o), None) => Some(format!("from line {o}")),
        (None, Some(l)) => Some(format!("first {l} lines")),
        (None, None) => p
            .get("output")
            .and_then(|o| o.get("line_count"))
            .and_then(Value::as_u64)
            .map(|n| count_label(n, "line", "lines")),
    }
}

/// The diffs of an edit's mutations, joined; or old → new content as a diff.
fn edit_diff(p: &Value) -> Option<String> {
    let mutations = p.get("mutations").and_then(Value::as_array)?;
    let diffs: Vec<String> = mutations
        .iter()
        .filter_map(|m| {
            if let Some(d) = m.get("diff").and_then(Value::as_str) {
                return Some(d.to_string());
            }
            let old = m.get("old_content").and_then(Value::as_str).unwrap_or("");
            let new = m.get("new_content").and_then(Value::as_str)?;
            let mut d = String::new();
            old.lines().for_each(|l| d.push_str(&format!("-{l}\n")));
            new.lines().for_each(|l| d.push_str(&format!("+{l}\n")));
            Some(d)
        })
        .collect();
    (!diffs.is_empty()).then(|| diffs.join("\n"))
}

/// stdout and stderr when the payload carries them.
fn shell_output(p: &Value) -> Option<String> {
    let out = p.get("output")?;
    let parts: Vec<&str> = ["stdout", "stderr"]
        .iter()
        .filter_map(|k| out.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// `3 files` / `1 file` from a search payload.
fn search_hits(p: &Value) -> Option<String> {
    let out = p.get("output")?;
    let n = out.get("file_count").and_then(Value::as_u64).or_else(|| {
        out.get("files")
            .and_then(Value::as_array)
            .map(|f| f.len() as u64)
    })?;
    Some(count_label(n, "file", "files"))
}

/// Output of a generic tool: `http_request.response`, `generic.output`, `metadata.result`.
fn generic_output(message: &Message) -> Option<String> {
    let raw = &message.metadata.raw;
    let normalized = raw.get("normalized");
    let candidates = [
        normalized
            .and_then(|n| n.get("http_request"))
            .and_then(|h| h.get("response")),
        normalized
            .and_then(|n| n.get("generic"))
            .and_then(|g| g.get("output")),
        raw.get("result"),
    ];
    candidates.into_iter().flatten().find_map(text_of)
}

/// A JSON value as display text: strings verbatim, other values pretty-printed.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other => serde_json::to_string_pretty(other).ok(),
    }
}

/// Todo entries from objects `{text|content, done, status}` or plain strings;
/// malformed entries and empty texts are skipped.
fn todo_items(todos: Option<&Value>) -> Vec<TodoItem> {
    let Some(list) = todos.and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|t| {
            let (text, status, done) = match t {
                Value::String(s) => (s.clone(), String::new(), false),
                Value::Object(_) => {
                    let text = first_str(t, &["text", "content"])?;
                    let status = first_str(t, &["status"]).unwrap_or_default();
                    let done = t.get("done").and_then(Value::as_bool).unwrap_or(false)
                        || status == "completed";
                    (text, status, done)
                }
                _ => return None,
            };
            (!text.trim().is_empty()).then_some(TodoItem { text, done, status })
        })
        .collect()
}

fn request_view(message: &Message) -> MessageView {
    let raw = &message.metadata.raw;
    let kind = if message.kind == MessageType::PermissionRequest {
        RequestKind::Permission
    } else {
        RequestKind::Clarification
    };
    let details = raw.get("action_details");
    let question = [
        details.and_then(|d| first_str(d, &["description", "command", "path"])),
        first_str(raw, &["question", "title"]),
        Some(message.content.clone()).filter(|c| !c.trim().is_empty()),
    ]
    .into_iter()
    .flatten()
    .next()
    .unwrap_or_else(|| "Request".to_string());
    let options = raw
        .get("options")
        .and_then(Value::as_array)
        .map(|o| {
            o.iter()
                .filter_map(|opt| match opt {
                    Value::String(s) => Some(s.clone()),
                    other => first_str(other, &["name", "label", "option_id"]),
                })
                .collect()
        })
        .unwrap_or_default();
    MessageView::Request {
        kind,
        question,
        state: first_str(raw, &["status"]).unwrap_or_else(|| "pending".to_string()),
        options,
    }
}

#[cfg(test)]
mod tests;
