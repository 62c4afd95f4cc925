//! Posting OTLP to a test server and reading what its receiver kept.

use flate2::write::GzEncoder;
use serde_json::Value;
use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;

/// A POST of `body` to `path` with `headers`: the status, the content type
/// and the answer's bytes.
pub async fn post(
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

/// A POST of `body` as OTLP JSON: the status and the answer.
pub async fn post_json(addr: SocketAddr, path: &str, body: &Value) -> (u16, Value) {
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

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut packer = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    packer.write_all(bytes).unwrap();
    packer.finish().unwrap()
}

/// The lines of a session's file in `dir`, parsed.
pub fn kept(dir: &Path, session: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join(format!("{session}.jsonl"))).unwrap_or_default();
    text.lines()
        .map(|line| serde_json::from_str(line).expect("each kept line is JSON"))
        .collect()
}

/// The spans of one kept line.
pub fn spans_of(line: &Value) -> Vec<&Value> {
    line["resourceSpans"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["scopeSpans"].as_array().unwrap())
        .flat_map(|s| s["spans"].as_array().unwrap())
        .collect()
}
