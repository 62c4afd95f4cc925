//! What one page holds (ARCHITECTURE "one store, one direction"): the store,
//! its layout, the user's sticky toggles, the measured row heights and the
//! deep link being followed. Sources push events into [`Viewer::apply`]; it
//! reports which rows to re-render as an [`Update`] and builds no
//! view-models; components read finished [`RowView`]s through
//! [`Viewer::row`].

use crate::model::event::Event;
use crate::screen::view::anchor::anchor_id;
use crate::screen::view::card::CardView;
use crate::screen::view::row::{RowContext, RowView, Toggles};
use crate::screen::viewport::HeightIndex;
use crate::state::layout::{Layout, RowDiff, RowKey, RowKind};
use crate::state::store::{Changes, Store};
use crate::state::timeline::Timeline;
use fanout::FanOut;
use std::collections::{HashMap, HashSet};

/// A first guess at a top-level row's height before it is measured.
pub fn estimated_height(kind: &RowKind) -> f64 {
    match kind {
        RowKind::Message => 44.0,
        RowKind::Group(_) => 36.0,
        RowKind::Subagent | RowKind::Orphans => 64.0,
        RowKind::Unreadable => 96.0,
    }
}

/// A deep link's target, laid out and opened (docs/behaviour.md §4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reveal {
    /// The element id to scroll into view (`msg-<id>`).
    pub anchor: String,
    /// The top-level row that holds it.
    pub top_index: usize,
}

/// What one batch of events changed, for the UI to patch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Update {
    /// Rows whose view may differ now: re-render them.
    pub rows: Vec<RowKey>,
    /// Rows that no longer exist.
    pub removed: Vec<RowKey>,
    /// The top-level list (its rows or their heights) changed.
    pub list: bool,
    /// Boards changed.
    pub board: bool,
    /// Another transcript was opened: everything shown before is gone.
    pub reset: bool,
    /// Subagent cards that stopped running.
    pub settled: Vec<RowKey>,
    /// The deep link being followed was laid out (again, if it moved).
    pub reveal: Option<Reveal>,
    /// The roster, the drill-down or the search count read differently
    /// (docs/behaviour.md §8).
    pub fanout: bool,
}

/// A deep link being followed: its message and where it was last revealed.
#[derive(Clone, Debug, Default)]
struct Anchor {
    message_id: String,
    path: Vec<RowKey>,
}

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub struct Viewer {
    store: Store,
    layout: Layout,
    toggles: Toggles,
    heights: HeightIndex,
    measured: HashMap<RowKey, f64>,
    settled: HashSet<RowKey>,
    anchor: Option<Anchor>,
    fanout: FanOut,
    /// Kept up to date only while open (docs/user-guide.md "The Timeline").
    timeline: Timeline,
    /// The runs holding search matches, kept from the matches' changes.
    timeline_hits: crate::state::timeline::hits::Hits,
    /// What the timeline's settled bars said when last drawn.
    timeline_bars: crate::screen::view::timeline::kept::KeptBars,
    /// The board by state shown, kept as its tasks change (docs/behaviour.md §5).
    state_board: board::KeptStateBoard,
}

impl Viewer {
    /// An empty viewer.
    pub fn new() -> Viewer {
        Viewer::default()
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Heights of the top-level rows, in layout order.
    pub fn heights(&self) -> &HeightIndex {
        &self.heights
    }

    /// Applies events as one batch (docs/behaviour.md §1.1, §2) and reports what changed.
    pub fn apply(&mut self, events: impl IntoIterator<Item = Event>) -> Update {
        let mut changes = Changes::default();
        for event in events {
            changes.merge(self.store.apply(event));
        }
        if changes.is_empty() {
            return Update::default();
        }
        self.keep_state_board(&changes);
        let diff = self.layout.update(&self.store, &changes);
        let now = self.fanout.now();
        let fanout = self
            .fanout
            .record(&self.store, &self.layout, &changes, &diff, now);
        self.timeline.record(
            &self.store,
            &self.layout,
            &changes,
            &diff,
            self.fanout.cards(),
        );
        if diff.reset {
            self.toggles.clear();
            self.measured.clear();
            self.heights = HeightIndex::new();
            // The deep link (from the page URL) applies to what loads next.
            if let Some(anchor) = &mut self.anchor {
                anchor.path.clear();
            }
        }
        for key in &diff.removed {
            self.toggles.remove(key);
            self.measured.remove(key);
        }
        let list = self.sync_heights(&diff);
        self.settled = diff.settled.iter().cloned().collect();
        let mut update = Update {
            board: !changes.tasks.is_empty() || !changes.workflows.is_empty(),
            list,
            reset: diff.reset,
            settled: diff.settled.clone(),
            rows: diff
                .changed
                .into_iter()
                .chain(diff.inserted)
                .chain(fanout.rows)
                .collect(),
            removed: diff.removed,
            reveal: None,
            fanout: fanout.readers,
        };
        if let Some(anchor) = self.anchor.clone() {
            if let Some((reveal, opened)) = self.open_path(&anchor.message_id, &anchor.path) {
                update.rows.extend(opened);
                update.reveal = Some(reveal);
            }
        }
        update
    }

    /// Brings the height index in line with the layout from the first
    /// top-level row that changed (an append costs O(log n)). Returns whether
    /// the top-level list changed.
    fn sync_heights(&mut self, diff: &RowDiff) -> bool {
        let Some(from) = diff.top_from else {
            return false;
        };
        let from = from.min(self.heights.len());
        self.heights.truncate(from);
        for index in from..self.layout.top_len() {
            let Some(row) = self.layout.top_row(index) else {
                break;
            };
            let height = self
                .measured
                .get(&row.key)
                .copied()
                .unwrap_or_else(|| estimated_height(&row.kind));
            self.heights.push(height);
        }
        true
    }

    /// The view of row `key` as it stands (read path).
    pub fn row(&self, key: &RowKey) -> Option<RowView> {
        self.context().row(key)
    }

    fn context(&self) -> RowContext<'_> {
        RowContext {
            store: &self.store,
            layout: &self.layout,
            toggles: &self.toggles,
            settled: &self.settled,
            clock: Some(self.fanout.clock()),
            highlight: self.fanout.highlight(),
        }
    }

    /// Whether row `key` is open (expanded) now.
    pub fn is_expanded(&self, key: &RowKey) -> bool {
        self.context().is_expanded(key)
    }

    /// The user toggled row `key` (a sticky choice, docs/behaviour.md §2.6, §3.4):
    /// returns the rows to re-render.
    pub fn toggle(&mut self, key: &RowKey) -> Vec<RowKey> {
        let expanded = self.context().is_expanded(key);
        self.toggles.insert(key.clone(), !expanded);
        vec![key.clone()]
    }

    /// Records a measured top-level row height; true when the list moved.
    pub fn set_height(&mut self, key: &RowKey, height: f64) -> bool {
        if self.measured.get(key) == Some(&height) {
            return false;
        }
        self.measured.insert(key.clone(), height);
        let Some(index) = self.layout.top_index_of(key) else {
            return false;
        };
        if self.heights.height(index).is_some_and(|h| h != height) {
            self.heights.set(index, height);
            return true;
        }
        false
    }

    /// Follows a deep link to message `id` (docs/behaviour.md §4): opens every row that
    /// contains it and says where it is, now if it is laid out, otherwise in
    /// the [`Update`] of the batch that brings it (and again whenever it moves
    /// into another container). Returns the reveal and the rows to re-render.
    pub fn follow_anchor(&mut self, id: &str) -> (Option<Reveal>, Vec<RowKey>) {
        self.anchor = Some(Anchor {
            message_id: id.to_string(),
            path: Vec::new(),
        });
        match self.open_path(id, &[]) {
            Some((reveal, opened)) => (Some(reveal), opened),
            None => (None, Vec::new()),
        }
    }

    /// Stops following the deep link (the reader moved on).
    pub fn release_anchor(&mut self) {
        self.anchor = None;
    }

    /// Opens the rows on the path to message `id` unless it is `known`;
    /// returns where it is and the rows that opened.
    fn open_path(&mut self, id: &str, known: &[RowKey]) -> Option<(Reveal, Vec<RowKey>)> {
        let path = self.layout.path_to(id);
        if path.is_empty() || path == known {
            return None;
        }
        let top_index = self.layout.top_index_of(&path[0])?;
        let mut opened = Vec::new();
        for key in &path {
            let opens = self.layout.row(key).is_some_and(|r| {
                matches!(
                    r.kind,
                    RowKind::Subagent | RowKind::Group(_) | RowKind::Orphans
                )
            });
            if opens && !self.context().is_expanded(key) {
                self.toggles.insert(key.clone(), true);
                opened.push(key.clone());
            }
        }
        if let Some(anchor) = &mut self.anchor {
            anchor.path.clone_from(&path);
        }
        Some((
            Reveal {
                anchor: anchor_id(id),
                top_index,
            },
            opened,
        ))
    }

    /// The cards of the rows that settled in an update, for the live
    /// region's [`SettledAnnouncer`](crate::screen::view::announce::SettledAnnouncer).
    pub fn settled_cards(&self, settled: &[RowKey]) -> Vec<CardView> {
        settled
            .iter()
            .filter_map(|key| self.row(key))
            .filter_map(|row| row.card().map(|c| c.card.clone()))
            .collect()
    }
}

mod board;
pub mod fanout;
mod reading;
mod timeline;
pub use reading::{
    follows_tail_after_scroll, moved_by_others, pin_action, PinAction, ReadingPosition,
};

#[cfg(test)]
mod tests;
