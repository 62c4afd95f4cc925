//! Browser tests of the subagent card's states and expanded body (docs/behaviour.md
//! §3.4–§3.5) and of nesting (§2.7–§2.8): running and settling, sticky
//! toggles, typed conclusions, the prompt, nested and not-loaded cards, and
//! the indentation cap.
#![cfg(target_arch = "wasm32")]

mod support;

use serde_json::json;
use support::reviewer;
use support::transcript::*;
use taskview_core::screen::view::announce::ANNOUNCE_WINDOW_MS;
use taskview_testkit::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn running_card_is_open_with_a_spinner_and_collapses_with_a_summary_when_it_settles() {
    let start = turn_started("t1");
    let running =
        json!({"subagent_type": "code-reviewer", "description": "d", "status": "started"});
    let t = Mounted::with(vec![
        start,
        added(subagent("s", 1, "t1", running).status("in_progress")),
        added(child("c1", 2, "t1", "s").titled("Grep cursor")),
    ])
    .await;
    let card = t.card("s");
    assert_eq!(
        card.get_attribute("data-status").as_deref(),
        Some("running")
    );
    let spinner = card
        .query_selector("[data-testid=subagent-status]")
        .unwrap()
        .unwrap();
    assert_eq!(spinner.get_attribute("role").as_deref(), Some("status"));
    assert!(
        card.query_selector("#msg-c1").unwrap().is_some(),
        "open while running"
    );
    assert_eq!(
        text_in(&card, "[data-testid=subagent-now]").as_deref(),
        Some("now: Grep cursor")
    );
    assert_eq!(
        text_in(&card, "[data-testid=subagent-meta]"),
        None,
        "no chips while running"
    );

    let mut done = subagent("s", 1, "t1", reviewer("APPROVE\nall good"));
    done["updated_at"] = json!(at(9));
    t.apply(vec![added(done)]).await;
    let card = t.card("s");
    assert!(
        card.query_selector("#msg-c1").unwrap().is_none(),
        "collapsed on settle"
    );
    assert_eq!(
        text_in(&card, "[data-testid=subagent-result-summary]").as_deref(),
        Some("APPROVE")
    );
    assert!(t
        .texts("[data-testid=live-region]")
        .join("")
        .contains("code-reviewer subagent finished"));
}

#[wasm_bindgen_test]
async fn a_user_toggle_sticks_when_the_card_settles() {
    let start = turn_started("t1");
    let running = json!({"subagent_type": "r", "status": "started"});
    let t = Mounted::with(vec![
        start,
        added(subagent("s", 1, "t1", running).status("in_progress")),
        added(child("c1", 2, "t1", "s").titled("Grep")),
    ])
    .await;
    t.toggle("s").await;
    assert!(
        t.card("s").query_selector("#msg-c1").unwrap().is_none(),
        "user closed it"
    );
    t.apply(vec![turn_completed("t1")]).await;
    t.apply(vec![added(child("c2", 3, "t1", "s").titled("Read"))])
        .await;
    assert!(
        t.card("s").query_selector("#msg-c1").unwrap().is_none(),
        "still closed"
    );
}

#[wasm_bindgen_test]
async fn typed_conclusion_renders_a_key_value_table_and_found_false_a_muted_no_conclusion() {
    let typed = json!({"subagent_type": "policy", "status": "completed",
        "result_text": "{\"policy\": \"v7\", \"chunk\": \"c-8812\"}"});
    let none = json!({"subagent_type": "policy", "status": "completed",
        "result_text": "{\"found\": false, \"reason\": \"no matching policy\"}"});
    let t = Mounted::with(vec![
        added(subagent("a", 1, "t1", typed)),
        added(subagent("b", 2, "t1", none)),
    ])
    .await;
    assert_eq!(
        text_in(&t.card("b"), "[data-testid=subagent-result-summary]").as_deref(),
        Some("no conclusion: no matching policy")
    );
    t.toggle("a").await;
    let cells: Vec<String> = t
        .all("#msg-a table.conclusion th, #msg-a table.conclusion td")
        .iter()
        .map(|c| c.text_content().unwrap_or_default())
        .collect();
    assert_eq!(cells, ["policy", "v7", "chunk", "c-8812"]);
}

#[wasm_bindgen_test]
async fn prompt_is_a_closed_disclosure_in_the_expanded_body() {
    let t = Mounted::with(vec![added(subagent("s", 1, "t1", reviewer("ok")))]).await;
    t.toggle("s").await;
    let prompt = t
        .card("s")
        .query_selector("[data-testid=subagent-prompt]")
        .unwrap()
        .unwrap();
    assert_eq!(prompt.tag_name(), "DETAILS");
    assert!(!prompt.has_attribute("open"));
    assert!(prompt.text_content().unwrap().contains("Review the diff."));
}

#[wasm_bindgen_test]
async fn a_subagent_inside_a_subagent_renders_as_a_full_nested_card() {
    let outer = json!({"subagent_type": "planner", "status": "completed", "result_text": "plan"});
    let inner = subagent(
        "inner",
        2,
        "t1",
        json!({"subagent_type": "explorer", "status": "completed", "result_text": "found it"}),
    )
    .under("outer");
    let t = Mounted::with(vec![
        added(subagent("outer", 1, "t1", outer)),
        added(inner),
        added(child("leaf", 3, "t1", "inner").titled("Read deep.rs")),
    ])
    .await;
    assert!(
        t.one("#msg-inner").is_none(),
        "nested card hidden until its parent opens"
    );
    t.toggle("outer").await;
    let inner = t.card("inner");
    assert!(t.card("outer").contains(Some(&inner)));
    assert_eq!(inner.get_attribute("data-depth").as_deref(), Some("1"));
    assert_eq!(
        text_in(&inner, "[data-testid=subagent-type]").as_deref(),
        Some("explorer")
    );
    assert_eq!(
        text_in(&inner, "[data-testid=subagent-result-summary]").as_deref(),
        Some("found it")
    );
}

#[wasm_bindgen_test]
async fn children_of_an_unloaded_parent_render_in_a_not_loaded_card() {
    let t = Mounted::with(vec![
        added(user("u", 0, "t1", "go")),
        added(child("o1", 1, "t1", "missing").titled("Read a.rs")),
        added(child("o2", 2, "t1", "missing").titled("Read b.rs")),
    ])
    .await;
    let orphan = t.one("[data-testid=orphan-card]").expect("orphan card");
    assert_eq!(
        text_in(&orphan, "[data-testid=subagent-type]").as_deref(),
        Some("subagent (not loaded)")
    );
    assert_eq!(
        text_in(&orphan, "[data-testid=subagent-child-count]").as_deref(),
        Some("2 tool calls")
    );
    t.click(&orphan.query_selector("button").unwrap().unwrap())
        .await;
    assert!(t.one("#msg-o1").is_some() && t.one("#msg-o2").is_some());
}

#[wasm_bindgen_test]
async fn indentation_stops_growing_at_depth_4_and_a_badge_shows_the_depth() {
    // A chain of six subagents, each inside the previous one.
    let mut events = Vec::new();
    for level in 0..6u64 {
        let id = format!("d{level}");
        let mut card = subagent(
            &id,
            level,
            "t1",
            json!({"subagent_type": "explorer", "status": "completed", "result_text": "ok"}),
        );
        if level > 0 {
            card = card.under(&format!("d{}", level - 1));
        }
        events.push(added(card));
    }
    let t = Mounted::with(events).await;
    t.live.follow_anchor("d5");
    settle().await;
    let depth = |id: &str| t.card(id).get_attribute("data-depth");
    assert_eq!(depth("d5").as_deref(), Some("5"));
    let deep: Vec<bool> = (0..6)
        .map(|l| t.card(&format!("d{l}")).class_list().contains("deep"))
        .collect();
    assert_eq!(
        deep,
        [false, false, false, false, true, true],
        "no further indentation from depth 4"
    );
    let badge = |id: &str| text_in(&t.card(id), ":scope > .card-head .depth-badge");
    assert_eq!(badge("d4"), None);
    assert_eq!(badge("d5").as_deref(), Some("depth 5"));
}

#[wasm_bindgen_test]
async fn the_live_region_says_the_first_settle_at_once_and_gathers_later_ones_into_one_line() {
    let running = |n: &str| json!({"subagent_type": n, "status": "started"});
    let t = Mounted::with(vec![
        turn_started("t1"),
        added(subagent("a", 1, "t1", running("first")).status("in_progress")),
        added(subagent("b", 2, "t1", running("second")).status("in_progress")),
        added(subagent("c", 3, "t1", running("third")).status("in_progress")),
    ])
    .await;
    let region = || t.texts("[data-testid=live-region]").join("");
    t.apply(vec![added(subagent("a", 1, "t1", reviewer("APPROVE")))])
        .await;
    assert!(
        region().contains("subagent finished: APPROVE"),
        "{}",
        region()
    );
    // Two more settle, one update each, inside the window: not said one by one.
    let failed = json!({"subagent_type": "third", "status": "failed"});
    t.apply(vec![added(subagent("b", 2, "t1", reviewer("OK")))])
        .await;
    t.apply(vec![added(subagent("c", 3, "t1", failed).status("error"))])
        .await;
    assert!(
        region().contains("subagent finished: APPROVE"),
        "{}",
        region()
    );
    // Past the announcer's gathering window.
    wait_ms(ANNOUNCE_WINDOW_MS as i32 + 200).await;
    assert_eq!(region(), "2 subagents settled: 1 finished, 1 failed");
}
