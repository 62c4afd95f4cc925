//! Demo content tests: determinism, the shape of every subagent's life,
//! the variety promised (failed, nested, background), and the board chip.

use super::*;
use crate::scenario::script::Step;
use taskview_core::model::Message;

fn cycles(seed: u64, profile: &Profile, count: u64) -> Vec<Vec<Step>> {
    let mut rng = Rng::new(seed, 0);
    (0..count)
        .map(|i| cycle(&mut rng, profile, i, EPOCH + i * 60_000, i == 0).into_steps())
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
            .map(|(at, _)| at - EPOCH)
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
fn the_board_has_four_columns_and_six_tasks_with_finished_transcripts() {
    let backend = Backend::default();
    load(&backend, 1);
    let snapshot = backend.snapshot(WORKFLOW_ID).unwrap();
    let columns: Vec<&str> = snapshot.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(columns, ["Todo", "In Progress", "Review", "Done"]);
    assert_eq!(snapshot.tasks.len(), 6);
    assert_eq!(backend.message_ids("sess-demo-review").unwrap().len(), 20);
    assert_eq!(backend.turns("sess-demo-review").unwrap().total, 2);
    assert!(backend.message_ids("sess-demo-done").unwrap().len() > 10);
    assert!(snapshot.tasks.iter().all(|t| t.active_subagent_count == 0));
}
