//! The Timeline as the viewer draws it: where runs lie, what they say and
//! where their time went (`live`: kept up to date while it is open).

use super::*;
use crate::model::event::Event;
use crate::model::message::Message;
use crate::screen::view::timeline::{
    geometry::clock_offset, query::TimelineMove, snapshot::RunRecord, ROW_PX,
};
use crate::state::activity::Millis;
use serde_json::{json, Value};

mod live;

const S: i64 = 1_000;

/// `2026-08-03T10:00:00Z` plus `s` seconds (negative: before).
fn at(s: i64) -> String {
    let t = 10 * 3600 + s;
    format!(
        "2026-08-03T{:02}:{:02}:{:02}Z",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

/// The epoch milliseconds of [`at`].
fn ms(s: i64) -> i64 {
    crate::model::time::parse_millis(&at(s)).unwrap()
}

fn added(v: Value) -> Event {
    Event::MessageAdded(Message::from_value(&v).unwrap())
}

fn text(id: &str, s: i64, author: &str, parent: Option<&str>) -> Event {
    let mut v = json!({"id": id, "session_id": "s", "turn_id": "t1", "author_type": author,
        "content": format!("text {id}"), "created_at": at(s), "updated_at": at(s),
        "metadata": {}});
    if let Some(p) = parent {
        v["metadata"]["parent_tool_call_id"] = json!(format!("tc-{p}"));
    }
    added(v)
}

/// Subagent `id` launched at `s` (under `parent`), with payload `sa`.
fn run(id: &str, s: i64, parent: Option<&str>, status: &str, sa: Value) -> Event {
    let mut v = json!({"id": id, "session_id": "s", "turn_id": "t1", "type": "tool_call",
        "created_at": at(s), "updated_at": at(s),
        "metadata": {"tool_call_id": format!("tc-{id}"), "status": status, "title": id,
            "normalized": {"kind": "subagent_task", "subagent_task": sa}}});
    if let Some(p) = parent {
        v["metadata"]["parent_tool_call_id"] = json!(format!("tc-{p}"));
    }
    added(v)
}

fn done(id: &str, s: i64, parent: Option<&str>, secs: u64) -> Event {
    run(
        id,
        s,
        parent,
        "complete",
        json!({"subagent_type": "code-reviewer", "description": format!("pass {id}"),
            "status": "completed", "duration_ms": secs * 1000, "total_tokens": 1000,
            "result_text": "Done"}),
    )
}

fn child(id: &str, s: i64, parent: &str) -> Event {
    added(
        json!({"id": id, "session_id": "s", "turn_id": "t1", "type": "tool_read",
        "created_at": at(s), "updated_at": at(s), "content": format!("needle {id}"),
        "metadata": {"tool_call_id": format!("tc-{id}"), "status": "complete",
            "parent_tool_call_id": format!("tc-{parent}")}}),
    )
}

fn record<'a>(snap: &'a TimelineSnapshot, id: &str) -> &'a RunRecord {
    snap.runs.iter().find(|r| r.id == id).expect(id)
}

/// A turn: two reviewers in parallel (60 s and 30 s), then a third alone.
fn wave() -> Viewer {
    let mut v = Viewer::new();
    v.apply([
        text("u", 0, "user", None),
        done("a", 1, None, 60),
        done("b", 1, None, 30),
        child("a-1", 5, "a"),
        child("b-1", 6, "b"),
        done("c", 70, None, 20),
        text("reply", 95, "agent", None),
    ]);
    v
}

#[test]
fn two_parallel_runs_and_one_serial_lie_on_one_axis_in_launch_order() {
    let mut v = wave();
    let snap = v.timeline_snapshot();
    let lanes: Vec<(&str, usize, i64, Option<i64>)> = snap
        .runs
        .iter()
        .map(|r| {
            (
                r.id.as_str(),
                r.lane,
                r.start_ms - ms(0),
                r.end_ms.map(|e| e - ms(0)),
            )
        })
        .collect();
    assert_eq!(
        lanes,
        [
            ("a", 0, S, Some(61 * S)),
            ("b", 1, S, Some(31 * S)),
            ("c", 2, 70 * S, Some(90 * S))
        ]
    );
    assert_eq!(snap.peak, 2, "two ran at once");
    // The bars are as long as the runs, on the axis of the whole turn.
    let view = v.timeline(&TimelineQuery {
        width: 950,
        ..TimelineQuery::default()
    });
    assert_eq!(view.bounds, (ms(0), ms(95)));
    let bar = |id: &str| {
        view.lanes
            .iter()
            .flat_map(|l| &l.bars)
            .find(|b| b.id == id)
            .map(|b| (b.x, b.w))
            .unwrap()
    };
    assert_eq!(bar("a"), (10, 600));
    assert_eq!(bar("b"), (10, 300));
    assert_eq!(bar("c"), (700, 200));
    assert_eq!(view.lanes[1].top, ROW_PX as i32);
    assert_eq!(view.heading, "3 runs · at most 2 at once");
}

#[test]
fn the_critical_path_of_a_fan_in_is_the_run_that_ended_last_in_each_wave() {
    let mut v = wave();
    let snap = v.timeline_snapshot();
    let critical: Vec<&str> = snap
        .runs
        .iter()
        .filter(|r| r.critical)
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(critical, ["a", "c"]);
    let table = v.timeline_table(0);
    let row = |id: &str| {
        table
            .rows
            .iter()
            .find(|r| r.id == id)
            .unwrap()
            .critical
            .clone()
    };
    assert_eq!(row("a"), "yes, held its parent 30.0s");
    assert_eq!(row("b"), "no");
    assert_eq!(row("c"), "yes, held its parent 20.0s");
    let view = v.timeline(&TimelineQuery::default());
    assert_eq!(view.turns_path.matches('z').count(), 1, "one turn");
    assert_eq!(
        view.waits_path.matches('z').count(),
        2,
        "two waves, the parent's work between"
    );
    assert!(view
        .summary
        .contains("Parents waited 1m 20s on their subagents in 1 fan-in."));
}

#[test]
fn packed_runs_that_never_overlap_share_a_row() {
    let mut v = wave();
    let query = TimelineQuery {
        packed: true,
        ..TimelineQuery::default()
    };
    let view = v.timeline(&query);
    let rows: Vec<Vec<&str>> = view
        .lanes
        .iter()
        .map(|l| l.bars.iter().map(|b| b.id.as_str()).collect())
        .collect();
    assert_eq!(rows, [vec!["a", "c"], vec!["b"]]);
    assert_eq!(view.lanes[0].label, "2 runs");
    assert_eq!(record(&v.timeline_snapshot(), "c").lane, 0);
}

#[test]
fn nested_runs_lie_under_their_parent_and_collapse_with_it() {
    let mut v = Viewer::new();
    v.apply([
        text("u", 0, "user", None),
        done("a", 0, None, 100),
        done("a1", 10, Some("a"), 30),
        done("a2", 20, Some("a"), 70),
        done("b", 5, None, 10),
    ]);
    let snap = v.timeline_snapshot();
    let shape: Vec<(&str, usize, usize)> = snap
        .runs
        .iter()
        .map(|r| (r.id.as_str(), r.lane, r.depth))
        .collect();
    assert_eq!(
        shape,
        [("a", 0, 0), ("a1", 1, 1), ("a2", 2, 1), ("b", 3, 0)]
    );
    assert!(record(&snap, "a2").critical && !record(&snap, "a1").critical);
    let query = TimelineQuery::default().toggled("a");
    let view = v.timeline(&query);
    assert_eq!(view.rows_total, 2);
    assert_eq!(view.lanes[0].toggle, Some(("a".to_string(), false)));
    assert_eq!(
        record(&v.timeline_snapshot(), "a2").lane,
        0,
        "drawn in its parent's row"
    );
    // Showing a record of a nested run opens its parent and focuses it.
    let shown = v.timeline_show(&query, "a2");
    assert_eq!(shown.collapsed, Vec::<String>::new());
    assert_eq!(shown.focus.as_deref(), Some("a2"));
}

#[test]
fn a_background_run_outlives_its_parent_s_turn_with_its_launch_marked_apart() {
    let mut v = Viewer::new();
    let launched = json!({"subagent_type": "researcher", "description": "prior art",
        "status": "async_launched", "is_async": true});
    v.apply([
        text("u", 0, "user", None),
        run("bg", 2, None, "complete", launched.clone()),
        text("reply", 10, "agent", None),
    ]);
    let snap = v.timeline_snapshot();
    assert_eq!(
        record(&snap, "bg").end_ms,
        None,
        "running until it reports back"
    );
    assert_eq!(record(&snap, "bg").status, "running");
    let view = v.timeline(&TimelineQuery::default());
    let bar = &view.lanes[0].bars[0];
    assert!(bar.open && bar.launch_x.is_some());
    assert_eq!(bar.word.as_deref(), Some("background · running"));
    let mut settled = launched;
    settled["status"] = json!("completed");
    settled["duration_ms"] = json!(300_000);
    v.apply([run("bg", 2, None, "complete", settled)]);
    let snap = v.timeline_snapshot();
    let bg = record(&snap, "bg");
    assert_eq!((bg.start_ms, bg.end_ms), (ms(2), Some(ms(302))));
    assert!(bg.end_ms.unwrap() > ms(10), "it outlived its turn");
    assert!(!bg.critical, "the turn never waited for it");
    let view = v.timeline(&TimelineQuery::default());
    assert_eq!(view.bounds, (ms(0), ms(302)));
    // The turn ends at 10 s of the 302 s drawn, long before the run.
    assert_eq!(view.turns_path, "M0 0h21v10h-21z");
    assert!(view.lanes[0].bars[0].w > 600);
}

#[test]
fn a_run_without_an_end_is_marked_and_a_running_one_grows_with_the_clock() {
    let mut v = Viewer::new();
    v.tick(0);
    v.apply([
        Event::turn(true, "s", "t1"),
        text("u", 0, "user", None),
        run(
            "quiet",
            1,
            None,
            "complete",
            json!({"subagent_type": "explorer"}),
        ),
        run(
            "going",
            2,
            None,
            "running",
            json!({"subagent_type": "explorer"}),
        ),
        child("going-1", 10, "going"),
    ]);
    let snap = v.timeline_snapshot();
    assert_eq!(record(&snap, "quiet").end_ms, Some(ms(1)));
    assert_eq!(record(&snap, "going").end_ms, None);
    assert_eq!(snap.peak, 1, "a run without an end never counts as going");
    let query = TimelineQuery {
        width: 1000,
        ..TimelineQuery::default()
    };
    let before = v.timeline(&query);
    let quiet = &before.lanes[0].bars[0];
    assert_eq!(quiet.word.as_deref(), Some("end not recorded"));
    let going = |view: &TimelineView| {
        let bar = &view.lanes[1].bars[0];
        (bar.id.clone(), bar.x, bar.w, bar.open)
    };
    // The session so far is 10 s long, drawn to the next round 2 s
    // after it: the run goes from 2 s to now (10 s).
    assert_eq!(before.bounds, (ms(0), ms(12)));
    assert_eq!(going(&before), ("going".into(), 166, 667, true));
    assert_eq!(before.now_x, Some(833));
    v.tick(30_000);
    let after = v.timeline(&query);
    let now_later = "now is 30 s later on the source's clock";
    assert_eq!(after.bounds, (ms(0), ms(45)), "{now_later}");
    assert_eq!(going(&after), ("going".into(), 44, 844, true));
    assert_eq!(after.now_x, Some(888));
    assert_eq!(after.lanes[0].bars[0].id, "quiet", "no other run moved");
}

#[test]
fn in_a_still_file_a_run_that_never_reported_ends_at_the_file_s_newest_record_interrupted() {
    let mut v = Viewer::new();
    v.set_still(true);
    v.tick(0);
    v.apply([
        text("u", 0, "user", None),
        done("a", 1, None, 3),
        run(
            "going",
            2,
            None,
            "running",
            json!({"subagent_type": "explorer", "description": "the audit"}),
        ),
        child("going-1", 6, "going"),
        text("newest", 10, "agent", None),
    ]);
    let query = TimelineQuery {
        width: 1000,
        ..TimelineQuery::default()
    };
    let view = v.timeline(&query);
    let bar = view
        .lanes
        .iter()
        .flat_map(|l| &l.bars)
        .find(|b| b.id == "going")
        .unwrap()
        .clone();
    assert_eq!(
        bar.word.as_deref(),
        Some("interrupted · no result recorded")
    );
    assert_eq!(bar.state, "interrupted");
    assert!(!bar.open, "it goes on no longer: not drawn open");
    assert_eq!(view.now_x, None, "no now line: the file's time stopped");
    assert!(
        bar.label.contains(", 0:02 to the file's end (0:10)"),
        "not to now: {}",
        bar.label
    );
    assert!(!bar.label.contains("now"), "{}", bar.label);
    assert_eq!(&*bar.text, "8.0s", "its duration runs to the file's end");
    let row = |table: &TimelineTable| table.rows.iter().find(|r| r.id == "going").unwrap().clone();
    let table = v.timeline_table(0);
    let going = row(&table);
    assert_eq!(going.status, "interrupted · no result recorded");
    assert_eq!(going.end, "the file's end (0:10)");
    assert_eq!(going.duration, "8.0s");
    // It ended last in its wave: the critical path holds it, to the file's end.
    assert_eq!(going.critical, "yes, held its parent 6.0s");
    // The page stays open an hour: nothing moves.
    v.tick(60 * 60_000);
    let later = v.timeline(&query);
    assert_eq!(later.bounds, view.bounds);
    assert_eq!(row(&v.timeline_table(0)), going);
    // Followed live, the same run goes on to now.
    v.set_still(false);
    let live = v.timeline(&query);
    let bar = live
        .lanes
        .iter()
        .flat_map(|l| &l.bars)
        .find(|b| b.id == "going")
        .unwrap();
    assert!(bar.open && bar.label.contains(" to now"), "{}", bar.label);
    assert_eq!(row(&v.timeline_table(0)).end, "running");
}

#[test]
fn a_bar_s_accessible_name_holds_the_words_it_shows_in_their_place() {
    let mut v = wave();
    v.apply([run(
        "quiet",
        96,
        None,
        "complete",
        json!({"subagent_type": "explorer"}),
    )]);
    let view = v.timeline(&TimelineQuery {
        width: 1000,
        ..TimelineQuery::default()
    });
    let bars: Vec<&crate::screen::view::timeline::BarView> =
        view.lanes.iter().flat_map(|l| &l.bars).collect();
    let seen: Vec<(&str, String)> = bars
        .iter()
        .map(|b| {
            let shown = [&*b.text, b.word.as_deref().unwrap_or_default()]
                .into_iter()
                .filter(|t| !t.is_empty())
                .collect::<Vec<&str>>()
                .join(" ");
            assert!(b.label.contains(&format!(", {shown}, ")), "{}", b.label);
            (b.id.as_str(), b.label.to_string())
        })
        .collect();
    let label = |id: &str| seen.iter().find(|(b, _)| *b == id).unwrap().1.clone();
    assert_eq!(
        label("a"),
        "code-reviewer: pass a, 1m 00s · 1k, 0:01 to 1:01, 1k tokens, on the critical path: held its parent 30.0s",
        "what the bar shows, between its name and the rest"
    );
    assert!(
        label("quiet").contains(", end not recorded, "),
        "a bar showing a word only: {}",
        label("quiet")
    );
}

#[test]
fn a_settled_bar_s_words_follow_its_card_and_its_place_on_the_critical_path() {
    let query = TimelineQuery {
        width: 1000,
        ..TimelineQuery::default()
    };
    let labels = |v: &mut Viewer| -> Vec<String> {
        let view = v.timeline(&query);
        let bars = view.lanes.iter().flat_map(|l| &l.bars);
        bars.map(|b| b.label.to_string()).collect()
    };
    let changes = [
        // c's card changes after it settled.
        run(
            "c",
            70,
            None,
            "complete",
            json!({"subagent_type": "code-reviewer", "description": "second pass",
                "status": "completed", "duration_ms": 20_000, "total_tokens": 5000,
                "result_text": "Done"}),
        ),
        // A longer run joins a's wave: a no longer holds its parent.
        done("d", 2, None, 80),
    ];
    let mut v = wave();
    let before = labels(&mut v);
    assert!(before[0].contains("on the critical path"), "{}", before[0]);
    assert!(before[2].starts_with("code-reviewer: pass c, 20.0s · 1k,"));
    for n in 1..=changes.len() {
        v.apply([changes[n - 1].clone()]);
        // The same words as a viewer that never drew the bars before.
        let mut fresh = wave();
        fresh.apply(changes[..n].iter().cloned());
        assert_eq!(labels(&mut v), labels(&mut fresh), "after change {n}");
    }
    let after = labels(&mut v);
    assert!(
        after
            .iter()
            .any(|l| l.starts_with("code-reviewer: second pass, 20.0s · 5k,")),
        "{after:?}"
    );
    assert!(after[0].starts_with("code-reviewer: pass a,"));
    assert!(!after[0].contains("critical path"), "{}", after[0]);
}

#[test]
fn clock_skew_between_a_parent_and_a_child_file_is_taken_out() {
    // The child's file is two hours ahead of its parent's.
    let mut v = Viewer::new();
    v.apply([
        text("u", 0, "user", None),
        done("p", 0, None, 60),
        text("p-prompt", 7_205, "user", Some("p")),
        done("n", 7_210, Some("p"), 20),
        child("p-1", 7_245, "p"),
        text("reply", 61, "agent", None),
    ]);
    let snap = v.timeline_snapshot();
    let n = record(&snap, "n");
    assert_eq!((n.start_ms, n.end_ms), (ms(5), Some(ms(25))));
    let view = v.timeline(&TimelineQuery::default());
    assert_eq!(view.bounds, (ms(0), ms(61)), "no run drawn two hours away");
}

/// Run `p` (100 s) with a thought, a tool call (ended at `tool_end`), a
/// nested run, a user message and a text, focused.
fn worked(tool_end: i64) -> (Viewer, TimelineQuery) {
    let mut v = Viewer::new();
    v.apply([
        text("u", 0, "user", None),
        done("p", 0, None, 100),
        text("p-thought", 10, "agent", Some("p")),
        added(json!({"id": "p-tool", "session_id": "s", "turn_id": "t1",
            "type": "tool_execute", "created_at": at(15), "updated_at": at(tool_end),
            "metadata": {"tool_call_id": "tc-p-tool", "status": "complete",
                "parent_tool_call_id": "tc-p"}})),
        done("p-nested", 40, Some("p"), 30),
        text("p-input", 80, "user", Some("p")),
        text("p-text", 85, "agent", Some("p")),
    ]);
    let query = TimelineQuery {
        focus: Some("p".into()),
        ..TimelineQuery::default()
    };
    (v, query)
}

#[test]
fn where_a_run_s_time_went_is_read_from_its_own_records() {
    let (mut v, query) = worked(30);
    let focus = v.timeline(&query).focus_text.unwrap();
    assert!(
        focus.ends_with("model 45.0s, tools 15.0s, waiting on its subagents 30.0s, idle 10.0s."),
        "{focus}"
    );
}

#[test]
fn where_the_source_does_not_record_a_tool_s_end_model_and_tool_time_are_given_together() {
    let (mut v, query) = worked(15);
    let view = v.timeline(&query);
    let focus = view.focus_text.unwrap();
    assert!(
        focus.ends_with("model and tools 1m 00s (this source does not record when tool calls end), waiting on its subagents 30.0s, idle 10.0s."),
        "{focus}"
    );
    // The nested run has no records: the whole fan-out says so.
    assert!(
        view.summary
            .starts_with("1 of 2 runs ran 1m 40s in all: model and tools 1m 00s"),
        "{}",
        view.summary
    );
}

/// After each of `events`, the open timeline as `query` shows it reads
/// as one opened afresh, and each row's starts (what a look searches
/// packed rows by) are its runs' starts.
fn reads_as_opened_afresh(events: Vec<Event>, query: &TimelineQuery) {
    let mut v = Viewer::new();
    v.timeline(query);
    for (n, event) in events.into_iter().enumerate() {
        v.apply([event]);
        let kept = v.timeline(query);
        let mut fresh = v.clone();
        fresh.set_timeline_open(false);
        assert_eq!(kept, fresh.timeline(query), "after event {n}");
        let (lanes, _) = v.timeline.rows();
        for lane in lanes {
            let starts: Vec<Millis> = (lane.runs.iter())
                .map(|id| v.timeline.runs()[id].placed.start)
                .collect();
            assert_eq!(lane.starts, starts, "after event {n}");
        }
    }
}

/// Packed rows over the session's first minute.
fn packed_first_minute() -> TimelineQuery {
    TimelineQuery {
        packed: true,
        rows: 100,
        window: Some((ms(0), ms(60))),
        ..TimelineQuery::default()
    }
}
