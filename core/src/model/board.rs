//! Board data: workflows, steps and tasks, read leniently from the HTTP snapshot
//! (snake_case), the boot payload (camelCase) and `task.*` notifications.

use crate::model::card_facts::SessionFacts;
use crate::model::message::{str_at, u64_at};
use serde_json::Value;

/// A workflow step: one board column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    pub id: String,
    pub name: String,
    pub position: i64,
}

/// A task card.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Task {
    pub id: String,
    pub workflow_id: String,
    pub step_id: String,
    pub title: String,
    pub description: String,
    pub state: String,
    pub position: i64,
    pub primary_session_id: Option<String>,
    pub primary_session_state: Option<String>,
    pub pending_action: Option<String>,
    /// `None` = never reported; the chip shows only for `Some(n)` with `n > 0`.
    pub active_subagent_count: Option<u64>,
    /// The primary session's `foreground_activity` (`generating`,
    /// `background`), when reported.
    pub foreground_activity: Option<String>,
    /// Nobody writes the primary session's files any more (`taskview serve`
    /// says so of a recording idle past its threshold): its time stops at
    /// its newest record (docs/behaviour.md §8). False when never said (kandev).
    pub primary_session_still: bool,
    /// taskview's own: the machine and the person whose agent ran it (a
    /// team's board), when known.
    pub machine: Option<String>,
    pub person: Option<String>,
    /// taskview's own: what the card says of the session (docs/behaviour.md §5).
    pub facts: Option<SessionFacts>,
}

/// The fields a `task.*` notification defines. `active_subagent_count` is
/// `None` when the key is absent (keep), `Some(None)` for `null`, `Some(Some(n))`
/// for a number (docs/behaviour.md §5).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskPatch {
    pub task_id: String,
    pub workflow_id: Option<String>,
    pub step_id: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub state: Option<String>,
    pub position: Option<i64>,
    pub primary_session_id: Option<String>,
    pub primary_session_state: Option<String>,
    pub pending_action: Option<Option<String>>,
    pub active_subagent_count: Option<Option<u64>>,
    /// Absent → keep; `null` → none; a string → that activity.
    pub foreground_activity: Option<Option<String>>,
    /// Absent → keep; a boolean → whether the primary session is still.
    pub primary_session_still: Option<bool>,
    /// Absent → keep; `null` → unknown; a string → that machine / person.
    pub machine: Option<Option<String>>,
    pub person: Option<Option<String>>,
    /// Absent → keep; `null` → none; an object → these facts, whole.
    pub facts: Option<Option<SessionFacts>>,
    pub archived: bool,
    pub ephemeral: bool,
}

/// A whole board: the workflow, its steps and its tasks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoardSnapshot {
    pub workflow_id: String,
    pub workflow_name: String,
    /// taskview's own `workflow.notice`: what the board says above its
    /// columns (a team board's `store unreachable`).
    pub notice: Option<String>,
    /// taskview's own (`"columns_by": "state"` on the workflow): a board
    /// taskview makes itself, whose columns are its tasks' states
    /// (docs/behaviour.md §5), not the workflow's steps.
    pub by_state: bool,
    pub steps: Vec<Step>,
    pub tasks: Vec<Task>,
}

/// Reads the first present key among spellings (`snake`, `camel`).
fn field<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().find_map(|k| v.get(*k))
}

fn str_field(v: &Value, keys: &[&str]) -> Option<String> {
    field(v, keys).and_then(Value::as_str).map(str::to_string)
}

fn i64_field(v: &Value, keys: &[&str]) -> Option<i64> {
    field(v, keys).and_then(Value::as_i64)
}

/// `active_subagent_count` / `activeSubagentCount`: absent → `None`,
/// null or unreadable → `Some(None)`, a number → `Some(Some(n))`.
fn count_field(v: &Value) -> Option<Option<u64>> {
    let present = ["active_subagent_count", "activeSubagentCount"]
        .into_iter()
        .find(|k| v.get(*k).is_some())?;
    Some(u64_at(v, present))
}

impl TaskPatch {
    /// Reads a task from any of the three shapes (`id` or `task_id`).
    pub fn from_value(v: &Value) -> Option<TaskPatch> {
        let task_id = str_field(v, &["task_id", "id", "taskId"]).filter(|s| !s.is_empty())?;
        Some(TaskPatch {
            task_id,
            workflow_id: str_field(v, &["workflow_id", "workflowId"]),
            step_id: str_field(v, &["workflow_step_id", "workflowStepId"]),
            title: str_field(v, &["title"]),
            description: str_field(v, &["description"]),
            state: str_field(v, &["state"]),
            position: i64_field(v, &["position"]),
            primary_session_id: str_field(v, &["primary_session_id", "primarySessionId"]),
            primary_session_state: str_field(v, &["primary_session_state", "primarySessionState"]),
            pending_action: field(
                v,
                &[
                    "primary_session_pending_action",
                    "primarySessionPendingAction",
                ],
            )
            .map(|p| p.as_str().map(str::to_string)),
            active_subagent_count: count_field(v),
            foreground_activity: field(v, &["foreground_activity", "foregroundActivity"])
                .map(|a| a.as_str().map(str::to_string)),
            primary_session_still: field(v, &["primary_session_still", "primarySessionStill"])
                .and_then(Value::as_bool),
            machine: field(v, &["machine"]).map(|m| m.as_str().map(str::to_string)),
            person: field(v, &["person"]).map(|p| p.as_str().map(str::to_string)),
            facts: field(v, &["session_facts", "sessionFacts"])
                .map(|f| f.is_object().then(|| SessionFacts::from_value(f))),
            archived: field(v, &["archived_at", "archivedAt"]).is_some_and(|a| !a.is_null()),
            ephemeral: field(v, &["is_ephemeral", "isEphemeral"])
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }

    /// Applies the defined fields to `task` (docs/behaviour.md §5 merge rule for the count).
    pub fn apply_to(&self, task: &mut Task) {
        task.id.clone_from(&self.task_id);
        let set = |dst: &mut String, src: &Option<String>| {
            if let Some(s) = src {
                dst.clone_from(s);
            }
        };
        set(&mut task.workflow_id, &self.workflow_id);
        set(&mut task.step_id, &self.step_id);
        set(&mut task.title, &self.title);
        set(&mut task.description, &self.description);
        set(&mut task.state, &self.state);
        if let Some(p) = self.position {
            task.position = p;
        }
        if self.primary_session_id.is_some() {
            task.primary_session_id.clone_from(&self.primary_session_id);
        }
        if self.primary_session_state.is_some() {
            task.primary_session_state
                .clone_from(&self.primary_session_state);
        }
        if let Some(p) = &self.pending_action {
            task.pending_action.clone_from(p);
        }
        if let Some(count) = self.active_subagent_count {
            task.active_subagent_count = count;
        }
        if let Some(activity) = &self.foreground_activity {
            task.foreground_activity.clone_from(activity);
        }
        if let Some(still) = self.primary_session_still {
            task.primary_session_still = still;
        }
        if let Some(machine) = &self.machine {
            task.machine.clone_from(machine);
        }
        if let Some(person) = &self.person {
            task.person.clone_from(person);
        }
        if let Some(facts) = &self.facts {
            task.facts.clone_from(facts);
        }
    }

    /// A new task from this patch.
    pub fn to_task(&self) -> Task {
        let mut t = Task::default();
        self.apply_to(&mut t);
        t
    }
}

impl BoardSnapshot {
    /// Reads `GET /api/v1/workflows/{id}/snapshot` (`{workflow, steps, tasks}`).
    pub fn from_snapshot(v: &Value) -> Option<BoardSnapshot> {
        let workflow = v.get("workflow")?;
        let steps = v
            .get("steps")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(read_step).collect())
            .unwrap_or_default();
        Some(BoardSnapshot {
            workflow_id: str_at(workflow, "id"),
            workflow_name: str_at(workflow, "name"),
            notice: str_field(workflow, &["notice"]).filter(|n| !n.is_empty()),
            by_state: workflow.get("columns_by").and_then(Value::as_str) == Some("state"),
            steps,
            tasks: read_tasks(v.get("tasks")),
        })
    }

    /// Reads a boot payload's `initialState.kanban` (camelCase store shape).
    pub fn from_boot_payload(v: &Value) -> Option<BoardSnapshot> {
        let kanban = v.get("initialState")?.get("kanban")?;
        let steps = kanban
            .get("steps")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(read_step).collect())
            .unwrap_or_default();
        let workflow_id = str_field(kanban, &["workflowId", "workflow_id"]).unwrap_or_default();
        let mut tasks = read_tasks(kanban.get("tasks"));
        for t in tasks.iter_mut().filter(|t| t.workflow_id.is_empty()) {
            t.workflow_id.clone_from(&workflow_id);
        }
        Some(BoardSnapshot {
            workflow_id,
            workflow_name: String::new(),
            notice: None,
            by_state: false,
            steps,
            tasks,
        })
    }
}

fn read_step(v: &Value) -> Option<Step> {
    let id = str_field(v, &["id"]).filter(|s| !s.is_empty())?;
    Some(Step {
        id,
        name: str_field(v, &["name", "title"]).unwrap_or_default(),
        position: i64_field(v, &["position"]).unwrap_or(0),
    })
}

fn read_tasks(v: Option<&Value>) -> Vec<Task> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(TaskPatch::from_value)
                .map(|p| p.to_task())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_still_primary_session_is_kept_until_a_patch_says_otherwise() {
        let mut t = TaskPatch::from_value(&json!({"id": "t", "primary_session_still": true}))
            .unwrap()
            .to_task();
        assert!(t.primary_session_still);
        TaskPatch::from_value(&json!({"task_id": "t", "title": "x"}))
            .unwrap()
            .apply_to(&mut t);
        assert!(t.primary_session_still, "absent keeps");
        TaskPatch::from_value(&json!({"task_id": "t", "primary_session_still": false}))
            .unwrap()
            .apply_to(&mut t);
        assert!(!t.primary_session_still);
        let kandev = TaskPatch::from_value(&json!({"id": "k"}))
            .unwrap()
            .to_task();
        assert!(!kandev.primary_session_still, "never said: live");
    }

    #[test]
    fn count_key_absent_keeps_present_sets_null_clears() {
        let mut t = TaskPatch::from_value(&json!({"id": "t", "active_subagent_count": 2}))
            .unwrap()
            .to_task();
        assert_eq!(t.active_subagent_count, Some(2));
        TaskPatch::from_value(&json!({"task_id": "t", "title": "x"}))
            .unwrap()
            .apply_to(&mut t);
        assert_eq!(t.active_subagent_count, Some(2));
        TaskPatch::from_value(&json!({"task_id": "t", "active_subagent_count": 0}))
            .unwrap()
            .apply_to(&mut t);
        assert_eq!(t.active_subagent_count, Some(0));
        TaskPatch::from_value(&json!({"task_id": "t", "activeSubagentCount": null}))
            .unwrap()
            .apply_to(&mut t);
        assert_eq!(t.active_subagent_count, None);
    }

    #[test]
    fn foreground_activity_absent_keeps_null_clears() {
        let mut t = TaskPatch::from_value(&json!({"id": "t", "foreground_activity": "background"}))
            .unwrap()
            .to_task();
        assert_eq!(t.foreground_activity.as_deref(), Some("background"));
        TaskPatch::from_value(&json!({"task_id": "t", "title": "x"}))
            .unwrap()
            .apply_to(&mut t);
        assert_eq!(t.foreground_activity.as_deref(), Some("background"));
        TaskPatch::from_value(&json!({"task_id": "t", "foreground_activity": null}))
            .unwrap()
            .apply_to(&mut t);
        assert_eq!(t.foreground_activity, None);
    }

    #[test]
    fn machine_person_and_session_facts_absent_keep_null_clears() {
        let mut t = TaskPatch::from_value(&json!({"id": "t", "machine": "m1", "person": "ada",
            "session_facts": {"agent": "Codex", "subagents_total": 3}}))
        .unwrap()
        .to_task();
        assert_eq!(
            (t.machine.as_deref(), t.person.as_deref()),
            (Some("m1"), Some("ada"))
        );
        assert_eq!(t.facts.as_ref().unwrap().subagents_total, Some(3));
        TaskPatch::from_value(&json!({"task_id": "t", "title": "x"}))
            .unwrap()
            .apply_to(&mut t);
        assert_eq!(
            t.facts.as_ref().unwrap().agent.as_deref(),
            Some("Codex"),
            "absent keeps"
        );
        TaskPatch::from_value(&json!({"task_id": "t", "session_facts": {"model": "m"}}))
            .unwrap()
            .apply_to(&mut t);
        assert_eq!(t.facts.as_ref().unwrap().agent, None, "replaced whole");
        TaskPatch::from_value(&json!({"task_id": "t", "session_facts": null, "machine": null}))
            .unwrap()
            .apply_to(&mut t);
        assert_eq!((t.facts.as_ref(), t.machine.as_deref()), (None, None));
        assert_eq!(t.person.as_deref(), Some("ada"));
    }
}
