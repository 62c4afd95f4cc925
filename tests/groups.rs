//! Browser tests of turn groups (docs/behaviour.md §2.2–§2.6): labels with agreeing
//! plurals, cards kept out of groups, and a running group.
#![cfg(target_arch = "wasm32")]

mod support;

use serde_json::json;
use support::reviewer;
use support::transcript::*;
use taskview_testkit::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn group_labels_count_tool_calls_with_plurals_and_thoughts_separately() {
    let t = Mounted::with(vec![
        added(user("u1", 0, "t1", "one")),
        added(tool("a", 1, "t1", "tool_execute").titled("ls")),
        added(user("u2", 2, "t2", "two")),
        added(thought("th", 3, "t2")),
        added(tool("b", 4, "t2", "tool_read").titled("Read a")),
        added(tool("c", 5, "t2", "tool_search").titled("Grep b")),
        added(user("u3", 6, "t3", "three")),
        added(tool("d", 7, "t3", "tool_read").titled("r1")),
        added(tool("e", 8, "t3", "tool_read").titled("r2")),
        added(tool("f", 9, "t3", "tool_read").titled("r3")),
        added(tool("g", 10, "t3", "tool_read").titled("r4")),
        added(subagent("s1", 11, "t3", reviewer("x"))),
        added(subagent("s2", 12, "t3", reviewer("y"))),
    ])
    .await;
    assert_eq!(
        t.texts("[data-testid=turn-group-label]"),
        ["1 tool call", "2 tool calls · 1 thought", "4 tool calls"]
    );
    assert_eq!(
        t.all("[data-testid=subagent-card]").len(),
        2,
        "cards stay top level"
    );
    let group = t.all("[data-testid=turn-group]").remove(2);
    let button = group.query_selector("button").unwrap().unwrap();
    assert_eq!(
        button.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
    t.click(&button).await;
    assert!(
        t.one("#msg-d").is_some() && t.one("#msg-g").is_some(),
        "members render when open"
    );
}

#[wasm_bindgen_test]
async fn a_turn_of_only_subagents_renders_cards_and_no_group() {
    let t = Mounted::with(vec![
        added(user("u", 0, "t1", "go")),
        added(subagent("s1", 1, "t1", reviewer("x"))),
        added(subagent("s2", 2, "t1", reviewer("y"))),
    ])
    .await;
    assert_eq!(t.all("[data-testid=turn-group]").len(), 0);
    assert_eq!(t.all("[data-testid=subagent-card]").len(), 2);
}

#[wasm_bindgen_test]
async fn running_group_keeps_its_count_and_shows_a_spinner_and_now_line() {
    let mut running = tool("b", 2, "t1", "tool_execute").titled("pnpm test");
    running["metadata"]["status"] = json!("in_progress");
    let t = Mounted::with(vec![
        turn_started("t1"),
        added(tool("a", 1, "t1", "tool_read").titled("Read a")),
        added(running),
    ])
    .await;
    assert_eq!(t.texts("[data-testid=turn-group-label]"), ["2 tool calls"]);
    assert_eq!(t.texts("[data-testid=turn-group-now]"), ["now: pnpm test"]);
    assert!(t.one("[data-testid=turn-group] [role=status]").is_some());
}
