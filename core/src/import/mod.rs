//! Importers: each dialect's bytes become the one model, as `Event`s.
//!
//! Every importer produces kandev-shaped messages (SPEC.md §1): one
//! `Event::MessageAdded` per folded message in first-seen order, and an
//! `Event::Unreadable` (raw text kept) in the position of input it cannot read.
//!
//! Metadata conventions shared by the foreign-dialect importers:
//! - a tool call's output text is `metadata.result` (every tool kind,
//!   subagents included, where it is the raw tool result minus the usage
//!   trailer; the subagent's answer is `normalized.subagent_task.result_text`);
//!   its input is `metadata.args`; `metadata.status` uses kandev's vocabulary
//!   `pending | in_progress | complete | error | cancelled`;
//! - kind payloads: `normalized.read_file{file_path, offset?, limit?,
//!   output{line_count}}`, `modify_file{file_path, mutations[{type: patch|create,
//!   file_path, old_content?, new_content, diff}]}`, `shell_exec{command,
//!   description?, work_dir?, background?, output{exit_code?, has_output}}`,
//!   `code_search{pattern?, query?, path?, glob?}`, `generic{name, input}`,
//!   `subagent_task{…}` (`metadata.subagent`);
//! - thinking text is in `content` and `metadata.thinking`; todos (ACP plans,
//!   Claude `TodoWrite`) are `type: todo` with `metadata.todos: [{text, status,
//!   done, priority?}]`;
//! - a subagent whose own transcript was not available (Claude Code, no inline
//!   sidechain and no `agent-<id>.jsonl`) has `metadata.transcript_not_loaded:
//!   true`; its `tool_use_count` is still the reported one;
//! - an ACP permission request is `metadata.permission{options, status,
//!   option_id?}` on its tool call.

pub mod acp;
mod build;
pub mod claude_code;
pub mod detect;
mod fold;
pub mod gadget;
mod jsonl;
pub mod kandev;
mod subagent_fold;
mod tool;

pub use detect::{detect, import_any, import_any_with_files, Dialect, Import, ImportError};
