//! Telemetry of the three CLIs as docs/formats.md §11 measured it,
//! written small: each test names the rule it holds.

use super::*;
use crate::model::message::Message;
use crate::read::import::Dialect;
use serde_json::json;

const SESSION: &str = "5d1c2b3a-0000-4000-8000-000000000001";
const T0: u64 = 1_764_990_000_000_000_000;

fn ms(n: u64) -> u64 {
    T0 + n * 1_000_000
}

fn attr(key: &str, value: &Value) -> Value {
    match value {
        Value::String(s) => json!({"key": key, "value": {"stringValue": s}}),
        Value::Bool(b) => json!({"key": key, "value": {"boolValue": b}}),
        n => json!({"key": key, "value": {"intValue": n}}),
    }
}

fn span(id: &str, parent: &str, name: &str, from: u64, to: u64, attrs: Value) -> Value {
    let mut attributes = vec![attr("session.id", &json!(SESSION))];
    for (k, v) in attrs.as_object().unwrap() {
        attributes.push(attr(k, v));
    }
    json!({"traceId": "0123456789abcdef0123456789abcdef", "spanId": id, "parentSpanId": parent,
           "name": name, "kind": 1, "startTimeUnixNano": ms(from).to_string(),
           "endTimeUnixNano": ms(to).to_string(), "attributes": attributes, "status": {}})
}

fn log(span_id: &str, at: u64, event: &str, attrs: Value) -> Value {
    let mut attributes = vec![
        attr("session.id", &json!(SESSION)),
        attr("event.name", &json!(event)),
    ];
    for (k, v) in attrs.as_object().unwrap() {
        attributes.push(attr(k, v));
    }
    json!({"timeUnixNano": ms(at).to_string(), "spanId": span_id,
           "traceId": "0123456789abcdef0123456789abcdef", "attributes": attributes})
}

fn spans_line(spans: &[Value]) -> String {
    json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).to_string()
}

fn logs_line(records: &[Value]) -> String {
    json!({"resourceLogs": [{"scopeLogs": [{"logRecords": records}]}]}).to_string()
}

/// Claude Code's otelwave: main launches A1 (background, completes) and A2
/// (no completion record); A1 launches A4 in the foreground.
fn claude_lines() -> Vec<String> {
    vec![
        spans_line(&[
            span(
                "a100000000000001",
                "1000000000000000",
                "claude_code.llm_request",
                20,
                4900,
                json!({"agent_id": "a1", "query_source_safe": "agent.builtin.general-purpose",
                        "model": "claude-sonnet", "input_tokens": 100, "output_tokens": "20"}),
            ),
            span(
                "a400000000000001",
                "e400000000000000",
                "claude_code.llm_request",
                1200,
                2800,
                json!({"agent_id": "a4", "parent_agent_id": "a1",
                        "query_source_safe": "agent.builtin.Explore", "input_tokens": 50}),
            ),
        ]),
        spans_line(&[
            span(
                "e400000000000000",
                "t400000000000000",
                "claude_code.tool.execution",
                1000,
                2900,
                json!({"tool_use_id": "toolu_4", "agent_id": "a1"}),
            ),
            span(
                "e100000000000000",
                "t100000000000000",
                "claude_code.tool.execution",
                10,
                20,
                json!({"tool_use_id": "toolu_1"}),
            ),
            span(
                "e200000000000000",
                "t200000000000000",
                "claude_code.tool.execution",
                11,
                21,
                json!({"tool_use_id": "toolu_2"}),
            ),
            span(
                "a200000000000001",
                "e200000000000000",
                "claude_code.llm_request",
                30,
                900,
                json!({"agent_id": "a2", "query_source_safe": "agent.builtin.Plan"}),
            ),
        ]),
        logs_line(&[
            log(
                "e400000000000000",
                3000,
                "subagent_completed",
                json!({"agent_id": "a4", "parent_agent_id": "a1", "agent_type": "Explore",
                       "duration_ms": 1900, "total_tokens": 777, "total_tool_uses": 2}),
            ),
            log(
                "e100000000000000",
                5000,
                "subagent_completed",
                json!({"agent_id": "a1", "agent_type": "general-purpose", "is_async": true,
                       "duration_ms": 4990, "total_tokens": 4321, "total_tool_uses": 3}),
            ),
        ]),
    ]
}

fn messages(events: &[Event]) -> Vec<&Message> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::MessageAdded(m) => Some(m),
            _ => None,
        })
        .collect()
}

/// `(id, parent, type, status, payload status)` of each card.
fn tree(text: &str) -> Vec<(String, String, String, String, String)> {
    let events = import(text).unwrap();
    messages(&events)
        .into_iter()
        .map(|m| {
            let task = m.metadata.subagent.clone().unwrap();
            (
                m.id.clone(),
                m.metadata.parent_tool_call_id.clone().unwrap_or_default(),
                task.subagent_type,
                m.metadata.status.clone().unwrap_or_default(),
                task.status,
            )
        })
        .collect()
}

fn owned(rows: &[(&str, &str, &str, &str, &str)]) -> Vec<(String, String, String, String, String)> {
    rows.iter()
        .map(|r| (r.0.into(), r.1.into(), r.2.into(), r.3.into(), r.4.into()))
        .collect()
}

#[test]
fn claude_code_cards_are_keyed_by_the_spawning_call_and_nested_by_parent_agent() {
    let text = claude_lines().join("\n");
    assert_eq!(
        tree(&text),
        owned(&[
            ("toolu_1", "", "general-purpose", "complete", "completed"),
            ("toolu_2", "", "Plan", "error", "no completion reported"),
            ("toolu_4", "toolu_1", "Explore", "complete", "completed"),
        ])
    );
    let events = import(&text).unwrap();
    let a1 = messages(&events)[0].metadata.subagent.clone().unwrap();
    assert_eq!(a1.total_tokens, Some(4321), "the completion's own count");
    assert_eq!(a1.duration_ms, Some(4990));
    assert!(a1.is_async);
    assert_eq!(a1.model, "claude-sonnet");
    assert_eq!(messages(&events)[0].created_at, "2025-12-06T03:00:00.020Z");
    assert_eq!(messages(&events)[0].session_id, SESSION);
}

#[test]
fn a_claude_subagent_without_completion_runs_until_the_session_has_been_quiet() {
    let text = claude_lines().join("\n");
    let at = |now_ms: u64| -> Vec<(String, String)> {
        let events = import_live(&text, now_ms).unwrap();
        messages(&events)
            .into_iter()
            .map(|m| {
                let status = m.metadata.status.clone().unwrap_or_default();
                (m.id.clone(), status)
            })
            .collect()
    };
    let newest_ms = ms(5000) / 1_000_000;
    let live = at(newest_ms + 1000);
    assert!(
        live.contains(&("toolu_2".into(), "in_progress".into())),
        "{live:?}"
    );
    let quiet = at(newest_ms + ENDED_AFTER_QUIET_MS + 1);
    assert!(
        quiet.contains(&("toolu_2".into(), "error".into())),
        "{quiet:?}"
    );
    assert!(quiet.contains(&("toolu_1".into(), "complete".into())));
}

#[test]
fn the_same_model_whatever_order_the_records_arrive_in() {
    let lines = claude_lines();
    let expected = tree(&lines.join("\n"));
    // Every line order, and each line's records reversed.
    let orders = [[0, 1, 2], [2, 1, 0], [1, 2, 0], [2, 0, 1]];
    for order in orders {
        let shuffled: Vec<String> = order.iter().map(|&i| lines[i].clone()).collect();
        assert_eq!(tree(&shuffled.join("\n")), expected, "order {order:?}");
        let reversed: Vec<String> = shuffled
            .iter()
            .map(|line| {
                let mut v: Value = serde_json::from_str(line).unwrap();
                for key in ["resourceSpans", "resourceLogs"] {
                    if let Some(r) = v.get_mut(key) {
                        let scope = if key == "resourceSpans" {
                            "scopeSpans"
                        } else {
                            "scopeLogs"
                        };
                        let records = if key == "resourceSpans" {
                            "spans"
                        } else {
                            "logRecords"
                        };
                        r[0][scope][0][records].as_array_mut().unwrap().reverse();
                    }
                }
                v.to_string()
            })
            .collect();
        assert_eq!(
            tree(&reversed.join("\n")),
            expected,
            "order {order:?}, reversed"
        );
    }
}

#[test]
fn qwen_code_runs_are_their_spans_with_the_result_from_the_execution_log_and_hooks_ignored() {
    let text = [
        spans_line(&[
            span("b100000000000000", "", "qwen-code.subagent", 0, 2600,
                 json!({"gen_ai.agent.name": "general-purpose", "gen_ai.agent.description": "look around",
                        "qwen-code.subagent.id": "general-purpose-call_1",
                        "qwen-code.subagent.invoking_request_id": "call_1",
                        "qwen-code.subagent.invocation_kind": "background",
                        "qwen-code.subagent.status": "completed"})),
            span("b200000000000000", "c100000000000000", "qwen-code.subagent", 500, 1500,
                 json!({"gen_ai.agent.name": "Explore",
                        "qwen-code.subagent.id": "Explore-call_2",
                        "qwen-code.subagent.invoking_request_id": "call_2",
                        "qwen-code.subagent.parent_agent_id": "general-purpose-call_1",
                        "qwen-code.subagent.status": "failed"})),
            span("c100000000000000", "b100000000000000", "qwen-code.tool.execution", 400, 1600, json!({})),
            span("d100000000000000", "b100000000000000", "qwen-code.llm_request", 10, 300,
                 json!({"gen_ai.usage.input_tokens": 40, "gen_ai.usage.output_tokens": 2})),
            span("d200000000000000", "b100000000000000", "qwen-code.hook", 10, 11, json!({})),
            span("d300000000000000", "d100000000000000", "POST", 10, 290, json!({"url.full": "http://x"})),
        ]),
        logs_line(&[log("b100000000000000", 2600, "qwen-code.subagent_execution",
                        json!({"status": "completed", "result": "All good."}))]),
    ]
    .join("\n");
    assert_eq!(
        tree(&text),
        owned(&[
            ("call_1", "", "general-purpose", "complete", "completed"),
            ("call_2", "call_1", "Explore", "error", "failed"),
        ])
    );
    let events = import(&text).unwrap();
    let first = messages(&events)[0].metadata.subagent.clone().unwrap();
    assert_eq!(first.result_text, "All good.");
    assert_eq!(first.total_tokens, Some(42));
    assert!(first.is_async);
    assert!(events.contains(&Event::NotShown {
        kind: "OpenTelemetry hook and HTTP client spans".into(),
        count: 2
    }));
}

#[test]
fn gen_ai_subagents_are_invoke_agent_spans_under_execute_tool() {
    let gen_ai = |id: &str, parent: &str, op: &str, from, to, extra: Value| {
        let mut attrs = json!({"gen_ai.operation.name": op});
        attrs
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        span(id, parent, op, from, to, attrs)
    };
    let text = spans_line(&[
        gen_ai("f000000000000000", "", "invoke_agent", 0, 8800, json!({})),
        gen_ai(
            "f100000000000000",
            "f000000000000000",
            "execute_tool",
            10,
            20,
            json!({"gen_ai.tool.call.id": "tc_1"}),
        ),
        gen_ai(
            "f200000000000000",
            "f100000000000000",
            "invoke_agent",
            15,
            4750,
            json!({"gen_ai.agent.name": "general-purpose", "gen_ai.usage.input_tokens": 9}),
        ),
        gen_ai(
            "f300000000000000",
            "f200000000000000",
            "execute_tool",
            100,
            900,
            json!({"gen_ai.tool.call.id": "tc_2"}),
        ),
        gen_ai(
            "f400000000000000",
            "f300000000000000",
            "invoke_agent",
            110,
            880,
            json!({"gen_ai.agent.name": "explore"}),
        ),
    ]);
    assert_eq!(
        tree(&text),
        owned(&[
            ("tc_1", "", "general-purpose", "complete", "completed"),
            ("tc_2", "tc_1", "explore", "complete", "completed"),
        ])
    );
}

#[test]
fn a_telemetry_file_is_detected_and_opens_like_any_recording() {
    let text = claude_lines().join("\n");
    let imported = crate::read::import::import_any(&text).unwrap();
    assert_eq!(imported.dialect, crate::read::import::Dialect::Otlp);
    assert_eq!(messages(&imported.events).len(), 3);
}

#[test]
fn a_turn_under_way_works_until_its_interaction_span_arrives() {
    use crate::read::import::working::agent_working;
    let mut lines = claude_lines();
    assert_eq!(agent_working(Dialect::Otlp, &lines.join("\n")), Some(true));
    lines.push(spans_line(&[span(
        "1000000000000000",
        "",
        "claude_code.interaction",
        0,
        6000,
        json!({}),
    )]));
    assert_eq!(agent_working(Dialect::Otlp, &lines.join("\n")), Some(false));
    let metrics = json!({"resourceMetrics": [{"scopeMetrics": [{"metrics": [{"name": "m"}]}]}]});
    lines.push(metrics.to_string());
    assert_eq!(
        agent_working(Dialect::Otlp, &lines.join("\n")),
        Some(false),
        "metrics say nothing"
    );
}

#[test]
fn times_are_written_as_rfc3339_utc() {
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(
        rfc3339(1_709_208_000_123_000_000),
        "2024-02-29T12:00:00.123Z"
    );
}
