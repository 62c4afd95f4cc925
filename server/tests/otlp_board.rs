//! Telemetry on the board (docs/behaviour.md §7 "OpenTelemetry"): with `--recordings`, what the
//! receiver keeps is read back and followed like any recording, so a
//! session posted as OTLP becomes a task with its subagent cards, and a
//! restart loses none of it.

mod common;

use common::*;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;

const SESSION: &str = "7f3e9a10-1111-4222-8333-944445555666";
const T0: u64 = 1_764_990_000_000_000_000;

fn attrs(pairs: &[(&str, Value)]) -> Value {
    let mut out = vec![json!({"key": "session.id", "value": {"stringValue": SESSION}})];
    for (k, v) in pairs {
        let value = match v {
            Value::String(s) => json!({"stringValue": s}),
            n => json!({"intValue": n}),
        };
        out.push(json!({"key": k, "value": value}));
    }
    Value::Array(out)
}

fn at(ms: u64) -> String {
    (T0 + ms * 1_000_000).to_string()
}

/// Claude Code launching one Explore subagent that completes: the
/// subagent's span first, then its spawning call's, then the completion.
async fn post_claude_session(addr: SocketAddr) {
    let span = |id: &str, parent: &str, name: &str, from, to, attributes| {
        json!({"traceId": "0123456789abcdef0123456789abcdef", "spanId": id, "parentSpanId": parent,
               "name": name, "startTimeUnixNano": at(from), "endTimeUnixNano": at(to),
               "attributes": attributes})
    };
    let child = span(
        "a100000000000001",
        "e100000000000000",
        "claude_code.llm_request",
        30,
        1800,
        attrs(&[
            ("agent_id", json!("a1")),
            ("query_source_safe", json!("agent.builtin.Explore")),
            ("input_tokens", json!(10)),
        ]),
    );
    let spawn = span(
        "e100000000000000",
        "",
        "claude_code.tool.execution",
        10,
        25,
        attrs(&[("tool_use_id", json!("toolu_01"))]),
    );
    for spans in [vec![child], vec![spawn]] {
        let body = json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});
        let response = reqwest::Client::new()
            .post(format!("http://{addr}/v1/traces"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
    }
    let completed = json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [{
        "timeUnixNano": at(1800), "spanId": "e100000000000000",
        "traceId": "0123456789abcdef0123456789abcdef",
        "attributes": attrs(&[("event.name", json!("subagent_completed")), ("agent_id", json!("a1")),
                              ("agent_type", json!("Explore")), ("duration_ms", json!(1790)),
                              ("total_tokens", json!(321))])
    }]}]}]});
    let response = reqwest::Client::new()
        .post(format!("http://{addr}/v1/logs"))
        .json(&completed)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
}

/// The board's one task once it shows the session, and its messages.
async fn the_task(addr: SocketAddr) -> (Value, Vec<Value>) {
    let snapshot = wait_http(addr, "/api/v1/workflows/wf-recordings/snapshot", |s| {
        s["tasks"].as_array().is_some_and(|t| t.len() == 1)
    })
    .await;
    let task = snapshot["tasks"][0].clone();
    let session = task["primary_session_id"].as_str().unwrap().to_string();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let messages = session_messages(addr, &session).await;
        let done = messages
            .iter()
            .any(|m| m["metadata"]["normalized"]["subagent_task"]["status"] == "completed");
        if done || tokio::time::Instant::now() > deadline {
            return (task, messages);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn posted_telemetry_becomes_a_task_with_its_cards_and_survives_a_restart() {
    let recordings = TempDir::new("otlp-board-recordings");
    let telemetry = TempDir::new("otlp-board-telemetry");
    let server = start(receiving(&recordings, &telemetry)).await;
    post_claude_session(server.addr()).await;
    let (task, messages) = the_task(server.addr()).await;
    let card = messages
        .iter()
        .find(|m| m["id"] == "toolu_01")
        .expect("the card is keyed by the spawning call");
    let payload = &card["metadata"]["normalized"]["subagent_task"];
    assert_eq!(payload["subagent_type"], "Explore");
    assert_eq!(payload["status"], "completed");
    assert_eq!(payload["total_tokens"], 321);
    server.shutdown().await.unwrap();

    let again = start(receiving(&recordings, &telemetry)).await;
    let (task_after, messages_after) = the_task(again.addr()).await;
    assert_eq!(
        task_after["id"], task["id"],
        "the same task after a restart"
    );
    assert_eq!(messages_after, messages, "and the same cards");
    again.shutdown().await.unwrap();
}

/// Now, in nanoseconds since the epoch.
fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// While spans arrive, a Claude Code subagent no completion has settled is
/// running: the task's chip counts it.
#[tokio::test]
async fn a_subagent_with_spans_arriving_and_no_completion_is_counted_running() {
    let recordings = TempDir::new("otlp-board-running-recordings");
    let telemetry = TempDir::new("otlp-board-running-telemetry");
    let server = start(receiving(&recordings, &telemetry)).await;
    let now = now_ns();
    let span = |id: &str, parent: &str, name: &str, attributes| {
        json!({"traceId": "0123456789abcdef0123456789abcdef", "spanId": id, "parentSpanId": parent,
               "name": name, "startTimeUnixNano": (now - 2_000_000_000).to_string(),
               "endTimeUnixNano": now.to_string(), "attributes": attributes})
    };
    let spans = vec![
        span(
            "e200000000000000",
            "",
            "claude_code.tool.execution",
            attrs(&[("tool_use_id", json!("toolu_02"))]),
        ),
        span(
            "a200000000000001",
            "e200000000000000",
            "claude_code.llm_request",
            attrs(&[
                ("agent_id", json!("a2")),
                ("query_source_safe", json!("agent.builtin.Plan")),
            ]),
        ),
    ];
    let body = json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});
    let response = reqwest::Client::new()
        .post(format!("http://{}/v1/traces", server.addr()))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let snapshot = wait_http(
        server.addr(),
        "/api/v1/workflows/wf-recordings/snapshot",
        |s| s["tasks"][0]["active_subagent_count"] == 1,
    )
    .await;
    assert_eq!(snapshot["tasks"].as_array().unwrap().len(), 1);
    server.shutdown().await.unwrap();
}
