//! Browser tests of the board components (wasm-bindgen-test in headless
//! Chromium): the subagent chip of docs/behaviour.md §5, the card around it, and the
//! board following task notifications through the app's store.
#![cfg(target_arch = "wasm32")]

use leptos::{prelude::*, task::tick};
use serde_json::json;
use taskview_app::components::board::{Board, SubagentCountChip, TaskCardView};
use taskview_app::live::board::use_board;
use taskview_app::live::Live;
use taskview_core::model::board::BoardSnapshot;
use taskview_core::model::event::Event;
use taskview_core::read::protocol::event_from_notification;
use taskview_core::screen::view::board::{subagent_chip, TaskCard, TaskStatus};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

mod support;

use support::mount;

wasm_bindgen_test_configure!(run_in_browser);

fn chip_in(host: &web_sys::HtmlElement) -> Option<web_sys::Element> {
    host.query_selector("[data-testid=task-subagent-count]")
        .unwrap()
}

#[wasm_bindgen_test]
async fn no_chip_at_zero_null_or_absent() {
    for count in [Some(0), None] {
        let (host, _handle) =
            mount(move || view! { <SubagentCountChip chip=subagent_chip(count) /> }.into_any());
        tick().await;
        assert!(chip_in(&host).is_none(), "{count:?}");
    }
}

#[wasm_bindgen_test]
async fn the_chip_shows_an_icon_and_the_bare_number_with_the_words_as_its_label() {
    for (count, label) in [(1, "1 subagent running"), (2, "2 subagents running")] {
        let (host, _handle) = mount(move || {
            view! { <SubagentCountChip chip=subagent_chip(Some(count)) /> }.into_any()
        });
        tick().await;
        let chip = chip_in(&host).expect("a chip");
        assert_eq!(chip.get_attribute("aria-label").as_deref(), Some(label));
        assert_eq!(chip.get_attribute("title").as_deref(), Some(label));
        assert_eq!(chip.text_content().unwrap(), count.to_string());
        let icon = chip.query_selector("svg").unwrap().expect("an icon");
        assert_eq!(icon.get_attribute("aria-hidden").as_deref(), Some("true"));
    }
}

#[wasm_bindgen_test]
async fn a_card_links_to_its_transcript_and_states_its_status_in_words() {
    let card = TaskCard {
        task_id: "task-1".into(),
        title: "Fix the <b>cursor</b>".into(),
        state: "IN_PROGRESS".into(),
        status: Some(TaskStatus::WaitingForInput),
        subagent_chip: subagent_chip(Some(3)),
    };
    let (host, _handle) =
        mount(move || view! { <TaskCardView card href="/task/task-1".into() /> }.into_any());
    tick().await;
    let link = host.query_selector("a").unwrap().unwrap();
    assert_eq!(link.get_attribute("href").as_deref(), Some("/task/task-1"));
    let text = |testid: &str| {
        host.query_selector(&format!("[data-testid={testid}]"))
            .unwrap()
            .unwrap()
            .text_content()
            .unwrap()
    };
    assert_eq!(
        text("task-title"),
        "Fix the <b>cursor</b>",
        "titles are text"
    );
    assert_eq!(text("task-state"), "in progress");
    assert_eq!(text("task-status"), "⏸waiting for input");
    assert_eq!(text("task-subagent-count"), "3");
}

/// The board as the page renders it: `core::view::board` over the app's store.
fn live_board(live: Live) -> AnyView {
    provide_context(live);
    let view_model = use_board("wf".into());
    let board = Signal::derive(move || view_model.get().unwrap_or_default());
    let href = Callback::new(|task_id: String| format!("/task/{task_id}"));
    view! { <Board board href /> }.into_any()
}

fn notify(live: &Live, action: &str, payload: serde_json::Value) {
    let event = event_from_notification(action, &payload).unwrap().unwrap();
    live.apply([event]);
}

#[wasm_bindgen_test]
async fn task_notifications_change_the_board_without_a_reload() {
    let live = Live::new();
    let snapshot = BoardSnapshot::from_snapshot(&json!({
        "workflow": {"id": "wf", "name": "Dev"},
        "steps": [{"id": "todo", "name": "Todo", "position": 0}, {"id": "doing", "name": "Doing", "position": 1}],
        "tasks": [{"id": "t1", "workflow_step_id": "todo", "title": "One", "state": "TODO", "position": 0}]
    }))
    .unwrap();
    live.apply([Event::BoardLoaded(snapshot)]);
    let (host, _handle) = mount({
        let live = live.clone();
        move || live_board(live)
    });
    tick().await;
    let column = |n: usize| {
        let columns = host
            .query_selector_all("[data-testid=board-column]")
            .unwrap();
        let column: web_sys::Element = columns.item(n as u32).unwrap().unchecked_into();
        let titles = column
            .query_selector_all("[data-testid=task-title]")
            .unwrap();
        let count = column
            .query_selector("[data-testid=column-count]")
            .unwrap()
            .unwrap()
            .text_content()
            .unwrap();
        let titles: Vec<String> = (0..titles.length())
            .map(|i| titles.item(i).unwrap().text_content().unwrap())
            .collect();
        (count, titles)
    };
    assert_eq!(column(0), ("1".into(), vec!["One".into()]));
    assert_eq!(column(1), ("0".into(), vec![]));

    notify(
        &live,
        "task.created",
        json!({"task_id": "t2", "workflow_id": "wf",
        "workflow_step_id": "doing", "title": "Two", "state": "IN_PROGRESS", "position": 0,
        "active_subagent_count": 2}),
    );
    tick().await;
    assert_eq!(column(1), ("1".into(), vec!["Two".into()]));
    assert_eq!(
        host.query_selector_all("[data-testid=task-subagent-count]")
            .unwrap()
            .length(),
        1
    );

    notify(
        &live,
        "task.state_changed",
        json!({"task_id": "t1", "workflow_step_id": "doing",
        "state": "IN_PROGRESS", "position": 1, "old_state": "TODO", "new_state": "IN_PROGRESS"}),
    );
    tick().await;
    assert_eq!(column(0), ("0".into(), vec![]));
    assert_eq!(column(1), ("2".into(), vec!["Two".into(), "One".into()]));

    notify(&live, "task.deleted", json!({"task_id": "t2"}));
    tick().await;
    assert_eq!(column(1), ("1".into(), vec!["One".into()]));
    assert_eq!(
        host.query_selector_all("[data-testid=task-subagent-count]")
            .unwrap()
            .length(),
        0
    );
}
