//! qwen-code workflows: a `workflow` call runs a script whose agents the
//! CLI dispatches itself. Its run is summarized in
//! `<project>/workflows/<run>.json` (the call's `toolUseId`, the script's
//! `meta`, status, times, tokens, and one `dispatches` entry per agent:
//! label, prompt, status, times); each agent's transcript is a
//! `subagents/<session>/agent-workflow-agent-<id>.jsonl` with no sidecar,
//! known by its prompt.
//!
//! The call is a `workflow` card; the run's summary settles it and gives it
//! one card per dispatch (`workflow-<run>-<n>`, typed by its transcript's
//! agent name once found, else `workflow-subagent`); a transcript whose
//! first prompt is a dispatch's becomes that card's children.

use super::super::agent_log::Fold;
use super::super::companions::{companion, Companion};
use super::super::subagent_fold::{SubagentFold, Trailer};
use crate::model::{str_at, u64_at, SubagentTask};
use serde_json::Value;

/// A workflow card's type, and its agents' until their transcript names one.
const WORKFLOW_TYPE: &str = "workflow";
const WORKFLOW_AGENT_TYPE: &str = "workflow-subagent";

/// The card of a `workflow` call before its run is known.
pub(super) fn workflow_call() -> SubagentFold {
    SubagentFold::from_task(SubagentTask {
        subagent_type: WORKFLOW_TYPE.into(),
        ..SubagentTask::default()
    })
}

/// A workflow call's output: the run's result, without the `--- workflow
/// run ---` report after it; and the run id that report names.
pub(super) fn run_output(output: &str) -> (&str, Option<&str>) {
    let Some((result, report)) = output.split_once("\n--- workflow run ---") else {
        return (output, None);
    };
    let run = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("runId:"))
        .map(str::trim)
        .filter(|r| !r.is_empty());
    (result, run)
}

/// The run summaries among the files found beside a chat.
pub(super) fn runs<'a>(files: &[(&'a str, &'a str)]) -> Vec<(&'a str, Value)> {
    files
        .iter()
        .filter_map(|(name, text)| match companion(name) {
            Companion::Run { run } => {
                let summary = serde_json::from_str::<Value>(text).ok()?;
                summary.is_object().then_some((run, summary))
            }
            _ => None,
        })
        .collect()
}

/// Milliseconds between two epoch-millisecond fields of `v`.
fn span(v: &Value, from: &str, to: &str) -> Option<u64> {
    u64_at(v, to)?.checked_sub(u64_at(v, from)?)
}

impl Fold {
    /// Settles each run's card from its summary and adds one card per
    /// dispatched agent, before the transcripts are read.
    pub(super) fn apply_runs(&mut self, runs: &[(&str, Value)]) {
        for (run, summary) in runs {
            let call = str_at(summary, "toolUseId");
            let workflow = self.workflow_of(run).map(str::to_string).unwrap_or(call);
            let stamp = self.stamp_of(&workflow).unwrap_or_default();
            if let Some(card) = self.subagent_mut(&workflow) {
                let meta = summary.get("meta").unwrap_or(&Value::Null);
                let description = [str_at(meta, "description"), str_at(summary, "description")]
                    .into_iter()
                    .find(|d| !d.trim().is_empty())
                    .unwrap_or_default();
                card.apply_response(&serde_json::json!({ "description": description }));
                let status = str_at(summary, "status");
                if ["completed", "failed", "cancelled"].contains(&status.as_str()) {
                    let usage = Trailer {
                        duration_ms: span(summary, "startTime", "endTime"),
                        total_tokens: u64_at(summary, "tokensSpent"),
                        ..Trailer::default()
                    };
                    card.apply_completion(&status, "", usage);
                }
            }
            let dispatches = summary.get("dispatches").and_then(Value::as_array);
            for (n, dispatch) in dispatches.into_iter().flatten().enumerate() {
                let task = SubagentTask {
                    subagent_type: WORKFLOW_AGENT_TYPE.into(),
                    description: str_at(dispatch, "label"),
                    prompt: str_at(dispatch, "prompt"),
                    status: str_at(dispatch, "status"),
                    duration_ms: span(dispatch, "startedAt", "endedAt"),
                    ..SubagentTask::default()
                };
                self.add_card(
                    &format!("workflow-{run}-{}", n + 1),
                    &workflow,
                    task,
                    &stamp,
                );
            }
        }
    }

    /// Links each workflow agent's transcript (no sidecar names its card) to
    /// the dispatch with its first prompt, and types the card by the
    /// transcript's agent name.
    pub(super) fn link_run_agents(&mut self, runs: &[(&str, Value)]) {
        let dispatched: Vec<(String, String)> = runs
            .iter()
            .flat_map(|(run, summary)| {
                let dispatches = summary.get("dispatches").and_then(Value::as_array);
                dispatches
                    .into_iter()
                    .flatten()
                    .enumerate()
                    .map(move |(n, d)| (str_at(d, "prompt"), format!("workflow-{run}-{}", n + 1)))
            })
            .collect();
        let unlinked: Vec<(String, String, String)> = self
            .children
            .iter()
            .filter(|(key, _)| !self.task_of_agent.contains_key(key))
            .map(|(key, c)| {
                (
                    key.clone(),
                    c.first_prompt.trim().to_string(),
                    c.agent_name.clone(),
                )
            })
            .collect();
        for (agent, prompt, name) in unlinked {
            let Some((_, card)) = dispatched.iter().find(|(p, _)| p.trim() == prompt) else {
                continue;
            };
            self.link_agent(&agent, card);
            if let Some(fold) = self.subagent_mut(card) {
                fold.apply_response(&serde_json::json!({ "agentId": agent }));
                fold.retype(&name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workflow_output_is_its_result_and_names_its_run() {
        let output = "{\n  \"review\": []\n}\n--- workflow run ---\nrunId: wf_55bc\nscript: /x.js";
        assert_eq!(
            run_output(output),
            ("{\n  \"review\": []\n}", Some("wf_55bc"))
        );
        assert_eq!(run_output("plain"), ("plain", None));
    }
}
