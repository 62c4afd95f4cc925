//! Codex CLI rollouts (docs/formats.md §8.4, docs/formats.md §3.1):
//! `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, one
//! `{timestamp, type, payload}` record per line, each subagent thread in a
//! rollout of its own whose `session_meta` names its parent thread, read
//! through the session-log fold the other agent CLIs share (`agent_log`).
//!
//! - `spawn_agent` calls are subagents, described by their prompt (the call
//!   has no description) and typed by their `agent_type`, else by the
//!   nickname the CLI gave the agent; `fork_context` makes a fork;
//! - they run in the background: the states `wait_agent` returns and the
//!   `<subagent_notification>`s the parent receives settle the cards
//!   (`completed` with the answer, `errored` with the reason, `shutdown` of
//!   a running agent is a stop), and these calls (`wait_agent`,
//!   `close_agent`) are transport, not rows;
//! - a child thread's records are its card's children, with its model
//!   (`turn_context`), tokens (its last `token_count`) and times; a fork's
//!   copy of its parent's history (between its parent's `session_meta` and
//!   its own first record) is skipped and counted; a message sent to a
//!   running agent (`send_input`) is a user row in its card;
//! - the CLI's setup context (developer instructions, `<environment_context>`)
//!   is not speech, and the event stream that repeats the response items
//!   is skipped and counted (docs/behaviour.md §1).

mod records;

use super::agent_log::Fold;
use super::jsonl::{self, Line};
use crate::model::event::Event;
use crate::model::message::str_at;
use records::Codex;
use serde_json::Value;

/// What a fork's copy of its parent's history counts as (docs/behaviour.md §1).
const INHERITED: &str = "fork's inherited history";

/// Turns a Codex rollout into events.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    import_with_files(text, &[])
}

/// Turns a rollout plus the files found beside it into events: every
/// rollout among them whose thread descends from this one (its
/// `session_meta` names its parent thread) is read as its subagent's
/// transcript; other files are ignored.
pub fn import_with_files(session: &str, files: &[(&str, &str)]) -> Result<Vec<Event>, String> {
    let mut fold = Fold::default();
    read(&mut fold, session, None);
    if fold.records == 0 {
        return Err("no Codex records found (expected a rollout, one JSON record per line)".into());
    }
    let Some(root) = thread_of(session).map(|(id, _)| id) else {
        return Ok(fold.finish());
    };
    let threads: Vec<(String, String, &str)> = files
        .iter()
        .filter_map(|(_, text)| thread_of(text).map(|(id, parent)| (id, parent, *text)))
        .collect();
    let mut family = vec![root];
    let mut read_any = true;
    while read_any {
        read_any = false;
        for (id, parent, text) in &threads {
            if !family.contains(id) && family.contains(parent) {
                family.push(id.clone());
                read(&mut fold, text, Some(id));
                read_any = true;
            }
        }
    }
    Ok(fold.finish())
}

/// Reads one rollout into the fold (`agent`: the thread a child rollout
/// is). A fork's copy of its parent's history, from a `session_meta` of
/// another thread up to the first record that names its own thread, is
/// skipped and counted.
fn read(fold: &mut Fold, text: &str, agent: Option<&str>) {
    let mut reader = Reader::default();
    for line in jsonl::lines(text) {
        reader.line(fold, line, agent);
    }
}

/// Where one rollout's reading stands: its own thread, and whether the
/// lines read now are a fork's inherited history.
#[derive(Default)]
pub(crate) struct Reader {
    own: Option<String>,
    inherited: bool,
}

impl Reader {
    /// The rollout's own thread, once its `session_meta` was read.
    pub(crate) fn thread(&self) -> Option<&str> {
        self.own.as_deref()
    }

    /// Reads the rollout's next line (see `read`).
    pub(crate) fn line(&mut self, fold: &mut Fold, line: Line<'_>, agent: Option<&str>) {
        if let Line::Object { value, .. } = &line {
            if let Some(id) = meta_thread(value) {
                match &self.own {
                    None => self.own = Some(id),
                    Some(own) => self.inherited |= *own != id,
                }
            }
            let payload = value.get("payload").unwrap_or(&Value::Null);
            if self.inherited && self.own.as_deref() == Some(str_at(payload, "thread_id").as_str())
            {
                self.inherited = false;
            }
            if self.inherited {
                fold.items.count_not_shown(INHERITED);
                return;
            }
        }
        fold.read_line::<Codex>(line, agent);
    }
}

/// The thread id a `session_meta` record names.
fn meta_thread(v: &Value) -> Option<String> {
    (str_at(v, "type") == "session_meta")
        .then(|| str_at(v.get("payload").unwrap_or(&Value::Null), "id"))
        .filter(|id| !id.is_empty())
}

/// A rollout's thread and the thread that spawned it (empty for a
/// session of its own), from its first `session_meta`.
pub fn thread_of(text: &str) -> Option<(String, String)> {
    let meta = jsonl::leading_objects(text, 4).find(|v| meta_thread(v).is_some())?;
    thread_of_record(&meta)
}

/// The thread and parent thread a `session_meta` record names (`thread_of`).
pub(crate) fn thread_of_record(meta: &Value) -> Option<(String, String)> {
    meta_thread(meta)?;
    let payload = meta.get("payload")?;
    let spawn = payload
        .get("source")
        .and_then(|s| s.get("subagent"))
        .and_then(|s| s.get("thread_spawn"))
        .unwrap_or(&Value::Null);
    let parent = [
        str_at(payload, "parent_thread_id"),
        str_at(spawn, "parent_thread_id"),
    ]
    .into_iter()
    .find(|p| !p.is_empty())
    .unwrap_or_default();
    Some((str_at(payload, "id"), parent))
}

/// True when `text` is a rollout of a thread another spawned (a subagent's,
/// whose session is its parent's), judged from its first lines.
pub fn spawned_thread(text: &str) -> bool {
    spawned(text) == Some(true)
}

/// Whether `text` is the rollout of a spawned thread (see
/// [`spawned_thread`]); `None` while its `session_meta` is not written yet.
pub fn spawned(text: &str) -> Option<bool> {
    thread_of(text).map(|(_, parent)| !parent.is_empty())
}

/// True when one of the first lines of `text` is a Codex record.
pub fn looks_like(text: &str) -> bool {
    jsonl::leading_objects(text, 32).any(|v| is_record(&v))
}

/// True for a Codex rollout record: a `{timestamp, type, payload}`
/// envelope whose payload is an object (every kind, tomorrow's too, comes
/// in one).
pub(crate) fn is_record(v: &Value) -> bool {
    v.get("payload").is_some_and(Value::is_object)
        && v.get("type").is_some_and(Value::is_string)
        && v.get("timestamp").is_some_and(Value::is_string)
        && v.get("jsonrpc").is_none()
}
