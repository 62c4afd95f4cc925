//! The backend's changes as data, for whoever keeps them elsewhere (the
//! team store's publisher, `sources::store`): every task, session, turn and
//! message change is handed to the outbox in the order it was made, while
//! the state lock is held, including the unannounced whole import of a
//! session (`load_session`) that no WebSocket client hears of. Sending
//! never blocks: the receiver coalesces and writes at its own pace.

use super::Backend;
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::read::protocol::{SessionDto, TaskDto, TurnDto};
use tokio::sync::mpsc;

/// One change of the backend's state.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A task was added or changed: the task as it is now.
    Task(Box<TaskDto>),
    /// A task and its sessions were removed.
    TaskRemoved(String),
    /// A session was added or its state or activity changed.
    Session(SessionDto),
    /// A turn started, ended or was recorded.
    Turn(TurnDto),
    /// Some of a session's messages were added or replaced (`put`, whole)
    /// or removed (ids).
    Messages {
        session_id: String,
        put: Vec<Message>,
        removed: Vec<String>,
    },
    /// A session's messages and turns, whole: what it holds now replaces
    /// what it held (a message missing here was removed).
    Whole {
        session_id: String,
        messages: Vec<Message>,
        turns: Vec<TurnDto>,
    },
}

/// Where a backend sends its changes.
pub type Outbox = mpsc::UnboundedSender<Change>;

impl Change {
    /// The message change announced by `events` of session `session_id`;
    /// `None` when they hold no message change.
    pub(super) fn of_events(session_id: &str, events: &[Event]) -> Option<Change> {
        let mut put = Vec::new();
        let mut removed = Vec::new();
        for event in events {
            match event {
                Event::MessageAdded(m) | Event::MessageReplaced(m) => put.push(m.clone()),
                Event::MessageUpdated(patch) => put.push(patch.clone().into_message()),
                Event::MessageDeleted { id } => removed.push(id.clone()),
                _ => {}
            }
        }
        (!put.is_empty() || !removed.is_empty()).then(|| Change::Messages {
            session_id: session_id.to_string(),
            put,
            removed,
        })
    }
}

impl Backend {
    /// Sends every later change to `outbox` (once; later calls are ignored).
    pub fn set_outbox(&self, outbox: Outbox) {
        let _ = self.outbox.set(outbox);
    }

    /// Hands the change `make` builds to the outbox, when there is one (the
    /// change is built only then).
    pub(super) fn emit(&self, make: impl FnOnce() -> Option<Change>) {
        let Some(outbox) = self.outbox.get() else {
            return;
        };
        if let Some(change) = make() {
            // A closed outbox (its publisher stopped at shutdown) takes nothing more.
            let _ = outbox.send(change);
        }
    }

    /// Hands a resident session's messages and turns to the outbox whole
    /// (a publisher catching up with what it has not sent yet); false when
    /// the session is unknown or not in memory.
    pub fn emit_whole(&self, session_id: &str) -> bool {
        let board = self.board();
        let Some(session) = board.sessions.get(session_id).filter(|s| s.resident) else {
            return false;
        };
        self.emit(|| {
            Some(Change::Whole {
                session_id: session_id.to_string(),
                messages: session.messages.clone(),
                turns: session.turns.clone(),
            })
        });
        true
    }

    /// Hands every task and session of this server (not those kept
    /// elsewhere) to the outbox as they are now (a publisher that dropped
    /// changes starting over).
    pub fn emit_board(&self) {
        let board = self.board();
        let is_remote = |id: &Option<String>| {
            id.as_ref()
                .and_then(|id| board.sessions.get(id))
                .is_some_and(|s| s.remote)
        };
        let ours = self.signature.get().map(|(machine, _)| machine.as_str());
        let mine = |machine: &Option<String>| machine.as_deref().is_none_or(|m| Some(m) == ours);
        let own = board
            .tasks
            .iter()
            .filter(|t| !is_remote(&t.primary_session_id) && mine(&t.machine));
        for task in own {
            self.emit(|| Some(Change::Task(Box::new(task.clone()))));
        }
        for session in board.sessions.values().filter(|s| !s.remote) {
            self.emit(|| Some(Change::Session(session.info.clone())));
        }
    }

    /// The ids of every session and its task (a publisher's catch-up list).
    pub fn session_ids(&self) -> Vec<(String, String)> {
        let board = self.board();
        let mut ids: Vec<(String, String)> = board
            .sessions
            .values()
            .filter(|s| !s.remote)
            .map(|s| (s.info.id.clone(), s.info.task_id.clone()))
            .collect();
        ids.sort();
        ids
    }
}
