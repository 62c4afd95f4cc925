//! The viewer's side of the Timeline (issue 26): open or closed (closed, it
//! costs nothing per batch), its view for the reader's query, the table, the
//! keyboard, "show in timeline", and the test hook's snapshot.

use super::Viewer;
use crate::screen::view::timeline::{
    step_focus, timeline_snapshot, timeline_table, timeline_view, view_bounds, TimelineKey,
    TimelineQuery, TimelineSnapshot, TimelineTable, TimelineView,
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

    /// `query` with the focus moved by `key` (SPEC: arrows between bars).
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
mod tests {
    use super::*;
    use crate::model::event::Event;
    use crate::model::message::Message;
    use crate::screen::view::timeline::{clock_offset, RunRecord, TimelineMove, ROW_PX};
    use crate::state::activity::Millis;
    use serde_json::{json, Value};

    const S: i64 = 1_000;

    /// `2026-08-03T10:00:00Z` plus `s` seconds (negative: before).
    fn at(s: i64) -> String {
        let t = 10 * 3600 + s;
        format!(
            "2026-08-03T{:02}:{:02}:{:02}Z",
            t / 3600,
            t / 60 % 60,
            t % 60
        )
    }

    /// The epoch milliseconds of [`at`].
    fn ms(s: i64) -> i64 {
        crate::model::time::parse_millis(&at(s)).unwrap()
    }

    fn added(v: Value) -> Event {
        Event::MessageAdded(Message::from_value(&v).unwrap())
    }

    fn text(id: &str, s: i64, author: &str, parent: Option<&str>) -> Event {
        let mut v = json!({"id": id, "session_id": "s", "turn_id": "t1", "author_type": author,
            "content": format!("text {id}"), "created_at": at(s), "updated_at": at(s),
            "metadata": {}});
        if let Some(p) = parent {
            v["metadata"]["parent_tool_call_id"] = json!(format!("tc-{p}"));
        }
        added(v)
    }

    /// Subagent `id` launched at `s` (under `parent`), with payload `sa`.
    fn run(id: &str, s: i64, parent: Option<&str>, status: &str, sa: Value) -> Event {
        let mut v = json!({"id": id, "session_id": "s", "turn_id": "t1", "type": "tool_call",
            "created_at": at(s), "updated_at": at(s),
            "metadata": {"tool_call_id": format!("tc-{id}"), "status": status, "title": id,
                "normalized": {"kind": "subagent_task", "subagent_task": sa}}});
        if let Some(p) = parent {
            v["metadata"]["parent_tool_call_id"] = json!(format!("tc-{p}"));
        }
        added(v)
    }

    fn done(id: &str, s: i64, parent: Option<&str>, secs: u64) -> Event {
        run(
            id,
            s,
            parent,
            "complete",
            json!({"subagent_type": "code-reviewer", "description": format!("pass {id}"),
                "status": "completed", "duration_ms": secs * 1000, "total_tokens": 1000,
                "result_text": "Done"}),
        )
    }

    fn child(id: &str, s: i64, parent: &str) -> Event {
        added(
            json!({"id": id, "session_id": "s", "turn_id": "t1", "type": "tool_read",
            "created_at": at(s), "updated_at": at(s), "content": format!("needle {id}"),
            "metadata": {"tool_call_id": format!("tc-{id}"), "status": "complete",
                "parent_tool_call_id": format!("tc-{parent}")}}),
        )
    }

    fn record<'a>(snap: &'a TimelineSnapshot, id: &str) -> &'a RunRecord {
        snap.runs.iter().find(|r| r.id == id).expect(id)
    }

    /// A turn: two reviewers in parallel (60 s and 30 s), then a third alone.
    fn wave() -> Viewer {
        let mut v = Viewer::new();
        v.apply([
            text("u", 0, "user", None),
            done("a", 1, None, 60),
            done("b", 1, None, 30),
            child("a-1", 5, "a"),
            child("b-1", 6, "b"),
            done("c", 70, None, 20),
            text("reply", 95, "agent", None),
        ]);
        v
    }

    #[test]
    fn two_parallel_runs_and_one_serial_lie_on_one_axis_in_launch_order() {
        let mut v = wave();
        let snap = v.timeline_snapshot();
        let lanes: Vec<(&str, usize, i64, Option<i64>)> = snap
            .runs
            .iter()
            .map(|r| {
                (
                    r.id.as_str(),
                    r.lane,
                    r.start_ms - ms(0),
                    r.end_ms.map(|e| e - ms(0)),
                )
            })
            .collect();
        assert_eq!(
            lanes,
            [
                ("a", 0, S, Some(61 * S)),
                ("b", 1, S, Some(31 * S)),
                ("c", 2, 70 * S, Some(90 * S))
            ]
        );
        assert_eq!(snap.peak, 2, "two ran at once");
        // The bars are as long as the runs, on the axis of the whole turn.
        let view = v.timeline(&TimelineQuery {
            width: 950,
            ..TimelineQuery::default()
        });
        assert_eq!(view.bounds, (ms(0), ms(95)));
        let bar = |id: &str| {
            view.lanes
                .iter()
                .flat_map(|l| &l.bars)
                .find(|b| b.id == id)
                .map(|b| (b.x, b.w))
                .unwrap()
        };
        assert_eq!(bar("a"), (10, 600));
        assert_eq!(bar("b"), (10, 300));
        assert_eq!(bar("c"), (700, 200));
        assert_eq!(view.lanes[1].top, ROW_PX as i32);
        assert_eq!(view.heading, "3 runs · at most 2 at once");
    }

    #[test]
    fn the_critical_path_of_a_fan_in_is_the_run_that_ended_last_in_each_wave() {
        let mut v = wave();
        let snap = v.timeline_snapshot();
        let critical: Vec<&str> = snap
            .runs
            .iter()
            .filter(|r| r.critical)
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(critical, ["a", "c"]);
        let table = v.timeline_table(0);
        let row = |id: &str| {
            table
                .rows
                .iter()
                .find(|r| r.id == id)
                .unwrap()
                .critical
                .clone()
        };
        assert_eq!(row("a"), "yes, held its parent 30.0s");
        assert_eq!(row("b"), "no");
        assert_eq!(row("c"), "yes, held its parent 20.0s");
        let view = v.timeline(&TimelineQuery::default());
        assert_eq!(view.turns_path.matches('z').count(), 1, "one turn");
        assert_eq!(
            view.waits_path.matches('z').count(),
            2,
            "two waves, the parent's work between"
        );
        assert!(view
            .summary
            .contains("Parents waited 1m 20s on their subagents in 1 fan-in."));
    }

    #[test]
    fn packed_runs_that_never_overlap_share_a_row() {
        let mut v = wave();
        let query = TimelineQuery {
            packed: true,
            ..TimelineQuery::default()
        };
        let view = v.timeline(&query);
        let rows: Vec<Vec<&str>> = view
            .lanes
            .iter()
            .map(|l| l.bars.iter().map(|b| b.id.as_str()).collect())
            .collect();
        assert_eq!(rows, [vec!["a", "c"], vec!["b"]]);
        assert_eq!(view.lanes[0].label, "2 runs");
        assert_eq!(record(&v.timeline_snapshot(), "c").lane, 0);
    }

    #[test]
    fn nested_runs_lie_under_their_parent_and_collapse_with_it() {
        let mut v = Viewer::new();
        v.apply([
            text("u", 0, "user", None),
            done("a", 0, None, 100),
            done("a1", 10, Some("a"), 30),
            done("a2", 20, Some("a"), 70),
            done("b", 5, None, 10),
        ]);
        let snap = v.timeline_snapshot();
        let shape: Vec<(&str, usize, usize)> = snap
            .runs
            .iter()
            .map(|r| (r.id.as_str(), r.lane, r.depth))
            .collect();
        assert_eq!(
            shape,
            [("a", 0, 0), ("a1", 1, 1), ("a2", 2, 1), ("b", 3, 0)]
        );
        assert!(record(&snap, "a2").critical && !record(&snap, "a1").critical);
        let query = TimelineQuery::default().toggled("a");
        let view = v.timeline(&query);
        assert_eq!(view.rows_total, 2);
        assert_eq!(view.lanes[0].toggle, Some(("a".to_string(), false)));
        assert_eq!(
            record(&v.timeline_snapshot(), "a2").lane,
            0,
            "drawn in its parent's row"
        );
        // Showing a record of a nested run opens its parent and focuses it.
        let shown = v.timeline_show(&query, "a2");
        assert_eq!(shown.collapsed, Vec::<String>::new());
        assert_eq!(shown.focus.as_deref(), Some("a2"));
    }

    #[test]
    fn a_background_run_outlives_its_parent_s_turn_with_its_launch_marked_apart() {
        let mut v = Viewer::new();
        let launched = json!({"subagent_type": "researcher", "description": "prior art",
            "status": "async_launched", "is_async": true});
        v.apply([
            text("u", 0, "user", None),
            run("bg", 2, None, "complete", launched.clone()),
            text("reply", 10, "agent", None),
        ]);
        let snap = v.timeline_snapshot();
        assert_eq!(
            record(&snap, "bg").end_ms,
            None,
            "running until it reports back"
        );
        assert_eq!(record(&snap, "bg").status, "running");
        let view = v.timeline(&TimelineQuery::default());
        let bar = &view.lanes[0].bars[0];
        assert!(bar.open && bar.launch_x.is_some());
        assert_eq!(bar.word.as_deref(), Some("background · running"));
        let mut settled = launched;
        settled["status"] = json!("completed");
        settled["duration_ms"] = json!(300_000);
        v.apply([run("bg", 2, None, "complete", settled)]);
        let snap = v.timeline_snapshot();
        let bg = record(&snap, "bg");
        assert_eq!((bg.start_ms, bg.end_ms), (ms(2), Some(ms(302))));
        assert!(bg.end_ms.unwrap() > ms(10), "it outlived its turn");
        assert!(!bg.critical, "the turn never waited for it");
        let view = v.timeline(&TimelineQuery::default());
        assert_eq!(view.bounds, (ms(0), ms(302)));
        // The turn ends at 10 s of the 302 s drawn, long before the run.
        assert_eq!(view.turns_path, "M0 0h21v10h-21z");
        assert!(view.lanes[0].bars[0].w > 600);
    }

    #[test]
    fn a_run_without_an_end_is_marked_and_a_running_one_grows_with_the_clock() {
        let mut v = Viewer::new();
        v.tick(0);
        v.apply([
            Event::turn(true, "s", "t1"),
            text("u", 0, "user", None),
            run(
                "quiet",
                1,
                None,
                "complete",
                json!({"subagent_type": "explorer"}),
            ),
            run(
                "going",
                2,
                None,
                "running",
                json!({"subagent_type": "explorer"}),
            ),
            child("going-1", 10, "going"),
        ]);
        let snap = v.timeline_snapshot();
        assert_eq!(record(&snap, "quiet").end_ms, Some(ms(1)));
        assert_eq!(record(&snap, "going").end_ms, None);
        assert_eq!(snap.peak, 1, "a run without an end never counts as going");
        let query = TimelineQuery {
            width: 1000,
            ..TimelineQuery::default()
        };
        let before = v.timeline(&query);
        let quiet = &before.lanes[0].bars[0];
        assert_eq!(quiet.word.as_deref(), Some("end not recorded"));
        let going = |view: &TimelineView| {
            let bar = &view.lanes[1].bars[0];
            (bar.id.clone(), bar.x, bar.w, bar.open)
        };
        // The session so far is 10 s long, drawn to the next round 2 s
        // after it: the run goes from 2 s to now (10 s).
        assert_eq!(before.bounds, (ms(0), ms(12)));
        assert_eq!(going(&before), ("going".into(), 166, 667, true));
        assert_eq!(before.now_x, Some(833));
        v.tick(30_000);
        let after = v.timeline(&query);
        let now_later = "now is 30 s later on the source's clock";
        assert_eq!(after.bounds, (ms(0), ms(45)), "{now_later}");
        assert_eq!(going(&after), ("going".into(), 44, 844, true));
        assert_eq!(after.now_x, Some(888));
        assert_eq!(after.lanes[0].bars[0].id, "quiet", "no other run moved");
    }

    #[test]
    fn a_bar_s_accessible_name_holds_the_words_it_shows_in_their_place() {
        let mut v = wave();
        v.apply([run(
            "quiet",
            96,
            None,
            "complete",
            json!({"subagent_type": "explorer"}),
        )]);
        let view = v.timeline(&TimelineQuery {
            width: 1000,
            ..TimelineQuery::default()
        });
        let bars: Vec<&crate::screen::view::timeline::BarView> =
            view.lanes.iter().flat_map(|l| &l.bars).collect();
        let seen: Vec<(&str, String)> = bars
            .iter()
            .map(|b| {
                let shown = [&*b.text, b.word.as_deref().unwrap_or_default()]
                    .into_iter()
                    .filter(|t| !t.is_empty())
                    .collect::<Vec<&str>>()
                    .join(" ");
                assert!(b.label.contains(&format!(", {shown}, ")), "{}", b.label);
                (b.id.as_str(), b.label.to_string())
            })
            .collect();
        let label = |id: &str| seen.iter().find(|(b, _)| *b == id).unwrap().1.clone();
        assert_eq!(
            label("a"),
            "code-reviewer: pass a, 1m 00s · 1k, 0:01 to 1:01, 1k tokens, on the critical path: held its parent 30.0s",
            "what the bar shows, between its name and the rest"
        );
        assert!(
            label("quiet").contains(", end not recorded, "),
            "a bar showing a word only: {}",
            label("quiet")
        );
    }

    #[test]
    fn a_settled_bar_s_words_follow_its_card_and_its_place_on_the_critical_path() {
        let query = TimelineQuery {
            width: 1000,
            ..TimelineQuery::default()
        };
        let labels = |v: &mut Viewer| -> Vec<String> {
            let view = v.timeline(&query);
            let bars = view.lanes.iter().flat_map(|l| &l.bars);
            bars.map(|b| b.label.to_string()).collect()
        };
        let changes = [
            // c's card changes after it settled.
            run(
                "c",
                70,
                None,
                "complete",
                json!({"subagent_type": "code-reviewer", "description": "second pass",
                    "status": "completed", "duration_ms": 20_000, "total_tokens": 5000,
                    "result_text": "Done"}),
            ),
            // A longer run joins a's wave: a no longer holds its parent.
            done("d", 2, None, 80),
        ];
        let mut v = wave();
        let before = labels(&mut v);
        assert!(before[0].contains("on the critical path"), "{}", before[0]);
        assert!(before[2].starts_with("code-reviewer: pass c, 20.0s · 1k,"));
        for n in 1..=changes.len() {
            v.apply([changes[n - 1].clone()]);
            // The same words as a viewer that never drew the bars before.
            let mut fresh = wave();
            fresh.apply(changes[..n].iter().cloned());
            assert_eq!(labels(&mut v), labels(&mut fresh), "after change {n}");
        }
        let after = labels(&mut v);
        assert!(
            after
                .iter()
                .any(|l| l.starts_with("code-reviewer: second pass, 20.0s · 5k,")),
            "{after:?}"
        );
        assert!(after[0].starts_with("code-reviewer: pass a,"));
        assert!(!after[0].contains("critical path"), "{}", after[0]);
    }

    #[test]
    fn clock_skew_between_a_parent_and_a_child_file_is_taken_out() {
        // The child's file is two hours ahead of its parent's.
        let mut v = Viewer::new();
        v.apply([
            text("u", 0, "user", None),
            done("p", 0, None, 60),
            text("p-prompt", 7_205, "user", Some("p")),
            done("n", 7_210, Some("p"), 20),
            child("p-1", 7_245, "p"),
            text("reply", 61, "agent", None),
        ]);
        let snap = v.timeline_snapshot();
        let n = record(&snap, "n");
        assert_eq!((n.start_ms, n.end_ms), (ms(5), Some(ms(25))));
        let view = v.timeline(&TimelineQuery::default());
        assert_eq!(view.bounds, (ms(0), ms(61)), "no run drawn two hours away");
    }

    /// Run `p` (100 s) with a thought, a tool call (ended at `tool_end`), a
    /// nested run, a user message and a text, focused.
    fn worked(tool_end: i64) -> (Viewer, TimelineQuery) {
        let mut v = Viewer::new();
        v.apply([
            text("u", 0, "user", None),
            done("p", 0, None, 100),
            text("p-thought", 10, "agent", Some("p")),
            added(json!({"id": "p-tool", "session_id": "s", "turn_id": "t1",
                "type": "tool_execute", "created_at": at(15), "updated_at": at(tool_end),
                "metadata": {"tool_call_id": "tc-p-tool", "status": "complete",
                    "parent_tool_call_id": "tc-p"}})),
            done("p-nested", 40, Some("p"), 30),
            text("p-input", 80, "user", Some("p")),
            text("p-text", 85, "agent", Some("p")),
        ]);
        let query = TimelineQuery {
            focus: Some("p".into()),
            ..TimelineQuery::default()
        };
        (v, query)
    }

    #[test]
    fn where_a_run_s_time_went_is_read_from_its_own_records() {
        let (mut v, query) = worked(30);
        let focus = v.timeline(&query).focus_text.unwrap();
        assert!(
            focus
                .ends_with("model 45.0s, tools 15.0s, waiting on its subagents 30.0s, idle 10.0s."),
            "{focus}"
        );
    }

    #[test]
    fn where_the_source_does_not_record_a_tool_s_end_model_and_tool_time_are_given_together() {
        let (mut v, query) = worked(15);
        let view = v.timeline(&query);
        let focus = view.focus_text.unwrap();
        assert!(
            focus.ends_with("model and tools 1m 00s (this source does not record when tool calls end), waiting on its subagents 30.0s, idle 10.0s."),
            "{focus}"
        );
        // The nested run has no records: the whole fan-out says so.
        assert!(
            view.summary
                .starts_with("1 of 2 runs ran 1m 40s in all: model and tools 1m 00s"),
            "{}",
            view.summary
        );
    }

    /// After each of `events`, the open timeline as `query` shows it reads
    /// as one opened afresh, and each row's starts (what a look searches
    /// packed rows by) are its runs' starts.
    fn reads_as_opened_afresh(events: Vec<Event>, query: &TimelineQuery) {
        let mut v = Viewer::new();
        v.timeline(query);
        for (n, event) in events.into_iter().enumerate() {
            v.apply([event]);
            let kept = v.timeline(query);
            let mut fresh = v.clone();
            fresh.set_timeline_open(false);
            assert_eq!(kept, fresh.timeline(query), "after event {n}");
            let (lanes, _) = v.timeline.rows();
            for lane in lanes {
                let starts: Vec<Millis> = (lane.runs.iter())
                    .map(|id| v.timeline.runs()[id].placed.start)
                    .collect();
                assert_eq!(lane.starts, starts, "after event {n}");
            }
        }
    }

    /// Packed rows over the session's first minute.
    fn packed_first_minute() -> TimelineQuery {
        TimelineQuery {
            packed: true,
            rows: 100,
            window: Some((ms(0), ms(60))),
            ..TimelineQuery::default()
        }
    }

    #[test]
    fn a_packed_row_drawn_as_before_is_drawn_again_when_one_of_its_settled_runs_changes() {
        // Three settled runs share a row; then the middle one's end moves
        // (still before the next starts) and it is renamed: the row keeps
        // its runs, the window its span, and the row is drawn anew.
        let events = vec![
            text("u", 0, "user", None),
            done("a", 1, None, 10),
            done("b", 20, None, 10),
            done("c", 40, None, 10),
            text("v", 60, "user", None),
            done("b", 20, None, 15),
            run(
                "b",
                20,
                None,
                "complete",
                json!({"subagent_type": "auditor"}),
            ),
        ];
        let query = packed_first_minute();
        reads_as_opened_afresh(events, &query);
    }

    #[test]
    fn a_packed_row_is_drawn_again_when_another_row_s_run_takes_the_critical_path_from_it() {
        // `x` and `y` share a row, `z` overlaps both; `y` ends the fan-in
        // until `z` runs longer: `y`'s row, none of its runs changed, loses
        // the critical path (and takes it back when `z` ends sooner again).
        let events = vec![
            text("u", 0, "user", None),
            done("x", 1, None, 10),
            done("z", 5, None, 20),
            done("y", 20, None, 10),
            text("v", 60, "agent", None),
            done("z", 5, None, 35),
        ];
        let query = packed_first_minute();
        let mut v = Viewer::new();
        v.apply(events[..5].to_vec());
        let critical = |v: &mut Viewer| {
            let view = v.timeline(&query);
            let bars = view.lanes.iter().flat_map(|l| &l.bars);
            bars.filter(|b| b.critical)
                .map(|b| b.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(critical(&mut v), ["y"]);
        v.apply([events[5].clone()]);
        assert_eq!(critical(&mut v), ["z"]);
        reads_as_opened_afresh(events.clone(), &query);
        // And back: `z` ends sooner, `y`'s row takes the critical path again.
        let mut back = events;
        back[2] = done("z", 5, None, 35);
        back[5] = done("z", 5, None, 20);
        reads_as_opened_afresh(back, &query);
    }

    #[test]
    fn a_skew_learned_while_the_timeline_is_open_moves_its_rows_as_opening_afresh_would() {
        // Run `n`'s file is two hours ahead of its parent's; that is known
        // once its parent's prompt comes, after the rows were laid out.
        let events = vec![
            text("u", 0, "user", None),
            done("p", 0, None, 60),
            done("n", 7_210, Some("p"), 20),
            done("q", 70, None, 10),
            done("r", 90, None, 10),
            text("p-prompt", 7_205, "user", Some("p")),
            child("p-1", 7_245, "p"),
            text("reply", 61, "agent", None),
        ];
        for packed in [false, true] {
            let query = TimelineQuery {
                packed,
                rows: 100,
                ..TimelineQuery::default()
            };
            reads_as_opened_afresh(events.clone(), &query);
        }
    }

    #[test]
    fn runs_that_come_anywhere_in_the_rows_and_settle_leave_them_as_laid_out_afresh() {
        let events = || {
            vec![
                text("u", 0, "user", None),
                done("a", 1, None, 60),
                done("b", 2, None, 30),
                // Under a run that is not the last: rows below it move down.
                done("a1", 3, Some("a"), 10),
                done("b1", 4, Some("b"), 10),
                // Under the last row's run, then after it.
                done("b1x", 5, Some("b1"), 2),
                done("b2", 6, Some("b"), 2),
                // Launched before the last row's run, under the same run.
                done("b0", 3, Some("b"), 1),
                // Its nested run comes before it.
                done("c1", 41, Some("c"), 5),
                done("c", 40, None, 20),
                run(
                    "d",
                    70,
                    None,
                    "running",
                    json!({"subagent_type": "explorer"}),
                ),
                child("d-1", 71, "d"),
                done("d", 70, None, 5),
                done("e", 80, None, 5),
                // Launched before the last row's run, at the top.
                done("late", 75, None, 1),
            ]
        };
        let all = TimelineQuery {
            rows: 100,
            ..TimelineQuery::default()
        };
        reads_as_opened_afresh(events(), &all);
        let collapsed = all.toggled("b").toggled("c");
        reads_as_opened_afresh(events(), &collapsed);
        let packed = TimelineQuery {
            packed: true,
            ..all
        };
        reads_as_opened_afresh(events(), &packed);
    }

    #[test]
    fn packed_rows_take_a_live_session_s_runs_in_place_as_laying_out_afresh_would() {
        // Waves of three, each run starting, writing, settling, in order;
        // a background run that outlives two waves.
        let mut events = vec![text("u", 0, "user", None)];
        let going =
            |id: &str, s: i64| run(id, s, None, "running", json!({"subagent_type": "explorer"}));
        events.push(going("bg", 1));
        for w in 0..4i64 {
            let ids: Vec<String> = (0..3).map(|k| format!("w{w}-{k}")).collect();
            for (k, id) in ids.iter().enumerate() {
                events.push(going(id, w * 100 + 5 + k as i64));
                events.push(child(&format!("{id}-c"), w * 100 + 10 + k as i64, id));
            }
            for (k, id) in ids.iter().enumerate().rev() {
                events.push(done(id, w * 100 + 5 + k as i64, None, 20 + 10 * k as u64));
            }
            if w == 1 {
                events.push(done("bg", 1, None, 250));
            }
        }
        let packed = TimelineQuery {
            packed: true,
            rows: 100,
            ..TimelineQuery::default()
        };
        let count = events.len();
        reads_as_opened_afresh(events.clone(), &packed);
        let mut v = Viewer::new();
        v.timeline(&packed);
        for event in events {
            v.apply([event]);
            v.timeline(&packed);
        }
        assert_eq!(
            v.timeline.laid_out, 1,
            "laid out once, at opening, not for any of {count} events"
        );
        let view = v.timeline(&packed);
        assert_eq!(
            view.rows_total, 4,
            "the background run's row and three the waves share"
        );
        // A run whose end moves past a run packed after it in its row: that
        // run takes another row, as laying out afresh would have it.
        let moved = vec![
            text("u", 0, "user", None),
            done("a", 1, None, 10),
            done("b", 20, None, 5),
            done("c", 26, None, 5),
            done("a", 1, None, 30),
        ];
        reads_as_opened_afresh(moved, &packed);
        // A run launched before the first run of a row at the top (here a
        // run with a nested one, a row of its own) but read after it: laid
        // out afresh, the row it opens comes before that row.
        let launched_before = vec![
            text("u", 0, "user", None),
            done("p", 1, None, 10),
            done("x", 10, None, 5),
            done("x1", 11, Some("x"), 2),
            done("y", 5, None, 2),
        ];
        reads_as_opened_afresh(launched_before, &packed);
    }

    #[test]
    fn a_closed_timeline_keeps_nothing_and_opening_reads_the_session() {
        let mut v = wave();
        assert!(v.timeline.runs().is_empty());
        v.apply([done("d", 100, None, 5)]);
        assert!(v.timeline.runs().is_empty(), "closed: batches cost nothing");
        v.timeline(&TimelineQuery::default());
        assert_eq!(v.timeline.runs().len(), 4);
        v.apply([done("e", 110, None, 5)]);
        assert_eq!(v.timeline(&TimelineQuery::default()).rows_total, 5);
        v.set_timeline_open(false);
        assert!(v.timeline.runs().is_empty());
    }

    #[test]
    fn the_transcript_s_search_highlights_the_runs_holding_a_match() {
        let mut v = wave();
        v.search("needle b-1");
        let view = v.timeline(&TimelineQuery::default());
        let hits: Vec<&str> = view
            .lanes
            .iter()
            .flat_map(|l| &l.bars)
            .filter(|b| b.hit)
            .map(|b| b.id.as_str())
            .collect();
        assert_eq!(hits, ["b"]);
    }

    #[test]
    fn arrows_move_between_bars_and_keep_the_focused_row_in_view() {
        let mut v = wave();
        let query = TimelineQuery {
            rows: 2,
            ..TimelineQuery::default()
        };
        let first = v.timeline_step(&query, TimelineKey::Down);
        assert_eq!(
            first.focus.as_deref(),
            Some("a"),
            "the first bar when none is focused"
        );
        let next = v.timeline_step(&first, TimelineKey::Down);
        assert_eq!(next.focus.as_deref(), Some("b"));
        let last = v.timeline_step(&next, TimelineKey::Down);
        assert_eq!((last.focus.as_deref(), last.first_row), (Some("c"), 1));
        let home = v.timeline_step(&last, TimelineKey::Home);
        assert_eq!((home.focus.as_deref(), home.first_row), (Some("a"), 0));
        let view = v.timeline(&home);
        assert!(view.lanes[0].bars[0].focused);
    }

    #[test]
    fn a_packed_row_draws_runs_too_close_to_tell_apart_as_a_cluster_that_zooms_in() {
        // 200 runs of a second, one every two seconds: one packed row,
        // three pixels from one start to the next at 640 px.
        let mut v = Viewer::new();
        v.apply([text("u", 0, "user", None)]);
        v.apply((0..200).map(|k| done(&format!("r{k:03}"), 1 + 2 * k, None, 1)));
        v.apply([child("r150-1", 301, "r150")]);
        v.search("needle r150-1");
        let packed = TimelineQuery {
            packed: true,
            ..TimelineQuery::default()
        };
        let view = v.timeline(&packed);
        assert_eq!(view.rows_total, 1);
        let lane = &view.lanes[0];
        let drawn = lane.bars.len() + lane.clusters.len();
        let clustered: usize = lane.clusters.iter().map(|c| c.runs).sum();
        assert_eq!(
            lane.bars.len() + clustered,
            200,
            "every run, drawn or counted"
        );
        assert!(
            drawn <= 640 / 24 + 1,
            "{drawn} things drawn in a row of 640 px"
        );
        let mut starts: Vec<i32> = lane.bars.iter().map(|b| b.x).collect();
        starts.extend(lane.clusters.iter().map(|c| c.x));
        starts.sort_unstable();
        assert!(
            starts.windows(2).all(|w| w[1] - w[0] >= 23),
            "nothing drawn within a cluster's width of the one before: {starts:?}"
        );
        let holding = |t: i64| {
            lane.clusters
                .iter()
                .find(|c| c.span.0 <= t && t <= c.span.1)
                .expect("a cluster holding it")
        };
        let hit = holding(ms(301));
        assert!(hit.hit, "the cluster holding the match says so");
        assert_eq!(
            lane.clusters.iter().filter(|c| c.hit).count(),
            1,
            "and no other"
        );
        let first = &lane.clusters[0];
        assert_eq!(
            *first.label,
            format!(
                "{} runs, 0:01 to {}: zoom in to see each",
                first.runs,
                clock_offset(first.span.1 - ms(0))
            )
        );
        // A click zooms in on its runs: each is a bar of its own then.
        let zoomed = packed
            .moved(view.axis, &TimelineMove::Span(first.span.0, first.span.1))
            .unwrap();
        let near = v.timeline(&zoomed);
        let ids: Vec<&str> = near.lanes[0].bars.iter().map(|b| b.id.as_str()).collect();
        let expected: Vec<String> = (0..first.runs).map(|k| format!("r{k:03}")).collect();
        assert_eq!(&ids[..first.runs], expected, "{ids:?}");
        assert!(near.lanes[0].clusters.is_empty());
        // The focused run is drawn on its own, wherever it is.
        let focused = TimelineQuery {
            focus: Some("r101".into()),
            ..packed
        };
        let view = v.timeline(&focused);
        let bar = view.lanes[0]
            .bars
            .iter()
            .find(|b| b.focused)
            .expect("its bar");
        assert_eq!(bar.id, "r101");
        let around: usize =
            view.lanes[0].bars.len() + view.lanes[0].clusters.iter().map(|c| c.runs).sum::<usize>();
        assert_eq!(around, 200);
    }

    #[test]
    fn packed_rows_in_view_draw_about_32_bars_and_clusters_in_all() {
        // Six streams of 200 one-second runs side by side: six packed rows.
        let mut v = Viewer::new();
        v.apply([text("u", 0, "user", None)]);
        v.apply((0..6).flat_map(|s| {
            (0..200).map(move |k| done(&format!("s{s}-{k:03}"), 1 + 2 * k, None, 1))
        }));
        let view = v.timeline(&TimelineQuery {
            packed: true,
            ..TimelineQuery::default()
        });
        assert_eq!(view.rows_total, 6);
        let drawn: usize = view
            .lanes
            .iter()
            .map(|l| l.bars.len() + l.clusters.len())
            .sum();
        let counted: usize = view
            .lanes
            .iter()
            .map(|l| l.bars.len() + l.clusters.iter().map(|c| c.runs).sum::<usize>())
            .sum();
        assert_eq!(counted, 1200, "every run, drawn or counted");
        assert!(drawn <= 32 + 6, "{drawn} drawn in six rows");
    }

    #[test]
    fn runs_holding_a_match_follow_the_matches_that_changed_not_every_match_again() {
        let mut v = Viewer::new();
        v.apply([text("u", 0, "user", None)]);
        v.apply((0..100).map(|k| done(&format!("r{k:03}"), 1 + k, None, 1)));
        v.apply((0..100).map(|k| child(&format!("r{k:03}-1"), 1 + k, &format!("r{k:03}"))));
        v.search("needle");
        let query = TimelineQuery {
            rows: 200,
            ..TimelineQuery::default()
        };
        let hit = |v: &mut Viewer| -> Vec<String> {
            let view = v.timeline(&query);
            let bars = view.lanes.iter().flat_map(|l| &l.bars);
            bars.filter(|b| b.hit).map(|b| b.id.clone()).collect()
        };
        let as_afresh = |v: &Viewer| {
            let mut fresh = v.clone();
            fresh.set_timeline_open(false);
            hit(&mut fresh)
        };
        assert_eq!(hit(&mut v).len(), 100);
        assert_eq!(v.timeline_hits.looked_up, 100);
        // A new match costs itself; a match that stops matching, itself.
        let quiet = added(json!({"id": "r007-1", "session_id": "s", "turn_id": "t1",
            "type": "tool_read", "created_at": at(8), "updated_at": at(9), "content": "hay",
            "metadata": {"tool_call_id": "tc-r007-1", "status": "complete",
                "parent_tool_call_id": "tc-r007"}}));
        let steps: Vec<(Vec<Event>, usize)> = vec![
            (vec![child("r050-2", 51, "r050")], 1),
            (vec![quiet], 0),
            (vec![text("reply", 200, "agent", None)], 0),
            // A record looked at before its run comes: when the run comes,
            // every match is read again, and its run's match is found.
            (vec![child("late-1", 300, "late")], 1),
            (vec![done("late", 299, None, 5)], 101),
        ];
        for (n, (events, looked_up)) in steps.into_iter().enumerate() {
            let before = v.timeline_hits.looked_up;
            v.apply(events);
            let live = hit(&mut v);
            assert_eq!(v.timeline_hits.looked_up - before, looked_up, "step {n}");
            assert_eq!(live, as_afresh(&v), "step {n}");
        }
        let live = hit(&mut v);
        assert!(!live.contains(&"r007".to_string()) && live.contains(&"late".to_string()));
        assert_eq!(live.len(), 100, "r007 out, late in");
    }
}
