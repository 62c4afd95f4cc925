use super::*;
use crate::model::board::{BoardSnapshot, TaskPatch};
use serde_json::json;

fn added(v: serde_json::Value) -> Event {
    Event::MessageAdded(Message::from_value(&v).unwrap())
}

fn updated(v: serde_json::Value) -> Event {
    Event::MessageUpdated(MessagePatch::from_value(&v).unwrap())
}

fn ids(store: &Store) -> Vec<String> {
    store
        .entries()
        .map(|(_, e)| match e {
            EntryId::Message(id) => id.clone(),
            EntryId::Unreadable(_) => "?".into(),
        })
        .collect()
}

#[test]
fn messages_are_ordered_by_created_at_whatever_the_arrival_order() {
    let mut s = Store::new();
    s.apply(added(
        json!({"id": "b", "created_at": "2026-08-03T10:00:02Z"}),
    ));
    s.apply(added(
        json!({"id": "a", "created_at": "2026-08-03T10:00:01Z"}),
    ));
    s.apply(added(
        json!({"id": "c", "created_at": "2026-08-03T10:00:03Z"}),
    ));
    assert_eq!(ids(&s), ["a", "b", "c"]);
}

#[test]
fn opening_another_transcript_forgets_messages_but_keeps_boards_and_turns() {
    let mut s = Store::new();
    s.apply(added(json!({"id": "a"})));
    s.apply(Event::TurnStarted {
        session_id: "s".into(),
        turn_id: "t".into(),
    });
    s.apply(Event::TaskUpdated(
        crate::model::board::TaskPatch::from_value(&json!({"task_id": "k"})).unwrap(),
    ));
    let c = s.apply(Event::TranscriptOpened {
        session_id: Some("s".into()),
    });
    assert!(c.reset);
    assert!(s.is_empty() && s.message("a").is_none());
    assert_eq!(s.active_turn("s"), Some("t"));
    assert!(s.boards().task("k").is_some());
    s.apply(added(json!({"id": "a"})));
    assert_eq!(ids(&s), ["a"]);
}

#[test]
fn messages_without_created_at_keep_arrival_order() {
    let mut s = Store::new();
    for id in ["m2", "m10", "m1"] {
        s.apply(added(json!({ "id": id })));
    }
    s.apply(Event::Unreadable {
        raw: "17".into(),
        error: "e".into(),
    });
    assert_eq!(ids(&s), ["m2", "m10", "m1", "?"]);
}

#[test]
fn update_for_an_unknown_id_creates_the_message() {
    let mut s = Store::new();
    let c = s.apply(updated(json!({"message_id": "x", "content": "hi"})));
    assert_eq!(c.entries, [EntryId::Message("x".into())]);
    assert_eq!(s.message("x").unwrap().content, "hi");
}

#[test]
fn deleted_removes_and_a_late_event_does_not_resurrect() {
    let mut s = Store::new();
    s.apply(added(
        json!({"id": "x", "metadata": {"parent_tool_call_id": "p"}}),
    ));
    s.apply(Event::MessageDeleted { id: "x".into() });
    assert!(s.message("x").is_none());
    assert!(s.children_of("p").is_empty());
    assert!(s
        .apply(updated(json!({"id": "x", "content": "late"})))
        .is_empty());
    assert!(s.is_empty());
}

#[test]
fn an_event_that_changes_nothing_reports_nothing() {
    let mut s = Store::new();
    let v = json!({"id": "x", "content": "c", "updated_at": "2026-08-03T10:00:00Z"});
    s.apply(added(v.clone()));
    assert!(s.apply(added(v)).is_empty());
}

#[test]
fn children_index_follows_parent_changes() {
    let mut s = Store::new();
    s.apply(added(
        json!({"id": "c", "metadata": {"parent_tool_call_id": "p1"}}),
    ));
    s.apply(updated(
        json!({"id": "c", "metadata": {"parent_tool_call_id": "p2"}}),
    ));
    assert!(s.children_of("p1").is_empty());
    assert_eq!(s.children_of("p2"), ["c"]);
}

#[test]
fn tool_owner_is_the_first_tool_message_with_that_id() {
    let mut s = Store::new();
    s.apply(added(json!({"id": "perm", "type": "permission_request",
        "created_at": "2026-08-03T10:00:00Z", "metadata": {"tool_call_id": "t"}})));
    s.apply(added(json!({"id": "late", "type": "tool_call",
        "created_at": "2026-08-03T10:00:09Z", "metadata": {"tool_call_id": "t"}})));
    s.apply(added(json!({"id": "early", "type": "tool_read",
        "created_at": "2026-08-03T10:00:01Z", "metadata": {"tool_call_id": "t"}})));
    assert_eq!(s.tool_owner("t"), Some("early"));
}

#[test]
fn active_turn_follows_started_and_completed_and_ignores_a_late_start() {
    let mut s = Store::new();
    let start = |t: &str| Event::TurnStarted {
        session_id: "s".into(),
        turn_id: t.into(),
    };
    let done = |t: &str| Event::TurnCompleted {
        session_id: "s".into(),
        turn_id: t.into(),
    };
    s.apply(start("t1"));
    assert_eq!(s.active_turn("s"), Some("t1"));
    s.apply(done("t1"));
    assert_eq!(s.active_turn("s"), None);
    s.apply(done("t2"));
    assert!(s.apply(start("t2")).is_empty());
    assert_eq!(s.active_turn("s"), None);
}

#[test]
fn while_a_session_is_open_message_events_of_other_sessions_are_ignored() {
    let mut s = Store::new();
    s.apply(Event::TranscriptOpened {
        session_id: Some("s".into()),
    });
    assert!(s
        .apply(added(json!({"id": "x", "session_id": "other"})))
        .is_empty());
    assert!(s
        .apply(updated(json!({"message_id": "y", "session_id": "other"})))
        .is_empty());
    s.apply(added(json!({"id": "a", "session_id": "s"})));
    s.apply(updated(
        json!({"message_id": "b", "content": "no session named"}),
    ));
    assert_eq!(ids(&s), ["a", "b"]);
    assert_eq!(s.open_session(), Some("s"));
}

#[test]
fn reopening_the_open_session_keeps_it_and_a_static_source_always_starts_afresh() {
    let mut s = Store::new();
    let open = |id: Option<&str>| Event::TranscriptOpened {
        session_id: id.map(str::to_string),
    };
    s.apply(open(Some("s")));
    s.apply(added(json!({"id": "a", "session_id": "s"})));
    assert!(s.apply(open(Some("s"))).is_empty());
    assert_eq!(ids(&s), ["a"]);
    s.apply(added(json!({"id": "f"})));
    assert!(s.apply(open(None)).reset);
    assert!(s.is_empty());
    s.apply(added(json!({"id": "f", "session_id": "any"})));
    assert!(
        s.apply(open(None)).reset,
        "a second file replaces the first"
    );
    assert!(s.is_empty() && s.open_session().is_none());
}

fn count_patch(count: u64) -> Event {
    Event::TaskUpdated(
        TaskPatch::from_value(
            &json!({"task_id": "t", "workflow_id": "wf", "active_subagent_count": count}),
        )
        .unwrap(),
    )
}

fn snapshot_with_count(count: u64) -> Event {
    Event::BoardLoaded(
        BoardSnapshot::from_snapshot(&json!({
            "workflow": {"id": "wf"}, "steps": [],
            "tasks": [{"id": "t", "workflow_id": "wf", "active_subagent_count": count}]
        }))
        .unwrap(),
    )
}

fn count(s: &Store) -> Option<u64> {
    s.boards().task("t").and_then(|t| t.active_subagent_count)
}

#[test]
fn task_events_during_a_snapshot_win_over_the_older_snapshot() {
    let mut s = Store::new();
    s.apply(count_patch(5));
    s.apply(Event::BoardRequested {
        workflow_id: "wf".into(),
    });
    s.apply(count_patch(1));
    assert_eq!(count(&s), Some(1), "applied at once too");
    s.apply(snapshot_with_count(2));
    assert_eq!(count(&s), Some(1), "the snapshot's older 2 does not win");
    s.apply(count_patch(7));
    s.apply(snapshot_with_count(2));
    assert_eq!(
        count(&s),
        Some(2),
        "nothing is held once the snapshot arrived"
    );
}

#[test]
fn a_failed_snapshot_request_holds_nothing() {
    let mut s = Store::new();
    s.apply(Event::BoardRequested {
        workflow_id: "wf".into(),
    });
    s.apply(count_patch(3));
    s.apply(Event::BoardRequestFailed {
        workflow_id: "wf".into(),
    });
    s.apply(snapshot_with_count(2));
    assert_eq!(count(&s), Some(2));
}

#[test]
fn records_not_shown_are_counted_by_kind_add_no_row_and_go_with_the_transcript() {
    let mut s = Store::new();
    let not_shown = |kind: &str, count| Event::NotShown {
        kind: kind.into(),
        count,
    };
    let c = s.apply_all([
        not_shown("api-request", 3),
        added(json!({"id": "a"})),
        not_shown("atis-latch", 1),
        not_shown("api-request", 2),
    ]);
    assert_eq!(c.entries, [EntryId::Message("a".into())]);
    assert_eq!(ids(&s), ["a"]);
    let counts: Vec<(&str, u64)> = s
        .not_shown()
        .iter()
        .map(|(k, n)| (k.as_str(), *n))
        .collect();
    assert_eq!(counts, [("api-request", 5), ("atis-latch", 1)]);
    s.apply(Event::TranscriptOpened { session_id: None });
    assert!(s.not_shown().is_empty());
}

#[test]
fn a_replaced_message_takes_back_what_a_merge_never_would_in_its_position() {
    let mut s = Store::new();
    let card = |fork: bool, result: &str, parent: Option<&str>| {
        Message::from_value(&json!({
            "id": "card", "type": "tool_call", "created_at": "2026-08-03T10:00:01Z",
            "updated_at": "2026-08-03T10:00:01Z",
            "metadata": {"tool_call_id": "t1", "parent_tool_call_id": parent,
                "normalized": {"kind": "subagent_task",
                    "subagent_task": {"is_fork": fork, "result_text": result}}}
        }))
        .unwrap()
    };
    s.apply(added(
        json!({"id": "a", "created_at": "2026-08-03T10:00:01Z"}),
    ));
    s.apply(Event::MessageAdded(card(true, "placeholder", Some("p1"))));
    s.apply(added(
        json!({"id": "z", "created_at": "2026-08-03T10:00:01Z"}),
    ));
    let wanted = card(false, "", None);
    let changes = s.apply(Event::MessageReplaced(wanted.clone()));
    assert_eq!(changes.entries, [EntryId::Message("card".into())]);
    assert_eq!(s.message("card"), Some(&wanted));
    assert_eq!(ids(&s), ["a", "card", "z"]);
    assert!(s.children_of("p1").is_empty());
    assert!(s.apply(Event::MessageReplaced(wanted)).is_empty());
    s.apply(Event::MessageDeleted { id: "card".into() });
    s.apply(Event::MessageReplaced(card(true, "", None)));
    assert_eq!(s.message("card"), None, "a deleted id stays deleted");
    let fresh = card(true, "", None);
    let fresh = Message {
        id: "new".into(),
        ..fresh
    };
    s.apply(Event::MessageReplaced(fresh.clone()));
    assert_eq!(s.message("new"), Some(&fresh), "an unknown id is added");
}

/// `workflow.updated` as a notification, the way a live board receives it.
fn notice(text: Option<&str>) -> Event {
    crate::read::protocol::event_from_notification(
        crate::read::protocol::action::WORKFLOW_UPDATED,
        &json!({ "workflow_id": "wf", "notice": text }),
    )
    .unwrap()
    .unwrap()
}

#[test]
fn a_team_board_says_its_store_is_unreachable_until_it_is_back() {
    // docs/behaviour.md §7 "A team's board": a reader whose store cannot be read says so.
    let mut s = Store::new();
    let loaded = BoardSnapshot::from_snapshot(&json!({
        "workflow": {"id": "wf", "name": "Team board", "notice": "store unreachable"},
        "steps": [], "tasks": []
    }))
    .unwrap();
    s.apply(Event::BoardLoaded(loaded));
    let said = |s: &Store| s.boards().workflow("wf").unwrap().notice.clone();
    assert_eq!(
        said(&s).as_deref(),
        Some("store unreachable"),
        "from the snapshot"
    );
    let changes = s.apply(notice(None));
    assert_eq!(said(&s), None, "cleared when the store is back");
    assert_eq!(changes.workflows, ["wf"], "the board is told");
    s.apply(Event::BoardRequested {
        workflow_id: "wf".into(),
    });
    s.apply(notice(Some("store unreachable")));
    s.apply(snapshot_with_count(1));
    assert_eq!(
        said(&s).as_deref(),
        Some("store unreachable"),
        "a notice during a snapshot wins over the older snapshot"
    );
    assert!(s
        .apply(notice(Some("store unreachable")))
        .workflows
        .is_empty());
}
