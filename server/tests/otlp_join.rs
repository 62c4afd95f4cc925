//! One task from two sources (docs/behaviour.md §7 "OpenTelemetry"): where the recordings hold a
//! session's transcript and its telemetry arrives, the board has one task,
//! the transcript's, whose cards gain what only telemetry knows; whichever
//! arrives first, and after a restart. Fed with the captures of Claude Code
//! 2.1.332 and qwen-code 0.24.4 that ran with both sources on.

mod common;

use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use taskview_core::read::import::otlp;
use taskview_testkit::captures::otlp_files;

const CLAUDE: &str = "claude-code-2.1.332";
const QWEN: &str = "qwen-code-0.24.4";
const SNAPSHOT: &str = "/api/v1/workflows/wf-recordings/snapshot";

fn capture(cli: &str, story: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/captures-otlp")
        .join(cli)
        .join(story)
}

/// Copies the run's session files (`projects/…`) into `to`.
fn copy_transcript(cli: &str, story: &str, to: &Path) {
    for (path, text) in otlp_files(&format!("{cli}/{story}"), "projects") {
        let target = to.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, text).unwrap();
    }
}

/// Posts every request of the run's telemetry, in the order they arrived.
async fn post_telemetry(addr: SocketAddr, cli: &str, story: &str) {
    let dir = capture(cli, story).join("otlp");
    let index = std::fs::read_to_string(dir.join("index.jsonl")).unwrap();
    let client = reqwest::Client::new();
    for line in index.lines() {
        let post: Value = serde_json::from_str(line).unwrap();
        let body = std::fs::read(dir.join(post["file"].as_str().unwrap())).unwrap();
        let response = client
            .post(format!(
                "http://{addr}/v1/{}",
                post["signal"].as_str().unwrap()
            ))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
    }
}

/// The board's tasks once `done` holds of them.
async fn tasks_when(addr: SocketAddr, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let snapshot = wait_http(addr, SNAPSHOT, |s| {
        s["tasks"].as_array().is_some_and(|t| done(t))
    })
    .await;
    snapshot["tasks"].as_array().unwrap().clone()
}

/// A task whose session has both sources names both files.
fn joined(task: &Value) -> bool {
    let description = task["description"].as_str().unwrap_or_default();
    description.contains(".jsonl + telemetry ")
}

/// The subagent cards of a session once each telemetry knows has its figures.
async fn enriched_cards(addr: SocketAddr, session: &str) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let cards: Vec<Value> = session_messages(addr, session)
            .await
            .into_iter()
            .filter(|m| m["metadata"]["normalized"]["subagent_task"].is_object())
            .collect();
        let enriched = cards
            .iter()
            .filter(|m| m["metadata"]["normalized"]["subagent_task"]["telemetry"].is_object())
            .count();
        if (!cards.is_empty() && enriched == cards.len()) || tokio::time::Instant::now() > deadline
        {
            return cards;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn telemetry_of(card: &Value) -> &Value {
    &card["metadata"]["normalized"]["subagent_task"]["telemetry"]
}

#[tokio::test]
async fn telemetry_arriving_after_the_transcript_enriches_its_task_and_lists_none() {
    let recordings = TempDir::new("join-after-recordings");
    let telemetry = TempDir::new("join-after-telemetry");
    copy_transcript(CLAUDE, "parallel-wave", &recordings.0);
    let server = start(receiving(&recordings, &telemetry)).await;
    let before = tasks_when(server.addr(), |t| t.len() == 1).await;
    let mut ws = Ws::connect_registered(server.addr()).await;
    post_telemetry(server.addr(), CLAUDE, "parallel-wave").await;
    let frames = ws
        .until(|f| f["action"] == "task.updated" && joined(&f["payload"]))
        .await;
    assert!(
        frames
            .iter()
            .all(|f| f["action"] != "task.created" && f["action"] != "task.deleted"),
        "the telemetry never shows as a task of its own: {frames:?}"
    );
    let tasks = tasks_when(server.addr(), |t| t.len() == 1 && joined(&t[0])).await;
    assert_eq!(tasks[0]["id"], before[0]["id"], "the transcript's task");
    let session = tasks[0]["primary_session_id"].as_str().unwrap();
    let cards = enriched_cards(server.addr(), session).await;
    assert_eq!(cards.len(), 4, "the transcript's cards");
    for card in &cards {
        let facts = telemetry_of(card);
        assert!(facts["cost_usd"].as_f64().unwrap() > 0.0, "{card}");
        assert!(facts["ttft_ms"].as_u64().unwrap() > 0, "{card}");
        assert_eq!(facts["retries"], Value::Null, "no request was retried");
    }
    // Read post by post, the figures end as the whole file's.
    let stored = std::fs::read_dir(&telemetry.0)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("the stored telemetry");
    let whole = otlp::facts(&std::fs::read_to_string(stored).unwrap()).by_call;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let now: BTreeMap<String, Value> = enriched_cards(server.addr(), session)
            .await
            .iter()
            .map(|c| {
                (
                    c["id"].as_str().unwrap().to_string(),
                    telemetry_of(c).clone(),
                )
            })
            .collect();
        let want: BTreeMap<String, Value> = whole
            .iter()
            .map(|(id, f)| (id.clone(), f.to_value()))
            .collect();
        if now == want {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{now:?} != {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    ws.close().await;
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_transcript_arriving_after_its_telemetry_takes_its_task_over_and_a_restart_keeps_one() {
    let recordings = TempDir::new("join-before-recordings");
    let telemetry = TempDir::new("join-before-telemetry");
    let server = start(receiving(&recordings, &telemetry)).await;
    post_telemetry(server.addr(), CLAUDE, "nested").await;
    let alone = tasks_when(server.addr(), |t| t.len() == 1).await;
    assert!(!joined(&alone[0]), "telemetry alone is its own task");
    copy_transcript(CLAUDE, "nested", &recordings.0);
    let tasks = tasks_when(server.addr(), |t| t.len() == 1 && joined(&t[0])).await;
    let title = tasks[0]["title"].as_str().unwrap();
    assert!(
        title.starts_with("Audit parser-kit"),
        "the transcript's task: {title}"
    );
    assert_eq!(
        tasks[0]["id"], alone[0]["id"],
        "it takes the id the session's task had, whichever file came first"
    );
    let session = tasks[0]["primary_session_id"].as_str().unwrap().to_string();
    let cards = enriched_cards(server.addr(), &session).await;
    assert!(!cards.is_empty());
    assert!(cards
        .iter()
        .all(|c| telemetry_of(c)["cost_usd"].is_number()));
    server.shutdown().await.unwrap();

    let again = start(receiving(&recordings, &telemetry)).await;
    let after = tasks_when(again.addr(), |t| !t.is_empty() && t.iter().all(joined)).await;
    assert_eq!(after.len(), 1, "one task after a restart: {after:?}");
    assert_eq!(after[0]["id"], tasks[0]["id"]);
    let session = after[0]["primary_session_id"].as_str().unwrap().to_string();
    assert_eq!(enriched_cards(again.addr(), &session).await, cards);
    again.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_qwen_code_chat_and_its_telemetry_are_one_task() {
    let recordings = TempDir::new("join-qwen-recordings");
    let telemetry = TempDir::new("join-qwen-telemetry");
    copy_transcript(QWEN, "parallel-wave", &recordings.0);
    let server = start(receiving(&recordings, &telemetry)).await;
    tasks_when(server.addr(), |t| t.len() == 1).await;
    post_telemetry(server.addr(), QWEN, "parallel-wave").await;
    let tasks = tasks_when(server.addr(), |t| t.len() == 1 && joined(&t[0])).await;
    let session = tasks[0]["primary_session_id"].as_str().unwrap();
    let cards = enriched_cards(server.addr(), session).await;
    assert_eq!(cards.len(), 4);
    for card in &cards {
        let facts = telemetry_of(card);
        assert!(facts["ttft_ms"].as_u64().is_some(), "{card}");
        assert_eq!(facts["cost_usd"], Value::Null, "qwen-code sends no cost");
    }
    server.shutdown().await.unwrap();
}

/// A Collector's file exporter output: every request of the runs, one line each.
fn collector_file(runs: &[(&str, &str)]) -> String {
    let mut text = String::new();
    for (cli, story) in runs {
        let dir = capture(cli, story).join("otlp");
        let index = std::fs::read_to_string(dir.join("index.jsonl")).unwrap();
        for line in index.lines() {
            let post: Value = serde_json::from_str(line).unwrap();
            let body = std::fs::read(dir.join(post["file"].as_str().unwrap())).unwrap();
            let request: Value = serde_json::from_slice(&body).unwrap();
            text.push_str(&format!("{request}\n"));
        }
    }
    text
}

/// The lines the telemetry store holds, by file.
fn stored_lines(telemetry: &TempDir) -> BTreeMap<String, usize> {
    std::fs::read_dir(&telemetry.0)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| {
            let lines = std::fs::read_to_string(&p).unwrap().lines().count();
            (p.file_name().unwrap().to_string_lossy().into_owned(), lines)
        })
        .collect()
}

#[tokio::test]
async fn a_collector_file_of_many_sessions_is_a_task_per_session_joined_by_id_and_fed_once() {
    let recordings = TempDir::new("join-collector-recordings");
    let telemetry = TempDir::new("join-collector-telemetry");
    copy_transcript(CLAUDE, "parallel-wave", &recordings.0);
    let collector = recordings.0.join("otel");
    std::fs::create_dir_all(&collector).unwrap();
    let file = collector.join("exported.jsonl");
    std::fs::write(
        &file,
        collector_file(&[(CLAUDE, "parallel-wave"), (QWEN, "parallel-wave")]),
    )
    .unwrap();
    let server = start(receiving(&recordings, &telemetry)).await;
    let tasks = tasks_when(server.addr(), |t| t.len() == 2 && t.iter().any(joined)).await;
    let titles: Vec<&str> = tasks.iter().map(|t| t["title"].as_str().unwrap()).collect();
    assert!(
        titles.iter().all(|t| !t.contains("exported")),
        "the Collector's file is no task of its own: {titles:?}"
    );
    let claude = tasks.iter().find(|t| joined(t)).unwrap();
    let session = claude["primary_session_id"].as_str().unwrap();
    let cards = enriched_cards(server.addr(), session).await;
    assert_eq!(cards.len(), 4, "the transcript's cards");
    assert!(cards
        .iter()
        .all(|c| telemetry_of(c)["cost_usd"].is_number()));
    let qwen = tasks.iter().find(|t| !joined(t)).unwrap();
    let session = qwen["primary_session_id"].as_str().unwrap().to_string();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let cards = loop {
        let cards: Vec<Value> = session_messages(server.addr(), &session)
            .await
            .into_iter()
            .filter(|m| m["metadata"]["normalized"]["subagent_task"].is_object())
            .collect();
        if cards.len() == 4 || tokio::time::Instant::now() > deadline {
            break cards;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(
        cards.len(),
        4,
        "qwen-code's session, from its telemetry alone"
    );
    let fed = stored_lines(&telemetry);
    // qwen-code's metrics that name no session are kept apart, as posted.
    let sessions =
        |fed: &BTreeMap<String, usize>| fed.keys().filter(|f| *f != "unknown.jsonl").count();
    assert_eq!(sessions(&fed), 2, "a file per session: {fed:?}");
    server.shutdown().await.unwrap();

    // A restart feeds nothing twice; what is written since is fed.
    let again = start(receiving(&recordings, &telemetry)).await;
    tasks_when(again.addr(), |t| t.len() == 2 && t.iter().any(joined)).await;
    assert_eq!(stored_lines(&telemetry), fed);
    let more = collector_file(&[(CLAUDE, "nested")]);
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(&more);
    std::fs::write(&file, text).unwrap();
    let tasks = tasks_when(again.addr(), |t| t.len() == 3).await;
    assert_eq!(tasks.iter().filter(|t| joined(t)).count(), 1);
    assert_eq!(sessions(&stored_lines(&telemetry)), 3);
    again.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_transcript_taking_over_its_telemetrys_task_updates_it_in_place_never_deleting_it() {
    let recordings = TempDir::new("join-inplace-recordings");
    let telemetry = TempDir::new("join-inplace-telemetry");
    let server = start(receiving(&recordings, &telemetry)).await;
    post_telemetry(server.addr(), CLAUDE, "nested").await;
    let alone = tasks_when(server.addr(), |t| t.len() == 1).await;
    let id = alone[0]["id"].clone();
    let session = alone[0]["primary_session_id"].as_str().unwrap().to_string();
    // Someone reads the telemetry's cards while the transcript arrives.
    let before = session_messages(server.addr(), &session).await;
    assert!(!before.is_empty(), "the telemetry's cards are read");
    let mut ws = Ws::connect_registered(server.addr()).await;
    let ack = ws
        .request(
            "session.subscribe",
            serde_json::json!({"session_id": session}),
        )
        .await;
    assert_eq!(ack["type"], "response", "{ack}");
    copy_transcript(CLAUDE, "nested", &recordings.0);
    let frames = ws
        .until(|f| f["action"] == "task.updated" && joined(&f["payload"]))
        .await;
    let board: Vec<(&str, &Value)> = frames
        .iter()
        .filter_map(|f| Some((f["action"].as_str()?, &f["payload"]["task_id"])))
        .filter(|(action, _)| action.starts_with("task."))
        .collect();
    assert!(
        board.iter().all(|(action, _)| *action == "task.updated"),
        "the task is updated in place, never deleted and created again: {board:?}"
    );
    assert!(board.iter().all(|(_, task)| **task == id), "{board:?}");
    let tasks = tasks_when(server.addr(), |t| t.len() == 1 && joined(&t[0])).await;
    assert_eq!(tasks[0]["id"], id);
    assert_eq!(tasks[0]["primary_session_id"], session.as_str());
    // The reader's session turned into the transcript's, as announced
    // changes, before the board heard of the task's change.
    assert!(
        frames.iter().any(|f| {
            f["action"] == "session.message.added" && f["payload"]["author_type"] == "user"
        }),
        "{frames:?}"
    );
    let after = session_messages(server.addr(), &session).await;
    assert!(
        after.iter().any(|m| m["author_type"] == "user"),
        "{after:?}"
    );
    ws.close().await;
    server.shutdown().await.unwrap();
}
