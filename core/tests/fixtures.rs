//! The kandev fixtures load, lay out and replay as docs/behaviour.md says.

use serde_json::Value;
use taskview_core::model::board::BoardSnapshot;
use taskview_core::model::event::Event;
use taskview_core::model::status::RunState;
use taskview_core::screen::view::board::board_view;
use taskview_core::state::layout::RowKind;
use taskview_testkit::*;

#[test]
fn review_wave_fixture_lays_out_per_spec_without_unreadable_rows() {
    let s = Session::with(kandev_events("session-review-wave.json"));
    assert_eq!(
        s.outline(),
        [
            "msg:m001",
            "group:2 tool calls · 1 thought",
            "msg:m005",
            "msg:m006",
            "msg:m007",
            "msg:m008",
            "group:4 tool calls",
            "card:m013",
            "  msg:m015",
            "  msg:m017",
            "  msg:m019",
            "card:m014",
            "  msg:m016",
            "  msg:m018",
            "msg:m020",
        ]
    );
    s.assert_matches_full_layout();
    let reviewer = s.card("m013");
    assert_eq!(reviewer.type_label, "code-reviewer");
    assert_eq!(
        reviewer.description.as_deref(),
        Some("pass over the closure diff")
    );
    assert_eq!(reviewer.child_count_label.as_deref(), Some("3 tool calls"));
    assert_eq!(
        reviewer.result_summary.as_deref(),
        Some("VERDICT: REQUEST_CHANGES")
    );
    let chips: Vec<(&str, &str)> = reviewer
        .chips
        .iter()
        .map(|c| (c.id, c.text.as_str()))
        .collect();
    assert_eq!(
        chips,
        [
            ("duration", "4m 03s"),
            ("tokens", "48.2k tokens"),
            ("model", "claude-opus-4-8[1m]")
        ]
    );
    let supervisor = s.card("m014");
    assert_eq!(
        supervisor.description.as_deref(),
        Some("review of new invariant tests")
    );
    assert_eq!(supervisor.result_summary.as_deref(), Some("APPROVE"));
    let tools = supervisor
        .chips
        .iter()
        .find(|c| c.id == "tools")
        .map(|c| c.text.as_str());
    assert_eq!(tools, Some("5 tools"));
}

#[test]
fn every_fixture_message_list_and_notification_lays_out_without_unreadable_rows() {
    let envelopes = fixture_json("ws-protocol-envelopes.json");
    let frames = envelopes["server_notifications"].as_array().unwrap();
    let lifecycle = fixture_json("ws-subagent-lifecycle-events.json");
    let steps = lifecycle["steps"].as_array().unwrap();
    let mut s = Session::with(kandev_events("session-review-wave.json"));
    for f in frames.iter().chain(steps.iter()).map(|x| &x["frame"]) {
        if let Some(e) = frame_event(f) {
            s.apply(e);
        }
    }
    assert!(s
        .layout
        .outline()
        .iter()
        .all(|r| r.kind != RowKind::Unreadable));
    s.assert_matches_full_layout();
}

fn board_count(s: &Session, task: &str) -> u64 {
    board_view(&s.store, "wf-1")
        .unwrap()
        .columns
        .iter()
        .flat_map(|c| &c.cards)
        .find(|c| c.task_id == task)
        .and_then(|c| c.subagent_chip.as_ref())
        .map_or(0, |c| c.count)
}

/// (running?, expanded?, summary) of a card after a frame.
fn face(s: &Session, id: &str) -> (bool, bool, Option<String>) {
    let c = s.card(id);
    let running = c.status == RunState::Running;
    (running, c.expanded(None), c.result_summary.clone())
}

#[test]
fn lifecycle_replay_moves_board_count_0_2_2_1_0_with_matching_card_states() {
    let v = fixture_json("ws-subagent-lifecycle-events.json");
    let mut s = Session::default();
    let mut counts = Vec::new();
    let mut faces = Vec::new();
    for step in v["steps"].as_array().unwrap() {
        let frame = &step["frame"];
        let Some(e) = frame_event(frame) else {
            continue;
        };
        let is_task = matches!(e, Event::TaskUpdated(_));
        s.apply(e);
        if is_task {
            counts.push(board_count(&s, "task-7c1e"));
        }
        if s.store.message("w-A").is_some() && s.store.message("w-B").is_some() {
            faces.push((
                frame["action"].as_str().unwrap_or("").to_string(),
                face(&s, "w-A"),
                face(&s, "w-B"),
            ));
        }
    }
    assert_eq!(counts, [0, 2, 2, 1, 0, 0]);
    let running = |f: &(bool, bool, Option<String>)| f.0;
    // Both run from their first frame (pending during the active turn) …
    assert!(faces
        .first()
        .is_some_and(|(_, a, b)| running(a) && running(b)));
    // … B settles first with its summary, collapsed, while A still runs open.
    let b_done = faces.iter().find(|(_, _, b)| !running(b)).unwrap();
    assert!(running(&b_done.1) && b_done.1 .1);
    assert_eq!(b_done.2, (false, false, Some("APPROVE".to_string())));
    // At the end both are settled and collapsed with their summaries.
    let (_, a, b) = faces.last().unwrap();
    assert_eq!(
        a,
        &(false, false, Some("VERDICT: REQUEST_CHANGES".to_string()))
    );
    assert_eq!(b, &(false, false, Some("APPROVE".to_string())));
    assert_eq!(
        s.card("w-A").child_count_label.as_deref(),
        Some("1 tool call")
    );
    // tool_use_count 1 equals the single child: no tools chip.
    assert!(s.card("w-A").chips.iter().all(|c| c.id != "tools"));
    assert_eq!(s.outline(), ["card:w-A", "  msg:w-A1", "card:w-B"]);
}

#[test]
fn board_snapshot_gives_chips_2_1_none_none_12_and_boot_payload_none() {
    let v = fixture_json("board-snapshot-and-boot.json");
    let mut s = Session::default();
    s.apply(Event::BoardLoaded(
        BoardSnapshot::from_snapshot(&v["http_snapshot"]).unwrap(),
    ));
    let board = board_view(&s.store, "wf-1").unwrap();
    let columns: Vec<(&str, usize)> = board
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.task_count))
        .collect();
    assert_eq!(columns, [("Todo", 1), ("In Progress", 3), ("Review", 1)]);
    let chips: Vec<(String, Option<String>)> = board
        .columns
        .iter()
        .flat_map(|c| &c.cards)
        .map(|c| {
            (
                c.task_id.clone(),
                c.subagent_chip.as_ref().map(|x| x.label.clone()),
            )
        })
        .collect();
    let label = |s: &str| Some(s.to_string());
    assert_eq!(
        chips,
        [
            ("task-new".into(), None),
            ("task-wave".into(), label("2 subagents running")),
            ("task-bg".into(), label("1 subagent running")),
            ("task-many".into(), label("12 subagents running")),
            ("task-idle".into(), None),
        ]
    );
    let mut boot = Session::default();
    boot.apply(Event::BoardLoaded(
        BoardSnapshot::from_boot_payload(&v["boot_payload"]).unwrap(),
    ));
    let board = board_view(&boot.store, "wf-1").unwrap();
    assert_eq!(
        board.columns.iter().map(|c| c.cards.len()).sum::<usize>(),
        5
    );
    assert!(board
        .columns
        .iter()
        .flat_map(|c| &c.cards)
        .all(|c| c.subagent_chip.is_none()));
}

#[test]
fn boot_payload_count_is_read_in_camel_case_when_present() {
    let v: Value = serde_json::json!({"initialState": {"kanban": {"workflowId": "wf",
        "steps": [{"id": "s", "title": "Todo", "position": 0}],
        "tasks": [{"id": "t", "workflowStepId": "s", "activeSubagentCount": 3}]}}});
    let mut s = Session::default();
    s.apply(Event::BoardLoaded(
        BoardSnapshot::from_boot_payload(&v).unwrap(),
    ));
    let chip = board_view(&s.store, "wf").unwrap().columns[0].cards[0]
        .subagent_chip
        .clone();
    assert_eq!(chip.map(|c| c.label), Some("3 subagents running".into()));
}
