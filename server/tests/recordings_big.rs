//! A big session in a recordings folder (docs/behaviour.md §7, all day,
//! any size): one over 16 MB is shown from its newest records first, both
//! when someone reads it and when it grows while nobody has, and is served
//! whole once its whole read lands; an append after that is followed by
//! its bytes. (How fast is measured by `cargo bench --bench home`, which
//! reports the 150 MB session's first page and first append beside the
//! median session's.)

mod common;

use common::*;
use serde_json::{json, Value};
use std::io::Write;
use std::time::Duration;
use taskview_server::sources::recordings::Watching;
use taskview_server::Source;

/// Records of about 2 KB, enough of them for a session of some 20 MB.
const RECORDS: usize = 10_000;

/// Claude Code session `id`: `RECORDS` prompts and replies, prompt `n`
/// saying `prompt n`.
fn big_session(id: &str) -> String {
    let filler = "x".repeat(2_000);
    let mut text = String::new();
    for n in 0..RECORDS {
        let (kind, body) = if n % 2 == 0 {
            (
                "user",
                json!({"role": "user", "content": format!("prompt {n} {filler}")}),
            )
        } else {
            (
                "assistant",
                json!({"role": "assistant", "id": format!("msg_{n}"), "model": "m",
                "content": [{"type": "text", "text": format!("reply {n}")}], "stop_reason": "end_turn"}),
            )
        };
        let record = json!({"type": kind, "uuid": format!("u-{n}"), "sessionId": id,
            "timestamp": format!("2026-12-06T{:02}:{:02}:{:02}.000Z", n / 3600 % 24, n / 60 % 60, n % 60),
            "message": body});
        text.push_str(&format!("{record}\n"));
    }
    text
}

/// The session of the folder's one task.
async fn the_session(addr: std::net::SocketAddr) -> String {
    let board = wait_http(addr, "/api/v1/workflows/wf-recordings/snapshot", |s| {
        s["tasks"].as_array().is_some_and(|t| t.len() == 1)
    })
    .await;
    format!("sess-{}", board["tasks"][0]["id"].as_str().unwrap())
}

/// The newest (`desc`) or oldest (`asc`) message of `session`, as text.
async fn end_message(addr: std::net::SocketAddr, session: &str, sort: &str) -> String {
    let (_, page) = get(
        addr,
        &format!("/api/v1/task-sessions/{session}/messages?limit=1&sort={sort}"),
    )
    .await;
    page.to_string()
}

fn server(dir: &TempDir) -> taskview_server::Config {
    config(Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching::every(Duration::from_millis(20)),
    })
}

#[tokio::test]
async fn a_big_session_read_shows_its_newest_records_first_and_is_served_whole_later() {
    let dir = TempDir::new("recordings-big-read");
    let id = "b1b1b1b1-0000-4000-8000-000000000001";
    dir.write(&format!("-p/{id}.jsonl"), big_session(id));
    let server = start(server(&dir)).await;
    let addr = server.addr();
    let session = the_session(addr).await;
    let newest = end_message(addr, &session, "desc").await;
    assert!(
        newest.contains(&format!("reply {}", RECORDS - 1)),
        "{newest}"
    );
    let oldest = wait_http(
        addr,
        &format!("/api/v1/task-sessions/{session}/messages?limit=1&sort=asc"),
        |p| p.to_string().contains("prompt 0 "),
    )
    .await;
    assert!(oldest.to_string().contains("u-0"));
}

#[tokio::test]
async fn an_append_to_a_big_session_nobody_read_shows_and_later_ones_follow() {
    let dir = TempDir::new("recordings-big-append");
    let id = "b2b2b2b2-0000-4000-8000-000000000002";
    let name = format!("-p/{id}.jsonl");
    dir.write(&name, big_session(id));
    let server = start(server(&dir)).await;
    let addr = server.addr();
    let session = the_session(addr).await;
    let append = |text: &str| {
        let record = json!({"type": "user", "uuid": format!("u-{text}"), "sessionId": id,
            "timestamp": "2026-12-07T00:00:00.000Z", "message": {"role": "user", "content": text}});
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.0.join(&name))
            .unwrap();
        file.write_all(format!("{record}\n").as_bytes()).unwrap();
    };
    append("first appended");
    // The watcher sees it grow while nobody reads it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    wait_http(
        addr,
        &format!("/api/v1/task-sessions/{session}/messages?limit=1&sort=desc"),
        |p| p.to_string().contains("first appended"),
    )
    .await;
    wait_http(
        addr,
        &format!("/api/v1/task-sessions/{session}/messages?limit=1&sort=asc"),
        |p| p.to_string().contains("prompt 0 "),
    )
    .await;
    append("second appended");
    let page: Value = wait_http(
        addr,
        &format!("/api/v1/task-sessions/{session}/messages?limit=3&sort=desc"),
        |p| p.to_string().contains("second appended"),
    )
    .await;
    let ids = page_ids(&page);
    assert_eq!(
        ids.iter().filter(|i| i.contains("appended")).count(),
        2,
        "each once: {ids:?}"
    );
}
