//! What a session's telemetry says of its card (docs/behaviour.md §7
//! "OpenTelemetry", docs/formats.md part C): the agent that sent it (its
//! resource's `service.name`), the model and usage of each request, and the
//! cost the agent recorded for it, which wins over the price table.
//!
//! - Claude Code's `api_request` log records: one per request, with its
//!   tokens, its `cost_usd` and, for a subagent's, its `agent_id`.
//! - qwen-code's `qwen-code.api_response` log records: its tokens (the
//!   input's count includes its cached part, the output's its thoughts), a
//!   subagent's with its `subagent_name` and the call in its `prompt_id`.
//!   The spans of both repeat those requests' tokens, so they are not
//!   counted again.
//! - Any other span with the GenAI conventions' `gen_ai.usage.*` (Copilot
//!   CLI's `chat` spans, agent frameworks'): its tokens, priced from the
//!   table (Copilot's `github.copilot.cost` counts premium requests, not
//!   dollars).
//!
//! A wait on the user's permission is not read here: Claude Code sends its
//! `claude_code.tool.blocked_on_user` span when the wait ends (a span is
//! exported when it ends), so a wait still open has no record yet
//! (docs/board.md, "Columns": Needs you).

use super::{Tally, Usage};
use crate::model::card_facts::NANOS_PER_USD;
use crate::model::pricing::Request;
use crate::read::import::otlp::{LogRecord, Span, Telemetry};
use serde_json::{Map, Value};

/// An attribute as a count (sent as a number or a string).
fn count(attrs: &Map<String, Value>, key: &str) -> u64 {
    match attrs.get(key) {
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        Some(v) => v.as_u64().unwrap_or(0),
        None => 0,
    }
}

/// An attribute as text (empty when absent or not text).
fn text<'a>(attrs: &'a Map<String, Value>, key: &str) -> &'a str {
    attrs.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The agent a telemetry resource names (`service.name`), as a card says it.
pub fn agent_of_service(service: &str) -> Option<String> {
    let name = match service {
        "" => return None,
        s if s.starts_with("unknown_service") => return None,
        "claude-code" | "claude_code" => "Claude Code",
        "qwen-code" => "qwen-code",
        "gemini-cli" | "gemini_cli" => "Gemini CLI",
        "github-copilot" | "copilot" | "copilot-cli" => "Copilot CLI",
        "codex" | "codex-cli" | "codex_cli_rs" | "codex_exec" => "Codex",
        "kimi-code" | "kimi" => "Kimi Code",
        "opencode" => "OpenCode",
        other => other,
    };
    Some(name.to_string())
}

/// Reads one telemetry line (an OTLP export request) into the tally.
pub(super) fn read(t: &mut Tally, line: &Value) {
    let mut telemetry = Telemetry::default();
    telemetry.add(line);
    for log in &telemetry.logs {
        saw_resource(t, &log.resource);
        read_log(t, log);
    }
    for span in &telemetry.spans {
        saw_resource(t, &span.resource);
        read_span(t, span);
    }
}

fn saw_resource(t: &mut Tally, resource: &Map<String, Value>) {
    if let Some(agent) = agent_of_service(text(resource, "service.name")) {
        t.saw_agent(agent);
    }
}

/// A log record's time, and the request it reports.
fn read_log(t: &mut Tally, log: &LogRecord) {
    let event = log
        .event
        .rsplit_once('.')
        .map_or(log.event.as_str(), |(_, e)| e);
    let a = &log.attrs;
    let part = match event {
        "api_request" => Some(text(a, "agent_id")).filter(|p| !p.is_empty()),
        "api_response" => subagent_of_prompt(a),
        _ => None,
    };
    if log.time_ns > 0 {
        t.saw_millis((log.time_ns / 1_000_000) as i64, part.is_none());
    }
    let request = match event {
        "api_request" => Request {
            input: count(a, "input_tokens"),
            output: count(a, "output_tokens"),
            cache_read: count(a, "cache_read_tokens"),
            cache_write: count(a, "cache_creation_tokens"),
        },
        "api_response" => {
            let cached = count(a, "cached_content_token_count");
            Request {
                input: count(a, "input_token_count").saturating_sub(cached),
                output: count(a, "output_token_count"),
                cache_read: cached,
                cache_write: 0,
            }
        }
        _ => return,
    };
    let cost = a.get("cost_usd").and_then(Value::as_f64);
    let usage = Usage {
        id: None,
        model: text(a, "model"),
        request,
        finished: true,
        recorded: cost
            .filter(|c| c.is_finite() && *c >= 0.0)
            .map(|c| (c * NANOS_PER_USD).round() as u64),
    };
    t.request(part, usage);
}

/// qwen-code: the subagent a request is of, from its `prompt_id`
/// (`<session>#<type>-<call>#<n>`) when it names one.
fn subagent_of_prompt(a: &Map<String, Value>) -> Option<&str> {
    if text(a, "subagent_name").is_empty() {
        return None;
    }
    text(a, "prompt_id")
        .split('#')
        .nth(1)
        .filter(|p| !p.is_empty())
}

/// The agents whose log records hold their requests.
const LOGGED_REQUESTS: [&str; 2] = ["Claude Code", "qwen-code"];

/// A span's time, and a request by the GenAI conventions (not Claude
/// Code's or qwen-code's: their log records hold them).
fn read_span(t: &mut Tally, span: &Span) {
    let a = &span.attrs;
    let part = Some(text(a, "agent_id")).filter(|p| !p.is_empty());
    if span.end_ns > 0 {
        t.saw_millis((span.end_ns / 1_000_000) as i64, part.is_none());
    }
    let has_usage =
        a.contains_key("gen_ai.usage.input_tokens") || a.contains_key("gen_ai.usage.output_tokens");
    let agent = agent_of_service(text(&span.resource, "service.name"));
    if !has_usage || agent.is_some_and(|a| LOGGED_REQUESTS.contains(&a.as_str())) {
        return;
    }
    let model = [
        text(a, "gen_ai.response.model"),
        text(a, "gen_ai.request.model"),
    ]
    .into_iter()
    .find(|m| !m.is_empty())
    .unwrap_or("");
    let cache_read = count(a, "gen_ai.usage.cache_read.input_tokens");
    let cache_write = count(a, "gen_ai.usage.cache_write.input_tokens");
    let usage = Usage {
        id: Some(span.id.as_str()).filter(|id| !id.is_empty()),
        model,
        // The conventions count the cached input in the input.
        request: Request {
            input: count(a, "gen_ai.usage.input_tokens").saturating_sub(cache_read + cache_write),
            output: count(a, "gen_ai.usage.output_tokens"),
            cache_read,
            cache_write,
        },
        finished: true,
        recorded: None,
    };
    t.request(part, usage);
}
