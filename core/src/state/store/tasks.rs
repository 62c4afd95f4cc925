//! The board half of the store: workflows with their steps and tasks
//! (docs/behaviour.md §5), fed by snapshots, boot payloads and `task.*` notifications.

use crate::model::board::{BoardSnapshot, Step, Task, TaskPatch};
use std::collections::{BTreeMap, HashMap};

/// One workflow's board.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workflow {
    pub id: String,
    pub name: String,
    /// What the board says above its columns (`workflow.updated`).
    pub notice: Option<String>,
    /// Columns by state: a board taskview makes itself (docs/behaviour.md §5).
    pub by_state: bool,
    pub steps: Vec<Step>,
    pub tasks: HashMap<String, Task>,
}

/// Every loaded workflow, by id, and which workflow holds each task.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Boards {
    workflows: BTreeMap<String, Workflow>,
    task_workflow: HashMap<String, String>,
}

impl Boards {
    /// A workflow's board, if loaded or mentioned by a task.
    pub fn workflow(&self, id: &str) -> Option<&Workflow> {
        self.workflows.get(id)
    }

    /// All workflows in id order.
    pub fn workflows(&self) -> impl Iterator<Item = &Workflow> {
        self.workflows.values()
    }

    /// A task wherever it is.
    pub fn task(&self, task_id: &str) -> Option<&Task> {
        let wf = self.task_workflow.get(task_id)?;
        self.workflows.get(wf)?.tasks.get(task_id)
    }

    /// A snapshot replaces its workflow's board whole.
    pub fn load(&mut self, snapshot: BoardSnapshot) -> Vec<String> {
        let id = snapshot.workflow_id.clone();
        if let Some(old) = self.workflows.remove(&id) {
            for task_id in old.tasks.keys() {
                self.task_workflow.remove(task_id);
            }
        }
        let mut workflow = Workflow {
            id: id.clone(),
            name: snapshot.workflow_name,
            notice: snapshot.notice,
            by_state: snapshot.by_state,
            steps: snapshot.steps,
            tasks: HashMap::new(),
        };
        let mut changed = Vec::new();
        for mut task in snapshot.tasks {
            task.workflow_id.clone_from(&id);
            self.take(&task.id);
            self.task_workflow.insert(task.id.clone(), id.clone());
            changed.push(task.id.clone());
            workflow.tasks.insert(task.id.clone(), task);
        }
        self.workflows.insert(id, workflow);
        changed
    }

    /// `task.updated` / `task.created` (docs/behaviour.md §5): upserts with the count
    /// rule of [`TaskPatch::apply_to`]; an ephemeral task is skipped and an
    /// archived one leaves the board. Returns whether the board changed.
    pub fn update(&mut self, patch: &TaskPatch) -> bool {
        if patch.ephemeral {
            return false;
        }
        if patch.archived {
            return self.remove(&patch.task_id);
        }
        let current = self.task_workflow.get(&patch.task_id).cloned();
        let target = patch
            .workflow_id
            .clone()
            .filter(|w| !w.is_empty())
            .or_else(|| current.clone())
            .unwrap_or_default();
        let mut task = match &current {
            Some(wf) if *wf != target => self.take(&patch.task_id).unwrap_or_default(),
            Some(wf) => self
                .workflows
                .get_mut(wf)
                .and_then(|w| w.tasks.remove(&patch.task_id))
                .unwrap_or_default(),
            None => Task::default(),
        };
        let before = task.clone();
        patch.apply_to(&mut task);
        task.workflow_id.clone_from(&target);
        let changed = current.as_deref() != Some(target.as_str()) || task != before;
        self.task_workflow.insert(task.id.clone(), target.clone());
        let workflow = self
            .workflows
            .entry(target.clone())
            .or_insert_with(|| Workflow {
                id: target,
                ..Workflow::default()
            });
        workflow.tasks.insert(task.id.clone(), task);
        changed
    }

    /// `workflow.updated`: a loaded board's notice. Returns whether it changed.
    pub fn set_notice(&mut self, workflow_id: &str, notice: Option<String>) -> bool {
        match self.workflows.get_mut(workflow_id) {
            Some(workflow) if workflow.notice != notice => {
                workflow.notice = notice;
                true
            }
            _ => false,
        }
    }

    /// `task.deleted`. Returns whether the task was on a board.
    pub fn remove(&mut self, task_id: &str) -> bool {
        self.take(task_id).is_some()
    }

    fn take(&mut self, task_id: &str) -> Option<Task> {
        let wf = self.task_workflow.remove(task_id)?;
        self.workflows.get_mut(&wf)?.tasks.remove(task_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn patch(v: serde_json::Value) -> TaskPatch {
        TaskPatch::from_value(&v).unwrap()
    }

    #[test]
    fn task_update_without_the_count_key_keeps_the_count() {
        let mut b = Boards::default();
        b.update(&patch(
            json!({"task_id": "t", "workflow_id": "wf", "active_subagent_count": 2}),
        ));
        b.update(&patch(json!({"task_id": "t", "title": "renamed"})));
        assert_eq!(b.task("t").unwrap().active_subagent_count, Some(2));
        assert_eq!(b.task("t").unwrap().title, "renamed");
        b.update(&patch(json!({"task_id": "t", "active_subagent_count": 0})));
        assert_eq!(b.task("t").unwrap().active_subagent_count, Some(0));
    }

    #[test]
    fn ephemeral_tasks_are_skipped_and_archived_ones_leave() {
        let mut b = Boards::default();
        assert!(!b.update(&patch(json!({"task_id": "e", "is_ephemeral": true}))));
        assert!(b.task("e").is_none());
        b.update(&patch(json!({"task_id": "t", "workflow_id": "wf"})));
        b.update(&patch(
            json!({"task_id": "t", "archived_at": "2026-08-03T00:00:00Z"}),
        ));
        assert!(b.task("t").is_none());
    }

    #[test]
    fn a_task_moves_between_workflows() {
        let mut b = Boards::default();
        b.update(&patch(
            json!({"task_id": "t", "workflow_id": "a", "title": "x"}),
        ));
        b.update(&patch(json!({"task_id": "t", "workflow_id": "b"})));
        assert!(b.workflow("a").unwrap().tasks.is_empty());
        assert_eq!(b.workflow("b").unwrap().tasks["t"].title, "x");
    }

    #[test]
    fn snapshot_replaces_the_workflow_board() {
        let mut b = Boards::default();
        b.update(&patch(json!({"task_id": "old", "workflow_id": "wf"})));
        let snap = BoardSnapshot {
            workflow_id: "wf".into(),
            tasks: vec![patch(json!({"id": "new"})).to_task()],
            ..BoardSnapshot::default()
        };
        b.load(snap);
        assert!(b.task("old").is_none());
        assert_eq!(b.task("new").unwrap().workflow_id, "wf");
    }
}
