//! Demo content tests: determinism, the shape of every subagent's life,
//! the variety promised (failed, nested, background), the board chip (and
//! that it agrees with the transcript's spinners) and the demo's one clock.

use super::*;
use crate::backend::hub::Frame;
use crate::clock::Clock;
use crate::sources::scenarios::script::{Change, Step};
use profiles::MIGRATION_PROFILE;
use taskview_core::model::message::Message;
use taskview_core::read::protocol::{self, action, Envelope};
use taskview_core::screen::viewer::Viewer;
use tokio::sync::mpsc;

/// 2026-08-03T10:00:00Z, where tests start the demo's clock.
const START: u64 = 1_785_751_200_000;

fn cycles(seed: u64, profile: &Profile, count: u64) -> Vec<Vec<Step>> {
    let mut rng = Rng::new(seed, 0);
    (0..count)
        .map(|i| cycle(&mut rng, profile, i, START + i * 60_000, i == 0).into_steps())
        .collect()
}

fn puts(steps: &[Step]) -> Vec<(u64, &Message)> {
    steps
        .iter()
        .filter_map(|s| match &s.change {
            Change::Put(m) => Some((s.at, &**m)),
            _ => None,
        })
        .collect()
}

fn subagent_field<'a>(m: &'a Message, key: &str) -> &'a Value {
    m.metadata
        .raw
        .get("normalized")
        .and_then(|n| n.get("subagent_task"))
        .and_then(|p| p.get(key))
        .unwrap_or(&Value::Null)
}

#[test]
fn the_same_seed_gives_the_same_cycles_and_another_seed_does_not() {
    for profile in LIVE {
        assert_eq!(cycles(7, profile, 5), cycles(7, profile, 5));
        assert_ne!(cycles(7, profile, 5), cycles(8, profile, 5));
    }
}

#[test]
fn every_subagent_goes_pending_then_in_progress_then_settles_with_its_metrics() {
    for profile in LIVE {
        for steps in cycles(3, profile, 20) {
            let puts = puts(&steps);
            let subagent_ids: Vec<&str> = puts
                .iter()
                .filter(|(_, m)| m.is_subagent_payload())
                .map(|(_, m)| m.id.as_str())
                .collect();
            assert!(!subagent_ids.is_empty());
            for id in subagent_ids {
                let frames: Vec<&Message> = puts
                    .iter()
                    .filter(|(_, m)| m.id == id)
                    .map(|(_, m)| *m)
                    .collect();
                let statuses: Vec<&str> = frames
                    .iter()
                    .map(|m| m.metadata.status.as_deref().unwrap_or(""))
                    .collect();
                assert_eq!(statuses[..2], ["pending", "in_progress"], "{id}");
                assert!(["complete", "error"].contains(&statuses[2]), "{id}");
                assert_eq!(subagent_field(frames[0], "subagent_type"), "");
                assert_eq!(subagent_field(frames[0], "description"), "");
                assert_ne!(subagent_field(frames[1], "subagent_type"), "");
                let last = frames[2];
                assert!(subagent_field(last, "result_text")
                    .as_str()
                    .unwrap()
                    .contains('\n'));
                for key in ["duration_ms", "total_tokens", "tool_use_count"] {
                    assert!(subagent_field(last, key).is_u64(), "{id} {key}");
                }
                assert!(subagent_field(last, "model").is_string());
            }
        }
    }
}

#[test]
fn children_point_at_a_subagent_of_their_cycle_and_interleave() {
    let mut interleaved = false;
    for steps in cycles(5, &REVIEW_PROFILE, 10) {
        let puts = puts(&steps);
        let parents: Vec<&str> = puts
            .iter()
            .filter(|(_, m)| m.is_subagent_payload())
            .filter_map(|(_, m)| m.metadata.tool_call_id.as_deref())
            .collect();
        let mut child_parents = Vec::new();
        for (_, m) in &puts {
            if let Some(parent) = &m.metadata.parent_tool_call_id {
                assert!(parents.contains(&parent.as_str()), "{} → {parent}", m.id);
                if child_parents.last() != Some(parent) {
                    child_parents.push(parent.clone());
                }
            }
        }
        let distinct: std::collections::HashSet<_> = child_parents.iter().collect();
        interleaved |= child_parents.len() > distinct.len();
    }
    assert!(
        interleaved,
        "children of parallel subagents should interleave"
    );
}

#[test]
fn failed_nested_and_background_subagents_all_occur() {
    let (mut failed, mut nested, mut background) = (0, 0, 0);
    for profile in LIVE {
        for steps in cycles(11, profile, 30) {
            for (_, m) in puts(&steps) {
                if !m.is_subagent_payload() {
                    continue;
                }
                failed += usize::from(m.metadata.status.as_deref() == Some("error"));
                nested += usize::from(m.metadata.parent_tool_call_id.is_some());
                background += usize::from(subagent_field(m, "is_async") == true);
            }
        }
    }
    assert!(
        failed > 0 && nested > 0 && background > 0,
        "{failed} {nested} {background}"
    );
}

#[test]
fn the_first_wave_starts_within_two_seconds() {
    for profile in LIVE {
        let steps = &cycles(1, profile, 1)[0];
        let first = puts(steps)
            .into_iter()
            .find(|(_, m)| m.is_subagent_payload())
            .map(|(at, _)| at - START)
            .unwrap();
        assert!(
            first <= 2000,
            "{} starts its wave at {first} ms",
            profile.title
        );
    }
}

#[test]
fn playing_a_cycle_raises_the_chip_and_brings_it_back_to_zero() {
    let backend = Backend::default();
    load(&backend, 1);
    let (_, mut rx) = backend.hub().connect();
    for step in &cycles(2, &MIGRATION_PROFILE, 1)[0] {
        script::apply(&backend, MIGRATION_PROFILE.session_id, step);
    }
    let mut counts = Vec::new();
    while let Ok(frame) = rx.try_recv() {
        let v: Value = serde_json::from_str(frame.as_str()).unwrap();
        if v["action"] == "task.updated" && v["payload"]["task_id"] == MIGRATION_PROFILE.task_id {
            counts.push(v["payload"]["active_subagent_count"].as_u64().unwrap());
        }
    }
    assert!(counts.iter().max().unwrap() >= &3, "{counts:?}");
    assert_eq!(counts.last(), Some(&0));
    assert!(
        counts.windows(2).all(|w| w[0] != w[1] || w[0] == 0),
        "{counts:?}"
    );
}

#[test]
fn the_board_has_four_columns_and_seven_tasks_with_finished_transcripts() {
    let backend = Backend::default();
    load(&backend, 1);
    let snapshot = backend.snapshot(WORKFLOW_ID).unwrap();
    let columns: Vec<&str> = snapshot.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(columns, ["Todo", "In Progress", "Review", "Done"]);
    assert_eq!(snapshot.tasks.len(), 7);
    assert_eq!(backend.message_ids("sess-demo-review").unwrap().len(), 20);
    assert_eq!(backend.turns("sess-demo-review").unwrap().total, 2);
    assert!(backend.message_ids("sess-demo-done").unwrap().len() > 10);
    // Only the seeds' background fork still runs: the chip says so (docs/behaviour.md §8).
    let counts: Vec<(&str, u64)> = snapshot
        .tasks
        .iter()
        .filter(|t| t.active_subagent_count != 0)
        .map(|t| (t.id.as_str(), t.active_subagent_count))
        .collect();
    assert_eq!(counts, [("task-demo-seeds", 1)]);
}

/// The demo shows each of the seeds' patterns at least once (docs/formats.md §4): a
/// spilled output whose stored text the session holds, a lossy cut, a typed
/// conclusion with provenance, a failed conclusion, the returned-tokens chip,
/// the fork chip, a refused recursive fork and a fork running in the
/// background; read as a client reads the session, through core's viewer.
#[test]
fn the_demo_shows_each_seed_pattern_at_least_once() {
    use taskview_core::screen::view::conclusion::ResultBody;
    use taskview_core::screen::view::row::RowBody;
    let backend = Backend::default();
    load(&backend, 1);
    let query = taskview_core::read::protocol::MessagesQuery {
        limit: Some(1000),
        ..Default::default()
    };
    let page = backend
        .messages_page("sess-demo-seeds", &query)
        .expect("the seeds' session");
    let mut viewer = Viewer::new();
    viewer.apply(page.messages.iter().map(|v| {
        taskview_core::model::event::Event::MessageAdded(Message::from_value(v).expect("a message"))
    }));
    let rows: Vec<RowBody> = viewer
        .layout()
        .outline()
        .iter()
        .filter_map(|row| viewer.row(&row.key))
        .map(|row| row.body)
        .collect();
    let messages = || {
        rows.iter().filter_map(|b| match b {
            RowBody::Message(m) => Some(m),
            _ => None,
        })
    };
    let cards = || {
        rows.iter().filter_map(|b| match b {
            RowBody::Card(c) => Some(&c.card),
            _ => None,
        })
    };
    assert!(
        messages().any(|m| m.spill.as_ref().is_some_and(|s| s.stored.is_some())),
        "a spilled output with its stored text"
    );
    assert!(
        messages().any(|m| m.spill_source.is_some()),
        "a read_run back link"
    );
    assert!(messages().any(|m| m.truncated), "a lossy cut");
    assert!(cards().any(|c| matches!(&c.result_body,
        Some(ResultBody::Conclusion(f)) if f.iter().any(|f| !f.provenance.is_empty()))));
    assert!(cards().any(|c| matches!(c.result_body, Some(ResultBody::NoConclusion(_)))));
    assert!(cards().any(|c| c.isolation.as_ref().is_some_and(|i| i.id == "returned")));
    assert!(
        cards().any(|c| c.received.is_some()),
        "what the parent received"
    );
    assert!(cards().any(|c| c.type_label == "fork" && c.status_word == Some("failed")));
    assert!(cards().any(|c| c.type_label == "fork" && c.status.is_running()));
    assert!(cards().any(|c| c.type_label == "fork" && c.result_summary.is_some()));
}

/// What a kandev client subscribed to one looping task's session sees: the
/// board chip from `task.updated`, the transcript in core's viewer.
struct Watcher {
    profile: &'static Profile,
    frames: mpsc::Receiver<Frame>,
    viewer: Viewer,
    chip: u64,
}

impl Watcher {
    fn new(backend: &Backend, profile: &'static Profile) -> Watcher {
        let (id, frames) = backend.hub().connect();
        backend.hub().subscribe(id, profile.session_id);
        Watcher {
            profile,
            frames,
            viewer: Viewer::new(),
            chip: 0,
        }
    }

    /// Applies every frame announced since the last call.
    fn catch_up(&mut self) {
        while let Ok(frame) = self.frames.try_recv() {
            let value: Value = serde_json::from_str(frame.as_str()).unwrap();
            let envelope = Envelope::from_value(value).unwrap();
            let payload = &envelope.payload;
            if envelope.action == action::TASK_UPDATED && payload["task_id"] == self.profile.task_id
            {
                if let Some(count) = payload["active_subagent_count"].as_u64() {
                    self.chip = count;
                }
            }
            if let Ok(Some(event)) = protocol::event_from_notification(&envelope.action, payload) {
                self.viewer.apply([event]);
            }
        }
    }

    /// Subagent cards whose spinner shows, nested ones included, as core's
    /// layout and row view-models decide it for the transcript.
    fn spinning_cards(&self) -> u64 {
        let rows = self.viewer.layout().outline();
        let spinning = rows
            .iter()
            .filter_map(|row| self.viewer.row(&row.key))
            .filter(|row| row.card().is_some_and(|c| c.card.status.is_running()));
        spinning.count() as u64
    }
}

/// docs/behaviour.md §1.1: the board's count and the transcript's spinners come from one
/// rule. The three looping tasks play six turns each, interleaved by their
/// times on the demo's clock; after every step the server's counts (task,
/// session, and the last `task.updated` a client saw) equal the running
/// subagent cards core lays out from the same session's frames.
#[test]
fn the_board_chip_counts_exactly_the_spinning_cards_after_every_step() {
    let backend = Backend::with_clock(Clock::stopped_at(START));
    load(&backend, 4);
    let origin = backend.clock().now_ms();
    let mut steps: Vec<(usize, Step)> = (0..)
        .map_while(|index| Turns::of(index, 4, origin))
        .enumerate()
        .flat_map(|(task, turns)| turns.take(6).flatten().map(move |step| (task, step)))
        .collect();
    steps.sort_by_key(|(task, step)| (step.at, *task));
    let mut watchers: Vec<Watcher> = LIVE.iter().map(|p| Watcher::new(&backend, p)).collect();
    let (mut busiest, mut background) = (0, 0);
    for (task, step) in &steps {
        script::apply(&backend, LIVE[*task].session_id, step);
        if let Change::Put(m) = &step.change {
            background += usize::from(subagent_field(m, "status") == "async_launched");
        }
        for watcher in &mut watchers {
            watcher.catch_up();
            let spinning = watcher.spinning_cards();
            let p = watcher.profile;
            let counts = (
                backend.task(p.task_id).unwrap().active_subagent_count,
                backend.session(p.session_id).unwrap().active_subagent_count,
                watcher.chip,
            );
            assert_eq!(
                counts,
                (spinning, spinning, spinning),
                "{} at {}",
                p.task_id,
                step.at
            );
            busiest = busiest.max(spinning);
        }
    }
    assert!(busiest >= 3, "the chip never rose above {busiest}");
    assert!(background > 0, "no background subagent was played");
}

/// One clock: the board, the finished transcripts and the live turns are all
/// dated by the backend's clock, so a client comparing them with the time
/// the demo started sees minutes, not months.
#[test]
fn every_timestamp_of_the_demo_comes_from_its_clock() {
    let backend = Backend::with_clock(Clock::stopped_at(START));
    load(&backend, 1);
    let start = clock::rfc3339_ms(START);
    let day_before = clock::rfc3339_ms(START - 86_400_000);
    let snapshot = backend.snapshot(WORKFLOW_ID).unwrap();
    assert_eq!(snapshot.workflow.created_at, start);
    for task in &snapshot.tasks {
        assert_eq!(task.created_at, start, "{}", task.id);
    }
    for session in ["sess-demo-review", "sess-demo-done"] {
        assert_eq!(backend.session(session).unwrap().created_at, start);
        let page = backend.messages_page(session, &Default::default()).unwrap();
        assert!(!page.messages.is_empty());
        for m in &page.messages {
            let at = m["created_at"].as_str().unwrap();
            assert!(*at >= *day_before && *at < *start, "{session}: {at}");
        }
        for turn in backend.turns(session).unwrap().turns {
            assert!(
                turn.started_at >= day_before && turn.started_at < start,
                "{turn:?}"
            );
        }
    }
    let first = Turns::of(0, 1, backend.clock().now_ms())
        .unwrap()
        .next()
        .unwrap();
    assert_eq!(first[0].change, Change::StartTurn("turn-1".into()));
    assert_eq!(first[0].at, START);
}
