//! `--recordings DIR`: one task per readable file, unreadable files
//! reported and skipped (and picked up once fixed), growing files tailed.

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;
use taskview_server::Source;

const REVIEW_WAVE: &str = include_str!("../../tests/fixtures/session-review-wave.json");

fn recordings(dir: &TempDir) -> Source {
    Source::Recordings {
        dir: dir.0.clone(),
        poll: Duration::from_millis(20),
    }
}

fn task_titles(snapshot: &Value) -> Vec<String> {
    snapshot["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["title"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn unreadable_files_are_skipped_and_picked_up_once_fixed() {
    let dir = TempDir::new("recordings-bad");
    dir.write("a-review.json", REVIEW_WAVE);
    dir.write("b-broken.json", "this is not a message list");
    dir.write("c-binary.dat", [0xff, 0xfe, 0x00, 0x9f]);
    dir.write("d-empty.json", "");
    dir.write(".hidden.json", REVIEW_WAVE);
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();

    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    assert_eq!(task_titles(&snapshot), ["a-review.json"]);
    let task = &snapshot["tasks"][0];
    assert_eq!(task["id"], "rec-a-review-json");
    let session = task["primary_session_id"].as_str().unwrap();
    let (_, page) = get(addr, &format!("/api/v1/task-sessions/{session}/messages")).await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 20);
    assert_eq!(
        page["messages"][0]["session_id"], session,
        "re-homed into its session"
    );
    let (_, turns) = get(addr, &format!("/api/v1/task-sessions/{session}/turns")).await;
    assert_eq!(turns["total"], 2);

    // Fixing a skipped file makes it a task, announced to every client.
    let mut ws = Ws::connect_registered(addr).await;
    dir.write(
        "b-broken.json",
        r#"{"messages": [{"id": "x1", "content": "fixed"}]}"#,
    );
    let seen = ws.until(|f| f["action"] == "task.created").await;
    let created = &seen.last().unwrap()["payload"];
    assert_eq!(created["task_id"], "rec-b-broken-json");
    assert_eq!(created["title"], "b-broken.json");
    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    assert_eq!(task_titles(&snapshot), ["a-review.json", "b-broken.json"]);
    server.shutdown().await.unwrap();
}

fn message(id: &str, turn: &str, content: &str) -> Value {
    json!({"id": id, "turn_id": turn, "author_type": "agent", "type": "message", "content": content,
           "created_at": "2026-08-03T10:00:00Z", "updated_at": "2026-08-03T10:00:00Z"})
}

fn subagent(id: &str, turn: &str, status: &str, updated_at: &str) -> Value {
    json!({"id": id, "turn_id": turn, "author_type": "agent", "type": "tool_call", "content": "Task",
           "created_at": "2026-08-03T10:00:01Z", "updated_at": updated_at,
           "metadata": {"tool_call_id": format!("toolu_{id}"), "status": status,
               "normalized": {"kind": "subagent_task", "subagent_task":
                   {"subagent_type": "code-reviewer", "description": "review", "prompt": ""}}}})
}

fn list(messages: &[Value]) -> String {
    json!({ "messages": messages }).to_string()
}

#[tokio::test]
async fn a_growing_file_is_tailed_live() {
    let dir = TempDir::new("recordings-grow");
    let first = message("m1", "turn-1", "Review the closure diff.");
    dir.write("live.json", list(std::slice::from_ref(&first)));
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();
    let session = "sess-rec-live-json";
    let mut ws = Ws::connect_registered(addr).await;
    ws.request("session.subscribe", json!({"session_id": session}))
        .await;

    // A subagent starts in a new turn: it streams in and the chip rises.
    let running = subagent("m2", "turn-2", "in_progress", "2026-08-03T10:00:01Z");
    dir.write("live.json", list(&[first.clone(), running]));
    let seen = ws
        .until(|f| f["action"] == "task.updated" && f["payload"]["active_subagent_count"] == 1)
        .await;
    let actions: Vec<&str> = seen.iter().map(|f| f["action"].as_str().unwrap()).collect();
    assert!(actions.contains(&"session.turn.started"), "{actions:?}");
    let added: Vec<&Value> = seen
        .iter()
        .filter(|f| f["action"] == "session.message.added")
        .collect();
    assert_eq!(added.len(), 1, "only the new message is pushed");
    assert_eq!(added[0]["payload"]["message_id"], "m2");

    // Half of the next element is on disk: nothing unreadable is pushed yet.
    let done = subagent("m2", "turn-2", "complete", "2026-08-03T10:00:09Z");
    let reply = message("m3", "turn-2", "Both reviews are in.");
    let full = list(&[first.clone(), done, reply]);
    let cut = full.len() - 40;
    dir.write("live.json", &full[..cut]);
    // Then the rest: m2 settles (the chip falls) and m3 arrives.
    let seen_partial = ws
        .until(|f| f["action"] == "session.message.updated" && f["payload"]["message_id"] == "m2")
        .await;
    dir.write("live.json", &full);
    let seen = ws
        .until(|f| f["action"] == "session.message.added" && f["payload"]["message_id"] == "m3")
        .await;
    let all: Vec<&Value> = seen_partial.iter().chain(&seen).collect();
    assert!(all.iter().all(|f| !f["payload"]["message_id"]
        .as_str()
        .unwrap_or("")
        .starts_with("unreadable")));
    let counts: Vec<u64> = all
        .iter()
        .filter(|f| f["action"] == "task.updated")
        .map(|f| f["payload"]["active_subagent_count"].as_u64().unwrap())
        .collect();
    assert_eq!(counts.last(), Some(&0), "{counts:?}");

    // Quiet for a while: the turn completes.
    ws.until(|f| f["action"] == "session.turn.completed" && f["payload"]["id"] == "turn-2")
        .await;
    let (_, page) = get(addr, &format!("/api/v1/task-sessions/{session}/messages")).await;
    let ids: Vec<&str> = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["m1", "m2", "m3"]);
    server.shutdown().await.unwrap();
}
