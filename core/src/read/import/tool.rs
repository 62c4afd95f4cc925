//! Tool calls in kandev's normalized shape (docs/protocol.md §1.2–1.3),
//! shared by the importers: what kind a tool is, its message type, its status
//! vocabulary, and the metadata a renderer reads.
//!
//! A tool message has `content` = `metadata.title`, and metadata
//! `{tool_call_id, parent_tool_call_id?, tool_name, title, status, args,
//! result?, normalized: {kind, <kind>: {…}}}` where `result` is the tool's
//! output text.

use super::build::{message, Stamp};
use crate::model::message::{Author, Message, MessageType, SubagentTask};
use serde_json::{json, Map, Value};

/// What a tool does; decides the message type and the normalized payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ToolKind {
    Read,
    Edit,
    Execute,
    Search,
    Todo,
    Subagent,
    Generic,
}

impl ToolKind {
    /// From an ACP `kind` (`read edit delete move search execute think fetch switch_mode other`).
    pub(crate) fn from_acp_kind(kind: &str) -> ToolKind {
        match kind {
            "read" => ToolKind::Read,
            "edit" => ToolKind::Edit,
            "execute" => ToolKind::Execute,
            "search" => ToolKind::Search,
            _ => ToolKind::Generic,
        }
    }

    /// From a tool's name (Claude Code and gadget spellings, any case).
    /// Subagent tools are recognised by each importer, not here.
    pub(crate) fn from_tool_name(name: &str) -> ToolKind {
        match name.to_ascii_lowercase().as_str() {
            "read" | "read_file" | "file_read" | "readfile" | "notebookread" | "view" => {
                ToolKind::Read
            }
            "edit" | "multiedit" | "write" | "notebookedit" | "edit_file" | "write_file"
            | "file_edit" | "file_write" | "apply_patch" | "str_replace" => ToolKind::Edit,
            "bash" | "shell" | "run_command" | "run_shell_command" | "exec" | "execute"
            | "terminal" | "exec_command" | "shell_command" | "local_shell" => ToolKind::Execute,
            "grep" | "glob" | "search" | "code_search" | "search_files" | "find" | "ripgrep" => {
                ToolKind::Search
            }
            "todowrite" => ToolKind::Todo,
            _ => ToolKind::Generic,
        }
    }

    fn message_type(self) -> MessageType {
        match self {
            ToolKind::Read => MessageType::ToolRead,
            ToolKind::Edit => MessageType::ToolEdit,
            ToolKind::Execute => MessageType::ToolExecute,
            ToolKind::Search => MessageType::ToolSearch,
            ToolKind::Todo => MessageType::Todo,
            ToolKind::Subagent | ToolKind::Generic => MessageType::ToolCall,
        }
    }

    fn normalized_kind(self) -> &'static str {
        match self {
            ToolKind::Read => "read_file",
            ToolKind::Edit => "modify_file",
            ToolKind::Execute => "shell_exec",
            ToolKind::Search => "code_search",
            ToolKind::Todo => "manage_todos",
            ToolKind::Subagent => "subagent_task",
            ToolKind::Generic => "generic",
        }
    }
}

/// A tool call's state in kandev's vocabulary (`metadata.status`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ToolStatus {
    #[default]
    Pending,
    InProgress,
    Complete,
    Error,
    Cancelled,
}

impl ToolStatus {
    /// Reads any source spelling; `None` for null, absent or unknown values.
    pub(crate) fn parse(s: &str) -> Option<ToolStatus> {
        match s.to_ascii_lowercase().as_str() {
            "pending" => Some(ToolStatus::Pending),
            "in_progress" | "running" | "started" => Some(ToolStatus::InProgress),
            "completed" | "complete" | "success" | "succeeded" => Some(ToolStatus::Complete),
            "failed" | "error" => Some(ToolStatus::Error),
            "cancelled" | "canceled" | "killed" => Some(ToolStatus::Cancelled),
            _ => None,
        }
    }

    pub(crate) fn is_terminal(self) -> bool {
        matches!(
            self,
            ToolStatus::Complete | ToolStatus::Error | ToolStatus::Cancelled
        )
    }

    /// Applies a later reported status; a terminal status is kept against a
    /// later non-terminal one (docs/formats.md §1.4).
    pub(crate) fn advance(&mut self, later: ToolStatus) {
        if !self.is_terminal() || later.is_terminal() {
            *self = later;
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Pending => "pending",
            ToolStatus::InProgress => "in_progress",
            ToolStatus::Complete => "complete",
            ToolStatus::Error => "error",
            ToolStatus::Cancelled => "cancelled",
        }
    }
}

/// One file change of an edit.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FileDiff {
    pub path: String,
    /// `None` when the file is created.
    pub old_text: Option<String>,
    pub new_text: String,
}

/// Everything an importer knows about one tool call, ready to become a message.
#[derive(Clone, Debug, Default)]
pub(crate) struct ToolCall {
    pub id: String,
    pub parent: Option<String>,
    pub name: String,
    /// Empty means "derive from name and input".
    pub title: String,
    pub kind: Option<ToolKind>,
    pub status: ToolStatus,
    pub input: Value,
    /// The output text, when any arrived.
    pub output: Option<String>,
    pub exit_code: Option<i64>,
    /// Explicit diffs (ACP); otherwise they are derived from the input.
    pub diffs: Vec<FileDiff>,
    /// A file path known from elsewhere (ACP `locations`).
    pub path_hint: Option<String>,
    pub subagent: Option<SubagentTask>,
    /// More metadata keys.
    pub extra: Map<String, Value>,
}

impl ToolCall {
    /// The tool call as a model message.
    pub(crate) fn to_message(&self, stamp: &Stamp) -> Message {
        let kind = self.kind.unwrap_or(ToolKind::Generic);
        let title = if self.title.trim().is_empty() {
            default_title(&self.name, kind, &self.input)
        } else {
            self.title.clone()
        };
        let mut meta = self.extra.clone();
        meta.insert("tool_call_id".into(), self.id.clone().into());
        if let Some(parent) = &self.parent {
            meta.insert("parent_tool_call_id".into(), parent.clone().into());
        }
        if !self.name.is_empty() {
            meta.insert("tool_name".into(), self.name.clone().into());
        }
        meta.insert("title".into(), title.clone().into());
        meta.insert("status".into(), self.status.as_str().into());
        if !self.input.is_null() {
            meta.insert("args".into(), self.input.clone());
        }
        if let Some(output) = &self.output {
            meta.insert("result".into(), output.clone().into());
        }
        if kind == ToolKind::Todo {
            let todos = super::build::todo_entries(self.input.get("todos").unwrap_or(&Value::Null));
            meta.insert("todos".into(), Value::Array(todos));
        }
        let mut normalized = Map::new();
        normalized.insert("kind".into(), kind.normalized_kind().into());
        normalized.insert(kind.normalized_kind().into(), self.payload(kind));
        meta.insert("normalized".into(), Value::Object(normalized));
        message(
            &self.id,
            stamp,
            Author::Agent,
            kind.message_type(),
            &title,
            meta,
        )
    }

    /// The `normalized.<kind>` payload.
    fn payload(&self, kind: ToolKind) -> Value {
        let input = &self.input;
        let mut p = Map::new();
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                p.insert(k.into(), v);
            }
        };
        match kind {
            ToolKind::Read => {
                put("file_path", self.file_path().map(Value::from));
                put(
                    "offset",
                    first_value(input, &["offset", "startLine", "start_line"]),
                );
                put("limit", first_value(input, &["limit"]));
                let lines = self.output.as_deref().map(|o| o.lines().count());
                put("output", lines.map(|n| json!({"line_count": n})));
            }
            ToolKind::Edit => {
                put("file_path", self.file_path().map(Value::from));
                let diffs = if self.diffs.is_empty() {
                    diffs_from_input(input)
                } else {
                    self.diffs.clone()
                };
                put(
                    "mutations",
                    Some(Value::Array(diffs.iter().map(mutation).collect())),
                );
            }
            ToolKind::Execute => {
                put("command", command_text(input).map(Value::from));
                put("description", first_value(input, &["description"]));
                put(
                    "work_dir",
                    first_value(input, &["cwd", "work_dir", "workdir"]),
                );
                put("background", first_value(input, &["run_in_background"]));
                let mut out = Map::new();
                if let Some(code) = self.inferred_exit_code() {
                    out.insert("exit_code".into(), code.into());
                }
                let has_output = self.output.as_deref().is_some_and(|o| !o.is_empty());
                out.insert("has_output".into(), has_output.into());
                put("output", Some(Value::Object(out)));
            }
            ToolKind::Search => {
                put("pattern", first_value(input, &["pattern", "regex"]));
                put("query", first_value(input, &["query", "pattern", "regex"]));
                put("path", first_value(input, &["path", "directory", "dir"]));
                put("glob", first_value(input, &["glob", "include"]));
            }
            ToolKind::Todo | ToolKind::Generic => {
                put("name", Some(self.name.clone().into()));
                put("input", Some(input.clone()));
            }
            ToolKind::Subagent => {
                return self.subagent.clone().unwrap_or_default().to_value();
            }
        }
        Value::Object(p)
    }

    /// The exit code as reported; else the `Exit code N` a failure output
    /// starts with; else 0 for a command that completed without error.
    fn inferred_exit_code(&self) -> Option<i64> {
        self.exit_code
            .or_else(|| self.output.as_deref().and_then(exit_code_in))
            .or((self.status == ToolStatus::Complete).then_some(0))
    }

    fn file_path(&self) -> Option<String> {
        first_str(
            &self.input,
            &["file_path", "filePath", "path", "notebook_path", "file"],
        )
        .map(str::to_string)
        .or_else(|| self.path_hint.clone())
    }
}

/// The exit code a Claude-style failure output starts with (`Exit code 1`).
fn exit_code_in(output: &str) -> Option<i64> {
    let first = output.trim_start().lines().next()?;
    first.strip_prefix("Exit code ")?.trim().parse().ok()
}

/// A title from the tool's name and input when the source gives none.
fn default_title(name: &str, kind: ToolKind, input: &Value) -> String {
    let path = first_str(input, &["file_path", "filePath", "path", "notebook_path"]);
    let verb = if name.is_empty() { "Tool call" } else { name };
    match kind {
        ToolKind::Read | ToolKind::Edit => match path {
            Some(p) => format!("{verb} {p}"),
            None => verb.to_string(),
        },
        ToolKind::Execute => command_text(input)
            .and_then(|c| c.lines().next().map(str::to_string))
            .unwrap_or_else(|| verb.to_string()),
        ToolKind::Search => match first_str(input, &["pattern", "query", "regex"]) {
            Some(q) => format!("{verb} \"{q}\""),
            None => verb.to_string(),
        },
        ToolKind::Subagent => first_str(input, &["description"])
            .filter(|d| !d.trim().is_empty())
            .unwrap_or(verb)
            .to_string(),
        ToolKind::Todo => "Update todos".to_string(),
        ToolKind::Generic => verb.to_string(),
    }
}

/// The shell command of an execute tool: a string, or an argv array joined by spaces.
fn command_text(input: &Value) -> Option<String> {
    match input.get("command").or_else(|| input.get("cmd"))? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

/// Edits described by a Claude-style input: `Edit` (`old_string`/`new_string`),
/// `MultiEdit` (`edits[]`) or `Write` (`content`).
fn diffs_from_input(input: &Value) -> Vec<FileDiff> {
    let path = first_str(input, &["file_path", "filePath", "path"])
        .unwrap_or("")
        .to_string();
    let pair = |v: &Value| {
        Some(FileDiff {
            path: path.clone(),
            old_text: Some(first_str(v, &["old_string", "oldText", "old_str"])?.to_string()),
            new_text: first_str(v, &["new_string", "newText", "new_str"])?.to_string(),
        })
    };
    if let Some(edits) = input.get("edits").and_then(Value::as_array) {
        return edits.iter().filter_map(pair).collect();
    }
    if let Some(d) = pair(input) {
        return vec![d];
    }
    match first_str(input, &["content"]) {
        Some(content) if !path.is_empty() => vec![FileDiff {
            path,
            old_text: None,
            new_text: content.to_string(),
        }],
        _ => Vec::new(),
    }
}

/// One `modify_file` mutation: `patch` (old → new) or `create`.
fn mutation(d: &FileDiff) -> Value {
    let mut m = Map::new();
    m.insert(
        "type".into(),
        if d.old_text.is_some() {
            "patch"
        } else {
            "create"
        }
        .into(),
    );
    m.insert("file_path".into(), d.path.clone().into());
    if let Some(old) = &d.old_text {
        m.insert("old_content".into(), old.clone().into());
    }
    m.insert("new_content".into(), d.new_text.clone().into());
    m.insert(
        "diff".into(),
        unified_diff(&d.path, d.old_text.as_deref().unwrap_or(""), &d.new_text).into(),
    );
    Value::Object(m)
}

/// A unified diff of one hunk: the common leading and trailing lines are
/// context, everything between is removed and added. Linear time; not a
/// minimal diff, which edits this small do not need.
fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut out = format!(
        "--- {path}\n+++ {path}\n@@ -{},{} +{},{} @@\n",
        usize::from(!a.is_empty()),
        a.len(),
        usize::from(!b.is_empty()),
        b.len()
    );
    for line in &a[..prefix] {
        out.push_str(&format!(" {line}\n"));
    }
    for line in &a[prefix..a.len() - suffix] {
        out.push_str(&format!("-{line}\n"));
    }
    for line in &b[prefix..b.len() - suffix] {
        out.push_str(&format!("+{line}\n"));
    }
    for line in &a[a.len() - suffix..] {
        out.push_str(&format!(" {line}\n"));
    }
    out
}

/// The first of `keys` that holds a string.
fn first_str<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str))
}

/// The first of `keys` that is present and not null.
fn first_value(v: &Value, keys: &[&str]) -> Option<Value> {
    keys.iter()
        .find_map(|k| v.get(*k).filter(|x| !x.is_null()).cloned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_map_to_kandev_message_types() {
        for (name, ty) in [
            ("Read", "tool_read"),
            ("read_file", "tool_read"),
            ("Edit", "tool_edit"),
            ("Write", "tool_edit"),
            ("Bash", "tool_execute"),
            ("run_command", "tool_execute"),
            ("Grep", "tool_search"),
            ("grep", "tool_search"),
            ("TodoWrite", "todo"),
            ("WebFetch", "tool_call"),
        ] {
            assert_eq!(
                ToolKind::from_tool_name(name).message_type().as_str(),
                ty,
                "{name}"
            );
        }
    }

    #[test]
    fn terminal_status_survives_a_late_non_terminal_one() {
        let mut s = ToolStatus::Pending;
        s.advance(ToolStatus::Complete);
        s.advance(ToolStatus::InProgress);
        assert_eq!(s, ToolStatus::Complete);
        s.advance(ToolStatus::Error);
        assert_eq!(s, ToolStatus::Error);
    }

    #[test]
    fn an_edit_input_becomes_a_patch_mutation_with_a_diff() {
        let call = ToolCall {
            id: "t".into(),
            name: "Edit".into(),
            kind: Some(ToolKind::Edit),
            input: json!({"file_path": "/a.go", "old_string": "x\ny\nz", "new_string": "x\nY\nz"}),
            ..ToolCall::default()
        };
        let m = call.to_message(&Stamp::default());
        assert_eq!(m.kind, MessageType::ToolEdit);
        assert_eq!(m.content, "Edit /a.go");
        let edit = m.metadata.kind_payload().unwrap();
        assert_eq!(edit["file_path"], "/a.go");
        assert_eq!(edit["mutations"][0]["type"], "patch");
        assert_eq!(
            edit["mutations"][0]["diff"],
            "--- /a.go\n+++ /a.go\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n"
        );
    }

    #[test]
    fn output_text_lives_in_metadata_result() {
        let call = ToolCall {
            id: "t".into(),
            name: "Bash".into(),
            kind: Some(ToolKind::Execute),
            status: ToolStatus::Error,
            input: json!({"command": "false"}),
            output: Some("Exit code 1\nboom".into()),
            ..ToolCall::default()
        };
        let m = call.to_message(&Stamp::default());
        assert_eq!(m.metadata.raw_str("result"), Some("Exit code 1\nboom"));
        assert_eq!(m.metadata.status.as_deref(), Some("error"));
        let shell = m.metadata.kind_payload().unwrap();
        assert_eq!(shell["command"], "false");
        assert_eq!(shell["output"]["exit_code"], 1);
    }
}
