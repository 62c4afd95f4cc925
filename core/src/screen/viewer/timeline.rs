//! The viewer's side of the Timeline (docs/user-guide.md "The Timeline"): open
//! or closed (closed, it costs nothing per batch), its view for the reader's
//! query, the table, the keyboard, "show in timeline", and the test hook's
//! snapshot.

use super::Viewer;
use crate::screen::view::timeline::{
    keys::step_focus, keys::TimelineKey, query::view_bounds, query::TimelineQuery,
    snapshot::timeline_snapshot, snapshot::TimelineSnapshot, table::timeline_table,
    table::TimelineTable, timeline_view, TimelineView,
};

impl Viewer {
    /// Opens the timeline (it reads the session once, then each batch) or
    /// closes it (it forgets everything and costs nothing).
    pub fn set_timeline_open(&mut self, open: bool) {
        self.timeline
            .set_open(open, &self.store, self.fanout.cards());
        if !open {
            self.timeline_bars = Default::default();
            self.timeline_hits = Default::default();
        }
    }

    /// Whether the timeline is open.
    pub fn timeline_is_open(&self) -> bool {
        self.timeline.is_open()
    }

    /// The timeline for `query` (opening it if it is closed).
    pub fn timeline(&mut self, query: &TimelineQuery) -> TimelineView {
        self.set_timeline_open(true);
        self.timeline.refresh(&self.store, &self.layout);
        self.timeline_hits
            .update(self.fanout.search_index(), &self.timeline, &self.store);
        let clock = Some(self.fanout.clock());
        timeline_view(
            &mut self.timeline,
            &self.store,
            &self.layout,
            clock,
            &self.timeline_hits,
            query,
            &mut self.timeline_bars,
        )
    }

    /// Page `page` of the table of runs (opening the timeline if it is closed).
    pub fn timeline_table(&mut self, page: usize) -> TimelineTable {
        self.set_timeline_open(true);
        let clock = Some(self.fanout.clock());
        timeline_table(&mut self.timeline, &self.store, &self.layout, clock, page)
    }

    /// `query` with the focus on the run that shows message `id` (a run, or
    /// a record inside one): the runs above it shown, its row scrolled into
    /// view and its start in the window ("show in timeline").
    pub fn timeline_show(&mut self, query: &TimelineQuery, id: &str) -> TimelineQuery {
        self.set_timeline_open(true);
        self.timeline.refresh(&self.store, &self.layout);
        let Some(run) = self.timeline.run_of(&self.store, id) else {
            return query.clone();
        };
        let runs = self.timeline.runs();
        let mut collapsed = query.collapsed.clone();
        let mut above = runs.get(&run).and_then(|r| r.facts.parent.clone());
        for _ in 0..4096 {
            let Some(parent) = above else { break };
            collapsed.retain(|c| *c != parent);
            above = runs.get(&parent).and_then(|r| r.facts.parent.clone());
        }
        let start = runs.get(&run).map_or(0, |r| r.placed.start);
        let now = self.fanout.clock().source_now();
        self.timeline
            .prepare(&self.store, &self.layout, query.packed, &collapsed);
        let bounds = view_bounds(&self.timeline, now);
        let row = self.timeline.rows().1.and_then(|r| r.get(&run)).copied();
        let shown = TimelineQuery {
            collapsed,
            focus: Some(run),
            ..query.clone()
        };
        let shown = match row {
            Some(row) => shown.showing_row(row),
            None => shown,
        };
        shown.showing_time(bounds, start)
    }

    /// `query` with the focus moved by `key` (the arrows move between bars).
    pub fn timeline_step(&mut self, query: &TimelineQuery, key: TimelineKey) -> TimelineQuery {
        self.set_timeline_open(true);
        self.timeline
            .prepare(&self.store, &self.layout, query.packed, &query.collapsed);
        match step_focus(&self.timeline, query.focus.as_deref(), key) {
            Some(id) => self.timeline_show(query, &id),
            None => query.clone(),
        }
    }

    /// Every run as the test hook reports it (`?debug`), and the peak.
    /// A closed timeline is read for it and closed again.
    pub fn timeline_snapshot(&mut self) -> TimelineSnapshot {
        let was_open = self.timeline_is_open();
        self.set_timeline_open(true);
        let clock = Some(self.fanout.clock());
        let snapshot = timeline_snapshot(&mut self.timeline, &self.store, &self.layout, clock);
        self.set_timeline_open(was_open);
        snapshot
    }
}

#[cfg(test)]
mod tests;
