//! Importers: each dialect's bytes become the one model, as `Event`s.
//!
//! Every importer produces kandev-shaped messages (docs/behaviour.md §1): one
//! `Event::MessageAdded` per folded message in first-seen order, and an
//! `Event::Unreadable` (raw text kept) in the position of input it cannot read.
//!
//! Metadata conventions shared by the foreign-dialect importers:
//! - ids: a tool call's message id is its tool-call id; other rows get the
//!   source's id when it has one (Claude record `uuid`, gadget `turnId:user`…)
//!   or a synthesized one (`acp-<n>`); a repeated id gets `#2`, `#3`, …;
//! - a tool call's output text is `metadata.result` (every tool kind,
//!   subagents included, where it is the raw tool result minus the usage
//!   trailer, and absent when that is a launch placeholder); the subagent's answer is
//!   `normalized.subagent_task.result_text`); its input is `metadata.args`,
//!   its vendor tool name `metadata.tool_name`; `metadata.status` uses
//!   kandev's vocabulary `pending | in_progress | complete | error |
//!   cancelled` (a background subagent still running reads `in_progress`),
//!   while the payload's own `status` keeps the source's lifecycle word
//!   (`completed`, `async_launched`, `failed`, …);
//! - kind payloads: `normalized.read_file{file_path, offset?, limit?,
//!   output{line_count}}`, `modify_file{file_path, mutations[{type: patch|create,
//!   file_path, old_content?, new_content, diff}]}`, `shell_exec{command,
//!   description?, work_dir?, background?, output{exit_code?, has_output}}`
//!   (`exit_code` as reported, else read from an `Exit code N` output, else 0
//!   for a completed command), `code_search{pattern?, query?, path?, glob?}`,
//!   `generic{name, input}`, `subagent_task{…}` (`metadata.subagent`, with
//!   `is_fork` for an implicit fork: the type stays empty);
//! - a subagent's children (`metadata.parent_tool_call_id`) are its tool calls
//!   plus its thinking and intermediate text rows; a final text row that only
//!   repeats `result_text` is dropped;
//! - thinking text is in `content` and `metadata.thinking`; todos (ACP plans,
//!   Claude `TodoWrite`) are `type: todo` with `metadata.todos: [{text, status,
//!   done, priority?}]` and a plain checklist in `content`; Claude rows carry
//!   `metadata.model`;
//! - a subagent whose own transcript was not available (Claude Code, no inline
//!   sidechain and no `agent-<id>.jsonl`) has `metadata.transcript_not_loaded:
//!   true`; its `tool_use_count` is still the reported one;
//! - an ACP permission request is `metadata.permission{options, status,
//!   option_id?}` on its tool call; a gadget result envelope's extra `data`
//!   keys are `metadata.envelope_data`.

pub mod acp;
mod agent_log;
mod build;
pub mod card_facts;
pub mod claude_code;
pub mod codex;
pub mod companions;
pub mod copilot;
pub mod detect;
mod fold;
pub mod folder;
pub mod follow;
pub mod gadget;
pub mod gemini_cli;
mod jsonl;
pub mod kandev;
pub mod kimi;
pub mod opencode;
pub mod otlp;
pub mod progressive;
pub mod qwen_code;
mod subagent_fold;
pub mod title;
mod tokens;
mod tool;
pub mod working;
mod wrappers;

pub use detect::{
    detect, fork_origin, import_any, import_any_with_files, listed_companions, wanted_among,
    wanted_companions, wanted_listing, Dialect, Import, ImportError, COMPANION_ROUNDS,
};
pub use follow::Follower;

/// Helpers shared by the importers' unit tests.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::model::event::Event;

    /// The id of each added message in order, `?` for an unreadable line.
    pub fn ids(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                Event::MessageAdded(m) => m.id.clone(),
                Event::Unreadable { .. } => "?".into(),
                other => panic!("unexpected {other:?}"),
            })
            .collect()
    }
}
