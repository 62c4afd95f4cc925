//! The open Timeline kept up to date batch by batch as opening it afresh
//! would draw it, and what the reader does with it: search, keys, clusters.

use super::*;

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
    v.apply(
        (0..6)
            .flat_map(|s| (0..200).map(move |k| done(&format!("s{s}-{k:03}"), 1 + 2 * k, None, 1))),
    );
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
