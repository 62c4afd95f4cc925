//! Browser tests of the transcript components (SPEC.md §2–§4, §6) on real DOM:
//! each test fills the app's store with messages, mounts `<Transcript/>` and
//! reads what a user would see.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::document;
use serde_json::{json, Value};
use taskview_core::event::Event;
use wasm_bindgen_test::*;

mod support;

use support::messages::{added, at, child, subagent, thought, tool, user};
use support::transcript::{settle, text_in, Mounted};

wasm_bindgen_test_configure!(run_in_browser);

fn reviewer(result: &str) -> Value {
    json!({"subagent_type": "code-reviewer", "description": "Code-reviewer pass over the diff",
        "prompt": "Review the diff.", "status": "completed", "result_text": result,
        "duration_ms": 243117, "total_tokens": 48213, "tool_use_count": 2,
        "model": "claude-opus-4-8[1m]"})
}

#[wasm_bindgen_test]
async fn settled_collapsed_card_shows_first_nonempty_line_and_expand_shows_full_result_above_children(
) {
    let t = Mounted::with(vec![
        user("u", 0, "t1", "go"),
        added(subagent(
            "s",
            1,
            "t1",
            "complete",
            reviewer("\n\n  VERDICT: REQUEST_CHANGES  \nTwo blocking findings."),
        )),
        child("c1", 2, "t1", "s", "Read SyncRunner.ts"),
        child("c2", 3, "t1", "s", "Read closure.ts"),
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
    let t = Mounted::with(vec![added(subagent(
        "s",
        1,
        "t1",
        "complete",
        reviewer("APPROVE"),
    ))])
    .await;
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
    let t = Mounted::with(vec![added(subagent("s", 1, "t1", "complete", sa))]).await;
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
    let t = Mounted::with(vec![added(subagent("s", 1, "t1", "complete", sa))]).await;
    assert_eq!(
        text_in(&t.card("s"), "[data-testid=subagent-description]"),
        None
    );
}

#[wasm_bindgen_test]
async fn chips_show_in_order_with_spec_formats_and_the_tools_chip_hides_when_it_equals_children() {
    let mut events = vec![added(subagent("s", 1, "t1", "complete", reviewer("ok")))];
    events.push(child("c1", 2, "t1", "s", "a"));
    events.push(child("c2", 3, "t1", "s", "b"));
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
    let mut events = vec![added(subagent("s", 1, "t1", "complete", sa))];
    events.extend((0..20).map(|i| child(&format!("c{i}"), 2 + i, "t1", "s", "x")));
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
        added(subagent("f", 1, "t1", "error", failed)),
        added(subagent(
            "k",
            2,
            "t1",
            "cancelled",
            json!({"subagent_type": "x"}),
        )),
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
        added(subagent("s", 1, "t1", "complete", sa)),
        child("c1", 2, "t1", "s", "Read a.rs"),
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
    t.click(&card.query_selector("button.card-head").unwrap().unwrap())
        .await;
    let card = t.card("s");
    assert_eq!(text_in(&card, "[data-testid=subagent-result-text]"), None);
    assert!(card.query_selector("#msg-c1").unwrap().is_some());
}

#[wasm_bindgen_test]
async fn running_card_is_open_with_a_spinner_and_collapses_with_a_summary_when_it_settles() {
    let start = Event::TurnStarted {
        session_id: "s".into(),
        turn_id: "t1".into(),
    };
    let running =
        json!({"subagent_type": "code-reviewer", "description": "d", "status": "started"});
    let t = Mounted::with(vec![
        start,
        added(subagent("s", 1, "t1", "in_progress", running)),
        child("c1", 2, "t1", "s", "Grep cursor"),
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

    let mut done = subagent("s", 1, "t1", "complete", reviewer("APPROVE\nall good"));
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
    let start = Event::TurnStarted {
        session_id: "s".into(),
        turn_id: "t1".into(),
    };
    let running = json!({"subagent_type": "r", "status": "started"});
    let t = Mounted::with(vec![
        start,
        added(subagent("s", 1, "t1", "in_progress", running)),
        child("c1", 2, "t1", "s", "Grep"),
    ])
    .await;
    let button = t
        .card("s")
        .query_selector("button.card-head")
        .unwrap()
        .unwrap();
    t.click(&button).await;
    assert!(
        t.card("s").query_selector("#msg-c1").unwrap().is_none(),
        "user closed it"
    );
    t.apply(vec![Event::TurnCompleted {
        session_id: "s".into(),
        turn_id: "t1".into(),
    }])
    .await;
    t.apply(vec![child("c2", 3, "t1", "s", "Read")]).await;
    assert!(
        t.card("s").query_selector("#msg-c1").unwrap().is_none(),
        "still closed"
    );
}

#[wasm_bindgen_test]
async fn a_subagent_inside_a_subagent_renders_as_a_full_nested_card() {
    let outer = json!({"subagent_type": "planner", "status": "completed", "result_text": "plan"});
    let mut inner = subagent(
        "inner",
        2,
        "t1",
        "complete",
        json!({"subagent_type": "explorer", "status": "completed", "result_text": "found it"}),
    );
    inner["metadata"]["parent_tool_call_id"] = json!("tc-outer");
    let t = Mounted::with(vec![
        added(subagent("outer", 1, "t1", "complete", outer)),
        added(inner),
        child("leaf", 3, "t1", "inner", "Read deep.rs"),
    ])
    .await;
    assert!(
        t.one("#msg-inner").is_none(),
        "nested card hidden until its parent opens"
    );
    t.click(
        &t.card("outer")
            .query_selector("button.card-head")
            .unwrap()
            .unwrap(),
    )
    .await;
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
        user("u", 0, "t1", "go"),
        child("o1", 1, "t1", "missing", "Read a.rs"),
        child("o2", 2, "t1", "missing", "Read b.rs"),
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
async fn group_labels_count_tool_calls_with_plurals_and_thoughts_separately() {
    let t = Mounted::with(vec![
        user("u1", 0, "t1", "one"),
        added(tool("a", 1, "t1", "tool_execute", "ls")),
        user("u2", 2, "t2", "two"),
        thought("th", 3, "t2"),
        added(tool("b", 4, "t2", "tool_read", "Read a")),
        added(tool("c", 5, "t2", "tool_search", "Grep b")),
        user("u3", 6, "t3", "three"),
        added(tool("d", 7, "t3", "tool_read", "r1")),
        added(tool("e", 8, "t3", "tool_read", "r2")),
        added(tool("f", 9, "t3", "tool_read", "r3")),
        added(tool("g", 10, "t3", "tool_read", "r4")),
        added(subagent("s1", 11, "t3", "complete", reviewer("x"))),
        added(subagent("s2", 12, "t3", "complete", reviewer("y"))),
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
        user("u", 0, "t1", "go"),
        added(subagent("s1", 1, "t1", "complete", reviewer("x"))),
        added(subagent("s2", 2, "t1", "complete", reviewer("y"))),
    ])
    .await;
    assert_eq!(t.all("[data-testid=turn-group]").len(), 0);
    assert_eq!(t.all("[data-testid=subagent-card]").len(), 2);
}

#[wasm_bindgen_test]
async fn running_group_keeps_its_count_and_shows_a_spinner_and_now_line() {
    let mut running = tool("b", 2, "t1", "tool_execute", "pnpm test");
    running["metadata"]["status"] = json!("in_progress");
    let t = Mounted::with(vec![
        Event::TurnStarted {
            session_id: "s".into(),
            turn_id: "t1".into(),
        },
        added(tool("a", 1, "t1", "tool_read", "Read a")),
        added(running),
    ])
    .await;
    assert_eq!(t.texts("[data-testid=turn-group-label]"), ["2 tool calls"]);
    assert_eq!(t.texts("[data-testid=turn-group-now]"), ["now: pnpm test"]);
    assert!(t.one("[data-testid=turn-group] [role=status]").is_some());
}

#[wasm_bindgen_test]
async fn plain_rows_carry_anchor_ids_and_type_test_ids() {
    let t = Mounted::with(vec![
        user("u", 0, "t1", "hello"),
        added(json!({"id": "e", "type": "error", "content": "boom", "created_at": at(1)})),
        added(json!({"id": "x", "type": "hologram", "content": "future", "created_at": at(2)})),
    ])
    .await;
    assert!(t.one("#msg-u[data-testid=message-message]").is_some());
    assert!(t.one("#msg-e[data-testid=message-error]").is_some());
    assert!(t.one("#msg-x[data-testid=message-hologram]").is_some());
}

#[wasm_bindgen_test]
async fn unreadable_input_is_a_visible_row_with_its_raw_text() {
    let t = Mounted::with(vec![
        user("u", 0, "t1", "hello"),
        Event::Unreadable {
            raw: "{\"id\": oops".into(),
            error: "invalid JSON".into(),
        },
    ])
    .await;
    let row = t
        .one("[data-testid=unreadable-message]")
        .expect("unreadable row");
    assert!(row.text_content().unwrap().contains("{\"id\": oops"));
    assert!(row.text_content().unwrap().contains("invalid JSON"));
}

#[wasm_bindgen_test]
async fn markup_in_messages_renders_as_text_and_unsafe_links_lose_their_href() {
    let t = Mounted::with(vec![added(json!({"id": "m", "type": "message", "author_type": "agent",
        "content": "<img src=x onerror=alert(1)> [x](javascript:alert(1)) [ok](https://example.com)",
        "created_at": at(0)}))])
    .await;
    let row = t.one("#msg-m").unwrap();
    assert!(row.query_selector("img").unwrap().is_none());
    assert!(row
        .text_content()
        .unwrap()
        .contains("<img src=x onerror=alert(1)>"));
    let links = t.all("#msg-m a");
    assert_eq!(links.len(), 1);
    assert_eq!(
        links[0].get_attribute("href").as_deref(),
        Some("https://example.com")
    );
    assert_eq!(
        links[0].get_attribute("rel").as_deref(),
        Some("noopener noreferrer")
    );
}

#[wasm_bindgen_test]
async fn a_single_newline_in_chat_text_is_a_line_break() {
    let t = Mounted::with(vec![user("u", 0, "t1", "first\nsecond")]).await;
    assert!(t.one("#msg-u br").is_some());
}

#[wasm_bindgen_test]
async fn outputs_over_64_kb_are_cut_in_rendering_with_a_show_all_control() {
    let big = "line of output\n".repeat(6000);
    let mut v = tool("x", 1, "t1", "tool_call", "dump");
    v["metadata"]["result"] = json!(big);
    let t = Mounted::with(vec![user("u", 0, "t1", "go"), added(v)]).await;
    t.click(&t.one("[data-testid=turn-group] button").unwrap())
        .await;
    let block = t.one("#msg-x .text-block").expect("output block");
    let shown = block.text_content().unwrap().len();
    assert!(shown <= 64 * 1024, "cut to 64 KB, got {shown}");
    t.click(&t.one("#msg-x [data-testid=show-all]").expect("show all"))
        .await;
    let block = t.one("#msg-x .text-block").unwrap();
    assert_eq!(block.text_content().unwrap().len(), big.len());
}

#[wasm_bindgen_test]
async fn typed_conclusion_renders_a_key_value_table_and_found_false_a_muted_no_conclusion() {
    let typed = json!({"subagent_type": "policy", "status": "completed",
        "result_text": "{\"policy\": \"v7\", \"chunk\": \"c-8812\"}"});
    let none = json!({"subagent_type": "policy", "status": "completed",
        "result_text": "{\"found\": false, \"reason\": \"no matching policy\"}"});
    let t = Mounted::with(vec![
        added(subagent("a", 1, "t1", "complete", typed)),
        added(subagent("b", 2, "t1", "complete", none)),
    ])
    .await;
    assert_eq!(
        text_in(&t.card("b"), "[data-testid=subagent-result-summary]").as_deref(),
        Some("no conclusion: no matching policy")
    );
    t.click(
        &t.card("a")
            .query_selector("button.card-head")
            .unwrap()
            .unwrap(),
    )
    .await;
    let cells: Vec<String> = t
        .all("#msg-a table.conclusion th, #msg-a table.conclusion td")
        .iter()
        .map(|c| c.text_content().unwrap_or_default())
        .collect();
    assert_eq!(cells, ["policy", "v7", "chunk", "c-8812"]);
}

#[wasm_bindgen_test]
async fn prompt_is_a_closed_disclosure_in_the_expanded_body() {
    let t = Mounted::with(vec![added(subagent(
        "s",
        1,
        "t1",
        "complete",
        reviewer("ok"),
    ))])
    .await;
    t.click(
        &t.card("s")
            .query_selector("button.card-head")
            .unwrap()
            .unwrap(),
    )
    .await;
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
async fn a_card_with_nothing_to_expand_has_a_plain_header_and_no_chevron() {
    let sa = json!({"subagent_type": "verify", "description": "check", "status": "completed",
        "duration_ms": 2500});
    let t = Mounted::with(vec![added(subagent("s", 1, "t1", "complete", sa))]).await;
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
            "complete",
            json!({"subagent_type": "explorer", "status": "completed", "result_text": "ok"}),
        );
        if level > 0 {
            card["metadata"]["parent_tool_call_id"] = json!(format!("tc-d{}", level - 1));
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
