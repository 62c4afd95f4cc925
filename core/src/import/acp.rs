//! ACP (Agent Client Protocol) frames: `session/update` notifications and the
//! `session/prompt` requests and responses around them (reference/dialects.md §1).
//!
//! Accepted line shapes, mixed freely, one JSON object per line:
//! a raw JSON-RPC message; a kandev raw debug-log line
//! (`{"protocol":"acp","data":{…}}`); a bare `SessionNotification`
//! (`{sessionId, update}`); a bare `update` (`{sessionUpdate, …}`).
//!
//! Folding:
//! - consecutive text or thought chunks of one scope (top level, or one
//!   subagent) merge into one row; a chunk of another kind, a tool call or a
//!   plan in that scope, or a new prompt ends the run; a chunk `messageId`
//!   change starts a new row;
//! - tool calls are upserted by `toolCallId` only (never by position or turn);
//!   an update for an unknown id creates the call; a terminal status survives
//!   a later non-terminal or absent one; empty `rawInput`, `content` or
//!   `locations` never blank earlier ones;
//! - a subagent is a tool call whose `_meta.claudeCode.toolName` is `Agent` or
//!   `Task` (payload rules in `subagent_fold`); a child is any frame whose
//!   `_meta.claudeCode.parentToolUseId` names it, and keeps that parent even
//!   when a later frame (the PostToolUse hook) omits it;
//! - each `session/prompt` request starts a turn (`turn-1`, `turn-2`, …) and
//!   becomes a user row; tool calls keep the turn they were first seen in; a
//!   response whose `stopReason` is not `end_turn` adds a status row, an error
//!   response an error row;
//! - a `session/request_permission` puts `metadata.permission =
//!   {options, status}` on its tool call, settled by the client's reply;
//! - `plan` frames become todo rows (each a full snapshot), `current_mode_update`
//!   a status row; other variants are ignored;
//! - a line that is not JSON, not an object, or not an ACP frame becomes an
//!   unreadable row in its position.

use super::build::{Row, RowKind, Stamp};
use super::fold::Ordered;
use super::jsonl::{self, Line};
use super::subagent_fold::{join_text_blocks, subagent_output, SubagentFold};
use super::tool::{FileDiff, ToolCall, ToolKind, ToolStatus};
use crate::event::Event;
use crate::model::{str_at, Message};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Turns ACP frames into events, one per folded message, in first-seen order.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    let mut fold = Fold::default();
    for line in jsonl::lines(text) {
        match line {
            Line::Object { value, raw } => {
                if fold.frame(&value, true) {
                    fold.frames += 1;
                } else {
                    fold.items.push_unreadable(raw, "not an ACP frame".into());
                }
            }
            Line::Unreadable { raw, error } => fold.items.push_unreadable(raw, error),
        }
    }
    if fold.frames == 0 {
        return Err("no ACP frames found (expected JSON-RPC session/update lines)".into());
    }
    Ok(fold.items.into_events(|item| Some(item.to_message())))
}

/// True when one of the first lines of `text` is an ACP frame.
pub fn looks_like(text: &str) -> bool {
    jsonl::leading_objects(text, 32).any(|v| is_frame(&v))
}

/// True when a parsed line has one of the accepted ACP shapes.
pub(crate) fn is_frame(v: &Value) -> bool {
    v.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        || v.get("protocol").and_then(Value::as_str) == Some("acp")
        || v.get("update")
            .and_then(|u| u.get("sessionUpdate"))
            .is_some_and(Value::is_string)
        || v.get("sessionUpdate").is_some_and(Value::is_string)
}

/// A folded row or tool call.
enum Item {
    Row(Box<Row>),
    Tool(Box<AcpTool>),
}

impl Item {
    fn to_message(&self) -> Message {
        match self {
            Item::Row(row) => row.to_message(),
            Item::Tool(tool) => tool.to_message(),
        }
    }
}

/// The text run currently open in one scope.
struct OpenRun {
    key: String,
    kind: RowKind,
    session: String,
    message_id: Option<String>,
}

#[derive(Default)]
struct Fold {
    items: Ordered<Item>,
    /// Readable ACP frames seen.
    frames: usize,
    rows: usize,
    turns: usize,
    turn: Option<String>,
    /// JSON-RPC id of a prompt request → its stamp (session and turn).
    prompt_turns: HashMap<String, Stamp>,
    /// JSON-RPC id of a permission request → its tool call id.
    permission_calls: HashMap<String, String>,
    /// Scope (a subagent's tool-call id, or "" for the top level) → open text run.
    open_runs: HashMap<String, OpenRun>,
}

impl Fold {
    /// Applies one line; false when it is not an ACP frame. `outer` allows one
    /// level of debug-log wrapping.
    fn frame(&mut self, v: &Value, outer: bool) -> bool {
        if v.get("protocol").and_then(Value::as_str) == Some("acp") {
            // A debug-log line: its `data` is a frame; other log events are ignorable.
            if let Some(data) = v.get("data").filter(|_| outer) {
                self.frame(data, false);
            }
            return true;
        }
        let id = v.get("id").and_then(rpc_id);
        if let Some(method) = v.get("method").and_then(Value::as_str) {
            let params = v.get("params").unwrap_or(&Value::Null);
            match method {
                "session/update" => self.notification(params),
                "session/prompt" => self.prompt(id, params),
                "session/request_permission" => self.permission_request(id, params),
                _ => {}
            }
            return true;
        }
        if v.get("result").is_some() || v.get("error").is_some() {
            if let Some(id) = &id {
                self.response(id, v);
            }
            return id.is_some() || v.get("jsonrpc").is_some();
        }
        if v.get("update").is_some_and(Value::is_object) {
            self.notification(v);
            return true;
        }
        if v.get("sessionUpdate").is_some_and(Value::is_string) {
            self.update("", v);
            return true;
        }
        false
    }

    fn stamp(&self, session: &str) -> Stamp {
        Stamp {
            session_id: session.to_string(),
            turn_id: self.turn.clone(),
            created_at: String::new(),
        }
    }

    fn push_row(&mut self, mut row: Row) -> String {
        self.rows += 1;
        row.id = format!("acp-{}", self.rows);
        let key = format!("row:{}", row.id);
        self.items.push_fresh(&key, Item::Row(Box::new(row)))
    }

    fn notification(&mut self, params: &Value) {
        let session = str_at(params, "sessionId");
        if let Some(update) = params.get("update").filter(|u| u.is_object()) {
            self.update(&session, update);
        }
    }

    fn update(&mut self, session: &str, u: &Value) {
        let parent = claude_meta(u, "parentToolUseId");
        match u.get("sessionUpdate").and_then(Value::as_str).unwrap_or("") {
            "agent_message_chunk" => self.chunk(RowKind::AgentText, session, u, parent),
            "agent_thought_chunk" => self.chunk(RowKind::Thinking, session, u, parent),
            "user_message_chunk" => self.chunk(RowKind::UserText, session, u, parent),
            "tool_call" | "tool_call_update" => {
                self.tool(session, u);
            }
            "plan" => {
                self.open_runs.remove(parent.as_deref().unwrap_or(""));
                let entries = super::build::todo_entries(u.get("entries").unwrap_or(&Value::Null));
                let mut row = Row::todo("", entries, &self.stamp(session));
                row.parent = parent;
                self.push_row(row);
            }
            "current_mode_update" => {
                let mode = str_at(u, "currentModeId");
                if !mode.is_empty() {
                    let row = Row::new(
                        "",
                        RowKind::Status,
                        &format!("Mode: {mode}"),
                        &self.stamp(session),
                    );
                    self.push_row(row);
                }
            }
            _ => {}
        }
    }

    fn chunk(&mut self, kind: RowKind, session: &str, u: &Value, parent: Option<String>) {
        let text = u.get("content").map(content_block_text).unwrap_or_default();
        let message_id = u
            .get("messageId")
            .and_then(Value::as_str)
            .map(str::to_string);
        let scope = parent.clone().unwrap_or_default();
        if let Some(run) = self.open_runs.get(&scope) {
            if run.kind == kind && run.session == session && run.message_id == message_id {
                if let Some(Item::Row(row)) = self.items.get_mut(&run.key) {
                    row.text.push_str(&text);
                    return;
                }
            }
        }
        if text.is_empty() {
            return;
        }
        let mut row = Row::new("", kind, &text, &self.stamp(session));
        row.parent = parent;
        let key = self.push_row(row);
        self.open_runs.insert(
            scope,
            OpenRun {
                key,
                kind,
                session: session.to_string(),
                message_id,
            },
        );
    }

    /// Upserts a tool call from a `tool_call`, `tool_call_update` or a
    /// permission request's `toolCall`; returns its id.
    fn tool(&mut self, session: &str, u: &Value) -> Option<String> {
        let id = u.get("toolCallId").and_then(rpc_id)?;
        let stamp = self.stamp(session);
        let item = self.items.get_or_insert_with(&format!("tool:{id}"), || {
            Item::Tool(Box::new(AcpTool::new(&id, stamp)))
        });
        let Item::Tool(tool) = item else { return None };
        tool.apply(u);
        let scope = tool.call.parent.clone().unwrap_or_default();
        self.open_runs.remove(&scope);
        Some(id)
    }

    fn prompt(&mut self, id: Option<String>, params: &Value) {
        self.turns += 1;
        self.turn = Some(format!("turn-{}", self.turns));
        let stamp = self.stamp(&str_at(params, "sessionId"));
        if let Some(id) = id {
            self.prompt_turns.insert(id, stamp.clone());
        }
        self.open_runs.clear();
        let text = match params.get("prompt") {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .map(content_block_text)
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        if !text.is_empty() {
            self.push_row(Row::new("", RowKind::UserText, &text, &stamp));
        }
    }

    fn response(&mut self, id: &str, v: &Value) {
        if let Some(stamp) = self.prompt_turns.get(id).cloned() {
            self.open_runs.clear();
            let stop = v
                .get("result")
                .map(|r| str_at(r, "stopReason"))
                .unwrap_or_default();
            if !stop.is_empty() && stop != "end_turn" {
                self.push_row(Row::new(
                    "",
                    RowKind::Status,
                    &format!("Turn ended: {stop}"),
                    &stamp,
                ));
            }
            if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
                let what = err
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| err.to_string(), str::to_string);
                self.push_row(Row::new(
                    "",
                    RowKind::Error,
                    &format!("Prompt failed: {what}"),
                    &stamp,
                ));
            }
        } else if let Some(call) = self.permission_calls.get(id).cloned() {
            if let Some(Item::Tool(tool)) = self.items.get_mut(&format!("tool:{call}")) {
                tool.settle_permission(v.get("result").and_then(|r| r.get("outcome")));
            }
        }
    }

    fn permission_request(&mut self, id: Option<String>, params: &Value) {
        let session = str_at(params, "sessionId");
        let Some(call) = params.get("toolCall").and_then(|t| self.tool(&session, t)) else {
            return;
        };
        if let Some(Item::Tool(tool)) = self.items.get_mut(&format!("tool:{call}")) {
            let options = params
                .get("options")
                .cloned()
                .unwrap_or(Value::Array(Vec::new()));
            tool.call.extra.insert(
                "permission".into(),
                json!({"options": options, "status": "pending"}),
            );
        }
        if let Some(id) = id {
            self.permission_calls.insert(id, call);
        }
    }
}

/// One tool call's frames folded.
struct AcpTool {
    call: ToolCall,
    stamp: Stamp,
    acp_kind: String,
    /// Text of `content` on a frame that carried a terminal status.
    final_content_text: Option<String>,
    raw_output_text: Option<String>,
    /// Text of a non-subagent `toolResponse` (last resort for the output).
    response_text: Option<String>,
    terminal_output: String,
    subagent: Option<SubagentFold>,
}

impl AcpTool {
    fn new(id: &str, stamp: Stamp) -> AcpTool {
        AcpTool {
            call: ToolCall {
                id: id.to_string(),
                ..ToolCall::default()
            },
            stamp,
            acp_kind: String::new(),
            final_content_text: None,
            raw_output_text: None,
            response_text: None,
            terminal_output: String::new(),
            subagent: None,
        }
    }

    fn apply(&mut self, u: &Value) {
        let call = &mut self.call;
        if let Some(name) = claude_meta(u, "toolName") {
            call.name = name;
        }
        if call.parent.is_none() {
            call.parent = claude_meta(u, "parentToolUseId");
        }
        if self.subagent.is_none() && matches!(call.name.as_str(), "Agent" | "Task") {
            let mut fold = SubagentFold::default();
            fold.apply_input(&call.input);
            if let Some(text) = &self.raw_output_text {
                fold.apply_output(text);
            }
            self.subagent = Some(fold);
        }
        if let Some(title) = u
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            call.title = title.to_string();
        }
        if let Some(kind) = u.get("kind").and_then(Value::as_str) {
            self.acp_kind = kind.to_string();
        }
        let status = u
            .get("status")
            .and_then(Value::as_str)
            .and_then(ToolStatus::parse);
        if let Some(s) = status {
            call.status.advance(s);
        }
        let input = u.get("rawInput").filter(|i| !is_empty_value(i));
        if let Some(input) = input {
            call.input = input.clone();
        }
        let content = u
            .get("content")
            .and_then(Value::as_array)
            .filter(|c| !c.is_empty());
        let mut frame_text = None;
        if let Some(content) = content {
            let diffs: Vec<FileDiff> = content.iter().filter_map(diff_of).collect();
            if !diffs.is_empty() {
                call.diffs = diffs;
            }
            let text = tool_content_text(content);
            if !text.is_empty() {
                frame_text = Some(text);
            }
        }
        if status.is_some_and(ToolStatus::is_terminal) && frame_text.is_some() {
            self.final_content_text = frame_text.clone();
        }
        if let Some(path) = u
            .get("locations")
            .and_then(|l| l.get(0))
            .and_then(|l| l.get("path"))
            .and_then(Value::as_str)
        {
            call.path_hint = Some(path.to_string());
        }
        let raw_output = u.get("rawOutput").filter(|o| !o.is_null()).map(output_text);
        if let Some(text) = &raw_output {
            self.raw_output_text = Some(text.clone());
        }
        let meta = u.get("_meta");
        if let Some(data) = meta
            .and_then(|m| m.get("terminal_output"))
            .and_then(|t| t.get("data"))
            .and_then(Value::as_str)
        {
            self.terminal_output.push_str(data);
        }
        if let Some(code) = meta
            .and_then(|m| m.get("terminal_exit"))
            .and_then(|t| t.get("exit_code"))
            .and_then(Value::as_i64)
        {
            call.exit_code = Some(code);
        }
        let response = meta
            .and_then(|m| m.get("claudeCode"))
            .and_then(|c| c.get("toolResponse"))
            .filter(|r| !r.is_null());
        match &mut self.subagent {
            Some(fold) => {
                if let Some(input) = input {
                    fold.apply_input(input);
                }
                if let Some(response) = response {
                    fold.apply_response(response);
                }
                let result = raw_output
                    .or(frame_text.filter(|_| status.is_some_and(ToolStatus::is_terminal)));
                if let Some(text) = result {
                    fold.apply_output(&text);
                }
                if status == Some(ToolStatus::Error) {
                    fold.mark_failed();
                }
            }
            None => {
                if let Some(text) = response.and_then(response_output) {
                    self.response_text = Some(text);
                }
            }
        }
    }

    /// The client's reply to a permission request.
    fn settle_permission(&mut self, outcome: Option<&Value>) {
        let Some(Value::Object(permission)) = self.call.extra.get_mut("permission") else {
            return;
        };
        let chosen = outcome.map(|o| str_at(o, "optionId")).unwrap_or_default();
        let status = match outcome.map(|o| str_at(o, "outcome")).as_deref() {
            Some("selected") => {
                let kind = permission
                    .get("options")
                    .and_then(Value::as_array)
                    .and_then(|opts| opts.iter().find(|o| str_at(o, "optionId") == chosen))
                    .map(|o| str_at(o, "kind"))
                    .unwrap_or_default();
                if kind.starts_with("reject") {
                    "rejected"
                } else {
                    "approved"
                }
            }
            Some("cancelled") => "cancelled",
            _ => return,
        };
        permission.insert("status".into(), status.into());
        if !chosen.is_empty() {
            permission.insert("option_id".into(), chosen.into());
        }
    }

    fn to_message(&self) -> Message {
        let mut call = self.call.clone();
        if let Some(fold) = &self.subagent {
            call.kind = Some(ToolKind::Subagent);
            call.subagent = Some(fold.finish());
            if fold.is_awaiting_completion() {
                call.status = ToolStatus::InProgress;
            }
            call.output = self
                .raw_output_text
                .as_deref()
                .or(self.final_content_text.as_deref())
                .and_then(subagent_output);
        } else {
            let by_kind = ToolKind::from_acp_kind(&self.acp_kind);
            call.kind = Some(if by_kind == ToolKind::Generic {
                ToolKind::from_tool_name(&call.name)
            } else {
                by_kind
            });
            call.output = self
                .raw_output_text
                .clone()
                .or_else(|| self.final_content_text.clone())
                .or_else(|| {
                    (!self.terminal_output.is_empty()).then(|| self.terminal_output.clone())
                })
                .or_else(|| self.response_text.clone());
        }
        call.to_message(&self.stamp)
    }
}

/// A `_meta.claudeCode.<key>` string, when non-empty.
fn claude_meta(u: &Value, key: &str) -> Option<String> {
    u.get("_meta")?
        .get("claudeCode")?
        .get(key)?
        .as_str()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A JSON-RPC id (or tool-call id) as a string: strings and numbers.
fn rpc_id(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// The readable text of one ACP `ContentBlock`.
fn content_block_text(block: &Value) -> String {
    match block.get("type").and_then(Value::as_str).unwrap_or("") {
        "text" => str_at(block, "text"),
        "image" => "[image]".into(),
        "audio" => "[audio]".into(),
        "resource_link" => {
            let name = str_at(block, "name");
            if name.is_empty() {
                str_at(block, "uri")
            } else {
                name
            }
        }
        "resource" => block
            .get("resource")
            .map(|r| {
                let text = str_at(r, "text");
                if text.is_empty() {
                    str_at(r, "uri")
                } else {
                    text
                }
            })
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// The text of a tool call's `content` entries of type `content`.
fn tool_content_text(content: &[Value]) -> String {
    content
        .iter()
        .filter(|c| c.get("type").and_then(Value::as_str) == Some("content"))
        .filter_map(|c| c.get("content"))
        .map(content_block_text)
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `{type:"diff", path, oldText?, newText}` content entry.
fn diff_of(c: &Value) -> Option<FileDiff> {
    if c.get("type").and_then(Value::as_str) != Some("diff") {
        return None;
    }
    Some(FileDiff {
        path: str_at(c, "path"),
        old_text: c.get("oldText").and_then(Value::as_str).map(str::to_string),
        new_text: c.get("newText")?.as_str()?.to_string(),
    })
}

/// `rawOutput` as text: a string as is, an array of text blocks joined, any
/// other value as compact JSON.
fn output_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(_) => join_text_blocks(v),
        other => other.to_string(),
    }
}

/// The output text inside a Claude `toolResponse` of an ordinary tool.
fn response_output(r: &Value) -> Option<String> {
    match r {
        Value::String(s) => Some(s.clone()),
        _ => ["content", "stdout", "output"]
            .iter()
            .find_map(|k| r.get(*k).and_then(Value::as_str))
            .map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_links_and_media_have_readable_text() {
        assert_eq!(
            content_block_text(&json!({"type": "resource_link", "uri": "file:///a", "name": "a"})),
            "a"
        );
        assert_eq!(
            content_block_text(&json!({"type": "image", "data": ""})),
            "[image]"
        );
        assert_eq!(
            content_block_text(&json!({"type": "resource", "resource": {"uri": "u", "text": "t"}})),
            "t"
        );
        assert_eq!(content_block_text(&json!({"type": "mystery"})), "");
    }

    #[test]
    fn raw_output_may_be_a_string_an_array_or_an_object() {
        assert_eq!(output_text(&json!("x")), "x");
        assert_eq!(
            output_text(&json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])),
            "a\nb"
        );
        assert_eq!(output_text(&json!({"exit": 0})), r#"{"exit":0}"#);
    }
}
