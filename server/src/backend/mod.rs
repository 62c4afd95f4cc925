//! The in-memory backend: workflows, steps, tasks and sessions (messages in
//! order, turns), and every change to them, each announced through the hub
//! while the state lock is held, so announcements keep the order of changes.
//!
//! For sessions that derive their activity (demo, stream, recordings) the
//! backend itself keeps `active_subagent_count` true: the number of the
//! session's subagents that are running by core's rule
//! (`taskview_core::model::status::is_running_subagent`, the transcript's spinners). A
//! change of that count (or of the foreground activity) is announced with
//! `session.activity_changed` and one `task.updated` (docs/protocol.md §4.1).

use crate::backend::hub::Hub;
use crate::clock::Clock;
pub use changes::MessageChange;
use serde::Serialize;
use serde_json::{json, Value};
use session::Session;
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::read::protocol::{
    self, action, Envelope, SessionDto, StepDto, TaskDto, TurnDto, WorkflowDto,
};

/// Session states (kandev's vocabulary).
pub mod session_state {
    /// A turn is being processed.
    pub const RUNNING: &str = "RUNNING";
    /// Idle between turns.
    pub const WAITING_FOR_INPUT: &str = "WAITING_FOR_INPUT";
    /// Finished for good.
    pub const COMPLETED: &str = "COMPLETED";
}

/// `foreground_activity` while a turn is active.
const GENERATING: &str = "generating";
/// `foreground_activity` while only subagents work: the turn that launched
/// them has ended.
const BACKGROUND: &str = "background";

/// Task states (kandev's vocabulary) that a deriving session sets.
pub mod task_state {
    /// Its agent works: a turn is under way or a subagent runs.
    pub const IN_PROGRESS: &str = "IN_PROGRESS";
    /// Its agent's last turn ended with nothing running.
    pub const COMPLETED: &str = "COMPLETED";
}

/// The state of a deriving session's task (docs/behaviour.md §7, "Watching agents at
/// work"): in progress while its agent works (a turn is active) or any of
/// its subagents runs, settled otherwise.
fn derived_task_state(turn_active: bool, running_subagents: u64) -> &'static str {
    if turn_active || running_subagents > 0 {
        task_state::IN_PROGRESS
    } else {
        task_state::COMPLETED
    }
}

/// A deriving session's `foreground_activity`: generating during a turn,
/// background while only subagents run, none at rest.
fn derived_activity(turn_active: bool, running_subagents: u64) -> Option<String> {
    match (turn_active, running_subagents) {
        (true, _) => Some(GENERATING.into()),
        (false, 0) => None,
        (false, _) => Some(BACKGROUND.into()),
    }
}

/// A session to create along with its task.
#[derive(Clone, Debug)]
pub struct NewSession {
    pub id: String,
    pub state: String,
    /// Derive `active_subagent_count` and `foreground_activity` from the
    /// messages and the active turn (false when a script dictates them).
    pub derive_activity: bool,
}

impl NewSession {
    /// A session waiting for input.
    pub fn waiting(id: impl Into<String>, derive_activity: bool) -> NewSession {
        NewSession {
            id: id.into(),
            state: session_state::WAITING_FOR_INPUT.into(),
            derive_activity,
        }
    }
}

/// What the running scenario has done: `GET /api/v1/scenario`, so tests can
/// wait for a scripted run to finish instead of sleeping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ScenarioStatus {
    /// `demo`, `lifecycle`, `stream` or `recordings`.
    pub name: String,
    /// True once a scenario that ends (`--once`, `stream`) has played its last frame.
    pub finished: bool,
    /// Completed passes (lifecycle) or turns (demo, stream).
    pub iterations: u64,
    /// Scripted steps applied so far.
    pub frames: u64,
}

#[derive(Default)]
struct Board {
    workflows: Vec<WorkflowDto>,
    steps: Vec<StepDto>,
    tasks: Vec<TaskDto>,
    sessions: HashMap<String, Session>,
}

impl Board {
    fn task_mut(&mut self, id: &str) -> Option<&mut TaskDto> {
        self.tasks.iter_mut().find(|t| t.id == id)
    }

    /// Whether `session_id` is the primary session of a task that says
    /// nobody writes it any more (`primary_session_still`).
    fn is_still(&self, session_id: &str) -> bool {
        self.tasks.iter().any(|t| {
            t.primary_session_id.as_deref() == Some(session_id)
                && t.primary_session_still == Some(true)
        })
    }
}

/// The backend shared by HTTP handlers, WebSocket connections and scenarios.
#[derive(Default)]
pub struct Backend {
    clock: Clock,
    board: Mutex<Board>,
    hub: Hub,
    scenario: Mutex<ScenarioStatus>,
    /// Imports a session that is listed but not loaded (`residency`).
    opener: std::sync::OnceLock<residency::Opener>,
}

impl Backend {
    /// A backend whose timestamps come from `clock`.
    pub(crate) fn with_clock(clock: Clock) -> Backend {
        Backend {
            clock,
            ..Backend::default()
        }
    }

    /// The one clock of every timestamp this backend writes.
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    fn board(&self) -> MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The WebSocket clients.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    fn publish(&self, name: &str, payload: Value, session_id: &str) {
        let envelope = Envelope::notification(name, payload, &self.clock.now());
        self.hub.publish(&envelope, session_id);
    }

    /// Announces a message event, adding the session and task ids the
    /// event itself does not carry.
    fn publish_message_event(&self, event: &Event, session_id: &str, task_id: &str) {
        if let Some(envelope) = self.message_envelope(event, session_id, task_id) {
            self.hub.publish(&envelope, session_id);
        }
    }

    /// The notification of a message event of a session of a task.
    fn message_envelope(&self, event: &Event, session_id: &str, task_id: &str) -> Option<Envelope> {
        let mut envelope = protocol::notification_for_event(event, &self.clock.now())?;
        if let Some(obj) = envelope.payload.as_object_mut() {
            obj.entry("session_id").or_insert_with(|| session_id.into());
            obj.entry("task_id").or_insert_with(|| task_id.into());
        }
        Some(envelope)
    }

    /// Fills empty creation and update dates with the clock's now.
    fn date(&self, created_at: &mut String, updated_at: &mut String) {
        for at in [created_at, updated_at] {
            if at.is_empty() {
                *at = self.clock.now();
            }
        }
    }

    /// Adds a workflow and its steps (no notification: boards load by
    /// snapshot). Dates it leaves empty are the clock's now.
    pub fn add_workflow(&self, mut workflow: WorkflowDto, steps: Vec<StepDto>) {
        self.date(&mut workflow.created_at, &mut workflow.updated_at);
        let mut board = self.board();
        board.workflows.push(workflow);
        board.steps.extend(steps);
    }

    /// Adds a task, with its session when it has one, and announces
    /// `task.created`. Dates it leaves empty are the clock's now.
    pub fn add_task(&self, mut task: TaskDto, session: Option<NewSession>) {
        self.date(&mut task.created_at, &mut task.updated_at);
        let mut board = self.board();
        if let Some(s) = session {
            let now = self.clock.now();
            task.primary_session_id = Some(s.id.clone());
            task.primary_session_state = Some(s.state.clone());
            task.session_count = 1;
            let info = SessionDto {
                id: s.id.clone(),
                task_id: task.id.clone(),
                state: s.state,
                created_at: now.clone(),
                updated_at: now,
                ..SessionDto::default()
            };
            let session = Session::new(info, s.derive_activity);
            board.sessions.insert(s.id, session);
        }
        self.publish(action::TASK_CREATED, task.notification_payload(), "");
        board.tasks.push(task);
    }

    /// Adds a message, or replaces it whole when its id is known, and
    /// announces it (`added` or `updated`). False when the session does not exist.
    pub fn put_message(&self, session_id: &str, mut message: Message) -> bool {
        let mut board = self.board();
        let Some(session) = board.sessions.get_mut(session_id) else {
            return false;
        };
        session.rehome(&mut message);
        let task_id = session.info.task_id.clone();
        let event = if session.upsert(message.clone()) {
            Event::MessageAdded(message)
        } else {
            Event::MessageUpdated(message.clone().into())
        };
        self.publish_message_event(&event, session_id, &task_id);
        self.settle(&mut board, session_id);
        true
    }

    /// Makes a session's messages equal `messages` (in this order for new
    /// ones): announces what was added, changed and removed.
    pub fn sync_messages(&self, session_id: &str, messages: Vec<Message>) {
        let mut board = self.board();
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
        let task_id = session.info.task_id.clone();
        let wanted: HashSet<String> = messages.iter().map(|m| m.id.clone()).collect();
        let gone: Vec<String> = session
            .messages
            .iter()
            .filter(|m| !wanted.contains(&m.id))
            .map(|m| m.id.clone())
            .collect();
        let mut events = Vec::new();
        for id in gone {
            session.remove(&id);
            events.push(Event::MessageDeleted { id });
        }
        events.extend(messages.into_iter().filter_map(|m| session.put(m)));
        self.announce_change(&mut board, session_id, &task_id, &events);
    }

    /// Announces one change of a session's messages as one frame, whichever
    /// thread made it, then settles its activity.
    fn announce_change(
        &self,
        board: &mut Board,
        session_id: &str,
        task_id: &str,
        events: &[Event],
    ) {
        let envelopes: Vec<Envelope> = events
            .iter()
            .filter_map(|event| self.message_envelope(event, session_id, task_id))
            .collect();
        self.hub.publish_together(&envelopes, session_id);
        self.settle(board, session_id);
    }

    /// Removes every message and turn of a session, announcing the deletions.
    pub fn clear_session(&self, session_id: &str) {
        let mut board = self.board();
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
        let task_id = session.info.task_id.clone();
        let ids: Vec<String> = session.messages.iter().map(|m| m.id.clone()).collect();
        session.messages.clear();
        session.positions.clear();
        session.turns.clear();
        session.active_turn = None;
        for id in ids {
            self.publish_message_event(&Event::MessageDeleted { id }, session_id, &task_id);
        }
        self.settle(&mut board, session_id);
    }

    /// Keeps only the newest `keep` turns of a session: older turns and
    /// their messages are removed, each deletion announced. Messages without
    /// a turn are kept.
    pub fn trim_turns(&self, session_id: &str, keep: usize) {
        let mut board = self.board();
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
        let excess = session.turns.len().saturating_sub(keep);
        if excess == 0 {
            return;
        }
        let old: HashSet<String> = session.turns.drain(..excess).map(|t| t.id).collect();
        let task_id = session.info.task_id.clone();
        let doomed: Vec<String> = session
            .messages
            .iter()
            .filter(|m| m.turn_id.as_ref().is_some_and(|t| old.contains(t)))
            .map(|m| m.id.clone())
            .collect();
        session.messages.retain(|m| !doomed.contains(&m.id));
        session.positions = (0..)
            .zip(&session.messages)
            .map(|(p, m)| (m.id.clone(), p))
            .collect();
        for id in doomed {
            self.publish_message_event(&Event::MessageDeleted { id }, session_id, &task_id);
        }
    }

    /// Starts a turn at `at`: `session.turn.started`, the session becomes
    /// RUNNING. A turn still active ends at `at` first (`session.turn.completed`)
    /// without the session resting in between.
    pub fn start_turn(&self, session_id: &str, turn_id: &str, at: &str) {
        let mut board = self.board();
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
        if let Some(previous) = session.active_turn.take() {
            self.end_turn(session, &previous, at);
        }
        let turn = TurnDto {
            id: turn_id.to_string(),
            session_id: session_id.to_string(),
            task_id: session.info.task_id.clone(),
            started_at: at.to_string(),
            completed_at: None,
            created_at: at.to_string(),
            updated_at: at.to_string(),
        };
        session.active_turn = Some(turn_id.to_string());
        session.upsert_turn(turn.clone());
        self.publish(action::SESSION_TURN_STARTED, json!(turn), "");
        self.change_state(&mut board, session_id, session_state::RUNNING);
        self.settle(&mut board, session_id);
    }

    /// Completes the active turn at `at`: `session.turn.completed`, the
    /// session waits for input (or `final_state`, when given).
    pub fn complete_turn(&self, session_id: &str, at: &str, final_state: Option<&str>) {
        let mut board = self.board();
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
        if let Some(turn_id) = session.active_turn.take() {
            self.end_turn(session, &turn_id, at);
        }
        let state = final_state.unwrap_or(session_state::WAITING_FOR_INPUT);
        self.change_state(&mut board, session_id, state);
        self.settle(&mut board, session_id);
    }

    /// Marks `turn_id` completed at `at` and announces `session.turn.completed`.
    fn end_turn(&self, session: &mut Session, turn_id: &str, at: &str) {
        if let Some(turn) = session.turns.iter_mut().find(|t| t.id == turn_id) {
            turn.completed_at = Some(at.to_string());
            turn.updated_at = at.to_string();
            let mut payload = json!(turn);
            payload["had_output"] = Value::Bool(true);
            self.publish(action::SESSION_TURN_COMPLETED, payload, "");
        }
    }

    /// Records a finished turn without announcing it (loading a static transcript).
    pub fn record_turn(&self, session_id: &str, turn: TurnDto) {
        if let Some(session) = self.board().sessions.get_mut(session_id) {
            session.upsert_turn(turn);
        }
    }

    /// Changes a task through `change` and announces `task.updated`; when
    /// its primary session becomes still or stops being still, that
    /// session's activity is worked out again.
    pub fn update_task(&self, task_id: &str, change: impl FnOnce(&mut TaskDto)) {
        let mut board = self.board();
        let Some(task) = board.task_mut(task_id) else {
            return;
        };
        let was_still = task.primary_session_still == Some(true);
        change(task);
        task.updated_at = self.clock.now();
        self.publish(action::TASK_UPDATED, task.notification_payload(), "");
        let still = task.primary_session_still == Some(true);
        if let Some(primary) = task
            .primary_session_id
            .clone()
            .filter(|_| still != was_still)
        {
            self.settle(&mut board, &primary);
        }
    }

    fn change_state(&self, board: &mut Board, session_id: &str, new_state: &str) {
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
        if session.info.state == new_state {
            return;
        }
        let old_state = std::mem::replace(&mut session.info.state, new_state.to_string());
        session.info.updated_at = self.clock.now();
        let payload = json!({
            "task_id": session.info.task_id,
            "session_id": session_id,
            "old_state": old_state,
            "new_state": new_state,
            "updated_at": session.info.updated_at,
            "foreground_activity": session.info.foreground_activity,
            "active_subagent_count": session.info.active_subagent_count,
        });
        self.publish(action::SESSION_STATE_CHANGED, payload, "");
    }

    /// Brings a deriving session's activity and its task up to date,
    /// announcing what changed.
    fn settle(&self, board: &mut Board, session_id: &str) {
        let still = board.is_still(session_id);
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
        if !session.derive_activity {
            return;
        }
        // docs/behaviour.md §8: where nobody writes any more, a run that never got a
        // result is interrupted, not running.
        let count = if still {
            0
        } else {
            session.running_subagents()
        };
        let turn_active = session.active_turn.is_some();
        let last_settled = count == 0 && session.info.active_subagent_count > 0;
        if turn_active || count > 0 {
            session.settle_hold = None;
        } else if last_settled {
            session.settle_hold = Some(Instant::now());
        }
        let held = session.settle_hold.is_some();
        let activity = derived_activity(turn_active, count);
        if (count, &activity)
            != (
                session.info.active_subagent_count,
                &session.info.foreground_activity,
            )
        {
            session.info.active_subagent_count = count;
            session.info.foreground_activity.clone_from(&activity);
            let payload = json!({
                "task_id": session.info.task_id,
                "session_id": session_id,
                "foreground_activity": activity,
                "active_subagent_count": count,
                "supports_steering": false,
            });
            self.publish(action::SESSION_ACTIVITY_CHANGED, payload, "");
        }
        let task_id = session.info.task_id.clone();
        let state = session.info.state.clone();
        let total = board
            .sessions
            .values()
            .filter(|s| s.info.task_id == task_id)
            .map(|s| s.info.active_subagent_count)
            .sum();
        let Some(task) = board.task_mut(&task_id) else {
            return;
        };
        let is_primary = task.primary_session_id.as_deref() == Some(session_id);
        let task_state = derived_task_state(turn_active || held, count);
        let unchanged = task.active_subagent_count == total
            && (!is_primary
                || (task.primary_session_state.as_deref() == Some(state.as_str())
                    && task.foreground_activity == activity
                    && task.state == task_state));
        if unchanged {
            return;
        }
        task.active_subagent_count = total;
        if is_primary {
            task.primary_session_state = Some(state);
            task.foreground_activity = activity;
            task.state = task_state.into();
        }
        task.updated_at = self.clock.now();
        self.publish(action::TASK_UPDATED, task.notification_payload(), "");
    }

    /// Lets the tasks settle whose last subagent settled at least `after`
    /// ago with their agent still resting (docs/behaviour.md §7). A background
    /// subagent's end wakes its agent (its notification follows at once):
    /// until the session's files have been read once more, its task does not
    /// read settled in between. The recordings call this after every look.
    pub fn release_settle_holds(&self, after: Duration) {
        let mut board = self.board();
        let due: Vec<String> = board
            .sessions
            .iter_mut()
            .filter(|(_, s)| s.settle_hold.is_some_and(|at| at.elapsed() >= after))
            .map(|(id, s)| {
                s.settle_hold = None;
                id.clone()
            })
            .collect();
        for session_id in due {
            self.settle(&mut board, &session_id);
        }
    }

    /// What the scenario has done so far.
    pub fn scenario(&self) -> ScenarioStatus {
        self.scenario
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Records scenario progress.
    pub fn update_scenario(&self, change: impl FnOnce(&mut ScenarioStatus)) {
        change(&mut self.scenario.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

mod changes;
pub mod hub;
pub(crate) mod pagination;
mod queries;
mod replay;
mod residency;
mod session;
mod telemetry;

#[cfg(test)]
mod tests;
