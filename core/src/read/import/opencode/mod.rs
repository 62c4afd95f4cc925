//! OpenCode sessions (docs/formats.md §10): the JSON
//! `opencode export <id>` writes (`{info, messages: [{info, parts}]}`, one
//! session), and the same shape built from its SQLite store by the server.
//! Read through the session-log fold the other agent CLIs share
//! (`agent_log`), one part a record.
//!
//! - a `tool` part with `tool: "task"` is a subagent card: `state.input`
//!   (description, prompt, `subagent_type`, `background`), `state.status`,
//!   `state.time`, `state.metadata.sessionId` (the child session) and
//!   `model`;
//! - a child session (its `info.parentID` names its parent) is the card's
//!   transcript: its messages are the card's children, its first user text
//!   the prompt, its totals the card's tokens;
//! - the result is between `<task_result>` tags in the task's output
//!   (foreground), or, for a background run, in the later synthetic user
//!   text `<task id=… state="completed">`, a notification that settles the
//!   card and is not a user row;
//! - parts that carry no conversation (`step-start`, `step-finish`,
//!   `snapshot`, `patch`, …) are skipped and counted (docs/behaviour.md §1).

mod records;

use super::agent_log::{Fold, Owner};
use super::jsonl::Line;
use crate::model::event::Event;
use crate::model::message::str_at;
use records::{OpenCode, Record};
use serde_json::Value;

/// Turns one `opencode export` JSON into events.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    import_with_files(text, &[])
}

/// Turns an export plus the exports found beside it into events: every
/// session among them that descends from this one (its `info.parentID`
/// names a session of the family) is read as its subagent's transcript;
/// other files are ignored.
pub fn import_with_files(text: &str, files: &[(&str, &str)]) -> Result<Vec<Event>, String> {
    let root: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| format!("not an OpenCode export: {e}"))?;
    let others: Vec<Value> = files
        .iter()
        .filter_map(|(_, t)| serde_json::from_str::<Value>(t).ok())
        .filter(is_export)
        .collect();
    let mut sessions = vec![root];
    sessions.extend(others);
    import_sessions(&sessions)
}

/// Turns sessions in the export's shape into events: the first is the
/// root; each other whose `info.parentID` names a session already taken is
/// read as a child transcript (its card is the task part that names it).
pub fn import_sessions(sessions: &[Value]) -> Result<Vec<Event>, String> {
    let Some(root) = sessions.first().filter(|s| is_export(s)) else {
        return Err("not an OpenCode export (expected {info, messages})".into());
    };
    let root_id = session_of(root);
    let mut fold = Fold::default();
    read_session(&mut fold, root, &root_id, None);
    let mut family = vec![root_id.clone()];
    let mut read_any = true;
    while read_any {
        read_any = false;
        for session in &sessions[1..] {
            let id = session_of(session);
            let parent = str_at(session.get("info").unwrap_or(&Value::Null), "parentID");
            if !id.is_empty() && !family.contains(&id) && family.contains(&parent) {
                family.push(id.clone());
                read_session(&mut fold, session, &root_id, Some(&id));
                read_any = true;
            }
        }
    }
    Ok(fold.finish())
}

/// Reads one session's parts into the fold (`agent`: the child session it
/// is, for a subagent's transcript), its totals first (a child's tokens).
fn read_session(fold: &mut Fold, session: &Value, root: &str, agent: Option<&str>) {
    let info = session.get("info").unwrap_or(&Value::Null);
    if let Some(child) = agent {
        let owner = Owner::Sidechain(child.to_string());
        fold.child_reply(&owner, "", &model_of(info.get("model")), total_tokens(info));
    }
    let messages = session.get("messages").and_then(Value::as_array);
    for message in messages.into_iter().flatten() {
        let info = message.get("info").unwrap_or(&Value::Null);
        let parts = message.get("parts").and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            read_record(fold, Record::part(part, info, root), agent);
        }
        if let Some(error) = Record::error(info, root) {
            read_record(fold, error, agent);
        }
    }
}

fn read_record(fold: &mut Fold, record: Value, agent: Option<&str>) {
    let raw = record.to_string();
    fold.read_line::<OpenCode>(
        Line::Object {
            value: record,
            raw: &raw,
        },
        agent,
    );
}

/// A session's id.
fn session_of(session: &Value) -> String {
    str_at(session.get("info").unwrap_or(&Value::Null), "id")
}

/// The model a session or message names: `{id}` / `{modelID}`, or a string.
pub(crate) fn model_of(model: Option<&Value>) -> String {
    match model {
        Some(Value::String(s)) => s.clone(),
        Some(m) => ["modelID", "id"]
            .iter()
            .map(|k| str_at(m, k))
            .find(|s| !s.is_empty())
            .unwrap_or_default(),
        None => String::new(),
    }
}

/// A session's tokens in all: input, output, reasoning and cache.
fn total_tokens(info: &Value) -> u64 {
    let tokens = info.get("tokens").unwrap_or(&Value::Null);
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cache = tokens.get("cache").unwrap_or(&Value::Null);
    super::tokens::total([
        n(tokens, "input"),
        n(tokens, "output"),
        n(tokens, "reasoning"),
        n(cache, "read"),
        n(cache, "write"),
    ])
}

/// True for one session as `opencode export` writes it: `info` naming a
/// session id and a `messages` list.
pub(crate) fn is_export(doc: &Value) -> bool {
    doc.get("info")
        .and_then(|i| i.get("id"))
        .and_then(Value::as_str)
        .is_some_and(|id| !id.is_empty())
        && doc.get("messages").is_some_and(Value::is_array)
}

/// True when `head` (the first bytes of a file, the rest maybe cut off) is
/// the export of a subagent's session: its `info`, which `opencode export`
/// writes first, names a parent (`parentID`). Such an export opens with its
/// root session's, not as a session of its own.
pub fn spawned_session(head: &str) -> bool {
    session_lineage(head).is_some_and(|(_, parent)| !parent.is_empty())
}

/// The session id an export's `info` names and its parent's (`parentID`,
/// empty for a root session), read from `head` as [`spawned_session`] reads it.
pub fn session_lineage(head: &str) -> Option<(String, String)> {
    let head = head.trim_start_matches('\u{feff}').trim_start();
    let info = match serde_json::from_str::<Value>(head) {
        Ok(doc) => is_export(&doc).then(|| doc["info"].clone()),
        Err(_) => leading_info(head),
    }?;
    Some((str_at(&info, "id"), str_at(&info, "parentID")))
}

/// The `info` object that opens a document cut off after it
/// (`{"info": {…}, "messages": [… cut`), or `None`.
fn leading_info(head: &str) -> Option<Value> {
    let rest = head.strip_prefix('{')?.trim_start();
    let rest = rest.strip_prefix("\"info\"")?.trim_start();
    let rest = rest.strip_prefix(':')?;
    let info = serde_json::Deserializer::from_str(rest)
        .into_iter::<Value>()
        .next()?
        .ok()?;
    (info.is_object() && !str_at(&info, "id").is_empty()).then_some(info)
}

/// The exports of the child sessions that an export's task parts name, or
/// the task parts of the exports already `found` (so a nested tree is
/// fetched round after round), as `<session id>.json` (the name the
/// captures keep them by), that `found` does not hold yet.
pub fn companion_paths(text: &str, found: &[(&str, &str)]) -> Vec<String> {
    let mut wanted = Vec::new();
    for source in std::iter::once(text).chain(found.iter().map(|(_, t)| *t)) {
        let Ok(doc) = serde_json::from_str::<Value>(source) else {
            continue;
        };
        for child in child_sessions(&doc) {
            let name = format!("{child}.json");
            let held = found
                .iter()
                .any(|(n, _)| n.rsplit('/').next() == Some(name.as_str()));
            if !held && !wanted.contains(&name) {
                wanted.push(name);
            }
        }
    }
    wanted
}

/// Whether the transcript `text` opened by URL `src` (`….json`) is an
/// export whose task parts name child sessions: their exports, beside it,
/// are fetched in rounds like a session's companions (`companion_paths`).
pub fn exports_beside(src: &str, text: &str) -> bool {
    let path = src.split(['?', '#']).next().unwrap_or("");
    path.ends_with(".json") && !companion_paths(text, &[]).is_empty()
}

/// The child sessions an export's task parts name (ids made of letters,
/// digits and `_`, so a name never leaves the folder).
fn child_sessions(doc: &Value) -> Vec<String> {
    let messages = doc.get("messages").and_then(Value::as_array);
    messages
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("parts").and_then(Value::as_array))
        .flatten()
        .filter(|p| str_at(p, "tool") == "task")
        .map(|p| {
            let meta = p.get("state").and_then(|s| s.get("metadata"));
            str_at(meta.unwrap_or(&Value::Null), "sessionId")
        })
        .filter(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_sessions_export_is_spawned_even_cut_after_its_info() {
        let child = r#"{
  "info": {"id": "ses_c", "parentID": "ses_r", "title": "Check (@general subagent)"},
  "messages": [{"info": {"id": "msg_1"}, "parts": [{"type": "te"#;
        assert!(spawned_session(child), "cut mid-message");
        assert!(spawned_session(&format!("\u{feff}{child}")), "after a BOM");
        let whole = r#"{"messages": [], "info": {"id": "ses_c", "parentID": "ses_r"}}"#;
        assert!(spawned_session(whole), "whole, in any key order");
    }

    #[test]
    fn a_root_export_or_another_file_is_not_spawned() {
        let root = r#"{"info": {"id": "ses_r", "title": "Scripted session"}, "messages": [{"#;
        assert!(!spawned_session(root));
        assert!(!spawned_session(
            r#"{"info": {"id": "ses_r", "parentID": null}, "messages": []}"#
        ));
        assert!(!spawned_session(
            r#"{"info": {"parentID": "ses_r"}, "messages": ["#
        ));
        assert!(!spawned_session(r#"{"info": "ses_c", "parentID": "ses_r""#));
        assert!(!spawned_session(
            r#"{"parentID": "ses_r", "info": {"id": "x""#
        ));
        assert!(!spawned_session(""));
        assert!(!spawned_session("{\"type\":\"user\"}\n"));
    }
}
