//! Claude Code session transcripts, `~/.claude/projects/<project>/<session>.jsonl`
//! (reference/dialects.md §2), with the subagents' own transcripts either
//! inline (sidechain records), in `subagents/agent-<id>.jsonl` files beside
//! the session, or mirrored as `progress` records.
//!
//! Folding:
//! - assistant records are merged per `message.id`: a block seen again (a
//!   duplicate or a growing streaming snapshot) updates its row instead of
//!   adding one; empty (withheld) thinking is skipped;
//! - `tool_use` and `tool_result` pair by id; the record's `toolUseResult`
//!   belongs to its single `tool_result`; `is_error` means `error`;
//! - `Task`/`Agent` calls are subagents (payload rules in `subagent_fold`):
//!   metrics from `toolUseResult`, else from the result's usage trailer; the
//!   model, when the result lacks it, from the child records' `message.model`;
//! - a sidechain record (`isSidechain`, or any record of a child file) belongs
//!   to the Task whose result named its `agentId`; an old inline sidechain
//!   without `agentId` is matched by its first prompt against the Tasks'
//!   prompts; an unmatched one stays an orphan under the parent id
//!   `agent-<agentId>` (or `sidechain-<uuid>`); a sidechain's own user text
//!   (its prompt) is not a row;
//! - a subagent with an agent id but no child records at all gets
//!   `metadata.transcript_not_loaded: true` and keeps its reported counts;
//! - a background run (`async_launched`) finishes through a later
//!   `<task-notification>` (a user record, a `queue-operation` or a
//!   `queued_command` attachment), found by `<tool-use-id>` or by
//!   `<task-id>` = agent id; its `<result>` replaces the launch placeholder;
//!   a notification for no known Task becomes a status row;
//! - each typed user prompt starts a turn (`turn-1`, …); injected (`isMeta`)
//!   text is skipped, harness text (`<command-name>…`, interruptions) is a
//!   status row, `system` records with text are status (or error) rows, and
//!   other record types are ignored; unreadable lines keep their position.

use super::build::{Row, RowKind, Stamp};
use super::fold::Ordered;
use super::jsonl::{self, Line};
use super::subagent_fold::{join_text_blocks, split_trailer, SubagentFold, Trailer};
use super::tool::{ToolCall, ToolKind, ToolStatus};
use crate::event::Event;
use crate::model::{bool_at, str_at, Message};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

/// Turns a Claude Code session file into events.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    import_with_files(text, &[])
}

/// Turns a session file plus the files found beside it into events.
/// `files` are `(name or relative path, contents)`; those named
/// `agent-<id>.jsonl` (compaction files `agent-acompact-*` excepted) are read
/// as the transcript of subagent `<id>`, the rest are ignored.
pub fn import_with_files(session: &str, files: &[(&str, &str)]) -> Result<Vec<Event>, String> {
    let mut fold = Fold::default();
    fold.read(session, None);
    if fold.records == 0 {
        return Err("no Claude Code records found (expected one JSON record per line)".into());
    }
    for (name, text) in files {
        if let Some(agent) = agent_file_id(name) {
            fold.read(text, Some(agent));
        }
    }
    Ok(fold.finish())
}

/// The subagent id of a child transcript file name (`…/agent-<id>.jsonl`),
/// or `None` for any other file (compaction files included).
pub fn agent_file_id(name: &str) -> Option<&str> {
    let file = name.rsplit(['/', '\\']).next()?;
    let id = file.strip_prefix("agent-")?.strip_suffix(".jsonl")?;
    (!id.is_empty() && !id.starts_with("acompact")).then_some(id)
}

/// The session id the first records of a Claude Code file carry
/// (`sessionId`), or `None` when none names one. A subagent transcript's
/// records carry their parent session's id (reference/dialects.md §2.1),
/// which is how a child file found beside several sessions finds its own.
pub fn session_id(text: &str) -> Option<String> {
    jsonl::leading_objects(text, 32)
        .filter(is_record)
        .map(|v| str_at(&v, "sessionId"))
        .find(|id| !id.is_empty())
}

/// True when one of the first lines of `text` is a Claude Code record.
pub fn looks_like(text: &str) -> bool {
    jsonl::leading_objects(text, 32).any(|v| is_record(&v))
}

/// Record types Claude Code writes.
const RECORD_TYPES: [&str; 16] = [
    "user",
    "assistant",
    "system",
    "summary",
    "progress",
    "attachment",
    "file-history-snapshot",
    "file-history-delta",
    "queue-operation",
    "ai-title",
    "custom-title",
    "last-prompt",
    "mode",
    "permission-mode",
    "pr-link",
    "worktree-state",
];

/// True when a parsed line is a Claude Code record.
pub(crate) fn is_record(v: &Value) -> bool {
    let typed = v
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| RECORD_TYPES.contains(&t));
    typed
        && [
            "uuid",
            "sessionId",
            "message",
            "messageId",
            "leafUuid",
            "snapshot",
        ]
        .iter()
        .any(|k| v.get(*k).is_some())
}

/// Who a row belongs to: the main conversation, or a child transcript (by
/// agent id, or a synthesized key for sidechains without one).
#[derive(Clone, Debug, PartialEq)]
enum Owner {
    Main,
    Sidechain(String),
}

struct Item {
    owner: Owner,
    body: Body,
}

enum Body {
    Row(Box<Row>),
    Tool(Box<CcTool>),
}

struct CcTool {
    call: ToolCall,
    stamp: Stamp,
    subagent: Option<SubagentFold>,
}

/// What is known about one child transcript.
#[derive(Default)]
struct ChildTranscript {
    first_prompt: String,
    model: String,
}

/// The text and thinking blocks one assistant message has had, to merge
/// duplicates and growing streaming snapshots in constant time per block.
#[derive(Default)]
struct MessageBlocks {
    /// Hashes of every (is thinking, text) seen.
    seen: HashSet<(bool, u64)>,
    /// The row key of the latest text block and of the latest thinking block.
    last_text: Option<String>,
    last_thinking: Option<String>,
}

impl MessageBlocks {
    fn last_mut(&mut self, thinking: bool) -> &mut Option<String> {
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
struct Fold {
    items: Ordered<Item>,
    records: usize,
    seen_uuids: HashSet<String>,
    /// The uuid of the record being read (row ids derive from it).
    record_uuid: String,
    turns: usize,
    turn: Option<String>,
    /// `message.id` → the text blocks it has had so far.
    blocks: HashMap<String, MessageBlocks>,
    /// Child transcripts by owner key, in first-seen order.
    children: Vec<(String, ChildTranscript)>,
    /// Owner key → its position in `children`.
    child_index: HashMap<String, usize>,
    /// Sidechain record uuid → owner key (follows chains without agent ids).
    chain_of: HashMap<String, String>,
    /// Agent id (or progress key) → its Task's tool-call id.
    task_of_agent: HashMap<String, String>,
    /// Task tool-call ids in order.
    tasks: Vec<String>,
}

impl Fold {
    /// Reads one file; `agent` is set for a child transcript file.
    fn read(&mut self, text: &str, agent: Option<&str>) {
        for line in jsonl::lines(text) {
            match line {
                Line::Object { value, .. } if is_record(&value) => {
                    self.records += 1;
                    self.record(&value, agent);
                }
                Line::Object { raw, .. } => self
                    .items
                    .push_unreadable(raw, "not a Claude Code record".into()),
                Line::Unreadable { raw, error } => self.items.push_unreadable(raw, error),
            }
        }
    }

    fn record(&mut self, v: &Value, file_agent: Option<&str>) {
        self.record_uuid = str_at(v, "uuid");
        if !self.record_uuid.is_empty() && !self.seen_uuids.insert(self.record_uuid.clone()) {
            return;
        }
        let owner = self.owner_of(v, file_agent);
        let stamp = Stamp {
            session_id: str_at(v, "sessionId"),
            turn_id: self.turn.clone(),
            created_at: str_at(v, "timestamp"),
        };
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "user" => self.user(v, &owner, &stamp),
            "assistant" => self.assistant(v, &owner, &stamp),
            "system" => self.system(v, &stamp),
            "progress" => self.progress(v),
            "queue-operation" => {
                if let Some(text) = v.get("content").and_then(Value::as_str) {
                    self.notification(text, &stamp);
                }
            }
            "attachment" => {
                let a = v.get("attachment").unwrap_or(&Value::Null);
                if let Some(text) = ["prompt", "content"]
                    .iter()
                    .find_map(|k| a.get(*k).and_then(Value::as_str))
                {
                    self.notification(text, &stamp);
                }
            }
            _ => {}
        }
    }

    fn owner_of(&mut self, v: &Value, file_agent: Option<&str>) -> Owner {
        let key = match file_agent {
            Some(agent) => agent.to_string(),
            None if bool_at(v, "isSidechain") => {
                let agent = str_at(v, "agentId");
                let uuid = str_at(v, "uuid");
                let key = if !agent.is_empty() {
                    agent
                } else if let Some(k) = v
                    .get("parentUuid")
                    .and_then(Value::as_str)
                    .and_then(|p| self.chain_of.get(p))
                {
                    k.clone()
                } else {
                    format!("sidechain-{uuid}")
                };
                if !uuid.is_empty() {
                    self.chain_of.insert(uuid, key.clone());
                }
                key
            }
            None => return Owner::Main,
        };
        self.child_mut(&key);
        Owner::Sidechain(key)
    }

    fn child_mut(&mut self, key: &str) -> &mut ChildTranscript {
        let at = match self.child_index.get(key) {
            Some(&at) => at,
            None => {
                self.children
                    .push((key.to_string(), ChildTranscript::default()));
                self.child_index
                    .insert(key.to_string(), self.children.len() - 1);
                self.children.len() - 1
            }
        };
        &mut self.children[at].1
    }

    fn user(&mut self, v: &Value, owner: &Owner, stamp: &Stamp) {
        if bool_at(v, "isMeta") {
            return;
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
                for block in &results {
                    self.tool_result(block, structured, owner, stamp);
                }
                let text = user_blocks_text(blocks);
                if !text.trim().is_empty() {
                    self.user_text(&text, owner, stamp);
                }
            }
            _ => {}
        }
    }

    fn user_text(&mut self, text: &str, owner: &Owner, stamp: &Stamp) {
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
    fn push_row(&mut self, owner: &Owner, row: Row) -> String {
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

    fn tool_entry(&mut self, id: &str, owner: &Owner, stamp: &Stamp) -> Option<&mut CcTool> {
        let item = self.items.get_or_insert_with(id, || Item {
            owner: owner.clone(),
            body: Body::Tool(Box::new(CcTool {
                call: ToolCall {
                    id: id.to_string(),
                    ..ToolCall::default()
                },
                stamp: stamp.clone(),
                subagent: None,
            })),
        });
        match &mut item.body {
            Body::Tool(tool) => Some(tool),
            Body::Row(_) => None,
        }
    }

    fn tool_result(
        &mut self,
        block: &Value,
        structured: Option<&Value>,
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
        let agent = fold.agent_id().to_string();
        if !agent.is_empty() {
            self.task_of_agent.insert(agent, id.to_string());
        }
    }

    fn assistant(&mut self, v: &Value, owner: &Owner, stamp: &Stamp) {
        let Some(message) = v.get("message") else {
            return;
        };
        let model = str_at(message, "model");
        if let Owner::Sidechain(key) = owner {
            if !model.is_empty() && model != "<synthetic>" {
                self.child_mut(key).model = model.clone();
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
            _ => Vec::new(),
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
    }

    /// A text or thinking block of message `message_id`: a block seen before
    /// is skipped, a longer snapshot of the latest block replaces its text.
    fn text_block(
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

    fn tool_use(&mut self, block: &Value, owner: &Owner, stamp: &Stamp) {
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
        }
    }

    fn system(&mut self, v: &Value, stamp: &Stamp) {
        let text = str_at(v, "content");
        if text.trim().is_empty() {
            return;
        }
        let error = str_at(v, "subtype") == "api_error" || str_at(v, "level") == "error";
        let kind = if error {
            RowKind::Error
        } else {
            RowKind::Status
        };
        self.push_row(&Owner::Main, Row::new("", kind, &strip_tags(&text), stamp));
    }

    /// A `progress` record mirroring a subagent's activity into the main file.
    fn progress(&mut self, v: &Value) {
        let data = v.get("data").unwrap_or(&Value::Null);
        if str_at(data, "type") != "agent_progress" {
            return;
        }
        let parent = str_at(v, "parentToolUseID");
        let Some(inner) = data.get("message").filter(|m| m.is_object()) else {
            return;
        };
        let agent = str_at(data, "agentId");
        let key = if agent.is_empty() {
            format!("progress-{parent}")
        } else {
            agent
        };
        if !parent.is_empty() {
            self.task_of_agent.entry(key.clone()).or_insert(parent);
        }
        self.record_uuid = str_at(inner, "uuid");
        if !self.record_uuid.is_empty() && !self.seen_uuids.insert(self.record_uuid.clone()) {
            return;
        }
        self.child_mut(&key);
        let owner = Owner::Sidechain(key);
        let stamp = Stamp {
            session_id: str_at(v, "sessionId"),
            turn_id: self.turn.clone(),
            created_at: str_at(v, "timestamp"),
        };
        match str_at(inner, "type").as_str() {
            "user" => self.user(inner, &owner, &stamp),
            "assistant" => self.assistant(inner, &owner, &stamp),
            _ => {}
        }
    }

    /// A `<task-notification>`: a background run finished.
    fn notification(&mut self, text: &str, stamp: &Stamp) {
        let Some(body) = tag(text, "task-notification") else {
            return;
        };
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

    /// Resolves every child transcript to its Task and builds the events.
    fn finish(self) -> Vec<Event> {
        let mut claimed: HashSet<String> = HashSet::new();
        let mut parent_of: HashMap<String, String> = HashMap::new();
        let mut model_of_task: HashMap<String, String> = HashMap::new();
        // Tasks by prompt, each list with a cursor past the tasks already taken.
        let mut by_prompt: HashMap<String, (Vec<String>, usize)> = HashMap::new();
        for task in &self.tasks {
            let prompt = self.task_prompt(task).trim().to_string();
            if !prompt.is_empty() {
                by_prompt.entry(prompt).or_default().0.push(task.clone());
            }
        }
        for (key, child) in &self.children {
            let task = self.task_of_agent.get(key).cloned().or_else(|| {
                let (tasks, next) = by_prompt.get_mut(child.first_prompt.trim())?;
                while let Some(task) = tasks.get(*next) {
                    *next += 1;
                    if !claimed.contains(task) {
                        return Some(task.clone());
                    }
                }
                None
            });
            let parent = match task {
                Some(task) => {
                    claimed.insert(task.clone());
                    if !child.model.is_empty() {
                        model_of_task.insert(task.clone(), child.model.clone());
                    }
                    task
                }
                None if key.starts_with("sidechain-") || key.starts_with("progress-") => {
                    key.clone()
                }
                None => format!("agent-{key}"),
            };
            parent_of.insert(key.clone(), parent);
        }
        let turn_of: HashMap<String, Option<String>> = self
            .tasks
            .iter()
            .filter_map(|t| match self.items.get(t) {
                Some(Item {
                    body: Body::Tool(tool),
                    ..
                }) => Some((t.clone(), tool.stamp.turn_id.clone())),
                _ => None,
            })
            .collect();
        self.items.into_events(|item| {
            let parent = match &item.owner {
                Owner::Main => None,
                Owner::Sidechain(key) => parent_of.get(key).cloned(),
            };
            let turn = parent.as_ref().and_then(|p| turn_of.get(p).cloned());
            match &item.body {
                Body::Row(row) => {
                    let mut row = row.clone();
                    if let Some(turn) = turn {
                        row.stamp.turn_id = turn;
                    }
                    row.parent = parent;
                    Some(row.to_message())
                }
                Body::Tool(tool) => {
                    let mut stamp = tool.stamp.clone();
                    if let Some(turn) = turn {
                        stamp.turn_id = turn;
                    }
                    Some(tool_message(tool, parent, &stamp, &claimed, &model_of_task))
                }
            }
        })
    }

    fn task_prompt(&self, id: &str) -> String {
        match self.items.get(id) {
            Some(Item {
                body: Body::Tool(t),
                ..
            }) => str_at(&t.call.input, "prompt"),
            _ => String::new(),
        }
    }
}

fn tool_message(
    tool: &CcTool,
    parent: Option<String>,
    stamp: &Stamp,
    claimed: &HashSet<String>,
    model_of_task: &HashMap<String, String>,
) -> Message {
    let mut call = tool.call.clone();
    call.parent = parent;
    match &tool.subagent {
        Some(fold) => {
            let mut task = fold.finish();
            if task.model.is_empty() {
                task.model = model_of_task.get(&call.id).cloned().unwrap_or_default();
            }
            if !task.agent_id.is_empty() && !claimed.contains(&call.id) {
                call.extra
                    .insert("transcript_not_loaded".into(), true.into());
            }
            if fold.is_awaiting_completion() {
                call.status = ToolStatus::InProgress;
            }
            call.output = call.output.map(|o| split_trailer(&o).0.to_string());
            call.kind = Some(ToolKind::Subagent);
            call.subagent = Some(task);
        }
        None => call.kind = Some(ToolKind::from_tool_name(&call.name)),
    }
    call.to_message(stamp)
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
fn strip_tags(text: &str) -> String {
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
    fn child_file_names_give_the_agent_id() {
        assert_eq!(agent_file_id("s/subagents/agent-a3f9.jsonl"), Some("a3f9"));
        assert_eq!(agent_file_id("agent-a3f9.jsonl"), Some("a3f9"));
        assert_eq!(agent_file_id("C:\\x\\agent-b7.jsonl"), Some("b7"));
        assert_eq!(agent_file_id("agent-acompact-1.jsonl"), None);
        assert_eq!(agent_file_id("agent-.jsonl"), None);
        assert_eq!(agent_file_id("session.jsonl"), None);
        assert_eq!(agent_file_id("agent-a3f9.meta.json"), None);
    }

    #[test]
    fn the_session_id_comes_from_the_first_record_that_names_one() {
        let text = concat!(
            "not json\n",
            r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{}}"#,
            "\n",
            r#"{"type":"user","uuid":"u1","sessionId":"s-1","message":{"content":"hi"}}"#,
            "\n",
            r#"{"type":"user","uuid":"u2","sessionId":"s-2","message":{"content":"hi"}}"#,
        );
        assert_eq!(session_id(text).as_deref(), Some("s-1"));
        assert_eq!(session_id(r#"{"sessionId":"s-3"}"#), None, "not a record");
        assert_eq!(session_id(""), None);
    }

    #[test]
    fn harness_markup_is_stripped_for_status_rows() {
        let text = "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>";
        assert_eq!(strip_tags(text), "/model\nmodel");
        assert_eq!(strip_tags("a < b and <c"), "a < b and <c");
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
