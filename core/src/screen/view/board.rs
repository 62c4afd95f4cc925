//! The board's view-model (docs/behaviour.md §5): columns, cards and the subagent chip.
//! A kandev board's columns are its workflow's steps (here); a board
//! taskview makes itself has columns by state (`by_state`), readable cards
//! (`card_words`), filters kept in the URL (`filter`), its columns' windows
//! (`window`) and the Activity strip above it (`activity`).

pub mod activity;
pub mod by_state;
pub mod card_words;
pub mod column;
pub mod filter;
pub mod window;

use super::format::count_label;
use crate::model::board::Task;
use crate::state::store::Store;

/// The subagent chip: the bare number, with `title`/`aria-label` = `label`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SubagentChip {
    pub count: u64,
    /// `1 subagent running` / `N subagents running`.
    pub label: String,
}

/// The chip for `active_subagent_count` (docs/behaviour.md §5): none at 0, null or absent.
pub fn subagent_chip(active_subagent_count: Option<u64>) -> Option<SubagentChip> {
    let count = active_subagent_count.filter(|n| *n > 0)?;
    Some(SubagentChip {
        count,
        label: format!("{} running", count_label(count, "subagent", "subagents")),
    })
}

/// A card's status affordance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    Running,
    /// Its only activity is a background subagent (docs/behaviour.md §8).
    Background,
    /// Its only activity is a stalled subagent (docs/behaviour.md §8).
    Stalled,
    WaitingForInput,
    Failed,
}

/// The running subagents of a task's session, when this page has it loaded
/// (the board drill-down), by lifecycle (docs/behaviour.md §8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SubagentActivity {
    /// Running in the foreground and reporting.
    pub foreground: usize,
    /// Running in the background and reporting.
    pub background: usize,
    /// Running, but with no new child or update for five minutes.
    pub stalled: usize,
    /// Never settled in a file nobody writes any more: interrupted, not at
    /// work, so they make no status (docs/behaviour.md §8).
    pub interrupted: usize,
}

/// The status affordance of a task: a pending permission or clarification
/// waits for input; a failed task or session failed; then, honestly (docs/behaviour.md
/// §8), a task whose only activity is a background or stalled subagent says
/// so, and a starting or running session otherwise runs; else nothing.
/// `known` is what the page knows of the session's subagents, if it has them:
/// without it, the session's `foreground_activity` and the subagent count
/// tell background work apart.
pub fn task_status(task: &Task, known: Option<SubagentActivity>) -> Option<TaskStatus> {
    let session = task
        .primary_session_state
        .as_deref()
        .unwrap_or("")
        .to_ascii_uppercase();
    let background_reported = task
        .foreground_activity
        .as_deref()
        .is_some_and(|a| a.eq_ignore_ascii_case("background"));
    let working = (session == "RUNNING" || session == "STARTING") && !background_reported;
    if task
        .pending_action
        .as_deref()
        .is_some_and(|p| !p.is_empty())
    {
        return Some(TaskStatus::WaitingForInput);
    }
    if session == "FAILED" || task.state.eq_ignore_ascii_case("FAILED") {
        return Some(TaskStatus::Failed);
    }
    let only_stalled = |k: SubagentActivity| k.stalled > 0 && k.background == 0;
    match known {
        Some(k) if k.foreground > 0 => Some(TaskStatus::Running),
        Some(k) if only_stalled(k) => Some(TaskStatus::Stalled),
        _ if working => Some(TaskStatus::Running),
        Some(k) if k.background > 0 => Some(TaskStatus::Background),
        Some(_) => None,
        None if background_reported || task.active_subagent_count.is_some_and(|n| n > 0) => {
            Some(TaskStatus::Background)
        }
        None => None,
    }
}

impl TaskStatus {
    /// The words shown next to the icon (never colour alone).
    pub fn label(self) -> &'static str {
        match self {
            TaskStatus::Running => "running",
            TaskStatus::Background => "background",
            TaskStatus::Stalled => "stalled",
            TaskStatus::WaitingForInput => "waiting for input",
            TaskStatus::Failed => "failed",
        }
    }

    /// A stable name for CSS and `data-state`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Running => "running",
            TaskStatus::Background => "background",
            TaskStatus::Stalled => "stalled",
            TaskStatus::WaitingForInput => "waiting",
            TaskStatus::Failed => "failed",
        }
    }
}

/// A task `state` as words: `IN_PROGRESS` → `in progress`.
pub fn state_label(state: &str) -> String {
    state.trim().to_lowercase().replace(['_', '-'], " ")
}

/// One task card (hashable, so a keyed list re-renders only changed cards).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TaskCard {
    pub task_id: String,
    pub title: String,
    pub state: String,
    pub status: Option<TaskStatus>,
    pub subagent_chip: Option<SubagentChip>,
}

/// One column: a workflow step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub step_id: String,
    pub name: String,
    pub task_count: usize,
    /// `1 task` / `N tasks`, the count's accessible name.
    pub task_count_label: String,
    pub cards: Vec<TaskCard>,
}

/// A whole board.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoardView {
    pub workflow_id: String,
    pub name: String,
    /// What the board says above its columns: a team board whose store
    /// cannot be read says `store unreachable` (docs/behaviour.md §7 "A team's board").
    pub notice: Option<String>,
    pub columns: Vec<Column>,
}

/// The board of `workflow_id`: steps in position order, each with its tasks in
/// position order. Tasks of an unknown step are kept in a trailing column
/// (`step_id` empty) rather than dropped.
pub fn board_view(store: &Store, workflow_id: &str) -> Option<BoardView> {
    board_view_knowing(store, workflow_id, |_| None)
}

/// What a task's page says above its transcript: its board's notice (a
/// team board whose store cannot be read says `store unreachable`,
/// docs/behaviour.md §7 "A team's board"), the same words its board shows.
pub fn task_notice(store: &Store, task_id: &str) -> Option<String> {
    let workflow_id = &store.boards().task(task_id)?.workflow_id;
    store.boards().workflow(workflow_id)?.notice.clone()
}

/// [`board_view`] with what the page knows of some tasks' subagents (the
/// session it has loaded for a drill-down), by task.
pub fn board_view_knowing(
    store: &Store,
    workflow_id: &str,
    known: impl Fn(&Task) -> Option<SubagentActivity>,
) -> Option<BoardView> {
    let wf = store.boards().workflow(workflow_id)?;
    let mut steps: Vec<_> = wf.steps.iter().collect();
    steps.sort_by_key(|s| s.position);
    let mut columns: Vec<Column> = steps
        .iter()
        .map(|s| Column {
            step_id: s.id.clone(),
            name: s.name.clone(),
            task_count: 0,
            task_count_label: String::new(),
            cards: Vec::new(),
        })
        .collect();
    let mut tasks: Vec<&Task> = wf.tasks.values().collect();
    tasks.sort_by(|a, b| (a.position, &a.id).cmp(&(b.position, &b.id)));
    let mut unsorted = Vec::new();
    for t in tasks {
        let card = TaskCard {
            task_id: t.id.clone(),
            title: t.title.clone(),
            state: t.state.clone(),
            status: task_status(t, known(t)),
            subagent_chip: subagent_chip(t.active_subagent_count),
        };
        match columns.iter_mut().find(|c| c.step_id == t.step_id) {
            Some(c) => c.cards.push(card),
            None => unsorted.push(card),
        }
    }
    if !unsorted.is_empty() {
        columns.push(Column {
            step_id: String::new(),
            name: "Other".into(),
            task_count: 0,
            task_count_label: String::new(),
            cards: unsorted,
        });
    }
    for c in &mut columns {
        c.task_count = c.cards.len();
        c.task_count_label = count_label(c.task_count as u64, "task", "tasks");
    }
    Some(BoardView {
        workflow_id: wf.id.clone(),
        name: wf.name.clone(),
        notice: wf.notice.clone(),
        columns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subagent_chip_label_is_singular_for_one_and_plural_otherwise() {
        assert_eq!(subagent_chip(Some(1)).unwrap().label, "1 subagent running");
        assert_eq!(subagent_chip(Some(2)).unwrap().label, "2 subagents running");
        assert_eq!(subagent_chip(Some(12)).unwrap().count, 12);
    }

    #[test]
    fn subagent_chip_absent_at_zero_null_or_absent() {
        assert_eq!(subagent_chip(Some(0)), None);
        assert_eq!(subagent_chip(None), None);
    }

    #[test]
    fn column_counts_agree_in_number() {
        use crate::model::board::{BoardSnapshot, TaskPatch};
        let mut store = Store::new();
        let task = |id: &str| {
            TaskPatch::from_value(&serde_json::json!({"id": id, "workflow_step_id": "a"}))
                .unwrap()
                .to_task()
        };
        store.apply(crate::model::event::Event::BoardLoaded(BoardSnapshot {
            workflow_id: "wf".into(),
            steps: vec![
                crate::model::board::Step {
                    id: "a".into(),
                    position: 0,
                    ..Default::default()
                },
                crate::model::board::Step {
                    id: "b".into(),
                    position: 1,
                    ..Default::default()
                },
            ],
            tasks: vec![task("t1")],
            ..BoardSnapshot::default()
        }));
        let board = board_view(&store, "wf").unwrap();
        let labels: Vec<&str> = board
            .columns
            .iter()
            .map(|c| c.task_count_label.as_str())
            .collect();
        assert_eq!(labels, ["1 task", "0 tasks"]);
    }

    #[test]
    fn states_and_statuses_read_as_words() {
        assert_eq!(state_label("IN_PROGRESS"), "in progress");
        assert_eq!(state_label("todo"), "todo");
        assert_eq!(state_label(""), "");
        assert_eq!(TaskStatus::WaitingForInput.label(), "waiting for input");
    }

    #[test]
    fn task_status_prefers_waiting_for_input_then_failed_then_running() {
        let mut t = Task {
            primary_session_state: Some("RUNNING".into()),
            ..Task::default()
        };
        assert_eq!(task_status(&t, None), Some(TaskStatus::Running));
        t.pending_action = Some("permission".into());
        assert_eq!(task_status(&t, None), Some(TaskStatus::WaitingForInput));
        t.pending_action = None;
        t.primary_session_state = Some("FAILED".into());
        assert_eq!(task_status(&t, None), Some(TaskStatus::Failed));
        t.primary_session_state = Some("WAITING_FOR_INPUT".into());
        assert_eq!(task_status(&t, None), None);
    }

    #[test]
    fn a_task_whose_only_activity_is_a_background_subagent_says_background_not_running() {
        // docs/behaviour.md §8: from the session's foreground activity...
        let mut t = Task {
            primary_session_state: Some("RUNNING".into()),
            foreground_activity: Some("background".into()),
            ..Task::default()
        };
        assert_eq!(task_status(&t, None), Some(TaskStatus::Background));
        // ...from subagents still counted after the turn ended...
        t.foreground_activity = None;
        t.primary_session_state = Some("WAITING_FOR_INPUT".into());
        t.active_subagent_count = Some(1);
        assert_eq!(task_status(&t, None), Some(TaskStatus::Background));
        // ...or from the loaded session.
        let background = SubagentActivity {
            background: 1,
            ..SubagentActivity::default()
        };
        assert_eq!(
            task_status(&t, Some(background)),
            Some(TaskStatus::Background)
        );
        assert_eq!(TaskStatus::Background.label(), "background");
    }

    #[test]
    fn a_task_waiting_only_on_stalled_subagents_says_stalled() {
        let t = Task {
            primary_session_state: Some("RUNNING".into()),
            active_subagent_count: Some(2),
            ..Task::default()
        };
        let stalled = SubagentActivity {
            stalled: 2,
            ..SubagentActivity::default()
        };
        assert_eq!(task_status(&t, Some(stalled)), Some(TaskStatus::Stalled));
        let one_working = SubagentActivity {
            foreground: 1,
            stalled: 1,
            ..SubagentActivity::default()
        };
        assert_eq!(
            task_status(&t, Some(one_working)),
            Some(TaskStatus::Running)
        );
        // The agent itself works while its subagents run in the background.
        let background = SubagentActivity {
            background: 1,
            stalled: 1,
            ..SubagentActivity::default()
        };
        assert_eq!(task_status(&t, Some(background)), Some(TaskStatus::Running));
    }

    /// taskview's `workflow.updated` for board `wf` with `notice`.
    fn notice(text: Option<&str>) -> crate::model::event::Event {
        crate::read::protocol::event_from_notification(
            crate::read::protocol::action::WORKFLOW_UPDATED,
            &serde_json::json!({ "workflow_id": "wf", "notice": text }),
        )
        .unwrap()
        .unwrap()
    }

    #[test]
    fn a_task_page_says_its_boards_notice_too() {
        use crate::model::board::TaskPatch;
        use crate::model::event::Event;
        use serde_json::json;
        // docs/behaviour.md §7 "A team's board": a reader's task page says its store is
        // unreachable as its board does, without the board loaded.
        let mut s = Store::new();
        s.apply(Event::TaskUpdated(
            TaskPatch::from_value(&json!({"task_id": "t", "workflow_id": "wf", "title": "x"}))
                .unwrap(),
        ));
        assert_eq!(task_notice(&s, "t"), None);
        let changes = s.apply(notice(Some("store unreachable")));
        assert_eq!(task_notice(&s, "t").as_deref(), Some("store unreachable"));
        assert_eq!(changes.workflows, ["wf"], "the page is told");
        s.apply(notice(None));
        assert_eq!(task_notice(&s, "t"), None, "and no more once it is back");
        assert_eq!(task_notice(&s, "unknown"), None);
    }
}
