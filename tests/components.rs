//! Props-only components mounted alone (no transcript, no app model): each
//! gets a view-model built by core and renders it as it is told.
#![cfg(target_arch = "wasm32")]

use leptos::{prelude::*, task::tick};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use taskview_app::components::card::SubagentCard;
use taskview_app::components::group::TurnGroup;
use taskview_app::components::message::MessageRow;
use taskview_app::components::not_shown::RecordsNotShown;
use taskview_core::screen::view::not_shown::records_not_shown;
use taskview_core::screen::view::row::{CardRowView, RowBody, RowFrame, RowView};
use taskview_core::screen::viewer::Viewer;
use taskview_core::state::layout::RowKey;
use taskview_testkit::added;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

mod support;

use support::mount;

wasm_bindgen_test_configure!(run_in_browser);

/// The review wave's first card with two children, laid out by core.
fn viewer() -> Viewer {
    let mut viewer = Viewer::new();
    viewer.apply([
        added(json!({"id": "u", "author_type": "user", "content": "review", "turn_id": "t"})),
        added(json!({"id": "s", "type": "tool_call", "turn_id": "t", "metadata": {
            "tool_call_id": "tc-s", "status": "complete",
            "normalized": {"kind": "subagent_task", "subagent_task": {
                "subagent_type": "code-reviewer", "description": "code-reviewer: the closure diff",
                "status": "completed", "result_text": "APPROVE\nno findings", "duration_ms": 2250}}}})),
        added(json!({"id": "c1", "type": "tool_read", "turn_id": "t", "content": "Read a.rs",
            "metadata": {"tool_call_id": "tc-c1", "parent_tool_call_id": "tc-s", "status": "complete"}})),
        added(json!({"id": "r1", "type": "tool_read", "turn_id": "t", "content": "Read b.rs",
            "metadata": {"tool_call_id": "tc-r1", "status": "complete"}})),
    ]);
    viewer
}

fn row(viewer: &Viewer, key: RowKey) -> RowView {
    viewer.row(&key).expect("laid out")
}

fn text(host: &web_sys::HtmlElement, selector: &str) -> Option<String> {
    host.query_selector(selector)
        .unwrap()
        .map(|e| e.text_content().unwrap_or_default())
}

async fn settle() {
    for _ in 0..3 {
        tick().await;
    }
}

#[wasm_bindgen_test]
async fn a_subagent_card_mounts_alone_and_renders_exactly_its_view_model() {
    let mut viewer = viewer();
    let collapsed = row(&viewer, RowKey::Message("s".into()))
        .card()
        .cloned()
        .unwrap();
    viewer.toggle(&RowKey::Message("s".into()));
    let expanded = row(&viewer, RowKey::Message("s".into()))
        .card()
        .cloned()
        .unwrap();
    let card = RwSignal::new(collapsed.clone());
    let toggles = Arc::new(AtomicUsize::new(0));
    let (host, _handle) = {
        let toggles = toggles.clone();
        mount(move || {
            let on_toggle = Callback::new(move |()| {
                toggles.fetch_add(1, Ordering::SeqCst);
            });
            view! {
                <SubagentCard card frame=RowFrame::at(0) on_toggle>
                    <p id="slot-child">"a child"</p>
                </SubagentCard>
            }
            .into_any()
        })
    };
    settle().await;
    assert_eq!(
        text(&host, "[data-testid=subagent-description]").as_deref(),
        Some("the closure diff")
    );
    assert_eq!(
        text(&host, "[data-testid=subagent-result-summary]").as_deref(),
        Some("APPROVE")
    );
    assert_eq!(
        text(&host, "[data-testid=subagent-meta-duration]").as_deref(),
        Some("2.3s")
    );
    assert!(host.query_selector("#slot-child").unwrap().is_none());
    let head: web_sys::HtmlElement = host
        .query_selector("button.card-head")
        .unwrap()
        .unwrap()
        .unchecked_into();
    head.click();
    settle().await;
    assert_eq!(toggles.load(Ordering::SeqCst), 1, "the click is reported");
    assert!(
        host.query_selector("#slot-child").unwrap().is_none(),
        "the card does not decide to open itself"
    );
    card.set(expanded);
    settle().await;
    assert!(host.query_selector("#slot-child").unwrap().is_some());
    assert!(text(&host, "[data-testid=subagent-result-text]")
        .unwrap()
        .contains("no findings"));
    assert_eq!(text(&host, "[data-testid=subagent-result-summary]"), None);
    card.set(CardRowView {
        card: taskview_core::screen::view::card::CardView {
            status_word: Some("failed"),
            ..collapsed.card.clone()
        },
        ..collapsed
    });
    settle().await;
    assert_eq!(
        text(&host, "[data-testid=subagent-status]").as_deref(),
        Some("failed")
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn a_turn_group_mounts_alone_with_its_label_and_members_only_when_expanded() {
    let mut viewer = viewer();
    let key = RowKey::Group("r1".into());
    let group = |viewer: &Viewer| match row(viewer, key.clone()).body {
        RowBody::Group(g) => g,
        other => panic!("not a group: {other:?}"),
    };
    let closed = group(&viewer);
    viewer.toggle(&key);
    let open = group(&viewer);
    for (g, members) in [(closed, 0), (open, 1)] {
        let (host, _handle) = mount(move || {
            view! { <TurnGroup group=g on_toggle=Callback::new(|()| {}) /> }.into_any()
        });
        settle().await;
        assert_eq!(
            text(&host, "[data-testid=turn-group-label]").as_deref(),
            Some("1 tool call")
        );
        let shown = host.query_selector_all("#msg-r1").unwrap().length();
        assert_eq!(shown, members);
        host.remove();
    }
}

#[wasm_bindgen_test]
async fn a_message_row_mounts_alone_with_its_anchor() {
    let viewer = viewer();
    let RowBody::Message(message) = row(&viewer, RowKey::Message("u".into())).body else {
        panic!("not a message row")
    };
    let (host, _handle) = mount(move || view! { <MessageRow row=message /> }.into_any());
    settle().await;
    let el = host.query_selector("#msg-u").unwrap().expect("anchor");
    assert_eq!(
        el.get_attribute("data-testid").as_deref(),
        Some("message-message")
    );
    assert_eq!(text(&host, ".bubble-author").as_deref(), Some("You"));
    host.remove();
}

#[wasm_bindgen_test]
async fn the_session_chooser_lists_a_folders_sessions_as_core_orders_them_and_reports_the_pick() {
    use taskview_app::components::sessions::SessionChooser;
    use taskview_core::screen::view::sessions::{session_choices, FileFacts};
    let day = 86_400_000.0;
    let facts = |path, modified_ms| FileFacts {
        path,
        size: 2_048,
        modified_ms,
    };
    let choices = session_choices(
        &[
            facts("two/-a/old.jsonl", 0.0),
            facts("two/-b/new.jsonl", 2.0 * day),
            facts("two/-b/new/subagents/agent-a1.jsonl", 2.0 * day),
        ],
        3.0 * day,
    );
    let picked = Arc::new(AtomicUsize::new(usize::MAX));
    let on_choose = {
        let picked = picked.clone();
        move |at: usize| picked.store(at, Ordering::SeqCst)
    };
    let (host, _owner) = mount(move || view! { <SessionChooser choices on_choose /> }.into_any());
    settle().await;
    assert_eq!(
        text(&host, "h2").as_deref(),
        Some("This folder holds 2 sessions")
    );
    let buttons = host
        .query_selector_all("[data-testid=session-choice]")
        .unwrap();
    let shown: Vec<String> = (0..buttons.length())
        .map(|i| buttons.get(i).unwrap().text_content().unwrap_or_default())
        .collect();
    assert_eq!(
        shown,
        ["new-b1 subagent · 2kB · 1 day ago", "old-a2kB · 3 days ago"],
        "newest first, each with its folder (below the dropped two/) and core's detail line"
    );
    buttons
        .get(1)
        .unwrap()
        .unchecked_into::<web_sys::HtmlElement>()
        .click();
    assert_eq!(
        picked.load(Ordering::SeqCst),
        1,
        "the second button picks the second session"
    );
}

/// docs/behaviour.md §1: records that carry no conversation are counted, and the view
/// says so, with their kinds on request. The counts come from a real import:
/// a session with request snapshots and telemetry beside its one prompt.
#[wasm_bindgen_test]
async fn records_not_shown_read_as_one_muted_line_that_opens_to_their_kinds() {
    let session = [
        json!({"type": "api-request", "uuid": "r1", "sessionId": "s", "request": {"model": "m"}}),
        json!({"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": "hi"}}),
        json!({"type": "api-request", "uuid": "r2", "sessionId": "s", "request": {"model": "m"}}),
        json!({"type": "cost-state", "sessionId": "s", "totalCostUsd": 0.1}),
    ]
    .map(|v| v.to_string())
    .join("\n");
    let mut viewer = Viewer::new();
    viewer.apply(taskview_core::read::import::claude_code::import(&session).expect("imports"));
    let view = records_not_shown(viewer.store().not_shown()).expect("some were skipped");
    let (host, _owner) = mount(move || view! { <RecordsNotShown view /> }.into_any());
    settle().await;
    let details = host
        .query_selector("[data-testid=records-not-shown]")
        .unwrap()
        .expect("the disclosure");
    assert_eq!(
        text(&host, "summary").as_deref(),
        Some("3 records not shown")
    );
    assert!(!details.has_attribute("open"), "the kinds only on request");
    host.query_selector("summary")
        .unwrap()
        .unwrap()
        .unchecked_into::<web_sys::HtmlElement>()
        .click();
    settle().await;
    assert!(details.has_attribute("open"));
    let rows = host.query_selector_all("tbody tr").unwrap();
    let kinds: Vec<String> = (0..rows.length())
        .map(|i| rows.get(i).unwrap().text_content().unwrap_or_default())
        .collect();
    assert_eq!(kinds, ["api-request2", "cost-state1"]);
}
