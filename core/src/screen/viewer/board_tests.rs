//! The kept board by state against the rule read whole: every column, in
//! order, with its count, after every change (docs/behaviour.md §5).

use super::*;
use crate::model::board::{BoardSnapshot, TaskPatch};
use crate::model::event::Event;
use crate::model::time::format_millis;
use crate::screen::view::board::by_state::column_of;
use serde_json::{json, Value};

const NOW: i64 = 1_796_532_900_000;

fn task(v: Value) -> Task {
    TaskPatch::from_value(&v).unwrap().to_task()
}

fn at(ms_ago: i64) -> String {
    format_millis(NOW - ms_ago)
}

fn board(tasks: Vec<Value>) -> Viewer {
    let mut viewer = Viewer::new();
    viewer.apply([Event::BoardLoaded(BoardSnapshot {
        workflow_id: "wf".into(),
        by_state: true,
        tasks: tasks.into_iter().map(task).collect(),
        ..BoardSnapshot::default()
    })]);
    viewer
}

/// Every column's ids as the viewer keeps them.
fn kept_columns(viewer: &Viewer, now: i64) -> Vec<Vec<String>> {
    StateColumn::ALL
        .into_iter()
        .map(|c| viewer.state_column(c, 0, usize::MAX, now))
        .collect()
}

/// Every column's ids read from the store whole: each task the filter
/// admits, in its column at `now`, newest activity first, then by id.
fn sorted_columns(viewer: &Viewer, filter: &BoardFilter, now: i64) -> Vec<Vec<String>> {
    let wf = viewer.store().boards().workflow("wf").unwrap();
    let mut tasks: Vec<&Task> = wf.tasks.values().filter(|t| filter.admits(t)).collect();
    tasks.sort_by(|a, b| {
        let at = |t: &Task| last_activity_ms(t);
        at(b).cmp(&at(a)).then_with(|| a.id.cmp(&b.id))
    });
    StateColumn::ALL
        .into_iter()
        .map(|c| {
            tasks
                .iter()
                .filter(|t| column_of(t, now) == c)
                .map(|t| t.id.clone())
                .collect()
        })
        .collect()
}

#[test]
fn columns_are_newest_activity_first_with_counts_and_the_strip() {
    let mut viewer = board(vec![
        json!({"id": "old", "state": "COMPLETED", "session_facts": {"last_activity_at": at(3_600_000)}}),
        json!({"id": "new", "state": "COMPLETED", "session_facts": {"last_activity_at": at(60_000)}}),
        json!({"id": "never", "state": "COMPLETED"}),
        json!({"id": "w1", "state": "IN_PROGRESS", "session_facts": {"last_activity_at": at(1_000)}}),
        json!({"id": "ask", "state": "IN_PROGRESS", "session_facts": {"waiting_for": "answer"}}),
    ]);
    let b = viewer
        .state_board("wf", &BoardFilter::default(), NOW)
        .unwrap();
    let names: Vec<&str> = b.columns.iter().map(|c| c.column.name()).collect();
    assert_eq!(names, ["Needs you", "Working", "Stopped", "Done"]);
    assert_eq!(
        viewer.state_column(StateColumn::Done, 0, 10, NOW),
        ["new", "old", "never"]
    );
    assert_eq!(viewer.state_column(StateColumn::Done, 1, 2, NOW), ["old"]);
    let counts: Vec<&str> = b.columns.iter().map(|c| c.count_label.as_str()).collect();
    assert_eq!(counts, ["1 task", "1 task", "0 tasks", "3 tasks"]);
    assert_eq!(
        (
            b.strip.needs_you_label.as_str(),
            b.strip.working_label.as_str()
        ),
        ("1 needs you", "1 working")
    );
    assert_eq!((b.total, b.shown), (5, 5));
}

#[test]
fn a_state_filter_shows_its_column_and_the_strip_still_counts_all() {
    let mut viewer = board(vec![
        json!({"id": "a", "state": "IN_PROGRESS", "session_facts": {"agent": "Codex"}}),
        json!({"id": "b", "state": "IN_PROGRESS", "session_facts": {"agent": "Claude Code"}}),
        json!({"id": "c", "state": "COMPLETED", "session_facts": {"agent": "Codex"}}),
    ]);
    let filter = BoardFilter::from_query("state=working&agent=Codex");
    let b = viewer.state_board("wf", &filter, NOW).unwrap();
    assert_eq!(b.columns.len(), 1);
    assert_eq!(viewer.state_column(StateColumn::Working, 0, 9, NOW), ["a"]);
    assert_eq!(
        b.strip.working, 1,
        "the agent filter applies, the state's does not"
    );
    assert_eq!((b.total, b.shown), (3, 2));
    assert_eq!(b.options.agents, ["Claude Code", "Codex"]);
}

#[test]
fn the_clock_alone_moves_a_silent_task_at_work_to_stopped() {
    let mut viewer = board(vec![
        json!({"id": "w", "state": "IN_PROGRESS", "session_facts": {"last_activity_at": at(60_000)}}),
        json!({"id": "i", "state": "COMPLETED", "session_facts": {"interrupted": true, "last_activity_at": at(30 * 60_000)}}),
    ]);
    let filter = BoardFilter::default();
    let now = viewer.state_board("wf", &filter, NOW).unwrap();
    assert_eq!(now.strip.working, 1);
    let later = NOW + 5 * 60_000;
    let b = viewer.state_board("wf", &filter, later).unwrap();
    assert_eq!((b.strip.working, b.columns[2].count), (0, 2));
    assert_eq!(
        viewer.state_column(StateColumn::Stopped, 0, 9, later),
        ["w", "i"],
        "the stalled one is newer"
    );
}

/// A small deterministic generator (xorshift), so the test is the same every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A task `id` in a random standing, agent and time (some at the same time).
fn random_task(rng: &mut Rng, id: u64) -> Value {
    let state = ["IN_PROGRESS", "COMPLETED", "COMPLETED", "FAILED"][rng.below(4) as usize];
    let agent = ["Codex", "Claude Code", "Kimi Code"][rng.below(3) as usize];
    let mut facts = json!({"agent": agent, "project": format!("/w/p{}", rng.below(3))});
    if rng.below(6) > 0 {
        facts["last_activity_at"] = json!(at(rng.below(40) as i64 * 30_000));
    }
    if rng.below(10) == 0 {
        facts["waiting_for"] = json!("permission");
    }
    if rng.below(10) == 0 {
        facts["interrupted"] = json!(true);
    }
    json!({"id": format!("t{id}"), "workflow_id": "wf", "state": state, "session_facts": facts,
        "active_subagent_count": rng.below(5).saturating_sub(3)})
}

#[test]
fn the_kept_columns_are_every_task_sorted_after_every_change() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let tasks = (0..300).map(|id| random_task(&mut rng, id)).collect();
    let mut viewer = board(tasks);
    for query in ["", "agent=Codex", "project=p1&q=claude", "state=stopped"] {
        let filter = BoardFilter::from_query(query);
        for step in 0..200 {
            let now = NOW + rng.below(8) as i64 * 60_000;
            let b = viewer.state_board("wf", &filter, now).unwrap();
            let expected = sorted_columns(&viewer, &filter, now);
            assert_eq!(kept_columns(&viewer, now), expected, "{query}, step {step}");
            let counts: Vec<usize> = expected.iter().map(Vec::len).collect();
            let shown: Vec<usize> = b.columns.iter().map(|c| c.count).collect();
            match filter.state {
                Some(s) => assert_eq!(shown, [counts[s as usize]]),
                None => assert_eq!(shown, counts, "{query}, step {step}"),
            }
            // One to three tasks change, are deleted or come.
            let mut batch = Vec::new();
            for _ in 0..=rng.below(3) {
                let id = rng.below(320);
                batch.push(match rng.below(8) {
                    0 => Event::TaskDeleted {
                        task_id: format!("t{id}"),
                    },
                    _ => Event::TaskUpdated(
                        TaskPatch::from_value(&random_task(&mut rng, id)).unwrap(),
                    ),
                });
            }
            viewer.apply(batch);
        }
    }
}

#[test]
fn the_options_are_what_the_tasks_have_and_go_with_the_last_one() {
    let mut viewer = board(vec![
        json!({"id": "a", "session_facts": {"agent": "Codex", "project": "/w/parser-kit"}}),
        json!({"id": "b", "machine": "m2", "session_facts": {"agent": "Claude Code", "project": "/w/web/"}}),
        json!({"id": "c", "session_facts": {"agent": "Codex", "project": "/w/parser-kit"}}),
    ]);
    let options = |v: &mut Viewer| {
        v.state_board("wf", &BoardFilter::default(), NOW)
            .unwrap()
            .options
    };
    let o = options(&mut viewer);
    assert_eq!(o.agents, ["Claude Code", "Codex"]);
    assert_eq!(o.projects, ["parser-kit", "web"]);
    assert_eq!(o.machines, ["m2"]);
    assert!(o.persons.is_empty());
    viewer.apply([Event::TaskDeleted {
        task_id: "b".into(),
    }]);
    assert_eq!(options(&mut viewer).agents, ["Codex"]);
}
