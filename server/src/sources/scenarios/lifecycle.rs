//! The lifecycle scenario: replays `ws-subagent-lifecycle-events.json`
//! (task `task-7c1e`, session `sess-7c1e`; the board chip goes 0 → 2 → 2 →
//! 1 → 0) one frame per interval, so an end-to-end test can watch the chip.
//! Each pass starts by clearing the session; it loops unless `once`.

use crate::backend::{Backend, NewSession};
use crate::shutdown::Shutdown;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use taskview_core::read::protocol::{Envelope, StepDto, TaskDto, WorkflowDto};

const FIXTURE: &str = include_str!("../../../../tests/fixtures/ws-subagent-lifecycle-events.json");

/// The fixture's task and session.
pub const TASK_ID: &str = "task-7c1e";
/// The session whose messages the frames carry.
pub const SESSION_ID: &str = "sess-7c1e";

/// The fixture's frames, in order.
fn frames() -> Result<Vec<Envelope>, String> {
    let doc: Value = serde_json::from_str(FIXTURE).map_err(|e| e.to_string())?;
    let steps = doc
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("the fixture has no steps")?;
    steps
        .iter()
        .map(|step| Envelope::from_value(step.get("frame").cloned().unwrap_or(Value::Null)))
        .collect()
}

/// Loads the board (the fixture's workflow `wf-1`, its task, idle) and
/// returns the frames to play.
pub fn load(backend: &Backend) -> Vec<Envelope> {
    let frames = match frames() {
        Ok(frames) => frames,
        Err(e) => {
            tracing::error!("the embedded lifecycle fixture is unreadable: {e}");
            return Vec::new();
        }
    };
    backend.add_workflow(
        WorkflowDto {
            id: "wf-1".into(),
            workspace_id: "ws-1".into(),
            name: "Development".into(),
            ..WorkflowDto::default()
        },
        [
            ("step-todo", "Todo"),
            ("step-progress", "In Progress"),
            ("step-review", "Review"),
        ]
        .into_iter()
        .zip(0..)
        .map(|((id, name), position)| StepDto {
            id: id.into(),
            workflow_id: "wf-1".into(),
            name: name.into(),
            position,
            allow_manual_move: true,
            is_start_step: position == 0,
            ..StepDto::default()
        })
        .collect(),
    );
    // The task as the first frame describes it, before anything happens.
    let mut payload = frames
        .first()
        .map(|f| f.payload.clone())
        .unwrap_or_default();
    if let Some(obj) = payload.as_object_mut() {
        obj.remove("task_id");
        obj.insert("id".into(), TASK_ID.into());
    }
    let task: TaskDto = serde_json::from_value(payload).unwrap_or_else(|_| TaskDto {
        id: TASK_ID.into(),
        workflow_id: "wf-1".into(),
        workflow_step_id: "step-progress".into(),
        title: "Harden the sync closure".into(),
        ..TaskDto::default()
    });
    backend.add_task(task, Some(NewSession::waiting(SESSION_ID, false)));
    frames
}

/// Plays the frames every `interval`; a pause of three intervals between
/// passes; one pass when `once`.
pub async fn play(
    backend: Arc<Backend>,
    frames: Vec<Envelope>,
    interval: Duration,
    once: bool,
    mut shutdown: Shutdown,
) {
    for pass in 0u64.. {
        if pass > 0 {
            backend.clear_session(SESSION_ID);
        }
        for frame in &frames {
            backend.replay(frame);
            backend.update_scenario(|s| s.frames += 1);
            if !shutdown.sleep(interval).await {
                return;
            }
        }
        backend.update_scenario(|s| {
            s.iterations += 1;
            s.finished = once;
        });
        if once || !shutdown.sleep(interval * 3).await {
            return;
        }
    }
}
