//! The sessions of one telemetry file: a Collector's file exporter writes
//! the telemetry of every session it hears of into one file, which the file
//! view lists session by session ([`sessions`]) and opens one session of
//! ([`session_text`]), split by the receiver's own rule ([`super::split`]).

use super::records::{is_record, Telemetry};
use super::split::by_session;
use super::Follow;
use crate::model::event::Event;
use crate::read::import::title::one_line;
use serde_json::Value;
use std::collections::BTreeMap;

/// What a prompt reads when the agent was told not to send it (Claude
/// Code without `OTEL_LOG_USER_PROMPTS`).
const REDACTED: &str = "<REDACTED>";

/// One session of a telemetry file, as the file view lists it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TelemetrySession {
    /// Its id (`session.id`, `gen_ai.conversation.id`, or `trace-<id>`).
    pub id: String,
    /// Its first prompt, on one line, where the telemetry carries it.
    pub title: Option<String>,
    /// The agent that sent it (`Claude Code`, `qwen-code`, `Copilot CLI`,
    /// else what its `service.name` says).
    pub agent: Option<String>,
    /// Its subagent cards, spans, log records and metrics.
    pub subagents: u64,
    pub spans: u64,
    pub logs: u64,
    pub metrics: u64,
    /// Its newest record's time, in milliseconds since the epoch.
    pub newest_ms: u64,
}

/// The record lines of `text`, each split by session.
fn parts(text: &str) -> impl Iterator<Item = BTreeMap<String, Value>> + '_ {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(is_record)
        .map(|request| by_session(&request))
}

/// Whether `text` reads as telemetry lines: its first line is an export
/// request (a cheap look before [`sessions`]: a line whose first field is
/// no request's, a whole document on one line among them, is not parsed).
pub fn is_telemetry(text: &str) -> bool {
    let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return false;
    };
    let Some(fields) = first.strip_prefix('{') else {
        return false;
    };
    let opens = [
        "\"resourceSpans\"",
        "\"resourceLogs\"",
        "\"resourceMetrics\"",
    ];
    opens.iter().any(|key| fields.trim_start().starts_with(key))
        && serde_json::from_str::<Value>(first).is_ok_and(|v| is_record(&v))
}

/// The sessions of the telemetry file `text`, newest first (ties by id). A
/// session of nothing but metrics (qwen-code sends some that name none) is
/// left out: it has nothing to show.
pub fn sessions(text: &str) -> Vec<TelemetrySession> {
    let mut found = BTreeMap::<String, (TelemetrySession, Follow)>::new();
    for parts in parts(text) {
        for (id, part) in parts {
            let (session, follow) = found.entry(id.clone()).or_insert_with(|| {
                let session = TelemetrySession {
                    id,
                    ..TelemetrySession::default()
                };
                (session, Follow::default())
            });
            follow.record(&part);
            let mut telemetry = Telemetry::default();
            telemetry.add(&part);
            session.note(&telemetry);
        }
    }
    let mut listed: Vec<TelemetrySession> = found
        .into_values()
        .filter(|(s, _)| s.spans + s.logs > 0)
        .map(|(mut session, mut follow)| {
            session.subagents = follow
                .drain(None)
                .iter()
                .filter(|e| matches!(e, Event::MessageAdded(m) if m.is_subagent_payload()))
                .count() as u64;
            session
        })
        .collect();
    listed.sort_by(|a, b| b.newest_ms.cmp(&a.newest_ms).then_with(|| a.id.cmp(&b.id)));
    listed
}

impl TelemetrySession {
    /// Counts what one part of a line holds, and learns its title and agent.
    fn note(&mut self, telemetry: &Telemetry) {
        self.spans += telemetry.spans.len() as u64;
        self.logs += telemetry.logs.len() as u64;
        self.metrics += telemetry.metrics;
        let times = telemetry.spans.iter().map(|s| s.end_ns);
        let times = times.chain(telemetry.logs.iter().map(|l| l.time_ns));
        self.newest_ms = self.newest_ms.max(times.max().unwrap_or(0) / 1_000_000);
        let resources = telemetry.spans.iter().map(|s| &s.resource);
        let mut resources = resources.chain(telemetry.logs.iter().map(|l| &l.resource));
        if self.agent.is_none() {
            self.agent = resources
                .find_map(|r| r.get("service.name")?.as_str())
                .map(agent_name);
        }
        if self.title.is_none() {
            let mut prompts = telemetry
                .logs
                .iter()
                .filter(|l| l.event.ends_with("user_prompt"));
            self.title = one_line(prompts.find_map(|l| {
                let prompt = l.attrs.get("prompt")?.as_str()?;
                (prompt != REDACTED).then(|| prompt.to_string())
            }));
        }
    }
}

/// The agent a `service.name` stands for, as people call it.
fn agent_name(service: &str) -> String {
    match service {
        "claude-code" => "Claude Code",
        "github-copilot" => "Copilot CLI",
        other => other,
    }
    .to_string()
}

/// The telemetry of session `id` alone, out of the file `text`: a line per
/// line of the file that holds some of its records, with only those.
pub fn session_text(text: &str, id: &str) -> String {
    let mut out = String::new();
    for mut parts in parts(text) {
        if let Some(part) = parts.remove(id) {
            out.push_str(&part.to_string());
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests;
