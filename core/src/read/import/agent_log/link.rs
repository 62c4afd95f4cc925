//! Child transcripts: which subagent each sidechain, child file or progress
//! mirror belongs to, and the events built from the fold (once every record
//! is read, or after each push of a follower).
//!
//! The links are worked out again only when what decides them changed (a
//! child transcript, its first prompt or time, a subagent call, its result,
//! an agent named), and only the rows whose card or turn moved, and the
//! cards whose transcript grew, are drained again.

use super::super::build::Stamp;
use super::super::subagent_fold::{subagent_output, SubagentFold};
use super::super::tool::{ToolKind, ToolStatus};
use super::{Body, ChildTranscript, Fold, Item, LogTool, Owner};
use crate::model::event::Event;
use crate::model::message::{bool_at, str_at, Message, SubagentTask};
use crate::model::time::{format_millis, parse_rfc3339};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

impl Fold {
    /// Who record `v` belongs to: the child transcript of the file it was
    /// read from (`file_agent`), or of the agent its sidechain names (or
    /// the chain it continues); else the main conversation.
    pub(crate) fn owner_of(&mut self, v: &Value, file_agent: Option<&str>) -> Owner {
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
        let time = record_time(v);
        let name = str_at(v, "agentName");
        let child = self.child_mut(&key);
        let first = child.first_time.is_none() && time.is_some();
        child.first_time = child.first_time.or(time);
        child.last_time = time.or(child.last_time);
        if child.agent_name.is_empty() {
            child.agent_name = name;
        }
        if first {
            self.links.changed();
        }
        Owner::Sidechain(key)
    }

    /// The child transcript `key`, added on first sight.
    pub(crate) fn child_mut(&mut self, key: &str) -> &mut ChildTranscript {
        self.links.touch_child(key);
        let at = match self.child_index.get(key) {
            Some(&at) => at,
            None => {
                let linked = self.task_of_agent.contains_key(key);
                self.links.new_child(key, linked);
                self.children
                    .push((key.to_string(), ChildTranscript::default()));
                self.child_index
                    .insert(key.to_string(), self.children.len() - 1);
                self.children.len() - 1
            }
        };
        &mut self.children[at].1
    }

    /// The events of the whole fold (see `drain`).
    pub(crate) fn finish(mut self) -> Vec<Event> {
        self.drain()
    }

    /// The events that bring a store fed with every earlier drain up to
    /// date (`Ordered::drain`): the links worked out again when what
    /// decides them changed, the rows whose card or turn moved and the
    /// cards whose transcript grew or whose link changed drained again.
    pub(crate) fn drain(&mut self) -> Vec<Event> {
        self.apply_pending_completions();
        for at in self.items.undrained() {
            let item = self.items.item(at);
            if let Owner::Sidechain(key) = &item.owner {
                self.links.items_of.entry(key.clone()).or_default().push(at);
            }
            if let Body::Tool(tool) = &item.body {
                let id = tool.call.id.clone();
                self.links
                    .turn_of
                    .insert(id.clone(), tool.stamp.turn_id.clone());
                // Rows drained before their card came take its turn now.
                let keys = self.links.children_of.get(&id).cloned().unwrap_or_default();
                for key in keys {
                    self.touch_rows_of(&key);
                }
            }
        }
        let changed = self.links.epoch != self.links.linked_at;
        if self.links.unlinked > 0 && (changed || !self.links.changed_keys.is_empty()) {
            self.relink();
        } else if !self.links.changed_keys.is_empty() {
            self.relink_linked();
        }
        for key in std::mem::take(&mut self.links.touched_children) {
            if let Some(task) = self.links.card_of.get(&key) {
                self.items.touch(task);
            }
        }
        let Fold {
            items,
            links,
            children,
            child_index,
            reported_models,
            sidecars,
            child_files_read,
            ..
        } = self;
        items.drain(|item| {
            let parent = match &item.owner {
                Owner::Main => None,
                Owner::Sidechain(key) => links.parent_of.get(key).cloned(),
            };
            let turn = parent.as_ref().and_then(|p| links.turn_of.get(p).cloned());
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
                    let child = links.found.get(&tool.call.id).and_then(|key| {
                        let child = &children[*child_index.get(key)?].1;
                        let model = match child.model.as_str() {
                            "" => reported_models.get(key).map_or("", String::as_str),
                            model => model,
                        };
                        Some((child, model))
                    });
                    let sidecars = sidecars.get(&tool.call.id).map_or(&[][..], Vec::as_slice);
                    Some(tool_message(
                        tool,
                        parent,
                        &stamp,
                        child,
                        &links.claimed,
                        sidecars,
                        *child_files_read,
                    ))
                }
            }
        })
    }

    /// Marks every row of child transcript `key` changed.
    fn touch_rows_of(&mut self, key: &str) {
        for &at in self.links.items_of.get(key).map_or(&[][..], Vec::as_slice) {
            self.items.touch_item(at);
        }
    }

    /// Links the child transcripts named since the last drain when every
    /// child transcript's agent is named (`task_of_agent`): each belongs to
    /// the Task that named it, so only theirs move; the cards they leave or
    /// join are marked changed (what `relink` would work out, without
    /// reading every child).
    fn relink_linked(&mut self) {
        for key in std::mem::take(&mut self.links.changed_keys) {
            let index = &self.child_index;
            let (Some(&at), Some(task)) = (index.get(&key), self.task_of_agent.get(&key)) else {
                continue;
            };
            let task = task.clone();
            let old = self.links.parent_of.insert(key.clone(), task.clone());
            if old.as_ref() == Some(&task) {
                continue;
            }
            if let Some(old) = old {
                let siblings = self.links.children_of.entry(old.clone()).or_default();
                siblings.retain(|k| *k != key);
                let first = siblings
                    .iter()
                    .filter_map(|k| Some((*index.get(k)?, k.clone())))
                    .min();
                if siblings.is_empty() {
                    self.links.children_of.remove(&old);
                    if self.links.claimed.remove(&old) {
                        self.items.touch(&old);
                    }
                }
                if self.links.found.get(&old) == Some(&key) {
                    self.links.card_of.remove(&key);
                    match first {
                        Some((_, next)) => {
                            self.links.card_of.insert(next.clone(), old.clone());
                            self.links.found.insert(old.clone(), next);
                        }
                        None => {
                            self.links.found.remove(&old);
                        }
                    }
                    self.items.touch(&old);
                }
            }
            self.links
                .children_of
                .entry(task.clone())
                .or_default()
                .push(key.clone());
            if self.links.claimed.insert(task.clone()) {
                self.items.touch(&task);
            }
            let first = match self.links.found.get(&task) {
                Some(found) => index.get(found).is_none_or(|&f| at < f),
                None => true,
            };
            if first {
                if let Some(previous) = self.links.found.insert(task.clone(), key.clone()) {
                    self.links.card_of.remove(&previous);
                }
                self.links.card_of.insert(key.clone(), task.clone());
                self.items.touch(&task);
            }
            self.touch_rows_of(&key);
        }
    }

    /// Resolves every child transcript to its Task. A child transcript
    /// belongs to the Task that named its agent id; else (old inline
    /// sidechains) to the next unclaimed Task with its first prompt; else,
    /// for a chain with neither (a trimmed file), to the one Task that was
    /// running when it started; else it stays an orphan. The rows of a
    /// child whose card changed, and the cards whose child or claim
    /// changed, are marked changed.
    fn relink(&mut self) {
        let mut claimed: HashSet<String> = HashSet::new();
        let mut parent_of: HashMap<String, String> = HashMap::new();
        let mut found: HashMap<String, String> = HashMap::new();
        // Tasks by prompt, each list with a cursor past the tasks already taken.
        let mut by_prompt: HashMap<String, (Vec<String>, usize)> = HashMap::new();
        for task in &self.tasks {
            let prompt = self.task_prompt(task).trim().to_string();
            if !prompt.is_empty() {
                by_prompt.entry(prompt).or_default().0.push(task.clone());
            }
        }
        let windows = self.task_windows();
        for (key, child) in &self.children {
            let task = self
                .task_of_agent
                .get(key)
                .cloned()
                .or_else(|| {
                    let (tasks, next) = by_prompt.get_mut(child.first_prompt.trim())?;
                    while let Some(task) = tasks.get(*next) {
                        *next += 1;
                        if !claimed.contains(task) {
                            return Some(task.clone());
                        }
                    }
                    None
                })
                .or_else(|| {
                    let started = child.first_time.filter(|_| key.starts_with("sidechain-"))?;
                    let mut running = windows.iter().filter(|(_, from, to)| {
                        from.is_some_and(|f| f <= started) && to.is_none_or(|t| started <= t)
                    });
                    let (task, _, _) = running.next()?;
                    running.next().is_none().then(|| task.clone())
                });
            let parent = match task {
                Some(task) => {
                    claimed.insert(task.clone());
                    found.entry(task.clone()).or_insert_with(|| key.clone());
                    task
                }
                None if key.starts_with("sidechain-") || key.starts_with("progress-") => {
                    key.clone()
                }
                None => format!("agent-{key}"),
            };
            parent_of.insert(key.clone(), parent);
        }
        let moved: Vec<String> = parent_of
            .iter()
            .filter(|(key, parent)| self.links.parent_of.get(*key) != Some(*parent))
            .map(|(key, _)| key.clone())
            .collect();
        let mut cards: HashSet<String> = HashSet::new();
        for (task, key) in found.iter().chain(self.links.found.iter()) {
            if found.get(task) != Some(key) || self.links.found.get(task) != Some(key) {
                cards.insert(task.clone());
            }
        }
        cards.extend(claimed.symmetric_difference(&self.links.claimed).cloned());
        let mut children_of: HashMap<String, Vec<String>> = HashMap::new();
        for (key, parent) in &parent_of {
            children_of
                .entry(parent.clone())
                .or_default()
                .push(key.clone());
        }
        self.links.card_of = found.iter().map(|(t, k)| (k.clone(), t.clone())).collect();
        self.links.parent_of = parent_of;
        self.links.children_of = children_of;
        self.links.found = found;
        self.links.claimed = claimed;
        self.links.linked_at = self.links.epoch;
        self.links.changed_keys.clear();
        for key in moved {
            self.touch_rows_of(&key);
        }
        for card in cards {
            self.items.touch(&card);
        }
    }

    /// The agent ids the session's Tasks name (those that can have a file)
    /// whose records it does not hold (inline or mirrored), each with the
    /// session whose folder holds its file when that is not this one's (a
    /// run a fork inherited).
    pub(crate) fn agent_ids_without_records(&self) -> Vec<(String, Option<String>)> {
        let mut ids: Vec<(String, Option<String>)> = self
            .tasks
            .iter()
            .filter_map(|task| match self.items.get(task) {
                Some(Item {
                    body: Body::Tool(tool),
                    ..
                }) => tool
                    .subagent
                    .as_ref()
                    .map(|f| (f.agent_id().to_string(), self.inherited_origin(task))),
                _ => None,
            })
            .filter(|(id, _)| !id.is_empty() && !self.child_index.contains_key(id))
            .collect();
        let mut seen = HashSet::new();
        ids.retain(|(id, _)| seen.insert(id.clone()));
        ids
    }

    /// The session call `id` was copied from, when it is a run a fork
    /// inherited (its transcript lies in that session's folder).
    pub(crate) fn inherited_origin(&self, id: &str) -> Option<String> {
        match self.items.get(id) {
            Some(Item {
                body: Body::Tool(tool),
                ..
            }) => tool
                .call
                .extra
                .get(super::fork::INHERITED_FROM)
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        }
    }

    /// Each subagent call's id and payload so far, in launch order.
    pub(crate) fn launched(&self) -> Vec<(String, SubagentTask)> {
        self.tasks
            .iter()
            .filter_map(|id| match self.items.get(id) {
                Some(Item {
                    body: Body::Tool(tool),
                    ..
                }) => Some((id.clone(), tool.subagent.as_ref()?.finish())),
                _ => None,
            })
            .collect()
    }

    /// Whether the records of agent `agent` were read.
    pub(crate) fn has_records_of(&self, agent: &str) -> bool {
        self.child_index.contains_key(agent)
    }

    /// Each Task's run: from its call to its result (open while it has none).
    fn task_windows(&self) -> Vec<(String, Option<i128>, Option<i128>)> {
        self.tasks
            .iter()
            .filter_map(|id| match self.items.get(id) {
                Some(Item {
                    body: Body::Tool(tool),
                    ..
                }) => Some((
                    id.clone(),
                    parse_rfc3339(&tool.stamp.created_at),
                    tool.finished_at,
                )),
                _ => None,
            })
            .collect()
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

/// When record `v` was written: its `timestamp`, a log header's
/// `startTime`, or a metadata patch's `lastUpdated` (Gemini CLI).
fn record_time(v: &Value) -> Option<i128> {
    let patch = v.get("$set").unwrap_or(&Value::Null);
    [
        str_at(v, "timestamp"),
        str_at(v, "startTime"),
        str_at(patch, "lastUpdated"),
    ]
    .iter()
    .find_map(|t| parse_rfc3339(t))
}

/// A tool call as a message; `child` is the transcript of the subagent it
/// ran, when one was found: its model, prompt and tokens fill what the call
/// lacks (a nested launch's result carries no metrics), and its last text is
/// the answer of a completed run that delivered none. A duration the call
/// lacks is its call-to-result time when it ran in the foreground and the
/// two differ, else its transcript's first-to-last record time.
fn tool_message(
    tool: &LogTool,
    parent: Option<String>,
    stamp: &Stamp,
    child: Option<(&ChildTranscript, &str)>,
    claimed: &HashSet<String>,
    sidecars: &[(String, Value)],
    transcripts_read: bool,
) -> Message {
    let (child, child_model) = (child.map(|(c, _)| c), child.map_or("", |(_, m)| m));
    let mut call = tool.call.clone();
    call.parent = parent.or(call.parent);
    let filled = (!sidecars.is_empty()).then(|| {
        tool.subagent.clone().map(|mut fold| {
            for (agent, meta) in sidecars {
                fold.apply_sidecar(agent, meta);
            }
            fold
        })
    });
    match filled.flatten().as_ref().or(tool.subagent.as_ref()) {
        Some(fold) => {
            let mut task = fold.finish();
            if let Some(child) = child {
                if task.model.is_empty() {
                    task.model = child_model.to_string();
                }
                if task.prompt.is_empty() {
                    task.prompt = child.first_prompt.clone();
                }
                task.total_tokens = task.total_tokens.or(child.last_usage.as_ref().map(|u| u.1));
                if task.result_text.is_empty() && task.status == "completed" {
                    task.result_text = child.last_text.clone();
                }
            }
            if task.duration_ms.is_none() {
                let called = parse_rfc3339(&tool.stamp.created_at);
                let transcript = child
                    .and_then(|c| c.first_time.zip(c.last_time))
                    .filter(|(from, to)| from < to);
                let call = called
                    .zip(tool.finished_at)
                    .filter(|(from, to)| from < to && !task.is_async);
                let span = call.or(transcript);
                task.duration_ms =
                    span.and_then(|(from, to)| u64::try_from((to - from) / 1_000_000).ok());
            }
            if !task.agent_id.is_empty() && !claimed.contains(&call.id) {
                call.extra
                    .insert("transcript_not_loaded".into(), true.into());
            }
            let ended = child
                .and_then(|c| c.ended.as_ref())
                .filter(|_| fold.is_awaiting_completion());
            if let Some((status, text)) = ended {
                // Nothing delivered its result; its own records say how it ended.
                task.status = status.clone();
                if task.result_text.is_empty() {
                    task.result_text = match (text.is_empty(), child) {
                        (true, Some(c)) if status == "completed" => c.last_text.clone(),
                        _ => text.clone(),
                    };
                }
                call.status = ToolStatus::parse(status).unwrap_or(ToolStatus::Complete);
            } else if fold.is_awaiting_completion() {
                call.status = ToolStatus::InProgress;
            }
            call.output = call.output.as_deref().and_then(subagent_output);
            call.kind = Some(ToolKind::Subagent);
            mark_start(&mut task, fold, child, call.status, transcripts_read);
            call.subagent = Some(task);
        }
        None => call.kind = Some(ToolKind::from_tool_name(&call.name)),
    }
    call.to_message(stamp)
}

/// When a run's own records began (`started_at`), and whether its CLI
/// still holds it in a queue (docs/behaviour.md §3.4): a launch its CLI
/// may queue (`SubagentFold::may_queue`) with no record of its own yet,
/// no result and nothing that settled it, judged only where the session's
/// transcripts are read (`transcripts_read`: a file opened alone says
/// nothing of when its runs began).
fn mark_start(
    task: &mut SubagentTask,
    fold: &SubagentFold,
    child: Option<&ChildTranscript>,
    call: ToolStatus,
    transcripts_read: bool,
) {
    let started = child.and_then(|c| c.first_time);
    if let Some(at) = started.and_then(|t| i64::try_from(t / 1_000_000).ok()) {
        task.started_at = format_millis(at);
    }
    let settled = matches!(
        task.status.as_str(),
        "completed" | "failed" | "cancelled" | "blocked" | "denied"
    ) || matches!(
        call,
        ToolStatus::Error | ToolStatus::Cancelled | ToolStatus::Blocked | ToolStatus::Denied
    );
    task.is_queued = transcripts_read
        && fold.may_queue()
        && started.is_none()
        && task.answer().is_empty()
        && !settled;
}

/// Which card each child transcript belongs to, as last worked out, and
/// what changed since. See the module docs.
#[derive(Default)]
pub(crate) struct Links {
    /// Bumped whenever what decides the links of child transcripts whose
    /// agent no Task named changes (the Tasks, their prompts and run times,
    /// the children's first prompts and times); `linked_at` is the value
    /// they were worked out at.
    epoch: u64,
    linked_at: u64,
    /// Child transcripts whose agent no Task named yet: while there is
    /// none, a drain links only the `changed_keys` (`relink_linked`).
    unlinked: usize,
    /// Child transcripts added or named since the last drain.
    changed_keys: HashSet<String>,
    /// Child transcript → its card (or orphan parent key).
    parent_of: HashMap<String, String>,
    /// Card → its child transcripts.
    children_of: HashMap<String, Vec<String>>,
    /// Card → the child transcript that fills it, and back.
    found: HashMap<String, String>,
    card_of: HashMap<String, String>,
    /// Cards some child transcript belongs to.
    claimed: HashSet<String>,
    /// Tool call → its turn.
    turn_of: HashMap<String, Option<String>>,
    /// Child transcript → its rows (item indices).
    items_of: HashMap<String, Vec<usize>>,
    /// Child transcripts read since the last drain.
    touched_children: HashSet<String>,
}

impl Links {
    /// What decides the links of unnamed child transcripts changed: work
    /// them out again at the next drain.
    pub(crate) fn changed(&mut self) {
        self.epoch += 1;
    }

    /// A child transcript `key` was added; `named` when a Task named its agent.
    pub(crate) fn new_child(&mut self, key: &str, named: bool) {
        self.unlinked += usize::from(!named);
        self.changed_keys.insert(key.to_string());
        self.epoch += 1;
    }

    /// A Task named agent `key`; `was_unnamed` when it is a child
    /// transcript no Task had named.
    pub(crate) fn linked(&mut self, key: &str, was_unnamed: bool) {
        self.unlinked -= usize::from(was_unnamed);
        self.changed_keys.insert(key.to_string());
        self.epoch += 1;
    }

    /// Child transcript `key` changed: its card is drained again.
    pub(crate) fn touch_child(&mut self, key: &str) {
        if !self.touched_children.contains(key) {
            self.touched_children.insert(key.to_string());
        }
    }
}
