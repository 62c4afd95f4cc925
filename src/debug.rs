//! Test hooks, installed only when the page URL has `?debug` (end-to-end
//! tests open pages that way): `window.__taskview` with
//!
//! - `rowSummary()`: the transcript as text lines (`core::view::summary`),
//!   so a test can compare whole runs without scrolling a virtualized list;
//! - `frameIssues()`: unusable frames counted per kind;
//! - `connection()`: the indicator's text;
//! - `opens()`: how many times the socket opened (1 + reconnects);
//! - `memory()`: `{wasmBytes, heldRows, entries}`: the wasm memory's size,
//!   how many rows hold a trigger (mounted rows) and how many entries the
//!   store holds, for the benchmark;
//! - `embedIgnored()`: `{notParent, origin, unknown}`, the host messages the
//!   embed contract ignored, by reason (`crate::embed`);
//! - `stages()`: `{stage: {ms, calls}}`, the wall time of each stage of the
//!   live path since the last `resetStages()` (`crate::live::stages`, for
//!   `make bench`).
//! - `timeline()`: `{runs, peak}`, the Timeline's runs (docs/user-guide.md "The Timeline"), each
//!   `{id, lane, depth, start_ms, end_ms, status, critical}` (`id` the card's
//!   message id, `end_ms` null while it runs), and the most that ran at once.
//!
//! They only read (`resetStages()` starts the bench's totals again).

use crate::live::Live;
use crate::sources::ws::Connection;
use js_sys::{Array, Object, Reflect};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Installs the hooks when the page was opened with `?debug`.
pub fn install_if_asked(live: Live, connection: Connection) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let asked = window
        .location()
        .search()
        .ok()
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .is_some_and(|p| p.has("debug"));
    if !asked {
        return;
    }
    let hooks = Object::new();
    let held = live.clone();
    let timeline = {
        let live = live.clone();
        Closure::<dyn Fn() -> Object>::new(move || timeline_object(&live))
    };
    let row_summary = Closure::<dyn Fn() -> Array>::new(move || {
        live.row_summary().into_iter().map(JsValue::from).collect()
    });
    let frame_issues = {
        let connection = connection.clone();
        Closure::<dyn Fn() -> Object>::new(move || {
            let counts = Object::new();
            for (kind, count) in connection.issue_counts() {
                // Setting a plain property on a fresh object cannot fail.
                let _ = Reflect::set(&counts, &kind.into(), &(count as f64).into());
            }
            counts
        })
    };
    let status = {
        let connection = connection.clone();
        Closure::<dyn Fn() -> String>::new(move || connection.status().get_untracked().label())
    };
    let opens = Closure::<dyn Fn() -> f64>::new(move || connection.open_count() as f64);
    let memory = Closure::<dyn Fn() -> Object>::new(move || {
        let bytes = wasm_bindgen::memory()
            .unchecked_into::<js_sys::WebAssembly::Memory>()
            .buffer()
            .unchecked_into::<js_sys::ArrayBuffer>()
            .byte_length();
        let out = Object::new();
        let _ = Reflect::set(&out, &"wasmBytes".into(), &f64::from(bytes).into());
        let _ = Reflect::set(&out, &"heldRows".into(), &(held.held_rows() as f64).into());
        let _ = Reflect::set(&out, &"entries".into(), &(held.entries() as f64).into());
        out
    });
    let embed_ignored = Closure::<dyn Fn() -> Object>::new(|| {
        let out = Object::new();
        let names = ["notParent", "origin", "unknown"];
        for (name, count) in names.into_iter().zip(crate::embed::ignored_counts()) {
            let _ = Reflect::set(&out, &name.into(), &f64::from(count).into());
        }
        out
    });
    crate::live::stages::enable();
    let stages = Closure::<dyn Fn() -> Object>::new(|| stage_totals(false));
    let reset_stages = Closure::<dyn Fn() -> Object>::new(|| stage_totals(true));
    let entries: [(&str, JsValue); 9] = [
        ("rowSummary", row_summary.into_js_value()),
        ("frameIssues", frame_issues.into_js_value()),
        ("connection", status.into_js_value()),
        ("opens", opens.into_js_value()),
        ("memory", memory.into_js_value()),
        ("embedIgnored", embed_ignored.into_js_value()),
        ("stages", stages.into_js_value()),
        ("resetStages", reset_stages.into_js_value()),
        ("timeline", timeline.into_js_value()),
    ];
    for (name, function) in entries {
        let _ = Reflect::set(&hooks, &name.into(), &function);
    }
    let _ = Reflect::set(&window, &"__taskview".into(), &hooks);
}

/// `{stage: {ms, calls}}` of the stage clock; starts it again when `reset`.
fn stage_totals(reset: bool) -> Object {
    let out = Object::new();
    for (stage, ms, calls) in crate::live::stages::totals(reset) {
        let one = Object::new();
        let _ = Reflect::set(&one, &"ms".into(), &ms.into());
        let _ = Reflect::set(&one, &"calls".into(), &f64::from(calls).into());
        let _ = Reflect::set(&out, &stage.into(), &one);
    }
    out
}

/// The Timeline's runs and peak as a plain object (`timeline()`).
fn timeline_object(live: &Live) -> Object {
    let snapshot = live.timeline_snapshot();
    let runs: Array = snapshot
        .runs
        .iter()
        .map(|r| {
            let run = Object::new();
            let fields: [(&str, JsValue); 7] = [
                ("id", r.id.as_str().into()),
                ("lane", (r.lane as f64).into()),
                ("depth", (r.depth as f64).into()),
                ("start_ms", (r.start_ms as f64).into()),
                (
                    "end_ms",
                    r.end_ms.map_or(JsValue::NULL, |e| (e as f64).into()),
                ),
                ("status", r.status.into()),
                ("critical", r.critical.into()),
            ];
            for (name, value) in fields {
                let _ = Reflect::set(&run, &name.into(), &value);
            }
            JsValue::from(run)
        })
        .collect();
    let out = Object::new();
    let _ = Reflect::set(&out, &"runs".into(), &runs);
    let _ = Reflect::set(&out, &"peak".into(), &f64::from(snapshot.peak).into());
    out
}
