//! The benchmark's stage clock (docs/behaviour.md §10): wall time spent in each stage of
//! the live path, read by `make bench` through the `?debug` hooks. Off unless
//! a `?debug` page turned it on: then a stage costs one thread-local look
//! and no clock read.

use std::cell::RefCell;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// A stage of the live path.
#[derive(Clone, Copy)]
pub enum Stage {
    /// A WebSocket frame read into events (JSON parse and protocol decode).
    Decode,
    /// `Viewer::apply`: the store, the layout and what they tell the panels.
    Apply,
    /// Row view-models read by mounted rows.
    Rows,
    /// The transcript's window of rows.
    Window,
    /// The roster read (its changed entries, its order, its rows on screen).
    Roster,
    /// The search index and count.
    Search,
    /// The viewer's clock tick.
    Clock,
    /// The live region's announcement of settled subagents.
    Announce,
    /// A board by state read: its counts, its columns' windows, its cards' words.
    Board,
}

/// The stages' names, in [`Stage`] order.
const NAMES: [&str; 9] = [
    "decode", "apply", "rows", "window", "roster", "search", "clock", "announce", "board",
];

/// Per stage: milliseconds and calls since the last reset.
type Totals = [(f64, u32); NAMES.len()];

thread_local! {
    static TOTALS: RefCell<Option<Totals>> = const { RefCell::new(None) };
}

/// Starts the clock (the `?debug` hooks do).
pub fn enable() {
    TOTALS.with(|t| *t.borrow_mut() = Some(Totals::default()));
}

/// Runs `work` as part of `stage`, timed when the clock runs. Stages do not
/// nest: time inside an inner stage would count twice.
pub fn timed<R>(stage: Stage, work: impl FnOnce() -> R) -> R {
    let enabled = TOTALS.with(|t| t.borrow().is_some());
    if !enabled {
        return work();
    }
    let start = performance_now();
    let out = work();
    let ms = performance_now() - start;
    TOTALS.with(|t| {
        if let Some(totals) = t.borrow_mut().as_mut() {
            let entry = &mut totals[stage as usize];
            entry.0 += ms;
            entry.1 += 1;
        }
    });
    out
}

/// `(stage, ms, calls)` of the stages that ran since the last reset, and
/// starts them again when `reset`.
pub fn totals(reset: bool) -> Vec<(&'static str, f64, u32)> {
    TOTALS.with(|t| {
        let mut t = t.borrow_mut();
        let Some(totals) = t.as_mut() else {
            return Vec::new();
        };
        let out = NAMES
            .iter()
            .zip(totals.iter())
            .filter(|(_, (_, calls))| *calls > 0)
            .map(|(name, (ms, calls))| (*name, *ms, *calls))
            .collect();
        if reset {
            *totals = Totals::default();
        }
        out
    })
}
