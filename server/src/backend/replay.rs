//! Replaying recorded notifications: each is applied to the state and
//! announced verbatim.

use super::Backend;
use serde_json::Value;
use taskview_core::model::message::Message;
use taskview_core::read::protocol::{action, Envelope, TaskDto, TurnDto};

impl Backend {
    /// Applies a scripted notification to the state and announces it
    /// verbatim (the lifecycle scenario replays recorded frames this way).
    pub fn replay(&self, envelope: &Envelope) {
        let mut board = self.board();
        let p = &envelope.payload;
        let text = |key: &str| p.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        let session_id = text("session_id");
        match envelope.action.as_str() {
            action::TASK_CREATED | action::TASK_UPDATED | action::TASK_STATE_CHANGED => {
                if let Some(task) = board.task_mut(&text("task_id")) {
                    merge_task_payload(task, p);
                }
            }
            action::SESSION_STATE_CHANGED => {
                if let Some(s) = board.sessions.get_mut(&session_id) {
                    s.info.state = text("new_state");
                }
            }
            action::SESSION_ACTIVITY_CHANGED => {
                if let Some(s) = board.sessions.get_mut(&session_id) {
                    s.info.foreground_activity = p
                        .get("foreground_activity")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    s.info.active_subagent_count = p
                        .get("active_subagent_count")
                        .and_then(Value::as_u64)
                        .unwrap_or(0);
                }
            }
            action::SESSION_MESSAGE_ADDED | action::SESSION_MESSAGE_UPDATED => {
                if let (Some(s), Ok(m)) =
                    (board.sessions.get_mut(&session_id), Message::from_value(p))
                {
                    s.upsert(m);
                }
            }
            action::SESSION_MESSAGE_DELETED => {
                let id = text("message_id");
                if let Some(s) = board.sessions.get_mut(&session_id) {
                    s.remove(&id);
                }
            }
            action::SESSION_TURN_STARTED | action::SESSION_TURN_COMPLETED => {
                if let (Some(s), Ok(turn)) = (
                    board.sessions.get_mut(&session_id),
                    serde_json::from_value::<TurnDto>(p.clone()),
                ) {
                    let started = envelope.action == action::SESSION_TURN_STARTED;
                    s.active_turn = started.then(|| turn.id.clone());
                    s.upsert_turn(turn);
                }
            }
            other => tracing::debug!(action = other, "replayed without a state change"),
        }
        self.hub.publish(envelope, &session_id);
    }
}

/// Overlays a `task.*` payload on a task: keys the task knows are taken
/// (`foreground_activity: null` clears it); `task_id` and unknown keys are not.
fn merge_task_payload(task: &mut TaskDto, payload: &Value) {
    let (Ok(mut current), Some(incoming)) = (serde_json::to_value(&*task), payload.as_object())
    else {
        return;
    };
    let Some(fields) = current.as_object_mut() else {
        return;
    };
    for (key, value) in incoming {
        if key != "task_id" && (fields.contains_key(key) || key == "foreground_activity") {
            fields.insert(key.clone(), value.clone());
        }
    }
    match serde_json::from_value::<TaskDto>(current) {
        Ok(merged) => *task = merged,
        Err(e) => tracing::warn!("task payload not applied: {e}"),
    }
}
