//! A subagent card as telemetry tells it, keyed by the call that spawned it
//! (docs/formats.md §11), and the attributes the cards are read from
//! ([`super::tree`] builds them as the records come):
//!
//! - Claude Code: every span and log of a subagent carries `agent_id`
//!   (`parent_agent_id` when nested); the spawn is the
//!   `claude_code.tool.execution` span (`tool_use_id`) its spans hang under;
//!   completion is a `subagent_completed` log, sent only for completed runs.
//! - qwen-code: a `qwen-code.subagent` span per run
//!   (`qwen-code.subagent.invoking_request_id` is the call), its result in
//!   the `subagent_execution` log.
//! - GenAI conventions (Copilot CLI): an `invoke_agent` span under an
//!   `execute_tool` span holding `gen_ai.tool.call.id`.

use super::records::Span;
use crate::model::message::SubagentTask;
use crate::read::import::tool::ToolStatus;
use serde_json::{Map, Value};

/// One subagent as telemetry tells it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Card {
    /// The spawning call's id.
    pub id: String,
    /// The parent card's id (`None`: launched by the main agent).
    pub parent: Option<String>,
    pub start_ns: u64,
    pub status: ToolStatus,
    pub task: SubagentTask,
}

/// Whether a span is noise no card or count includes: qwen-code's hook
/// spans (ERROR on every call) and the HTTP client's `POST` spans.
pub(crate) fn is_noise(span: &Span) -> bool {
    span.name == "qwen-code.hook" || span.name == "POST"
}

pub(super) fn str_attr<'a>(attrs: &'a Map<String, Value>, key: &str) -> &'a str {
    attrs.get(key).and_then(Value::as_str).unwrap_or_default()
}

pub(super) fn u64_attr(attrs: &Map<String, Value>, key: &str) -> Option<u64> {
    match attrs.get(key)? {
        Value::String(s) => s.parse().ok(),
        v => v.as_u64(),
    }
}

pub(super) fn tokens(span: &Span) -> u64 {
    let sum = |keys: [&str; 2]| {
        super::super::tokens::total(keys.iter().filter_map(|k| u64_attr(&span.attrs, k)))
    };
    sum(["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"])
        .max(sum(["input_tokens", "output_tokens"]))
}

/// The type after `agent.builtin.` / `agent.custom.` in `query_source_safe`.
pub(super) fn claude_type(span: &Span) -> Option<&str> {
    let source = str_attr(&span.attrs, "query_source_safe");
    source
        .strip_prefix("agent.")
        .map(|rest| rest.split_once('.').map_or(rest, |(_, ty)| ty))
}

pub(super) const QWEN_SUBAGENT: &str = "qwen-code.subagent";

pub(super) fn is_gen_ai(span: &Span, operation: &str) -> bool {
    str_attr(&span.attrs, "gen_ai.operation.name") == operation
        && !span.name.starts_with("claude_code.")
        && !span.name.starts_with("qwen-code.")
}
