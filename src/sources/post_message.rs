//! Messages pushed into an embedded view by its host page (the embed contract):
//! `window.postMessage({taskview: "append", messages: [<kandev message>…]}, "*")`
//! from the parent frame (or the page itself) appends or merges them, exactly
//! like live `session.message.added` events.

use crate::live::Live;
use leptos::prelude::*;
use serde_json::Value;
use taskview_core::import::kandev;

/// The `taskview` field that marks an append request.
pub const APPEND: &str = "append";

/// Listens for append requests while the calling component is mounted;
/// `on_append` runs after each accepted batch.
pub fn listen(live: Live, on_append: impl Fn() + 'static) {
    let handle = window_event_listener(leptos::ev::message, move |ev: web_sys::MessageEvent| {
        if !from_host(&ev) {
            return;
        }
        let Ok(text) = js_sys::JSON::stringify(&ev.data()) else {
            return;
        };
        let Some(text) = text.as_string() else { return };
        let Ok(request) = serde_json::from_str::<Value>(&text) else {
            return;
        };
        if request.get("taskview").and_then(Value::as_str) != Some(APPEND) {
            return;
        }
        if let Ok(events) = kandev::from_value(&request) {
            live.apply(events);
            on_append();
        }
    });
    on_cleanup(move || handle.remove());
}

/// Only the page itself or the page embedding it may push messages.
fn from_host(ev: &web_sys::MessageEvent) -> bool {
    let Some(source) = ev.source() else {
        return false;
    };
    let win = window();
    let source: &wasm_bindgen::JsValue = source.as_ref();
    let is = |other: Option<web_sys::Window>| {
        other.is_some_and(|w| {
            let w: &wasm_bindgen::JsValue = w.as_ref();
            source == w
        })
    };
    is(Some(win.clone())) || is(win.parent().ok().flatten())
}
