//! The OpenTelemetry receiver (docs/behaviour.md §7 "OpenTelemetry"):
//! OTLP/HTTP in protobuf or JSON, gzip or not, chunked or not, answered as
//! the protocol says, kept a file per session before the answer, and
//! hostile bodies refused without losing what was accepted before.

mod common;

use common::{config, quiet, start, TempDir};
use flate2::write::GzEncoder;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use serde_json::{json, Value};
use std::io::Write;
use std::net::SocketAddr;
use taskview_server::{Config, OtlpConfig, RunningServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const SESSION: &str = "0b9c7c1e-6d3a-4c21-9f1e-2f4b8d1c0a11";
const TRACE: &str = "5b8efff798038103d269b633813fc60c";

fn receiving(dir: &TempDir) -> Config {
    Config {
        otlp: OtlpConfig {
            dir: Some(dir.0.clone()),
            listen: None,
        },
        ..config(quiet())
    }
}

/// A Claude Code span as it posts it (http/json): hex ids, times as
/// decimal strings, an int64 as a JSON number and one as a string.
fn claude_span(span_id: &str) -> Value {
    json!({
        "traceId": TRACE,
        "spanId": span_id,
        "parentSpanId": "eee19b7ec3c1b174",
        "name": "claude_code.llm_request",
        "kind": 1,
        "startTimeUnixNano": "1764990000000000000",
        "endTimeUnixNano": "1764990001500000000",
        "attributes": [
            {"key": "session.id", "value": {"stringValue": SESSION}},
            {"key": "agent_id", "value": {"stringValue": "a1b2c3"}},
            {"key": "input_tokens", "value": {"intValue": 1234}},
            {"key": "output_tokens", "value": {"intValue": "56"}},
        ],
        "status": {"code": 0}
    })
}

fn traces_json(spans: Vec<Value>) -> Value {
    json!({"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "claude-code"}}]},
        "scopeSpans": [{"scope": {"name": "com.anthropic.claude_code.tracing"}, "spans": spans}]
    }]})
}

fn string_attribute(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..Default::default()
    }
}

/// A qwen-code subagent span, as protobuf, its session on the resource.
fn qwen_request(session: &str) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(opentelemetry_proto::tonic::resource::v1::Resource {
                attributes: vec![string_attribute("session.id", session)],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans {
                spans: vec![Span {
                    trace_id: vec![7; 16],
                    span_id: vec![9; 8],
                    name: "qwen-code.subagent".into(),
                    start_time_unix_nano: 1_764_990_000_000_000_000,
                    end_time_unix_nano: 1_764_990_002_000_000_000,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

async fn post(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> (u16, String, Vec<u8>) {
    let mut request = reqwest::Client::new()
        .post(format!("http://{addr}{path}"))
        .body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (
        status,
        content_type,
        response.bytes().await.unwrap().to_vec(),
    )
}

async fn post_json(addr: SocketAddr, path: &str, body: &Value) -> (u16, Value) {
    let (status, _, bytes) = post(
        addr,
        path,
        &[("content-type", "application/json")],
        serde_json::to_vec(body).unwrap(),
    )
    .await;
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut packer = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    packer.write_all(bytes).unwrap();
    packer.finish().unwrap()
}

/// The lines of a session's file, parsed.
fn kept(dir: &TempDir, session: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.0.join(format!("{session}.jsonl"))).unwrap_or_default();
    text.lines()
        .map(|line| serde_json::from_str(line).expect("each kept line is JSON"))
        .collect()
}

fn spans_of(line: &Value) -> Vec<&Value> {
    line["resourceSpans"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["scopeSpans"].as_array().unwrap())
        .flat_map(|s| s["spans"].as_array().unwrap())
        .collect()
}

#[tokio::test]
async fn json_spans_are_kept_in_their_sessions_file_before_the_answer() {
    let dir = TempDir::new("otlp-json");
    let server = start(receiving(&dir)).await;
    let body = traces_json(vec![claude_span("eee19b7ec3c1b173")]);
    let (status, answer) = post_json(server.addr(), "/v1/traces", &body).await;
    assert_eq!(status, 200);
    assert_eq!(answer, json!({}), "a full success has no partial_success");
    let lines = kept(&dir, SESSION);
    assert_eq!(lines.len(), 1, "one line per request");
    let spans = spans_of(&lines[0]);
    assert_eq!(spans[0]["traceId"], TRACE, "ids stay hex");
    assert_eq!(spans[0]["spanId"], "eee19b7ec3c1b173");
    assert_eq!(spans[0]["startTimeUnixNano"], "1764990000000000000");
    let attributes = spans[0]["attributes"].as_array().unwrap();
    let int = |key: &str| {
        attributes.iter().find(|a| a["key"] == key).unwrap()["value"]["intValue"].clone()
    };
    assert_eq!(
        int("input_tokens"),
        "1234",
        "int64 as a JSON number is read"
    );
    assert_eq!(int("output_tokens"), "56", "int64 as a string is read");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn gzipped_protobuf_is_answered_in_protobuf_and_kept_as_json() {
    let dir = TempDir::new("otlp-proto");
    let server = start(receiving(&dir)).await;
    let body = gzip(&qwen_request("qwen-session-1").encode_to_vec());
    let headers = [
        ("content-type", "application/x-protobuf"),
        ("content-encoding", "gzip"),
    ];
    let (status, content_type, bytes) = post(server.addr(), "/v1/traces", &headers, body).await;
    assert_eq!(status, 200);
    assert_eq!(content_type, "application/x-protobuf");
    let answer = ExportTraceServiceResponse::decode(&bytes[..]).unwrap();
    assert_eq!(answer.partial_success, None);
    let lines = kept(&dir, "qwen-session-1");
    assert_eq!(spans_of(&lines[0])[0]["name"], "qwen-code.subagent");
    assert_eq!(spans_of(&lines[0])[0]["traceId"], "07".repeat(16));
    server.shutdown().await.unwrap();
}

/// A POST written by hand: `chunks` sent as chunked transfer encoding.
async fn post_chunked(addr: SocketAddr, path: &str, chunks: &[&[u8]]) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    .into_bytes();
    for chunk in chunks {
        request.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        request.extend_from_slice(chunk);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"0\r\n\r\n");
    stream.write_all(&request).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer
}

#[tokio::test]
async fn a_chunked_json_body_as_qwen_code_sends_it_is_read_whole() {
    let dir = TempDir::new("otlp-chunked");
    let server = start(receiving(&dir)).await;
    let body = serde_json::to_vec(&traces_json(vec![claude_span("eee19b7ec3c1b173")])).unwrap();
    let (first, rest) = body.split_at(body.len() / 3);
    let (second, third) = rest.split_at(rest.len() / 2);
    let answer = post_chunked(server.addr(), "/v1/traces", &[first, second, third]).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert_eq!(spans_of(&kept(&dir, SESSION)[0]).len(), 1);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn spans_without_usable_ids_are_refused_as_a_partial_success() {
    let dir = TempDir::new("otlp-partial");
    let server = start(receiving(&dir)).await;
    let body = traces_json(vec![claude_span("eee19b7ec3c1b173"), claude_span("0102")]);
    let (status, answer) = post_json(server.addr(), "/v1/traces", &body).await;
    assert_eq!(status, 200);
    assert_eq!(answer["partialSuccess"]["rejectedSpans"], "1");
    assert!(answer["partialSuccess"]["errorMessage"]
        .as_str()
        .unwrap()
        .contains("span id"));
    let lines = kept(&dir, SESSION);
    assert_eq!(spans_of(&lines[0]).len(), 1, "the good span is kept");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn one_request_of_two_sessions_is_kept_in_both_files_and_logs_join_them() {
    let dir = TempDir::new("otlp-split");
    let server = start(receiving(&dir)).await;
    let mut other = claude_span("eee19b7ec3c1b175");
    other["attributes"][0]["value"]["stringValue"] = json!("other-session");
    let body = traces_json(vec![claude_span("eee19b7ec3c1b173"), other]);
    assert_eq!(post_json(server.addr(), "/v1/traces", &body).await.0, 200);
    let logs = json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [{
        "timeUnixNano": "1764990002000000000",
        "body": {"stringValue": "claude_code.subagent_completed"},
        "attributes": [
            {"key": "session.id", "value": {"stringValue": SESSION}},
            {"key": "duration_ms", "value": {"intValue": 1500}}
        ],
        "traceId": TRACE,
        "spanId": "eee19b7ec3c1b174"
    }]}]}]});
    assert_eq!(post_json(server.addr(), "/v1/logs", &logs).await.0, 200);
    let metrics = json!({"resourceMetrics": [{"scopeMetrics": [{"metrics": [{
        "name": "claude_code.token.usage",
        "sum": {"dataPoints": [{"asInt": "12", "attributes": [
            {"key": "session.id", "value": {"stringValue": SESSION}}
        ]}]}
    }]}]}]});
    assert_eq!(
        post_json(server.addr(), "/v1/metrics", &metrics).await.0,
        200
    );
    let lines = kept(&dir, SESSION);
    assert_eq!(lines.len(), 3, "its spans, its log and its metric");
    assert_eq!(spans_of(&lines[0]).len(), 1);
    assert!(lines[1]["resourceLogs"].is_array());
    assert!(lines[2]["resourceMetrics"].is_array());
    assert_eq!(spans_of(&kept(&dir, "other-session")[0]).len(), 1);
    server.shutdown().await.unwrap();
}

/// What a hostile post is, its headers, its body and the status it gets.
type HostileCase<'a> = (&'a str, &'a [(&'a str, &'a str)], Vec<u8>, u16);

/// Every hostile body gets its 4xx, the server goes on, and the file of
/// what was accepted before is as it was.
#[tokio::test]
async fn hostile_bodies_are_refused_and_lose_nothing_accepted_before() {
    let dir = TempDir::new("otlp-hostile");
    let server = start(receiving(&dir)).await;
    let addr = server.addr();
    let good = traces_json(vec![claude_span("eee19b7ec3c1b173")]);
    assert_eq!(post_json(addr, "/v1/traces", &good).await.0, 200);
    let file = dir.0.join(format!("{SESSION}.jsonl"));
    let before = std::fs::read(&file).unwrap();

    let proto = [("content-type", "application/x-protobuf")];
    let json_type = [("content-type", "application/json")];
    let gzipped_json = [
        ("content-type", "application/json"),
        ("content-encoding", "gzip"),
    ];
    let whole = qwen_request(SESSION).encode_to_vec();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let zeros = vec![b' '; 80 << 20];
    let bomb = gzip(&zeros);
    let huge = vec![b' '; 17 << 20];
    let cases: Vec<HostileCase> = vec![
        (
            "garbage protobuf",
            &proto,
            b"\xff\xff\xff\xff garbage".to_vec(),
            400,
        ),
        (
            "truncated protobuf",
            &proto,
            whole[..whole.len() - 5].to_vec(),
            400,
        ),
        (
            "not JSON",
            &json_type,
            b"{\"resourceSpans\": [".to_vec(),
            400,
        ),
        (
            "wrong types",
            &json_type,
            br#"{"resourceSpans": "many"}"#.to_vec(),
            400,
        ),
        (
            "a bad hex id",
            &json_type,
            serde_json::to_vec(&traces_json(vec![
                json!({"traceId": "zz", "spanId": "eee19b7ec3c1b173"}),
            ]))
            .unwrap(),
            400,
        ),
        ("deep JSON", &json_type, deep.into_bytes(), 400),
        ("not gzip", &gzipped_json, b"plain".to_vec(), 400),
        ("gzip bomb", &gzipped_json, bomb, 413),
        ("huge body", &json_type, huge, 413),
        (
            "unknown type",
            &[("content-type", "text/plain")],
            b"{}".to_vec(),
            415,
        ),
        (
            "unknown encoding",
            &[
                ("content-type", "application/json"),
                ("content-encoding", "br"),
            ],
            b"{}".to_vec(),
            415,
        ),
    ];
    for (what, headers, body, expected) in cases {
        let (status, content_type, bytes) = post(addr, "/v1/traces", headers, body).await;
        assert_eq!(status, expected, "{what}");
        if content_type == "application/json" {
            let answer: Value = serde_json::from_slice(&bytes).unwrap();
            assert!(
                answer["message"].as_str().is_some(),
                "{what}: a Status body"
            );
        }
    }
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "nothing accepted is lost"
    );
    assert_eq!(
        post_json(addr, "/v1/traces", &good).await.0,
        200,
        "still serving"
    );
    assert_eq!(kept(&dir, SESSION).len(), 2);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_a_telemetry_folder_there_is_no_receiver() {
    let server = start(config(quiet())).await;
    let body = traces_json(vec![claude_span("eee19b7ec3c1b173")]);
    let (status, _) = post_json(server.addr(), "/v1/traces", &body).await;
    assert_ne!(status, 200);
    server.shutdown().await.unwrap();
}

async fn with_otlp_listener(dir: &TempDir, listen: &str) -> RunningServer {
    start(Config {
        otlp: OtlpConfig {
            dir: Some(dir.0.clone()),
            listen: Some(listen.parse().unwrap()),
        },
        ..config(quiet())
    })
    .await
}

#[tokio::test]
async fn the_otlp_listener_serves_only_the_receiver() {
    let dir = TempDir::new("otlp-listener");
    let server = with_otlp_listener(&dir, "127.0.0.1:0").await;
    let otlp = server.otlp_addr().expect("a second listener");
    assert_ne!(otlp, server.addr());
    let body = traces_json(vec![claude_span("eee19b7ec3c1b173")]);
    assert_eq!(post_json(otlp, "/v1/traces", &body).await.0, 200);
    let api = reqwest::get(format!("http://{otlp}/api/v1/workspaces"))
        .await
        .unwrap();
    assert_eq!(
        api.status().as_u16(),
        404,
        "no transcripts on the OTLP port"
    );
    assert_eq!(kept(&dir, SESSION).len(), 1);
    server.shutdown().await.unwrap();
}

/// "Who may read" holds for the receiver: bound beyond loopback it wants
/// the server's token (`OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20…`),
/// and a foreign Host is refused.
#[tokio::test]
async fn a_receiver_beyond_loopback_needs_the_token_and_a_known_host() {
    let dir = TempDir::new("otlp-token");
    let server = with_otlp_listener(&dir, "0.0.0.0:0").await;
    let token = server.token().expect("a token beyond loopback").to_string();
    let otlp: SocketAddr = format!("127.0.0.1:{}", server.otlp_addr().unwrap().port())
        .parse()
        .unwrap();
    let body = serde_json::to_vec(&traces_json(vec![claude_span("eee19b7ec3c1b173")])).unwrap();
    let json_type = ("content-type", "application/json");
    let (status, _, _) = post(otlp, "/v1/traces", &[json_type], body.clone()).await;
    assert_eq!(status, 401, "no token");
    let bearer = format!("Bearer {token}");
    let authorized = [json_type, ("authorization", bearer.as_str())];
    let (status, _, _) = post(otlp, "/v1/traces", &authorized, body.clone()).await;
    assert_eq!(status, 200);
    let foreign = [
        json_type,
        ("authorization", bearer.as_str()),
        ("host", "evil.example"),
    ];
    let (status, _, _) = post(otlp, "/v1/traces", &foreign, body.clone()).await;
    assert_eq!(status, 403, "DNS rebinding");
    let (status, _, _) = post(server.addr(), "/v1/traces", &authorized, body).await;
    assert_eq!(status, 200, "the same token on the main address");
    assert_eq!(kept(&dir, SESSION).len(), 2);
    server.shutdown().await.unwrap();
}
