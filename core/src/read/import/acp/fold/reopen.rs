//! A session opened again in a later run (docs/behaviour.md §4): `session/resume` and
//! `session/load` are one `Resumed` row each; the history a `session/load`
//! replays is not shown twice, and the compaction summary it carries expands
//! the compaction row (`compaction`); a slash command the agent offered is a
//! command row, not a prompt.
//!
//! What a replay repeats, by what the frames say: an agent message or thought
//! with a `messageId` seen live, a prompt already shown (its text, once per
//! prompt, in each replay), a tool call whose id is known. Anything else it
//! carries (history this file never saw live) is read as usual.

use super::super::super::agent_log::{COMMAND, RESUME};
use super::super::super::build::{Row, RowKind};
use super::super::content::{content_block_text, rpc_id};
use super::Fold;
use crate::model::message::str_at;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// How Claude Code's compaction summary opens, as a replay sends it (the
/// adapter marks it no other way).
const COMPACT_SUMMARY_OPENING: &str =
    "This session is being continued from a previous conversation";

/// What the fold knows about sessions opened again.
#[derive(Default)]
pub(super) struct Reopen {
    /// JSON-RPC id of a `session/resume` or `session/load` request → whether
    /// it replays (`session/load`).
    requests: HashMap<String, bool>,
    /// The session whose history a `session/load` is replaying, until its response.
    replaying: Option<String>,
    /// Message ids of agent messages and thoughts seen live.
    live_messages: HashSet<String>,
    /// Texts of the prompts shown → how many.
    prompts: HashMap<String, usize>,
    /// The prompts shown before the replay under way → how many it has not repeated yet.
    unreplayed: HashMap<String, usize>,
    /// Commands the agent offers (`available_commands_update`), by name.
    commands: HashSet<String>,
}

impl Fold {
    /// A new connection (`initialize`): request ids start again.
    pub(super) fn connected(&mut self) {
        self.prompt_turns.clear();
        self.permission_calls.clear();
        self.reopen.requests.clear();
        self.reopen.replaying = None;
    }

    /// A `session/resume` (`replays` false) or `session/load` request.
    pub(super) fn reopen_request(&mut self, id: Option<String>, params: &Value, replays: bool) {
        if replays {
            self.reopen.replaying = Some(str_at(params, "sessionId"));
            self.reopen.unreplayed = self.reopen.prompts.clone();
            self.open_runs.clear();
        }
        if let Some(id) = id {
            self.reopen.requests.insert(id, replays);
        }
    }

    /// The response to request `id` when it opened a session again: the
    /// replay is over, and the session was resumed (or it failed). False
    /// for any other response.
    pub(super) fn reopen_response(&mut self, id: &str, v: &Value) -> bool {
        let Some(replays) = self.reopen.requests.remove(id) else {
            return false;
        };
        let session = if replays {
            self.reopen.replaying.take().unwrap_or_default()
        } else {
            String::new()
        };
        self.open_runs.clear();
        let stamp = self.stamp(&session);
        if let Some(what) = super::rpc_error(v) {
            self.push_row(Row::new(
                "",
                RowKind::Error,
                &format!("Resume failed: {what}"),
                &stamp,
            ));
        } else {
            self.push_event(RESUME, "Resumed", &stamp);
        }
        true
    }

    /// Notes what a live update says that a later replay repeats, and the
    /// commands the agent offers.
    pub(super) fn note_live(&mut self, u: &Value) {
        match str_at(u, "sessionUpdate").as_str() {
            "agent_message_chunk" | "agent_thought_chunk" => {
                if let Some(id) = u.get("messageId").and_then(rpc_id) {
                    self.reopen.live_messages.insert(id);
                }
            }
            "available_commands_update" => {
                let offered = u.get("availableCommands").and_then(Value::as_array);
                for command in offered.into_iter().flatten() {
                    let name = str_at(command, "name");
                    if !name.is_empty() {
                        self.reopen.commands.insert(name);
                    }
                }
            }
            _ => {}
        }
    }

    /// True when update `u` of a replay repeats what the fold holds (it is
    /// dropped) or is the compaction summary (read into its row).
    pub(super) fn replayed(&mut self, session: &str, u: &Value) -> bool {
        if self.reopen.replaying.as_deref() != Some(session) {
            return false;
        }
        match str_at(u, "sessionUpdate").as_str() {
            "agent_message_chunk" | "agent_thought_chunk" => u
                .get("messageId")
                .and_then(rpc_id)
                .is_some_and(|id| self.reopen.live_messages.contains(&id)),
            "user_message_chunk" => {
                let text = u.get("content").map(content_block_text).unwrap_or_default();
                if text.trim_start().starts_with(COMPACT_SUMMARY_OPENING) {
                    self.replayed_compaction_summary(session, text.trim());
                    return true;
                }
                let text = text.trim();
                match self.reopen.unreplayed.get_mut(text) {
                    Some(left) if *left > 0 => {
                        *left -= 1;
                        true
                    }
                    _ => {
                        // History this file never saw: shown, so a later replay repeats it.
                        *self.reopen.prompts.entry(text.to_string()).or_default() += 1;
                        false
                    }
                }
            }
            "tool_call" | "tool_call_update" => u
                .get("toolCallId")
                .and_then(rpc_id)
                .is_some_and(|id| self.items.get(&format!("tool:{id}")).is_some()),
            _ => false,
        }
    }

    /// A prompt the client sent: a command row when it is one of the
    /// commands the agent offers (`/compact`), else a user row. Either way
    /// a later replay repeats it.
    pub(super) fn prompt_row(&mut self, text: &str, stamp: &super::Stamp) {
        *self
            .reopen
            .prompts
            .entry(text.trim().to_string())
            .or_default() += 1;
        let offered = text
            .trim()
            .strip_prefix('/')
            .and_then(|t| t.split_whitespace().next())
            .is_some_and(|name| self.reopen.commands.contains(name));
        if offered && !text.trim().contains('\n') {
            self.push_event(COMMAND, text.trim(), stamp);
        } else {
            self.push_row(Row::new("", RowKind::UserText, text, stamp));
        }
    }

    /// Appends a quiet session-event row (`metadata.event`).
    pub(super) fn push_event(&mut self, event: &str, text: &str, stamp: &super::Stamp) -> String {
        let mut row = Row::new("", RowKind::Status, text, stamp);
        row.extra.insert("event".into(), event.into());
        self.push_row(row)
    }
}
