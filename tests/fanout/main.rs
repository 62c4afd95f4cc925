//! docs/behaviour.md §8 components mounted alone in headless Chromium, each fed with
//! view-models core builds from a small session: the roster, the search box,
//! the board chip's drill-down, and the card's lifecycle marker and token
//! figures.
//!
//! One test binary; each part of the fan-out has its own file.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use taskview_app::components::board::{ChipDrillDown, TaskCardView};
use taskview_app::components::card::SubagentCard;
use taskview_app::components::chip_popover::ChipPopover;
use taskview_app::components::roster::Roster;
use taskview_app::components::search::TranscriptSearch;
use taskview_core::model::board::Task;
use taskview_core::model::event::Event;
use taskview_core::screen::view::board::{subagent_chip, task_status, SubagentActivity, TaskCard};
use taskview_core::screen::view::drilldown::DrillDownView;
use taskview_core::screen::view::roster::{
    RosterFilter, RosterQuery, RosterRows, RosterSort, ROSTER_ROW_PX,
};
use taskview_core::screen::view::row::{CardRowView, RowContext, RowFrame, Toggles};
use taskview_core::screen::viewer::fanout::FanOut;
use taskview_core::state::layout::{Layout, RowKey};
use taskview_core::state::store::Store;
use taskview_testkit::{self as kit, added, turn_started, MessageJson};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

#[path = "../support/mod.rs"]
mod support;

use support::mount;
use support::transcript::{frames, settle};

wasm_bindgen_test_configure!(run_in_browser);

const MINUTE: i64 = 60_000;

/// Subagent `id` at second `second`, nested under `parent` when given.
fn subagent(id: &str, second: u64, parent: Option<&str>, status: &str, sa: Value) -> Event {
    let v = kit::subagent(id, second, "t", sa).status(status);
    added(match parent {
        Some(p) => v.under(p),
        None => v,
    })
}

fn child(id: &str, second: u64, parent: &str) -> Event {
    added(kit::child(id, second, "t", parent).titled(&format!("Read {id}.rs")))
}

/// A wave: a reviewer with a nested explorer, a failed tester, a background
/// researcher and a running one.
fn wave() -> Vec<Event> {
    vec![
        turn_started("t"),
        subagent(
            "rev",
            1,
            None,
            "complete",
            json!({"subagent_type": "code-reviewer",
            "description": "the closure diff", "status": "completed", "total_tokens": 48213,
            "duration_ms": 90278, "model": "claude-opus-4-8", "result_text": "APPROVE"}),
        ),
        subagent(
            "exp",
            2,
            Some("rev"),
            "complete",
            json!({"subagent_type": "explorer",
            "description": "find callers", "status": "completed", "total_tokens": 12787}),
        ),
        subagent(
            "tst",
            3,
            None,
            "error",
            json!({"subagent_type": "test-supervisor",
            "description": "invariant tests", "status": "failed", "total_tokens": 9000}),
        ),
        subagent(
            "bg",
            4,
            None,
            "complete",
            json!({"subagent_type": "researcher",
            "description": "prior art", "status": "async_launched", "is_async": true}),
        ),
        subagent(
            "run",
            5,
            None,
            "in_progress",
            json!({"subagent_type": "code-reviewer",
            "description": "the retry path", "status": "started"}),
        ),
        child("run-1", 6, "run"),
    ]
}

/// Store, layout and fan-out state after `events`, at viewer time `now`.
struct Model {
    store: Store,
    layout: Layout,
    fanout: FanOut,
}

impl Model {
    fn new(events: Vec<Event>, now: i64) -> Model {
        let mut store = Store::new();
        let changes = store.apply_all(events);
        let mut layout = Layout::new();
        let diff = layout.update(&store, &changes);
        let mut fanout = FanOut::new();
        fanout.record(&store, &layout, &changes, &diff, now);
        Model {
            store,
            layout,
            fanout,
        }
    }

    fn card(&self, id: &str) -> CardRowView {
        let toggles = Toggles::new();
        let settled = Default::default();
        let context = RowContext {
            store: &self.store,
            layout: &self.layout,
            toggles: &toggles,
            settled: &settled,
            clock: Some(self.fanout.clock()),
            highlight: self.fanout.highlight(),
        };
        context
            .row(&RowKey::Message(id.into()))
            .and_then(|r| r.card().cloned())
            .expect("a card")
    }
}

fn all(host: &web_sys::HtmlElement, selector: &str) -> Vec<web_sys::Element> {
    let list = host.query_selector_all(selector).unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|n| n.unchecked_into())
        .collect()
}

fn attr(el: &web_sys::Element, name: &str) -> String {
    el.get_attribute(name).unwrap_or_default()
}

fn one(host: &web_sys::HtmlElement, selector: &str) -> web_sys::HtmlElement {
    host.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("{selector}"))
        .unchecked_into()
}

fn key(target: &web_sys::EventTarget, key: &str, shift: bool) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(key);
    init.set_shift_key(shift);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&ev).unwrap();
}

mod board;
mod cards;
mod roster;
mod search;
mod telemetry;
