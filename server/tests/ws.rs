//! WebSocket integration tests: envelopes, errors, routing, ordering,
//! disconnects and fault injection, against servers on ephemeral ports.

mod common;

use common::*;
use serde_json::{json, Value};
use std::sync::Arc;
use taskview_core::model::message::Message;
use taskview_server::backend::Backend;
use taskview_server::Config;

const SESSION: &str = "sess-7c1e";
const TASK: &str = "task-7c1e";

fn message(id: &str) -> Message {
    Message::from_value(&json!({"id": id, "content": format!("text {id}"), "author_type": "agent"}))
        .unwrap()
}

/// A `task.updated` whose title marks a point in the stream.
fn mark(backend: &Backend, title: &str) {
    backend.update_task(TASK, |t| t.title = title.to_string());
}

fn label(frame: &Value) -> String {
    let p = &frame["payload"];
    match frame["action"].as_str().unwrap() {
        "task.updated" => format!("task:{}", p["title"].as_str().unwrap()),
        action => format!("{action}:{}", p["message_id"].as_str().unwrap_or("")),
    }
}

#[tokio::test]
async fn requests_get_responses_that_echo_id_and_action() {
    let server = start(config(quiet())).await;
    let mut ws = Ws::connect(server.addr()).await;
    let ack = ws.request("user.subscribe", json!({})).await;
    assert_eq!(ack["type"], "response");
    assert_eq!(ack["action"], "user.subscribe");
    assert_eq!(ack["payload"]["success"], true);
    assert!(ack["timestamp"].is_string());

    let sub = ws
        .request("session.subscribe", json!({"session_id": SESSION}))
        .await;
    assert_eq!(
        sub["payload"],
        json!({"success": true, "session_id": SESSION})
    );
    let task = ws.request("task.subscribe", json!({"task_id": TASK})).await;
    assert_eq!(task["payload"], json!({"success": true, "task_id": TASK}));
    let focus = ws
        .request("session.focus", json!({"session_id": SESSION}))
        .await;
    assert_eq!(focus["type"], "response");

    for n in 1..=5 {
        server
            .backend()
            .put_message(SESSION, message(&format!("m{n}")));
    }
    let list = ws
        .request(
            "message.list",
            json!({"session_id": SESSION, "limit": 2, "sort": "desc"}),
        )
        .await;
    assert_eq!(list["type"], "response");
    let page = &list["payload"];
    assert_eq!(page_ids(page), ["m5", "m4"]);
    assert_eq!(
        (page["has_more"].clone(), page["cursor"].clone()),
        (json!(true), json!("m4"))
    );
    let (_, http) = get(
        server.addr(),
        "/api/v1/task-sessions/sess-7c1e/messages?limit=2&sort=desc",
    )
    .await;
    assert_eq!(*page, http, "WS and HTTP pages agree");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn error_envelopes_carry_codes_and_echo_the_request() {
    let server = start(config(quiet())).await;
    let mut ws = Ws::connect(server.addr()).await;
    let cases = [
        ("board.explode", json!({}), "UNKNOWN_ACTION"),
        (
            "message.add",
            json!({"session_id": SESSION, "content": "hi"}),
            "UNKNOWN_ACTION",
        ),
        ("session.subscribe", json!({}), "VALIDATION_ERROR"),
        ("message.list", json!({"limit": 3}), "VALIDATION_ERROR"),
        (
            "message.list",
            json!({"session_id": 42}),
            "VALIDATION_ERROR",
        ),
        (
            "message.list",
            json!({"session_id": SESSION, "limit": "lots"}),
            "VALIDATION_ERROR",
        ),
        (
            "message.list",
            json!({"session_id": SESSION, "sort": 1}),
            "VALIDATION_ERROR",
        ),
        (
            "message.list",
            json!({"session_id": SESSION, "before": "nope"}),
            "NOT_FOUND",
        ),
        (
            "session.subscribe",
            json!({"session_id": "nope"}),
            "NOT_FOUND",
        ),
        ("task.subscribe", json!({"task_id": "nope"}), "NOT_FOUND"),
    ];
    for (action, payload, code) in cases {
        let reply = ws.request(action, payload.clone()).await;
        assert_eq!(reply["type"], "error", "{action} {payload}");
        assert_eq!(reply["action"], action);
        assert_eq!(
            reply["payload"]["code"], code,
            "{action} {payload}: {reply}"
        );
        assert!(reply["payload"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    }
    let missing = ws.request("session.subscribe", json!({})).await;
    assert_eq!(missing["payload"]["message"], "session_id is required");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn malformed_frames_are_answered_and_the_connection_lives_on() {
    let server = start(config(quiet())).await;
    let mut ws = Ws::connect(server.addr()).await;
    for bad in [
        "not json at all",
        "[1, 2, 3]",
        r#"{"type": "request"}"#,
        r#"{"id": "x1", "type": "shout", "action": "user.subscribe"}"#,
        r#"{"id": "x2", "type": "notification", "action": "task.updated", "payload": {}}"#,
        "{\"id\": \"x3\", \"type\": \"request\", \"action\": \"user.subscribe\"",
    ] {
        ws.send_text(bad).await;
        let reply = ws.next().await.expect("an error reply");
        assert_eq!(reply["type"], "error", "{bad}");
        assert_eq!(reply["payload"]["code"], "BAD_REQUEST", "{bad}: {reply}");
    }
    // The id is echoed when the bad frame had one.
    ws.send_text(r#"{"id": "x4", "type": "bogus", "action": "user.subscribe"}"#)
        .await;
    let reply = ws.next().await.unwrap();
    assert_eq!(
        (reply["id"].clone(), reply["action"].clone()),
        (json!("x4"), json!("user.subscribe"))
    );

    ws.send_binary(&[0, 159, 146, 150]).await;
    assert_eq!(ws.next().await.unwrap()["payload"]["code"], "BAD_REQUEST");

    // Several requests in one frame, separated by newlines, are all answered in order.
    let two = [
        json!({"id": "a", "type": "request", "action": "user.subscribe", "payload": {}}),
        json!({"id": "b", "type": "request", "action": "session.subscribe", "payload": {"session_id": SESSION}}),
    ];
    ws.send_text(&format!("{}\n{}", two[0], two[1])).await;
    assert_eq!(ws.next().await.unwrap()["id"], "a");
    assert_eq!(ws.next().await.unwrap()["id"], "b");

    let still = ws.request("user.subscribe", json!({})).await;
    assert_eq!(still["type"], "response");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn session_messages_reach_only_subscribers_and_task_updates_reach_everyone() {
    let server = start(config(quiet())).await;
    let backend = server.backend();
    let mut subscriber = Ws::connect_registered(server.addr()).await;
    let mut bystander = Ws::connect_registered(server.addr()).await;
    subscriber
        .request("session.subscribe", json!({"session_id": SESSION}))
        .await;

    backend.put_message(SESSION, message("m1"));
    backend.put_message(SESSION, message("m1"));
    mark(backend, "after m1");

    let seen = subscriber.until(|f| is_marker(f, "after m1")).await;
    let labels: Vec<String> = seen.iter().map(label).collect();
    assert_eq!(
        labels,
        [
            "session.message.added:m1",
            "session.message.updated:m1",
            "task:after m1"
        ]
    );
    // The bystander's first notification is the marker: no message came before it.
    let seen = bystander.until(|f| is_marker(f, "after m1")).await;
    assert_eq!(
        seen.iter().map(label).collect::<Vec<_>>(),
        ["task:after m1"]
    );

    // After unsubscribing, messages stop; turns and tasks still arrive.
    subscriber
        .request("session.unsubscribe", json!({"session_id": SESSION}))
        .await;
    backend.put_message(SESSION, message("m2"));
    backend.start_turn(SESSION, "turn-9", "2026-08-03T10:00:00Z");
    mark(backend, "after m2");
    for ws in [&mut subscriber, &mut bystander] {
        let seen = ws.until(|f| is_marker(f, "after m2")).await;
        let actions: Vec<&str> = seen.iter().map(|f| f["action"].as_str().unwrap()).collect();
        assert!(actions.contains(&"session.turn.started"), "{actions:?}");
        assert!(
            !actions.iter().any(|a| a.starts_with("session.message.")),
            "{actions:?}"
        );
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn fifty_clients_receive_the_same_notifications_in_the_same_order() {
    let server = start(config(quiet())).await;
    let backend = Arc::clone(server.backend());
    let mut clients = Vec::new();
    for _ in 0..50 {
        let mut ws = Ws::connect_registered(server.addr()).await;
        ws.request("session.subscribe", json!({"session_id": SESSION}))
            .await;
        clients.push(ws);
    }
    // Four producers at once: the interleaving is up to the scheduler, but
    // every client must see the one order the hub chose.
    let producers: Vec<_> = (0..4)
        .map(|p| {
            let backend = Arc::clone(&backend);
            tokio::spawn(async move {
                for n in 0..25 {
                    backend.put_message(SESSION, message(&format!("p{p}-{n}")));
                    if n % 5 == 0 {
                        backend.update_task(TASK, |t| t.position = n);
                    }
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for p in producers {
        p.await.unwrap();
    }
    mark(&backend, "done");
    let readers: Vec<_> = clients
        .into_iter()
        .map(|mut ws| {
            tokio::spawn(async move {
                let seen = ws.until(|f| is_marker(f, "done")).await;
                seen.iter().map(label).collect::<Vec<_>>()
            })
        })
        .collect();
    let mut sequences = Vec::new();
    for r in readers {
        sequences.push(r.await.unwrap());
    }
    let first = &sequences[0];
    assert_eq!(
        first
            .iter()
            .filter(|l| l.starts_with("session.message.added"))
            .count(),
        100
    );
    assert_eq!(first.iter().filter(|l| l.starts_with("task:")).count(), 21);
    for (n, s) in sequences.iter().enumerate() {
        assert_eq!(s, first, "client {n} saw another order");
    }
    // Each producer's own messages keep their order.
    for p in 0..4 {
        let own: Vec<&String> = first
            .iter()
            .filter(|l| l.contains(&format!(":p{p}-")))
            .collect();
        let expected: Vec<String> = (0..25)
            .map(|n| format!("session.message.added:p{p}-{n}"))
            .collect();
        assert_eq!(own, expected.iter().collect::<Vec<_>>());
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_client_that_disconnects_mid_stream_does_not_disturb_the_others() {
    let server = start(config(quiet())).await;
    let backend = Arc::clone(server.backend());
    let mut stayers = Vec::new();
    for _ in 0..3 {
        let mut ws = Ws::connect_registered(server.addr()).await;
        ws.request("session.subscribe", json!({"session_id": SESSION}))
            .await;
        stayers.push(ws);
    }
    let mut leaver = Ws::connect_registered(server.addr()).await;
    leaver
        .request("session.subscribe", json!({"session_id": SESSION}))
        .await;
    assert_eq!(backend.hub().client_count(), 4);

    for n in 0..200 {
        backend.put_message(SESSION, message(&format!("m{n}")));
    }
    // Read a little, then vanish without a close handshake.
    for _ in 0..10 {
        leaver.next().await.unwrap();
    }
    drop(leaver);
    for n in 200..400 {
        backend.put_message(SESSION, message(&format!("m{n}")));
    }
    mark(&backend, "end");
    for ws in &mut stayers {
        let seen = ws.until(|f| is_marker(f, "end")).await;
        let added = seen
            .iter()
            .filter(|f| f["action"] == "session.message.added")
            .count();
        assert_eq!(added, 400);
    }
    // The server notices the vanished client; publishing keeps working.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while backend.hub().client_count() != 3 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the leaver was never dropped"
        );
        mark(&backend, "poke");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn drop_ws_every_closes_each_socket_after_n_frames() {
    let server = start(Config {
        drop_ws_every: Some(3),
        ..config(quiet())
    })
    .await;
    for _ in 0..2 {
        let mut ws = Ws::connect(server.addr()).await;
        for id in ["a", "b", "c", "d", "e"] {
            let frame =
                json!({"id": id, "type": "request", "action": "user.subscribe", "payload": {}});
            ws.send_text(&frame.to_string()).await;
        }
        let mut got = Vec::new();
        while let Some(frame) = ws.next().await {
            got.push(frame["id"].as_str().unwrap().to_string());
        }
        assert_eq!(got, ["a", "b", "c"], "closed after exactly three frames");
        assert!(ws.closed);
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn inject_malformed_every_sends_a_bad_frame_after_every_n_good_ones() {
    use futures_util::{SinkExt, StreamExt};
    use taskview_server::http::faults::MALFORMED_FRAMES;
    use tokio_tungstenite::tungstenite::Message as WsMessage;
    let server = start(Config {
        inject_malformed_every: Some(2),
        ..config(quiet())
    })
    .await;
    let url = format!("ws://{}/ws", server.addr());
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    for id in ["a", "b", "c", "d"] {
        let frame = json!({"id": id, "type": "request", "action": "user.subscribe", "payload": {}});
        socket
            .send(WsMessage::text(frame.to_string()))
            .await
            .unwrap();
    }
    let mut got = Vec::new();
    while got.len() < 6 {
        let next = tokio::time::timeout(PATIENCE, socket.next())
            .await
            .expect("a frame");
        if let Some(Ok(WsMessage::Text(text))) = next {
            let id = serde_json::from_str::<Value>(text.as_str())
                .ok()
                .and_then(|v| v["id"].as_str().map(str::to_string));
            got.push(id.unwrap_or_else(|| text.to_string()));
        }
    }
    let expected = ["a", "b", MALFORMED_FRAMES[0], "c", "d", MALFORMED_FRAMES[1]];
    assert_eq!(got, expected, "the socket stays open between bad frames");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn shutdown_closes_open_sockets_and_returns() {
    let server = start(config(demo())).await;
    let mut ws = Ws::connect_registered(server.addr()).await;
    let stopping = tokio::spawn(server.shutdown());
    while ws.next().await.is_some() {}
    assert!(ws.closed);
    tokio::time::timeout(PATIENCE, stopping)
        .await
        .expect("shutdown finishes")
        .unwrap()
        .unwrap();
}
