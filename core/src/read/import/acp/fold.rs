//! The fold of ACP frames: text runs, turns, prompts and permission
//! requests; tool calls are upserted into `tool::AcpTool`; sessions opened
//! again in `reopen`; compactions in `compaction`.

mod compaction;
mod reopen;

use super::super::build::{todo_entries, Row, RowKind, Stamp};
use super::super::fold::Ordered;
use super::super::jsonl::{self, Line};
use super::content::{blocks_text, claude_meta, content_block_text, decode_base64, rpc_id};
use super::envelope::Envelope;
use super::tool::{AcpTool, Terminal};
use crate::model::event::Event;
use crate::model::message::{str_at, Message};
use serde_json::{json, Value};
use std::collections::HashMap;

/// A folded row or tool call.
pub(super) enum Item {
    Row(Box<Row>),
    Tool(Box<AcpTool>),
}

impl Item {
    fn to_message(&self, terminals: &HashMap<String, Terminal>) -> Message {
        match self {
            Item::Row(row) => row.to_message(),
            Item::Tool(tool) => tool.to_message(terminals),
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
pub(crate) struct Fold {
    items: Ordered<Item>,
    /// Readable ACP frames seen.
    frames: usize,
    rows: usize,
    turns: usize,
    turn: Option<String>,
    /// JSON-RPC id of a prompt request → its stamp (session and turn).
    prompt_turns: HashMap<String, Stamp>,
    /// Turn → the tool calls first seen in it, in order.
    turn_calls: HashMap<String, Vec<String>>,
    /// JSON-RPC id of a permission request → its tool call id.
    permission_calls: HashMap<String, String>,
    /// Scope (a subagent's tool-call id, or "" for the top level) → open text run.
    open_runs: HashMap<String, OpenRun>,
    /// The turn whose end was already reported (a v2 `state_update idle`
    /// and the prompt's response can both say it).
    ended_turn: Option<String>,
    /// Terminals by id (`terminal_update`), read into their tool calls at the end.
    terminals: HashMap<String, Terminal>,
    /// Terminals updated since the last drain, and the calls (by id) that
    /// show each terminal, for the calls to drain again.
    updated_terminals: Vec<String>,
    terminal_users: HashMap<String, Vec<String>>,
    /// Sessions resumed or loaded, their replays, commands and compactions.
    reopen: reopen::Reopen,
    /// Compaction rows by compaction (or tool call) id.
    compactions: compaction::Compactions,
}

impl Fold {
    /// Reads every line of `text`.
    pub(super) fn read(&mut self, text: &str) {
        for line in jsonl::lines(text) {
            self.read_line(line);
        }
    }

    /// Reads one line: a frame, or an unreadable row in its position.
    pub(crate) fn read_line(&mut self, line: Line<'_>) {
        match line {
            Line::Object { value, raw } => {
                if self.frame(&value, true) {
                    self.frames += 1;
                } else {
                    self.items.push_unreadable(raw, "not an ACP frame".into());
                }
            }
            Line::Unreadable { raw, error } => self.items.push_unreadable(raw, error),
        }
    }

    /// The events, one per folded message in first-seen order; an error when
    /// no line was an ACP frame.
    pub(super) fn finish(mut self) -> Result<Vec<Event>, String> {
        if self.frames == 0 {
            return Err("no ACP frames found (expected JSON-RPC session/update lines)".into());
        }
        Ok(self.drain())
    }

    /// The events since the last drain (`Ordered::drain`); a call whose
    /// terminal was updated since is drained again.
    pub(crate) fn drain(&mut self) -> Vec<Event> {
        for terminal in std::mem::take(&mut self.updated_terminals) {
            for id in self
                .terminal_users
                .get(&terminal)
                .cloned()
                .unwrap_or_default()
            {
                self.items.touch(&format!("tool:{id}"));
            }
        }
        let terminals = &self.terminals;
        self.items.drain(|item| Some(item.to_message(terminals)))
    }

    /// Applies one line; false when it is not an ACP frame. `outer` allows one
    /// level of debug-log wrapping.
    fn frame(&mut self, v: &Value, outer: bool) -> bool {
        if let Some(envelope) = Envelope::read(v) {
            self.envelope(envelope);
            return true;
        }
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
                "initialize" => self.connected(),
                "session/load" => self.reopen_request(id, params, true),
                "session/resume" => self.reopen_request(id, params, false),
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

    /// A frame of the adapter's snapshot files, unwrapped (docs/formats.md §7 ACP 5).
    fn envelope(&mut self, envelope: Envelope) {
        let payload = envelope.payload;
        match (envelope.kind, envelope.method) {
            ("notification", "session/update") | ("sessionUpdate", _) => self.notification(payload),
            ("request", "session/prompt") => self.prompt(None, payload),
            ("request", "session/request_permission") | ("requestPermission", _) => {
                self.permission_request(None, payload)
            }
            ("response", "session/prompt") | ("promptResponse", _) => {
                let stamp = self.stamp(&str_at(payload, "sessionId"));
                self.turn_ended(&stamp, &str_at(payload, "stopReason"));
            }
            _ => {}
        }
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
        if self.replayed(session, u) {
            return;
        }
        self.note_live(u);
        let parent = claude_meta(u, "parentToolUseId");
        match u.get("sessionUpdate").and_then(Value::as_str).unwrap_or("") {
            "agent_message_chunk" => self.chunk(RowKind::AgentText, session, u, parent),
            "agent_thought_chunk" => self.chunk(RowKind::Thinking, session, u, parent),
            "user_message_chunk" => self.chunk(RowKind::UserText, session, u, parent),
            // The adapter's compaction call is read into its row, not a tool card.
            "tool_call" | "tool_call_update" if !self.compaction_call(session, u) => {
                self.tool(session, u);
            }
            "plan" => {
                self.open_runs.remove(parent.as_deref().unwrap_or(""));
                let entries = todo_entries(u.get("entries").unwrap_or(&Value::Null));
                let mut row = Row::todo("", entries, &self.stamp(session));
                row.parent = parent;
                self.push_row(row);
            }
            "user_message" => self.user_message(session, u),
            "state_update" if str_at(u, "state") == "idle" => {
                let stamp = self.stamp(session);
                self.turn_ended(&stamp, &str_at(u, "stopReason"));
            }
            "terminal_update" => self.terminal_update(u),
            "compaction_update" => self.compaction_update(session, u),
            "compaction_summary_chunk" => self.compaction_summary_chunk(session, u),
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
        let turn_calls = &mut self.turn_calls;
        let item = self.items.get_or_insert_with(&format!("tool:{id}"), || {
            if let Some(turn) = &stamp.turn_id {
                turn_calls.entry(turn.clone()).or_default().push(id.clone());
            }
            Item::Tool(Box::new(AcpTool::new(&id, stamp)))
        });
        let Item::Tool(tool) = item else { return None };
        tool.apply(u);
        let scope = tool.call.parent.clone().unwrap_or_default();
        for terminal in tool.terminal_ids() {
            let users = self.terminal_users.entry(terminal.clone()).or_default();
            if !users.contains(&id) {
                users.push(id.clone());
            }
        }
        self.open_runs.remove(&scope);
        Some(id)
    }

    fn prompt(&mut self, id: Option<String>, params: &Value) {
        let stamp = self.start_turn(&str_at(params, "sessionId"));
        if let Some(id) = id {
            self.prompt_turns.insert(id, stamp.clone());
        }
        let text = params.get("prompt").map(blocks_text).unwrap_or_default();
        if !text.is_empty() {
            self.prompt_row(&text, &stamp);
        }
    }

    /// Protocol v2's `user_message` (docs/formats.md §7 ACP 1): the prompt as an
    /// update. It starts a turn, unless it only repeats the prompt request
    /// that just started one.
    fn user_message(&mut self, session: &str, u: &Value) {
        let text = u.get("content").map(blocks_text).unwrap_or_default();
        let repeats = matches!(self.items.last(), Some(Item::Row(row))
            if row.kind == RowKind::UserText && row.text == text && row.stamp.turn_id == self.turn);
        if repeats {
            return;
        }
        let stamp = self.start_turn(session);
        if !text.is_empty() {
            self.push_row(Row::new("", RowKind::UserText, &text, &stamp));
        }
    }

    /// Starts the next turn (`turn-1`, `turn-2`, …) and returns its stamp.
    fn start_turn(&mut self, session: &str) -> Stamp {
        self.turns += 1;
        self.turn = Some(format!("turn-{}", self.turns));
        self.open_runs.clear();
        self.stamp(session)
    }

    /// A turn ended (a prompt's response, a v2 `state_update idle`): open
    /// text runs close; a stop reason other than `end_turn` is a status row,
    /// once per turn; a `cancelled` turn's unsettled runs end cancelled.
    fn turn_ended(&mut self, stamp: &Stamp, stop: &str) {
        self.open_runs.clear();
        if stop.is_empty() || stop == "end_turn" || self.ended_turn == stamp.turn_id {
            return;
        }
        if stop == "cancelled" {
            self.cancel_runs_of(stamp.turn_id.as_deref().unwrap_or_default());
        }
        self.ended_turn = stamp.turn_id.clone();
        self.push_row(Row::new(
            "",
            RowKind::Status,
            &format!("Turn ended: {stop}"),
            stamp,
        ));
    }

    /// The subagent runs launched in `turn` that had not reported end
    /// cancelled: cancelling the turn stopped them (measured with the Claude
    /// ACP adapter: their model requests are cut off at once).
    fn cancel_runs_of(&mut self, turn: &str) {
        for id in self.turn_calls.get(turn).into_iter().flatten() {
            let key = format!("tool:{id}");
            if let Some(Item::Tool(tool)) = self.items.get_mut(&key) {
                if tool.cancel_unsettled_run() {
                    self.items.touch(&key);
                }
            }
        }
    }

    /// Protocol v2's `terminal_update`: a terminal's command, output (base64)
    /// and exit status, read into the tool call that shows that terminal.
    fn terminal_update(&mut self, u: &Value) {
        let Some(id) = u.get("terminalId").and_then(rpc_id) else {
            return;
        };
        self.updated_terminals.push(id.clone());
        let terminal = self.terminals.entry(id).or_default();
        let command = str_at(u, "command");
        if !command.is_empty() {
            terminal.command = command;
        }
        if let Some(data) = u.get("output").map(|o| str_at(o, "data")) {
            let bytes = decode_base64(&data).unwrap_or_else(|| data.into_bytes());
            terminal.output.push_str(&String::from_utf8_lossy(&bytes));
        }
        if let Some(code) = u
            .get("exitStatus")
            .and_then(|e| e.get("exitCode"))
            .and_then(Value::as_i64)
        {
            terminal.exit_code = Some(code);
        }
    }

    fn response(&mut self, id: &str, v: &Value) {
        if self.reopen_response(id, v) {
            return;
        }
        if let Some(stamp) = self.prompt_turns.get(id).cloned() {
            let stop = v
                .get("result")
                .map(|r| str_at(r, "stopReason"))
                .unwrap_or_default();
            self.turn_ended(&stamp, &stop);
            if let Some(what) = rpc_error(v) {
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
        // v1 puts the call at `toolCall`, v2 under `subject.toolCall`.
        let call = params
            .get("toolCall")
            .or_else(|| params.get("subject").and_then(|s| s.get("toolCall")));
        let Some(call) = call.and_then(|t| self.tool(&session, t)) else {
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

/// The message of a JSON-RPC response's `error`, if it has one (the whole
/// error as JSON when it names no message).
pub(super) fn rpc_error(v: &Value) -> Option<String> {
    let err = v.get("error").filter(|e| !e.is_null())?;
    Some(
        err.get("message")
            .and_then(Value::as_str)
            .map_or_else(|| err.to_string(), str::to_string),
    )
}
