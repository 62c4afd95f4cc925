//! Gemini CLI chat logs (docs/formats.md §8.2):
//! `~/.gemini/tmp/<project>/chats/session-<date>-<id>.jsonl`, a header line
//! then messages and metadata patches (`log`), each subagent's own log in
//! `chats/<session id>/<agent id>.jsonl` (header `kind: "subagent"`), read
//! through the session-log fold the other agent CLIs share (`agent_log`).
//!
//! - `invoke_agent` (and `delegate_to_agent`) calls are subagents, typed by
//!   the agent's name and described by their prompt (the call has no
//!   description); the output says how the agent ended and what it answered;
//! - the call's `agentId` names the agent's log, whose messages are the
//!   card's children (its hand-back call, `complete_task`, is not one) and
//!   whose model, tokens and times are the card's;
//! - the CLI's setup context is not speech, and structure lines are no rows;
//! - a log as builds before JSONL wrote it (one `session-*.json` document,
//!   the messages in `messages`) reads as the same lines;
//! - an agent run as a tool of its own name (early 2026: `codebase_investigator`,
//!   `cli_help`, …) is a subagent too, known by its output (`Subagent <name>
//!   Finished … Termination Reason … Result:`).

mod log;

pub(crate) use log::{Append, Appends};
mod records;

use super::agent_log::Fold;
use crate::model::event::Event;
use crate::model::message::str_at;
use records::Gemini;
use serde_json::Value;

/// The types of a chat log's messages.
const MESSAGE_TYPES: [&str; 5] = ["user", "gemini", "info", "warning", "error"];

/// Turns a Gemini CLI chat log into events.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    import_with_files(text, &[])
}

/// Turns a chat log plus the files found beside it into events: every
/// subagent log among them (`kind: "subagent"`, named by its session id) is
/// read for the call whose `agentId` names it; other files are ignored.
pub fn import_with_files(session: &str, files: &[(&str, &str)]) -> Result<Vec<Event>, String> {
    let lines = document_lines(session);
    let session = lines.as_deref().unwrap_or(session);
    let mut fold = Fold::default();
    read(&mut fold, session, None);
    if fold.records == 0 {
        return Err(
            "no Gemini CLI records found (expected a chat log, one JSON record per line)".into(),
        );
    }
    for (_, text) in files {
        if let Some(agent) = subagent_of(text) {
            read(&mut fold, text, Some(&agent));
        }
    }
    Ok(fold.finish())
}

/// Reads one log, resolved (`log::resolve`), into the fold.
pub(crate) fn read(fold: &mut Fold, text: &str, agent: Option<&str>) {
    for line in log::resolve(text) {
        fold.read_line::<Gemini>(line, agent);
    }
}

/// Reads a log's text resolved (`read`), noting its message ids in
/// `appends` (for a follower to tell its later appends from rewrites).
pub(crate) fn read_resolved(
    fold: &mut Fold,
    text: &str,
    agent: Option<&str>,
    appends: &mut Appends,
) {
    for line in log::resolve(text) {
        if let super::jsonl::Line::Object { value, .. } = &line {
            appends.note(value);
        }
        fold.read_line::<Gemini>(line, agent);
    }
}

/// Reads one line of a session (or, with `agent`, of that agent's
/// transcript) into the fold: how a follower (`follow`) reads new records.
pub(crate) fn read_line(fold: &mut Fold, line: super::jsonl::Line<'_>, agent: Option<&str>) {
    fold.read_line::<Gemini>(line, agent);
}

/// The agent a subagent's log is: its header's `sessionId`, when the header
/// says `kind: "subagent"`.
fn subagent_of(text: &str) -> Option<String> {
    subagent_of_header(&super::jsonl::leading_objects(text, 1).next()?)
}

/// The agent a log whose first record is `header` is (see `subagent_of`).
pub(crate) fn subagent_of_header(header: &Value) -> Option<String> {
    (str_at(header, "kind") == "subagent")
        .then(|| str_at(header, "sessionId"))
        .filter(|id| !id.is_empty())
}

/// The files beside a chat log (relative to its folder, `chats/`) that it
/// refers to and `found` does not hold: each subagent's log,
/// `<session id>/<agent id>.jsonl`.
pub fn companion_paths(session: &str, found: &[(&str, &str)]) -> Vec<String> {
    let Some(id) = super::jsonl::leading_objects(session, 1)
        .next()
        .map(|h| str_at(&h, "sessionId"))
        .filter(|id| !id.is_empty())
    else {
        return Vec::new();
    };
    let mut fold = Fold::default();
    read(&mut fold, session, None);
    fold.launched()
        .into_iter()
        .map(|(_, task)| task.agent_id)
        .filter(|agent| !agent.is_empty())
        .map(|agent| format!("{id}/{agent}.jsonl"))
        .filter(|p| found.iter().all(|(name, _)| name != p))
        .collect()
}

/// A chat log as builds before JSONL wrote it (`session-<time>-<id>.json`,
/// one document: the header's fields with the messages in `messages`,
/// docs/formats.md §3.2) as the lines a JSONL log holds: the header,
/// then each message; `None` for any other text.
fn document_lines(text: &str) -> Option<String> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if !body.starts_with('{') {
        return None;
    }
    let Ok(Value::Object(mut doc)) = serde_json::from_str::<Value>(body) else {
        return None;
    };
    if !is_document(&Value::Object(doc.clone())) {
        return None;
    }
    let Some(Value::Array(messages)) = doc.remove("messages") else {
        return None;
    };
    let mut lines = vec![Value::Object(doc).to_string()];
    lines.extend(messages.iter().map(Value::to_string));
    Some(lines.join("\n"))
}

/// True for a whole single-document chat log: an object with a `messages`
/// list and the header's `projectHash`, or whose messages are all Gemini
/// CLI messages (`is_record`).
pub(crate) fn is_document(doc: &Value) -> bool {
    let Some(messages) = doc.get("messages").and_then(Value::as_array) else {
        return false;
    };
    let header = doc.get("projectHash").is_some() && doc.get("sessionId").is_some();
    header || (!messages.is_empty() && messages.iter().all(is_record))
}

/// True when one of the first lines of `text` is a Gemini CLI record.
pub fn looks_like(text: &str) -> bool {
    super::jsonl::leading_objects(text, 32).any(|v| is_record(&v))
}

/// True for a Gemini CLI log line: its header (`projectHash`), a metadata
/// patch (`$set`, `$rewindTo`), or a message (`id`, `timestamp` and a type
/// of `user`, `gemini`, `info`, `warning` or `error`, without the fields of
/// other dialects' messages).
pub(crate) fn is_record(v: &Value) -> bool {
    let structure = ["projectHash", "$set", "$rewindTo"]
        .iter()
        .any(|k| v.get(*k).is_some());
    let typed =
        ["user", "gemini", "info", "warning", "error"].contains(&str_at(v, "type").as_str());
    let message = typed
        && v.get("id").is_some()
        && v.get("timestamp").is_some()
        && ["uuid", "sessionId", "session_id", "message", "payload"]
            .iter()
            .all(|k| v.get(*k).is_none());
    structure || message
}
