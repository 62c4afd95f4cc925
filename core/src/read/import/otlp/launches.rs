//! A Claude Code subagent whose launch failed at once (docs/behaviour.md §3.4): its
//! telemetry holds no span or log of the agent (nothing carries its
//! `agent_id`), only the launch: a `claude_code.tool` span with `tool_name:
//! Agent` and its `tool_use_id`, the `claude_code.tool.execution` span under
//! it (`success: false`, `error: AgentTypeError` for a type the user has no
//! agent of) and the `tool_decision` / `tool_result` logs. Such a launch is a
//! card of its own: its type is unknown (the card says `subagent`) until
//! an agent's own records say it, and its outcome is the tool result's. A
//! launch that succeeded waits for its agent's records (a background run
//! returns at once; its card comes from them).

use super::cards::{str_attr, Card};
use super::records::{LogRecord, Span};
use crate::model::message::SubagentTask;
use crate::read::import::tool::ToolStatus;

/// The tools that launch a Claude Code subagent.
const LAUNCH_TOOLS: [&str; 2] = ["Agent", "Task"];

/// What telemetry says of one launch, by its `tool_use_id`.
#[derive(Clone, Debug, Default)]
pub(super) struct Launch {
    /// It launches a subagent (the tool span or the result log said so).
    agent: bool,
    start_ns: u64,
    end_ns: u64,
    /// The agent it was launched in (`agent_id` on its span), if nested.
    parent_agent: Option<String>,
    /// Its result failed, and why (the execution span's `error`).
    failed: Option<String>,
}

impl Launch {
    /// A `claude_code.tool` span (a launch when its tool launches agents)
    /// or a `claude_code.tool.execution` span; true when it concerns a launch.
    pub(super) fn span(&mut self, span: &Span) -> bool {
        if span.name == "claude_code.tool" {
            self.agent |= LAUNCH_TOOLS.contains(&str_attr(&span.attrs, "tool_name"));
            self.start_ns = span.start_ns;
            self.end_ns = self.end_ns.max(span.end_ns);
            let parent = str_attr(&span.attrs, "agent_id");
            self.parent_agent = (!parent.is_empty()).then(|| parent.to_string());
        } else if failed(&span.attrs) {
            let error = str_attr(&span.attrs, "error");
            self.failed = Some(if error.is_empty() {
                "failed".into()
            } else {
                error.to_string()
            });
        }
        self.agent
    }

    /// A `tool_result` log of the launch; true when it concerns a launch.
    pub(super) fn result(&mut self, log: &LogRecord) -> bool {
        self.agent |= LAUNCH_TOOLS.contains(&str_attr(&log.attrs, "tool_name"));
        if failed(&log.attrs) && self.failed.is_none() {
            let error = str_attr(&log.attrs, "error");
            self.failed = Some(if error.is_empty() {
                "failed".into()
            } else {
                error.to_string()
            });
        }
        self.agent
    }

    /// The card of a launch that failed at once, launched by the card
    /// `parent` (`None`: by the main agent); `None` for any other.
    pub(super) fn card(&self, id: &str, parent: Option<String>) -> Option<Card> {
        let reason = self.failed.as_ref().filter(|_| self.agent)?;
        Some(Card {
            id: id.to_string(),
            parent,
            start_ns: self.start_ns,
            status: ToolStatus::Error,
            task: SubagentTask {
                status: "failed".into(),
                result_text: reason.clone(),
                duration_ms: Some(self.end_ns.saturating_sub(self.start_ns) / 1_000_000),
                ..SubagentTask::default()
            },
        })
    }

    /// The agent it was launched in, if nested.
    pub(super) fn parent_agent(&self) -> Option<&str> {
        self.parent_agent.as_deref()
    }
}

/// True for a span or log whose `success` is false (a bool or `"false"`).
fn failed(attrs: &serde_json::Map<String, serde_json::Value>) -> bool {
    match attrs.get("success") {
        Some(serde_json::Value::Bool(ok)) => !ok,
        Some(serde_json::Value::String(ok)) => ok == "false",
        _ => false,
    }
}
