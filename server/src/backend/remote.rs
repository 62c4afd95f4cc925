//! Sessions kept elsewhere (a team store this server reads,
//! `sources::store`): listed here with their tasks, their messages and
//! turns paged from where they are kept and never held here, and what
//! changes there announced to this server's clients as if it changed here.

use super::{Backend, Session};
use std::sync::Arc;
use taskview_core::model::event::Event;
use taskview_core::read::protocol::{
    action, ErrorPayload, MessagesPage, MessagesQuery, SessionDto, TaskDto, TurnDto,
};

/// A session kept elsewhere: listed, never resident.
fn remote_session(info: SessionDto) -> Session {
    let mut session = Session::new(info, false);
    session.resident = false;
    session.remote = true;
    session
}

/// Reads the messages and turns of sessions kept elsewhere.
pub trait Pager: Send + Sync {
    /// A page of a session's messages, as `Backend::messages_page` answers.
    fn page(&self, session_id: &str, query: &MessagesQuery) -> Result<MessagesPage, ErrorPayload>;
    /// A session's turns, oldest first.
    fn turns(&self, session_id: &str) -> Result<Vec<TurnDto>, ErrorPayload>;
}

impl Backend {
    /// Installs the pager of remote sessions (once; later calls are ignored).
    pub fn set_pager(&self, pager: Arc<dyn Pager>) {
        let _ = self.pager.set(pager);
    }

    /// The pager, when `session_id` is a remote session.
    pub(super) fn pager_of(&self, session_id: &str) -> Option<Arc<dyn Pager>> {
        let remote = self
            .board()
            .sessions
            .get(session_id)
            .is_some_and(|s| s.remote);
        remote.then(|| self.pager.get().cloned()).flatten()
    }

    /// Adds a task kept elsewhere (`task.created`), or replaces the one
    /// there is whole, keeping its place (`task.updated`); its primary
    /// session is listed as remote when it is not yet.
    pub fn put_remote_task(&self, task: TaskDto) {
        let mut board = self.board();
        if let Some(session_id) = &task.primary_session_id {
            if !board.sessions.contains_key(session_id) {
                let info = SessionDto {
                    id: session_id.clone(),
                    task_id: task.id.clone(),
                    state: task.primary_session_state.clone().unwrap_or_default(),
                    ..SessionDto::default()
                };
                board
                    .sessions
                    .insert(session_id.clone(), remote_session(info));
            }
        }
        let payload = task.notification_payload();
        match board.task_mut(&task.id) {
            Some(known) if *known == task => {}
            Some(known) => {
                *known = task;
                self.publish(action::TASK_UPDATED, payload, "");
            }
            None => {
                board.tasks.push(task);
                self.publish(action::TASK_CREATED, payload, "");
            }
        }
    }

    /// Lists a session kept elsewhere, or takes what it now says of itself.
    pub fn put_remote_session(&self, info: SessionDto) {
        let mut board = self.board();
        match board.sessions.get_mut(&info.id) {
            Some(known) if known.remote => known.info = info,
            Some(_) => {}
            None => {
                board.sessions.insert(info.id.clone(), remote_session(info));
            }
        }
    }

    /// Announces changes of a remote session's messages to its subscribers.
    pub fn announce_remote_messages(&self, session_id: &str, events: &[Event]) {
        let board = self.board();
        let Some(session) = board.sessions.get(session_id).filter(|s| s.remote) else {
            return;
        };
        let task_id = session.info.task_id.clone();
        let envelopes: Vec<_> = events
            .iter()
            .filter_map(|event| self.message_envelope(event, session_id, &task_id))
            .collect();
        self.hub.publish_together(&envelopes, session_id);
    }

    /// Announces a remote session's turn: started while it has no end, else completed.
    pub fn announce_remote_turn(&self, turn: &TurnDto) {
        let name = match turn.completed_at {
            None => action::SESSION_TURN_STARTED,
            Some(_) => action::SESSION_TURN_COMPLETED,
        };
        self.publish(name, serde_json::json!(turn), "");
    }

    /// Sets what every board says above its columns (`None`: nothing) and
    /// announces it (`workflow.updated`, taskview's own notification).
    pub fn set_notice(&self, notice: Option<&str>) {
        let mut board = self.board();
        for workflow in &mut board.workflows {
            workflow.notice = notice.map(str::to_string);
            let payload = serde_json::json!({ "workflow_id": workflow.id, "notice": notice });
            self.publish(action::WORKFLOW_UPDATED, payload, "");
        }
    }

    /// The ids of the remote sessions someone is subscribed to.
    pub fn watched_remote_sessions(&self) -> Vec<String> {
        let board = self.board();
        let remote = board.sessions.values().filter(|s| s.remote);
        remote
            .map(|s| s.info.id.clone())
            .filter(|id| self.hub.has_subscribers(id))
            .collect()
    }
}
