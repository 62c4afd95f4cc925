//! A board taskview makes itself (recordings, telemetry, a team store):
//! columns by state, not by workflow step (docs/behaviour.md §5). `Needs
//! you` (the agent waits for a permission or an answer), `Working`,
//! `Stopped` (failed, interrupted, stalled: docs/behaviour.md §8) and
//! `Done`, each newest activity first, and the strip `N need you · N
//! working` above them. What a task is does not depend on the clock
//! ([`standing`]) except that a task at work with no new record for five
//! minutes is stalled ([`is_stalled`]), so the page keeps its tasks sorted
//! by standing as they change (`screen::viewer::board`) and the clock only
//! moves the stalled ones. A card's words are made only for the cards on
//! screen (`card_words`).

pub use super::column::StateColumn;
use super::filter::FilterOptions;
use crate::model::board::Task;
use crate::model::time::parse_millis;
use crate::screen::view::format::count_label;
use crate::state::activity::STALL_AFTER_MS;

/// The time of a task's newest activity, in ms since the epoch.
pub fn last_activity_ms(task: &Task) -> Option<i64> {
    parse_millis(task.facts.as_ref()?.last_activity_at.as_deref()?)
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

/// What a task is, whatever the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Standing {
    /// Its agent waits on the user.
    NeedsYou,
    /// Its agent is at work (stalled once silent for five minutes).
    AtWork,
    /// It failed or was interrupted.
    Stopped,
    Done,
}

impl Standing {
    /// Every standing, in the columns' order.
    pub const ALL: [Standing; 4] = [
        Standing::NeedsYou,
        Standing::AtWork,
        Standing::Stopped,
        Standing::Done,
    ];
}

/// Why a task stopped whatever the time: `failed`, or `interrupted` (its
/// agent stopped mid-turn: killed, crashed).
fn stopped_because(task: &Task) -> Option<&'static str> {
    let session = task.primary_session_state.as_deref().unwrap_or("");
    if task.state.eq_ignore_ascii_case("FAILED") || session.eq_ignore_ascii_case("FAILED") {
        return Some("failed");
    }
    task.facts
        .as_ref()
        .is_some_and(|f| f.interrupted)
        .then_some("interrupted")
}

/// The standing of `task`.
pub fn standing(task: &Task) -> Standing {
    if waits_for(task).is_some() {
        Standing::NeedsYou
    } else if stopped_because(task).is_some() {
        Standing::Stopped
    } else if at_work(task) {
        Standing::AtWork
    } else {
        Standing::Done
    }
}

/// Whether a task at work whose newest activity was at `last` is stalled
/// at `now_ms` (docs/behaviour.md §8: five minutes without a new record).
pub fn is_stalled(last: Option<i64>, now_ms: i64) -> bool {
    last.is_some_and(|last| now_ms - last >= STALL_AFTER_MS)
}

/// Why a task stopped before its end, judged at `now_ms`: `failed`,
/// `interrupted`, `stalled` (at work but silent for five minutes); `None`
/// for one working, waiting or done.
pub fn stop_reason(task: &Task, now_ms: i64) -> Option<&'static str> {
    match standing(task) {
        Standing::Stopped => stopped_because(task),
        Standing::AtWork if is_stalled(last_activity_ms(task), now_ms) => Some("stalled"),
        _ => None,
    }
}

/// The column of a task at `now_ms` (docs/behaviour.md §5).
pub fn column_of(task: &Task, now_ms: i64) -> StateColumn {
    match standing(task) {
        Standing::NeedsYou => StateColumn::NeedsYou,
        Standing::AtWork if is_stalled(last_activity_ms(task), now_ms) => StateColumn::Stopped,
        Standing::AtWork => StateColumn::Working,
        Standing::Stopped => StateColumn::Stopped,
        Standing::Done => StateColumn::Done,
    }
}

/// One column: its name and how many tasks it holds (its cards are read a
/// window at a time: `Viewer::state_column`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StateColumnView {
    pub column: StateColumn,
    pub count: usize,
    /// `3 tasks`, the count's accessible name.
    pub count_label: String,
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

impl Strip {
    /// The strip of `needs_you` tasks waiting and `working` at work.
    pub fn new(needs_you: usize, working: usize) -> Strip {
        Strip {
            needs_you,
            working,
            needs_you_label: count_label(needs_you as u64, "needs you", "need you"),
            working_label: format!("{working} working"),
        }
    }
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
    /// Bumped whenever a task changed: the columns' cards may have moved.
    pub version: u64,
}

/// The column `count` tasks make, with its count's words.
pub fn column_view(column: StateColumn, count: usize) -> StateColumnView {
    StateColumnView {
        column,
        count,
        count_label: count_label(count as u64, "task", "tasks"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::TaskPatch;
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
            "session_facts": {"last_activity_at": at(STALL_AFTER_MS)}}));
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

    #[test]
    fn only_the_clock_makes_a_task_at_work_stalled() {
        let working = task(json!({"id": "r", "state": "IN_PROGRESS",
            "session_facts": {"last_activity_at": at(60_000)}}));
        assert_eq!(standing(&working), Standing::AtWork);
        assert_eq!(column_of(&working, NOW), StateColumn::Working);
        let later = NOW + STALL_AFTER_MS;
        assert_eq!(column_of(&working, later), StateColumn::Stopped);
        assert_eq!(stop_reason(&working, later), Some("stalled"));
        let undated = task(json!({"id": "u", "state": "IN_PROGRESS"}));
        assert_eq!(
            column_of(&undated, later),
            StateColumn::Working,
            "no time: never stalled"
        );
        assert_eq!(Strip::new(1, 5).needs_you_label, "1 needs you");
        assert_eq!(Strip::new(2, 5).needs_you_label, "2 need you");
    }
}
