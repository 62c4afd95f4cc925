//! Readers of the board half of the model, for the board and task pages.

use super::Live;
use leptos::prelude::*;
use taskview_core::model::board::Task;
use taskview_core::screen::view::board::{board_view_knowing, BoardView};

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
