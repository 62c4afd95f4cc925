//! The benchmark's stage clock (issue 25): wall time spent in each stage of
//! the live path (store and layout, row views, the list window, roster,
//! search, clock, announcer), read by `make bench` through the `?debug`
//! hooks. Off unless a `?debug` page turned it on: then a stage costs one
//! thread-local look and no clock read.

use std::cell::RefCell;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Per stage: milliseconds and calls since the last reset.
type Totals = BTreeMap<&'static str, (f64, u32)>;

thread_local! {
    static TOTALS: RefCell<Option<Totals>> = const { RefCell::new(None) };
}

/// Starts the clock (the `?debug` hooks do).
pub fn enable() {
    TOTALS.with(|t| *t.borrow_mut() = Some(Totals::new()));
}

/// Runs `work` as part of `stage`, timed when the clock runs. Stages do not
/// nest: time inside an inner stage would count twice.
pub fn timed<R>(stage: &'static str, work: impl FnOnce() -> R) -> R {
    let enabled = TOTALS.with(|t| t.borrow().is_some());
    if !enabled {
        return work();
    }
    let start = performance_now();
    let out = work();
    let ms = performance_now() - start;
    TOTALS.with(|t| {
        if let Some(totals) = t.borrow_mut().as_mut() {
            let entry = totals.entry(stage).or_default();
            entry.0 += ms;
            entry.1 += 1;
        }
    });
    out
}

/// The totals since the last reset, and starts them again when `reset`.
pub fn totals(reset: bool) -> Vec<(&'static str, f64, u32)> {
    TOTALS.with(|t| {
        let mut t = t.borrow_mut();
        let Some(totals) = t.as_mut() else {
            return Vec::new();
        };
        let out = totals.iter().map(|(s, (ms, n))| (*s, *ms, *n)).collect();
        if reset {
            totals.clear();
        }
        out
    })
}
