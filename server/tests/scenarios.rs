//! The scripted scenarios end to end: what a client sees, and the final
//! state a test can rely on.

mod common;

use common::*;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::time::Duration;
use taskview_server::{Config, Source};

const FIXTURE: &str = include_str!("../../tests/fixtures/ws-subagent-lifecycle-events.json");

fn fixture_actions() -> Vec<String> {
    let doc: Value = serde_json::from_str(FIXTURE).unwrap();
    doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["frame"]["action"].as_str().unwrap().to_string())
        .collect()
}

fn count_of(frame: &Value) -> Option<Value> {
    (frame["action"] == "task.updated").then(|| frame["payload"]["active_subagent_count"].clone())
}

#[tokio::test]
async fn lifecycle_replays_the_fixture_and_the_chip_goes_0_2_1_0() {
    let server = start(config(Source::Lifecycle {
        interval: Duration::from_millis(5),
        start_delay: Duration::from_secs(2),
        once: true,
    }))
    .await;
    let mut ws = Ws::connect_registered(server.addr()).await;
    ws.request("session.subscribe", json!({"session_id": "sess-7c1e"}))
        .await;
    let mut frames = Vec::new();
    while frames.len() < 20 {
        frames.push(ws.next().await.expect("a frame"));
    }
    let actions: Vec<String> = frames
        .iter()
        .map(|f| f["action"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(actions, fixture_actions());
    let counts: Vec<Value> = frames.iter().filter_map(count_of).collect();
    assert_eq!(
        counts,
        [
            json!(0),
            json!(2),
            Value::Null,
            json!(1),
            json!(0),
            json!(0)
        ]
    );

    let status = wait_http(server.addr(), "/api/v1/scenario", |s| s["finished"] == true).await;
    assert_eq!(
        (status["iterations"].clone(), status["frames"].clone()),
        (json!(1), json!(20))
    );
    let (_, task) = get(server.addr(), "/api/v1/tasks/task-7c1e").await;
    assert_eq!(task["active_subagent_count"], 0);
    assert_eq!(task["state"], "REVIEW");
    let (_, page) = get(server.addr(), "/api/v1/task-sessions/sess-7c1e/messages").await;
    assert_eq!(page_ids(&page), ["w-A", "w-B", "w-A1"]);
    assert_eq!(page["messages"][0]["metadata"]["status"], "complete");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_looping_lifecycle_clears_the_session_between_passes() {
    let server = start(config(Source::Lifecycle {
        interval: Duration::from_millis(2),
        start_delay: Duration::from_secs(2),
        once: false,
    }))
    .await;
    let mut ws = Ws::connect_registered(server.addr()).await;
    ws.request("session.subscribe", json!({"session_id": "sess-7c1e"}))
        .await;
    let mut messages: HashMap<String, Value> = HashMap::new();
    let mut passes = 0;
    while passes < 2 {
        let frame = ws.next().await.expect("a frame");
        let id = frame["payload"]["message_id"]
            .as_str()
            .unwrap_or("")
            .to_string();
        match frame["action"].as_str().unwrap() {
            "session.message.added" | "session.message.updated" => {
                messages.insert(id, frame["payload"].clone());
            }
            "session.message.deleted" => {
                messages.remove(&id);
            }
            "session.turn.completed" => passes += 1,
            _ => {}
        }
    }
    let mut ids: Vec<&String> = messages.keys().collect();
    ids.sort();
    assert_eq!(ids, ["w-A", "w-A1", "w-B"]);
    server.shutdown().await.unwrap();
}

/// Every message of a session over HTTP, oldest first.
async fn all_messages(addr: std::net::SocketAddr, session: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut after = String::new();
    loop {
        let path = format!("/api/v1/task-sessions/{session}/messages?limit=1000{after}");
        let (_, page) = get(addr, &path).await;
        out.extend(page["messages"].as_array().unwrap().iter().cloned());
        if page["has_more"] == false {
            return out;
        }
        after = format!("&after={}", page["cursor"].as_str().unwrap());
    }
}

fn stream(messages: usize, interval_ms: u64, seed: u64) -> Source {
    Source::Stream {
        messages,
        interval: Duration::from_millis(interval_ms),
        start_delay: Duration::ZERO,
        seed,
    }
}

#[tokio::test]
async fn the_stream_ends_in_a_state_that_depends_only_on_the_seed() {
    let mut finals = Vec::new();
    for _ in 0..2 {
        let server = start(config(stream(1500, 0, 3))).await;
        wait_http(server.addr(), "/api/v1/scenario", |s| s["finished"] == true).await;
        let messages = all_messages(server.addr(), "sess-stream").await;
        assert_eq!(messages.len(), 1500);
        assert_eq!(messages.last().unwrap()["id"], "stream-end");
        let (_, session) = get(server.addr(), "/api/v1/task-sessions/sess-stream").await;
        assert_eq!(session["state"], "COMPLETED");
        let (_, task) = get(server.addr(), "/api/v1/tasks/task-stream").await;
        assert_eq!(
            (task["state"].clone(), task["active_subagent_count"].clone()),
            (json!("COMPLETED"), json!(0))
        );
        finals.push(messages);
        server.shutdown().await.unwrap();
    }
    assert_eq!(finals[0], finals[1]);
}

/// A live message payload in the HTTP list shape (`message_id` → `id`).
fn as_list_item(payload: &Value) -> Value {
    let mut item: Map<String, Value> = payload.as_object().unwrap().clone();
    if let Some(id) = item.remove("message_id") {
        item.insert("id".into(), id);
    }
    Value::Object(item)
}

#[tokio::test]
async fn a_client_that_reconnects_after_every_drop_ends_with_the_full_stream() {
    let server = start(Config {
        drop_ws_every: Some(25),
        ..config(stream(300, 1, 5))
    })
    .await;
    let mut state: HashMap<String, Value> = HashMap::new();
    let mut connections = 0;
    while !state.contains_key("stream-end") {
        connections += 1;
        let mut ws = Ws::connect(server.addr()).await;
        // What the app does on every (re)connect: subscribe, then refetch and merge.
        ws.send_text(
            &json!({"id": "u", "type": "request", "action": "user.subscribe", "payload": {}})
                .to_string(),
        )
        .await;
        ws.send_text(&json!({"id": "s", "type": "request", "action": "session.subscribe", "payload": {"session_id": "sess-stream"}}).to_string()).await;
        ws.send_text(&json!({"id": "l", "type": "request", "action": "message.list", "payload": {"session_id": "sess-stream", "limit": 1000}}).to_string()).await;
        while let Some(frame) = ws.next().await {
            match (frame["type"].as_str(), frame["action"].as_str()) {
                (Some("response"), Some("message.list")) => {
                    for m in frame["payload"]["messages"].as_array().unwrap() {
                        state.insert(m["id"].as_str().unwrap().to_string(), m.clone());
                    }
                }
                (_, Some("session.message.added" | "session.message.updated")) => {
                    let item = as_list_item(&frame["payload"]);
                    state.insert(item["id"].as_str().unwrap().to_string(), item);
                }
                _ => {}
            }
            if state.contains_key("stream-end") {
                break;
            }
        }
    }
    assert!(
        connections > 3,
        "the fault was injected ({connections} connections)"
    );
    let truth = all_messages(server.addr(), "sess-stream").await;
    assert_eq!(truth.len(), 300);
    for m in &truth {
        let id = m["id"].as_str().unwrap();
        assert_eq!(state.get(id), Some(m), "message {id} differs");
    }
    assert_eq!(state.len(), truth.len());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_demo_raises_and_lowers_board_chips_without_any_subscription() {
    let server = start(config(Source::Demo {
        seed: 1,
        speed: 20.0,
    }))
    .await;
    let mut ws = Ws::connect_registered(server.addr()).await;
    let mut peak: HashMap<String, u64> = HashMap::new();
    let mut seen = Vec::new();
    // Until some task's chip has risen to 2 or more and come back to 0.
    loop {
        let frame = ws.next().await.expect("a frame");
        seen.push(frame.clone());
        if frame["action"] != "task.updated" {
            continue;
        }
        let task = frame["payload"]["task_id"].as_str().unwrap().to_string();
        let count = frame["payload"]["active_subagent_count"].as_u64().unwrap();
        let top = peak.entry(task).or_default();
        *top = (*top).max(count);
        if count == 0 && *top >= 2 {
            break;
        }
    }
    // Without a session subscription no message reached this client.
    assert!(seen.iter().all(|f| !f["action"]
        .as_str()
        .unwrap()
        .starts_with("session.message.")));
    server.shutdown().await.unwrap();
}
