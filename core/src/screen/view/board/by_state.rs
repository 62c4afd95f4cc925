//! A board taskview makes itself (recordings, telemetry, a team store):
//! columns by state, not by workflow step (docs/behaviour.md §5). `Needs
//! you` (the agent waits for a permission or an answer), `Working`,
//! `Stopped` (failed, interrupted, stalled: docs/behaviour.md §8) and
//! `Done`, each newest activity first, and the strip `N need you · N
//! working` above them. The columns hold task ids; a card's words are
//! made only for the cards on screen (`card_words`).

pub use super::column::StateColumn;
use super::filter::{filter_options, BoardFilter, FilterOptions};
use crate::model::board::Task;
use crate::model::time::parse_rfc3339;
use crate::screen::view::format::count_label;
use crate::state::store::Store;

/// A working task with no new record for this long is stalled
/// (docs/behaviour.md §8: five minutes without a new child or update).
pub const STALLED_AFTER_MS: i64 = 5 * 60 * 1000;

/// The time of a task's newest activity, in ms since the epoch.
pub fn last_activity_ms(task: &Task) -> Option<i64> {
    let at = task.facts.as_ref()?.last_activity_at.as_deref()?;
    parse_rfc3339(at).map(|ns| (ns / 1_000_000) as i64)
}

/// Whether a task's agent is at work: its state or session says so, or
/// subagents of it run.
fn at_work(task: &Task) -> bool {
    let session = task.primary_session_state.as_deref().unwrap_or("");
    task.state.eq_ignore_ascii_case("IN_PROGRESS")
        || session.eq_ignore_ascii_case("RUNNING")
        || session.eq_ignore_ascii_case("STARTING")
        || task.active_subagent_count.is_some_and(|n| n > 0)
}

/// What the agent waits on the user for, if it does: a pending action
/// (kandev), or a wait its records or telemetry show.
pub fn waits_for(task: &Task) -> Option<&str> {
    let pending = task.pending_action.as_deref().filter(|p| !p.is_empty());
    let recorded = task.facts.as_ref().and_then(|f| f.waiting_for.as_deref());
    pending.or(recorded)
}

/// Why a task stopped before its end, judged at `now_ms`: `failed`,
/// `interrupted` (its agent stopped mid-turn: killed, crashed), `stalled`
/// (at work but silent for [`STALLED_AFTER_MS`]); `None` for one working or done.
pub fn stop_reason(task: &Task, now_ms: i64) -> Option<&'static str> {
    let session = task.primary_session_state.as_deref().unwrap_or("");
    if task.state.eq_ignore_ascii_case("FAILED") || session.eq_ignore_ascii_case("FAILED") {
        return Some("failed");
    }
    if task.facts.as_ref().is_some_and(|f| f.interrupted) {
        return Some("interrupted");
    }
    let silent = last_activity_ms(task).is_some_and(|last| now_ms - last >= STALLED_AFTER_MS);
    (at_work(task) && silent).then_some("stalled")
}

/// The column of a task at `now_ms` (docs/behaviour.md §5).
pub fn column_of(task: &Task, now_ms: i64) -> StateColumn {
    if waits_for(task).is_some() {
        StateColumn::NeedsYou
    } else if stop_reason(task, now_ms).is_some() {
        StateColumn::Stopped
    } else if at_work(task) {
        StateColumn::Working
    } else {
        StateColumn::Done
    }
}

/// One column: its tasks, newest activity first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StateColumnView {
    pub column: StateColumn,
    /// `3 tasks`, the count's accessible name.
    pub count_label: String,
    pub task_ids: Vec<String>,
}

/// The strip above the columns: who needs you, what works.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Strip {
    pub needs_you: usize,
    pub working: usize,
    /// `2 need you` / `1 needs you`.
    pub needs_you_label: String,
    /// `5 working`.
    pub working_label: String,
}

/// A board by state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct StateBoard {
    pub workflow_id: String,
    pub name: String,
    /// The columns shown: all four, or the one the state filter names.
    pub columns: Vec<StateColumnView>,
    pub strip: Strip,
    pub options: FilterOptions,
    /// Tasks on the board, and those the filters let through.
    pub total: usize,
    pub shown: usize,
}

/// The board by state of `workflow_id` as `filter` shows it at `now_ms`;
/// `None` when the workflow is not loaded.
pub fn state_board(
    store: &Store,
    workflow_id: &str,
    filter: &BoardFilter,
    now_ms: i64,
) -> Option<StateBoard> {
    let wf = store.boards().workflow(workflow_id)?;
    let mut sorted: Vec<(Option<i64>, &Task)> = wf
        .tasks
        .values()
        .filter(|t| filter.admits(t))
        .map(|t| (last_activity_ms(t), t))
        .collect();
    sorted.sort_by(|(a, ta), (b, tb)| b.cmp(a).then_with(|| ta.id.cmp(&tb.id)));
    let mut columns: Vec<StateColumnView> = StateColumn::ALL
        .into_iter()
        .map(|column| StateColumnView {
            column,
            count_label: String::new(),
            task_ids: Vec::new(),
        })
        .collect();
    for (_, task) in &sorted {
        let at = column_of(task, now_ms) as usize;
        columns[at].task_ids.push(task.id.clone());
    }
    let count = |c: StateColumn| columns[c as usize].task_ids.len();
    let (needs_you, working) = (count(StateColumn::NeedsYou), count(StateColumn::Working));
    let strip = Strip {
        needs_you,
        working,
        needs_you_label: count_label(needs_you as u64, "needs you", "need you"),
        working_label: format!("{working} working"),
    };
    for c in &mut columns {
        c.count_label = count_label(c.task_ids.len() as u64, "task", "tasks");
    }
    columns.retain(|c| filter.state.is_none_or(|s| s == c.column));
    Some(StateBoard {
        workflow_id: wf.id.clone(),
        name: wf.name.clone(),
        columns,
        strip,
        options: filter_options(wf.tasks.values()),
        total: wf.tasks.len(),
        shown: sorted.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::{BoardSnapshot, TaskPatch};
    use crate::model::event::Event;
    use serde_json::json;

    const NOW: i64 = 1_796_532_900_000;

    fn task(v: serde_json::Value) -> Task {
        TaskPatch::from_value(&v).unwrap().to_task()
    }

    fn at(ms_ago: i64) -> String {
        crate::model::time::format_millis(NOW - ms_ago)
    }

    #[test]
    fn each_state_has_its_column() {
        let waiting = task(json!({"id": "w", "state": "IN_PROGRESS",
            "session_facts": {"waiting_for": "permission", "last_activity_at": at(60_000)}}));
        let pending = task(json!({"id": "p", "primary_session_pending_action": "clarification"}));
        let working = task(json!({"id": "r", "state": "IN_PROGRESS",
            "session_facts": {"last_activity_at": at(60_000)}}));
        let stalled = task(json!({"id": "s", "state": "IN_PROGRESS",
            "session_facts": {"last_activity_at": at(STALLED_AFTER_MS)}}));
        let interrupted = task(json!({"id": "i", "state": "COMPLETED",
            "session_facts": {"interrupted": true}}));
        let failed = task(json!({"id": "f", "primary_session_state": "FAILED"}));
        let done = task(json!({"id": "d", "state": "COMPLETED"}));
        let background = task(json!({"id": "b", "state": "COMPLETED", "active_subagent_count": 2}));
        let column = |t: &Task| column_of(t, NOW);
        assert_eq!(column(&waiting), StateColumn::NeedsYou);
        assert_eq!(column(&pending), StateColumn::NeedsYou);
        assert_eq!(column(&working), StateColumn::Working);
        assert_eq!(column(&background), StateColumn::Working);
        assert_eq!(
            (column(&stalled), stop_reason(&stalled, NOW)),
            (StateColumn::Stopped, Some("stalled"))
        );
        assert_eq!(stop_reason(&interrupted, NOW), Some("interrupted"));
        assert_eq!(stop_reason(&failed, NOW), Some("failed"));
        assert_eq!(column(&done), StateColumn::Done);
        assert_eq!(stop_reason(&done, NOW), None);
    }

    fn board(tasks: Vec<serde_json::Value>) -> Store {
        let mut store = Store::new();
        store.apply(Event::BoardLoaded(BoardSnapshot {
            workflow_id: "wf".into(),
            by_state: true,
            tasks: tasks.into_iter().map(task).collect(),
            ..BoardSnapshot::default()
        }));
        store
    }

    #[test]
    fn columns_are_newest_activity_first_with_counts_and_the_strip() {
        let store = board(vec![
            json!({"id": "old", "state": "COMPLETED", "session_facts": {"last_activity_at": at(3_600_000)}}),
            json!({"id": "new", "state": "COMPLETED", "session_facts": {"last_activity_at": at(60_000)}}),
            json!({"id": "never", "state": "COMPLETED"}),
            json!({"id": "w1", "state": "IN_PROGRESS", "session_facts": {"last_activity_at": at(1_000)}}),
            json!({"id": "ask", "state": "IN_PROGRESS", "session_facts": {"waiting_for": "answer"}}),
        ]);
        let b = state_board(&store, "wf", &BoardFilter::default(), NOW).unwrap();
        let names: Vec<&str> = b.columns.iter().map(|c| c.column.name()).collect();
        assert_eq!(names, ["Needs you", "Working", "Stopped", "Done"]);
        assert_eq!(b.columns[3].task_ids, ["new", "old", "never"]);
        let counts: Vec<&str> = b.columns.iter().map(|c| c.count_label.as_str()).collect();
        assert_eq!(counts, ["1 task", "1 task", "0 tasks", "3 tasks"]);
        assert_eq!(
            (
                b.strip.needs_you_label.as_str(),
                b.strip.working_label.as_str()
            ),
            ("1 needs you", "1 working")
        );
        assert_eq!((b.total, b.shown), (5, 5));
    }

    #[test]
    fn a_state_filter_shows_its_column_and_the_strip_still_counts_all() {
        let store = board(vec![
            json!({"id": "a", "state": "IN_PROGRESS", "session_facts": {"agent": "Codex"}}),
            json!({"id": "b", "state": "IN_PROGRESS", "session_facts": {"agent": "Claude Code"}}),
            json!({"id": "c", "state": "COMPLETED", "session_facts": {"agent": "Codex"}}),
        ]);
        let filter = BoardFilter::from_query("state=working&agent=Codex");
        let b = state_board(&store, "wf", &filter, NOW).unwrap();
        assert_eq!(b.columns.len(), 1);
        assert_eq!(b.columns[0].task_ids, ["a"]);
        assert_eq!(
            b.strip.working, 1,
            "the agent filter applies, the state's does not"
        );
        assert_eq!((b.total, b.shown), (3, 2));
        assert_eq!(b.options.agents, ["Claude Code", "Codex"]);
    }
}
