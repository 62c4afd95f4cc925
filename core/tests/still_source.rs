//! Time in a file nobody writes any more (docs/behaviour.md §8), through the viewer:
//! a call left `pending` or `in_progress` never reported back, so in a still
//! file it reads `interrupted · no result recorded` without a spinner, where
//! a live source settles it once its turn ends (docs/behaviour.md §3.4).

use taskview_core::model::event::Event;
use taskview_core::screen::view::card::CardView;
use taskview_core::screen::view::message::{MessageView, ToolHead};
use taskview_core::screen::view::roster::{RosterFilter, RosterQuery, RosterRows, RosterSort};
use taskview_core::screen::view::row::RowBody;
use taskview_core::screen::viewer::Viewer;
use taskview_core::state::layout::RowKey;
use taskview_testkit::*;

fn key(id: &str) -> RowKey {
    RowKey::Message(id.into())
}

/// A prompt, a shell call left `pending`, a foreground subagent left
/// `in_progress` after its first child, and the file's newest record.
fn unfinished_session() -> Vec<Event> {
    vec![
        turn_started("t1"),
        added(user("u", 0, "t1", "Build it and review it.")),
        added(
            tool("sh", 1, "t1", "tool_execute")
                .titled("cargo build")
                .status("pending"),
        ),
        added(
            subagent(
                "sa",
                2,
                "t1",
                serde_json::json!({"subagent_type": "code-reviewer",
            "description": "review the parser"}),
            )
            .status("in_progress"),
        ),
        added(child("c1", 3, "t1", "sa").titled("Read parser.rs")),
        added(text("last", 40, Some("t1"), "agent")),
    ]
}

fn shell_head(v: &mut Viewer) -> ToolHead {
    let group = RowKey::Group("sh".into());
    if v.row(&group).and_then(|r| match r.body {
        RowBody::Group(g) => Some(g.expanded),
        _ => None,
    }) == Some(false)
    {
        v.toggle(&group);
    }
    let Some(RowBody::Group(g)) = v.row(&group).map(|r| r.body) else {
        panic!("the shell call is not grouped: {:?}", v.row(&group))
    };
    match g.members[0].view.clone() {
        MessageView::Execute { tool, .. } => tool,
        other => panic!("not a shell row: {other:?}"),
    }
}

fn card(v: &Viewer) -> CardView {
    v.row(&key("sa"))
        .and_then(|r| r.card().cloned())
        .expect("the subagent card")
        .card
}

#[test]
fn a_call_left_pending_or_in_progress_in_a_still_file_reads_interrupted_and_nothing_spins() {
    let mut v = Viewer::new();
    v.set_still(true);
    v.tick(0);
    v.apply(unfinished_session().into_iter().skip(1));
    let shell = shell_head(&mut v);
    assert!(!shell.spins());
    assert_eq!(shell.state_text(), "interrupted · no result recorded");
    let group = v.row(&RowKey::Group("sh".into())).unwrap();
    let RowBody::Group(g) = group.body else {
        panic!("not a group")
    };
    assert!(!g.view.running, "its group does not spin");
    let card = card(&v);
    let mark = card.lifecycle.clone().expect("an interrupted marker");
    assert_eq!(mark.text, "interrupted · no result recorded");
    assert!(!mark.spins());
    assert_eq!(card.now_text, None, "an interrupted run is at nothing now");
    let roster = |v: &mut Viewer, filter| {
        v.roster(RosterQuery::new(filter, RosterSort::Start), RosterRows::ALL)
    };
    let all = roster(&mut v, RosterFilter::All);
    assert_eq!(all.items[0].status_text, "interrupted · no result recorded");
    assert_eq!(roster(&mut v, RosterFilter::Running).listed, 0);
    // The board's chip agrees with the card: not at work.
    let activity = v.subagent_activity();
    assert_eq!(
        (activity.foreground, activity.background, activity.stalled),
        (0, 0, 0)
    );
    assert!(v.drill_down().items.is_empty());
}

#[test]
fn the_same_calls_followed_live_run_in_their_turn_and_settle_when_it_ends() {
    let mut v = Viewer::new();
    v.set_still(false);
    v.tick(0);
    v.apply(unfinished_session());
    assert!(
        shell_head(&mut v).spins(),
        "live, in its active turn, it runs"
    );
    let running = card(&v);
    assert!(running.status.is_running() && running.lifecycle.is_none());
    assert_eq!(running.now_text.as_deref(), Some("now: Read parser.rs"));
    v.apply([turn_completed("t1")]);
    let shell = shell_head(&mut v);
    assert!(
        !shell.spins() && !shell.interrupted,
        "its turn ended: settled"
    );
    let settled = card(&v);
    assert!(!settled.status.is_running() && settled.lifecycle.is_none());
    // The file stops being written: what never reported back says so.
    let update = v.set_still(true);
    assert!(
        update.rows.contains(&key("sa")) && update.rows.contains(&RowKey::Group("sh".into())),
        "both are drawn again: {:?}",
        update.rows
    );
    assert_eq!(shell_head(&mut v).state_name(), "interrupted");
    assert!(card(&v).lifecycle.is_some_and(|m| m.is_interrupted()));
}
