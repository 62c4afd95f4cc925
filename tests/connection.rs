//! Browser tests of the connection indicator (wasm-bindgen-test in headless
//! Chromium): its words, its status role and the retry button.
#![cfg(target_arch = "wasm32")]

use leptos::{prelude::*, task::tick};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use taskview_app::components::connection::ConnectionIndicator;
use taskview_core::read::client::backoff::ConnectionStatus;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

mod support;

use support::mount;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn the_indicator_follows_the_status_and_offers_a_retry_while_down() {
    let status = RwSignal::new(ConnectionStatus::Connected);
    let retries = Arc::new(AtomicUsize::new(0));
    let counted = retries.clone();
    let on_retry = Callback::new(move |()| {
        counted.fetch_add(1, Ordering::Relaxed);
    });
    let (host, _handle) =
        mount(move || view! { <ConnectionIndicator status on_retry /> }.into_any());
    tick().await;
    let label = host
        .query_selector("[data-testid=connection-status]")
        .unwrap()
        .unwrap();
    let retry = || {
        host.query_selector("[data-testid=connection-retry]")
            .unwrap()
    };
    assert_eq!(label.get_attribute("role").as_deref(), Some("status"));
    assert_eq!(label.text_content().unwrap(), "connected");
    assert!(retry().is_none());

    status.set(ConnectionStatus::Reconnecting { seconds: 3 });
    tick().await;
    assert_eq!(label.text_content().unwrap(), "reconnecting in 3 s");
    let button: web_sys::HtmlElement = retry().expect("a retry button").unchecked_into();
    button.click();
    assert_eq!(retries.load(Ordering::Relaxed), 1);

    status.set(ConnectionStatus::Offline);
    tick().await;
    assert_eq!(label.text_content().unwrap(), "offline");
    assert!(retry().is_some());
}
