//! The app's one model and the only module that reads it (ARCHITECTURE.md):
//! taskview-core's [`Viewer`] (store, layout, toggles, heights, deep link)
//! behind a lock, plus the reactive triggers its readers subscribe to.
//!
//! Sources write: they hand their events to [`Live::apply`], which returns
//! nothing. Everything that reads is here: the row connectors
//! ([`rows::LiveRow`]), the transcript list ([`transcript::LiveTranscript`]),
//! and the board and task readers ([`board`]). Components elsewhere are
//! props-only.

pub mod board;
pub mod fanout;
pub mod rows;
pub mod transcript;

use leptos::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use taskview_core::event::Event;
use taskview_core::layout::RowKey;
use taskview_core::view::row::RowView;
use taskview_core::view::summary::row_summary;
use taskview_core::viewer::{Reveal, Update, Viewer};

/// Shared, cheaply cloned handle to the app's model.
#[derive(Clone)]
pub struct Live {
    inner: Arc<Inner>,
}

struct Inner {
    viewer: Mutex<Viewer>,
    /// Top-level rows were inserted, removed or moved, or their heights changed.
    list: ArcTrigger,
    /// Tasks or workflows changed.
    board: ArcTrigger,
    /// The roster, the drill-down or the subagents' lifecycle changed (SPEC.md §8).
    fanout: ArcTrigger,
    /// One trigger per row a component renders; released when the row goes.
    rows: Mutex<HashMap<RowKey, ArcTrigger>>,
    /// Text for the polite live region (a subagent settled).
    announcement: ArcRwSignal<String>,
    /// The latest deep-link reveal, numbered so a repeat still fires.
    reveal: ArcRwSignal<Option<(u64, Reveal)>>,
}

/// The slice of the top-level list to render.
#[derive(Clone, Debug, Default, PartialEq)]
struct Window {
    keys: Vec<RowKey>,
    before: f64,
    after: f64,
    /// Top-level rows in all.
    rows: usize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Default for Live {
    fn default() -> Self {
        Self::new()
    }
}

impl Live {
    /// An empty model.
    pub fn new() -> Self {
        Live {
            inner: Arc::new(Inner {
                viewer: Mutex::new(Viewer::new()),
                list: ArcTrigger::new(),
                board: ArcTrigger::new(),
                fanout: ArcTrigger::new(),
                rows: Mutex::new(HashMap::new()),
                announcement: ArcRwSignal::new(String::new()),
                reveal: ArcRwSignal::new(None),
            }),
        }
    }

    fn viewer(&self) -> MutexGuard<'_, Viewer> {
        lock(&self.inner.viewer)
    }

    /// Applies events as one batch and wakes the readers of what changed.
    pub fn apply(&self, events: impl IntoIterator<Item = Event>) {
        let update = self.viewer().apply(events);
        self.publish(update);
    }

    fn publish(&self, update: Update) {
        if update.reset {
            lock(&self.inner.rows).clear();
            self.inner.reveal.set(None);
            self.inner.announcement.set(String::new());
        }
        {
            let mut rows = lock(&self.inner.rows);
            for key in &update.removed {
                rows.remove(key);
            }
        }
        self.notify_rows(&update.rows);
        if update.list {
            self.inner.list.notify();
        }
        if update.board {
            self.inner.board.notify();
        }
        if update.fanout || update.reset {
            self.inner.fanout.notify();
        }
        if !update.settled.is_empty() {
            if let Some(text) = self.viewer().announcement(&update.settled) {
                self.inner.announcement.set(text);
            }
        }
        if let Some(reveal) = update.reveal {
            self.publish_reveal(reveal);
        }
    }

    fn publish_reveal(&self, reveal: Reveal) {
        let n = self
            .inner
            .reveal
            .with_untracked(|r| r.as_ref().map_or(0, |(n, _)| n + 1));
        self.inner.reveal.set(Some((n, reveal)));
    }

    /// Wakes the readers of `keys`.
    fn notify_rows(&self, keys: &[RowKey]) {
        let rows = lock(&self.inner.rows);
        let triggers: Vec<ArcTrigger> = keys.iter().filter_map(|k| rows.get(k).cloned()).collect();
        drop(rows);
        triggers.iter().for_each(ArcTrigger::notify);
    }

    /// Subscribes the current reactive scope to one row.
    fn track_row(&self, key: &RowKey) {
        lock(&self.inner.rows)
            .entry(key.clone())
            .or_default()
            .track();
    }

    /// The view of row `key`, followed reactively.
    fn row(&self, key: &RowKey) -> Option<RowView> {
        self.track_row(key);
        self.viewer().row(key)
    }

    /// The user toggled row `key`.
    fn toggle(&self, key: &RowKey) {
        let rows = self.viewer().toggle(key);
        self.notify_rows(&rows);
    }

    /// Follows a deep link to message `id`: opens what contains it now or
    /// when it arrives; the reveal reaches [`transcript::LiveTranscript`].
    pub fn follow_anchor(&self, id: &str) {
        let (reveal, opened) = self.viewer().follow_anchor(id);
        self.notify_rows(&opened);
        if let Some(reveal) = reveal {
            self.publish_reveal(reveal);
        }
    }

    /// Stops following the deep link (the reader scrolled on).
    fn release_anchor(&self) {
        self.viewer().release_anchor();
    }

    /// The top-level rows to render for a viewport at `scroll_top` of
    /// `height` pixels plus `margin` on each side, and the space above and
    /// below them; followed reactively.
    fn window(&self, scroll_top: f64, height: f64, margin: f64) -> Window {
        self.inner.list.track();
        let viewer = self.viewer();
        let heights = viewer.heights();
        let (first, end) = heights.visible_range(scroll_top, height, margin);
        Window {
            keys: (first..end)
                .filter_map(|i| viewer.layout().top_row(i).map(|r| r.key.clone()))
                .collect(),
            before: heights.offset_of(first),
            after: heights.total() - heights.offset_of(end),
            rows: heights.len(),
        }
    }

    /// Where top-level row `index` starts, in pixels.
    fn offset_of(&self, index: usize) -> f64 {
        self.viewer().heights().offset_of(index)
    }

    /// Records a measured top-level row height.
    fn set_height(&self, key: &RowKey, height: f64) {
        if self.viewer().set_height(key, height) {
            self.inner.list.notify();
        }
    }

    /// The rows of the transcript as text lines, for the `?debug` hooks.
    pub fn row_summary(&self) -> Vec<String> {
        let viewer = self.viewer();
        row_summary(viewer.store(), viewer.layout())
    }
}
