//! The team store's faults on a real PostgreSQL (docs/team-store.md
//! "Faults and recovery"): the database stopped and started again under load (writers
//! keep what they read and write it when it is back, readers say `store
//! unreachable` and recover), and a writer killed with SIGKILL in the
//! middle of its appends (its restart loses and duplicates nothing).
//! A binary of its own: stopping the database must not touch other tests.

mod common;

use common::postgres::{cluster, eventually, texts, PASSWORD};
use common::team::{reader, writer};
use common::*;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// One test at a time: one stops the database the other uses.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// One Claude Code user record, `n`th of session `live`.
fn record(n: usize) -> String {
    let parent = if n == 0 {
        Value::Null
    } else {
        json!(format!("u{}", n - 1))
    };
    json!({
        "type": "user", "uuid": format!("u{n}"), "parentUuid": parent, "sessionId": "live",
        "timestamp": format!("2026-01-01T00:{:02}:{:02}Z", n / 60 % 60, n % 60),
        "message": { "role": "user", "content": format!("prompt number {n}") }
    })
    .to_string()
        + "\n"
}

fn append(path: &std::path::Path, n: usize) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(record(n).as_bytes()).unwrap();
}

/// How many live messages the store holds for the session, and at how many positions.
async fn stored_count(url: &str) -> (usize, usize) {
    let all = texts(
        url,
        "SELECT message_id FROM taskview_messages WHERE NOT deleted",
    )
    .await;
    let positions = texts(
        url,
        "SELECT DISTINCT pos::TEXT FROM taskview_messages WHERE NOT deleted",
    )
    .await;
    (all.len(), positions.len())
}

/// The notice of a server's board (`None`: none).
async fn notice(addr: std::net::SocketAddr) -> Option<String> {
    let (_, list) = get(addr, "/api/v1/workflows").await;
    list["workflows"][0]["notice"].as_str().map(str::to_string)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_restarted_under_load_loses_and_duplicates_nothing() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let url = cluster().database();
    let dir = TempDir::new("store-restart");
    let file = dir.0.join("live.jsonl");
    append(&file, 0);
    let ana = start(writer(std::slice::from_ref(&dir.0), "ana-laptop", &url)).await;
    let team = start(reader(&url)).await;
    eventually(PATIENCE, "the reader lists the session", async || {
        get(team.addr(), "/api/v1/tasks/ana-laptop~rec-live-jsonl")
            .await
            .0
            == 200
    })
    .await;
    let total = 120;
    let appending = {
        let file = file.clone();
        tokio::spawn(async move {
            for n in 1..total {
                append(&file, n);
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
        })
    };
    tokio::time::sleep(Duration::from_millis(600)).await;
    tokio::task::spawn_blocking(|| cluster().stop())
        .await
        .unwrap();
    eventually(
        PATIENCE,
        "the reader says the store is unreachable",
        async || notice(team.addr()).await.as_deref() == Some("store unreachable"),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    tokio::task::spawn_blocking(|| cluster().start_again())
        .await
        .unwrap();
    appending.await.unwrap();
    eventually(PATIENCE, "the reader recovers", async || {
        notice(team.addr()).await.is_none()
    })
    .await;
    let session = "ana-laptop~sess-rec-live-jsonl";
    eventually(PATIENCE, "every record reaches the reader", async || {
        session_messages(team.addr(), session).await.len() == total
    })
    .await;
    assert_eq!(
        stored_count(&url).await,
        (total, total),
        "once each, each in its place"
    );
    let order: Vec<Value> = session_messages(team.addr(), session).await;
    let contents: Vec<&str> = order
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (0..total).map(|n| format!("prompt number {n}")).collect();
    assert_eq!(contents, expected, "in the order they were written");
    team.shutdown().await.unwrap();
    ana.shutdown().await.unwrap();
}

/// `taskview serve` writing the recordings of `dir` to the store at `url`.
/// The child, its first line and its log (read to its end once it ends).
fn spawn_writer(
    dir: &std::path::Path,
    telemetry: &std::path::Path,
    url: &str,
) -> (Child, String, std::thread::JoinHandle<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_taskview"))
        .args([
            "serve",
            "--no-dist",
            "--addr",
            "127.0.0.1:0",
            "--poll-ms",
            "50",
        ])
        .arg("--recordings")
        .arg(dir)
        .arg("--otlp-dir")
        .arg(telemetry)
        .args(["--store", url, "--machine", "box", "--log", "info"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("taskview starts");
    let mut first = String::new();
    let stdout = child.stdout.take().unwrap();
    BufReader::new(stdout).read_line(&mut first).unwrap();
    assert!(first.starts_with("taskview: serving"), "{first}");
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    (child, first, log)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_killed_mid_append_loses_and_duplicates_nothing() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let url = cluster().database();
    let dir = TempDir::new("store-killed");
    let telemetry = TempDir::new("store-killed-otlp");
    let file = dir.0.join("live.jsonl");
    append(&file, 0);
    let (mut first, said, first_log) = spawn_writer(&dir.0, &telemetry.0, &url);
    let total = 150;
    for n in 1..total {
        append(&file, n);
        tokio::time::sleep(Duration::from_millis(8)).await;
        if n == total / 2 {
            // SIGKILL: no chance to finish a transaction or flush anything.
            first.kill().unwrap();
            first.wait().unwrap();
        }
    }
    let (mut second, _, second_log) = spawn_writer(&dir.0, &telemetry.0, &url);
    eventually(
        PATIENCE,
        "the restarted writer has written every record",
        async || stored_count(&url).await.0 == total,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        stored_count(&url).await,
        (total, total),
        "once each, each in its place"
    );
    let ids = texts(
        &url,
        "SELECT message_id FROM taskview_messages ORDER BY pos",
    )
    .await;
    let team = start(reader(&url)).await;
    let session = "box~sess-rec-live-jsonl";
    eventually(PATIENCE, "a reader lists the session", async || {
        get(team.addr(), "/api/v1/tasks/box~rec-live-jsonl").await.0 == 200
    })
    .await;
    eventually(PATIENCE, "a reader pages them all", async || {
        session_messages(team.addr(), session).await.len() == total
    })
    .await;
    let paged: Vec<String> = session_messages(team.addr(), session)
        .await
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(paged, ids);
    team.shutdown().await.unwrap();
    second.kill().unwrap();
    second.wait().unwrap();
    let logs = [said, first_log.join().unwrap(), second_log.join().unwrap()].join("\n");
    assert!(logs.contains("team store ready"), "{logs}");
    assert!(
        !logs.contains(PASSWORD),
        "the password is in no log: {logs}"
    );
}
