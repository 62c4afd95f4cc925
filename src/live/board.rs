//! Readers of the board half of the model, for the board and task pages.

use super::stages::{self, Stage};
use super::Live;
use leptos::prelude::*;
use taskview_core::model::board::Task;
use taskview_core::screen::view::board::activity::ActivityView;
use taskview_core::screen::view::board::by_state::{StateBoard, StateColumn};
use taskview_core::screen::view::board::card_words::{state_card, StateCard};
use taskview_core::screen::view::board::filter::BoardFilter;
use taskview_core::screen::view::board::{board_view_knowing, task_notice, BoardView};

impl Live {
    /// Subscribes the current scope to the boards and reads them.
    fn read_board<R>(&self, read: impl FnOnce(&taskview_core::state::store::Store) -> R) -> R {
        self.inner.board.track();
        read(self.viewer().store())
    }

    /// Task `task_id` as the boards know it now (not followed).
    pub(crate) fn task(&self, task_id: &str) -> Option<Task> {
        self.viewer().store().boards().task(task_id).cloned()
    }
}

/// The board of `workflow_id`, kept current (docs/behaviour.md §5). A task whose
/// session this page holds (its drill-down is open) reports what its
/// subagents are doing, so its status is honest (docs/behaviour.md §8).
pub fn use_board(workflow_id: String) -> Memo<Option<BoardView>> {
    let live = expect_context::<Live>();
    Memo::new(move |_| {
        live.inner.board.track();
        live.inner.fanout.track();
        let viewer = live.viewer();
        let store = viewer.store();
        let open = store.open_session();
        board_view_knowing(store, &workflow_id, |task| {
            (open.is_some() && task.primary_session_id.as_deref() == open)
                .then(|| viewer.subagent_activity())
        })
    })
}

/// Task `task_id` as the boards know it, kept current.
pub fn use_task(task_id: String) -> Memo<Option<Task>> {
    let live = expect_context::<Live>();
    Memo::new(move |_| live.read_board(|store| store.boards().task(&task_id).cloned()))
}

/// What task `task_id`'s page says above its transcript (its board's
/// notice), kept current.
pub fn use_task_notice(task_id: String) -> Memo<Option<String>> {
    let live = expect_context::<Live>();
    Memo::new(move |_| live.read_board(|store| task_notice(store, &task_id)))
}

/// Whether `workflow_id` is a board taskview makes itself, with columns by
/// state (docs/behaviour.md §5); `None` until it is loaded.
pub fn use_by_state(workflow_id: String) -> Memo<Option<bool>> {
    let live = expect_context::<Live>();
    Memo::new(move |_| {
        live.read_board(|store| store.boards().workflow(&workflow_id).map(|w| w.by_state))
    })
}

/// The board by state of `workflow_id` as `filter` shows it at `now` (ms
/// since the epoch), kept current: core keeps it sorted as tasks change
/// (`Viewer::state_board`), so a change costs its task, not the board.
pub fn use_state_board(
    workflow_id: String,
    filter: Signal<BoardFilter>,
    now: Signal<i64>,
) -> Memo<Option<StateBoard>> {
    let live = expect_context::<Live>();
    Memo::new(move |_| {
        let now = now.get();
        live.inner.board.track();
        filter.with(|filter| {
            stages::timed(Stage::Board, || {
                live.viewer().state_board(&workflow_id, filter, now)
            })
        })
    })
}

/// The ids of the cards `first..end` of `column` of the board `board` shows
/// at `now`, read again when the board changes.
pub fn state_column(
    board: Memo<Option<StateBoard>>,
    column: StateColumn,
    (first, end): (usize, usize),
    now: i64,
) -> Vec<String> {
    let live = expect_context::<Live>();
    board.track();
    stages::timed(Stage::Board, || {
        live.viewer().state_column(column, first, end, now)
    })
}

/// The words of task `task_id`'s card at `now`, read as the boards change.
pub fn state_card_of(task_id: &str, now: i64) -> Option<StateCard> {
    let live = expect_context::<Live>();
    stages::timed(Stage::Board, || {
        live.read_board(|store| store.boards().task(task_id).map(|t| state_card(t, now)))
    })
}

/// The Activity strip of the board `board` shows, at `now`, kept current.
pub fn use_activity(board: Memo<Option<StateBoard>>, now: Signal<i64>) -> Memo<ActivityView> {
    let live = expect_context::<Live>();
    Memo::new(move |_| {
        board.track();
        let now = now.get();
        stages::timed(Stage::Board, || live.viewer().state_board_activity(now))
    })
}
