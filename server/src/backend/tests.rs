//! Backend tests: derived activity, diffs, replay, pages. A hub client
//! stands in for a WebSocket and records what was announced.

use super::*;
use crate::backend::hub::Frame;
use std::time::Duration;
use taskview_core::read::protocol::{ErrorCode, MessagesQuery};
use tokio::sync::mpsc;

fn backend_with_session(derive_activity: bool) -> Backend {
    let backend = Backend::default();
    let task = TaskDto {
        id: "t".into(),
        workflow_id: "wf".into(),
        state: task_state::COMPLETED.into(),
        ..TaskDto::default()
    };
    let session = NewSession {
        id: "s".into(),
        state: session_state::WAITING_FOR_INPUT.into(),
        derive_activity,
    };
    backend.add_task(task, Some(session));
    backend
}

fn listen(backend: &Backend) -> mpsc::Receiver<Frame> {
    let (id, rx) = backend.hub().connect();
    backend.hub().subscribe(id, "s");
    rx
}

fn announced(rx: &mut mpsc::Receiver<Frame>) -> Vec<Value> {
    let mut out = Vec::new();
    // One change travels as one frame, its envelopes joined by `\n`.
    while let Ok(frame) = rx.try_recv() {
        for envelope in frame.as_str().split('\n') {
            out.push(serde_json::from_str(envelope).unwrap());
        }
    }
    out
}

fn actions(frames: &[Value]) -> Vec<&str> {
    frames
        .iter()
        .map(|f| f["action"].as_str().unwrap())
        .collect()
}

fn task_counts(frames: &[Value]) -> Vec<u64> {
    frames
        .iter()
        .filter(|f| f["action"] == "task.updated")
        .map(|f| f["payload"]["active_subagent_count"].as_u64().unwrap())
        .collect()
}

fn subagent(id: &str, status: &str) -> Message {
    Message::from_value(&json!({
        "id": id, "turn_id": "turn-1", "type": "tool_call",
        "metadata": {"tool_call_id": format!("toolu_{id}"), "status": status,
            "normalized": {"kind": "subagent_task", "subagent_task": {}}}
    }))
    .unwrap()
}

#[test]
fn the_count_follows_running_subagents_of_the_active_turn() {
    let backend = backend_with_session(true);
    let mut rx = listen(&backend);
    backend.start_turn("s", "turn-1", "2026-08-03T10:00:00Z");
    backend.put_message("s", subagent("a", "pending"));
    backend.put_message("s", subagent("b", "pending"));
    backend.put_message("s", subagent("a", "in_progress"));
    backend.put_message("s", subagent("b", "error"));
    backend.put_message("s", subagent("a", "complete"));
    backend.complete_turn("s", "2026-08-03T10:01:00Z", None);
    let frames = announced(&mut rx);
    assert_eq!(task_counts(&frames), [0, 1, 2, 1, 0, 0]);
    assert_eq!(backend.task("t").unwrap().active_subagent_count, 0);
    let session = backend.session("s").unwrap();
    assert_eq!(session.state, session_state::WAITING_FOR_INPUT);
    assert_eq!(session.message_count, 2);
    assert_eq!(
        &actions(&frames)[..3],
        [
            "session.turn.started",
            "session.state_changed",
            "session.activity_changed"
        ]
    );
    assert_eq!(
        frames.last().unwrap()["payload"]["primary_session_state"],
        "WAITING_FOR_INPUT"
    );
}

#[test]
fn a_deriving_task_is_in_progress_while_its_turn_is_active_or_a_subagent_runs() {
    let backend = backend_with_session(true);
    let state = || {
        let task = backend.task("t").unwrap();
        (task.state, task.foreground_activity)
    };
    assert_eq!(state(), ("COMPLETED".into(), None));
    backend.start_turn("s", "turn-1", "x");
    assert_eq!(state(), ("IN_PROGRESS".into(), Some("generating".into())));
    let mut launched = subagent("bg", "in_progress");
    launched.metadata.subagent.as_mut().unwrap().status = "async_launched".into();
    backend.put_message("s", launched);
    backend.complete_turn("s", "y", None);
    // The turn ended; the background subagent still runs.
    assert_eq!(state(), ("IN_PROGRESS".into(), Some("background".into())));
    let mut done = subagent("bg", "complete");
    done.metadata.subagent.as_mut().unwrap().status = "completed".into();
    backend.put_message("s", done);
    // Its end wakes the agent (a notification follows): held until the
    // session's files are read once more.
    assert_eq!(state(), ("IN_PROGRESS".into(), None));
    backend.release_settle_holds(Duration::ZERO);
    assert_eq!(state(), ("COMPLETED".into(), None));
}

#[test]
fn a_task_whose_last_background_subagent_ends_stays_in_progress_until_its_agent_wakes() {
    let backend = backend_with_session(true);
    backend.start_turn("s", "turn-1", "x");
    let mut launched = subagent("bg", "in_progress");
    launched.metadata.subagent.as_mut().unwrap().status = "async_launched".into();
    backend.put_message("s", launched);
    backend.complete_turn("s", "y", None);
    let mut rx = listen(&backend);
    let mut done = subagent("bg", "complete");
    done.metadata.subagent.as_mut().unwrap().status = "completed".into();
    backend.put_message("s", done);
    // Too soon to let go: the notification has not been read yet.
    backend.release_settle_holds(Duration::from_secs(60));
    backend.start_turn("s", "turn-2", "z");
    backend.complete_turn("s", "w", None);
    let states: Vec<String> = announced(&mut rx)
        .iter()
        .filter(|f| f["action"] == "task.updated")
        .map(|f| {
            f["payload"]["state"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let settled_at = states.iter().position(|s| s == "COMPLETED");
    assert_eq!(
        settled_at,
        Some(states.len() - 1),
        "settled only once the woken turn ended: {states:?}"
    );
}

#[test]
fn a_new_turn_ends_the_active_one_without_resting_between() {
    let backend = backend_with_session(true);
    backend.start_turn("s", "turn-1", "x");
    let mut rx = listen(&backend);
    backend.start_turn("s", "turn-2", "y");
    let frames = announced(&mut rx);
    assert!(
        frames.iter().all(|f| f["payload"]["state"] != "COMPLETED"),
        "{frames:?}"
    );
    let turns = backend.turns("s").unwrap();
    assert_eq!(turns.turns[0].completed_at.as_deref(), Some("y"));
    assert_eq!(turns.turns[1].completed_at, None);
}

#[test]
fn completing_the_turn_settles_what_is_still_running() {
    let backend = backend_with_session(true);
    backend.start_turn("s", "turn-1", "x");
    backend.put_message("s", subagent("a", "in_progress"));
    assert_eq!(backend.task("t").unwrap().active_subagent_count, 1);
    backend.complete_turn("s", "y", None);
    assert_eq!(backend.task("t").unwrap().active_subagent_count, 0);
    let turns = backend.turns("s").unwrap();
    assert_eq!(turns.turns[0].completed_at.as_deref(), Some("y"));
}

#[test]
fn message_events_carry_message_id_and_their_session() {
    let backend = backend_with_session(true);
    let mut rx = listen(&backend);
    backend.put_message("s", subagent("a", "pending"));
    backend.put_message("s", subagent("a", "complete"));
    let frames = announced(&mut rx);
    assert_eq!(
        actions(&frames),
        ["session.message.added", "session.message.updated"]
    );
    for f in &frames {
        assert_eq!(f["payload"]["message_id"], "a");
        assert_eq!(f["payload"]["session_id"], "s");
        assert_eq!(f["payload"]["task_id"], "t");
    }
    assert!(!backend.put_message("nope", subagent("x", "pending")));
}

#[test]
fn sync_announces_only_the_difference() {
    let backend = backend_with_session(true);
    let text = |id: &str, content: &str| {
        Message::from_value(&json!({"id": id, "content": content})).unwrap()
    };
    backend.sync_messages("s", vec![text("a", "1"), text("b", "1"), text("c", "1")]);
    let mut rx = listen(&backend);
    backend.sync_messages("s", vec![text("a", "1"), text("c", "2"), text("d", "1")]);
    let frames = announced(&mut rx);
    let summary: Vec<(String, String)> = frames
        .iter()
        .map(|f| {
            let id = f["payload"]["message_id"].as_str().unwrap().to_string();
            (f["action"].as_str().unwrap().to_string(), id)
        })
        .collect();
    let expected = [
        ("session.message.deleted", "b"),
        ("session.message.updated", "c"),
        ("session.message.added", "d"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(summary, expected);
    assert_eq!(backend.message_ids("s").unwrap(), ["a", "c", "d"]);
}

#[test]
fn replay_applies_frames_verbatim_and_keeps_an_absent_count() {
    let backend = backend_with_session(false);
    let mut rx = listen(&backend);
    let note = |action: &str, payload: Value| Envelope::notification(action, payload, "ts");
    backend.replay(&note(
        "task.updated",
        json!({"task_id": "t", "active_subagent_count": 2, "title": "T", "foreground_activity": "generating", "surprise": 1}),
    ));
    backend.replay(&note(
        "task.updated",
        json!({"task_id": "t", "title": "T2"}),
    ));
    backend.replay(&note(
        "session.message.added",
        json!({"message_id": "w-A", "session_id": "s", "type": "tool_call"}),
    ));
    backend.replay(&note(
        "session.turn.started",
        json!({"id": "turn-2", "session_id": "s", "task_id": "t", "started_at": "x"}),
    ));
    let task = backend.task("t").unwrap();
    assert_eq!((task.title.as_str(), task.active_subagent_count), ("T2", 2));
    assert_eq!(task.foreground_activity.as_deref(), Some("generating"));
    assert_eq!(backend.message_ids("s").unwrap(), ["w-A"]);
    assert_eq!(backend.active_turn("s").as_deref(), Some("turn-2"));
    // Replayed frames are announced as they are, with no derived extras.
    let frames = announced(&mut rx);
    assert_eq!(
        actions(&frames),
        [
            "task.updated",
            "task.updated",
            "session.message.added",
            "session.turn.started"
        ]
    );
    assert_eq!(frames[1]["payload"], json!({"task_id": "t", "title": "T2"}));
}

#[test]
fn clearing_a_session_announces_each_deletion() {
    let backend = backend_with_session(true);
    backend.put_message("s", subagent("a", "complete"));
    backend.put_message("s", subagent("b", "complete"));
    let mut rx = listen(&backend);
    backend.clear_session("s");
    let frames = announced(&mut rx);
    assert_eq!(
        actions(&frames),
        ["session.message.deleted", "session.message.deleted"]
    );
    assert!(backend.message_ids("s").unwrap().is_empty());
}

#[test]
fn pages_report_unknown_sessions_and_cursors_as_not_found() {
    let backend = backend_with_session(true);
    backend.put_message("s", subagent("a", "complete"));
    let query = MessagesQuery::default();
    let err = backend.messages_page("nope", &query).unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::NotFound));
    let query = MessagesQuery {
        after: Some("zz".into()),
        ..MessagesQuery::default()
    };
    let err = backend.messages_page("s", &query).unwrap_err();
    assert!(err.message.contains("zz"));
    let page = backend
        .messages_page("s", &MessagesQuery::default())
        .unwrap();
    assert_eq!(
        (page.total, page.has_more, page.cursor.as_deref()),
        (1, false, Some("a"))
    );
}

#[test]
fn snapshots_order_tasks_by_column_then_position() {
    let backend = Backend::default();
    let step = |id: &str, position| StepDto {
        id: id.into(),
        workflow_id: "wf".into(),
        position,
        ..StepDto::default()
    };
    let workflow = WorkflowDto {
        id: "wf".into(),
        workspace_id: "ws".into(),
        ..WorkflowDto::default()
    };
    backend.add_workflow(workflow, vec![step("late", 1), step("early", 0)]);
    for (id, step, position) in [("x", "late", 0), ("y", "early", 1), ("z", "early", 0)] {
        let task = TaskDto {
            id: id.into(),
            workflow_id: "wf".into(),
            workflow_step_id: step.into(),
            position,
            ..TaskDto::default()
        };
        backend.add_task(task, None);
    }
    let snapshot = backend.snapshot("wf").unwrap();
    let steps: Vec<&str> = snapshot.steps.iter().map(|s| s.id.as_str()).collect();
    let tasks: Vec<&str> = snapshot.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(steps, ["early", "late"]);
    assert_eq!(tasks, ["z", "y", "x"]);
    assert!(backend.snapshot("nope").is_none());
    assert_eq!(backend.workflows(Some("ws")).total, 1);
    assert_eq!(backend.workflows(Some("other")).total, 0);
}

#[test]
fn trimming_keeps_the_newest_turns_and_announces_the_rest() {
    let backend = backend_with_session(true);
    for turn in 1..=3 {
        let turn_id = format!("turn-{turn}");
        backend.start_turn("s", &turn_id, "x");
        for n in 0..2 {
            let m =
                Message::from_value(&json!({"id": format!("{turn_id}-{n}"), "turn_id": turn_id}));
            backend.put_message("s", m.unwrap());
        }
        backend.complete_turn("s", "y", None);
    }
    let loose = Message::from_value(&json!({"id": "no-turn"})).unwrap();
    backend.put_message("s", loose);
    let mut rx = listen(&backend);
    backend.trim_turns("s", 2);
    let frames = announced(&mut rx);
    assert_eq!(
        actions(&frames),
        ["session.message.deleted", "session.message.deleted"]
    );
    assert_eq!(
        backend.message_ids("s").unwrap(),
        ["turn-2-0", "turn-2-1", "turn-3-0", "turn-3-1", "no-turn"]
    );
    assert_eq!(backend.turns("s").unwrap().total, 2);
    let page = backend
        .messages_page(
            "s",
            &MessagesQuery {
                after: Some("turn-2-1".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(page.total, 3);
    backend.trim_turns("s", 2);
    assert!(announced(&mut rx).is_empty());
}
