//! Readers of the board half of the model, for the board and task pages.

use super::Live;
use leptos::prelude::*;
use taskview_core::board::Task;
use taskview_core::view::board::{board_view, BoardView};

impl Live {
    /// Subscribes the current scope to the boards and reads them.
    fn read_board<R>(&self, read: impl FnOnce(&taskview_core::store::Store) -> R) -> R {
        self.inner.board.track();
        read(self.viewer().store())
    }
}

/// The board of `workflow_id`, kept current (SPEC.md §5).
pub fn use_board(workflow_id: String) -> Memo<Option<BoardView>> {
    let live = expect_context::<Live>();
    Memo::new(move |_| live.read_board(|store| board_view(store, &workflow_id)))
}

/// Task `task_id` as the boards know it, kept current.
pub fn use_task(task_id: String) -> Memo<Option<Task>> {
    let live = expect_context::<Live>();
    Memo::new(move |_| live.read_board(|store| store.boards().task(&task_id).cloned()))
}
