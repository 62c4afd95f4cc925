//! The session logs agent CLIs write as JSON Lines (Claude Code, qwen-code):
//! records with a `uuid`, a `sessionId`, a `timestamp`, and, for a
//! subagent's records, `isSidechain` and `agentId`. This is what those logs
//! share, folded once for every dialect: rows and tool calls in first-seen
//! order, assistant replies merged per message id, tool results paired with
//! their calls, subagents' own transcripts under their cards
//! (`link`), background results delivered by `<task-notification>`
//! (`notification`), and every record settled (`jsonl::Reading`: read,
//! skipped and counted, or unreadable). A dialect reads its own record
//! shapes into these operations ([`Dialect`]).

mod fork;
mod link;
mod notification;
mod refusal;
mod session_events;
mod sidecars;

pub(crate) use notification::{completion_status, Completion};
pub(crate) use session_events::status_reason;
pub(crate) use session_events::{COMMAND, COMPACTION, RESUME};
pub(crate) use sidecars::Metas;

use super::build::{Row, RowKind, Stamp};
use super::fold::Ordered;
use super::jsonl::{self, Line, Reading};
use super::subagent_fold::SubagentFold;
use super::tool::{ToolCall, ToolStatus};
use crate::model::message::{str_at, SubagentTask};
use crate::model::time::parse_rfc3339;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

/// One dialect's reading of its records into the shared fold.
pub(crate) trait Dialect {
    /// True for a record of this dialect (a file with none is refused).
    fn is_record(v: &Value) -> bool;

    /// Reads one record (already new, with its owner and stamp).
    fn record(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading;

    /// The session record `v` was copied from, when it is a forked
    /// session's copy that says so (`fork`); none by default.
    fn copied_from(_v: &Value) -> Option<String> {
        None
    }
}

/// Who a row belongs to: the main conversation, or a child transcript (by
/// agent id, or a synthesized key for sidechains without one).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Owner {
    Main,
    Sidechain(String),
}

pub(crate) struct Item {
    pub(crate) owner: Owner,
    pub(crate) body: Body,
}

pub(crate) enum Body {
    Row(Box<Row>),
    Tool(Box<LogTool>),
}

/// A tool call being folded.
pub(crate) struct LogTool {
    pub(crate) call: ToolCall,
    pub(crate) stamp: Stamp,
    pub(crate) subagent: Option<SubagentFold>,
    /// When its result arrived (for matching anonymous sidechains by time).
    pub(crate) finished_at: Option<i128>,
}

/// What is known about one child transcript.
#[derive(Default)]
pub(crate) struct ChildTranscript {
    pub(crate) first_prompt: String,
    /// The agent's name its records give (qwen-code `agentName`: its type).
    pub(crate) agent_name: String,
    pub(crate) model: String,
    /// The times of its first and last records.
    pub(crate) first_time: Option<i128>,
    pub(crate) last_time: Option<i128>,
    /// The tokens of its latest API message (message id, input, cache and
    /// output tokens): what the agents report as a subagent's tokens. A
    /// reply split over several records carries the same usage, so it
    /// counts once.
    pub(crate) last_usage: Option<(String, u64)>,
    /// Its latest text: its answer, when nothing else delivered one.
    pub(crate) last_text: String,
    /// How its run ended, as its own records say (Codex `task_complete`,
    /// `turn_aborted`): a status and its answer or reason; it settles a
    /// background card nothing else settled.
    pub(crate) ended: Option<(String, String)>,
}

/// The text and thinking blocks one assistant message has had, to merge
/// duplicates and growing streaming snapshots in constant time per block.
#[derive(Default)]
pub(crate) struct MessageBlocks {
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

/// A session log being folded. See the module docs.
#[derive(Default)]
pub(crate) struct Fold {
    pub(crate) items: Ordered<Item>,
    /// Records of the dialect read (a file without any is refused).
    pub(crate) records: usize,
    seen_uuids: HashSet<String>,
    /// The uuid of the record being read (row ids derive from it).
    pub(crate) record_uuid: String,
    turns: usize,
    pub(crate) turn: Option<String>,
    /// Message id → the text blocks it has had so far.
    blocks: HashMap<String, MessageBlocks>,
    /// Child transcripts by owner key, in first-seen order.
    pub(crate) children: Vec<(String, ChildTranscript)>,
    /// Owner key → its position in `children`.
    pub(crate) child_index: HashMap<String, usize>,
    /// Sidechain record uuid → owner key (follows chains without agent ids).
    pub(crate) chain_of: HashMap<String, String>,
    /// Agent id (or progress key) → its subagent's tool-call id.
    pub(crate) task_of_agent: HashMap<String, String>,
    /// Subagent tool-call ids in order.
    pub(crate) tasks: Vec<String>,
    /// Workflow run id → the tool call that launched it, in launch order; a
    /// run id appears once.
    pub(crate) workflow_runs: Vec<(String, String)>,
    /// `<task-notification>` bodies already read (each may be written twice).
    notifications: HashSet<String>,
    /// Results of subagents whose launch is not read yet (a nested agent's
    /// notification queued in the main file before its parent's transcript
    /// is read), with the queued body (empty for a delivered one), applied
    /// once their card is (`notification`).
    pending_completions: Vec<(Completion, String, Stamp)>,
    /// The model each agent's requests went to, as telemetry reports it
    /// (for a transcript whose records do not say).
    reported_models: HashMap<String, String>,
    /// Calls a dialect reads as transport rather than work, held back from
    /// the rows (Codex `wait_agent`, `close_agent`: their outputs settle
    /// cards).
    pub(crate) held: HashSet<String>,
    /// Sidecars by the call they name, in agent order (`sidecars`).
    pub(crate) sidecars: HashMap<String, Vec<(String, Value)>>,
    /// Which card each child transcript belongs to, as last drained
    /// (`link::Links`), and what it was worked out from.
    pub(crate) links: link::Links,
    /// Session event rows still open to what follows them (`session_events`).
    events: session_events::SessionEvents,
    /// The session this one may be a fork of, and its copies (`fork`).
    pub(crate) fork: fork::ForkCopy,
    /// Refusals told before their call was read (`refused`).
    pub(super) pending_refusals: HashMap<String, (ToolStatus, String)>,
    /// A child transcript's own file was read: when runs began can be told.
    pub(crate) child_files_read: bool,
}

/// How a dialect sorts its tool calls (`Fold::call`).
pub(crate) struct CallTools {
    /// The tool that launches a subagent.
    pub launch: &'static str,
    /// Tools that carry a subagent's state or reply back rather than do
    /// work: held back from the rows.
    pub transport: &'static [&'static str],
    /// A launch's arguments in the shape a card folds.
    pub launch_input: fn(Value) -> Value,
}

impl Fold {
    /// Reads one file of dialect `D`; `agent` is set for a child transcript
    /// file.
    pub(crate) fn read<D: Dialect>(&mut self, text: &str, agent: Option<&str>) {
        for line in jsonl::lines(text) {
            self.read_line::<D>(line, agent);
        }
    }

    /// Reads one line of a `D` file (see `read`); a record is settled after
    /// its reading (`jsonl::Reading`), an unreadable line keeps its place.
    pub(crate) fn read_line<D: Dialect>(&mut self, line: Line<'_>, agent: Option<&str>) {
        if agent.is_some() && !self.child_files_read {
            // From now on when runs began can be told: the cards say so.
            self.child_files_read = true;
            for task in &self.tasks {
                self.items.touch(task);
            }
        }
        match line {
            Line::Object { value, raw } => {
                self.records += usize::from(D::is_record(&value));
                let reading = self.record::<D>(&value, agent);
                self.items.settle(reading, &value, raw);
            }
            Line::Unreadable { raw, error } => self.items.push_unreadable(raw, error),
        }
    }

    /// Reads the subagent transcripts among `files` beside session text
    /// `session`: each file whose agent `agent_of(name, text)` names, unless
    /// its records name another session (it is that session's).
    pub(crate) fn read_transcripts<D: Dialect>(
        &mut self,
        session: &str,
        files: &[(&str, &str)],
        agent_of: impl Fn(&str, &str) -> Option<String>,
    ) {
        let own = session_id::<D>(session);
        let origin = self.fork.origin().map(str::to_string);
        for (name, text) in files {
            let session = session_id::<D>(text);
            let other = own.is_some() && session.as_ref().is_some_and(|s| Some(s) != own.as_ref());
            let forked_from = other && session.is_some() && session == origin;
            let Some(agent) = agent_of(name, text) else {
                continue;
            };
            // A transcript of the session this one was forked from is read
            // for the runs the copies hold, and no other.
            if !other || (forked_from && self.task_of_agent.contains_key(&agent)) {
                self.read::<D>(text, Some(&agent));
            }
        }
    }

    /// Reads one record: a copy of one already read (same `uuid`, else `id`) is done
    /// with; any other is read by its dialect with its owner and stamp.
    fn record<D: Dialect>(&mut self, v: &Value, file_agent: Option<&str>) -> Reading {
        self.record_uuid = ["uuid", "id"]
            .iter()
            .map(|k| str_at(v, k))
            .find(|id| !id.is_empty())
            .unwrap_or_default();
        if !self.record_uuid.is_empty() && !self.seen_uuids.insert(self.record_uuid.clone()) {
            return Reading::Conversation;
        }
        let owner = self.owner_of(v, file_agent);
        let stamp = self.stamp(v);
        self.fork_before(&owner, D::copied_from(v), &stamp);
        let reading = D::record(self, v, &owner, &stamp);
        self.fork_after(&owner, reading, &stamp);
        reading
    }

    /// Where and when record `v` belongs.
    pub(crate) fn stamp(&self, v: &Value) -> Stamp {
        Stamp {
            session_id: record_session(v),
            turn_id: self.turn.clone(),
            created_at: str_at(v, "timestamp"),
        }
    }

    /// Whether a record with this `uuid` was read already (a copy), marking
    /// it read.
    pub(crate) fn seen_before(&mut self, uuid: &str) -> bool {
        !uuid.is_empty() && !self.seen_uuids.insert(uuid.to_string())
    }

    /// Text a user (or the harness, in their place) sent: a
    /// `<task-notification>` settles its subagent's card; a subagent's first
    /// text is its prompt (shown by its card, not as a row); any other text
    /// of the main conversation starts a turn (`turn-1`, …).
    pub(crate) fn user_text(&mut self, text: &str, owner: &Owner, stamp: &Stamp) {
        if text.contains("<task-notification>") {
            self.notification(text, stamp);
            return;
        }
        if let Owner::Sidechain(key) = owner {
            let child = self.child_mut(key);
            if child.first_prompt.is_empty() {
                child.first_prompt = text.to_string();
                self.links.changed();
            }
            return;
        }
        self.fork.prompt(text);
        self.turns += 1;
        self.turn = Some(format!("turn-{}", self.turns));
        let stamp = Stamp {
            turn_id: self.turn.clone(),
            ..stamp.clone()
        };
        self.push_row(owner, Row::new("", RowKind::UserText, text, &stamp));
    }

    /// A message sent to a running subagent (Claude Code SendMessage, qwen
    /// `send_message`): a user row in its card.
    pub(crate) fn message_to_subagent(&mut self, text: &str, owner: &Owner, stamp: &Stamp) {
        self.push_row(owner, Row::new("", RowKind::UserText, text, stamp));
    }

    /// Appends a row whose id is the current record's uuid (`#2`, … for a
    /// record's further rows).
    pub(crate) fn push_row(&mut self, owner: &Owner, row: Row) -> String {
        let base = if self.record_uuid.is_empty() {
            "log-row"
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
    pub(crate) fn tool_entry(
        &mut self,
        id: &str,
        owner: &Owner,
        stamp: &Stamp,
    ) -> Option<&mut LogTool> {
        let item = self.items.get_or_insert_with(id, || Item {
            owner: owner.clone(),
            body: Body::Tool(Box::new(LogTool {
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

    /// A tool call of a dialect whose calls `tools` sorts: a transport call
    /// is held back from the rows, a launch becomes its card (its arguments
    /// in the shape a card folds), any other is a tool row.
    pub(crate) fn call(
        &mut self,
        tools: &CallTools,
        id: &str,
        name: &str,
        args: Value,
        owner: &Owner,
        stamp: &Stamp,
    ) {
        if tools.transport.contains(&name) {
            self.held.insert(id.to_string());
        } else if name == tools.launch {
            self.tool_use(id, name, &(tools.launch_input)(args), true, owner, stamp);
        } else {
            self.tool_use(id, name, &args, false, owner, stamp);
        }
    }

    /// A tool call `id` named `name` with its `input`; a subagent launch
    /// when `subagent` (its card's payload folds from here). Returns the
    /// call, for what a dialect adds.
    pub(crate) fn tool_use(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        subagent: bool,
        owner: &Owner,
        stamp: &Stamp,
    ) -> Option<&mut LogTool> {
        if id.is_empty() {
            return None;
        }
        let inherited = self
            .fork
            .copying
            .then(|| self.fork.origin().map(str::to_string));
        let tool = self.tool_entry(id, owner, stamp)?;
        tool.call.name = name.to_string();
        if let Some(origin) = inherited.flatten() {
            // A run of the session this one was forked from.
            tool.call
                .extra
                .insert(fork::INHERITED_FROM.into(), origin.into());
        }
        if input.as_object().is_some_and(|o| !o.is_empty()) {
            tool.call.input = input.clone();
        }
        let launched = subagent && tool.subagent.is_none();
        if subagent {
            tool.subagent
                .get_or_insert_with(SubagentFold::default)
                .apply_input(input);
        }
        if launched {
            self.tasks.push(id.to_string());
        }
        if subagent {
            self.links.changed();
        }
        match self.items.get_mut(id) {
            Some(Item {
                body: Body::Tool(tool),
                ..
            }) => Some(tool),
            _ => None,
        }
    }

    /// The result of tool call `id`: its output text, whether it failed,
    /// and the structured result a subagent's card reads
    /// (`SubagentFold::apply_response`). A subagent's agent id, once known,
    /// links its transcript to its card.
    pub(crate) fn tool_result(
        &mut self,
        id: &str,
        output: &str,
        is_error: bool,
        structured: Option<&Value>,
        owner: &Owner,
        stamp: &Stamp,
    ) {
        if id.is_empty() {
            return;
        }
        if self.subagent_mut(id).is_some() {
            // Its window closes: links may change.
            self.links.changed();
        }
        let Some(tool) = self.tool_entry(id, owner, stamp) else {
            return;
        };
        tool.call.status.advance(if is_error {
            ToolStatus::Error
        } else {
            ToolStatus::Complete
        });
        tool.call.output = Some(output.to_string());
        tool.finished_at = parse_rfc3339(&stamp.created_at);
        if self.pending_refusals.contains_key(id) {
            if let Some((status, reason)) = self.pending_refusals.remove(id) {
                self.refused(id, status, &reason);
            }
            return;
        }
        let Some(tool) = self.tool_entry(id, owner, stamp) else {
            return;
        };
        let Some(fold) = &mut tool.subagent else {
            return;
        };
        fold.apply_output(output);
        if is_error {
            fold.mark_failed();
        }
        if let Some(r) = structured {
            fold.apply_response(r);
        }
        let agent = fold.agent_id().to_string();
        if !agent.is_empty() {
            self.link_agent(&agent, id);
        }
    }

    /// Names the agent of subagent call `id` when nothing named it yet (the
    /// agent id a dialect finds elsewhere than in the result).
    pub(crate) fn name_agent(&mut self, id: &str, agent: &str) {
        let Some(fold) = self.subagent_mut(id) else {
            return;
        };
        if fold.agent_id().is_empty() && !agent.is_empty() {
            fold.apply_response(&serde_json::json!({ "agentId": agent }));
            self.link_agent(agent, id);
        }
    }

    /// The records of agent `agent` belong to the card `task` (replacing
    /// what named it before).
    pub(crate) fn link_agent(&mut self, agent: &str, task: &str) {
        let before = self
            .task_of_agent
            .insert(agent.to_string(), task.to_string());
        let child = self.child_index.contains_key(agent);
        self.links.linked(agent, child && before.is_none());
    }

    /// Adds a card `id` inside `parent` for a subagent known whole from a
    /// summary (a workflow run's agent) rather than from a call; records
    /// linked to it (`task_of_agent`) become its children.
    pub(crate) fn add_card(&mut self, id: &str, parent: &str, task: SubagentTask, stamp: &Stamp) {
        let item = Item {
            owner: Owner::Main,
            body: Body::Tool(Box::new(LogTool {
                call: ToolCall {
                    id: id.to_string(),
                    parent: Some(parent.to_string()),
                    name: "Workflow agent".into(),
                    title: task.description.clone(),
                    status: ToolStatus::parse(&task.status).unwrap_or_default(),
                    ..ToolCall::default()
                },
                stamp: stamp.clone(),
                subagent: Some(SubagentFold::from_task(task)),
                finished_at: None,
            })),
        };
        self.items.get_or_insert_with(id, || item);
    }

    /// The stamp of tool call `id` (where a card it launched belongs).
    pub(crate) fn stamp_of(&self, id: &str) -> Option<Stamp> {
        match self.items.get(id) {
            Some(Item {
                body: Body::Tool(tool),
                ..
            }) => Some(tool.stamp.clone()),
            _ => None,
        }
    }

    /// The workflow run `run` was launched by tool call `id`.
    pub(crate) fn workflow_launched(&mut self, run: &str, id: &str) {
        if !run.is_empty() && self.workflow_of(run).is_none() {
            self.workflow_runs.push((run.to_string(), id.to_string()));
        }
    }

    /// The call that launched workflow run `run`.
    pub(crate) fn workflow_of(&self, run: &str) -> Option<&str> {
        self.workflow_runs
            .iter()
            .find(|(r, _)| r == run)
            .map(|(_, id)| id.as_str())
    }

    /// Whether a row or tool call `id` was read.
    pub(crate) fn has_item(&self, id: &str) -> bool {
        self.items.get(id).is_some()
    }

    /// The subagent fold of tool call `id`, if it is a subagent.
    pub(crate) fn subagent_mut(&mut self, id: &str) -> Option<&mut SubagentFold> {
        match self.items.get_mut(id) {
            Some(Item {
                body: Body::Tool(tool),
                ..
            }) => tool.subagent.as_mut(),
            _ => None,
        }
    }

    /// A reply of a subagent's transcript: the model it ran on and its API
    /// message's tokens (the latest message's are the subagent's).
    pub(crate) fn child_reply(
        &mut self,
        owner: &Owner,
        message_id: &str,
        model: &str,
        tokens: u64,
    ) {
        let Owner::Sidechain(key) = owner else {
            return;
        };
        let child = self.child_mut(key);
        if !model.is_empty() && model != "<synthetic>" {
            child.model = model.to_string();
        }
        if tokens > 0 {
            child.last_usage = Some((message_id.to_string(), tokens));
        }
    }

    /// Telemetry reports that agent `agent`'s requests went to `model`.
    pub(crate) fn report_model(&mut self, agent: &str, model: &str) {
        if !agent.is_empty() && !model.is_empty() {
            self.links.touch_child(agent);
            self.reported_models
                .entry(agent.to_string())
                .or_insert_with(|| model.to_string());
        }
    }

    /// A text or thinking block of message `message_id`: a block seen before
    /// is skipped, a longer snapshot of the latest block replaces its text.
    pub(crate) fn text_block(
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
        if let (Owner::Sidechain(child), RowKind::AgentText) = (owner, kind) {
            self.child_mut(child).last_text = text.to_string();
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
}

/// The session id the first conversation records of a `D` file carry (the
/// `sessionId` of a record with a message), or `None` when none names one.
/// A subagent's transcript carries its parent session's id, which is how a
/// child file found beside several sessions finds its own; bookkeeping
/// records of any kind do not decide.
pub(crate) fn session_id<D: Dialect>(text: &str) -> Option<String> {
    jsonl::leading_objects(text, 64)
        .filter(|v| D::is_record(v) && v.get("message").is_some())
        .map(|v| record_session(&v))
        .find(|id| !id.is_empty())
}

/// The session a record belongs to: its `sessionId`, without the
/// `#agent-<id>` a Claude Code workflow agent's records add.
pub(crate) fn record_session(v: &Value) -> String {
    let id = str_at(v, "sessionId");
    match id.split_once('#') {
        Some((session, _)) => session.to_string(),
        None => id,
    }
}
