//! The HTTP shapes (docs/protocol.md §4.1, §5.1): pages of messages,
//! workflows, steps, tasks, snapshots, sessions and turns.

use crate::model::card_facts::SessionFacts;
use crate::model::event::Event;
use crate::model::message::{bool_at, opt_str_at, u64_at};
use crate::read::import::kandev;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The reply to subscribe-like requests: `{success: true, session_id?}` or
/// `{success: true, task_id?}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ack {
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
}

/// A page of messages: the body of `GET …/messages` and the payload of the
/// `message.list` response. `total` is the number of messages in this page;
/// `cursor` is the id of the last one (`null` for an empty page).
///
/// `messages` stay JSON values so one unreadable element cannot fail the
/// page; [`MessagesPage::events`] reads them as the importer does.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MessagesPage {
    pub messages: Vec<Value>,
    pub total: u64,
    pub has_more: bool,
    pub cursor: Option<String>,
}

impl MessagesPage {
    /// Reads a page leniently: wrong or missing fields fall back to defaults.
    pub fn from_value(v: &Value) -> MessagesPage {
        MessagesPage {
            messages: kandev::messages_array(v).cloned().unwrap_or_default(),
            total: u64_at(v, "total").unwrap_or(0),
            has_more: bool_at(v, "has_more"),
            cursor: opt_str_at(v, "cursor").filter(|c| !c.is_empty()),
        }
    }

    /// The page's messages as store events, in page order; an unreadable
    /// element becomes [`Event::Unreadable`] in its position.
    pub fn events(&self) -> Vec<Event> {
        self.messages.iter().map(kandev::event_for).collect()
    }
}

/// A workspace as listed by `GET /api/v1/workspaces`: what kandev's own web
/// client reads before it asks for the workspace's workflows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkspaceDto {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub owner_id: String,
    pub created_at: String,
    pub updated_at: String,
}

/// `GET /api/v1/workspaces` → `{workspaces, total}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkspaceList {
    pub workspaces: Vec<WorkspaceDto>,
    pub total: u64,
}

/// A workflow (a board) as listed by `GET /api/v1/workflows`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkflowDto {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub sort_order: i64,
    pub created_at: String,
    pub updated_at: String,
    /// taskview's own, omitted when there is none: what the board says
    /// above its columns (a team board whose store cannot be read says
    /// `store unreachable`, docs/behaviour.md §7 "A team's board").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// taskview's own, omitted on kandev's boards: `state` on a board
    /// taskview makes itself, whose columns are its tasks' states
    /// (docs/behaviour.md §5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub columns_by: Option<String>,
}

/// `GET /api/v1/workflows` → `{workflows, total}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkflowList {
    pub workflows: Vec<WorkflowDto>,
    pub total: u64,
}

/// A workflow step: one board column.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepDto {
    pub id: String,
    pub workflow_id: String,
    pub name: String,
    pub position: i64,
    pub color: String,
    pub allow_manual_move: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_start_step: bool,
}

/// The HTTP task shape (docs/protocol.md §4.1 a): snake_case, `id`, and
/// `active_subagent_count` always serialized.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskDto {
    pub id: String,
    pub workspace_id: String,
    pub workflow_id: String,
    pub workflow_step_id: String,
    pub title: String,
    pub description: String,
    pub state: String,
    pub priority: String,
    pub position: i64,
    pub wip_admitted: bool,
    pub repositories: Vec<Value>,
    pub primary_session_id: Option<String>,
    pub primary_session_state: Option<String>,
    pub primary_session_pending_action: Option<String>,
    pub task_pending_action: Option<String>,
    /// Omitted when there is none (HTTP); explicit `null` in notifications.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foreground_activity: Option<String>,
    pub active_subagent_count: u64,
    /// taskview's own (kandev has no such field, so it is omitted when
    /// unknown): nobody has written the primary session's files for the
    /// server's idle threshold, a recording idle past it (docs/behaviour.md §8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primary_session_still: Option<bool>,
    /// taskview's own, omitted when unknown: the machine whose agent ran the
    /// task (`taskview serve --machine`), on a team's board (docs/behaviour.md §5, §7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// taskview's own, omitted when unknown: the person who ran it
    /// (`taskview serve --person`), on a team's board.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub person: Option<String>,
    /// taskview's own, omitted when unknown: what the card says of the
    /// session, computed from its records (docs/behaviour.md §5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_facts: Option<SessionFacts>,
    pub session_count: u64,
    pub is_remote_executor: bool,
    pub autopilot: bool,
    pub archived_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl TaskDto {
    /// The `task.*` notification payload (docs/protocol.md §4.1 b): `task_id`
    /// instead of `id`, `is_ephemeral`, and `foreground_activity` always present.
    pub fn notification_payload(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or_else(|_| json!({}));
        if let Some(obj) = v.as_object_mut() {
            if let Some(id) = obj.remove("id") {
                obj.insert("task_id".into(), id);
            }
            obj.insert("is_ephemeral".into(), Value::Bool(false));
            obj.entry("foreground_activity").or_insert(Value::Null);
        }
        v
    }
}

/// `GET /api/v1/workflows/{id}/snapshot` → `{workflow, steps, tasks}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Snapshot {
    pub workflow: WorkflowDto,
    pub steps: Vec<StepDto>,
    pub tasks: Vec<TaskDto>,
}

/// `GET /api/v1/task-sessions/{sid}` → one session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionDto {
    pub id: String,
    pub task_id: String,
    /// `STARTING`, `RUNNING`, `WAITING_FOR_INPUT`, `COMPLETED`, `FAILED`, …
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foreground_activity: Option<String>,
    pub active_subagent_count: u64,
    pub message_count: u64,
    pub created_at: String,
    pub updated_at: String,
}

/// A turn record (docs/protocol.md §1.6); also the payload of `session.turn.*`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnDto {
    pub id: String,
    pub session_id: String,
    pub task_id: String,
    pub started_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// `GET /api/v1/task-sessions/{sid}/turns` → `{turns, total}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnList {
    pub turns: Vec<TurnDto>,
    pub total: u64,
}
