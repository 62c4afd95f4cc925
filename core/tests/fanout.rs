//! docs/behaviour.md §8 "Finding your way through a fan-out" on a generated session of
//! 2,000 messages with 40 subagents, 3 of them with a nested subagent: the
//! roster against the store, search over collapsed and nested rows, the
//! board drill-down, the honest lifecycle on a controlled clock, and the
//! token figures of the card.

use serde_json::json;
use taskview_core::model::event::Event;
use taskview_core::model::status::RunState;
use taskview_core::screen::view::card::card_view;
use taskview_core::screen::view::roster::{RosterFilter, RosterQuery, RosterRows, RosterSort};
use taskview_core::screen::viewer::fanout::FanOut;
use taskview_core::state::activity::{Millis, STALL_AFTER_MS};
use taskview_core::state::layout::{Layout, RowKey, RowKind};
use taskview_core::state::store::Store;
use taskview_testkit::*;

const MINUTE: Millis = 60_000;

/// A message whose tool call is still in progress.
fn in_progress(mut v: serde_json::Value) -> serde_json::Value {
    v["metadata"]["status"] = json!("in_progress");
    v
}

/// A store, its layout and the fan-out state, fed like the viewer feeds them.
struct Page {
    store: Store,
    layout: Layout,
    fanout: FanOut,
}

impl Page {
    fn load(events: Vec<Event>, now: Millis) -> Page {
        let mut page = Page {
            store: Store::new(),
            layout: Layout::new(),
            fanout: FanOut::new(),
        };
        page.apply(events, now);
        page
    }

    fn apply(&mut self, events: Vec<Event>, now: Millis) -> Vec<RowKey> {
        let changes = self.store.apply_all(events);
        let diff = self.layout.update(&self.store, &changes);
        self.fanout
            .record(&self.store, &self.layout, &changes, &diff, now)
            .rows
    }

    fn roster_ids(&mut self, filter: RosterFilter, sort: RosterSort) -> Vec<(String, usize)> {
        self.fanout
            .roster(
                &self.store,
                &self.layout,
                RosterQuery::new(filter, sort),
                RosterRows::ALL,
            )
            .items
            .into_iter()
            .map(|i| (i.id, i.depth))
            .collect()
    }
}

/// Subagent `i` of the wave: `sa-<i>`; `nested-<i>` under subagents 5, 17 and 29.
const NESTED_UNDER: [usize; 3] = [5, 17, 29];

/// How subagent `i` ends: every seventh failed, every ninth still running.
fn outcome(i: usize) -> &'static str {
    if i % 9 == 4 {
        "running"
    } else if i % 7 == 3 {
        "failed"
    } else {
        "completed"
    }
}

/// A turn that starts 40 subagents in parallel, whose children interleave,
/// 3 of them with a nested subagent that has children of its own, until the
/// session holds `total` messages. Children carry `needle-<i>-<j>` text.
fn fan_out(total: usize) -> Vec<Event> {
    let mut events = vec![added(text("u", 0, Some("t"), "user"))];
    for i in 0..40 {
        let sa = json!({"subagent_type": if i % 2 == 0 { "code-reviewer" } else { "researcher" },
            "description": format!("review part {i}"), "status": "started"});
        events.push(added(subagent(&format!("sa-{i}"), 1 + i as u64, "t", sa)));
    }
    for (k, parent) in NESTED_UNDER.iter().enumerate() {
        let nested = subagent(
            &format!("nested-{k}"),
            50 + k as u64,
            "t",
            json!({"subagent_type": "explorer", "description": format!("dig {k}"),
                "status": "completed", "total_tokens": 1000 * (k as u64 + 1),
                "result_text": "found it"}),
        )
        .under(&format!("sa-{parent}"));
        events.push(added(nested));
    }
    let mut j = 0;
    while events.len() < total {
        let (parent, n) = match j % 41 {
            40 => (format!("nested-{}", j % 3), j),
            i => (format!("sa-{i}"), j),
        };
        let mut c = child(&format!("c{j}"), 100 + n as u64, "t", &parent);
        c["content"] = json!(format!("needle-{parent}-{j} read a file"));
        c["metadata"]["title"] = json!(format!("Read part {j}"));
        events.push(added(c));
        j += 1;
    }
    for i in 0..40 {
        let status = outcome(i);
        if status == "running" {
            events.push(updated(json!({"id": format!("sa-{i}"),
                "metadata": {"tool_call_id": format!("tcsa-{i}"), "status": "running",
                "normalized": {"kind": "subagent_task", "subagent_task": {"status": "started"}}}})));
            continue;
        }
        let sa = json!({"status": status, "total_tokens": 10_000 + 500 * i as u64,
            "duration_ms": 60_000 + 1000 * i as u64, "result_text": format!("verdict {i}"),
            "model": "claude-opus-4-8"});
        let meta_status = if status == "failed" {
            "error"
        } else {
            "complete"
        };
        events.push(updated(json!({"id": format!("sa-{i}"), "metadata": {
            "tool_call_id": format!("tcsa-{i}"), "status": meta_status,
            "normalized": {"kind": "subagent_task", "subagent_task": sa}}})));
    }
    events
}

#[test]
fn the_generated_session_has_2000_messages_40_subagents_and_3_nested() {
    let page = Page::load(fan_out(2000), 0);
    assert_eq!(page.store.len(), 2000);
    let cards = page
        .layout
        .outline()
        .into_iter()
        .filter(|r| r.kind == RowKind::Subagent)
        .count();
    assert_eq!(cards, 43);
}

impl Page {
    /// The subagent cards of the layout, counted by a walk.
    fn cards_in_outline(&self) -> usize {
        self.layout
            .outline()
            .into_iter()
            .filter(|r| r.kind == RowKind::Subagent)
            .count()
    }
}

/// The roster's toggle counts the subagents without reading the roster: the
/// count follows every batch (a tool that becomes a card with its first
/// child, a deleted card, a transcript opened afresh) and agrees with the
/// roster when it is read.
#[test]
fn the_subagent_count_follows_each_batch_without_a_roster_read() {
    let events = fan_out(2000);
    let mut page = Page::load(Vec::new(), 0);
    for batch in events.chunks(97) {
        page.apply(batch.to_vec(), 0);
        assert_eq!(page.fanout.subagent_count(), page.cards_in_outline());
    }
    assert_eq!(page.fanout.subagent_count(), 43);
    page.apply(
        vec![
            added(tool("plain", 3000, "t", "tool_call")),
            added(child("kid", 3001, "t", "plain")),
            Event::MessageDeleted { id: "sa-3".into() },
        ],
        0,
    );
    assert_eq!(page.fanout.subagent_count(), 43, "one card more, one less");
    assert_eq!(page.fanout.subagent_count(), page.cards_in_outline());
    let roster = page.fanout.roster(
        &page.store,
        &page.layout,
        RosterQuery::default(),
        RosterRows::ALL,
    );
    assert_eq!(roster.heading, "43 subagents");
    page.apply(
        vec![Event::TranscriptOpened {
            session_id: Some("other".into()),
        }],
        0,
    );
    assert_eq!(page.fanout.subagent_count(), 0);
}

#[test]
fn roster_lists_every_subagent_in_start_order_with_nested_ones_under_their_parent() {
    let mut page = Page::load(fan_out(2000), 0);
    let roster = page.roster_ids(RosterFilter::All, RosterSort::Start);
    let mut expected = Vec::new();
    for i in 0..40 {
        expected.push((format!("sa-{i}"), 0));
        if let Some(k) = NESTED_UNDER.iter().position(|p| *p == i) {
            expected.push((format!("nested-{k}"), 1));
        }
    }
    assert_eq!(roster, expected);
}

#[test]
fn roster_filters_agree_with_the_cards_running_and_failed_states() {
    let mut page = Page::load(fan_out(2000), 0);
    let card_status = |p: &Page, id: &str| {
        card_view(&p.store, &p.layout, id, None)
            .expect("card")
            .status
    };
    let running: Vec<String> = page
        .roster_ids(RosterFilter::Running, RosterSort::Start)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let expected: Vec<String> = (0..40)
        .filter(|i| outcome(*i) == "running")
        .map(|i| format!("sa-{i}"))
        .collect();
    assert_eq!(running, expected);
    for id in &running {
        assert_eq!(card_status(&page, id), RunState::Running);
    }
    let failed = page.roster_ids(RosterFilter::Failed, RosterSort::Start);
    assert_eq!(
        failed.len(),
        (0..40).filter(|i| outcome(*i) == "failed").count()
    );
    for (id, _) in &failed {
        assert_eq!(card_status(&page, id), RunState::Failed);
    }
}

#[test]
fn roster_sorted_by_tokens_puts_the_biggest_spender_first_and_unknown_last() {
    let mut page = Page::load(fan_out(2000), 0);
    let top: Vec<String> = page
        .roster_ids(RosterFilter::All, RosterSort::Tokens)
        .into_iter()
        .filter(|(_, depth)| *depth == 0)
        .map(|(id, _)| id)
        .collect();
    assert_eq!(top[0], "sa-39");
    // Running subagents report no tokens yet: last, in start order.
    assert_eq!(top.last().map(String::as_str), Some("sa-31"));
}

#[test]
fn roster_rows_appear_and_settle_as_the_session_streams() {
    let mut page = Page::load(vec![added(text("u", 0, Some("t"), "user"))], 0);
    assert!(page
        .roster_ids(RosterFilter::All, RosterSort::Start)
        .is_empty());
    page.apply(
        vec![
            Event::TurnStarted {
                session_id: "s".into(),
                turn_id: "t".into(),
            },
            added(in_progress(subagent(
                "a",
                1,
                "t",
                json!({"status": "started"}),
            ))),
        ],
        0,
    );
    assert_eq!(
        page.roster_ids(RosterFilter::Running, RosterSort::Start),
        [("a".to_string(), 0)]
    );
    page.apply(
        vec![updated(
            json!({"id": "a", "metadata": {"tool_call_id": "tca",
        "status": "complete", "normalized": {"kind": "subagent_task",
        "subagent_task": {"status": "completed"}}}}),
        )],
        0,
    );
    assert!(page
        .roster_ids(RosterFilter::Running, RosterSort::Start)
        .is_empty());
    assert_eq!(
        page.roster_ids(RosterFilter::All, RosterSort::Start).len(),
        1
    );
}

/// The roster's order is kept between updates (per-message work): a change
/// that cannot move a subagent still shows in its item, and a change of what
/// the order sorts by moves it.
#[test]
fn roster_order_is_kept_between_updates_and_moves_a_subagent_whose_sort_figure_changes() {
    let settled = |id: &str, second: u64, tokens: u64, result: &str| {
        subagent(
            id,
            second,
            "t",
            json!({"status": "completed", "total_tokens": tokens, "result_text": result}),
        )
    };
    let mut page = Page::load(
        vec![
            added(settled("a", 1, 100, "first")),
            added(settled("b", 2, 200, "second")),
        ],
        0,
    );
    let ids = |page: &mut Page| -> Vec<String> {
        page.roster_ids(RosterFilter::All, RosterSort::Tokens)
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    };
    assert_eq!(ids(&mut page), ["b", "a"]);
    // The result text changes: same order, the item reads the new summary.
    page.apply(vec![added(settled("a", 1, 100, "a new summary"))], 0);
    let roster = page.fanout.roster(
        &page.store,
        &page.layout,
        RosterQuery::new(RosterFilter::All, RosterSort::Tokens),
        RosterRows::ALL,
    );
    assert_eq!(roster.items[1].id, "a");
    assert_eq!(roster.items[1].summary.as_deref(), Some("a new summary"));
    // Its tokens pass b's: it moves ahead.
    page.apply(vec![added(settled("a", 1, 900, "a new summary"))], 0);
    assert_eq!(ids(&mut page), ["a", "b"]);
}

#[test]
fn search_counts_matches_across_cards_nested_cards_and_every_row() {
    let mut page = Page::load(fan_out(2000), 0);
    let (status, _) = page.fanout.search(&page.layout, "READ A FILE");
    assert_eq!(status.total, 2000 - 44);
    let (status, _) = page.fanout.search(&page.layout, "needle-nested-1-");
    let nested_children = page.store.children_of("tcnested-1").len();
    assert_eq!(status.total, nested_children);
    assert!(nested_children > 0);
}

#[test]
fn the_current_match_is_opened_through_its_containers_and_highlighted() {
    let mut page = Page::load(fan_out(2000), 0);
    page.fanout.search(&page.layout, "needle-nested-2-");
    let (id, rows) = page.fanout.step(&page.layout, true);
    let id = id.expect("a match");
    assert_eq!(page.fanout.highlight(), Some(id.as_str()));
    // The deep link of docs/behaviour.md §4 opens sa-29, then nested-2, then shows it.
    let path = page.layout.path_to(&id);
    assert_eq!(
        path,
        [
            RowKey::Message("sa-29".into()),
            RowKey::Message("nested-2".into()),
            RowKey::Message(id.clone()),
        ]
    );
    assert_eq!(rows, [RowKey::Message(id)]);
    assert_eq!(
        page.fanout.search_status().label(),
        format!("1 of {}", page.fanout.search_status().total)
    );
}

#[test]
fn search_finds_a_tool_call_collapsed_in_a_turn_group() {
    let mut page = Page::load(
        vec![
            added(text("u", 1, Some("t"), "user")),
            added(tool("a", 2, "t", "tool_execute")),
            added(tool("b", 3, "t", "tool_read")),
        ],
        0,
    );
    let (status, _) = page.fanout.search(&page.layout, "tool b");
    assert_eq!(status.total, 1);
    let (id, rows) = page.fanout.step(&page.layout, true);
    assert_eq!(id.as_deref(), Some("b"));
    assert_eq!(rows, [RowKey::Group("a".into())], "the group row shows it");
}

#[test]
fn a_parent_with_nested_subagents_shows_own_tokens_and_the_total_with_nested() {
    let page = Page::load(fan_out(2000), 0);
    let card = card_view(&page.store, &page.layout, "sa-17", None).expect("card");
    let own = card
        .chips
        .iter()
        .find(|c| c.id == "tokens")
        .expect("own tokens");
    assert_eq!(own.text, "18.5k tokens");
    let nested = card.tokens_with_nested.expect("with nested");
    assert_eq!(nested.text, "20.5k with nested");
    let plain = card_view(&page.store, &page.layout, "sa-16", None).expect("card");
    assert_eq!(plain.tokens_with_nested, None);
    let isolation = plain.isolation.expect("isolation");
    assert_eq!(isolation.text, "~3 tokens returned of 18k");
}

#[test]
fn drill_down_lists_running_subagents_with_now_line_and_elapsed_time() {
    let events = vec![
        Event::TurnStarted {
            session_id: "s".into(),
            turn_id: "t".into(),
        },
        added(text("u", 0, Some("t"), "user")),
        added(in_progress(subagent(
            "a",
            1,
            "t",
            json!({"subagent_type": "code-reviewer",
            "description": "check the diff", "status": "started"}),
        ))),
        added(child("a1", 61, "t", "a")),
        added(subagent("b", 2, "t", json!({"status": "completed"}))),
    ];
    let page = Page::load(events, 0);
    let view = page.fanout.drill_down(&page.store, &page.layout);
    assert_eq!(view.heading, "1 subagent running");
    let item = &view.items[0];
    assert_eq!(
        (item.type_label.as_str(), item.description.as_deref()),
        ("code-reviewer", Some("check the diff"))
    );
    assert_eq!(item.now_text.as_deref(), Some("now: Tool a1"));
    assert_eq!(item.elapsed.as_deref(), Some("1m 00s"));
    // Its elapsed bar on the small timeline, which starts 1 minute ago.
    assert_eq!(
        item.bar
            .as_ref()
            .map(|b| (b.left.as_str(), b.width.as_str())),
        Some(("0.0%", "100.0%"))
    );
    assert_eq!(view.scale_start.as_deref(), Some("1m 00s ago"));
    assert_eq!(item.anchor, "msg-a");
    // The link's name holds its visible text in order (WCAG 2.5.3).
    assert_eq!(
        item.label,
        "code-reviewer: check the diff, 1m 00s, now: Tool a1"
    );
}

#[test]
fn stalled_shows_after_5_minutes_on_the_controlled_clock_and_clears_on_the_next_child() {
    let events = vec![
        added(subagent("a", 0, "t", json!({"status": "running"}))),
        updated(
            json!({"id": "a", "metadata": {"tool_call_id": "tca", "status": "running",
            "normalized": {"kind": "subagent_task", "subagent_task": {"status": "started"}}}}),
        ),
    ];
    let t0 = 1_000_000;
    let mut page = Page::load(events, t0);
    let mark = |p: &Page| {
        card_view(&p.store, &p.layout, "a", Some(p.fanout.clock())).and_then(|c| c.lifecycle)
    };
    assert_eq!(mark(&page), None);
    let rows = page
        .fanout
        .tick(&page.store, &page.layout, t0 + STALL_AFTER_MS - 1)
        .rows;
    assert_eq!(rows, [RowKey::Message("a".into())], "first look");
    assert_eq!(mark(&page), None);
    let rows = page
        .fanout
        .tick(&page.store, &page.layout, t0 + STALL_AFTER_MS + 12_000)
        .rows;
    assert_eq!(rows, [RowKey::Message("a".into())]);
    let stalled = mark(&page).expect("stalled");
    assert_eq!(stalled.text, "stalled");
    assert_eq!(stalled.title, "no new child or update for 5m 12s");
    page.apply(
        vec![added(child("c", 5 * 60 + 20, "t", "a"))],
        t0 + STALL_AFTER_MS + 20_000,
    );
    assert_eq!(mark(&page), None, "cleared by the next child");
    assert!(page
        .fanout
        .tick(&page.store, &page.layout, t0 + 8 * MINUTE)
        .rows
        .contains(&RowKey::Message("a".into())));
}

#[test]
fn a_background_subagent_reads_background_running_in_card_roster_and_drill_down() {
    let events = vec![added(subagent(
        "bg",
        0,
        "t",
        json!({"status": "async_launched", "is_async": true, "subagent_type": "researcher"}),
    ))];
    let mut page = Page::load(events, 0);
    let card = card_view(&page.store, &page.layout, "bg", Some(page.fanout.clock())).unwrap();
    assert_eq!(card.status, RunState::Running);
    assert_eq!(card.lifecycle.unwrap().text, "background · running");
    let roster = page.fanout.roster(
        &page.store,
        &page.layout,
        RosterQuery::new(RosterFilter::Running, RosterSort::Start),
        RosterRows::ALL,
    );
    assert_eq!(roster.items[0].status_text, "background · running");
    let drill = page.fanout.drill_down(&page.store, &page.layout);
    assert_eq!(
        drill.items[0].lifecycle.as_ref().map(|m| m.state),
        Some("background")
    );
}

#[test]
fn the_loaded_session_tells_the_board_its_subagents_are_stalled_or_in_the_background() {
    let events = vec![
        added(subagent(
            "bg",
            0,
            "t",
            json!({"status": "async_launched", "is_async": true}),
        )),
        added(in_progress(subagent(
            "fg",
            1,
            "t",
            json!({"status": "running"}),
        ))),
        updated(
            json!({"id": "fg", "metadata": {"tool_call_id": "tcfg", "status": "running",
            "normalized": {"kind": "subagent_task", "subagent_task": {}}}}),
        ),
    ];
    let mut page = Page::load(events, 0);
    let activity = page.fanout.subagent_activity(&page.store, &page.layout);
    assert_eq!(
        (activity.foreground, activity.background, activity.stalled),
        (1, 1, 0)
    );
    page.fanout.tick(&page.store, &page.layout, 6 * MINUTE);
    let activity = page.fanout.subagent_activity(&page.store, &page.layout);
    assert_eq!(
        (activity.foreground, activity.background, activity.stalled),
        (0, 0, 2)
    );
}
