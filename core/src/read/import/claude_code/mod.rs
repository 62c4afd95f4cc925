//! Claude Code session transcripts, `~/.claude/projects/<project>/<session>.jsonl`
//! (docs/formats.md §2), with the subagents' own transcripts either
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
//!   to the Task whose result (or whose result's record, in 2.0.x, or whose
//!   `.meta.json` sidecar) named its `agentId`; an old inline sidechain
//!   without `agentId` is matched by its first prompt against the Tasks'
//!   prompts, else by time to the one Task running when it started; an
//!   unmatched one stays an orphan under the parent id `agent-<agentId>` (or
//!   `sidechain-<uuid>`); a sidechain's own user text (its prompt) is not a
//!   row;
//! - `agent_progress` mirrors and the child file carry the same record uuids:
//!   each record is read once; other progress kinds are no rows;
//! - a `Workflow` call is a `workflow` card holding one card per run agent
//!   (see `workflow`); a team agent (`name`, no description) is described by
//!   its name;
//! - a subagent with an agent id but no child records at all gets
//!   `metadata.transcript_not_loaded: true` and keeps its reported counts;
//! - a background run (`async_launched`) finishes through a later
//!   `<task-notification>` (a user record, a `queue-operation` or a
//!   `queued_command` attachment), found by `<tool-use-id>` or by
//!   `<task-id>` = agent id; its `<result>` replaces the launch placeholder;
//!   a notification for no known Task (a background command) becomes one
//!   status row, however many times it is written; in 2.0.x a `TaskOutput`
//!   poll whose output holds `--- RESULT ---` settles it (`task_output`);
//! - each typed user prompt starts a turn (`turn-1`, …); injected (`isMeta`)
//!   text is skipped, a compaction, a slash command and API retries are one
//!   quiet row each (`session_events`), other harness text (interruptions)
//!   is a status row, `system` records with text are status (or error) rows,
//!   and other record types are ignored; unreadable lines keep their
//!   position;
//! - an API error that ends a subagent's file (a `<synthetic>` message) is
//!   how its run ended when nothing else settled it.

mod harness;
mod records;
mod session_events;
mod task_output;
mod workflow;

pub use super::companions::{agent_file_id, companion, Companion};

use super::companions::is_agent_id;

use super::agent_log::{self, Fold};
use super::jsonl;
use crate::model::event::Event;
use crate::model::message::str_at;
use records::Claude;
use serde_json::Value;
use workflow::Sidecars;

/// Turns a Claude Code session file into events.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    import_with_files(text, &[])
}

/// Turns a session file plus the files found beside it into events.
/// `files` are `(name or relative path, contents)`, told apart by
/// `companion`: sidecars and workflow runs are read first, then the
/// subagent transcripts (`agent-<id>.jsonl`, or any JSONL file whose
/// sidechain records name their agent and this session); the rest are
/// ignored.
pub fn import_with_files(session: &str, files: &[(&str, &str)]) -> Result<Vec<Event>, String> {
    let mut sidecars = Sidecars::default();
    for (name, text) in files {
        sidecars.read(name, text);
    }
    let mut fold = Fold::default();
    // Sidecars first: a nested agent's notification, queued in the main
    // file, is then known for a subagent's before its launch is read.
    fold.link_sidecars(&sidecars.metas);
    fold.read::<Claude>(session, None);
    if fold.records == 0 {
        return Err("no Claude Code records found (expected one JSON record per line)".into());
    }
    fold.apply_sidecars(&sidecars);
    fold.read_transcripts::<Claude>(session, files, |name, text| match companion(name) {
        Companion::Transcript { agent, .. } => Some(agent.to_string()),
        Companion::Other if name.ends_with(".jsonl") => transcript_agent(text),
        _ => None,
    });
    Ok(fold.finish())
}

/// The files beside session `stem` (paths relative to the session file's
/// folder) that the session refers to and `found` does not hold yet: the
/// transcripts of its subagents whose records it does not hold itself
/// (`<stem>/subagents/agent-<id>.jsonl`, by the agent ids its Tasks name,
/// and those of subagents' own Tasks once their transcripts are found),
/// each found transcript's `.meta.json` sidecar, its workflow runs'
/// summaries (`<stem>/workflows/<run>.json`) and, once a summary is found,
/// that run's journal and the transcripts and sidecars of the agents it
/// names. Opening a session by URL fetches these in rounds until nothing new
/// is wanted; a file that cannot be fetched leaves its card's "transcript not
/// loaded" note. (A nested agent that no file names, its launch's result
/// carrying no agent id, is only found in a folder.)
pub fn companion_paths(stem: &str, session: &str, found: &[(&str, &str)]) -> Vec<String> {
    let mut fold = Fold::default();
    fold.read::<Claude>(session, None);
    let mut sidecars = Sidecars::default();
    let mut transcripts = Vec::new();
    for (name, text) in found {
        sidecars.read(name, text);
        if let Companion::Transcript { agent, run: None } = companion(name) {
            fold.read::<Claude>(text, Some(agent));
            let path = name.strip_suffix(".jsonl").unwrap_or(name);
            transcripts.push(format!("{path}.meta.json"));
        }
    }
    let mut paths: Vec<String> = fold
        .agent_ids_without_records()
        .into_iter()
        .filter(|id| is_agent_id(id))
        .map(|id| format!("{stem}/subagents/agent-{id}.jsonl"))
        .collect();
    paths.extend(transcripts);
    for (run, _) in &fold.workflow_runs {
        let summary = format!("{stem}/workflows/{run}.json");
        let summarized = found.iter().any(|(name, _)| *name == summary);
        paths.push(summary);
        if summarized {
            paths.push(format!("{stem}/subagents/workflows/{run}/journal.jsonl"));
            for agent in sidecars.run_agents(run) {
                let agent = format!("{stem}/subagents/workflows/{run}/agent-{agent}");
                paths.push(format!("{agent}.jsonl"));
                paths.push(format!("{agent}.meta.json"));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    paths.retain(|p| found.iter().all(|(name, _)| name != p) && seen.insert(p.clone()));
    paths
}

/// The agent a subagent transcript's sidechain records name, when its file
/// name does not say.
fn transcript_agent(text: &str) -> Option<String> {
    jsonl::leading_objects(text, 8)
        .filter(|v| is_record(v) && v.get("isSidechain") == Some(&Value::Bool(true)))
        .map(|v| str_at(&v, "agentId"))
        .find(|id| is_agent_id(id))
}

/// The session id the first conversation records of a Claude Code file
/// carry (`agent_log::session_id`): how a child file found beside several
/// sessions finds its own.
pub fn session_id(text: &str) -> Option<String> {
    agent_log::session_id::<Claude>(text)
}

/// The record kinds that title a session, as they appear in its JSON.
const TITLE_KINDS: [&str; 3] = ["\"custom-title\"", "\"summary\"", "\"ai-title\""];

/// The title a Claude Code session gives itself: its latest `custom-title`
/// (a rename), else its `summary` record, else its latest `ai-title`;
/// `None` for other text.
pub fn title(text: &str) -> Option<String> {
    let mut titles = OwnTitle::default();
    for line in text.trim_start_matches('\u{feff}').lines() {
        titles.line(line);
    }
    titles.title()
}

/// The titles a session's lines gave so far (see `title`), read line by line.
#[derive(Clone, Debug, Default)]
pub struct OwnTitle {
    custom: Option<String>,
    summary: Option<String>,
    ai: Option<String>,
}

impl OwnTitle {
    /// Reads one line. Only a line naming one of the kinds can be one: the
    /// others (all of a long session, or a whole other dialect's document)
    /// are not parsed.
    pub fn line(&mut self, line: &str) {
        if !TITLE_KINDS.iter().any(|kind| line.contains(kind)) {
            return;
        }
        let jsonl::Line::Object { value, .. } = jsonl::read_line(line) else {
            return;
        };
        let (slot, key) = match value.get("type").and_then(Value::as_str) {
            Some("custom-title") => (&mut self.custom, "customTitle"),
            Some("summary") => (&mut self.summary, "summary"),
            Some("ai-title") => (&mut self.ai, "aiTitle"),
            _ => return,
        };
        let text = str_at(&value, key);
        if !text.trim().is_empty() && (key != "summary" || slot.is_none()) {
            *slot = Some(text.trim().to_string());
        }
    }

    /// The title: the latest rename, else the first summary, else the
    /// latest AI title.
    pub fn title(&self) -> Option<String> {
        self.custom
            .clone()
            .or_else(|| self.summary.clone())
            .or_else(|| self.ai.clone())
    }
}

/// Reads one line of a session (or, with `agent`, of that agent's
/// transcript) into the fold: how a follower (`follow`) reads new records.
pub(crate) fn read_line(fold: &mut Fold, line: jsonl::Line<'_>, agent: Option<&str>) {
    fold.read_line::<Claude>(line, agent);
}

/// True when one of the first lines of `text` is a Claude Code record.
pub fn looks_like(text: &str) -> bool {
    jsonl::leading_objects(text, 32).any(|v| is_record(&v))
}

/// True when a parsed line is a Claude Code record: a typed record with a
/// `uuid`, `sessionId`, `message`, `messageId`, `leafUuid` or `snapshot`
/// (whatever its type: new kinds come with every release), that is not a
/// qwen-code record (whose messages have Gemini-style `parts`) or a Kimi
/// Code wire record (`context.append_message` carries a `message` too).
pub(crate) fn is_record(v: &Value) -> bool {
    let typed = v
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| !t.is_empty());
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
        && !super::qwen_code::is_record(v)
        && !super::kimi::is_record(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rename_wins_over_the_summary_which_wins_over_the_ai_title() {
        let rec = |t: &str, k: &str, v: &str| {
            format!(r#"{{"type":"{t}","{k}":"{v}","sessionId":"s","leafUuid":"l"}}"#)
        };
        let lines = [
            rec("ai-title", "aiTitle", "AI title"),
            rec("summary", "summary", "First summary"),
            rec("summary", "summary", "Later summary"),
            rec("custom-title", "customTitle", "Old name"),
            rec("custom-title", "customTitle", "New name"),
            rec("ai-title", "aiTitle", "Later AI title"),
        ];
        assert_eq!(title(&lines.join("\n")).as_deref(), Some("New name"));
        assert_eq!(
            title(&lines[..3].join("\n")).as_deref(),
            Some("First summary")
        );
        assert_eq!(
            title(&[lines[0].clone(), lines[5].clone()].join("\n")).as_deref(),
            Some("Later AI title")
        );
        assert_eq!(title("not json"), None);
    }

    #[test]
    fn the_session_id_comes_from_the_first_conversation_record_that_names_one() {
        let text = concat!(
            "not json\n",
            r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{}}"#,
            "\n",
            r#"{"type":"api-request","sessionId":"s-0","id":"r1"}"#,
            "\n",
            r#"{"type":"user","uuid":"u1","sessionId":"s-1","message":{"content":"hi"}}"#,
            "\n",
            r#"{"type":"user","uuid":"u2","sessionId":"s-2","message":{"content":"hi"}}"#,
        );
        assert_eq!(session_id(text).as_deref(), Some("s-1"));
        assert_eq!(session_id(r#"{"sessionId":"s-3"}"#), None, "not a record");
        assert_eq!(session_id(""), None);
    }
}
