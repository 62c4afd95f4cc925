//! Child transcripts: which subagent each sidechain, child file or progress
//! mirror belongs to, and the events built once every record is read.

use super::super::build::Stamp;
use super::super::subagent_fold::subagent_output;
use super::super::tool::{ToolKind, ToolStatus};
use super::{Body, ChildTranscript, Fold, Item, LogTool, Owner};
use crate::model::event::Event;
use crate::model::message::{bool_at, str_at, Message, SubagentTask};
use crate::model::time::parse_rfc3339;
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
        child.first_time = child.first_time.or(time);
        child.last_time = time.or(child.last_time);
        if child.agent_name.is_empty() {
            child.agent_name = name;
        }
        Owner::Sidechain(key)
    }

    /// The child transcript `key`, added on first sight.
    pub(crate) fn child_mut(&mut self, key: &str) -> &mut ChildTranscript {
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

    /// Resolves every child transcript to its Task and builds the events.
    /// A child transcript belongs to the Task that named its agent id; else
    /// (old inline sidechains) to the next unclaimed Task with its first
    /// prompt; else, for a chain with neither (a trimmed file), to the one
    /// Task that was running when it started; else it stays an orphan.
    pub(crate) fn finish(mut self) -> Vec<Event> {
        for (key, child) in &mut self.children {
            if child.model.is_empty() {
                child.model = self.reported_models.get(key).cloned().unwrap_or_default();
            }
        }
        let mut claimed: HashSet<String> = HashSet::new();
        let mut parent_of: HashMap<String, String> = HashMap::new();
        let mut found: HashMap<String, &ChildTranscript> = HashMap::new();
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
                    found.entry(task.clone()).or_insert(child);
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
            .chain(self.task_of_agent.values())
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
                    let child = found.get(&tool.call.id).copied();
                    Some(tool_message(tool, parent, &stamp, child, &claimed))
                }
            }
        })
    }

    /// The agent ids the session's Tasks name (those that can have a file)
    /// whose records it does not hold (inline or mirrored).
    pub(crate) fn agent_ids_without_records(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .tasks
            .iter()
            .filter_map(|task| match self.items.get(task) {
                Some(Item {
                    body: Body::Tool(tool),
                    ..
                }) => tool.subagent.as_ref().map(|f| f.agent_id().to_string()),
                _ => None,
            })
            .filter(|id| !id.is_empty() && !self.child_index.contains_key(id))
            .collect();
        let mut seen = HashSet::new();
        ids.retain(|id| seen.insert(id.clone()));
        ids
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
    child: Option<&ChildTranscript>,
    claimed: &HashSet<String>,
) -> Message {
    let mut call = tool.call.clone();
    call.parent = parent.or(call.parent);
    match &tool.subagent {
        Some(fold) => {
            let mut task = fold.finish();
            if let Some(child) = child {
                if task.model.is_empty() {
                    task.model = child.model.clone();
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
            call.subagent = Some(task);
        }
        None => call.kind = Some(ToolKind::from_tool_name(&call.name)),
    }
    call.to_message(stamp)
}
