//! Browser tests of the seeds' subagent patterns (docs/behaviour.md §3.1, §3.5, §4,
//! §8): spilled outputs, lossy cuts, typed conclusions with provenance,
//! context isolation and forks.
#![cfg(target_arch = "wasm32")]

mod support;

use serde_json::{json, Value};
use support::transcript::*;
use taskview_testkit::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A crawler subagent with a spilled output, a lossy cut and, when `read`,
/// a later `read_run` naming the spill.
fn crawler(read: bool) -> Vec<taskview_core::model::event::Event> {
    let mut spilled = tool("crawl", 2, "t1", "tool_call")
        .titled("web_crawler")
        .under("sa");
    spilled["metadata"]["result"] = json!("spill_5e1d7aa0");
    let mut cut = tool("page", 3, "t1", "tool_call")
        .titled("web_crawler")
        .under("sa");
    cut["metadata"]["result"] = json!("the second page …[truncated]");
    let mut events = vec![
        added(user("u", 0, "t1", "crawl")),
        added(subagent(
            "sa",
            1,
            "t1",
            json!({"subagent_type": "web_crawler",
            "status": "completed", "result_text": "done"}),
        )),
        added(spilled),
        added(cut),
    ];
    if read {
        let mut reader: Value = tool("read", 4, "t1", "tool_call")
            .titled("read_run")
            .under("sa");
        reader["metadata"]["tool_name"] = json!("read_run");
        reader["metadata"]["args"] = json!({"spill_id": "spill_5e1d7aa0"});
        reader["metadata"]["result"] = json!("# The article\nits full text");
        events.push(added(reader));
    }
    events
}

async fn opened(events: Vec<taskview_core::model::event::Event>) -> Mounted {
    let t = Mounted::with(events).await;
    t.toggle("sa").await;
    t
}

#[wasm_bindgen_test]
async fn spilled_output_is_a_spill_chip_with_its_id_and_a_lossy_cut_is_marked_truncated() {
    let t = opened(crawler(false)).await;
    let chip = "#msg-crawl [data-testid=spill-chip]";
    assert_eq!(
        t.attr(chip, "data-spill-id").as_deref(),
        Some("spill_5e1d7aa0")
    );
    assert!(t.texts(chip)[0].contains("spilled"));
    // Without the stored text there is nothing to open.
    assert!(t.one("#msg-crawl [data-testid=spill-stored]").is_none());
    assert!(t.one("#msg-page [data-testid=truncated-marker]").is_some());
    assert!(t.one("#msg-crawl [data-testid=truncated-marker]").is_none());
}

#[wasm_bindgen_test]
async fn spilled_output_opens_the_stored_text_inline_and_links_both_places() {
    let t = opened(crawler(true)).await;
    let stored = t
        .one("#msg-crawl [data-testid=spill-stored]")
        .expect("stored text inline");
    assert!(stored.text_content().unwrap().contains("its full text"));
    let there = "#msg-crawl [data-testid=spill-stored-link]";
    assert_eq!(t.attr(there, "href").as_deref(), Some("#msg-read"));
    let back = "#msg-read [data-testid=spill-placeholder-link]";
    assert_eq!(t.attr(back, "href").as_deref(), Some("#msg-crawl"));
}

#[wasm_bindgen_test]
async fn spilled_output_chip_opens_when_the_stored_text_arrives_later() {
    let mut events = crawler(true);
    let reader = events.pop().unwrap();
    let t = opened(events).await;
    assert!(t.one("#msg-crawl [data-testid=spill-stored]").is_none());
    t.apply(vec![reader]).await;
    assert!(t.one("#msg-crawl [data-testid=spill-stored]").is_some());
}

/// A settled subagent answering `result`, opened.
async fn answered(result: &str) -> Mounted {
    let t = Mounted::with(vec![
        added(user("u", 0, "t1", "which policy?")),
        added(subagent(
            "sa",
            1,
            "t1",
            json!({"subagent_type": "policy-finder",
            "status": "completed", "result_text": result, "total_tokens": 14000}),
        )),
    ])
    .await;
    t.toggle("sa").await;
    t
}

#[wasm_bindgen_test]
async fn typed_conclusion_provenance_renders_as_badges_and_only_http_urls_as_links() {
    let t = answered(
        r#"{"policy": "v7", "chunk": "c-8812", "url": "https://example.com/v7",
            "source": "javascript:alert(1)"}"#,
    )
    .await;
    assert_eq!(
        t.texts("#msg-sa [data-testid=conclusion-provenance]"),
        ["c-8812", "https://example.com/v7", "javascript:alert(1)"]
    );
    assert_eq!(
        t.links("#msg-sa [data-testid=conclusion-provenance][href]"),
        [["https://example.com/v7", "noopener noreferrer"]]
    );
}

#[wasm_bindgen_test]
async fn typed_conclusion_schema_failure_reads_as_a_failed_conclusion() {
    let t =
        answered(r#"{"found": false, "reason": "sub-agent returned an invalid conclusion"}"#).await;
    let body = t
        .one("#msg-sa [data-conclusion=failed]")
        .expect("failed conclusion");
    assert_eq!(
        body.text_content().unwrap(),
        "no conclusion: sub-agent returned an invalid conclusion"
    );
}

#[wasm_bindgen_test]
async fn context_isolation_returned_chip_shows_on_a_settled_subagent() {
    let t = Mounted::with(kandev_events("session-seed-patterns.json")).await;
    let chip = t
        .one("#msg-sa-policy [data-testid=subagent-meta-returned]")
        .expect("returned chip");
    assert_eq!(chip.text_content().unwrap(), "~28 tokens returned of 14.2k");
    // A fork still running in the background has no such chip yet.
    assert!(t
        .one("#msg-sa-watch [data-testid=subagent-meta-returned]")
        .is_none());
}

#[wasm_bindgen_test]
async fn gadget_received_response_is_shown_apart_from_the_subagent_record() {
    let t = Mounted::with(gadget_events("seeds/gadget-isolation.json")).await;
    t.toggle("sub-1").await;
    assert_eq!(
        t.attr("#msg-sub-1 [data-testid=subagent-received]", "data-leak")
            .as_deref(),
        Some("false")
    );
    assert!(t.one("#msg-sub-1 [data-testid=subagent-record]").is_some());
    // The spill row inside the card holds the spilled output's stored text.
    assert_eq!(
        t.attr("#msg-crawl-1 [data-testid=spill-chip]", "data-spill-id")
            .as_deref(),
        Some("spill_9b2f61c4-crawl-page-3")
    );
    assert!(t.one("#msg-crawl-1 [data-testid=spill-stored]").is_some());
    t.toggle("sub-2").await;
    assert!(t
        .one("#msg-sub-2 [data-testid=subagent-received-leak]")
        .is_some());
}

#[wasm_bindgen_test]
async fn forks_show_the_fork_chip_a_refused_fork_its_error_and_a_background_one_runs() {
    let t = Mounted::with(kandev_events("session-seed-patterns.json")).await;
    let fork = t.card("sa-fork");
    assert_eq!(
        text_in(&fork, "[data-testid=subagent-type]").as_deref(),
        Some("fork")
    );
    t.toggle("sa-fork").await;
    let refused = t.card("sa-fork-nested");
    assert_eq!(
        t.attr("#msg-sa-fork-nested", "data-status").as_deref(),
        Some("failed")
    );
    assert_eq!(
        text_in(&refused, "[data-testid=subagent-status]").as_deref(),
        Some("failed")
    );
    assert!(text_in(&refused, "[data-testid=subagent-result-summary]")
        .unwrap()
        .starts_with("Fork is not available inside a forked worker"));
    let watch = t.card("sa-watch");
    assert_eq!(
        t.attr("#msg-sa-watch", "data-status").as_deref(),
        Some("running")
    );
    assert_eq!(
        text_in(&watch, "[data-testid=subagent-status]").as_deref(),
        Some("background · running")
    );
    assert!(text_in(&watch, "[data-testid=subagent-result-summary]").is_none());
}

#[wasm_bindgen_test]
async fn fork_placeholder_result_is_replaced_by_the_final_one_when_it_arrives() {
    let fork = |result: &str, status: &str, n: u64| {
        let mut v = subagent(
            "f",
            1,
            "t1",
            json!({"subagent_type": "", "is_fork": true, "description": "Research A",
                "status": status, "result_text": result}),
        );
        v["updated_at"] = json!(at(n));
        v
    };
    let t = Mounted::with(vec![
        added(user("u", 0, "t1", "fork it")),
        added(fork("Fork started — processing in background", "", 1)),
    ])
    .await;
    assert_eq!(t.attr("#msg-f", "data-status").as_deref(), Some("running"));
    assert!(text_in(&t.card("f"), "[data-testid=subagent-result-summary]").is_none());
    t.apply(vec![updated(fork("A is fine.", "completed", 5))])
        .await;
    assert_eq!(t.attr("#msg-f", "data-status").as_deref(), Some("complete"));
    assert_eq!(
        text_in(&t.card("f"), "[data-testid=subagent-result-summary]").as_deref(),
        Some("A is fine.")
    );
}
