//! The team store's faults on a real PostgreSQL (docs/team-store.md
//! "Faults and recovery"): the database stopped and started again under load (writers
//! keep what they read and write it when it is back, readers say `store
//! unreachable` and recover), and a writer killed with SIGKILL in the
//! middle of its appends (its restart loses and duplicates nothing), and a
//! writer whose changes pass their cap during an outage (it drops them,
//! its memory stays bounded, and it sends everything when the store is back).
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
    spawn_writer_with(dir, telemetry, url, &[])
}

/// [`spawn_writer`] with more arguments.
fn spawn_writer_with(
    dir: &std::path::Path,
    telemetry: &std::path::Path,
    url: &str,
    more: &[&str],
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
        .args(more)
        // One malloc arena: memory freed by one thread is not kept aside
        // for it, so the peak says what is held rather than where.
        .env("MALLOC_ARENA_MAX", "1")
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

/// The `n`th Claude Code record of session `session`, `size` bytes of
/// text: a prompt when `n` is even, else its answer, which ends the turn
/// (so the agent rests and its session may leave memory).
fn big_record(session: &str, n: usize, size: usize) -> String {
    let parent = if n == 0 {
        Value::Null
    } else {
        json!(format!("u{}", n - 1))
    };
    let words = format!("text {n} of {session} ").repeat(size / 8 + 1);
    let text = &words[..size];
    let (kind, message) = if n.is_multiple_of(2) {
        ("user", json!({ "role": "user", "content": text }))
    } else {
        let content = json!([{ "type": "text", "text": text }]);
        let answer = json!({ "role": "assistant", "model": "claude-test", "content": content,
            "stop_reason": "end_turn" });
        ("assistant", answer)
    };
    json!({
        "type": kind, "uuid": format!("u{n}"), "parentUuid": parent, "sessionId": session,
        "timestamp": format!("2026-01-01T00:{:02}:{:02}Z", n / 60 % 60, n % 60),
        "message": message
    })
    .to_string()
        + "\n"
}

/// A line of `/proc/PID/status` in kB (`VmRSS`, `VmHWM`).
fn memory_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("{field} in {status}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// How many message rows the store holds, of how many (session, id) and
/// of how many (session, position).
async fn rows_ids_positions(url: &str) -> Vec<String> {
    texts(
        url,
        "SELECT count(*) || ' ' || count(DISTINCT (session_id, message_id)) || ' '
                || count(DISTINCT (session_id, pos))
         FROM taskview_messages WHERE NOT deleted",
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_its_cap_a_writer_drops_what_waits_and_sends_it_all_again_when_the_store_is_back() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let url = cluster().database();
    let dir = TempDir::new("store-cap");
    let telemetry = TempDir::new("store-cap-otlp");
    const SESSIONS: usize = 48;
    const PER_APPEND: usize = 8;
    const ROUNDS: usize = 2;
    const SIZE: usize = 64 * 1024;
    let file = |s: usize| dir.0.join(format!("s{s}.jsonl"));
    let append_records = |s: usize, from: usize| {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file(s))
            .unwrap();
        for n in from..from + PER_APPEND {
            f.write_all(big_record(&format!("s{s}"), n, SIZE).as_bytes())
                .unwrap();
        }
    };
    for s in 0..SESSIONS {
        let first = big_record(&format!("s{s}"), 0, 100) + &big_record(&format!("s{s}"), 1, 100);
        std::fs::write(file(s), first).unwrap();
    }
    let more = ["--store-pending-mb", "1", "--memory-mb", "1"];
    let (mut child, _, log) = spawn_writer_with(&dir.0, &telemetry.0, &url, &more);
    eventually(PATIENCE, "every session is stored", async || {
        stored_count(&url).await.0 == 2 * SESSIONS
    })
    .await;
    let before_kb = memory_kb(child.id(), "VmHWM");
    tokio::task::spawn_blocking(|| cluster().stop())
        .await
        .unwrap();
    for round in 0..ROUNDS {
        for s in 0..SESSIONS {
            append_records(s, 2 + round * PER_APPEND);
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    // A session that starts during the outage: its task too was dropped.
    let late = big_record("late", 0, 100) + &big_record("late", 1, 100);
    std::fs::write(dir.0.join("late.jsonl"), late).unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let written_kb = (SESSIONS * ROUNDS * PER_APPEND * SIZE / 1024) as u64;
    let grown_kb = memory_kb(child.id(), "VmHWM").saturating_sub(before_kb);
    eprintln!("peak resident memory grew {grown_kb} kB while {written_kb} kB were written");
    tokio::task::spawn_blocking(|| cluster().start_again())
        .await
        .unwrap();
    let total = SESSIONS * (2 + ROUNDS * PER_APPEND) + 2;
    eventually(
        Duration::from_secs(60),
        "every record reaches the store",
        async || stored_count(&url).await.0 == total,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        rows_ids_positions(&url).await,
        [format!("{total} {total} {total}")],
        "every record once, each in its place"
    );
    let tasks =
        "SELECT task_id FROM taskview_tasks WHERE task_id = 'rec-late-jsonl' AND NOT deleted";
    assert_eq!(
        texts(&url, tasks).await,
        ["rec-late-jsonl"],
        "its task is handed over again"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let log = log.join().unwrap();
    assert!(log.contains("passed their cap"), "{log}");
    assert!(
        log.contains("handing every session to the team store again"),
        "{log}"
    );
    // Without the cap what waits is a copy of everything written (its peak
    // grew past what was written, 57 MB for 48 MB, when tried); with it, the
    // peak grows by what reading the sessions takes at once.
    assert!(
        grown_kb < written_kb * 3 / 4,
        "the writer's memory stays bounded: its peak grew {grown_kb} kB for {written_kb} kB written"
    );
}
