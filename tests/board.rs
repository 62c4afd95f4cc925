//! Browser tests of the board components (wasm-bindgen-test in headless
//! Chromium): the subagent chip of SPEC.md §5 and the card around it.
#![cfg(target_arch = "wasm32")]

use leptos::{prelude::*, task::tick};
use taskview_app::components::board::{SubagentCountChip, TaskCardView};
use taskview_core::view::board::{subagent_chip, TaskCard, TaskStatus};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Mounts a view into a fresh element and returns that element.
fn mount(view: impl FnOnce() -> AnyView + 'static) -> (web_sys::HtmlElement, impl Drop) {
    let document = document();
    let host: web_sys::HtmlElement = document.create_element("section").unwrap().unchecked_into();
    document.body().unwrap().append_child(&host).unwrap();
    let handle = mount_to(host.clone(), view);
    (host, handle)
}

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
