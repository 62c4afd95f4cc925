//! The subagent cards telemetry describes, whatever order its records came
//! in (spans leave when they end, so children come before parents): the
//! tree is built once everything is read, each card keyed by the call that
//! spawned it (agents-more.md part C).
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

use super::records::{LogRecord, Span, Telemetry};
use crate::model::message::SubagentTask;
use crate::read::import::tool::ToolStatus;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

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

/// Every card of `telemetry`, by start. `ended`: the session is over, so a
/// Claude Code subagent with no completion record never completed.
pub(crate) fn cards(telemetry: &Telemetry, ended: bool) -> Vec<Card> {
    let by_id: HashMap<&str, &Span> = telemetry
        .spans
        .iter()
        .filter(|s| !s.id.is_empty())
        .map(|s| (s.id.as_str(), s))
        .collect();
    let mut cards = claude(telemetry, &by_id, ended);
    cards.extend(qwen(telemetry, &by_id));
    cards.extend(gen_ai(telemetry, &by_id));
    cards.sort_by(|a, b| (a.start_ns, &a.id).cmp(&(b.start_ns, &b.id)));
    cards
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
    ["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"]
        .iter()
        .filter_map(|k| u64_attr(&span.attrs, k))
        .sum::<u64>()
        .max(
            ["input_tokens", "output_tokens"]
                .iter()
                .filter_map(|k| u64_attr(&span.attrs, k))
                .sum(),
        )
}

/// The type after `agent.builtin.` / `agent.custom.` in `query_source_safe`.
pub(super) fn claude_type(span: &Span) -> Option<&str> {
    let source = str_attr(&span.attrs, "query_source_safe");
    source
        .strip_prefix("agent.")
        .map(|rest| rest.split_once('.').map_or(rest, |(_, ty)| ty))
}

/// What one Claude Code agent's spans and logs add up to.
#[derive(Default)]
struct ClaudeAgent {
    call: Option<String>,
    parent_agent: Option<String>,
    start_ns: u64,
    end_ns: u64,
    tokens: u64,
    tools: u64,
    failed: bool,
    task: SubagentTask,
    completed: bool,
}

fn claude(telemetry: &Telemetry, by_id: &HashMap<&str, &Span>, ended: bool) -> Vec<Card> {
    // The call each tool.execution span runs.
    let call_of_span = |span_id: &str| -> Option<String> {
        let span = by_id.get(span_id)?;
        let call = str_attr(&span.attrs, "tool_use_id");
        (span.name == "claude_code.tool.execution" && !call.is_empty()).then(|| call.to_string())
    };
    let mut agents = BTreeMap::<String, ClaudeAgent>::new();
    for span in &telemetry.spans {
        let agent_id = str_attr(&span.attrs, "agent_id");
        if agent_id.is_empty() || !span.name.starts_with("claude_code.") {
            continue;
        }
        let agent = agents.entry(agent_id.to_string()).or_default();
        if agent.start_ns == 0 || span.start_ns < agent.start_ns {
            agent.start_ns = span.start_ns;
            // Its earliest span hangs under the spawning call.
            if let Some(call) = call_of_span(&span.parent) {
                agent.call = Some(call);
            }
        }
        agent.end_ns = agent.end_ns.max(span.end_ns);
        let parent = str_attr(&span.attrs, "parent_agent_id");
        if !parent.is_empty() {
            agent.parent_agent = Some(parent.to_string());
        }
        if span.name == "claude_code.llm_request" {
            agent.tokens += tokens(span);
            agent.failed |= span.error;
            if let Some(ty) = claude_type(span) {
                agent.task.subagent_type = ty.to_string();
            }
            let model = str_attr(&span.attrs, "model");
            if !model.is_empty() {
                agent.task.model = model.to_string();
            }
        }
        if span.name == "claude_code.tool" {
            agent.tools += 1;
        }
    }
    for log in &telemetry.logs {
        if !log.event.ends_with("subagent_completed") {
            continue;
        }
        let agent_id = str_attr(&log.attrs, "agent_id");
        if agent_id.is_empty() {
            continue;
        }
        let agent = agents.entry(agent_id.to_string()).or_default();
        claude_completion(agent, log, call_of_span(&log.span_id));
    }
    let call_of_agent: HashMap<String, String> = agents
        .iter()
        .filter_map(|(id, a)| Some((id.clone(), a.call.clone()?)))
        .collect();
    agents
        .into_iter()
        .filter_map(|(agent_id, agent)| {
            let id = agent.call.clone()?;
            let parent = agent
                .parent_agent
                .as_ref()
                .and_then(|p| call_of_agent.get(p).cloned());
            let mut task = agent.task;
            task.agent_id = agent_id;
            task.duration_ms = task.duration_ms.or(Some(
                agent.end_ns.saturating_sub(agent.start_ns) / 1_000_000,
            ));
            task.total_tokens = task.total_tokens.or(Some(agent.tokens));
            task.tool_use_count = task.tool_use_count.or(Some(agent.tools));
            let status = if agent.completed {
                ToolStatus::Complete
            } else if ended || agent.failed {
                task.status = "no completion reported".into();
                ToolStatus::Error
            } else {
                task.status = "running".into();
                ToolStatus::InProgress
            };
            Some(Card {
                id,
                parent,
                start_ns: agent.start_ns,
                status,
                task,
            })
        })
        .collect()
}

fn claude_completion(agent: &mut ClaudeAgent, log: &LogRecord, call: Option<String>) {
    let duration = u64_attr(&log.attrs, "duration_ms");
    agent.completed = true;
    agent.task.status = "completed".into();
    agent.task.duration_ms = duration;
    agent.task.total_tokens = u64_attr(&log.attrs, "total_tokens");
    agent.task.tool_use_count = u64_attr(&log.attrs, "total_tool_uses");
    agent.task.is_async = log.attrs.get("is_async").is_some_and(|v| v == true);
    for (field, key) in [
        (&mut agent.task.subagent_type, "agent_type"),
        (&mut agent.task.model, "final_model"),
    ] {
        let value = str_attr(&log.attrs, key);
        if !value.is_empty() {
            *field = value.to_string();
        }
    }
    if let (Some(d), 0) = (duration, agent.start_ns) {
        agent.start_ns = log.time_ns.saturating_sub(d * 1_000_000);
    }
    let parent = str_attr(&log.attrs, "parent_agent_id");
    if !parent.is_empty() {
        agent.parent_agent = Some(parent.to_string());
    }
    if agent.call.is_none() {
        agent.call = call;
    }
}

/// The nearest ancestor of `span` (itself excluded) for which `pick` says something.
fn ancestor<'a, T>(
    span: &Span,
    by_id: &HashMap<&str, &'a Span>,
    pick: impl Fn(&'a Span) -> Option<T>,
) -> Option<T> {
    let mut at = span.parent.as_str();
    for _ in 0..256 {
        let up = by_id.get(at)?;
        if let Some(found) = pick(up) {
            return Some(found);
        }
        at = up.parent.as_str();
    }
    None
}

pub(super) const QWEN_SUBAGENT: &str = "qwen-code.subagent";

fn qwen(telemetry: &Telemetry, by_id: &HashMap<&str, &Span>) -> Vec<Card> {
    let key = |span: &Span, name: &str| {
        str_attr(&span.attrs, &format!("{QWEN_SUBAGENT}.{name}")).to_string()
    };
    let runs: Vec<&Span> = telemetry
        .spans
        .iter()
        .filter(|s| s.name == QWEN_SUBAGENT)
        .collect();
    let call_of = |span: &Span| match key(span, "invoking_request_id") {
        call if call.is_empty() => key(span, "id"),
        call => call,
    };
    let call_of_run: HashMap<String, String> =
        runs.iter().map(|s| (key(s, "id"), call_of(s))).collect();
    // Tokens of each run: its llm_request spans' (nested runs count their own).
    let mut run_tokens = HashMap::<&str, u64>::new();
    for span in telemetry
        .spans
        .iter()
        .filter(|s| s.name == "qwen-code.llm_request")
    {
        let run = ancestor(span, by_id, |up| {
            (up.name == QWEN_SUBAGENT).then_some(up.id.as_str())
        });
        if let Some(run) = run {
            *run_tokens.entry(run).or_default() += tokens(span);
        }
    }
    let executions = |started: bool| -> HashMap<&str, &LogRecord> {
        telemetry
            .logs
            .iter()
            .filter(|l| l.event.ends_with("subagent_execution"))
            .filter(|l| (str_attr(&l.attrs, "status") == "started") == started)
            .map(|l| (l.span_id.as_str(), l))
            .collect()
    };
    let (starts, results) = (executions(true), executions(false));
    runs.into_iter()
        .map(|span| {
            let status_word = key(span, "status");
            let parent = Some(key(span, "parent_agent_id"))
                .filter(|p| !p.is_empty())
                .map(|p| call_of_run.get(&p).cloned().unwrap_or(p));
            let mut task = SubagentTask {
                subagent_type: str_attr(&span.attrs, "gen_ai.agent.name").to_string(),
                agent_id: key(span, "id"),
                duration_ms: u64_attr(&span.attrs, &format!("{QWEN_SUBAGENT}.duration_ms"))
                    .or(Some(span.end_ns.saturating_sub(span.start_ns) / 1_000_000)),
                total_tokens: run_tokens.get(span.id.as_str()).copied(),
                is_async: key(span, "invocation_kind") == "background",
                status: status_word.clone(),
                ..SubagentTask::default()
            };
            if let Some(log) = results.get(span.id.as_str()) {
                task.result_text = str_attr(&log.attrs, "result").to_string();
                // A background run lasts from its `started` record to its end,
                // as its own summary and its files say (the span also holds
                // the wait before it and the hand-back after); a foreground
                // one as long as its caller waited: the span.
                let start = starts.get(span.id.as_str()).filter(|_| task.is_async);
                if let Some(start) = start {
                    task.duration_ms = Some(log.time_ns.saturating_sub(start.time_ns) / 1_000_000);
                }
            }
            let status = ToolStatus::parse(&status_word).unwrap_or(if span.error {
                ToolStatus::Error
            } else if status_word == "aborted" {
                ToolStatus::Cancelled
            } else {
                ToolStatus::Complete
            });
            Card {
                id: call_of(span),
                parent,
                start_ns: span.start_ns,
                status,
                task,
            }
        })
        .collect()
}

pub(super) fn is_gen_ai(span: &Span, operation: &str) -> bool {
    str_attr(&span.attrs, "gen_ai.operation.name") == operation
        && !span.name.starts_with("claude_code.")
        && !span.name.starts_with("qwen-code.")
}

fn gen_ai(telemetry: &Telemetry, by_id: &HashMap<&str, &Span>) -> Vec<Card> {
    // The call an invoke_agent span runs: its parent execute_tool's call id.
    let call_of = |span: &Span| -> Option<String> {
        let up = by_id.get(span.parent.as_str())?;
        let call = str_attr(&up.attrs, "gen_ai.tool.call.id");
        (is_gen_ai(up, "execute_tool") && !call.is_empty()).then(|| call.to_string())
    };
    telemetry
        .spans
        .iter()
        .filter(|s| is_gen_ai(s, "invoke_agent"))
        .filter_map(|span| {
            let id = call_of(span)?;
            let parent = ancestor(span, by_id, |up| {
                is_gen_ai(up, "invoke_agent").then(|| call_of(up)).flatten()
            });
            let task = SubagentTask {
                subagent_type: str_attr(&span.attrs, "gen_ai.agent.name").to_string(),
                model: str_attr(&span.attrs, "gen_ai.request.model").to_string(),
                duration_ms: Some(span.end_ns.saturating_sub(span.start_ns) / 1_000_000),
                total_tokens: Some(tokens(span)),
                status: if span.error { "failed" } else { "completed" }.into(),
                ..SubagentTask::default()
            };
            Some(Card {
                id,
                parent,
                start_ns: span.start_ns,
                status: if span.error {
                    ToolStatus::Error
                } else {
                    ToolStatus::Complete
                },
                task,
            })
        })
        .collect()
}
