//! Protocol tests against the kandev fixtures (`tests/fixtures/`).

use super::*;
use crate::board::TaskPatch;
use crate::event::Event;
use crate::import::kandev;
use crate::model::{Author, Message, MessagePatch};
use serde_json::{json, Value};

const ENVELOPES: &str = include_str!("../../../tests/fixtures/ws-protocol-envelopes.json");
const LIFECYCLE: &str = include_str!("../../../tests/fixtures/ws-subagent-lifecycle-events.json");
const REVIEW_WAVE: &str = include_str!("../../../tests/fixtures/session-review-wave.json");
const BOARD: &str = include_str!("../../../tests/fixtures/board-snapshot-and-boot.json");

fn fixture(text: &str) -> Value {
    serde_json::from_str(text).expect("fixture is JSON")
}

fn frames<'a>(doc: &'a Value, list: &str) -> Vec<&'a Value> {
    doc[list]
        .as_array()
        .expect("fixture list")
        .iter()
        .map(|entry| &entry["frame"])
        .collect()
}

fn one_envelope(text: &str) -> Envelope {
    let mut parsed = parse_frame(text);
    assert_eq!(parsed.len(), 1, "{text}");
    parsed.remove(0).expect("envelope")
}

#[test]
fn every_fixture_client_request_parses_and_rebuilds_identically() {
    let doc = fixture(ENVELOPES);
    let mut served = 0;
    for frame in frames(&doc, "client_requests") {
        let env = one_envelope(&frame.to_string());
        assert_eq!(env.kind, EnvelopeType::Request);
        assert!(env.id.is_some());
        match Request::parse(&env.action, &env.payload) {
            Ok(request) => {
                served += 1;
                let id = env.id.clone().unwrap_or_default();
                assert_eq!(request.to_envelope(id), env, "{}", env.action);
            }
            // Prompts and permission answers are kandev features taskview does not serve.
            Err(e) => {
                assert!(["message.add", "permission.respond"].contains(&env.action.as_str()));
                assert_eq!(e.code(), Some(ErrorCode::UnknownAction));
            }
        }
    }
    assert_eq!(served, 6);
}

#[test]
fn message_list_request_is_typed() {
    let payload = json!({"session_id": "s", "limit": 100, "sort": "desc", "before": "m9"});
    let Ok(Request::MessageList(list)) = Request::parse("message.list", &payload) else {
        panic!("message.list parses");
    };
    assert_eq!(list.session_id, "s");
    assert_eq!(list.query.limit, Some(100));
    assert_eq!(list.query.sort, Some(SortOrder::Desc));
    assert_eq!(list.query.before.as_deref(), Some("m9"));
    assert_eq!(list.query.after, None);
}

#[test]
fn request_validation_errors_name_the_field() {
    let cases = [
        ("session.subscribe", json!({}), "session_id is required"),
        (
            "session.subscribe",
            json!({"session_id": ""}),
            "session_id is required",
        ),
        ("session.subscribe", json!(null), "session_id is required"),
        (
            "message.list",
            json!({"session_id": 5}),
            "session_id must be a string",
        ),
        (
            "message.list",
            json!({"session_id": "s", "limit": "x"}),
            "limit",
        ),
        (
            "message.list",
            json!({"session_id": "s", "limit": -1}),
            "limit",
        ),
        (
            "message.list",
            json!({"session_id": "s", "limit": 1.5}),
            "limit",
        ),
        (
            "message.list",
            json!({"session_id": "s", "sort": "up"}),
            "sort",
        ),
        (
            "message.list",
            json!({"session_id": "s", "before": 7}),
            "before",
        ),
        (
            "task.subscribe",
            json!({"task_id": []}),
            "task_id must be a string",
        ),
    ];
    for (name, payload, expected) in cases {
        let err = Request::parse(name, &payload).expect_err(name);
        assert_eq!(
            err.code(),
            Some(ErrorCode::ValidationError),
            "{name} {payload}"
        );
        assert!(
            err.message.contains(expected),
            "{} ~ {expected}",
            err.message
        );
    }
}

#[test]
fn unknown_actions_are_unknown_action_errors() {
    let err = Request::parse("board.explode", &json!({})).unwrap_err();
    assert_eq!(err.code, "UNKNOWN_ACTION");
    assert!(err.message.contains("board.explode"));
}

#[test]
fn fixture_server_responses_and_errors_read_back() {
    let doc = fixture(ENVELOPES);
    let responses = frames(&doc, "server_responses");
    for frame in &responses {
        let env = one_envelope(&frame.to_string());
        assert!(env.id.is_some() && env.timestamp.is_some());
        // What we write is what kandev writes.
        assert_eq!(serde_json::to_value(&env).unwrap(), **frame);
    }
    let subscribed = one_envelope(&responses[0].to_string());
    let ack: Ack = serde_json::from_value(subscribed.payload).unwrap();
    assert_eq!(ack.session_id.as_deref(), Some("sess-7c1e"));
    let list = one_envelope(&responses[1].to_string());
    let page = MessagesPage::from_value(&list.payload);
    assert_eq!(
        (page.total, page.has_more, page.messages.len()),
        (100, true, 2)
    );
    // The fixture's placeholders are strings, not messages: unreadable rows, not a failure.
    assert!(page
        .events()
        .iter()
        .all(|e| matches!(e, Event::Unreadable { .. })));
    let error = one_envelope(&responses[3].to_string());
    assert_eq!(error.kind, EnvelopeType::Error);
    let payload = ErrorPayload::from_value(&error.payload);
    assert_eq!(payload.code(), Some(ErrorCode::ValidationError));
    assert_eq!(payload.message, "session_id is required");
}

#[test]
fn fixture_notifications_become_events() {
    let doc = fixture(ENVELOPES);
    let mut results = Vec::new();
    for frame in frames(&doc, "server_notifications") {
        let env = one_envelope(&frame.to_string());
        assert_eq!(env.kind, EnvelopeType::Notification);
        assert_eq!(env.id, None);
        results.push((
            env.action.clone(),
            event_from_notification(&env.action, &env.payload),
        ));
    }
    let find = |name: &str| &results.iter().find(|(a, _)| a == name).expect(name).1;
    let Ok(Some(Event::MessageAdded(m))) = find("session.message.added") else {
        panic!("added");
    };
    assert_eq!(m.id, "w-A");
    assert!(m.is_subagent_payload());
    // The fixture's `updated` payload is a placeholder string: malformed, not unknown.
    assert!(matches!(
        find("session.message.updated"),
        Err(NotificationError::MalformedPayload { .. })
    ));
    assert_eq!(
        find("session.message.deleted"),
        &Ok(Some(Event::MessageDeleted { id: "m1".into() }))
    );
    assert_eq!(
        find("session.turn.started"),
        &Ok(Some(Event::TurnStarted {
            session_id: "sess-7c1e".into(),
            turn_id: "turn-2".into()
        }))
    );
    assert!(matches!(
        find("session.turn.completed"),
        Ok(Some(Event::TurnCompleted { .. }))
    ));
    assert_eq!(find("session.state_changed"), &Ok(None));
    assert_eq!(find("session.activity_changed"), &Ok(None));
    let Ok(Some(Event::TaskUpdated(t))) = find("task.updated") else {
        panic!("task.updated");
    };
    assert_eq!(t.active_subagent_count, Some(Some(2)));
}

#[test]
fn lifecycle_frames_move_the_count_0_2_keep_1_0() {
    let doc = fixture(LIFECYCLE);
    let mut counts = Vec::new();
    for step in doc["steps"].as_array().unwrap() {
        let env = one_envelope(&step["frame"].to_string());
        match event_from_notification(&env.action, &env.payload) {
            Ok(Some(Event::TaskUpdated(t))) => counts.push(t.active_subagent_count),
            Ok(_) => {}
            Err(e) => panic!("{e}"),
        }
    }
    let c = |n| Some(Some(n));
    assert_eq!(counts, [c(0), c(2), None, c(1), c(0), c(0)]);
}

#[test]
fn unknown_and_malformed_notifications_are_told_apart() {
    assert_eq!(
        event_from_notification("git.status", &json!({})),
        Err(NotificationError::UnknownAction("git.status".into()))
    );
    for (name, payload) in [
        ("session.message.updated", json!({"content": "no id"})),
        ("session.message.deleted", json!(42)),
        ("session.turn.started", json!({"id": "t"})),
        ("session.turn.completed", json!({"session_id": "s"})),
        ("task.updated", json!({"title": "no id"})),
        ("task.deleted", json!({})),
    ] {
        assert!(
            matches!(
                event_from_notification(name, &payload),
                Err(NotificationError::MalformedPayload { .. })
            ),
            "{name}"
        );
    }
    // An unreadable `added` is kept as a visible row.
    assert!(matches!(
        event_from_notification("session.message.added", &json!({"content": "x"})),
        Ok(Some(Event::Unreadable { .. }))
    ));
}

#[test]
fn frames_with_several_objects_are_split_on_newlines() {
    let a = r#"{"type":"notification","action":"task.deleted","payload":{"task_id":"t1"}}"#;
    let b = r#"{"type":"notification","action":"task.deleted","payload":{"task_id":"t2"}}"#;
    let parsed = parse_frame(&format!("{a}\n\n{b}\n"));
    assert_eq!(parsed.len(), 2);
    assert_eq!(parsed[1].as_ref().unwrap().payload["task_id"], "t2");

    let parsed = parse_frame(&format!("{a}\nnot json\n{b}"));
    assert_eq!(parsed.len(), 3);
    assert!(parsed[0].is_ok() && parsed[2].is_ok());
    assert_eq!(parsed[1].as_ref().unwrap_err().raw, "not json");

    let pretty = serde_json::to_string_pretty(&fixture(a)).unwrap();
    assert_eq!(parse_frame(&pretty).len(), 1);
    assert!(parse_frame("   ").is_empty());
}

#[test]
fn envelopes_need_a_known_type_and_an_action() {
    for bad in [
        r#"[1,2]"#,
        r#"{"action":"x"}"#,
        r#"{"type":"shout","action":"x"}"#,
        r#"{"type":"request"}"#,
        r#"{"type":"request","action":7}"#,
    ] {
        assert!(parse_frame(bad)[0].is_err(), "{bad}");
    }
    let env = one_envelope(r#"{"id":12,"type":"request","action":"user.subscribe"}"#);
    assert_eq!(env.id.as_deref(), Some("12"));
    assert_eq!(env.payload, Value::Null);
}

#[test]
fn events_survive_a_round_trip_through_notifications() {
    let doc = fixture(REVIEW_WAVE);
    let mut events: Vec<Event> = kandev::from_value(&doc["response"]).unwrap();
    let subagent = match &events[12] {
        Event::MessageAdded(m) => m.clone(),
        other => panic!("{other:?}"),
    };
    assert!(subagent.is_subagent_payload());
    events.push(Event::MessageUpdated(subagent.clone().into()));
    events.push(Event::MessageUpdated(MessagePatch {
        id: "m5".into(),
        content: Some("only the content".into()),
        author: Some(Author::User),
        ..MessagePatch::default()
    }));
    events.push(Event::MessageDeleted { id: "m3".into() });
    events.push(Event::TurnStarted {
        session_id: "s".into(),
        turn_id: "turn-9".into(),
    });
    events.push(Event::TurnCompleted {
        session_id: "s".into(),
        turn_id: "turn-9".into(),
    });
    let mut task = TaskPatch::from_value(&json!({"task_id": "t", "title": "T"})).unwrap();
    events.push(Event::TaskUpdated(task.clone()));
    task.active_subagent_count = Some(Some(3));
    task.state = Some("IN_PROGRESS".into());
    events.push(Event::TaskUpdated(task));
    events.push(Event::TaskDeleted {
        task_id: "t".into(),
    });
    for event in events {
        let env =
            notification_for_event(&event, "2026-08-03T11:00:00Z").expect("has a notification");
        let text = env.to_json();
        let back = one_envelope(&text);
        assert_eq!(
            event_from_notification(&back.action, &back.payload),
            Ok(Some(event))
        );
    }
}

#[test]
fn a_replaced_message_travels_as_an_update_with_every_field() {
    let m = Message::from_value(&json!({"id": "m1", "content": "hi", "turn_id": "t",
        "created_at": "2026-08-03T10:00:00Z", "metadata": {"title": "x"}}))
    .unwrap();
    let env = notification_for_event(&Event::MessageReplaced(m.clone()), "2026-08-03T11:00:00Z")
        .expect("has a notification");
    let back = one_envelope(&env.to_json());
    assert_eq!(back.action, "session.message.updated");
    assert_eq!(
        event_from_notification(&back.action, &back.payload),
        Ok(Some(Event::MessageUpdated(m.into())))
    );
}

#[test]
fn live_message_payload_uses_message_id() {
    let m = Message::from_value(&json!({"id": "m1", "content": "hi"})).unwrap();
    let v = message_payload(&m);
    assert_eq!(v["message_id"], "m1");
    assert!(v.get("id").is_none());
}

#[test]
fn board_fixture_snapshot_round_trips_with_explicit_counts() {
    let doc = fixture(BOARD);
    let snapshot: Snapshot = serde_json::from_value(doc["http_snapshot"].clone()).unwrap();
    assert_eq!(snapshot.tasks.len(), 5);
    let written = serde_json::to_value(&snapshot).unwrap();
    for task in written["tasks"].as_array().unwrap() {
        assert!(task["active_subagent_count"].is_u64(), "{task}");
    }
    let read = crate::board::BoardSnapshot::from_snapshot(&written).unwrap();
    let counts: Vec<_> = read.tasks.iter().map(|t| t.active_subagent_count).collect();
    assert_eq!(counts, [Some(2), Some(1), Some(0), Some(0), Some(12)]);
    assert_eq!(read.steps.len(), 3);
}

#[test]
fn task_notification_payload_is_the_ws_shape() {
    let task = TaskDto {
        id: "t1".into(),
        title: "T".into(),
        ..TaskDto::default()
    };
    let v = task.notification_payload();
    assert_eq!(v["task_id"], "t1");
    assert!(v.get("id").is_none());
    assert_eq!(v["active_subagent_count"], 0);
    assert_eq!(v["foreground_activity"], Value::Null);
    assert_eq!(v["is_ephemeral"], false);
    let http = serde_json::to_value(&task).unwrap();
    assert!(http.get("foreground_activity").is_none());
    assert_eq!(http["active_subagent_count"], 0);
}

#[test]
fn query_strings_are_encoded() {
    let q = MessagesQuery {
        limit: Some(50),
        before: Some("m 1/&".into()),
        after: None,
        sort: Some(SortOrder::Desc),
    };
    assert_eq!(q.to_query_string(), "limit=50&before=m%201%2F%26&sort=desc");
    assert_eq!(MessagesQuery::default().to_query_string(), "");
}

#[test]
fn error_codes_round_trip() {
    for code in ErrorCode::ALL {
        assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
    }
    assert_eq!(ErrorCode::parse("TEAPOT"), None);
    let env = Envelope::error(
        Some("r1".into()),
        "message.list",
        ErrorPayload::new(ErrorCode::NotFound, "no such session"),
        "2026-08-03T11:00:00Z",
    );
    let v: Value = serde_json::from_str(&env.to_json()).unwrap();
    assert_eq!(
        v,
        json!({"id": "r1", "type": "error", "action": "message.list",
               "payload": {"code": "NOT_FOUND", "message": "no such session"},
               "timestamp": "2026-08-03T11:00:00Z"})
    );
}
