//! ACP (Agent Client Protocol) frames: `session/update` notifications and the
//! `session/prompt` requests and responses around them (docs/formats.md §1).
//!
//! Accepted line shapes, mixed freely, one JSON object per line:
//! a raw JSON-RPC message; a kandev raw debug-log line
//! (`{"protocol":"acp","data":{…}}`); a bare `SessionNotification`
//! (`{sessionId, update}`); a bare `update` (`{sessionUpdate, …}`); the
//! Claude adapter's snapshot envelope `{kind, method, payload}` (v2) or
//! `{kind, payload}` (v1) (docs/formats.md §7).
//!
//! Folding:
//! - consecutive text or thought chunks of one scope (top level, or one
//!   subagent) merge into one row; a chunk of another kind, a tool call or a
//!   plan in that scope, or a new prompt ends the run; a chunk `messageId`
//!   change starts a new row;
//! - tool calls are upserted by `toolCallId` only (never by position or turn);
//!   an update for an unknown id creates the call; a terminal status survives
//!   a later non-terminal or absent one; empty `rawInput`, `content` or
//!   `locations` never blank earlier ones;
//! - a subagent is a tool call whose `_meta.claudeCode.toolName` is `Agent` or
//!   `Task` (payload rules in `subagent_fold`); a child is any frame whose
//!   `_meta.claudeCode.parentToolUseId` names it, and keeps that parent even
//!   when a later frame (the PostToolUse hook) omits it;
//! - each `session/prompt` request (or protocol v2 `user_message` update)
//!   starts a turn (`turn-1`, `turn-2`, …) and becomes a user row; tool calls
//!   keep the turn they were first seen in; a turn ends with the prompt's
//!   response or a v2 `state_update` `idle`, and a `stopReason` other than
//!   `end_turn` adds one status row; an error response adds an error row; a
//!   prompt answered `cancelled` (the client's `session/cancel`) ends the
//!   subagent runs launched in its turn that had not reported: cancelled, as
//!   the agent recorded stopping them (docs/behaviour.md §1), with no result;
//! - a `session/request_permission` puts `metadata.permission =
//!   {options, status}` on its tool call (`toolCall`, v2 `subject.toolCall`),
//!   settled by the client's reply;
//! - v2 `terminal_update`s (command, base64 output, exit status) give the
//!   call whose content shows that terminal its output and exit code;
//! - a `toolResponse` progress tick (`elapsedTimeSeconds`) is not a result,
//!   a failed subagent's fenced content is read without the fence, and counts
//!   sent as strings are read;
//! - `plan` frames become todo rows (each a full snapshot), `current_mode_update`
//!   a status row; other variants are ignored;
//! - a session opened again (`fold::reopen`, docs/behaviour.md §4): each `session/resume`
//!   or `session/load` is one `Resumed` row at its response; what a load's
//!   replay repeats (an agent message or thought by its `messageId`, a prompt
//!   the client sent, a known tool call) is not shown twice, and its compaction
//!   summary expands the compaction row; `initialize` starts a new connection,
//!   whose request ids start again; a prompt naming a command the agent offers
//!   (`/compact`) is a command row;
//! - a compaction is one compaction row (`fold::compaction`): from the
//!   session-compaction contract (`compaction_update` by `compactionId`,
//!   `compaction_summary_chunk`s its summary) or the Claude adapter's
//!   `compact` tool call (`Conversation compacted · manual`);
//! - a line that is not JSON, not an object, or not an ACP frame becomes an
//!   unreadable row in its position.

mod content;
mod envelope;
mod fold;
mod tool;

use super::jsonl;
use crate::model::event::Event;
use fold::Fold;
pub(crate) use fold::Fold as AcpFold;
use serde_json::Value;

/// Turns ACP frames into events, one per folded message, in first-seen order.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    let mut fold = Fold::default();
    fold.read(text);
    fold.finish()
}

/// True when one of the first lines of `text` is an ACP frame.
pub fn looks_like(text: &str) -> bool {
    jsonl::leading_objects(text, 32).any(|v| is_frame(&v))
}

/// True when a parsed line has one of the accepted ACP shapes.
pub(crate) fn is_frame(v: &Value) -> bool {
    envelope::Envelope::read(v).is_some()
        || v.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        || v.get("protocol").and_then(Value::as_str) == Some("acp")
        || v.get("update")
            .and_then(|u| u.get("sessionUpdate"))
            .is_some_and(Value::is_string)
        || v.get("sessionUpdate").is_some_and(Value::is_string)
}
