//! What the HTTP handlers and WebSocket requests read from the backend.

use super::{Backend, Session};
use crate::backend::pagination;
use serde_json::Value;
use taskview_core::read::protocol::{
    ErrorCode, ErrorPayload, MessagesPage, MessagesQuery, SessionDto, Snapshot, StepDto, TaskDto,
    TurnList, WorkflowDto, WorkflowList, WorkspaceDto, WorkspaceList,
};

/// The owner of every workspace: taskview serves one reader, signed in as no one.
const OWNER: &str = "taskview";

impl Backend {
    /// `GET /api/v1/workspaces`: each workspace a workflow names, once, in
    /// the order and with the dates of its first workflow.
    pub fn workspaces(&self) -> WorkspaceList {
        let board = self.board();
        let mut workspaces: Vec<WorkspaceDto> = Vec::new();
        for w in &board.workflows {
            if workspaces.iter().all(|ws| ws.id != w.workspace_id) {
                workspaces.push(WorkspaceDto {
                    id: w.workspace_id.clone(),
                    name: w.workspace_id.clone(),
                    description: None,
                    owner_id: OWNER.into(),
                    created_at: w.created_at.clone(),
                    updated_at: w.updated_at.clone(),
                });
            }
        }
        WorkspaceList {
            total: workspaces.len() as u64,
            workspaces,
        }
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

    /// A page of a session's messages (HTTP and `message.list`), loaded
    /// first when it is not resident.
    pub fn messages_page(
        &self,
        session_id: &str,
        query: &MessagesQuery,
    ) -> Result<MessagesPage, ErrorPayload> {
        self.open(session_id);
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
        self.open(session_id);
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

    /// Which of `ids` a session has (none when there is no such session).
    pub fn known_messages<'a>(
        &self,
        session_id: &str,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Vec<String> {
        let board = self.board();
        let Some(session) = board.sessions.get(session_id) else {
            return Vec::new();
        };
        ids.into_iter()
            .filter(|id| session.positions.contains_key(*id))
            .map(str::to_string)
            .collect()
    }

    /// The session's active turn, if any.
    pub fn active_turn(&self, session_id: &str) -> Option<String> {
        self.board().sessions.get(session_id)?.active_turn.clone()
    }
}
