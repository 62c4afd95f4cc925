//! Browser tests of the other transcript rows (docs/behaviour.md §4, §6): anchors and
//! test ids, unreadable input, untrusted markup, line breaks, and outputs cut
//! in rendering.
#![cfg(target_arch = "wasm32")]

mod support;

use serde_json::json;
use support::transcript::*;
use taskview_core::model::event::Event;
use taskview_testkit::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn plain_rows_carry_anchor_ids_and_type_test_ids() {
    let t = Mounted::with(vec![
        added(user("u", 0, "t1", "hello")),
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
        added(user("u", 0, "t1", "hello")),
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
    assert_eq!(
        t.links("#msg-m a"),
        [["https://example.com", "noopener noreferrer"]]
    );
}

#[wasm_bindgen_test]
async fn a_single_newline_in_chat_text_is_a_line_break() {
    let t = Mounted::with(vec![added(user("u", 0, "t1", "first\nsecond"))]).await;
    assert!(t.one("#msg-u br").is_some());
}

#[wasm_bindgen_test]
async fn outputs_over_64_kb_are_cut_in_rendering_with_a_show_all_control() {
    let big = "line of output\n".repeat(6000);
    let mut v = tool("x", 1, "t1", "tool_call").titled("dump");
    v["metadata"]["result"] = json!(big);
    let t = Mounted::with(vec![added(user("u", 0, "t1", "go")), added(v)]).await;
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
