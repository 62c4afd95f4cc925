//! What only telemetry knows (docs/behaviour.md §7 "OpenTelemetry", docs/formats.md
//! part C), per subagent and for the whole session: the time to first token
//! of its model requests (`ttft_ms` on `*.llm_request` spans), the waits on
//! the user's permission (`claude_code.tool.blocked_on_user` spans whose
//! decision came from the user, not from configuration or a hook), retried
//! requests (`attempt` above 1) and cost (`cost_usd` on Claude Code's
//! `api_request` log records). A record belongs to the subagent whose
//! `agent_id` it (or its span's parent) carries, or whose
//! `qwen-code.subagent` span it runs under; else to the main agent.

use super::cards::str_attr;
use super::records::Span;
use crate::model::telemetry::TelemetryFacts;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A session's telemetry figures: each subagent's by its card (the spawning
/// call's id), and the whole session's (main agent and subagents together).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionFacts {
    pub by_call: BTreeMap<String, TelemetryFacts>,
    pub session: TelemetryFacts,
}

/// Sums as the records come, made into [`TelemetryFacts`] at the end.
#[derive(Clone, Copy, Default)]
pub(super) struct Tally {
    requests: u64,
    ttft_total_ms: u64,
    waits: u64,
    blocked_ms: u64,
    retries: u64,
    cost_usd: Option<f64>,
}

impl Tally {
    pub(super) fn request(&mut self, span: &Span) {
        if let Some(ttft) = number(&span.attrs, "ttft_ms") {
            self.requests += 1;
            self.ttft_total_ms += ttft as u64;
        }
        if let Some(attempt) = number(&span.attrs, "attempt") {
            self.retries += (attempt as u64).saturating_sub(1);
        }
    }

    pub(super) fn wait(&mut self, span: &Span) {
        self.waits += 1;
        self.blocked_ms += number(&span.attrs, "duration_ms")
            .map(|d| d as u64)
            .unwrap_or(span.end_ns.saturating_sub(span.start_ns) / 1_000_000);
    }

    pub(super) fn cost(&mut self, usd: f64) {
        self.cost_usd = Some(self.cost_usd.unwrap_or(0.0) + usd);
    }

    pub(super) fn add(&mut self, other: &Tally) {
        self.requests += other.requests;
        self.ttft_total_ms += other.ttft_total_ms;
        self.waits += other.waits;
        self.blocked_ms += other.blocked_ms;
        self.retries += other.retries;
        if let Some(usd) = other.cost_usd {
            self.cost(usd);
        }
    }

    /// Takes back the requests and waits of `other` (a count moved to
    /// another agent; costs are never moved).
    pub(super) fn sub(&mut self, other: &Tally) {
        self.requests -= other.requests;
        self.ttft_total_ms -= other.ttft_total_ms;
        self.waits -= other.waits;
        self.blocked_ms -= other.blocked_ms;
        self.retries -= other.retries;
    }

    pub(super) fn facts(&self) -> TelemetryFacts {
        TelemetryFacts {
            requests: self.requests,
            ttft_ms: (self.requests > 0).then(|| self.ttft_total_ms / self.requests),
            permission_waits: self.waits,
            blocked_ms: self.blocked_ms,
            retries: self.retries,
            cost_micro_usd: self.cost_usd.map(|c| (c * 1e6).round() as u64),
        }
    }
}

/// A finite, non-negative number attribute (sent as a number or a string).
pub(super) fn number(attrs: &Map<String, Value>, key: &str) -> Option<f64> {
    let n = match attrs.get(key)? {
        Value::String(s) => s.parse().ok()?,
        v => v.as_f64()?,
    };
    (n.is_finite() && n >= 0.0).then_some(n)
}

/// Whether a permission decision was the user's: Claude Code says where it
/// came from in `source` (`config`, `hook`, or `user_*`).
pub(super) fn waited_on_user(span: &Span) -> bool {
    str_attr(&span.attrs, "source").starts_with("user")
}

#[cfg(test)]
mod tests {
    use super::super::{facts as facts_of, import};
    use crate::model::event::Event;
    use crate::model::telemetry::TelemetryFacts;
    use serde_json::{json, Value};

    fn span(id: &str, parent: &str, name: &str, attrs: Value) -> Value {
        let attributes: Vec<Value> = attrs
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => json!({"key": k, "value": {"stringValue": s}}),
                Value::Number(n) if n.is_f64() => json!({"key": k, "value": {"doubleValue": n}}),
                n => json!({"key": k, "value": {"intValue": n.to_string()}}),
            })
            .collect();
        json!({"spanId": id, "parentSpanId": parent, "name": name,
               "startTimeUnixNano": "1764990000000000000", "endTimeUnixNano": "1764990001000000000",
               "attributes": attributes})
    }

    fn lines(spans: &[Value], logs: &[Value]) -> String {
        let spans = json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});
        let logs = json!({"resourceLogs": [{"scopeLogs": [{"logRecords": logs}]}]});
        format!("{spans}\n{logs}\n")
    }

    fn cost_log(agent: Option<&str>, usd: f64) -> Value {
        let mut attributes = vec![
            json!({"key": "event.name", "value": {"stringValue": "api_request"}}),
            json!({"key": "cost_usd", "value": {"doubleValue": usd}}),
        ];
        if let Some(agent) = agent {
            attributes.push(json!({"key": "agent_id", "value": {"stringValue": agent}}));
        }
        json!({"timeUnixNano": "1764990000500000000", "attributes": attributes})
    }

    /// Main asks once; subagent a1 (spawned by `toolu_1`) retries a request
    /// twice and waits 4 s on the user for a tool, and a configured allow is
    /// no wait.
    fn claude() -> String {
        lines(
            &[
                span(
                    "e1",
                    "",
                    "claude_code.tool.execution",
                    json!({"tool_use_id": "toolu_1"}),
                ),
                span(
                    "m1",
                    "",
                    "claude_code.llm_request",
                    json!({"ttft_ms": 300, "attempt": 1}),
                ),
                span(
                    "a1",
                    "e1",
                    "claude_code.llm_request",
                    json!({"agent_id": "a1", "ttft_ms": 500, "attempt": 3}),
                ),
                span(
                    "t1",
                    "a1",
                    "claude_code.tool",
                    json!({"agent_id": "a1", "tool_use_id": "toolu_9"}),
                ),
                span(
                    "w1",
                    "t1",
                    "claude_code.tool.blocked_on_user",
                    json!({"decision": "accept", "source": "user_temporary", "duration_ms": 4000}),
                ),
                span(
                    "w2",
                    "t1",
                    "claude_code.tool.blocked_on_user",
                    json!({"decision": "accept", "source": "config", "duration_ms": 7}),
                ),
            ],
            &[cost_log(Some("a1"), 0.01), cost_log(None, 0.02)],
        )
    }

    #[test]
    fn claude_code_ttft_permission_waits_retries_and_cost_per_subagent_and_session() {
        let facts = facts_of(&claude());
        let subagent = TelemetryFacts {
            requests: 1,
            ttft_ms: Some(500),
            permission_waits: 1,
            blocked_ms: 4000,
            retries: 2,
            cost_micro_usd: Some(10_000),
        };
        assert_eq!(facts.by_call.get("toolu_1"), Some(&subagent));
        assert_eq!(facts.by_call.len(), 1, "{facts:?}");
        assert_eq!(
            facts.session,
            TelemetryFacts {
                requests: 2,
                ttft_ms: Some(400),
                permission_waits: 1,
                blocked_ms: 4000,
                retries: 2,
                cost_micro_usd: Some(30_000),
            }
        );
    }

    #[test]
    fn a_telemetry_only_card_carries_its_telemetry_facts() {
        let events = import(&claude()).unwrap();
        let card = events
            .iter()
            .find_map(|e| match e {
                Event::MessageAdded(m) if m.id == "toolu_1" => m.metadata.subagent.clone(),
                _ => None,
            })
            .expect("the card");
        let facts = card.telemetry.expect("its facts");
        assert_eq!((facts.retries, facts.cost_micro_usd), (2, Some(10_000)));
    }

    #[test]
    fn qwen_code_requests_belong_to_the_run_they_are_under() {
        let text = lines(
            &[
                span(
                    "r1",
                    "",
                    "qwen-code.subagent",
                    json!({"qwen-code.subagent.id": "Explore-call_1",
                            "qwen-code.subagent.invoking_request_id": "call_1",
                            "gen_ai.agent.name": "Explore"}),
                ),
                span("x1", "r1", "qwen-code.tool.execution", json!({})),
                span(
                    "l1",
                    "x1",
                    "qwen-code.llm_request",
                    json!({"ttft_ms": 800, "attempt": 2}),
                ),
                span(
                    "l2",
                    "",
                    "qwen-code.llm_request",
                    json!({"ttft_ms": 200, "attempt": 1}),
                ),
            ],
            &[],
        );
        let facts = facts_of(&text);
        let run = &facts.by_call["call_1"];
        assert_eq!(
            (run.ttft_ms, run.retries, run.cost_micro_usd),
            (Some(800), 1, None)
        );
        assert_eq!(
            (facts.session.requests, facts.session.ttft_ms),
            (2, Some(500))
        );
    }

    #[test]
    fn telemetry_without_these_figures_gives_none() {
        let text = lines(
            &[span(
                "m1",
                "",
                "claude_code.llm_request",
                json!({"ttft_ms": "soon", "attempt": -2}),
            )],
            &[],
        );
        let facts = facts_of(&text);
        assert!(facts.by_call.is_empty());
        assert!(facts.session.is_empty(), "{facts:?}");
    }
}
