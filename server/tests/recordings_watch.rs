//! Light at rest, any size (docs/behaviour.md §7 "All day, any size"): the
//! board lists sessions from an index without importing them, a session is
//! imported when it is read and dropped from memory past the budget, changes
//! come from filesystem notifications (the rescan set an hour away here, so
//! only notifications can find them) or, without them, from the rescan, and
//! files truncated, replaced, deleted or rotated while watched are followed.

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;
use taskview_server::sources::recordings::Watching;
use taskview_server::Source;

/// Notifications only: the rescan is an hour away.
fn notified(dir: &TempDir) -> Source {
    Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching::every(Duration::from_secs(3600)),
    }
}

/// The time of exchange `n`: a second apart.
fn at(n: u32) -> String {
    format!(
        "2026-06-01T{:02}:{:02}:{:02}Z",
        10 + n / 3600,
        n / 60 % 60,
        n % 60
    )
}

/// A Claude Code prompt record.
fn prompt(n: u32, text: &str) -> String {
    json!({"type": "user", "uuid": format!("u{n}"), "sessionId": "s-1",
           "timestamp": at(n),
           "message": {"role": "user", "content": text}})
    .to_string()
}

/// A Claude Code reply that ends its turn.
fn reply(n: u32, text: &str) -> String {
    json!({"type": "assistant", "uuid": format!("a{n}"), "parentUuid": format!("u{n}"),
           "sessionId": "s-1", "timestamp": at(n),
           "message": {"id": format!("msg-{n}"), "role": "assistant", "model": "m",
                       "content": [{"type": "text", "text": text}],
                       "stop_reason": "end_turn"}})
    .to_string()
}

/// A settled session of `turns` exchanges, one record per line.
fn session(turns: u32, first_prompt: &str) -> String {
    let mut text = String::new();
    for n in 1..=turns {
        let asked = if n == 1 {
            first_prompt.to_string()
        } else {
            format!("Question {n}")
        };
        text.push_str(&prompt(n, &asked));
        text.push('\n');
        text.push_str(&reply(n, &format!("Answer {n}.")));
        text.push('\n');
    }
    text
}

fn tasks(snapshot: &Value) -> Vec<(String, String, String)> {
    snapshot["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let field = |f: &str| t[f].as_str().unwrap_or_default().to_string();
            (field("id"), field("title"), field("state"))
        })
        .collect()
}

const SNAPSHOT: &str = "/api/v1/workflows/wf-recordings/snapshot";

async fn contents(addr: std::net::SocketAddr, session: &str) -> Vec<String> {
    session_messages(addr, session)
        .await
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn append(dir: &TempDir, name: &str, text: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.0.join(name))
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

#[tokio::test]
async fn the_board_lists_sessions_never_opened_and_reading_one_imports_it() {
    let dir = TempDir::new("watch-index");
    dir.write("a.jsonl", session(2, "Audit the webhooks"));
    dir.write("b.jsonl", session(3, "Rewrite the parser"));
    let server = start(config(notified(&dir))).await;
    let (_, snapshot) = get(server.addr(), SNAPSHOT).await;
    assert_eq!(
        tasks(&snapshot),
        [
            (
                "rec-a-jsonl".into(),
                "Audit the webhooks".into(),
                "COMPLETED".into()
            ),
            (
                "rec-b-jsonl".into(),
                "Rewrite the parser".into(),
                "COMPLETED".into()
            ),
        ]
    );
    let backend = server.backend();
    assert_eq!(backend.is_resident("sess-rec-a-jsonl"), Some(false));
    assert_eq!(backend.is_resident("sess-rec-b-jsonl"), Some(false));

    let read = contents(server.addr(), "sess-rec-b-jsonl").await;
    assert_eq!(read.len(), 6, "{read:?}");
    assert!(read.contains(&"Answer 3.".to_string()), "{read:?}");
    assert_eq!(backend.is_resident("sess-rec-b-jsonl"), Some(true));
    assert_eq!(backend.is_resident("sess-rec-a-jsonl"), Some(false));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn sessions_nobody_reads_are_dropped_past_the_budget_and_read_again() {
    let dir = TempDir::new("watch-budget");
    for name in ["a", "b", "c"] {
        dir.write(
            &format!("{name}.jsonl"),
            session(2, &format!("Session {name}")),
        );
    }
    // Room for two of them.
    let budget = 2 * session(2, "Session a").len() as u64;
    let server = start(config(Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching {
            budget,
            ..Watching::every(Duration::from_secs(3600))
        },
    }))
    .await;
    let addr = server.addr();
    let resident = |id: &str| {
        server
            .backend()
            .is_resident(&format!("sess-rec-{id}-jsonl"))
    };
    contents(addr, "sess-rec-a-jsonl").await;
    contents(addr, "sess-rec-b-jsonl").await;
    assert_eq!((resident("a"), resident("b")), (Some(true), Some(true)));
    contents(addr, "sess-rec-c-jsonl").await;
    assert_eq!(resident("a"), Some(false), "the least recently read goes");
    assert_eq!((resident("b"), resident("c")), (Some(true), Some(true)));
    // Still listed, and read again in full.
    let again = contents(addr, "sess-rec-a-jsonl").await;
    assert_eq!(again.len(), 4, "{again:?}");
    assert_eq!(resident("b"), Some(false));
    let (_, snapshot) = get(addr, SNAPSHOT).await;
    assert_eq!(tasks(&snapshot).len(), 3);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn notifications_bring_new_sessions_and_appended_records() {
    let dir = TempDir::new("watch-notify");
    dir.write("old.jsonl", session(1, "Already there"));
    let server = start(config(notified(&dir))).await;
    let addr = server.addr();
    // A new session in a new project folder.
    dir.write("-proj/new.jsonl", session(1, "Brand new"));
    let snapshot = wait_http(addr, SNAPSHOT, |s| tasks(s).len() == 2).await;
    assert_eq!(tasks(&snapshot)[1].1, "Brand new");

    // An open session grows by a record: it is read by its new bytes.
    assert_eq!(contents(addr, "sess-rec-old-jsonl").await.len(), 2);
    append(
        &dir,
        "old.jsonl",
        &format!("{}\n", prompt(2, "One more thing")),
    );
    let path = "/api/v1/task-sessions/sess-rec-old-jsonl/messages?limit=100";
    let page = wait_http(addr, path, |p| page_ids(p).len() == 3).await;
    assert!(page.to_string().contains("One more thing"));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_notifications_the_rescan_finds_changes() {
    let dir = TempDir::new("watch-rescan");
    dir.write("old.jsonl", session(1, "Already there"));
    let server = start(config(Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching {
            notify: false,
            ..Watching::every(Duration::from_millis(100))
        },
    }))
    .await;
    let addr = server.addr();
    dir.write("new.jsonl", session(1, "Found by the rescan"));
    wait_http(addr, SNAPSHOT, |s| tasks(s).len() == 2).await;
    assert_eq!(contents(addr, "sess-rec-old-jsonl").await.len(), 2);
    append(&dir, "old.jsonl", &format!("{}\n", prompt(2, "Polled")));
    let path = "/api/v1/task-sessions/sess-rec-old-jsonl/messages?limit=100";
    wait_http(addr, path, |p| page_ids(p).len() == 3).await;
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn files_truncated_replaced_deleted_or_rotated_while_watched_are_followed() {
    let dir = TempDir::new("watch-rewrite");
    dir.write("s.jsonl", session(3, "Long session"));
    dir.write("gone.jsonl", session(1, "Short-lived"));
    let server = start(config(notified(&dir))).await;
    let addr = server.addr();
    let path = "/api/v1/task-sessions/sess-rec-s-jsonl/messages?limit=100";
    assert_eq!(contents(addr, "sess-rec-s-jsonl").await.len(), 6);

    // Truncated: read again from the start.
    dir.write("s.jsonl", session(1, "Long session"));
    wait_http(addr, path, |p| page_ids(p).len() == 2).await;

    // Replaced (another file renamed over it, as editors save).
    let other = dir.0.join("s.tmp");
    std::fs::write(&other, session(2, "Replaced")).unwrap();
    std::fs::rename(&other, dir.0.join("s.jsonl")).unwrap();
    let page = wait_http(addr, path, |p| page_ids(p).len() == 4).await;
    assert!(page.to_string().contains("Replaced"), "{page}");

    // Deleted: its task goes.
    std::fs::remove_file(dir.0.join("gone.jsonl")).unwrap();
    wait_http(addr, SNAPSHOT, |s| {
        !tasks(s).iter().any(|t| t.0 == "rec-gone-jsonl")
    })
    .await;

    // Rotated: renamed away, a new file in its place; both are sessions.
    std::fs::rename(dir.0.join("s.jsonl"), dir.0.join("s-1.jsonl")).unwrap();
    dir.write("s.jsonl", session(1, "After rotation"));
    let snapshot = wait_http(addr, SNAPSHOT, |s| {
        let titles: Vec<String> = tasks(s).into_iter().map(|t| t.1).collect();
        titles.contains(&"After rotation".into()) && titles.contains(&"Replaced".into())
    })
    .await;
    assert_eq!(tasks(&snapshot).len(), 2, "{snapshot}");
    server.shutdown().await.unwrap();
}

/// Far larger than the index reads of it (and no size limit: the old one
/// was 64 MB): listed from its ends, opened whole, its newest page first.
#[tokio::test]
async fn a_large_session_is_listed_from_its_ends_and_opens() {
    let dir = TempDir::new("watch-large");
    let turns = 6000;
    let text = session(turns, "The first prompt of a long day");
    assert!(text.len() > 2 << 20, "{} bytes", text.len());
    dir.write("big.jsonl", &text);
    let server = start(config(notified(&dir))).await;
    let addr = server.addr();
    let (_, snapshot) = get(addr, SNAPSHOT).await;
    assert_eq!(tasks(&snapshot)[0].1, "The first prompt of a long day");
    assert_eq!(
        server.backend().is_resident("sess-rec-big-jsonl"),
        Some(false)
    );
    let path = "/api/v1/task-sessions/sess-rec-big-jsonl/messages?limit=100&sort=desc";
    let (status, page) = get(addr, path).await;
    assert_eq!(status, 200);
    assert_eq!(page_ids(&page).len(), 100);
    assert!(
        page["messages"][0].to_string().contains("Answer 6000."),
        "{}",
        page["messages"][0]
    );
    assert_eq!(page["has_more"], true);
    server.shutdown().await.unwrap();
}
