//! Browser tests of the app shell (wasm-bindgen-test in headless Chromium).
#![cfg(target_arch = "wasm32")]

use leptos::{prelude::*, task::tick};
use taskview_app::components::shell::EmptyState;
use wasm_bindgen_test::*;

mod support;

use support::mount;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn empty_state_shows_title_and_reason_as_a_status() {
    let (host, _handle) = mount(|| {
        view! { <EmptyState title="No board data reachable yet" detail="could not reach /api" /> }
            .into_any()
    });
    tick().await;
    let state = host
        .query_selector("[data-testid=empty-state]")
        .unwrap()
        .unwrap();
    assert_eq!(state.get_attribute("role").as_deref(), Some("status"));
    assert_eq!(
        state
            .query_selector("h2")
            .unwrap()
            .unwrap()
            .text_content()
            .unwrap(),
        "No board data reachable yet"
    );
    assert_eq!(
        state
            .query_selector("p")
            .unwrap()
            .unwrap()
            .text_content()
            .unwrap(),
        "could not reach /api"
    );
}
