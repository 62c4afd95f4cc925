//! A compaction is one quiet row (docs/behaviour.md §4), `Conversation compacted`,
//! expandable to the summary the agent continues from. ACP tells it two
//! ways: the session-compaction contract (`compaction_update` by
//! `compactionId`, with `status`, `summary` and `error`, and streamed
//! `compaction_summary_chunk`s), sent to a client that declares
//! `clientCapabilities.session.compaction`; else the Claude adapter's
//! "Compact conversation" tool call (`_meta.claudeCode.toolName: "compact"`,
//! its last `rawOutput` naming the `trigger`), which never carries the
//! summary: a later `session/load` replays it (`reopen`).

use super::super::super::agent_log::COMPACTION;
use super::super::content::{blocks_text, claude_meta, content_block_text, rpc_id};
use super::{Fold, Item};
use crate::model::message::str_at;
use serde_json::Value;
use std::collections::HashMap;

/// The Claude adapter's tool name for a compaction shown as a tool call.
const COMPACT_TOOL: &str = "compact";

/// The compaction rows of the fold.
#[derive(Default)]
pub(super) struct Compactions {
    /// A compaction's id (`compactionId`, or the tool call's id) → its row's key.
    rows: HashMap<String, String>,
    /// The latest compaction row.
    latest: Option<String>,
}

impl Fold {
    /// The Claude adapter's compaction tool call: its row, `Conversation
    /// compacted · <trigger>` once its `rawOutput` names the trigger. False
    /// for any other call.
    pub(super) fn compaction_call(&mut self, session: &str, u: &Value) -> bool {
        let Some(id) = u.get("toolCallId").and_then(rpc_id) else {
            return false;
        };
        if !self.compactions.rows.contains_key(&id)
            && claude_meta(u, "toolName").as_deref() != Some(COMPACT_TOOL)
        {
            return false;
        }
        let key = self.compaction_row(session, &id);
        let trigger = u
            .get("rawOutput")
            .map(|o| str_at(o, "trigger"))
            .unwrap_or_default();
        let failed = str_at(u, "status") == "failed";
        if let Some(Item::Row(row)) = self.items.get_mut(&key) {
            if failed {
                row.text = "Compaction failed".into();
            } else if !trigger.is_empty() {
                row.text = format!("Conversation compacted · {trigger}");
            }
        }
        true
    }

    /// A `compaction_update`: its row, failed or cancelled as its status
    /// says, expandable to its `summary` (or its `error`).
    pub(super) fn compaction_update(&mut self, session: &str, u: &Value) {
        let Some(id) = u.get("compactionId").and_then(rpc_id) else {
            return;
        };
        let key = self.compaction_row(session, &id);
        let summary = u.get("summary").map(blocks_text).unwrap_or_default();
        let error = str_at(u, "error");
        let text = match str_at(u, "status").as_str() {
            "failed" => Some("Compaction failed"),
            "cancelled" => Some("Compaction cancelled"),
            _ => None,
        };
        let detail = [summary.trim(), error.trim()]
            .into_iter()
            .find(|d| !d.is_empty());
        if let Some(Item::Row(row)) = self.items.get_mut(&key) {
            if let Some(text) = text {
                row.text = text.into();
            }
            if let Some(detail) = detail {
                row.extra.insert("detail".into(), Value::from(detail));
            }
        }
    }

    /// A `compaction_summary_chunk`: the summary of its compaction grows.
    pub(super) fn compaction_summary_chunk(&mut self, session: &str, u: &Value) {
        let Some(id) = u.get("compactionId").and_then(rpc_id) else {
            return;
        };
        let text = u.get("content").map(content_block_text).unwrap_or_default();
        let key = self.compaction_row(session, &id);
        if let Some(Item::Row(row)) = self.items.get_mut(&key) {
            let so_far = row
                .extra
                .get("detail")
                .and_then(Value::as_str)
                .unwrap_or("");
            let grown = format!("{so_far}{text}");
            row.extra.insert("detail".into(), Value::from(grown));
        }
    }

    /// The compaction summary a `session/load` replays: the detail of the
    /// latest compaction row when it has none yet (else it repeats what that
    /// row shows), or a compaction row of its own when the file holds none
    /// (the compaction happened before it).
    pub(super) fn replayed_compaction_summary(&mut self, session: &str, summary: &str) {
        let key = match self.compactions.latest.clone() {
            Some(key) => key,
            None => self.compaction_row(session, ""),
        };
        if let Some(Item::Row(row)) = self.items.get_mut(&key) {
            if !row.extra.contains_key("detail") {
                row.extra.insert("detail".into(), Value::from(summary));
            }
        }
    }

    /// The row of compaction `id`, made on first sight (an empty id: a new
    /// row); it becomes the latest.
    fn compaction_row(&mut self, session: &str, id: &str) -> String {
        let known = self.compactions.rows.get(id).filter(|_| !id.is_empty());
        let key = match known {
            Some(key) => key.clone(),
            None => {
                let stamp = self.stamp(session);
                let key = self.push_event(COMPACTION, "Conversation compacted", &stamp);
                if !id.is_empty() {
                    self.compactions.rows.insert(id.to_string(), key.clone());
                }
                self.open_runs.clear();
                key
            }
        };
        self.compactions.latest = Some(key.clone());
        key
    }
}
