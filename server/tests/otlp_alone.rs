//! The OpenTelemetry receiver alone (docs/behaviour.md §7 "OpenTelemetry":
//! a server that only receives telemetry shows the telemetry's board, and
//! a restart shows the same tasks): `taskview serve --otlp ADDR`, with no
//! recordings and no store, lists each session it receives as a task with
//! its cards, not the demo; with `--store` it writes them to the team
//! store, where a reader shows them.

mod common;

use common::postgres::{cluster, eventually};
use common::team::reader;
use common::*;
use serde_json::Value;
use std::net::SocketAddr;
use taskview_server::cli::{Cli, Command};
use taskview_server::Config;
use taskview_testkit::captures::otlp_posts;

const STORY: &str = "claude-code-2.1.332/parallel-wave";

/// The configuration `taskview serve ARGS` makes.
fn parsed(args: &[&str]) -> Config {
    let cli = <Cli as clap::Parser>::try_parse_from(
        ["taskview", "serve", "--no-dist", "--addr", "127.0.0.1:0"]
            .iter()
            .chain(args),
    )
    .expect("the command line parses");
    match cli.command {
        Command::Serve(args) => args.into_config(),
        _ => unreachable!("serve"),
    }
}

/// Posts the story's telemetry as the agent sent it.
async fn post_story(at: SocketAddr) {
    for body in otlp_posts(STORY) {
        let parsed: Value = serde_json::from_str(&body).unwrap();
        let path = if parsed.get("resourceSpans").is_some() {
            "traces"
        } else if parsed.get("resourceLogs").is_some() {
            "logs"
        } else {
            "metrics"
        };
        let response = reqwest::Client::new()
            .post(format!("http://{at}/v1/{path}"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
    }
}

/// The ids, titles and subagent counts of the first board's tasks.
async fn tasks(addr: SocketAddr) -> Vec<(String, String)> {
    let (_, list) = get(addr, "/api/v1/workflows").await;
    let id = list["workflows"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let (_, snapshot) = get(addr, &format!("/api/v1/workflows/{id}/snapshot")).await;
    let tasks = snapshot["tasks"].as_array().cloned().unwrap_or_default();
    let mut listed: Vec<(String, String)> = tasks
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().into(),
                t["title"].as_str().unwrap().into(),
            )
        })
        .collect();
    listed.sort();
    listed
}

/// The primary session of a task.
async fn session_of(addr: SocketAddr, task: &str) -> String {
    let (_, task) = get(addr, &format!("/api/v1/tasks/{task}")).await;
    task["primary_session_id"].as_str().unwrap().to_string()
}

/// How many subagent cards a session's messages hold.
async fn cards(addr: SocketAddr, session: &str) -> usize {
    let messages = session_messages(addr, session).await;
    let card = |m: &&Value| m["metadata"]["normalized"]["kind"] == "subagent_task";
    messages.iter().filter(card).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_receiver_alone_shows_its_telemetry_not_the_demo_and_again_after_a_restart() {
    let telemetry = TempDir::new("otlp-alone");
    let dir = telemetry.0.to_str().unwrap();
    let args = ["--otlp", "127.0.0.1:0", "--otlp-dir", dir];
    let server = start(parsed(&args)).await;
    assert!(tasks(server.addr()).await.is_empty(), "no demo tasks");
    post_story(server.otlp_addr().unwrap()).await;
    eventually(PATIENCE, "the telemetry's session is a task", async || {
        tasks(server.addr()).await.len() == 1
    })
    .await;
    let listed = tasks(server.addr()).await;
    let session = session_of(server.addr(), &listed[0].0).await;
    eventually(PATIENCE, "with its cards", async || {
        cards(server.addr(), &session).await > 0
    })
    .await;
    let shown = cards(server.addr(), &session).await;
    server.shutdown().await.unwrap();

    let again = start(parsed(&args)).await;
    assert_eq!(
        tasks(again.addr()).await,
        listed,
        "the same tasks after a restart"
    );
    eventually(PATIENCE, "the same cards", async || {
        cards(again.addr(), &session).await == shown
    })
    .await;
    again.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_receiver_with_a_store_writes_what_it_accepts_there() {
    let url = cluster().database();
    let telemetry = TempDir::new("otlp-store");
    let dir = telemetry.0.to_str().unwrap();
    let args = ["--otlp", "127.0.0.1:0", "--otlp-dir", dir, "--store", &url];
    let collector = start(parsed(&[&args[..], &["--machine", "collector"]].concat())).await;
    post_story(collector.otlp_addr().unwrap()).await;
    let team = start(reader(&url)).await;
    eventually(
        PATIENCE,
        "a reader lists the telemetry's session",
        async || tasks(team.addr()).await.len() == 1,
    )
    .await;
    let (id, _) = tasks(team.addr()).await.remove(0);
    assert!(id.starts_with("collector~rec-"), "{id}");
    let session = session_of(team.addr(), &id).await;
    let local = session_of(collector.addr(), id.trim_start_matches("collector~")).await;
    eventually(PATIENCE, "with the cards the receiver shows", async || {
        let there = cards(collector.addr(), &local).await;
        there > 0 && cards(team.addr(), &session).await == there
    })
    .await;
    team.shutdown().await.unwrap();
    collector.shutdown().await.unwrap();
}
