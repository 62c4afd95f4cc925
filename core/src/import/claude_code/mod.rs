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

mod files;
mod fold;
mod harness;
mod link;

pub use files::agent_file_id;

use super::jsonl;
use crate::event::Event;
use crate::model::str_at;
use fold::Fold;
use serde_json::Value;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
