//! The fan-out (docs/behaviour.md §8): what a page keeps to find its way through one,
//! beside the store and the layout ([`FanOut`]: the subagents' activity (for
//! `stalled` and elapsed times), the search index and its current match, and
//! the roster's entries, each kept up to date from what a batch changed), and
//! the viewer's side of it: its clock, the roster, the drill-down, and search
//! whose matches are opened, scrolled to and highlighted through the deep
//! link of docs/behaviour.md §4.
//!
//! Time comes in from outside (`now`, in milliseconds on the viewer's clock):
//! the app passes its clock, tests pass theirs.

use super::{Reveal, Update, Viewer};
use crate::model::status::{is_background, left_unfinished, message_run_state, source_run_state};
use crate::screen::view::board::SubagentActivity;
use crate::screen::view::drilldown::{drill_down, DrillDownView};
use crate::screen::view::lifecycle::{lifecycle_mark, LifecycleMark};
use crate::screen::view::roster::{
    roster_entry, roster_page, roster_toggle_label, RosterEntry, RosterOrder, RosterQuery,
    RosterRows, RosterView,
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

    /// Says whether nobody writes the source any more (docs/behaviour.md §8): the
    /// running cards whose marker changes, as a tick, and when it changed,
    /// the rows of tool calls left running (they read interrupted, or spin
    /// again).
    pub fn set_still(&mut self, store: &Store, layout: &Layout, still: bool) -> FanOutChange {
        let changed = self.activity.is_still() != still;
        self.activity.set_still(still);
        let mut change = self.tick(store, layout, self.now);
        if changed {
            for row in running_tool_rows(store, layout) {
                if !change.rows.contains(&row) {
                    change.rows.push(row);
                }
            }
        }
        change
    }

    /// The lifecycle marker subagent `id` shows now (the card's rule, without
    /// building the card).
    fn mark_of(&self, store: &Store, id: &str) -> Option<LifecycleMark> {
        let m = store.message(id)?;
        let background = m.metadata.subagent.as_ref().is_some_and(is_background);
        let clock = self.clock();
        let status = source_run_state(m, store.is_turn_active(m), clock.is_still());
        lifecycle_mark(status, background, clock.idle_ms(id), clock.is_still())
    }

    /// The roster (docs/behaviour.md §8) with the rows on screen, re-reading only the
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
    /// honest task status (docs/behaviour.md §8).
    pub fn subagent_activity(&self, store: &Store, layout: &Layout) -> SubagentActivity {
        let mut activity = SubagentActivity::default();
        for id in layout.running_cards() {
            let background = store
                .message(id)
                .and_then(|m| m.metadata.subagent.as_ref())
                .is_some_and(is_background);
            let clock = self.clock();
            if clock.is_still() {
                // Interrupted: not at work, so on no chip (docs/behaviour.md §8).
                activity.interrupted += 1;
                continue;
            }
            let stalled = clock.idle_ms(id).is_some_and(is_stalled);
            match (stalled, background) {
                (true, _) => activity.stalled += 1,
                (false, true) => activity.background += 1,
                (false, false) => activity.foreground += 1,
            }
        }
        activity
    }

    /// The drill-down of the open transcript's running subagents (docs/behaviour.md §8).
    pub fn drill_down(&self, store: &Store, layout: &Layout) -> DrillDownView {
        drill_down(store, layout, Some(self.clock()))
    }

    /// Searches for `query` (docs/behaviour.md §8); returns the status and the rows
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

/// The rows showing a tool call that runs (docs/behaviour.md §3.4) or was left
/// pending or in progress (it reads interrupted when still): its own, or its
/// group's. A pass over every row: only when the source becomes still or
/// live again.
fn running_tool_rows(store: &Store, layout: &Layout) -> Vec<RowKey> {
    let unsettled = |id: &str| {
        store.message(id).is_some_and(|m| {
            left_unfinished(m) || message_run_state(m, store.is_turn_active(m)).is_running()
        })
    };
    layout
        .outline()
        .into_iter()
        .filter(|row| match (&row.kind, &row.key) {
            (RowKind::Group(g), _) => g.running || g.member_ids.iter().any(|id| unsettled(id)),
            (RowKind::Message | RowKind::Subagent, RowKey::Message(id)) => unsettled(id),
            _ => false,
        })
        .map(|row| row.key.clone())
        .collect()
}

/// The row that shows message `id` (its own, its group's, or its nested row).
fn row_showing(layout: &Layout, id: &str) -> Option<RowKey> {
    layout.row_of_message(id).cloned()
}

/// Where a search step landed: the new status, the deep link to the match
/// (when there is one) and the rows to re-render.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchStep {
    pub status: SearchStatus,
    pub reveal: Option<Reveal>,
    pub rows: Vec<crate::state::layout::RowKey>,
}

impl Viewer {
    /// The viewer's clock moved to `now` (milliseconds; the app's clock, or a
    /// test's): the running cards whose lifecycle marker changed, and whether
    /// the roster and drill-down read differently (their elapsed times).
    pub fn tick(&mut self, now: Millis) -> Update {
        let change = self.fanout.tick(&self.store, &self.layout, now);
        Update {
            rows: change.rows,
            fanout: change.readers,
            ..Update::default()
        }
    }

    /// Says whether nobody writes the open source any more (a file opened
    /// from disk): its time stops at its newest record and a run that never
    /// got a result reads `interrupted` (docs/behaviour.md §8). Kept across the
    /// transcripts opened after it, until said again.
    pub fn set_still(&mut self, still: bool) -> Update {
        let change = self.fanout.set_still(&self.store, &self.layout, still);
        Update {
            rows: change.rows,
            fanout: change.readers,
            ..Update::default()
        }
    }

    /// The subagent roster (docs/behaviour.md §8), with `rows` of its list.
    pub fn roster(&mut self, query: RosterQuery, rows: RosterRows) -> RosterView {
        self.fanout.roster(&self.store, &self.layout, query, rows)
    }

    /// The label of the button that opens the roster; costs no roster read.
    pub fn roster_toggle_label(&self) -> String {
        roster_toggle_label(self.fanout.subagent_count())
    }

    /// The running subagents of the open transcript (the board drill-down).
    pub fn drill_down(&self) -> DrillDownView {
        self.fanout.drill_down(&self.store, &self.layout)
    }

    /// The open transcript's running subagents by lifecycle (docs/behaviour.md §8).
    pub fn subagent_activity(&self) -> SubagentActivity {
        self.fanout.subagent_activity(&self.store, &self.layout)
    }

    /// Searches every message for `query` (docs/behaviour.md §8); returns the status and
    /// the rows to re-render.
    pub fn search(&mut self, query: &str) -> (SearchStatus, Vec<crate::state::layout::RowKey>) {
        self.fanout.search(&self.layout, query)
    }

    /// Goes to the next match (or the previous one): it is highlighted, and
    /// followed as a deep link, so whatever contains it opens and it scrolls
    /// into view (docs/behaviour.md §4, §8).
    pub fn search_step(&mut self, forward: bool) -> SearchStep {
        let (target, mut rows) = self.fanout.step(&self.layout, forward);
        let mut reveal = None;
        if let Some(id) = target {
            let (followed, opened) = self.follow_anchor(&id);
            rows.extend(opened);
            reveal = followed;
        }
        SearchStep {
            status: self.fanout.search_status(),
            reveal,
            rows,
        }
    }

    /// Where the search stands.
    pub fn search_status(&self) -> SearchStatus {
        self.fanout.search_status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::Event;
    use crate::model::message::Message;
    use crate::screen::view::roster::{RosterFilter, RosterSort};
    use crate::screen::view::row::RowBody;
    use crate::state::layout::RowKey;
    use serde_json::json;

    fn added(v: serde_json::Value) -> Event {
        Event::MessageAdded(Message::from_value(&v).unwrap())
    }

    fn read(id: &str, second: u32, parent: Option<&str>, text: &str) -> Event {
        added(
            json!({"id": id, "type": "tool_read", "turn_id": "t", "content": text,
            "created_at": format!("2026-08-03T10:{:02}:{:02}Z", second / 60, second % 60),
            "metadata": {"tool_call_id": format!("tc-{id}"), "status": "complete",
                "parent_tool_call_id": parent.map(|p| format!("tc-{p}"))}}),
        )
    }

    fn running_card(id: &str) -> Event {
        added(json!({"id": id, "type": "tool_call", "turn_id": "t",
            "created_at": "2026-08-03T10:00:00Z",
            "metadata": {"tool_call_id": format!("tc-{id}"), "status": "running",
                "normalized": {"kind": "subagent_task", "subagent_task": {
                    "subagent_type": "code-reviewer"}}}}))
    }

    fn key(id: &str) -> RowKey {
        RowKey::Message(id.into())
    }

    #[test]
    fn a_search_step_opens_the_match_s_containers_reveals_and_highlights_it() {
        let mut v = Viewer::new();
        v.apply([
            running_card("sa"),
            read("c1", 1, Some("sa"), "plain"),
            read("c2", 2, Some("sa"), "the needle here"),
            read("r1", 3, None, "a needle too"),
            read("r2", 4, None, "other"),
        ]);
        v.toggle(&key("sa"));
        let (status, _) = v.search("NEEDLE");
        assert_eq!(status.label(), "2 matches");
        let step = v.search_step(true);
        assert_eq!(step.status.label(), "1 of 2");
        assert_eq!(step.reveal.map(|r| r.anchor).as_deref(), Some("msg-c2"));
        assert!(step.rows.contains(&key("sa")), "the card opens again");
        let Some(RowBody::Message(row)) = v.row(&key("c2")).map(|r| r.body) else {
            panic!("no row")
        };
        assert!(row.highlighted);
        let step = v.search_step(true);
        assert_eq!(step.reveal.map(|r| r.anchor).as_deref(), Some("msg-r1"));
        let group = RowKey::Group("r1".into());
        assert!(
            step.rows.contains(&key("c2")),
            "the old match is re-rendered"
        );
        assert!(step.rows.contains(&group), "the group opens");
        let Some(RowBody::Group(g)) = v.row(&group).map(|r| r.body) else {
            panic!("no group")
        };
        assert!(g.expanded && g.members[0].highlighted);
    }

    #[test]
    fn the_clock_ticks_a_card_into_stalled_and_its_next_child_clears_it() {
        let mut v = Viewer::new();
        v.tick(0);
        v.apply([running_card("sa")]);
        let marker = |v: &Viewer| {
            v.row(&key("sa"))
                .and_then(|r| r.card().cloned())
                .and_then(|c| c.card.lifecycle)
                .map(|m| m.text)
        };
        assert_eq!(marker(&v), None);
        let update = v.tick(5 * 60_000);
        assert_eq!(update.rows, [key("sa")]);
        assert!(update.fanout);
        assert_eq!(marker(&v).as_deref(), Some("stalled"));
        v.tick(5 * 60_000 + 1_000);
        v.apply([read("c1", 301, Some("sa"), "x")]);
        assert_eq!(marker(&v).as_deref(), None);
    }

    #[test]
    fn a_still_file_s_unsettled_run_reads_interrupted_judged_from_its_newest_record() {
        let mut v = Viewer::new();
        v.set_still(true);
        v.tick(0);
        // The run's last child is 30 s before the file's newest record.
        v.apply([
            running_card("sa"),
            read("c1", 10, Some("sa"), "x"),
            read("r1", 40, None, "the newest record"),
        ]);
        let mark = |v: &Viewer| {
            v.row(&key("sa"))
                .and_then(|r| r.card().cloned())
                .and_then(|c| c.card.lifecycle)
        };
        let interrupted = mark(&v).unwrap();
        assert_eq!(interrupted.text, "interrupted · no result recorded");
        assert!(!interrupted.spins());
        assert!(
            interrupted
                .title
                .ends_with("30.0s before the file's newest record"),
            "{}",
            interrupted.title
        );
        let now_line = |v: &Viewer| {
            v.row(&key("sa"))
                .and_then(|r| r.card().cloned())
                .and_then(|c| c.card.now_text)
        };
        assert_eq!(now_line(&v), None, "an interrupted run is at nothing now");
        // The page stays open for an hour: the file's time does not move.
        v.tick(60 * 60_000);
        assert_eq!(mark(&v), Some(interrupted));
        assert_eq!(v.fanout.clock().idle_ms("sa"), Some(30_000));
        // Followed live, the same file's run is running again.
        let update = v.set_still(false);
        assert_eq!(update.rows, [key("sa")]);
        assert_eq!(mark(&v).unwrap().text, "stalled");
        assert_eq!(now_line(&v).as_deref(), Some("now: x"));
    }

    fn roster_of(v: &mut Viewer, filter: RosterFilter) -> RosterView {
        v.roster(RosterQuery::new(filter, RosterSort::Start), RosterRows::ALL)
    }

    fn filter_labels(view: &RosterView) -> Vec<String> {
        view.filters.iter().map(|f| f.label.clone()).collect()
    }

    #[test]
    fn a_still_file_s_roster_lists_its_interrupted_runs_under_all_and_none_running() {
        let mut v = Viewer::new();
        v.set_still(true);
        v.tick(0);
        v.apply([
            running_card("sa"),
            running_card("sb"),
            read("r1", 40, None, "the newest record"),
        ]);
        let running = roster_of(&mut v, RosterFilter::Running);
        assert_eq!(
            filter_labels(&running),
            ["all · 2", "running · 0", "failed · 0"]
        );
        assert_eq!(running.listed, 0);
        assert_eq!(
            running.empty_text.as_deref(),
            Some("No subagent is running")
        );
        let all = roster_of(&mut v, RosterFilter::All);
        let statuses: Vec<(&str, &str)> = all
            .items
            .iter()
            .map(|i| (i.id.as_str(), i.status_text.as_str()))
            .collect();
        assert_eq!(
            statuses,
            [
                ("sa", "interrupted · no result recorded"),
                ("sb", "interrupted · no result recorded")
            ],
            "the rows say what the cards say"
        );
        // Followed live again, the same runs are running (the filter agrees).
        v.set_still(false);
        let live = roster_of(&mut v, RosterFilter::Running);
        assert_eq!(
            filter_labels(&live),
            ["all · 2", "running · 2", "failed · 0"]
        );
        assert_eq!(live.listed, 2);
    }

    #[test]
    fn a_still_file_s_interrupted_runs_count_on_no_chip_and_no_drill_down() {
        use crate::model::board::Task;
        use crate::screen::view::board::{task_status, SubagentActivity, TaskStatus};
        let mut v = Viewer::new();
        v.set_still(true);
        v.apply([
            running_card("sa"),
            read("r1", 40, None, "the newest record"),
        ]);
        let activity = v.subagent_activity();
        assert_eq!(
            activity,
            SubagentActivity {
                interrupted: 1,
                ..SubagentActivity::default()
            }
        );
        let task = Task {
            primary_session_state: Some("COMPLETED".into()),
            primary_session_still: true,
            ..Task::default()
        };
        assert_eq!(task_status(&task, Some(activity)), None, "not stalled");
        let drill = v.drill_down();
        assert!(drill.items.is_empty());
        assert_eq!(
            drill.empty_text.as_deref(),
            Some("No subagent is running now")
        );
        // Live, the same run is at work (stalled by the file's age).
        v.set_still(false);
        v.tick(10 * 60_000);
        assert_eq!(v.drill_down().items.len(), 1);
        assert_eq!(
            task_status(&task, Some(v.subagent_activity())),
            Some(TaskStatus::Stalled)
        );
    }

    fn running_tool(id: &str, second: u32) -> Event {
        added(
            json!({"id": id, "type": "tool_call", "turn_id": "t", "content": "Fetch the page",
            "created_at": format!("2026-08-03T10:00:{second:02}Z"),
            "metadata": {"tool_call_id": format!("tc-{id}"), "status": "running",
                "title": "Fetch the page"}}),
        )
    }

    #[test]
    fn a_tool_call_left_running_in_a_still_file_reads_interrupted_and_never_spins() {
        use crate::screen::view::message::MessageView;
        let tool_of = |v: &Viewer, id: &str| {
            let group = v.row(&RowKey::Group(id.into())).unwrap();
            let RowBody::Group(g) = group.body else {
                panic!("not grouped: {group:?}")
            };
            let MessageView::Tool { tool, .. } = g.members[0].view.clone() else {
                panic!("not a tool row")
            };
            (g.view.running, tool)
        };
        let mut v = Viewer::new();
        v.apply([
            running_tool("t1", 5),
            read("r1", 40, None, "the newest record"),
        ]);
        v.toggle(&RowKey::Group("t1".into()));
        let (group_spins, tool) = tool_of(&v, "t1");
        assert!(group_spins && tool.spins(), "live, it runs");
        assert_eq!(tool.state_text(), "running");
        let update = v.set_still(true);
        assert!(
            update.rows.contains(&RowKey::Group("t1".into())),
            "its row is drawn again: {:?}",
            update.rows
        );
        let (group_spins, tool) = tool_of(&v, "t1");
        assert!(!group_spins, "its group has no spinner");
        assert!(!tool.spins());
        assert_eq!(tool.state_text(), "interrupted · no result recorded");
        assert_eq!(tool.state_name(), "interrupted");
        assert!(
            v.set_still(true).rows.is_empty(),
            "no change, nothing redrawn"
        );
    }
}
