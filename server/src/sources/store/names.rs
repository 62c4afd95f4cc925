//! The names a reader gives what other machines wrote: a task or session
//! of machine M with id X is `m~X` on this server's board (ids are unique
//! per machine only), and the board they go on: this server's own first
//! board when it has one (a writer shows the union on one board), else a
//! team board of its own.

use crate::backend::Backend;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use taskview_core::read::protocol::{StepDto, TaskDto, WorkflowDto};

/// The ids a reader gave, and what they stand for.
#[derive(Default)]
pub(super) struct Names {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// A session's id here → its machine and its id there.
    sessions: HashMap<String, (String, String)>,
    /// The tasks listed from the store.
    tasks: HashSet<String>,
}

impl Names {
    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The id here of `machine`'s task `task_id`.
    pub(super) fn task(&self, machine: &str, task_id: &str) -> String {
        here(machine, task_id)
    }

    /// Notes a task listed from the store.
    pub(super) fn note_task(&self, id: &str) {
        self.inner().tasks.insert(id.to_string());
    }

    /// Forgets a task removed from the store.
    pub(super) fn forget_task(&self, id: &str) {
        self.inner().tasks.remove(id);
    }

    /// The tasks listed from the store that are not among `listed`.
    pub(super) fn tasks_not_in(&self, listed: &[String]) -> Vec<String> {
        let listed: HashSet<&String> = listed.iter().collect();
        let mut inner = self.inner();
        let gone: Vec<String> = inner
            .tasks
            .iter()
            .filter(|t| !listed.contains(t))
            .cloned()
            .collect();
        for id in &gone {
            inner.tasks.remove(id);
        }
        gone
    }

    /// The id here of `machine`'s session `session_id`, remembered.
    pub(super) fn session_id(&self, machine: &str, session_id: &str) -> String {
        let id = here(machine, session_id);
        self.inner()
            .sessions
            .entry(id.clone())
            .or_insert_with(|| (machine.to_string(), session_id.to_string()));
        id
    }

    /// The machine and id there of the session `id` here.
    pub(super) fn session(&self, id: &str) -> Option<(String, String)> {
        self.inner().sessions.get(id).cloned()
    }
}

/// `machine~id`, the machine's name made plain (lower-case letters,
/// digits and `-`), so the id stays readable in a URL.
fn here(machine: &str, id: &str) -> String {
    let mut plain = String::with_capacity(machine.len());
    for c in machine.chars() {
        if c.is_ascii_alphanumeric() {
            plain.push(c.to_ascii_lowercase());
        } else if !plain.ends_with('-') {
            plain.push('-');
        }
    }
    format!("{}~{id}", plain.trim_matches('-'))
}

/// Where a reader lists the store's tasks.
pub(super) struct Board {
    workspace: String,
    workflow: String,
    step: String,
}

/// The team board of a server with no board of its own.
const TEAM_WORKFLOW: &str = "wf-team";
const TEAM_STEP: &str = "step-team";
const TEAM_WORKSPACE: &str = "ws-team";

impl Board {
    /// `backend`'s first board, else a team board made now.
    pub(super) fn of(backend: &Backend) -> Board {
        let first = backend.workflows(None).workflows.into_iter().next();
        let step = |w: &WorkflowDto| {
            let snapshot = backend.snapshot(&w.id)?;
            snapshot.steps.first().map(|s| s.id.clone())
        };
        if let Some((workflow, step)) = first.and_then(|w| step(&w).map(|s| (w, s))) {
            return Board {
                workspace: workflow.workspace_id,
                workflow: workflow.id,
                step,
            };
        }
        backend.add_workflow(
            WorkflowDto {
                id: TEAM_WORKFLOW.into(),
                workspace_id: TEAM_WORKSPACE.into(),
                name: "Team board".into(),
                // A board taskview makes: columns by state (docs/behaviour.md §5).
                columns_by: Some("state".into()),
                ..WorkflowDto::default()
            },
            vec![StepDto {
                id: TEAM_STEP.into(),
                workflow_id: TEAM_WORKFLOW.into(),
                name: "Team".into(),
                is_start_step: true,
                ..StepDto::default()
            }],
        );
        Board {
            workspace: TEAM_WORKSPACE.into(),
            workflow: TEAM_WORKFLOW.into(),
            step: TEAM_STEP.into(),
        }
    }

    /// Puts `task` on this board.
    pub(super) fn place(&self, task: &mut TaskDto) {
        task.workspace_id.clone_from(&self.workspace);
        task.workflow_id.clone_from(&self.workflow);
        task.workflow_step_id.clone_from(&self.step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_here_name_their_machine_plainly() {
        assert_eq!(here("Ana's Laptop", "rec-a"), "ana-s-laptop~rec-a");
        let names = Names::default();
        let id = names.session_id("box", "sess-rec-a");
        assert_eq!(id, "box~sess-rec-a");
        assert_eq!(
            names.session(&id),
            Some(("box".into(), "sess-rec-a".into()))
        );
        names.note_task("box~rec-a");
        names.note_task("box~rec-b");
        assert_eq!(names.tasks_not_in(&["box~rec-a".into()]), ["box~rec-b"]);
    }
}
