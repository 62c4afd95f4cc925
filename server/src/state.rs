//! The in-memory backend: workflows, steps, tasks and sessions (messages in
//! order, turns), and every change to them, each announced through the hub
//! while the state lock is held, so announcements keep the order of changes.
//!
//! For sessions that derive their activity (demo, stream, recordings) the
//! backend itself keeps `active_subagent_count` true: the number of the
//! session's subagents that are not settled while their turn is active. A
//! change of that count (or of the foreground activity) is announced with
//! `session.activity_changed` and one `task.updated` (kandev-wire.md §4.1).

use crate::clock;
use crate::hub::Hub;
use crate::pagination;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};
use taskview_core::event::Event;
use taskview_core::model::Message;
use taskview_core::protocol::{
    self, action, Envelope, ErrorCode, ErrorPayload, MessagesPage, MessagesQuery, SessionDto,
    Snapshot, StepDto, TaskDto, TurnDto, TurnList, WorkflowDto, WorkflowList,
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

/// Payload statuses that mean a subagent has settled (SPEC.md §3.4).
const SETTLED_STATUSES: [&str; 7] = [
    "complete",
    "completed",
    "success",
    "error",
    "failed",
    "cancelled",
    "canceled",
];

/// A session to create along with its task.
#[derive(Clone, Debug)]
pub struct NewSession {
    pub id: String,
    pub state: String,
    /// Derive `active_subagent_count` and `foreground_activity` from the
    /// messages and the active turn (false when a script dictates them).
    pub derive_activity: bool,
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

struct Session {
    info: SessionDto,
    messages: Vec<Message>,
    positions: HashMap<String, usize>,
    turns: Vec<TurnDto>,
    active_turn: Option<String>,
    derive_activity: bool,
}

impl Session {
    /// Inserts or replaces a message, re-homed into this session; true when
    /// it is new.
    fn upsert(&mut self, mut m: Message) -> bool {
        self.rehome(&mut m);
        match self.positions.get(&m.id) {
            Some(&p) => {
                self.messages[p] = m;
                false
            }
            None => {
                self.positions.insert(m.id.clone(), self.messages.len());
                self.messages.push(m);
                true
            }
        }
    }

    /// A message in this session carries this session's and task's ids.
    fn rehome(&self, m: &mut Message) {
        m.session_id.clone_from(&self.info.id);
        m.task_id.clone_from(&self.info.task_id);
    }

    fn remove(&mut self, id: &str) -> Option<Message> {
        let p = self.positions.remove(id)?;
        let removed = self.messages.remove(p);
        for m in &self.messages[p..] {
            if let Some(q) = self.positions.get_mut(&m.id) {
                *q -= 1;
            }
        }
        Some(removed)
    }

    fn upsert_turn(&mut self, turn: TurnDto) {
        match self.turns.iter_mut().find(|t| t.id == turn.id) {
            Some(t) => *t = turn,
            None => self.turns.push(turn),
        }
    }

    /// Subagents that are not settled, in the active turn.
    fn running_subagents(&self) -> u64 {
        let Some(active) = &self.active_turn else {
            return 0;
        };
        let running = self.messages.iter().filter(|m| {
            let status = m.metadata.status.as_deref().unwrap_or("");
            m.is_subagent_payload()
                && !SETTLED_STATUSES.contains(&status)
                && m.turn_id.as_ref().is_none_or(|t| t == active)
        });
        running.count() as u64
    }

    fn dto(&self) -> SessionDto {
        SessionDto {
            message_count: self.messages.len() as u64,
            ..self.info.clone()
        }
    }
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
}

/// The backend shared by HTTP handlers, WebSocket connections and scenarios.
#[derive(Default)]
pub struct Backend {
    board: Mutex<Board>,
    hub: Hub,
    scenario: Mutex<ScenarioStatus>,
}

impl Backend {
    fn board(&self) -> MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The WebSocket clients.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    fn publish(&self, name: &str, payload: Value, session_id: &str) {
        let envelope = Envelope::notification(name, payload, &clock::now());
        self.hub.publish(&envelope, session_id);
    }

    /// Announces a message event, adding the session and task ids the
    /// event itself does not carry.
    fn publish_message_event(&self, event: &Event, session_id: &str, task_id: &str) {
        let Some(mut envelope) = protocol::notification_for_event(event, &clock::now()) else {
            return;
        };
        if let Some(obj) = envelope.payload.as_object_mut() {
            obj.entry("session_id").or_insert_with(|| session_id.into());
            obj.entry("task_id").or_insert_with(|| task_id.into());
        }
        self.hub.publish(&envelope, session_id);
    }

    /// Adds a workflow and its steps (no notification: boards load by snapshot).
    pub fn add_workflow(&self, workflow: WorkflowDto, steps: Vec<StepDto>) {
        let mut board = self.board();
        board.workflows.push(workflow);
        board.steps.extend(steps);
    }

    /// Adds a task, with its session when it has one, and announces `task.created`.
    pub fn add_task(&self, mut task: TaskDto, session: Option<NewSession>) {
        let mut board = self.board();
        if let Some(s) = session {
            let now = clock::now();
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
            let session = Session {
                info,
                messages: Vec::new(),
                positions: HashMap::new(),
                turns: Vec::new(),
                active_turn: None,
                derive_activity: s.derive_activity,
            };
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
        for mut m in messages {
            session.rehome(&mut m);
            let unchanged = session
                .positions
                .get(&m.id)
                .is_some_and(|&p| session.messages[p] == m);
            if unchanged {
                continue;
            }
            events.push(if session.upsert(m.clone()) {
                Event::MessageAdded(m)
            } else {
                Event::MessageUpdated(m.clone().into())
            });
        }
        for event in &events {
            self.publish_message_event(event, session_id, &task_id);
        }
        self.settle(&mut board, session_id);
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

    /// Starts a turn at `at`: `session.turn.started`, the session becomes RUNNING.
    pub fn start_turn(&self, session_id: &str, turn_id: &str, at: &str) {
        let mut board = self.board();
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
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
            if let Some(turn) = session.turns.iter_mut().find(|t| t.id == turn_id) {
                turn.completed_at = Some(at.to_string());
                turn.updated_at = at.to_string();
                let mut payload = json!(turn);
                payload["had_output"] = Value::Bool(true);
                self.publish(action::SESSION_TURN_COMPLETED, payload, "");
            }
        }
        let state = final_state.unwrap_or(session_state::WAITING_FOR_INPUT);
        self.change_state(&mut board, session_id, state);
        self.settle(&mut board, session_id);
    }

    /// Records a finished turn without announcing it (loading a static transcript).
    pub fn record_turn(&self, session_id: &str, turn: TurnDto) {
        if let Some(session) = self.board().sessions.get_mut(session_id) {
            session.upsert_turn(turn);
        }
    }

    /// Changes a task through `change` and announces `task.updated`.
    pub fn update_task(&self, task_id: &str, change: impl FnOnce(&mut TaskDto)) {
        let mut board = self.board();
        if let Some(task) = board.task_mut(task_id) {
            change(task);
            task.updated_at = clock::now();
            self.publish(action::TASK_UPDATED, task.notification_payload(), "");
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
        session.info.updated_at = clock::now();
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
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
        if !session.derive_activity {
            return;
        }
        let count = session.running_subagents();
        let activity = session.active_turn.as_ref().map(|_| GENERATING.to_string());
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
        let unchanged = task.active_subagent_count == total
            && (!is_primary
                || (task.primary_session_state.as_deref() == Some(state.as_str())
                    && task.foreground_activity == activity));
        if unchanged {
            return;
        }
        task.active_subagent_count = total;
        if is_primary {
            task.primary_session_state = Some(state);
            task.foreground_activity = activity;
        }
        task.updated_at = clock::now();
        self.publish(action::TASK_UPDATED, task.notification_payload(), "");
    }

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

    /// `GET /api/v1/workflows`, optionally for one workspace.
    pub fn workflows(&self, workspace_id: Option<&str>) -> WorkflowList {
        let board = self.board();
        let workflows: Vec<WorkflowDto> = board
            .workflows
            .iter()
            .filter(|w| workspace_id.is_none_or(|ws| w.workspace_id == ws))
            .cloned()
            .collect();
        WorkflowList {
            total: workflows.len() as u64,
            workflows,
        }
    }

    /// A workflow by id.
    pub fn workflow(&self, id: &str) -> Option<WorkflowDto> {
        self.board().workflows.iter().find(|w| w.id == id).cloned()
    }

    /// `GET /api/v1/workflows/{id}/snapshot`: steps by position, tasks by
    /// column then position.
    pub fn snapshot(&self, workflow_id: &str) -> Option<Snapshot> {
        let board = self.board();
        let workflow = board
            .workflows
            .iter()
            .find(|w| w.id == workflow_id)?
            .clone();
        let mut steps: Vec<StepDto> = board
            .steps
            .iter()
            .filter(|s| s.workflow_id == workflow_id)
            .cloned()
            .collect();
        steps.sort_by_key(|s| s.position);
        let column = |t: &TaskDto| steps.iter().position(|s| s.id == t.workflow_step_id);
        let mut tasks: Vec<TaskDto> = board
            .tasks
            .iter()
            .filter(|t| t.workflow_id == workflow_id)
            .cloned()
            .collect();
        tasks.sort_by_key(|t| (column(t), t.position));
        Some(Snapshot {
            workflow,
            steps,
            tasks,
        })
    }

    /// `GET /api/v1/tasks/{id}`.
    pub fn task(&self, task_id: &str) -> Option<TaskDto> {
        self.board().tasks.iter().find(|t| t.id == task_id).cloned()
    }

    /// The sessions of a task; `None` when the task does not exist.
    pub fn task_sessions(&self, task_id: &str) -> Option<Vec<SessionDto>> {
        let board = self.board();
        board.tasks.iter().find(|t| t.id == task_id)?;
        let mut sessions: Vec<SessionDto> = board
            .sessions
            .values()
            .filter(|s| s.info.task_id == task_id)
            .map(Session::dto)
            .collect();
        sessions.sort_by(|a, b| a.id.cmp(&b.id));
        Some(sessions)
    }

    /// `GET /api/v1/task-sessions/{sid}`.
    pub fn session(&self, session_id: &str) -> Option<SessionDto> {
        self.board().sessions.get(session_id).map(Session::dto)
    }

    /// A page of a session's messages (HTTP and `message.list`).
    pub fn messages_page(
        &self,
        session_id: &str,
        query: &MessagesQuery,
    ) -> Result<MessagesPage, ErrorPayload> {
        let board = self.board();
        let session = board.sessions.get(session_id).ok_or_else(|| {
            ErrorPayload::new(
                ErrorCode::NotFound,
                format!("session {session_id} not found"),
            )
        })?;
        let position_of = |id: &str| session.positions.get(id).copied();
        let slice =
            pagination::select(session.messages.len(), position_of, query).map_err(|id| {
                ErrorPayload::new(
                    ErrorCode::NotFound,
                    format!("message {id} not found in session {session_id}"),
                )
            })?;
        let messages: Vec<Value> = slice
            .positions
            .iter()
            .map(|&p| session.messages[p].to_value())
            .collect();
        let cursor = slice
            .positions
            .last()
            .map(|&p| session.messages[p].id.clone());
        Ok(MessagesPage {
            total: messages.len() as u64,
            messages,
            has_more: slice.has_more,
            cursor,
        })
    }

    /// `GET /api/v1/task-sessions/{sid}/turns`.
    pub fn turns(&self, session_id: &str) -> Option<TurnList> {
        let board = self.board();
        let turns = board.sessions.get(session_id)?.turns.clone();
        Some(TurnList {
            total: turns.len() as u64,
            turns,
        })
    }

    /// The ids of a session's messages, in order (`None`: no such session).
    pub fn message_ids(&self, session_id: &str) -> Option<Vec<String>> {
        let board = self.board();
        let session = board.sessions.get(session_id)?;
        Some(session.messages.iter().map(|m| m.id.clone()).collect())
    }

    /// The session's active turn, if any.
    pub fn active_turn(&self, session_id: &str) -> Option<String> {
        self.board().sessions.get(session_id)?.active_turn.clone()
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

#[cfg(test)]
mod tests;
