//! The viewer's side of SPEC.md §8: its clock, the roster, the drill-down,
//! and search whose matches are opened, scrolled to and highlighted through
//! the deep link of SPEC.md §4.

use super::{Reveal, Update, Viewer};
use crate::screen::view::board::SubagentActivity;
use crate::screen::view::drilldown::DrillDownView;
use crate::screen::view::roster::{roster_toggle_label, RosterQuery, RosterRows, RosterView};
use crate::state::activity::Millis;
use crate::state::search::SearchStatus;

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

    /// The subagent roster (SPEC.md §8), with `rows` of its list.
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

    /// The open transcript's running subagents by lifecycle (SPEC.md §8).
    pub fn subagent_activity(&self) -> SubagentActivity {
        self.fanout.subagent_activity(&self.store, &self.layout)
    }

    /// Searches every message for `query` (SPEC.md §8); returns the status and
    /// the rows to re-render.
    pub fn search(&mut self, query: &str) -> (SearchStatus, Vec<crate::state::layout::RowKey>) {
        self.fanout.search(&self.layout, query)
    }

    /// Goes to the next match (or the previous one): it is highlighted, and
    /// followed as a deep link, so whatever contains it opens and it scrolls
    /// into view (SPEC.md §4, §8).
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
}
