//! The receiver bounded by its input (docs/security.md "Telemetry"): a
//! record keeps at most 128 attributes, a value is cut at 64 KiB, a request
//! names at most 64 sessions (the rest refused in the partial success), a
//! body arrives within its timeout, the folder keeps to its quota, and files
//! kept by an older taskview are held to the same limits when it starts.

mod common;

use common::otlp::{gzip, kept, post, post_json, spans_of};
use common::{config, quiet, start, TempDir};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use taskview_server::sources::telemetry::Keeping;
use taskview_server::{Config, OtlpConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TRACE: &str = "5b8efff798038103d269b633813fc60c";

fn receiving(dir: &TempDir) -> Config {
    Config {
        otlp: OtlpConfig {
            dir: Some(dir.0.clone()),
            ..Default::default()
        },
        ..config(quiet())
    }
}

fn text(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

/// A span of `session` with `attributes` besides its session.
fn span(n: usize, session: &str, mut attributes: Vec<Value>) -> Value {
    attributes.insert(0, text("session.id", session));
    json!({"traceId": TRACE, "spanId": format!("{:016x}", n + 1),
           "name": "claude_code.interaction",
           "startTimeUnixNano": "1764990000000000000", "endTimeUnixNano": "1764990001000000000",
           "attributes": attributes})
}

fn traces(spans: Vec<Value>) -> Value {
    json!({"resourceSpans": [{"scopeSpans": [{"scope": {"name": "s"}, "spans": spans}]}]})
}

#[tokio::test]
async fn a_span_keeps_its_first_128_attributes_and_the_answer_says_what_was_dropped() {
    let dir = TempDir::new("otlp-attributes");
    let server = start(receiving(&dir)).await;
    let many = (0..1000).map(|n| text(&format!("a{n}"), "")).collect();
    let (status, answer) = post_json(
        server.addr(),
        "/v1/traces",
        &traces(vec![span(0, "s-1", many)]),
    )
    .await;
    assert_eq!(status, 200);
    let message = answer["partialSuccess"]["errorMessage"].as_str().unwrap();
    assert!(message.contains("873 attributes"), "{message}");
    assert_eq!(
        answer["partialSuccess"]["rejectedSpans"], "0",
        "a warning, nothing refused"
    );
    let lines = kept(&dir.0, "s-1");
    let span = spans_of(&lines[0])[0];
    assert_eq!(span["attributes"].as_array().unwrap().len(), 128);
    assert_eq!(span["attributes"][0]["key"], "session.id");
    assert_eq!(span["droppedAttributesCount"], 873);
    server.shutdown().await.unwrap();
}

/// The 61 KB post: one string of tens of megabytes once unpacked.
#[tokio::test]
async fn a_long_value_is_cut_at_64_kib_and_its_file_stays_small() {
    let dir = TempDir::new("otlp-long");
    let server = start(receiving(&dir)).await;
    let long = "A".repeat(15 << 20);
    let body =
        serde_json::to_vec(&traces(vec![span(0, "s-long", vec![text("x", &long)])])).unwrap();
    let packed = gzip(&body);
    assert!(packed.len() < 100 << 10, "{} bytes sent", packed.len());
    let headers = [
        ("content-type", "application/json"),
        ("content-encoding", "gzip"),
    ];
    let (status, _, answer) = post(server.addr(), "/v1/traces", &headers, packed).await;
    assert_eq!(status, 200);
    let answer: Value = serde_json::from_slice(&answer).unwrap();
    let message = answer["partialSuccess"]["errorMessage"].as_str().unwrap();
    assert!(message.contains("1 values cut to 64 KiB"), "{message}");
    let size = std::fs::metadata(dir.0.join("s-long.jsonl")).unwrap().len();
    assert!(size < 70 << 10, "the file holds {size} bytes");
    server.shutdown().await.unwrap();
}

/// The post naming 1,500 sessions.
#[tokio::test]
async fn a_request_names_at_most_64_sessions_and_the_rest_is_refused() {
    let dir = TempDir::new("otlp-sessions");
    let server = start(receiving(&dir)).await;
    let spans = (0..1500)
        .map(|n| span(n, &format!("s-{n:04}"), vec![]))
        .collect();
    let request: ExportTraceServiceRequest = serde_json::from_value(traces(spans)).unwrap();
    let proto = [("content-type", "application/x-protobuf")];
    let (status, _, answer) =
        post(server.addr(), "/v1/traces", &proto, request.encode_to_vec()).await;
    assert_eq!(status, 200);
    let answer = ExportTraceServiceResponse::decode(answer.as_slice()).unwrap();
    let partial = answer.partial_success.unwrap();
    assert_eq!(partial.rejected_spans, 1436);
    assert!(
        partial.error_message.contains("at most 64 sessions"),
        "{}",
        partial.error_message
    );
    let files = std::fs::read_dir(&dir.0).unwrap().flatten();
    let sessions = files.filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl"));
    assert_eq!(sessions.count(), 64);
    assert_eq!(
        kept(&dir.0, "s-0000").len(),
        1,
        "the first sessions are kept"
    );
    assert!(kept(&dir.0, "s-0064").is_empty());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn past_the_unpacked_limit_a_request_is_refused_whole() {
    let dir = TempDir::new("otlp-unpacked");
    let server = start(receiving(&dir)).await;
    let long = "A".repeat(17 << 20);
    let body = serde_json::to_vec(&traces(vec![span(0, "s-x", vec![text("x", &long)])])).unwrap();
    let headers = [
        ("content-type", "application/json"),
        ("content-encoding", "gzip"),
    ];
    let (status, _, _) = post(server.addr(), "/v1/traces", &headers, gzip(&body)).await;
    assert_eq!(status, 413);
    assert!(kept(&dir.0, "s-x").is_empty());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_body_slower_than_its_timeout_is_answered_408() {
    let dir = TempDir::new("otlp-slow");
    let mut config = receiving(&dir);
    config.connections.body_timeout = Duration::from_secs(1);
    let server = start(config).await;
    let mut socket = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    let head = "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                Content-Length: 1000\r\n\r\n{\"resourceSpans\":";
    socket.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    let mut answer = vec![0u8; 512];
    let read = tokio::time::timeout(Duration::from_secs(10), socket.read(&mut answer))
        .await
        .expect("answered before the test gives up")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(5));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_folder_keeps_to_its_quota_removing_the_sessions_written_longest_ago() {
    let dir = TempDir::new("otlp-quota");
    let mut config = receiving(&dir);
    config.otlp.keeping = Keeping {
        max_bytes: 1 << 20,
        ..Keeping::default()
    };
    let server = start(config).await;
    let value = "v".repeat(60 << 10);
    for n in 0..40 {
        let body = traces(vec![span(n, &format!("s-{n:02}"), vec![text("x", &value)])]);
        assert_eq!(post_json(server.addr(), "/v1/traces", &body).await.0, 200);
        let on_disk: u64 = std::fs::read_dir(&dir.0)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
            .map(|e| e.metadata().unwrap().len().max(64 << 10))
            .sum();
        assert!(
            on_disk <= 1 << 20,
            "after post {n}: {on_disk} bytes counted"
        );
    }
    assert!(kept(&dir.0, "s-00").is_empty(), "the first session went");
    assert_eq!(kept(&dir.0, "s-39").len(), 1, "the last one is kept");
    // One session larger than the whole quota is refused, not written.
    let huge = (0..20).map(|n| text(&format!("x{n}"), &value)).collect();
    let (status, answer) = post_json(
        server.addr(),
        "/v1/traces",
        &traces(vec![span(0, "s-huge", huge)]),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(answer["partialSuccess"]["rejectedSpans"], "1", "{answer}");
    assert!(kept(&dir.0, "s-huge").is_empty());
    server.shutdown().await.unwrap();
}

/// A file an older taskview kept, with a record of 200,000 attributes and a
/// line of a 20 MB value, read again at start within the limits.
#[tokio::test]
async fn files_kept_before_the_limits_are_held_to_them_at_start() {
    let dir = TempDir::new("otlp-vetted");
    let many = (0..200_000).map(|n| text(&format!("a{n}"), "")).collect();
    let wide = traces(vec![span(0, "s-old", many)]).to_string();
    let long = traces(vec![span(
        1,
        "s-old",
        vec![text("x", &"A".repeat(20 << 20))],
    )])
    .to_string();
    dir.write("s-old.jsonl", format!("{wide}\n{long}\nnot telemetry\n"));
    let server = start(receiving(&dir)).await;
    let lines = kept(&dir.0, "s-old");
    assert_eq!(lines.len(), 2, "the line that is no telemetry is dropped");
    assert_eq!(
        spans_of(&lines[0])[0]["attributes"]
            .as_array()
            .unwrap()
            .len(),
        128
    );
    let size = std::fs::metadata(dir.0.join("s-old.jsonl")).unwrap().len();
    assert!(size < 200 << 10, "{size} bytes");
    assert!(dir.0.join(".limits-1").exists());
    server.shutdown().await.unwrap();
}
