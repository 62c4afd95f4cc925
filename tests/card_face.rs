//! Browser tests of the subagent card's collapsed face (docs/behaviour.md §3.1–§3.3):
//! summary line, header, type and description, status markers, child count
//! and meta chips.
#![cfg(target_arch = "wasm32")]

mod support;

use leptos::prelude::document;
use serde_json::json;
use support::reviewer;
use support::transcript::*;
use taskview_testkit::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn settled_collapsed_card_shows_first_nonempty_line_and_expand_shows_full_result_above_children(
) {
    let t = Mounted::with(vec![
        added(user("u", 0, "t1", "go")),
        added(subagent(
            "s",
            1,
            "t1",
            reviewer("\n\n  VERDICT: REQUEST_CHANGES  \nTwo blocking findings."),
        )),
        added(child("c1", 2, "t1", "s").titled("Read SyncRunner.ts")),
        added(child("c2", 3, "t1", "s").titled("Read closure.ts")),
    ])
    .await;
    let card = t.card("s");
    assert_eq!(
        text_in(&card, "[data-testid=subagent-result-summary]").as_deref(),
        Some("VERDICT: REQUEST_CHANGES")
    );
    assert_eq!(text_in(&card, "[data-testid=subagent-result-text]"), None);
    assert_eq!(
        text_in(&card, "[data-testid=subagent-child-count]").as_deref(),
        Some("2 tool calls")
    );
    let button = card.query_selector("button.card-head").unwrap().unwrap();
    assert_eq!(
        button.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
    t.click(&button).await;
    let card = t.card("s");
    assert_eq!(
        text_in(&card, "[data-testid=subagent-result-summary]"),
        None
    );
    let result = card
        .query_selector("[data-testid=subagent-result-text]")
        .unwrap()
        .unwrap();
    assert!(result
        .text_content()
        .unwrap()
        .contains("Two blocking findings."));
    let first_child = card
        .query_selector("#msg-c1")
        .unwrap()
        .expect("child visible");
    let order = result.compare_document_position(&first_child);
    assert!(
        order & web_sys::Node::DOCUMENT_POSITION_FOLLOWING != 0,
        "result above children"
    );
    assert_eq!(
        card.query_selector("button.card-head")
            .unwrap()
            .unwrap()
            .get_attribute("aria-expanded")
            .as_deref(),
        Some("true")
    );
}

#[wasm_bindgen_test]
async fn card_header_controls_its_body_and_is_keyboard_operable() {
    let t = Mounted::with(vec![added(subagent("s", 1, "t1", reviewer("APPROVE")))]).await;
    let button = t
        .card("s")
        .query_selector("button.card-head")
        .unwrap()
        .unwrap();
    let controls = button
        .get_attribute("aria-controls")
        .expect("aria-controls");
    assert!(
        document().get_element_by_id(&controls).is_some(),
        "controlled element exists"
    );
    assert_eq!(
        button.tag_name(),
        "BUTTON",
        "a native button is focusable and Enter/Space operable"
    );
}

#[wasm_bindgen_test]
async fn description_restating_the_type_is_stripped_and_the_title_keeps_the_original() {
    let sa = json!({"subagent_type": "test-supervisor",
        "description": "Test-supervisor review of new invariant tests", "status": "completed"});
    let t = Mounted::with(vec![added(subagent("s", 1, "t1", sa))]).await;
    let description = t
        .card("s")
        .query_selector("[data-testid=subagent-description]")
        .unwrap()
        .unwrap();
    assert_eq!(
        description.text_content().as_deref(),
        Some("review of new invariant tests")
    );
    assert_eq!(
        description.get_attribute("title").as_deref(),
        Some("Test-supervisor review of new invariant tests")
    );
    assert_eq!(
        text_in(&t.card("s"), "[data-testid=subagent-type]").as_deref(),
        Some("test-supervisor")
    );
}

#[wasm_bindgen_test]
async fn description_equal_to_the_type_renders_no_description_element() {
    let sa = json!({"subagent_type": "code-reviewer", "description": "code-reviewer", "status": "completed"});
    let t = Mounted::with(vec![added(subagent("s", 1, "t1", sa))]).await;
    assert_eq!(
        text_in(&t.card("s"), "[data-testid=subagent-description]"),
        None
    );
}

#[wasm_bindgen_test]
async fn chips_show_in_order_with_spec_formats_and_the_tools_chip_hides_when_it_equals_children() {
    let mut events = vec![added(subagent("s", 1, "t1", reviewer("ok")))];
    events.push(added(child("c1", 2, "t1", "s").titled("a")));
    events.push(added(child("c2", 3, "t1", "s").titled("b")));
    let t = Mounted::with(events).await;
    let card = t.card("s");
    let ids: Vec<String> = t
        .all("#msg-s .chip")
        .iter()
        .filter_map(|c| c.get_attribute("data-testid"))
        .collect();
    assert_eq!(
        ids,
        [
            "subagent-meta-duration",
            "subagent-meta-tokens",
            "subagent-meta-model"
        ],
        "tool_use_count 2 == 2 children hides tools"
    );
    assert_eq!(
        text_in(&card, "[data-testid=subagent-meta-duration]").as_deref(),
        Some("4m 03s")
    );
    let tokens = card
        .query_selector("[data-testid=subagent-meta-tokens]")
        .unwrap()
        .unwrap();
    assert_eq!(tokens.text_content().as_deref(), Some("48.2k tokens"));
    assert_eq!(
        tokens.get_attribute("title").as_deref(),
        Some("48,213 tokens")
    );
}

#[wasm_bindgen_test]
async fn tools_chip_and_child_count_both_show_when_they_differ() {
    let mut sa = reviewer("ok");
    sa["tool_use_count"] = json!(27);
    let mut events = vec![added(subagent("s", 1, "t1", sa))];
    events.extend((0..20).map(|i| added(child(&format!("c{i}"), 2 + i, "t1", "s").titled("x"))));
    let t = Mounted::with(events).await;
    let card = t.card("s");
    assert_eq!(
        text_in(&card, "[data-testid=subagent-meta-tools]").as_deref(),
        Some("27 tools")
    );
    assert_eq!(
        text_in(&card, "[data-testid=subagent-child-count]").as_deref(),
        Some("20 tool calls")
    );
}

#[wasm_bindgen_test]
async fn failed_subagent_shows_a_failed_marker_and_cancelled_a_cancelled_one() {
    let mut failed = reviewer("crashed");
    failed["status"] = json!("failed");
    let t = Mounted::with(vec![
        added(subagent("f", 1, "t1", failed).status("error")),
        added(subagent("k", 2, "t1", json!({"subagent_type": "x"})).status("cancelled")),
    ])
    .await;
    assert_eq!(
        text_in(&t.card("f"), "[data-testid=subagent-status]").as_deref(),
        Some("failed")
    );
    assert_eq!(
        t.card("f").get_attribute("data-status").as_deref(),
        Some("failed")
    );
    assert_eq!(
        text_in(&t.card("k"), "[data-testid=subagent-status]").as_deref(),
        Some("cancelled")
    );
}

#[wasm_bindgen_test]
async fn absent_result_shows_no_summary_and_no_placeholder() {
    let sa = json!({"subagent_type": "explorer", "description": "look", "status": "completed"});
    let t = Mounted::with(vec![
        added(subagent("s", 1, "t1", sa)),
        added(child("c1", 2, "t1", "s").titled("Read a.rs")),
    ])
    .await;
    let card = t.card("s");
    assert_eq!(
        text_in(&card, "[data-testid=subagent-result-summary]"),
        None
    );
    assert_eq!(
        text_in(&card, "[data-testid=subagent-status]"),
        None,
        "no failure look"
    );
    t.toggle("s").await;
    let card = t.card("s");
    assert_eq!(text_in(&card, "[data-testid=subagent-result-text]"), None);
    assert!(card.query_selector("#msg-c1").unwrap().is_some());
}

#[wasm_bindgen_test]
async fn a_card_with_nothing_to_expand_has_a_plain_header_and_no_chevron() {
    let sa = json!({"subagent_type": "verify", "description": "check", "status": "completed",
        "duration_ms": 2500});
    let t = Mounted::with(vec![added(subagent("s", 1, "t1", sa))]).await;
    let card = t.card("s");
    assert!(card.query_selector("button").unwrap().is_none());
    assert!(card
        .query_selector("[data-testid=subagent-chevron]")
        .unwrap()
        .is_none());
    assert_eq!(
        text_in(&card, "[data-testid=subagent-meta-duration]").as_deref(),
        Some("2.5s")
    );
}

/// The kandev review-wave fixture (loaded from the test kit, embedded at
/// build time) renders its two settled cards with their faces (docs/behaviour.md §3.1).
#[wasm_bindgen_test]
async fn the_review_wave_fixture_renders_its_two_cards_with_their_faces() {
    let t = Mounted::with(kandev_events("session-review-wave.json")).await;
    assert_eq!(t.all("[data-testid=subagent-card]").len(), 2);
    assert_eq!(
        text_in(&t.card("m013"), "[data-testid=subagent-result-summary]").as_deref(),
        Some("VERDICT: REQUEST_CHANGES")
    );
    assert_eq!(
        text_in(&t.card("m014"), "[data-testid=subagent-child-count]").as_deref(),
        Some("2 tool calls")
    );
}
