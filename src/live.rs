//! The app's one store (ARCHITECTURE.md): taskview-core's `Store` and `Layout`
//! behind a lock, plus the reactive triggers components subscribe to.
//!
//! Every source hands its events to [`Live::apply`]; the store applies them,
//! the layout updates only the rows they reach, and only the triggers of those
//! rows fire. The board and the transcript read the same store.

use leptos::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use taskview_core::event::Event;
use taskview_core::layout::{Layout, RowDiff, RowKey, RowKind};
use taskview_core::status::message_run_state;
use taskview_core::store::{Changes, Store};
use taskview_core::view::card::card_view;
use taskview_core::viewport::HeightIndex;

/// Shared, cheaply cloned handle to the app's store and layout.
#[derive(Clone)]
pub struct Live {
    inner: Arc<Inner>,
}

struct Inner {
    data: Mutex<Data>,
    /// Top-level rows were inserted, removed or moved.
    list: ArcTrigger,
    /// A row height changed (the list's spacers move).
    heights: ArcTrigger,
    /// Tasks or workflows changed.
    board: ArcTrigger,
    /// One trigger per row key that a component has rendered.
    rows: Mutex<HashMap<String, ArcTrigger>>,
    /// The user's sticky expand/collapse choices, by row key.
    manual: Mutex<HashMap<String, bool>>,
    /// Text for the polite live region (a subagent finished).
    announcement: ArcRwSignal<String>,
}

/// The locked state: read it with [`Live::read`].
pub struct Data {
    pub store: Store,
    pub layout: Layout,
    /// Heights of the top-level rows, in layout order (estimated until measured).
    pub heights: HeightIndex,
    order: Vec<RowKey>,
    position: HashMap<RowKey, usize>,
    measured: HashMap<RowKey, f64>,
    running_cards: HashSet<String>,
    session: Option<String>,
}

/// A first guess at a row's height before it is measured.
fn estimated_height(kind: &RowKind) -> f64 {
    match kind {
        RowKind::Message => 44.0,
        RowKind::Group(_) => 36.0,
        RowKind::Subagent | RowKind::Orphans => 64.0,
        RowKind::Unreadable => 96.0,
    }
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
    /// An empty store.
    pub fn new() -> Self {
        Live {
            inner: Arc::new(Inner {
                data: Mutex::new(Data {
                    store: Store::new(),
                    layout: Layout::new(),
                    heights: HeightIndex::new(),
                    order: Vec::new(),
                    position: HashMap::new(),
                    measured: HashMap::new(),
                    running_cards: HashSet::new(),
                    session: None,
                }),
                list: ArcTrigger::new(),
                heights: ArcTrigger::new(),
                board: ArcTrigger::new(),
                rows: Mutex::new(HashMap::new()),
                manual: Mutex::new(HashMap::new()),
                announcement: ArcRwSignal::new(String::new()),
            }),
        }
    }

    /// Reads the store and layout under the lock. Keep `f` short and pure.
    pub fn read<R>(&self, f: impl FnOnce(&Data) -> R) -> R {
        f(&lock(&self.inner.data))
    }

    /// Applies events as one batch and fires the triggers of what changed.
    pub fn apply(&self, events: impl IntoIterator<Item = Event>) {
        let (diff, board_changed, top_changed, finished) = {
            let mut data = lock(&self.inner.data);
            let mut changes = Changes::default();
            for event in events {
                changes.merge(data.store.apply(event));
            }
            if changes.is_empty() {
                return;
            }
            let Data { store, layout, .. } = &mut *data;
            let diff = layout.update(store, &changes);
            let board_changed = !changes.tasks.is_empty() || !changes.workflows.is_empty();
            let top_changed = data.sync_order(&diff);
            let finished = data.settled_cards(&diff);
            (diff, board_changed, top_changed, finished)
        };
        self.notify_rows(
            diff.changed
                .iter()
                .chain(&diff.inserted)
                .map(RowKey::to_string),
        );
        if top_changed {
            self.inner.list.notify();
        }
        if board_changed {
            self.inner.board.notify();
        }
        if let Some(text) = finished.last() {
            self.inner.announcement.set(text.clone());
        }
    }

    /// Starts a fresh transcript when `session_id` differs from the current one.
    pub fn open_session(&self, session_id: &str) {
        let mut data = lock(&self.inner.data);
        if data.session.as_deref() == Some(session_id) {
            return;
        }
        data.session = Some(session_id.to_string());
        data.reset_transcript();
        drop(data);
        lock(&self.inner.manual).clear();
        self.inner.list.notify();
    }

    /// Drops the transcript (e.g. before loading another file).
    pub fn clear_transcript(&self) {
        let mut data = lock(&self.inner.data);
        data.session = None;
        data.reset_transcript();
        drop(data);
        lock(&self.inner.manual).clear();
        self.inner.list.notify();
    }

    /// Subscribes the current reactive scope to the top-level row list.
    pub fn track_list(&self) {
        self.inner.list.track();
    }

    /// Subscribes the current reactive scope to row heights.
    pub fn track_heights(&self) {
        self.inner.heights.track();
    }

    /// Subscribes the current reactive scope to the boards.
    pub fn track_board(&self) {
        self.inner.board.track();
    }

    /// Subscribes the current reactive scope to one row (by its DOM key).
    pub fn track_row(&self, key: &str) {
        lock(&self.inner.rows)
            .entry(key.to_string())
            .or_default()
            .track();
    }

    /// The user's sticky toggle for a row, if any.
    pub fn manual(&self, key: &str) -> Option<bool> {
        lock(&self.inner.manual).get(key).copied()
    }

    /// Stores a sticky toggle and re-renders that row.
    pub fn set_manual(&self, key: &str, expanded: bool) {
        lock(&self.inner.manual).insert(key.to_string(), expanded);
        self.notify_rows([key.to_string()]);
    }

    /// The polite live-region text.
    pub fn announcement(&self) -> ArcRwSignal<String> {
        self.inner.announcement.clone()
    }

    /// Records a measured top-level row height.
    pub fn set_height(&self, key: &RowKey, height: f64) {
        let mut data = lock(&self.inner.data);
        if data.measured.get(key) == Some(&height) {
            return;
        }
        data.measured.insert(key.clone(), height);
        let Some(index) = data.layout.top_index_of(key) else {
            return;
        };
        if data.heights.height(index).is_some_and(|h| h != height) {
            data.heights.set(index, height);
            drop(data);
            self.inner.heights.notify();
        }
    }

    /// Opens every group and card that contains message `id` (for `#msg-<id>`),
    /// and returns the index of its top-level row.
    pub fn reveal(&self, id: &str) -> Option<usize> {
        let (path, top) = self.read(|d| {
            let path = d.layout.path_to(id);
            let top = path.first().and_then(|k| d.layout.top_index_of(k));
            (path, top)
        });
        for key in &path {
            let key = key.to_string();
            if self.manual(&key) != Some(true) {
                self.set_manual(&key, true);
            }
        }
        top
    }

    /// Fires the triggers of the rows (by DOM key) that a component follows.
    fn notify_rows(&self, keys: impl IntoIterator<Item = String>) {
        let rows = lock(&self.inner.rows);
        let triggers: Vec<ArcTrigger> = keys
            .into_iter()
            .filter_map(|k| rows.get(&k).cloned())
            .collect();
        drop(rows);
        triggers.iter().for_each(ArcTrigger::notify);
    }
}

impl Data {
    /// The session the transcript shows, when it is a live one.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    fn reset_transcript(&mut self) {
        self.store.clear_transcript();
        self.layout = Layout::new();
        self.heights = HeightIndex::new();
        self.order.clear();
        self.position.clear();
        self.measured.clear();
        self.running_cards.clear();
    }

    /// Brings the top-level order mirror and the height index in line with the
    /// layout. Work is proportional to the distance of the first change from
    /// the end (an append costs O(log n)). Returns whether the top level changed.
    fn sync_order(&mut self, diff: &RowDiff) -> bool {
        let mut first = usize::MAX;
        for key in &diff.inserted {
            if let Some(new) = self.layout.top_index_of(key) {
                first = first.min(new);
            }
        }
        for key in diff.changed.iter().chain(&diff.removed) {
            let old = self.position.get(key).copied();
            let new = self.layout.top_index_of(key);
            if old != new {
                first = first
                    .min(old.unwrap_or(usize::MAX))
                    .min(new.unwrap_or(usize::MAX));
            }
        }
        if self.order.len() != self.layout.top_len() {
            first = first.min(self.order.len().min(self.layout.top_len()));
        }
        if first == usize::MAX {
            return false;
        }
        for key in self.order.drain(first.min(self.order.len())..) {
            self.position.remove(&key);
        }
        self.heights.truncate(first);
        for index in first..self.layout.top_len() {
            let Some(row) = self.layout.top_row(index) else {
                break;
            };
            let height = self
                .measured
                .get(&row.key)
                .copied()
                .unwrap_or_else(|| estimated_height(&row.kind));
            self.position.insert(row.key.clone(), index);
            self.order.push(row.key.clone());
            self.heights.push(height);
        }
        true
    }

    /// Cards that stopped running in this update, as announcements.
    fn settled_cards(&mut self, diff: &RowDiff) -> Vec<String> {
        let mut finished = Vec::new();
        for key in diff.changed.iter().chain(&diff.inserted) {
            let RowKey::Message(id) = key else { continue };
            if self.layout.row(key).map(|r| &r.kind) != Some(&RowKind::Subagent) {
                continue;
            }
            let Some(message) = self.store.message(id) else {
                continue;
            };
            if message_run_state(message, self.store.is_turn_active(message)).is_running() {
                self.running_cards.insert(id.clone());
            } else if self.running_cards.remove(id) {
                // The full card view only for a card that just settled.
                if let Some(card) = card_view(&self.store, &self.layout, id) {
                    finished.push(card.settled_announcement());
                }
            }
        }
        for key in &diff.removed {
            if let RowKey::Message(id) = key {
                self.running_cards.remove(id);
            }
        }
        finished
    }
}
