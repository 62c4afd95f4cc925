//! What a page keeps to find its way through a fan-out (SPEC.md §8), beside
//! the store and the layout: the subagents' activity (for `stalled` and
//! elapsed times), the search index and its current match, and the roster's
//! entries, each kept up to date from what a batch changed.
//!
//! Time comes in from outside (`now`, in milliseconds on the viewer's clock):
//! the app passes its clock, tests pass theirs.

use crate::model::status::{is_background, message_run_state};
use crate::screen::view::board::SubagentActivity;
use crate::screen::view::drilldown::{drill_down, DrillDownView};
use crate::screen::view::lifecycle::{lifecycle_mark, LifecycleMark};
use crate::screen::view::roster::{
    roster_entry, roster_page, RosterEntry, RosterOrder, RosterQuery, RosterRows, RosterView,
};
use crate::state::activity::{is_stalled, Activity, Clock, Millis};
use crate::state::layout::{Layout, RowDiff, RowKey, RowKind};
use crate::state::search::{SearchIndex, SearchStatus};
use crate::state::sharded::ShardedSet;
use crate::state::store::{Changes, Store};
use std::collections::HashMap;

/// What changed for the fan-out readers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FanOutChange {
    /// Rows whose view changed with time or with the highlight.
    pub rows: Vec<RowKey>,
    /// The roster, the drill-down or the search count read differently now.
    pub readers: bool,
}

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub struct FanOut {
    now: Millis,
    activity: Activity,
    search: SearchIndex,
    /// Cached roster entries of every subagent card, by message id.
    roster: HashMap<String, RosterEntry>,
    /// Entries to re-read before the roster is next shown.
    stale: ShardedSet<String>,
    /// Every subagent card of the layout, kept from each batch's diff: the
    /// roster's toggle counts them without reading the roster.
    cards: ShardedSet<String>,
    /// The roster's order for the query last shown, kept up to date one
    /// entry at a time.
    order: Option<RosterOrder>,
    /// The lifecycle marker each running card showed at the last look.
    marks: HashMap<String, Option<LifecycleMark>>,
}

impl FanOut {
    /// Nothing known yet.
    pub fn new() -> FanOut {
        FanOut::default()
    }

    /// The activity read at the viewer's current time.
    pub fn clock(&self) -> Clock<'_> {
        Clock {
            activity: &self.activity,
            now: self.now,
        }
    }

    /// The viewer's time as last given.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// Takes in one batch: what the store reported and what the layout did
    /// with it, seen at the viewer's time `now`. Costs what the batch touched.
    pub fn record(
        &mut self,
        store: &Store,
        layout: &Layout,
        changes: &Changes,
        diff: &RowDiff,
        now: Millis,
    ) -> FanOutChange {
        self.now = self.now.max(now);
        self.activity.record(store, changes, self.now);
        let highlight = self.search.current().map(str::to_string);
        let status = self.search.status();
        self.search.record(store, changes);
        let mut change = FanOutChange::default();
        if diff.reset {
            self.roster.clear();
            self.order = None;
            self.marks.clear();
            self.stale.clear();
            self.cards.clear();
            change.readers = true;
        }
        let keys = diff
            .inserted
            .iter()
            .chain(&diff.changed)
            .chain(&diff.removed);
        for key in keys {
            let RowKey::Message(id) = key else { continue };
            let is_card = layout.row(key).map(|r| &r.kind) == Some(&RowKind::Subagent);
            let was_card = if is_card {
                !self.cards.insert(id.clone())
            } else {
                self.cards.remove(id)
            };
            if is_card || was_card {
                self.stale.insert(id.clone());
                change.readers = true;
            }
        }
        if diff.reset {
            for row in layout.outline() {
                if let (RowKind::Subagent, Some(id)) = (&row.kind, row.message_id()) {
                    self.stale.insert(id.to_string());
                    self.cards.insert(id.to_string());
                }
            }
        }
        change.readers |= self.search.status() != status;
        if highlight.as_deref() != self.search.current() {
            change
                .rows
                .extend(highlight.iter().filter_map(|id| row_showing(layout, id)));
        }
        change
    }

    /// The viewer's clock moved to `now`: the running cards whose marker
    /// changes (`stalled` appears, or its idle time in `title` grows), and
    /// whether running entries of the roster changed (their elapsed time).
    pub fn tick(&mut self, store: &Store, layout: &Layout, now: Millis) -> FanOutChange {
        self.now = self.now.max(now);
        let running: Vec<String> = layout.running_cards().map(str::to_string).collect();
        self.marks.retain(|id, _| running.contains(id));
        let mut change = FanOutChange {
            readers: !running.is_empty(),
            ..FanOutChange::default()
        };
        for id in running {
            let mark = self.mark_of(store, &id);
            let before = self.marks.insert(id.clone(), mark.clone());
            if before != Some(mark) {
                change.rows.push(RowKey::Message(id.clone()));
            }
            self.stale.insert(id);
        }
        change
    }

    /// The lifecycle marker subagent `id` shows now (the card's rule, without
    /// building the card).
    fn mark_of(&self, store: &Store, id: &str) -> Option<LifecycleMark> {
        let m = store.message(id)?;
        let background = m.metadata.subagent.as_ref().is_some_and(is_background);
        let status = message_run_state(m, store.is_turn_active(m));
        lifecycle_mark(status, background, self.clock().idle_ms(id))
    }

    /// The roster (SPEC.md §8) with the rows on screen, re-reading only the
    /// entries that changed: each moves in the kept order on its own, so a
    /// read costs the changed subagents and the rows shown, not the session.
    pub fn roster(
        &mut self,
        store: &Store,
        layout: &Layout,
        query: RosterQuery,
        rows: RosterRows,
    ) -> RosterView {
        let clock = Clock {
            activity: &self.activity,
            now: self.now,
        };
        let mut order = self
            .order
            .take()
            .filter(|o| (o.filter, o.sort) == (query.filter, query.sort));
        for id in self.stale.drain() {
            let entry = roster_entry(store, layout, &id, Some(clock));
            let old = match &entry {
                Some(entry) => self.roster.insert(id, entry.clone()),
                None => self.roster.remove(&id),
            };
            if let Some(order) = &mut order {
                order.update(old.as_ref(), entry.as_ref());
            }
        }
        let order = order
            .unwrap_or_else(|| RosterOrder::build(self.roster.values(), query.filter, query.sort));
        let view = roster_page(&order, &self.roster, rows);
        self.order = Some(order);
        view
    }

    /// How many subagent cards the transcript holds (as many as the roster
    /// lists unfiltered), without reading the roster.
    pub fn subagent_count(&self) -> usize {
        self.cards.len()
    }

    /// Every subagent card of the transcript, in no order.
    pub fn cards(&self) -> impl Iterator<Item = &String> {
        self.cards.iter()
    }

    /// The open transcript's running subagents by lifecycle, for the board's
    /// honest task status (SPEC.md §8).
    pub fn subagent_activity(&self, store: &Store, layout: &Layout) -> SubagentActivity {
        let mut activity = SubagentActivity::default();
        for id in layout.running_cards() {
            let background = store
                .message(id)
                .and_then(|m| m.metadata.subagent.as_ref())
                .is_some_and(is_background);
            let stalled = self.clock().idle_ms(id).is_some_and(is_stalled);
            match (stalled, background) {
                (true, _) => activity.stalled += 1,
                (false, true) => activity.background += 1,
                (false, false) => activity.foreground += 1,
            }
        }
        activity
    }

    /// The drill-down of the open transcript's running subagents (SPEC.md §8).
    pub fn drill_down(&self, store: &Store, layout: &Layout) -> DrillDownView {
        drill_down(store, layout, Some(self.clock()))
    }

    /// Searches for `query` (SPEC.md §8); returns the status and the rows
    /// whose highlight went away.
    pub fn search(&mut self, layout: &Layout, query: &str) -> (SearchStatus, Vec<RowKey>) {
        let before = self.search.current().map(str::to_string);
        let status = self.search.set_query(query);
        let gone = before
            .filter(|b| self.search.current() != Some(b.as_str()))
            .and_then(|b| row_showing(layout, &b))
            .into_iter()
            .collect();
        (status, gone)
    }

    /// Moves to the next (or previous) match: its message id, and the rows
    /// whose highlight changed.
    pub fn step(&mut self, layout: &Layout, forward: bool) -> (Option<String>, Vec<RowKey>) {
        let before = self.search.current().map(str::to_string);
        let now = self.search.step(forward);
        let rows = [before, now.clone()]
            .iter()
            .flatten()
            .filter_map(|id| row_showing(layout, id))
            .collect();
        (now, rows)
    }

    /// Where the search stands.
    pub fn search_status(&self) -> SearchStatus {
        self.search.status()
    }

    /// The search (its matches, for the timeline's highlight).
    pub fn search_index(&self) -> &SearchIndex {
        &self.search
    }

    /// The message the current match shows, highlighted.
    pub fn highlight(&self) -> Option<&str> {
        self.search.current()
    }
}

/// The row that shows message `id` (its own, its group's, or its nested row).
fn row_showing(layout: &Layout, id: &str) -> Option<RowKey> {
    layout.row_of_message(id).cloned()
}
