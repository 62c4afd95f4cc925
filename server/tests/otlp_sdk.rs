//! The official OpenTelemetry SDKs' OTLP/HTTP exporters (Python and JavaScript;
//! protobuf, gzip) as real clients of the receiver (docs/behaviour.md §7
//! "OpenTelemetry"), through the token a server beyond loopback asks for. The
//! JavaScript SDK is installed with the e2e packages (`e2e/package.json`, by
//! `scripts/setup.sh`). Needs the SDK (`server/tests/sdk/requirements.txt`),
//! which `scripts/setup.sh` installs in `target/otel-sdk-venv`;
//! `TASKVIEW_OTEL_PYTHON=<python>` names another.

mod common;

use common::*;
use std::path::Path;
use std::time::Duration;
use taskview_server::sources::recordings::Watching;
use taskview_server::{Config, OtlpConfig, Source};

const SESSION: &str = "3c2b1a00-aaaa-4bbb-8ccc-dddd0000eeee";

// Multi-threaded: the exporter runs as a blocking child process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_exporter_posts_a_session_that_becomes_cards() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sdk/export_claude_like.py");
    let mut python = std::process::Command::new(sdk_python());
    python.arg(script).arg(SESSION);
    an_sdk_exporter_posts_a_session_that_becomes_cards(python, "toolu_sdk_1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_javascript_sdk_exporter_posts_a_session_that_becomes_cards() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../e2e/otel/export_claude_like.mjs");
    let mut node = std::process::Command::new("node");
    node.arg(script).arg(SESSION).arg("toolu_sdk_js_1");
    an_sdk_exporter_posts_a_session_that_becomes_cards(node, "toolu_sdk_js_1").await;
}

/// Runs `exporter` (a command that posts a Claude Code-shaped trace of
/// [`SESSION`] whose spawning call is `tool_use_id`) against a server bound
/// beyond loopback: refused without the token, a Plan card with it.
async fn an_sdk_exporter_posts_a_session_that_becomes_cards(
    mut exporter: std::process::Command,
    tool_use_id: &str,
) {
    let recordings = TempDir::new("otlp-sdk-recordings");
    let telemetry = TempDir::new("otlp-sdk-telemetry");
    // Not `start`: it waits on the API without the token.
    let server = taskview_server::serve(Config {
        otlp: OtlpConfig {
            dir: Some(telemetry.0.clone()),
            listen: Some("0.0.0.0:0".parse().unwrap()),
        },
        ..config(Source::Recordings {
            dirs: vec![recordings.0.clone()],
            watching: Watching::every(Duration::from_millis(20)),
        })
    })
    .await
    .unwrap();
    let port = server.otlp_addr().unwrap().port();
    let token = server.token().expect("a token beyond loopback").to_string();
    let mut run = |headers: Option<String>| {
        let command = &mut exporter;
        command
            .env(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                format!("http://127.0.0.1:{port}"),
            )
            .env_remove("OTEL_EXPORTER_OTLP_HEADERS");
        if let Some(headers) = headers {
            command.env("OTEL_EXPORTER_OTLP_HEADERS", headers);
        }
        command.output().expect("the exporter runs")
    };
    let refused = run(None);
    assert!(!refused.status.success(), "no token, no export");
    let sent = run(Some(format!("Authorization=Bearer%20{token}")));
    assert!(
        sent.status.success(),
        "{}",
        String::from_utf8_lossy(&sent.stderr)
    );

    let addr = server.addr();
    let authorized = reqwest::Client::new();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let card = loop {
        let snapshot: serde_json::Value = authorized
            .get(format!(
                "http://{addr}/api/v1/workflows/wf-recordings/snapshot"
            ))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let session = snapshot["tasks"][0]["primary_session_id"]
            .as_str()
            .map(str::to_string);
        if let Some(session) = session {
            let page: serde_json::Value = authorized
                .get(format!(
                    "http://{addr}/api/v1/task-sessions/{session}/messages?limit=50"
                ))
                .bearer_auth(&token)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let messages = page["messages"].as_array().cloned().unwrap_or_default();
            if let Some(card) = messages.into_iter().find(|m| m["id"] == tool_use_id) {
                break card;
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the card never came"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(
        card["metadata"]["normalized"]["subagent_task"]["subagent_type"],
        "Plan"
    );
    server.shutdown().await.unwrap();
}

/// The Python with the SDK: `TASKVIEW_OTEL_PYTHON`, else the venv `scripts/setup.sh` makes.
fn sdk_python() -> std::path::PathBuf {
    let python = std::env::var_os("TASKVIEW_OTEL_PYTHON").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/otel-sdk-venv/bin/python3"),
        std::path::PathBuf::from,
    );
    assert!(
        python.exists(),
        "no Python with the OpenTelemetry SDK at {} (run scripts/setup.sh)",
        python.display()
    );
    python
}
