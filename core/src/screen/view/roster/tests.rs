use super::*;

fn entry(id: &str, seq: u64, parent: Option<&str>, status: RunState) -> RosterEntry {
    RosterEntry::sample(id, seq, parent, status)
}

/// The whole roster of `entries` filtered and sorted so.
fn all_rows(entries: &[RosterEntry], filter: RosterFilter, sort: RosterSort) -> RosterView {
    roster_view(entries, RosterQuery::new(filter, sort), RosterRows::ALL)
}

fn ids(view: &RosterView) -> Vec<(String, usize, bool)> {
    view.items
        .iter()
        .map(|i| (i.id.clone(), i.depth, i.context_only))
        .collect()
}

fn wave() -> Vec<RosterEntry> {
    vec![
        entry("a", 1, None, RunState::Complete),
        entry("a1", 2, Some("a"), RunState::Failed),
        entry("b", 3, None, RunState::Running),
        entry("c", 4, None, RunState::Failed),
        entry("a2", 5, Some("a"), RunState::Running),
    ]
}

#[test]
fn nested_subagents_follow_their_parent_in_start_order() {
    let view = all_rows(&wave(), RosterFilter::All, RosterSort::Start);
    assert_eq!(
        ids(&view),
        [
            ("a".into(), 0, false),
            ("a1".into(), 1, false),
            ("a2".into(), 1, false),
            ("b".into(), 0, false),
            ("c".into(), 0, false)
        ]
    );
    assert_eq!(view.heading, "5 subagents");
    assert_eq!(roster_toggle_label(5), "Subagents · 5");
}

#[test]
fn sorting_by_duration_or_tokens_orders_siblings_largest_first() {
    let by_duration = all_rows(&wave(), RosterFilter::All, RosterSort::Duration);
    let order: Vec<String> = by_duration.items.iter().map(|i| i.id.clone()).collect();
    assert_eq!(order, ["c", "b", "a", "a2", "a1"]);
    let by_tokens = all_rows(&wave(), RosterFilter::All, RosterSort::Tokens);
    let order: Vec<String> = by_tokens.items.iter().map(|i| i.id.clone()).collect();
    assert_eq!(order, ["a", "a1", "a2", "b", "c"]);
}

#[test]
fn sorting_by_cost_puts_the_costliest_first_and_unknown_costs_last() {
    let mut entries = wave();
    for (entry, cost) in entries
        .iter_mut()
        .zip([Some(50), None, Some(9_000), None, Some(70)])
    {
        entry.cost_micro_usd = cost;
        entry.telemetry = cost.map(crate::screen::view::telemetry::format_cost);
    }
    let view = all_rows(&entries, RosterFilter::All, RosterSort::Cost);
    let order: Vec<String> = view.items.iter().map(|i| i.id.clone()).collect();
    assert_eq!(order, ["b", "a", "a2", "a1", "c"]);
    assert_eq!(view.items[0].telemetry.as_deref(), Some("$0.009"));
    assert!(
        view.items[0].label.contains("$0.009"),
        "{}",
        view.items[0].label
    );
    assert_eq!(view.items[3].telemetry, None, "no telemetry, no figure");
    assert_eq!(RosterSort::parse("cost"), RosterSort::Cost);
}

#[test]
fn a_filter_keeps_the_parents_of_what_passes_as_context() {
    let view = all_rows(&wave(), RosterFilter::Failed, RosterSort::Start);
    assert_eq!(
        ids(&view),
        [
            ("a".into(), 0, true),
            ("a1".into(), 1, false),
            ("c".into(), 0, false)
        ]
    );
    let labels: Vec<&str> = view.filters.iter().map(|f| f.label.as_str()).collect();
    assert_eq!(
        labels,
        ["all · 5", "running · 2", "queued · 0", "failed · 2"]
    );
    assert!(view.filters[3].selected);
}

#[test]
fn running_admits_no_run_a_still_file_interrupted_which_all_lists() {
    use crate::screen::view::lifecycle::lifecycle_mark;
    let mut entries = wave();
    for e in entries.iter_mut().filter(|e| e.status.is_running()) {
        e.lifecycle = lifecycle_mark(e.status, true, Some(1_000), true);
    }
    let running = all_rows(&entries, RosterFilter::Running, RosterSort::Start);
    let labels: Vec<&str> = running.filters.iter().map(|f| f.label.as_str()).collect();
    assert_eq!(
        labels,
        ["all · 5", "running · 0", "queued · 0", "failed · 2"]
    );
    assert_eq!(running.listed, 0);
    let all = all_rows(&entries, RosterFilter::All, RosterSort::Start);
    let b = all.items.iter().find(|i| i.id == "b").unwrap();
    assert_eq!(b.status_text, "interrupted · no result recorded");
    // Stalled is still at work: it stays under running.
    for e in entries.iter_mut().filter(|e| e.status.is_running()) {
        e.lifecycle = lifecycle_mark(
            e.status,
            true,
            Some(crate::state::activity::STALL_AFTER_MS),
            false,
        );
    }
    assert!(
        entries
            .iter()
            .filter(|e| RosterFilter::Running.admits(e))
            .count()
            == 2
    );
}

#[test]
fn a_long_roster_lists_only_the_rows_on_screen_and_the_space_around_them() {
    let many: Vec<RosterEntry> = (0..250)
        .map(|n| entry(&format!("s{n:03}"), n, None, RunState::Complete))
        .collect();
    let rows = roster_rows(10.0 * ROSTER_ROW_PX, 8.0 * ROSTER_ROW_PX);
    assert_eq!(rows.first, 10 - ROSTER_OVERSCAN_ROWS);
    assert_eq!(rows.count, 8 + 1 + 2 * ROSTER_OVERSCAN_ROWS);
    let view = roster_view(&many, RosterQuery::default(), rows);
    assert_eq!(view.heading, "250 subagents");
    assert_eq!(view.listed, 250);
    assert_eq!(view.items.len(), rows.count);
    assert_eq!(view.items[0].id, format!("s{:03}", rows.first));
    assert_eq!(view.items[0].position, rows.first + 1);
    assert_eq!(view.before_px as f64, rows.first as f64 * ROSTER_ROW_PX);
    let after = 250 - rows.first - rows.count;
    assert_eq!(view.after_px as f64, after as f64 * ROSTER_ROW_PX);
    let end = roster_view(&many, RosterQuery::default(), roster_rows(1e9, 400.0));
    assert!(end.items.is_empty(), "past the end: nothing, no panic");
    assert_eq!(end.before_px as f64, 250.0 * ROSTER_ROW_PX);
    assert_eq!(end.after_px, 0);
}

#[test]
fn arrows_home_end_and_page_keys_move_through_the_whole_list_within_its_ends() {
    assert_eq!(roster_key_target("ArrowDown", 4, 10, 5), Some(5));
    assert_eq!(roster_key_target("ArrowDown", 9, 10, 5), Some(9));
    assert_eq!(roster_key_target("ArrowUp", 0, 10, 5), Some(0));
    assert_eq!(roster_key_target("PageDown", 7, 10, 5), Some(9));
    assert_eq!(roster_key_target("PageUp", 7, 10, 5), Some(2));
    assert_eq!(roster_key_target("Home", 7, 10, 5), Some(0));
    assert_eq!(roster_key_target("End", 0, 1500, 5), Some(1499));
    assert_eq!(roster_key_target("Enter", 0, 10, 5), None);
    assert_eq!(roster_key_target("End", 0, 0, 5), None, "an empty list");
}

#[test]
fn another_filter_or_order_keeps_the_other() {
    let failed = RosterQuery::default().with_filter(RosterFilter::Failed);
    let by_tokens = failed.with_sort(RosterSort::Tokens);
    assert_eq!(
        (by_tokens.filter, by_tokens.sort),
        (RosterFilter::Failed, RosterSort::Tokens)
    );
    assert_eq!(
        by_tokens.with_filter(RosterFilter::All).sort,
        RosterSort::Tokens
    );
}

#[test]
fn an_empty_filter_says_so() {
    let view = all_rows(
        &[entry("a", 1, None, RunState::Complete)],
        RosterFilter::Running,
        RosterSort::Start,
    );
    assert_eq!(view.listed, 0);
    assert!(view.items.is_empty());
    assert_eq!(view.empty_text.as_deref(), Some("No subagent is running"));
}

#[test]
fn items_link_to_the_card_anchor_and_their_name_holds_the_visible_text_in_order() {
    let view = all_rows(&wave(), RosterFilter::All, RosterSort::Start);
    let b = &view.items[3];
    assert_eq!(b.anchor, "msg-b");
    assert_eq!(b.label, "code-reviewer: pass b, running, 3.0s · 10k tokens");
    let mut done = entry("d", 4, None, RunState::Complete);
    done.model = Some("claude-opus-4-8".into());
    done.summary = Some("APPROVE".into());
    let d = &all_rows(&[done], RosterFilter::All, RosterSort::Start).items[0];
    assert_eq!(
        d.label,
        "code-reviewer: pass d, done, 4.0s · 10k tokens · claude-opus-4-8, APPROVE"
    );
    assert_eq!(b.duration.as_deref(), Some("3.0s"));
    assert_eq!(b.tokens.as_deref(), Some("10k tokens"));
    assert_eq!(view.items[0].status_text, "done");
}
