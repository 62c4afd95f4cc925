//! OpenTelemetry as a transcript (docs/behaviour.md §7 "OpenTelemetry"): OTLP JSON lines, as
//! `taskview serve` keeps what its receiver accepts and as a Collector's
//! file exporter writes them, become a session of subagent cards
//! ([`cards`]): type, status, start and duration, tokens, model and the
//! summary where the telemetry carries it. The text of turns is not in
//! telemetry (agents send it only with content flags), so the other spans,
//! logs and metrics are counted, never rows.

mod cards;
mod facts_follow;
mod follow;
mod launches;
mod metrics;
mod records;
mod sessions;
pub mod split;
mod tree;

use crate::model::event::Event;
use crate::model::time::format_millis;
use crate::read::import::build::Stamp;
use crate::read::import::tool::{ToolCall, ToolKind};
use cards::Card;

use serde_json::{json, Value};

pub use follow::Follow;
pub use metrics::SessionFacts;
pub(crate) use records::{is_record, LogRecord, Span, Telemetry};
pub use sessions::{is_telemetry, session_text, sessions, TelemetrySession};

/// How long a session sends nothing before it is taken as ended (the
/// recordings' rule for a session nobody writes).
pub const ENDED_AFTER_QUIET_MS: u64 = 10 * 60 * 1000;

/// The session a whole telemetry file describes, read as ended (a Claude
/// Code subagent without a completion record reads `no completion reported`).
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    Ok(read_whole(text).drain(None))
}

/// The session of a telemetry file that may still grow, at `now_ms`: it
/// has ended once its newest record is [`ENDED_AFTER_QUIET_MS`] old; until
/// then a Claude Code subagent without a completion record is running.
pub fn import_live(text: &str, now_ms: u64) -> Result<Vec<Event>, String> {
    Ok(read_whole(text).drain(Some(now_ms)))
}

/// What only the telemetry in `text` knows of its session and of each
/// subagent (by the spawning call's id): time to first token, permission
/// waits, retries and cost.
pub fn facts(text: &str) -> SessionFacts {
    read_whole(text).facts()
}

/// Every line of `text` read by one follower, to be drained once: the whole
/// import is the fold a growing file is followed with.
fn read_whole(text: &str) -> Follow {
    let mut follow = Follow::default();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        follow.line(line, &mut |_| {});
    }
    follow
}

/// A card as the message of its spawning call in session `session_id`.
fn card_message(card: &Card, session_id: &str) -> crate::model::message::Message {
    let stamp = Stamp {
        session_id: session_id.to_string(),
        turn_id: None,
        created_at: rfc3339(card.start_ns),
    };
    let call = ToolCall {
        id: card.id.clone(),
        parent: card.parent.clone(),
        name: "Agent".into(),
        kind: Some(ToolKind::Subagent),
        status: card.status,
        input: json!({
            "subagent_type": card.task.subagent_type,
            "description": card.task.description,
        }),
        output: Some(card.task.result_text.clone()).filter(|t| !t.is_empty()),
        subagent: Some(card.task.clone()),
        ..ToolCall::default()
    };
    call.to_message(&stamp)
}

/// What one telemetry line says of its main agent (`import::working`): a
/// turn's own span (`*.interaction`, or a GenAI `invoke_agent` span with no
/// parent) is sent when the turn ends, so it says the turn is over; other
/// spans and log records are sent while the agent (or a subagent) works;
/// metrics say nothing.
pub(crate) fn record_says(line: &Value) -> Option<bool> {
    if !is_record(line) {
        return None;
    }
    let mut telemetry = Telemetry::default();
    telemetry.add(line);
    let ends_turn = telemetry.spans.iter().any(|s| {
        s.name.ends_with(".interaction")
            || s.parent.is_empty()
                && s.attrs.get("gen_ai.operation.name").and_then(Value::as_str)
                    == Some("invoke_agent")
                && !s.name.starts_with("qwen-code.")
    });
    match (
        ends_turn,
        telemetry.spans.is_empty() && telemetry.logs.is_empty(),
    ) {
        (true, _) => Some(false),
        (false, false) => Some(true),
        (false, true) => None,
    }
}

/// Nanoseconds since the epoch as RFC 3339 UTC with milliseconds.
fn rfc3339(ns: u64) -> String {
    format_millis((ns / 1_000_000) as i64)
}

#[cfg(test)]
mod tests;
