//! The app's one model and the only module that reads it (docs/ARCHITECTURE.md):
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
mod scroll;
pub mod stages;
pub mod timeline;
pub mod transcript;

use leptos::prelude::*;
use stages::Stage;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use taskview_core::model::event::Event;
use taskview_core::screen::view::announce::{Announcement, SettledAnnouncer, ANNOUNCE_WINDOW_MS};
use taskview_core::screen::view::not_shown::{records_not_shown, NotShownView};
use taskview_core::screen::view::row::RowView;
use taskview_core::screen::view::summary::row_summary;
use taskview_core::screen::viewer::{ReadingPosition, Reveal, Update, Viewer};
use taskview_core::state::layout::RowKey;

/// How long pushed live events wait for the rest of their burst before they
/// are applied: a server sends a batch of messages as many WebSocket frames,
/// in bursts a few milliseconds apart, with the task and turn updates that go
/// with them.
const GATHER: Duration = Duration::from_millis(16);

/// Shared, cheaply cloned handle to the app's model.
#[derive(Clone)]
pub struct Live {
    inner: Arc<Inner>,
}

struct Inner {
    viewer: Mutex<Viewer>,
    /// Live events pushed and not applied yet: they are applied together
    /// ([`Live::push`]).
    pending: Mutex<Vec<Event>>,
    /// Top-level rows were inserted, removed or moved, or their heights changed.
    list: ArcTrigger,
    /// Tasks or workflows changed.
    board: ArcTrigger,
    /// The roster, the drill-down or the subagents' lifecycle changed (docs/behaviour.md §8).
    fanout: ArcTrigger,
    /// One trigger per row a component renders, held while it is mounted:
    /// rows scrolled out of the window or gone release theirs.
    rows: Mutex<HashMap<RowKey, RowHold>>,
    /// Bumped when another transcript is opened (the reading position starts over).
    opened: ArcRwSignal<u64>,
    /// Text for the polite live region (a subagent settled).
    announcement: ArcRwSignal<String>,
    /// When and what that region says, at most once per window.
    announcer: Mutex<SettledAnnouncer>,
    /// The latest deep-link reveal, numbered so a repeat still fires.
    reveal: ArcRwSignal<Option<(u64, Reveal)>>,
    /// Called before each batch ([`Live::before_batch`]).
    before_batch: Mutex<Vec<BatchHook>>,
}

/// What a mounted list does before a batch lands (see [`Live::before_batch`]).
type BatchHook = Arc<dyn Fn() + Send + Sync>;

/// A mounted row's trigger and how many components show it.
struct RowHold {
    trigger: ArcTrigger,
    mounted: usize,
}

/// The slice of the top-level list to render.
#[derive(Clone, Debug, Default, PartialEq)]
struct Window {
    keys: Vec<RowKey>,
    /// The index of the first of `keys` among all top-level rows.
    first: usize,
    before: f64,
    after: f64,
    /// Top-level rows in all.
    rows: usize,
    /// Where the list is scrolled to show the reading position.
    scroll_top: f64,
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
                pending: Mutex::new(Vec::new()),
                list: ArcTrigger::new(),
                board: ArcTrigger::new(),
                fanout: ArcTrigger::new(),
                rows: Mutex::new(HashMap::new()),
                opened: ArcRwSignal::new(0),
                announcement: ArcRwSignal::new(String::new()),
                announcer: Mutex::new(SettledAnnouncer::default()),
                reveal: ArcRwSignal::new(None),
                before_batch: Mutex::new(Vec::new()),
            }),
        }
    }

    fn viewer(&self) -> MutexGuard<'_, Viewer> {
        lock(&self.inner.viewer)
    }

    /// Applies events as one batch and wakes the readers of what changed
    /// (after the live events still gathering, so the order of arrival is
    /// kept).
    pub fn apply(&self, events: impl IntoIterator<Item = Event>) {
        self.flush();
        self.apply_now(events);
    }

    fn apply_now(&self, events: impl IntoIterator<Item = Event>) {
        let hooks: Vec<BatchHook> = lock(&self.inner.before_batch).clone();
        hooks.iter().for_each(|hook| hook());
        let update = stages::timed(Stage::Apply, || self.viewer().apply(events));
        self.publish(update);
    }

    /// Live events (one WebSocket frame, one host `append`): they wait for
    /// the rest of their burst ([`GATHER`]) and are applied with the others
    /// that arrived meanwhile, as one batch: ten messages cost one layout,
    /// one render and one measurement instead of ten (docs/behaviour.md §10). A timer,
    /// not an animation frame: the batch's scroll to the tail is then made
    /// before the frame that paints it, so the frame also delivers its
    /// `scroll` event instead of asking for one more frame; and a hidden tab,
    /// which paints no frames, still gets its events.
    pub fn push(&self, events: impl IntoIterator<Item = Event>) {
        let mut pending = lock(&self.inner.pending);
        let first = pending.is_empty();
        pending.extend(events);
        drop(pending);
        if first {
            let live = self.clone();
            set_timeout(move || live.flush(), GATHER);
        }
    }

    /// Applies the pending live events, if any.
    fn flush(&self) {
        let events = std::mem::take(&mut *lock(&self.inner.pending));
        if !events.is_empty() {
            self.apply_now(events);
        }
    }

    fn publish(&self, update: Update) {
        if update.reset {
            // Rows of the new transcript may reuse keys of mounted ones.
            let mounted: Vec<RowKey> = lock(&self.inner.rows).keys().cloned().collect();
            self.notify_rows(&mounted);
            self.inner.reveal.set(None);
            self.inner.announcement.set(String::new());
            lock(&self.inner.announcer).reset();
            let opened = self.inner.opened.get_untracked();
            self.inner.opened.set(opened + 1);
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
            let said = stages::timed(Stage::Announce, || {
                let cards = self.viewer().settled_cards(&update.settled);
                lock(&self.inner.announcer).settled(&cards)
            });
            self.announce(said);
        }
        if let Some(reveal) = update.reveal {
            self.publish_reveal(reveal);
        }
    }

    /// Says `said`'s text, and ends its window later (docs/behaviour.md §3.4).
    fn announce(&self, said: Announcement) {
        if let Some(text) = said.text {
            self.inner.announcement.set(text);
        }
        if said.schedule {
            let live = self.clone();
            set_timeout(
                move || {
                    let said = lock(&live.inner.announcer).window_ended();
                    live.announce(said);
                },
                std::time::Duration::from_millis(ANNOUNCE_WINDOW_MS.into()),
            );
        }
    }

    fn publish_reveal(&self, reveal: Reveal) {
        let n = self
            .inner
            .reveal
            .with_untracked(|r| r.as_ref().map_or(0, |(n, _)| n + 1));
        self.inner.reveal.set(Some((n, reveal)));
    }

    /// Calls `hook` before every batch is applied, until
    /// [`Live::remove_before_batch`] with the hook returned: a list takes a
    /// scroll the reader made since the last frame (its `scroll` event not
    /// fired yet) against the rows it was made on, before the batch moves
    /// them: reaching the end just before a batch lands still follows it.
    fn before_batch(&self, hook: impl Fn() + Send + Sync + 'static) -> BatchHook {
        let hook: BatchHook = Arc::new(hook);
        lock(&self.inner.before_batch).push(hook.clone());
        hook
    }

    fn remove_before_batch(&self, hook: &BatchHook) {
        lock(&self.inner.before_batch).retain(|h| !Arc::ptr_eq(h, hook));
    }

    /// Wakes the readers of `keys`.
    fn notify_rows(&self, keys: &[RowKey]) {
        let rows = lock(&self.inner.rows);
        let triggers: Vec<ArcTrigger> = keys
            .iter()
            .filter_map(|k| rows.get(k).map(|h| h.trigger.clone()))
            .collect();
        drop(rows);
        triggers.iter().for_each(ArcTrigger::notify);
    }

    /// A component that shows row `key` mounted: keep its trigger.
    fn hold_row(&self, key: &RowKey) {
        lock(&self.inner.rows)
            .entry(key.clone())
            .or_insert_with(|| RowHold {
                trigger: ArcTrigger::new(),
                mounted: 0,
            })
            .mounted += 1;
    }

    /// A component that showed row `key` unmounted: the last one releases
    /// its trigger.
    fn release_row(&self, key: &RowKey) {
        let mut rows = lock(&self.inner.rows);
        if let Some(hold) = rows.get_mut(key) {
            hold.mounted = hold.mounted.saturating_sub(1);
            if hold.mounted == 0 {
                rows.remove(key);
            }
        }
    }

    /// Subscribes the current reactive scope to one (held) row.
    fn track_row(&self, key: &RowKey) {
        if let Some(hold) = lock(&self.inner.rows).get(key) {
            hold.trigger.track();
        }
    }

    /// Rows whose trigger is held (mounted rows), for the `?debug` hooks.
    pub fn held_rows(&self) -> usize {
        lock(&self.inner.rows).len()
    }

    /// Entries (messages and unreadable rows) the store holds, for the `?debug` hooks.
    pub fn entries(&self) -> usize {
        self.viewer().store().len()
    }

    /// The view of row `key`, followed reactively.
    fn row(&self, key: &RowKey) -> Option<RowView> {
        self.track_row(key);
        stages::timed(Stage::Rows, || self.viewer().row(key))
    }

    /// The user toggled row `key`; true when it is open now.
    fn toggle(&self, key: &RowKey) -> bool {
        let mut viewer = self.viewer();
        let rows = viewer.toggle(key);
        let open = viewer.is_expanded(key);
        drop(viewer);
        self.notify_rows(&rows);
        open
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

    /// The top-level rows to render for a viewport of `height` pixels that
    /// shows `position`, plus `margin` on each side, the space above and
    /// below them, and the scroll offset; followed reactively.
    fn window(&self, position: &ReadingPosition, height: f64, margin: f64) -> Window {
        self.inner.list.track();
        stages::timed(Stage::Window, || {
            self.window_untracked(position, height, margin)
        })
    }

    fn window_untracked(&self, position: &ReadingPosition, height: f64, margin: f64) -> Window {
        let viewer = self.viewer();
        let scroll_top = viewer.scroll_top_of(position, height);
        let heights = viewer.heights();
        let (first, end) = heights.visible_range(scroll_top, height, margin);
        Window {
            keys: (first..end)
                .filter_map(|i| viewer.layout().top_row(i).map(|r| r.key.clone()))
                .collect(),
            first,
            before: heights.offset_of(first),
            after: heights.total() - heights.offset_of(end),
            rows: heights.len(),
            scroll_top,
        }
    }

    /// The reading position of the list scrolled to `scroll_top`.
    fn position_at(&self, scroll_top: f64) -> ReadingPosition {
        self.viewer().position_at(scroll_top)
    }

    /// The reading position `within` pixels into top-level row `key`.
    fn position_in_row(&self, key: &RowKey, within: f64) -> ReadingPosition {
        self.viewer().position_in_row(key, within)
    }

    /// The reading position at the top of top-level row `index`.
    fn position_of_row(&self, index: usize) -> ReadingPosition {
        self.viewer().position_of_row(index)
    }

    /// Records measured top-level row heights (one frame's).
    fn set_heights(&self, heights: &[(RowKey, f64)]) {
        let mut viewer = self.viewer();
        let mut moved = false;
        for (key, height) in heights {
            moved |= viewer.set_height(key, *height);
        }
        drop(viewer);
        if moved {
            self.inner.list.notify();
        }
    }

    /// What the records the importer skipped make of the disclosure (docs/behaviour.md §1).
    pub fn not_shown(&self) -> Option<NotShownView> {
        records_not_shown(self.viewer().store().not_shown())
    }

    /// The rows of the transcript as text lines, for the `?debug` hooks.
    pub fn row_summary(&self) -> Vec<String> {
        let viewer = self.viewer();
        row_summary(viewer.store(), viewer.layout())
    }
}
