//! Sidecars and workflow runs (docs/formats.md §7 Claude Code 7): what
//! the files beside a session say about its subagents, read before their
//! transcripts.
//!
//! - an `agent-<id>.meta.json` (`{agentType, description, toolUseId,
//!   spawnDepth, parentAgentId, requestShape, model, isFork, finished, …}`)
//!   links agent `<id>` to its Task (nested agents stored flat in
//!   `subagents/` find their card this way) and fills what the Task left
//!   empty (`SubagentFold::apply_sidecar`);
//! - a `Workflow` tool call is a subagent card of type `workflow`; each agent
//!   of its run (named by `workflows/<run>.json`'s progress list, the run's
//!   `journal.jsonl` or a transcript file under `subagents/workflows/<run>/`)
//!   is a subagent card inside it, `workflow-agent-<id>`, with the type of
//!   its sidecar, the label, state and metrics of the progress list, and the
//!   journal's result; its transcript's records are its children;
//! - the run's summary settles the workflow card (status, duration, tokens,
//!   model, description); a run whose Workflow call is not in the session
//!   keeps its agents under the parent id `workflow-<run>`.

use super::super::agent_log::{Fold, Metas};
use super::super::companions::{companion, is_agent_id, Companion};
use super::super::jsonl::{self, Line};
use super::super::subagent_fold::{SubagentFold, Trailer};
use crate::model::message::{str_at, u64_at, SubagentTask};
use serde_json::{json, Value};
use std::collections::HashMap;

/// The type of a workflow's own card and the default of its agents'.
const WORKFLOW_TYPE: &str = "workflow";
const WORKFLOW_AGENT_TYPE: &str = "workflow-subagent";

/// What the files beside a session say (see the module docs).
#[derive(Default)]
pub(super) struct Sidecars {
    /// The subagents' `.meta.json` sidecars.
    pub(super) metas: Metas,
    /// Workflow runs by id, in the order first named.
    runs: Vec<(String, Run)>,
}

/// One workflow run's files.
#[derive(Default)]
struct Run {
    /// `workflows/<run>.json`.
    summary: Option<Value>,
    /// Agent id → the journal's result.
    results: HashMap<String, String>,
    /// Agent ids in the order first named.
    agents: Vec<String>,
}

impl Run {
    fn name(&mut self, agent: &str) {
        if is_agent_id(agent) && !self.agents.iter().any(|a| a == agent) {
            self.agents.push(agent.to_string());
        }
    }

    /// The summary's progress entry of `agent`, if any.
    fn progress(&self, agent: &str) -> Option<&Value> {
        self.progress_entries()
            .find(|p| str_at(p, "agentId") == agent)
    }

    fn progress_entries(&self) -> impl Iterator<Item = &Value> {
        self.summary
            .iter()
            .filter_map(|s| s.get("workflowProgress")?.as_array())
            .flatten()
            .filter(|p| str_at(p, "type") == "workflow_agent")
    }

    /// The agents in the progress list's order, then the others as named.
    fn ordered_agents(&self) -> Vec<&str> {
        let mut ordered: Vec<&str> = self
            .progress_entries()
            .filter_map(|p| p.get("agentId")?.as_str())
            .filter(|a| self.agents.iter().any(|known| known == a))
            .collect();
        for agent in &self.agents {
            if !ordered.contains(&agent.as_str()) {
                ordered.push(agent);
            }
        }
        ordered
    }
}

impl Sidecars {
    fn run_mut(&mut self, id: &str) -> &mut Run {
        let at = match self.runs.iter().position(|(r, _)| r == id) {
            Some(at) => at,
            None => {
                self.runs.push((id.to_string(), Run::default()));
                self.runs.len() - 1
            }
        };
        &mut self.runs[at].1
    }

    /// Reads one file found beside the session (others are ignored).
    pub(super) fn read(&mut self, path: &str, text: &str) {
        match companion(path) {
            Companion::Meta { .. } => self.metas.read(path, text),
            Companion::Journal { run } => {
                let run = self.run_mut(run);
                for line in jsonl::lines(text) {
                    let Line::Object { value, .. } = line else {
                        continue;
                    };
                    let agent = str_at(&value, "agentId");
                    run.name(&agent);
                    if str_at(&value, "type") == "result" {
                        if let Some(result) = value.get("result").map(result_text) {
                            run.results.insert(agent, result);
                        }
                    }
                }
            }
            Companion::Run { run } => {
                if let Ok(summary @ Value::Object(_)) = serde_json::from_str(text) {
                    let run = self.run_mut(run);
                    run.summary = Some(summary);
                    let named: Vec<String> = run
                        .progress_entries()
                        .map(|p| str_at(p, "agentId"))
                        .collect();
                    for agent in named {
                        run.name(&agent);
                    }
                }
            }
            Companion::Transcript {
                agent,
                run: Some(run),
            } => self.run_mut(run).name(agent),
            Companion::Transcript { run: None, .. } | Companion::Other => {}
        }
    }
}

impl Sidecars {
    /// The agents run `run` names, in order.
    pub(super) fn run_agents(&self, run: &str) -> Vec<&str> {
        self.runs
            .iter()
            .find(|(id, _)| id == run)
            .map(|(_, r)| r.ordered_agents())
            .unwrap_or_default()
    }
}

/// A journal result as text: a string as it is, anything else as JSON.
fn result_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A progress `state` in the payload's vocabulary.
fn agent_status(state: &str) -> &str {
    match state {
        "done" | "completed" | "complete" | "success" => "completed",
        "failed" | "error" => "failed",
        "cancelled" | "canceled" | "killed" => "cancelled",
        "" => "",
        _ => "in_progress",
    }
}

impl Fold {
    /// Applies what the sidecars say about the calls, before the transcripts
    /// are read: which Task each agent belongs to, and the workflow runs.
    pub(super) fn apply_sidecars(&mut self, sidecars: &Sidecars) {
        self.link_sidecars(&sidecars.metas);
        for (run_id, run) in &sidecars.runs {
            let workflow = self.workflow_of(run_id).map(str::to_string);
            if let (Some(id), Some(summary)) = (&workflow, &run.summary) {
                if let Some(fold) = self.subagent_mut(id) {
                    settle_workflow(fold, summary);
                }
            }
            let stamp = workflow
                .as_deref()
                .and_then(|id| self.stamp_of(id))
                .unwrap_or_default();
            let parent = workflow.unwrap_or_else(|| format!("workflow-{run_id}"));
            for agent in run.ordered_agents() {
                let card = workflow_agent(run, agent, sidecars.metas.get(agent));
                let id = format!("workflow-agent-{agent}");
                self.link_agent(agent, &id);
                self.add_card(&id, &parent, card, &stamp);
            }
        }
    }
}

/// The payload of a workflow agent's card, from its sidecar, the run's
/// progress entry and the journal.
fn workflow_agent(run: &Run, agent: &str, meta: Option<&Value>) -> SubagentTask {
    let meta = meta.unwrap_or(&Value::Null);
    let progress = run.progress(agent).unwrap_or(&Value::Null);
    let result = run.results.get(agent).cloned().unwrap_or_default();
    let mut status = agent_status(&str_at(progress, "state")).to_string();
    if status.is_empty() && !result.is_empty() {
        status = "completed".into();
    }
    let first_of = |values: [String; 2]| values.into_iter().find(|v| !v.trim().is_empty());
    SubagentTask {
        subagent_type: first_of([str_at(meta, "agentType"), WORKFLOW_AGENT_TYPE.into()])
            .unwrap_or_default(),
        description: first_of([str_at(meta, "description"), str_at(progress, "label")])
            .unwrap_or_default(),
        status,
        agent_id: agent.to_string(),
        model: str_at(progress, "model"),
        duration_ms: u64_at(progress, "durationMs"),
        total_tokens: u64_at(progress, "tokens"),
        tool_use_count: u64_at(progress, "toolCalls"),
        result_text: result,
        ..SubagentTask::default()
    }
}

/// A run's summary settles its workflow card: description, model, and once
/// the run is over its status, duration and tokens.
fn settle_workflow(fold: &mut SubagentFold, summary: &Value) {
    let description = [str_at(summary, "summary"), str_at(summary, "workflowName")]
        .into_iter()
        .find(|d| !d.trim().is_empty())
        .unwrap_or_default();
    fold.apply_response(&json!({
        "description": description,
        "resolvedModel": str_at(summary, "defaultModel"),
    }));
    let status = agent_status(&str_at(summary, "status")).to_string();
    if !status.is_empty() && status != "in_progress" {
        let usage = Trailer {
            duration_ms: u64_at(summary, "durationMs"),
            total_tokens: u64_at(summary, "totalTokens"),
            ..Trailer::default()
        };
        fold.apply_completion(&status, "", usage);
    }
}

/// The card of a `Workflow` call before its run is known: type `workflow`,
/// described by the input's name if it has one (else by its launch summary
/// or its run's, later).
pub(super) fn workflow_call(input: &Value) -> SubagentFold {
    let description = [str_at(input, "name"), str_at(input, "workflowName")]
        .into_iter()
        .find(|d| !d.trim().is_empty())
        .unwrap_or_default();
    SubagentFold::from_task(SubagentTask {
        subagent_type: WORKFLOW_TYPE.into(),
        description,
        ..SubagentTask::default()
    })
}

/// The title of a `Workflow` call: its script's file name without
/// extensions (`docs-sweep`), shown when nothing describes the run.
pub(super) fn workflow_title(input: &Value) -> String {
    str_at(input, "scriptPath")
        .rsplit(['/', '\\'])
        .next()
        .and_then(|file| file.split('.').next())
        .unwrap_or_default()
        .to_string()
}

/// The `Summary:` line of a Workflow launch's text, if any.
pub(super) fn launch_summary(output: &str) -> Option<&str> {
    output
        .lines()
        .find_map(|l| l.trim().strip_prefix("Summary:"))
        .map(|s| s.trim().trim_end_matches('.'))
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_states_read_in_the_payload_vocabulary() {
        assert_eq!(agent_status("done"), "completed");
        assert_eq!(agent_status("failed"), "failed");
        assert_eq!(agent_status("running"), "in_progress");
        assert_eq!(agent_status(""), "");
    }

    #[test]
    fn a_launch_names_its_summary() {
        let text = "Workflow launched in background. Task ID: t\nSummary: Sweep the docs.\nScript file: /x.js";
        assert_eq!(launch_summary(text), Some("Sweep the docs"));
        assert_eq!(launch_summary("nothing"), None);
    }

    #[test]
    fn a_workflow_call_is_a_workflow_card_titled_by_its_script() {
        let input = json!({"scriptPath": "/home/u/sweeps/docs-sweep.workflow.js"});
        let task = workflow_call(&input).finish();
        assert_eq!(
            (task.subagent_type.as_str(), task.description.as_str()),
            ("workflow", "")
        );
        assert!(!task.is_fork);
        assert_eq!(workflow_title(&input), "docs-sweep");
        let named = workflow_call(&json!({"name": "nightly"})).finish();
        assert_eq!(named.description, "nightly");
    }
}
