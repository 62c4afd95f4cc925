//! qwen-code chat recordings (docs/formats.md §8.1):
//! `~/.qwen/projects/<project>/chats/<session>.jsonl`, with each subagent's
//! transcript and sidecar under `subagents/<session>/` beside `chats/`
//! (`agent-<type>-<call id>.jsonl`, `.meta.json`), read through the
//! session-log fold Claude Code shares (`agent_log`).
//!
//! - `agent` (formerly `task`) calls are subagents: type, description and
//!   prompt from the call; a foreground result's `task_execution` display
//!   gives status, answer, tokens, duration and tool count; a background
//!   launch (`Background agent launched successfully.`, `task_id: <agent>`)
//!   runs until its `<task-notification>` (a `notification` user record, or
//!   a system `notification`) settles it;
//! - a fork (`subagent_type: "fork"`) is a card of type `fork`; the history
//!   it inherits (`system:agent_bootstrap`) and its launch prompt are not
//!   shown; its own work is its children;
//! - sidecars link every agent to its call (`toolUseId`, nested agents by
//!   their parent's transcript) and fill its type, status and model;
//! - a message sent to a running subagent (`send_message`) is a user row in
//!   its card;
//! - a `workflow` call is a card holding one card per agent its run
//!   dispatched (`workflow`);
//! - telemetry (`system:ui_telemetry`) and other bookkeeping are skipped and
//!   counted (docs/behaviour.md §1).

mod records;
mod session_events;
mod workflow;

use super::agent_log::{Fold, Metas};
use super::companions::{companion, Companion};
use super::jsonl;
use crate::model::event::Event;
use crate::model::message::str_at;
use records::Qwen;
use serde_json::Value;

/// Turns a qwen-code chat recording into events.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    import_with_files(text, &[])
}

/// Turns a chat recording plus the files found beside it into events:
/// `(name or relative path, contents)`, its subagents' transcripts
/// (`agent-<id>.jsonl`), their sidecars (`agent-<id>.meta.json`) and its
/// workflow runs' summaries (`workflows/<run>.json`); a transcript whose
/// records name another session is that session's, and other files are
/// ignored.
pub fn import_with_files(session: &str, files: &[(&str, &str)]) -> Result<Vec<Event>, String> {
    let mut fold = Fold::default();
    fold.read::<Qwen>(session, None);
    if fold.records == 0 {
        return Err("no qwen-code records found (expected one JSON record per line)".into());
    }
    let mut metas = Metas::default();
    for (name, text) in files {
        metas.read(name, text);
    }
    fold.link_sidecars(&metas);
    let runs = workflow::runs(files);
    fold.apply_runs(&runs);
    fold.read_transcripts::<Qwen>(session, files, |name, _| match companion(name) {
        Companion::Transcript { agent, .. } => Some(agent.to_string()),
        _ => None,
    });
    fold.link_run_agents(&runs);
    Ok(fold.finish())
}

/// The files beside the chat `stem` (paths relative to its folder,
/// `chats/`) that it refers to and `found` does not hold yet: the
/// transcript and sidecar of each subagent it (or a transcript found so
/// far) launched, `../subagents/<stem>/agent-<agent id>.jsonl` and
/// `.meta.json`, the agent id being the one its launch named, else qwen's
/// `<type>-<call id>`, and the summary of each workflow run it launched
/// (`../workflows/<run>.json`; its agents' transcripts are named by no file,
/// only a folder holds them). Opening a chat by URL fetches these in rounds.
pub fn companion_paths(stem: &str, session: &str, found: &[(&str, &str)]) -> Vec<String> {
    let mut fold = Fold::default();
    fold.read::<Qwen>(session, None);
    for (name, text) in found {
        if let Companion::Transcript { agent, .. } = companion(name) {
            fold.read::<Qwen>(text, Some(agent));
        }
    }
    let mut paths: Vec<String> = fold
        .workflow_runs
        .iter()
        .map(|(run, _)| format!("../workflows/{run}.json"))
        .collect();
    for (call, task) in fold.launched() {
        let agent = if task.agent_id.is_empty() {
            let kind = if task.subagent_type.is_empty() {
                "general-purpose"
            } else {
                &task.subagent_type
            };
            format!("{kind}-{call}")
        } else {
            task.agent_id
        };
        if !fold.has_records_of(&agent) {
            for file in ["jsonl", "meta.json"] {
                paths.push(format!("../subagents/{stem}/agent-{agent}.{file}"));
            }
        }
    }
    paths.retain(|p| found.iter().all(|(name, _)| name != p));
    paths
}

/// Reads one line of a session (or, with `agent`, of that agent's
/// transcript) into the fold: how a follower (`follow`) reads new records.
pub(crate) fn read_line(fold: &mut Fold, line: super::jsonl::Line<'_>, agent: Option<&str>) {
    fold.read_line::<Qwen>(line, agent);
}

/// True when one of the first lines of `text` is a qwen-code record.
pub fn looks_like(text: &str) -> bool {
    jsonl::leading_objects(text, 32).any(|v| is_record(&v))
}

/// True for a qwen-code chat record: a `user`, `assistant`, `tool_result`
/// or `system` record whose message is Gemini-style (`parts`), or that
/// carries qwen's own fields (`toolCallResult`, `systemPayload`,
/// `usageMetadata`). Claude Code's records have `content` instead.
pub(crate) fn is_record(v: &Value) -> bool {
    let typed =
        ["user", "assistant", "tool_result", "system"].contains(&str_at(v, "type").as_str());
    let gemini = v
        .get("message")
        .is_some_and(|m| m.get("parts").is_some_and(Value::is_array));
    let own = ["toolCallResult", "systemPayload", "usageMetadata"]
        .iter()
        .any(|k| v.get(*k).is_some());
    typed && (gemini || own)
}
