//! Sessions that are listed without their messages in memory (a recordings
//! folder indexes every session and imports one only when it is read, and
//! drops the least recently read past a budget): the first read of such a
//! session loads it through the opener its source installed.

use super::{Backend, Session};
use std::time::Instant;
use taskview_core::model::message::Message;
use taskview_core::read::protocol::{action, TurnDto};

/// Loads a session that is not resident (its id), through the backend.
pub type Opener = Box<dyn Fn(&Backend, &str) + Send + Sync>;

impl Backend {
    /// Installs the opener of non-resident sessions (once; later calls are ignored).
    pub fn set_opener(&self, opener: Opener) {
        let _ = self.opener.set(opener);
    }

    /// A session is about to be read: notes the time and loads it first
    /// when it is not resident.
    pub fn open(&self, session_id: &str) {
        let resident = {
            let mut board = self.board();
            let Some(session) = board.sessions.get_mut(session_id) else {
                return;
            };
            session.last_read = Instant::now();
            session.resident
        };
        let Some(opener) = self.opener.get().filter(|_| !resident) else {
            return;
        };
        // A long read must not hold up the async threads' other work.
        let multi_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if multi_thread {
            tokio::task::block_in_place(|| opener(self, session_id));
        } else {
            opener(self, session_id);
        }
    }

    /// Whether a session's messages are in memory (`None`: no such session).
    pub fn is_resident(&self, session_id: &str) -> Option<bool> {
        Some(self.board().sessions.get(session_id)?.resident)
    }

    /// When a session was last read (`None`: no such session).
    pub fn last_read(&self, session_id: &str) -> Option<Instant> {
        Some(self.board().sessions.get(session_id)?.last_read)
    }

    /// Fills a session that was not resident with its messages and finished
    /// turns, unannounced (nobody has seen them), and makes it resident;
    /// its activity and task are brought up to date (and announced).
    pub fn load_session(&self, session_id: &str, messages: Vec<Message>, turns: Vec<TurnDto>) {
        let mut board = self.board();
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
        session.messages.clear();
        session.positions.clear();
        for m in messages {
            session.upsert(m);
        }
        for turn in turns {
            session.upsert_turn(turn);
        }
        session.resident = true;
        self.settle(&mut board, session_id);
    }

    /// Drops a session's messages and turns from memory, unannounced: it
    /// stays listed, and its next read loads it again.
    pub fn unload_session(&self, session_id: &str) {
        if let Some(session) = self.board().sessions.get_mut(session_id) {
            Session::forget(session);
        }
    }

    /// Removes a task and its sessions and announces `task.deleted`.
    pub fn remove_task(&self, task_id: &str) {
        let mut board = self.board();
        let before = board.tasks.len();
        board.tasks.retain(|t| t.id != task_id);
        if board.tasks.len() == before {
            return;
        }
        board.sessions.retain(|_, s| s.info.task_id != task_id);
        let payload = serde_json::json!({ "task_id": task_id });
        self.publish(action::TASK_DELETED, payload, "");
    }
}
