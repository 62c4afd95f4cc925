//! The fold of Claude Code records into rows and tool calls: user and
//! assistant records, tool uses and their results, system lines.

use super::super::build::{Row, RowKind, Stamp};
use super::super::fold::Ordered;
use super::super::jsonl::{self, Line, Reading};
use super::super::subagent_fold::{join_text_blocks, SubagentFold};
use super::super::tool::{ToolCall, ToolStatus};
use super::files::is_agent_id;
use super::harness::strip_tags;
use super::workflow::{launch_summary, workflow_call, workflow_title};
use super::{is_record, record_session};
use crate::model::{bool_at, str_at};
use crate::time::parse_rfc3339;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

/// Who a row belongs to: the main conversation, or a child transcript (by
/// agent id, or a synthesized key for sidechains without one).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Owner {
    Main,
    Sidechain(String),
}

pub(super) struct Item {
    pub(super) owner: Owner,
    pub(super) body: Body,
}

pub(super) enum Body {
    Row(Box<Row>),
    Tool(Box<CcTool>),
}

pub(super) struct CcTool {
    pub(super) call: ToolCall,
    pub(super) stamp: Stamp,
    pub(super) subagent: Option<SubagentFold>,
    /// When its result arrived (for matching anonymous sidechains by time).
    pub(super) finished_at: Option<i128>,
}

/// What is known about one child transcript.
#[derive(Default)]
pub(super) struct ChildTranscript {
    pub(super) first_prompt: String,
    pub(super) model: String,
    /// The times of its first and last records.
    pub(super) first_time: Option<i128>,
    pub(super) last_time: Option<i128>,
    /// The tokens of its latest API message (`message.id`, input, cache and
    /// output tokens): what Claude Code reports as a subagent's tokens. A
    /// reply split over several records carries the same usage, so it
    /// counts once.
    pub(super) last_usage: Option<(String, u64)>,
}

/// The text and thinking blocks one assistant message has had, to merge
/// duplicates and growing streaming snapshots in constant time per block.
#[derive(Default)]
pub(super) struct MessageBlocks {
    /// Hashes of every (is thinking, text) seen.
    pub(super) seen: HashSet<(bool, u64)>,
    /// The row key of the latest text block and of the latest thinking block.
    pub(super) last_text: Option<String>,
    pub(super) last_thinking: Option<String>,
}

impl MessageBlocks {
    pub(super) fn last_mut(&mut self, thinking: bool) -> &mut Option<String> {
        if thinking {
            &mut self.last_thinking
        } else {
            &mut self.last_text
        }
    }
}

fn text_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

#[derive(Default)]
pub(super) struct Fold {
    pub(super) items: Ordered<Item>,
    pub(super) records: usize,
    pub(super) seen_uuids: HashSet<String>,
    /// The uuid of the record being read (row ids derive from it).
    pub(super) record_uuid: String,
    pub(super) turns: usize,
    pub(super) turn: Option<String>,
    /// `message.id` → the text blocks it has had so far.
    pub(super) blocks: HashMap<String, MessageBlocks>,
    /// Child transcripts by owner key, in first-seen order.
    pub(super) children: Vec<(String, ChildTranscript)>,
    /// Owner key → its position in `children`.
    pub(super) child_index: HashMap<String, usize>,
    /// Sidechain record uuid → owner key (follows chains without agent ids).
    pub(super) chain_of: HashMap<String, String>,
    /// Agent id (or progress key) → its Task's tool-call id.
    pub(super) task_of_agent: HashMap<String, String>,
    /// Task tool-call ids in order.
    pub(super) tasks: Vec<String>,
    /// Workflow run id → its `Workflow` tool-call id.
    /// In launch order; a run id appears once.
    pub(super) workflow_runs: Vec<(String, String)>,
    /// `<task-notification>` bodies already read (each appears twice).
    pub(super) notifications: HashSet<String>,
}

impl Fold {
    /// Reads one file; `agent` is set for a child transcript file.
    pub(super) fn read(&mut self, text: &str, agent: Option<&str>) {
        for line in jsonl::lines(text) {
            match line {
                Line::Object { value, raw } => {
                    self.records += usize::from(is_record(&value));
                    let reading = self.record(&value, agent);
                    self.items.settle(reading, &value, raw);
                }
                Line::Unreadable { raw, error } => self.items.push_unreadable(raw, error),
            }
        }
    }

    /// Reads one record (SPEC.md §1: what it is to the transcript).
    pub(super) fn record(&mut self, v: &Value, file_agent: Option<&str>) -> Reading {
        self.record_uuid = str_at(v, "uuid");
        if !self.record_uuid.is_empty() && !self.seen_uuids.insert(self.record_uuid.clone()) {
            return Reading::Conversation;
        }
        let owner = self.owner_of(v, file_agent);
        let stamp = Stamp {
            session_id: record_session(v),
            turn_id: self.turn.clone(),
            created_at: str_at(v, "timestamp"),
        };
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "user" => self.user(v, &owner, &stamp),
            "assistant" => self.assistant(v, &owner, &stamp),
            "system" => self.system(v, &stamp),
            "progress" => self.progress(v),
            "queue-operation" => self.notification_in(v.get("content"), &stamp),
            "attachment" => self.attachment(v, &owner, &stamp),
            _ => Reading::UnknownKind,
        }
    }

    /// An attachment: a `<task-notification>` (a `queued_command` of the
    /// main conversation), or a message sent to a running subagent (a
    /// `queued_command` in its transcript, SendMessage): a user row in its
    /// card. Other attachments carry no conversation.
    fn attachment(&mut self, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
        let a = v.get("attachment").unwrap_or(&Value::Null);
        let text = ["prompt", "content"].iter().find_map(|k| a.get(*k));
        let sent = text
            .and_then(Value::as_str)
            .filter(|t| !t.contains("<task-notification>") && !t.trim().is_empty());
        match (owner, sent) {
            (Owner::Sidechain(_), Some(message)) if str_at(a, "type") == "queued_command" => {
                let row = Row::new("", RowKind::UserText, message, stamp);
                self.push_row(owner, row);
                Reading::Conversation
            }
            _ => self.notification_in(text, stamp),
        }
    }

    /// A record that may carry a `<task-notification>` (a queue operation,
    /// a `queued_command` attachment): conversation when it does.
    fn notification_in(&mut self, text: Option<&Value>, stamp: &Stamp) -> Reading {
        match text.and_then(Value::as_str) {
            Some(text) if text.contains("<task-notification>") => {
                self.notification(text, stamp);
                Reading::Conversation
            }
            _ => Reading::NoConversation,
        }
    }

    pub(super) fn user(&mut self, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
        if bool_at(v, "isMeta") {
            return Reading::NoConversation;
        }
        let content = v
            .get("message")
            .and_then(|m| m.get("content"))
            .unwrap_or(&Value::Null);
        match content {
            Value::String(text) => self.user_text(text, owner, stamp),
            Value::Array(blocks) => {
                let results: Vec<&Value> = blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                    .collect();
                let structured = v.get("toolUseResult").filter(|_| results.len() == 1);
                // 2.0.x names the agent on the main record carrying a Task's result.
                let agent = match owner {
                    Owner::Main if results.len() == 1 => str_at(v, "agentId"),
                    _ => String::new(),
                };
                for block in &results {
                    self.tool_result(block, structured, &agent, owner, stamp);
                }
                let text = user_blocks_text(blocks);
                if !text.trim().is_empty() {
                    self.user_text(&text, owner, stamp);
                }
            }
            _ => return Reading::Unreadable,
        }
        Reading::Conversation
    }

    pub(super) fn user_text(&mut self, text: &str, owner: &Owner, stamp: &Stamp) {
        if text.contains("<task-notification>") {
            self.notification(text, stamp);
            return;
        }
        if let Owner::Sidechain(key) = owner {
            let child = self.child_mut(key);
            if child.first_prompt.is_empty() {
                child.first_prompt = text.to_string();
            }
            return;
        }
        let t = text.trim_start();
        if t.starts_with("<command-")
            || t.starts_with("<local-command-")
            || t.starts_with("[Request interrupted")
        {
            let row = Row::new("", RowKind::Status, &strip_tags(text), stamp);
            self.push_row(owner, row);
            return;
        }
        self.turns += 1;
        self.turn = Some(format!("turn-{}", self.turns));
        let stamp = Stamp {
            turn_id: self.turn.clone(),
            ..stamp.clone()
        };
        self.push_row(owner, Row::new("", RowKind::UserText, text, &stamp));
    }

    /// Appends a row whose id is the current record's uuid (`#2`, … for a
    /// record's further rows).
    pub(super) fn push_row(&mut self, owner: &Owner, row: Row) -> String {
        let base = if self.record_uuid.is_empty() {
            "claude-row"
        } else {
            self.record_uuid.as_str()
        };
        let item = Item {
            owner: owner.clone(),
            body: Body::Row(Box::new(row)),
        };
        let key = self.items.push_fresh(base, item);
        if let Some(Item {
            body: Body::Row(r), ..
        }) = self.items.get_mut(&key)
        {
            r.id = key.clone();
        }
        key
    }

    /// The tool call `id` of `owner`, added on first sight; `None` when
    /// the id names a row, or another owner's call (a fork's file repeats
    /// its parent's launch call and its placeholder result: they are the
    /// parent's, not the fork's).
    pub(super) fn tool_entry(
        &mut self,
        id: &str,
        owner: &Owner,
        stamp: &Stamp,
    ) -> Option<&mut CcTool> {
        let item = self.items.get_or_insert_with(id, || Item {
            owner: owner.clone(),
            body: Body::Tool(Box::new(CcTool {
                call: ToolCall {
                    id: id.to_string(),
                    ..ToolCall::default()
                },
                stamp: stamp.clone(),
                subagent: None,
                finished_at: None,
            })),
        });
        match &mut item.body {
            Body::Tool(tool) if item.owner == *owner => Some(tool),
            Body::Tool(_) | Body::Row(_) => None,
        }
    }

    /// A `tool_result` block; `structured` is the record's `toolUseResult`
    /// and `record_agent` the agent id the record names, if any.
    pub(super) fn tool_result(
        &mut self,
        block: &Value,
        structured: Option<&Value>,
        record_agent: &str,
        owner: &Owner,
        stamp: &Stamp,
    ) {
        let Some(id) = block
            .get("tool_use_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        else {
            return;
        };
        let output = block.get("content").map(result_text).unwrap_or_default();
        let is_error = bool_at(block, "is_error");
        let Some(tool) = self.tool_entry(id, owner, stamp) else {
            return;
        };
        tool.call.status.advance(if is_error {
            ToolStatus::Error
        } else {
            ToolStatus::Complete
        });
        tool.call.output = Some(output.clone());
        tool.finished_at = parse_rfc3339(&stamp.created_at);
        let is_workflow = tool.call.name == "Workflow";
        let Some(fold) = &mut tool.subagent else {
            return;
        };
        fold.apply_output(&output);
        if is_error {
            fold.mark_failed();
        }
        if let Some(r) = structured {
            fold.apply_response(r);
        }
        if is_workflow {
            if let Some(summary) = launch_summary(&output) {
                fold.apply_response(&serde_json::json!({ "description": summary }));
            }
        } else if fold.agent_id().is_empty() && is_agent_id(record_agent) {
            fold.apply_response(&serde_json::json!({ "agentId": record_agent }));
        }
        let agent = fold.agent_id().to_string();
        if !agent.is_empty() {
            self.task_of_agent.insert(agent, id.to_string());
        }
        let structured = structured.unwrap_or(&Value::Null);
        let run = str_at(structured, "runId");
        if is_workflow && !run.is_empty() && self.workflow_of(&run).is_none() {
            self.workflow_runs.push((run, id.to_string()));
        }
        let task_id = str_at(structured, "taskId");
        if is_workflow && !task_id.is_empty() {
            self.task_of_agent.insert(task_id, id.to_string());
        }
    }

    /// The `Workflow` call that launched run `run`.
    pub(super) fn workflow_of(&self, run: &str) -> Option<&str> {
        self.workflow_runs
            .iter()
            .find(|(r, _)| r == run)
            .map(|(_, id)| id.as_str())
    }

    /// The subagent fold of tool call `id`, if it is a subagent.
    pub(super) fn subagent_mut(&mut self, id: &str) -> Option<&mut SubagentFold> {
        match self.items.get_mut(id) {
            Some(Item {
                body: Body::Tool(tool),
                ..
            }) => tool.subagent.as_mut(),
            _ => None,
        }
    }

    pub(super) fn assistant(&mut self, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
        let Some(message) = v.get("message").filter(|m| m.is_object()) else {
            return Reading::Unreadable;
        };
        let model = str_at(message, "model");
        if let Owner::Sidechain(key) = owner {
            let usage = message.get("usage").map(usage_tokens);
            let child = self.child_mut(key);
            if !model.is_empty() && model != "<synthetic>" {
                child.model = model.clone();
            }
            if let Some(tokens) = usage.filter(|&t| t > 0) {
                child.last_usage = Some((str_at(message, "id"), tokens));
            }
        }
        let uuid = str_at(v, "uuid");
        let message_id = match message.get("id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => id.to_string(),
            _ => uuid.clone(),
        };
        let blocks = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
            _ => return Reading::Unreadable,
        };
        let error = bool_at(v, "isApiErrorMessage");
        for block in &blocks {
            match block.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => {
                    let kind = if error {
                        RowKind::Error
                    } else {
                        RowKind::AgentText
                    };
                    self.text_block(
                        &message_id,
                        kind,
                        &str_at(block, "text"),
                        owner,
                        stamp,
                        &model,
                    );
                }
                "thinking" => self.text_block(
                    &message_id,
                    RowKind::Thinking,
                    &str_at(block, "thinking"),
                    owner,
                    stamp,
                    &model,
                ),
                "tool_use" => self.tool_use(block, owner, stamp),
                _ => {}
            }
        }
        Reading::Conversation
    }

    /// A text or thinking block of message `message_id`: a block seen before
    /// is skipped, a longer snapshot of the latest block replaces its text.
    pub(super) fn text_block(
        &mut self,
        message_id: &str,
        kind: RowKind,
        text: &str,
        owner: &Owner,
        stamp: &Stamp,
        model: &str,
    ) {
        if text.trim().is_empty() {
            return;
        }
        let thinking = kind == RowKind::Thinking;
        let blocks = self.blocks.entry(message_id.to_string()).or_default();
        if !blocks.seen.insert((thinking, text_hash(text))) {
            return;
        }
        if let Some(key) = blocks.last_mut(thinking).clone() {
            if let Some(Item {
                body: Body::Row(row),
                ..
            }) = self.items.get_mut(&key)
            {
                if row.text.starts_with(text) {
                    return;
                }
                if text.starts_with(row.text.as_str()) {
                    row.text = text.to_string();
                    return;
                }
            }
        }
        let mut row = Row::new("", kind, text, stamp);
        if !model.is_empty() && model != "<synthetic>" {
            row.extra.insert("model".into(), model.into());
        }
        let key = self.push_row(owner, row);
        if let Some(blocks) = self.blocks.get_mut(message_id) {
            *blocks.last_mut(thinking) = Some(key);
        }
    }

    pub(super) fn tool_use(&mut self, block: &Value, owner: &Owner, stamp: &Stamp) {
        let Some(id) = block
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        else {
            return;
        };
        let name = str_at(block, "name");
        let input = block.get("input").cloned().unwrap_or(Value::Null);
        let is_task = name == "Task" || name == "Agent";
        let Some(tool) = self.tool_entry(id, owner, stamp) else {
            return;
        };
        tool.call.name = name;
        if input.as_object().is_some_and(|o| !o.is_empty()) {
            tool.call.input = input.clone();
        }
        if is_task {
            let first = tool.subagent.is_none();
            tool.subagent
                .get_or_insert_with(SubagentFold::default)
                .apply_input(&input);
            if first {
                self.tasks.push(id.to_string());
            }
        } else if tool.call.name == "Workflow" && tool.subagent.is_none() {
            tool.subagent = Some(workflow_call(&input));
            tool.call.title = workflow_title(&input);
        }
    }

    pub(super) fn system(&mut self, v: &Value, stamp: &Stamp) -> Reading {
        let text = str_at(v, "content");
        if text.trim().is_empty() {
            return Reading::NoConversation;
        }
        let error = str_at(v, "subtype") == "api_error" || str_at(v, "level") == "error";
        let kind = if error {
            RowKind::Error
        } else {
            RowKind::Status
        };
        self.push_row(&Owner::Main, Row::new("", kind, &strip_tags(&text), stamp));
        Reading::Conversation
    }
}

/// The tokens of one API message's `usage`: input (cache reads and writes
/// included) and output.
fn usage_tokens(usage: &Value) -> u64 {
    [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
    ]
    .iter()
    .filter_map(|k| usage.get(*k).and_then(Value::as_u64))
    .sum()
}

/// A `tool_result.content` as text: a string, or its text blocks joined
/// (images noted as `[image]`).
fn result_text(content: &Value) -> String {
    match content {
        Value::Array(blocks)
            if blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("image")) =>
        {
            user_blocks_text(blocks)
        }
        other => join_text_blocks(other),
    }
}

/// The typed text of a user record's blocks (tool results excluded).
fn user_blocks_text(blocks: &[Value]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b.get("type").and_then(Value::as_str) {
            Some("text") => b.get("text").and_then(Value::as_str).map(str::to_string),
            Some("image") => Some("[image]".into()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
