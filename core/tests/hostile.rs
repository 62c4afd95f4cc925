//! Hostile input (docs/behaviour.md §8): no panic, no hang, nothing lost.

use serde_json::json;
use taskview_core::model::event::Event;
use taskview_core::read::import::kandev;
use taskview_core::screen::view::card::card_view;
use taskview_core::state::layout::{Layout, RowKind};
use taskview_testkit::*;

/// Runs `f` on a thread with a 512 KiB stack: smaller than wasm's, so deep
/// recursion anywhere would overflow.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

fn chain(n: usize) -> Vec<Event> {
    (0..n)
        .map(|i| {
            let id = format!("c{i}");
            if i == 0 {
                added(subagent(&id, 0, "t", json!({})))
            } else {
                added(child(&id, i as u64, "t", &format!("c{}", i - 1)))
            }
        })
        .collect()
}

#[test]
fn truncated_json_keeps_every_message_before_the_cut_and_shows_the_rest_unreadable() {
    let text = fixture("session-review-wave.json");
    let cut = &text[..text.len() * 2 / 3];
    let s = Session::with(kandev::import(cut).unwrap());
    let rows = s.layout.outline();
    assert!(rows.iter().any(|r| r.kind == RowKind::Unreadable));
    assert!(s.store.message("m001").is_some() && s.store.message("m010").is_some());
    s.assert_matches_full_layout();
}

#[test]
fn wrong_types_everywhere_fall_back_to_defaults() {
    let text = r#"[{"id": "a", "type": 7, "turn_id": [], "author_type": {}, "content": 1,
        "metadata": {"tool_call_id": 5, "parent_tool_call_id": false, "status": [],
          "normalized": {"kind": 3, "subagent_task": "x"}}, "created_at": 12},
        {"id": "b", "type": "tool_call", "metadata": {"normalized": {"kind": "subagent_task",
          "subagent_task": {"duration_ms": "long", "total_tokens": -3, "tool_use_count": 1.5,
            "result_text": 9, "is_async": "yes"}}}},
        null, "text", {"no_id": true}]"#;
    let s = Session::with(kandev::import(text).unwrap());
    assert_eq!(
        s.top(),
        ["msg:a", "card:b", "unreadable", "unreadable", "unreadable"]
    );
    let card = s.card("b");
    assert!(card.chips.is_empty() && card.result_summary.is_none());
}

#[test]
fn a_10_mb_content_is_kept_whole_and_laid_out_quickly() {
    let big = "x".repeat(10 * 1024 * 1024);
    let mut v = subagent(
        "s",
        1,
        "t",
        json!({"result_text": big.clone(), "status": "completed"}),
    );
    v["content"] = json!(big.clone());
    let start = std::time::Instant::now();
    let s = Session::with([added(v), added(child("c", 2, "t", "s"))]);
    let card = s.card("s");
    assert_eq!(s.store.message("s").unwrap().content.len(), big.len());
    assert!(card.result_summary.unwrap().len() == big.len());
    assert!(start.elapsed().as_secs() < 5);
}

#[test]
fn a_1000_deep_subagent_chain_lays_out_on_a_small_stack() {
    on_small_stack(|| {
        let s = Session::new(chain(1000));
        let rows = s.layout.outline();
        assert_eq!(rows.len(), 1000);
        assert_eq!(rows.last().unwrap().depth, 999);
        assert_eq!(s.layout.path_to("c999").len(), 1000);
        s.assert_matches_full_layout();
    });
}

#[test]
fn a_1000_deep_chain_arriving_deepest_first_is_adopted_level_by_level() {
    on_small_stack(|| {
        let mut events = chain(1000);
        events.reverse();
        let s = Session::new(events);
        let rows = s.layout.outline();
        assert_eq!(rows.len(), 1000);
        assert_eq!(rows.last().unwrap().depth, 999);
        s.assert_matches_full_layout();
    });
}

#[test]
fn a_200_deep_chain_applied_event_by_event_in_both_directions_matches_a_full_layout() {
    on_small_stack(|| {
        let down = Session::with(chain(200));
        assert_eq!(down.layout.outline().last().unwrap().depth, 199);
        down.assert_matches_full_layout();
        let mut events = chain(200);
        events.reverse();
        let up = Session::with(events);
        assert_eq!(up.outline(), down.outline());
        up.assert_matches_full_layout();
    });
}

#[test]
fn parent_loops_of_two_and_three_terminate_and_keep_every_message() {
    let looped = |id: &str, n: u64, parent: &str| subagent(id, n, "t", json!({})).under(parent);
    let mut s = Session::with([
        added(looped("a", 1, "b")),
        added(looped("b", 2, "a")),
        added(looped("x", 3, "z")),
        added(looped("y", 4, "x")),
        added(looped("z", 5, "y")),
    ]);
    assert_eq!(
        s.outline(),
        ["card:a", "  card:b", "card:x", "  card:y", "    card:z"]
    );
    s.assert_matches_full_layout();
    // Breaking a loop re-places its members.
    s.apply(Event::MessageDeleted { id: "x".into() });
    assert_eq!(
        s.outline(),
        [
            "card:a",
            "  card:b",
            "orphans:tcx",
            "  card:y",
            "    card:z"
        ]
    );
    s.assert_matches_full_layout();
}

#[test]
fn duplicate_ids_merge_into_one_message() {
    let s = Session::with([
        added(text("d", 1, Some("t"), "agent")),
        added(text("d", 1, Some("t"), "agent")),
        updated(json!({"id": "d", "content": "later", "updated_at": at(5)})),
    ]);
    assert_eq!(s.top(), ["msg:d"]);
    assert_eq!(s.store.message("d").unwrap().content, "later");
}

#[test]
fn events_out_of_order_give_the_same_layout_as_in_order() {
    let events = kandev_events("session-review-wave.json");
    let in_order = Session::with(events.clone());
    let mut reversed = events;
    reversed.reverse();
    let out_of_order = Session::with(reversed);
    let a: Vec<String> = in_order.outline();
    assert_eq!(a, out_of_order.outline());
    out_of_order.assert_matches_full_layout();
}

#[test]
fn a_card_view_for_a_missing_or_plain_message_does_not_panic() {
    let s = Session::with([added(text("a", 1, None, "agent"))]);
    assert!(card_view(&s.store, &s.layout, "missing", None).is_none());
    let plain = card_view(&s.store, &s.layout, "a", None).unwrap();
    assert_eq!(plain.type_label, "subagent");
    assert!(Layout::from_store(&s.store).outline().len() == 1);
}
