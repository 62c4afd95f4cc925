//! Shared by the browser tests: mounting a view into a fresh element, the
//! mounted transcript, and the review-wave payload several tests start from.
//! Message builders and fixtures come from `taskview_testkit`.
#![allow(dead_code)] // each test binary uses its own subset

pub mod transcript;

use leptos::prelude::*;
use serde_json::{json, Value};
use wasm_bindgen::JsCast;

/// Mounts `view` into a new `<section>` in the body; returns the section and
/// the handle that unmounts the view when dropped.
pub fn mount(view: impl FnOnce() -> AnyView + 'static) -> (web_sys::HtmlElement, impl Drop) {
    let document = document();
    let host: web_sys::HtmlElement = document.create_element("section").unwrap().unchecked_into();
    document.body().unwrap().append_child(&host).unwrap();
    let handle = mount_to(host.clone(), view);
    (host, handle)
}

/// A settled code-reviewer payload with every chip's data and `result`.
pub fn reviewer(result: &str) -> Value {
    json!({"subagent_type": "code-reviewer", "description": "Code-reviewer pass over the diff",
        "prompt": "Review the diff.", "status": "completed", "result_text": result,
        "duration_ms": 243117, "total_tokens": 48213, "tool_use_count": 2,
        "model": "claude-opus-4-8[1m]"})
}
