//! The stream scenario: one session receives exactly `messages` messages
//! (plus the updates of their tool calls and subagents), one frame per
//! interval, then ends. Its final state is a function of the seed alone:
//! the last message is `stream-end`, the session COMPLETED, the task
//! COMPLETED, and `GET /api/v1/scenario` says `finished: true`.

use super::demo;
use super::script::{self, Change, Step, Timeline, Writer};
use crate::backend::{session_state, Backend, NewSession};
use crate::shutdown::Shutdown;
use crate::sources::scenarios::rng::Rng;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use taskview_core::model::message::Author;
use taskview_core::read::protocol::{StepDto, TaskDto, WorkflowDto};

/// The streaming task.
pub const TASK_ID: &str = "task-stream";
/// Its session.
pub const SESSION_ID: &str = "sess-stream";
/// The id of the last message.
pub const END_MESSAGE_ID: &str = "stream-end";

/// Where the stream's clock stands, stopped (its state depends on the seed
/// only, timestamps included): 2026-08-03T10:00:00Z.
pub const EPOCH: u64 = 1_785_751_200_000;

/// The whole script, from [`EPOCH`]: demo cycles while they fit, then plain
/// messages up to exactly `messages`, the last being [`END_MESSAGE_ID`].
pub fn script(seed: u64, messages: usize) -> Vec<Step> {
    let profile = demo::Profile {
        task_id: TASK_ID,
        session_id: SESSION_ID,
        ..*demo::STREAM_PROFILE
    };
    let mut rng = Rng::new(seed, 0);
    let mut steps = Vec::new();
    let mut remaining = messages;
    let mut at = EPOCH;
    let mut turn = 0;
    loop {
        let cycle = demo::cycle(&mut rng, &profile, turn, at, false);
        // Keep room for the closing message.
        if cycle.message_count() >= remaining {
            break;
        }
        remaining -= cycle.message_count();
        at = cycle.end() + 1000;
        turn += 1;
        steps.extend(cycle.into_steps());
    }
    if remaining == 0 {
        return steps;
    }
    let writer = Writer {
        session_id: SESSION_ID.into(),
        task_id: TASK_ID.into(),
        turn_id: format!("turn-{}", turn + 1),
    };
    let mut last = Timeline::default();
    last.push(at, Change::StartTurn(writer.turn_id.clone()));
    for n in 1..remaining {
        let id = format!("stream-note-{n:05}");
        let text = format!("Progress note {n} of {}.", remaining - 1);
        let m = writer.message(
            &id,
            at + n as u64,
            Author::Agent,
            "message",
            &text,
            json!({}),
        );
        last.push(at + n as u64, Change::Put(Box::new(m)));
    }
    let end_at = at + remaining as u64;
    let text = format!("Stream complete: {messages} messages.");
    let end = writer.message(
        END_MESSAGE_ID,
        end_at,
        Author::Agent,
        "message",
        &text,
        json!({}),
    );
    last.push(end_at, Change::Put(Box::new(end)));
    last.push(end_at, Change::CompleteTurn(Some(session_state::COMPLETED)));
    steps.extend(last.into_steps());
    steps
}

/// Loads the board: one workflow, one task, its empty session.
pub fn load(backend: &Backend, messages: usize) {
    backend.add_workflow(
        WorkflowDto {
            id: "wf-stream".into(),
            workspace_id: "ws-stream".into(),
            name: "Stream".into(),
            ..WorkflowDto::default()
        },
        vec![StepDto {
            id: "step-stream".into(),
            workflow_id: "wf-stream".into(),
            name: "Streaming".into(),
            is_start_step: true,
            ..StepDto::default()
        }],
    );
    let task = TaskDto {
        id: TASK_ID.into(),
        workspace_id: "ws-stream".into(),
        workflow_id: "wf-stream".into(),
        workflow_step_id: "step-stream".into(),
        title: format!("Stream of {messages} messages"),
        state: "IN_PROGRESS".into(),
        priority: "medium".into(),
        wip_admitted: true,
        ..TaskDto::default()
    };
    backend.add_task(task, Some(NewSession::waiting(SESSION_ID, true)));
}

/// Plays the script one step per `interval`, then marks the task COMPLETED.
pub async fn play(
    backend: Arc<Backend>,
    steps: Vec<Step>,
    interval: Duration,
    mut shutdown: Shutdown,
) {
    for step in &steps {
        script::apply(&backend, SESSION_ID, step);
        if matches!(step.change, Change::CompleteTurn(_)) {
            backend.update_scenario(|s| s.iterations += 1);
        }
        if interval.is_zero() {
            // Stay fair to connections and the HTTP server.
            tokio::task::yield_now().await;
        } else if !shutdown.sleep(interval).await {
            return;
        }
    }
    backend.update_task(TASK_ID, |t| t.state = "COMPLETED".into());
    backend.update_scenario(|s| s.finished = true);
    tracing::info!("stream scenario finished");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn put_ids(steps: &[Step]) -> Vec<String> {
        let mut seen = HashSet::new();
        steps
            .iter()
            .filter_map(|s| match &s.change {
                Change::Put(m) if seen.insert(m.id.clone()) => Some(m.id.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_script_puts_exactly_the_asked_number_of_messages_and_ends() {
        for n in [1, 2, 5, 37, 300, 2000] {
            let steps = script(4, n);
            let ids = put_ids(&steps);
            assert_eq!(ids.len(), n);
            assert_eq!(ids.last().map(String::as_str), Some(END_MESSAGE_ID));
            assert_eq!(
                steps.last().map(|s| &s.change),
                Some(&Change::CompleteTurn(Some(session_state::COMPLETED)))
            );
        }
        assert!(script(4, 0).is_empty());
    }

    #[test]
    fn the_script_depends_on_the_seed_only() {
        assert_eq!(script(9, 400), script(9, 400));
        assert_ne!(script(9, 400), script(10, 400));
    }

    #[test]
    fn a_long_stream_holds_updates_and_subagents() {
        let steps = script(1, 300);
        let subagents = steps
            .iter()
            .filter(|s| matches!(&s.change, Change::Put(m) if m.is_subagent_payload()))
            .count();
        assert!(steps.len() > 400, "{}", steps.len());
        assert!(subagents > 10);
    }
}
