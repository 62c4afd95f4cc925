//! The Timeline of every subagent run (docs/user-guide.md "The Timeline") drawn
//! in headless Chromium: the props-only panel fed with the view-model core
//! builds from a small session (bars where core put them, states in words, only
//! the rows in view, the curve and its peak, the table, the moves it reports),
//! and the live panel on the app's model (it opens, grows live, and a card's
//! "show in timeline" focuses its bar).
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use serde_json::{json, Value};
use taskview_app::components::timeline::Timeline;
use taskview_app::live::rows::LiveRow;
use taskview_app::live::timeline::{TimelineControl, TimelinePanel};
use taskview_app::live::Live;
use taskview_core::model::event::Event;
use taskview_core::screen::view::timeline::{
    query::TimelineMove, query::TimelineQuery, table::TimelineTable, TimelineView,
};
use taskview_core::screen::viewer::Viewer;
use taskview_core::state::layout::RowKey;
use taskview_testkit::{self as kit, added, turn_started, MessageJson};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

mod support;

use support::mount;
use support::transcript::{settle, wait_ms};

wasm_bindgen_test_configure!(run_in_browser);

/// Subagent `id` launched at second `second` (under `parent`) in `status`.
fn run(id: &str, second: u64, parent: Option<&str>, status: &str, sa: Value) -> Event {
    let v = kit::subagent(id, second, "t", sa).status(status);
    added(match parent {
        Some(p) => v.under(p),
        None => v,
    })
}

fn done(id: &str, second: u64, parent: Option<&str>, seconds: u64) -> Event {
    run(
        id,
        second,
        parent,
        "complete",
        json!({"subagent_type": "code-reviewer", "description": format!("pass {id}"),
            "status": "completed", "duration_ms": seconds * 1000, "total_tokens": 48213}),
    )
}

/// Two reviewers in parallel (one with a nested explorer), a failed tester,
/// a cancelled one, a background researcher still going and a running one.
fn wave() -> Vec<Event> {
    vec![
        turn_started("t"),
        added(kit::user("u", 0, "t", "Review the change.")),
        done("a", 1, None, 60),
        done("a1", 5, Some("a"), 20),
        done("b", 1, None, 30),
        run(
            "f",
            40,
            None,
            "error",
            json!({"subagent_type": "test-supervisor", "status": "failed", "duration_ms": 10000}),
        ),
        run(
            "c",
            45,
            None,
            "cancelled",
            json!({"subagent_type": "explorer", "status": "cancelled", "duration_ms": 5000}),
        ),
        run(
            "bg",
            50,
            None,
            "complete",
            json!({"subagent_type": "researcher", "status": "async_launched", "is_async": true}),
        ),
        run(
            "r",
            55,
            None,
            "in_progress",
            json!({"subagent_type": "code-reviewer", "status": "started"}),
        ),
        added(kit::child("r-1", 58, "t", "r")),
    ]
}

fn viewer() -> Viewer {
    let mut v = Viewer::new();
    v.tick(0);
    v.apply(wave());
    v
}

fn all(host: &web_sys::HtmlElement, selector: &str) -> Vec<web_sys::Element> {
    let list = host.query_selector_all(selector).unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|n| n.unchecked_into())
        .collect()
}

fn one(host: &web_sys::HtmlElement, selector: &str) -> web_sys::HtmlElement {
    host.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("{selector}: {}", host.inner_html()))
        .unchecked_into()
}

fn attr(el: &web_sys::Element, name: &str) -> String {
    el.get_attribute(name).unwrap_or_default()
}

fn bar(host: &web_sys::HtmlElement, id: &str) -> web_sys::HtmlElement {
    one(host, &format!("[data-testid=timeline-bar][data-id={id}]"))
}

fn key(target: &web_sys::EventTarget, key: &str) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&ev).unwrap();
}

/// What the panel reported, in order (`Debug` of each move).
#[derive(Clone, Copy)]
struct Reported(RwSignal<Vec<String>>);

impl Reported {
    fn on_move(self) -> Callback<TimelineMove> {
        Callback::new(move |mv: TimelineMove| {
            if !matches!(mv, TimelineMove::Rows(..) | TimelineMove::Width(_)) {
                self.0.update(|v| v.push(format!("{mv:?}")));
            }
        })
    }

    fn take(self) -> Vec<String> {
        self.0.try_update(std::mem::take).unwrap_or_default()
    }
}

/// Mounts the props-only panel on `view` (and `table`).
fn mount_panel(
    view: TimelineView,
    table: Option<TimelineTable>,
) -> (web_sys::HtmlElement, impl Drop, Reported) {
    let reported = Reported(RwSignal::new(Vec::new()));
    let on_move = reported.on_move();
    let (host, handle) = mount(move || {
        view! {
            <Timeline view=Signal::stored(view) table=Signal::stored(table) packed=Signal::stored(false) on_move />
        }
        .into_any()
    });
    (host, handle, reported)
}

#[wasm_bindgen_test]
async fn bars_are_drawn_where_core_puts_them_one_row_per_run_nested_under_their_parent() {
    let mut v = viewer();
    let view = v.timeline(&TimelineQuery {
        width: 800,
        ..TimelineQuery::default()
    });
    let (host, _handle, _) = mount_panel(view.clone(), None);
    settle().await;
    let lanes: Vec<(String, String)> = all(&host, "[data-testid=timeline-lane]")
        .iter()
        .map(|l| {
            (
                attr(l, "data-row"),
                l.get_attribute("class").unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(lanes.len(), 7);
    assert!(lanes[1].1.contains("depth-1"), "a1 is nested under a");
    for lane in &view.lanes {
        for b in &lane.bars {
            let el = bar(&host, &b.id);
            let style = el.style();
            assert_eq!(
                style.get_property_value("left").unwrap(),
                format!("{}px", b.x),
                "{}",
                b.id
            );
            assert_eq!(
                style.get_property_value("width").unwrap(),
                format!("{}px", b.w),
                "{}",
                b.id
            );
            assert_eq!(attr(&el, "href"), format!("#msg-{}", b.id));
            assert_eq!(attr(&el, "aria-label"), *b.label);
        }
    }
    let geometry = |id: &str| {
        let b = view
            .lanes
            .iter()
            .flat_map(|l| &l.bars)
            .find(|b| b.id == id)
            .unwrap();
        (b.x, b.w)
    };
    let ((ax, aw), (bx, bw)) = (geometry("a"), geometry("b"));
    assert_eq!(ax, bx, "launched together");
    assert!(
        (aw - 2 * bw).abs() <= 1,
        "a ran twice as long as b: {aw} {bw}"
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn failed_cancelled_background_and_running_runs_look_different_and_say_so() {
    let mut v = viewer();
    let view = v.timeline(&TimelineQuery::default());
    let (host, _handle, _) = mount_panel(view, None);
    settle().await;
    let looks = |id: &str| {
        let el = bar(&host, id);
        (
            attr(&el, "data-status"),
            attr(&el, "data-state"),
            // What it shows.
            el.text_content().unwrap_or_default(),
        )
    };
    let (status, _, text) = looks("f");
    assert_eq!(status, "failed");
    assert!(text.ends_with("failed"), "{text}");
    let (status, _, text) = looks("c");
    assert_eq!(status, "cancelled");
    assert!(text.ends_with("cancelled"), "{text}");
    let (status, state, text) = looks("bg");
    assert_eq!((status.as_str(), state.as_str()), ("running", "background"));
    assert!(text.ends_with("background · running"), "{text}");
    assert!(
        host.query_selector("[data-testid=timeline-launch]")
            .unwrap()
            .is_some(),
        "its launching call is a mark of its own"
    );
    let (status, _, text) = looks("r");
    assert_eq!(status, "running");
    assert!(text.ends_with("running"), "{text}");
    assert!(bar(&host, "r").class_list().contains("open"));
    let (status, _, text) = looks("a");
    assert_eq!(status, "complete");
    assert!(!text.contains("running") && !text.contains("failed"));
    host.remove();
}

#[wasm_bindgen_test]
async fn the_curve_its_peak_and_the_parent_s_turns_are_drawn() {
    let mut v = viewer();
    let view = v.timeline(&TimelineQuery::default());
    let (host, _handle, _) = mount_panel(view.clone(), None);
    settle().await;
    let curve = one(&host, "[data-testid=timeline-curve] polyline");
    assert_eq!(attr(&curve, "points"), *view.curve);
    assert!(!view.curve.is_empty());
    let peak = one(&host, "[data-testid=timeline-peak]");
    assert_eq!(peak.text_content().as_deref(), Some("peak 3"));
    let turn = one(&host, "[data-testid=timeline-turns] .tl-turn");
    assert_eq!(attr(&turn, "d"), view.turns_path);
    assert_eq!(
        one(&host, "[data-testid=timeline-heading]")
            .text_content()
            .as_deref(),
        Some("7 runs · at most 3 at once")
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn only_the_rows_in_view_are_in_the_dom() {
    let mut v = viewer();
    let view = v.timeline(&TimelineQuery {
        first_row: 2,
        rows: 3,
        ..TimelineQuery::default()
    });
    assert_eq!(view.rows_total, 7);
    let (host, _handle, _) = mount_panel(view, None);
    settle().await;
    let rows: Vec<String> = all(&host, "[data-testid=timeline-lane]")
        .iter()
        .map(|l| attr(l, "data-row"))
        .collect();
    assert_eq!(rows, ["2", "3", "4"]);
    let spacer = one(&host, ".tl-spacer");
    assert_eq!(
        spacer.style().get_property_value("height").unwrap(),
        "196px"
    );
    host.remove();
}

/// A packed row of 200 one-second runs, one every two seconds.
fn crowded_row() -> Viewer {
    let mut v = Viewer::new();
    v.tick(0);
    v.apply([turn_started("t"), added(kit::user("u", 0, "t", "Go."))]);
    v.apply((0..200).map(|k| done(&format!("r{k:03}"), 1 + 2 * k, None, 1)));
    v
}

#[wasm_bindgen_test]
async fn runs_too_close_to_draw_apart_are_a_cluster_that_counts_them_and_zooms_in() {
    let mut v = crowded_row();
    let view = v.timeline(&TimelineQuery {
        packed: true,
        ..TimelineQuery::default()
    });
    let (first_span, first_runs) = {
        let c = &view.lanes[0].clusters[0];
        (c.span, c.runs)
    };
    let (host, _handle, reported) = mount_panel(view, None);
    settle().await;
    let clusters = all(&host, "[data-testid=timeline-cluster]");
    let bars = all(&host, "[data-testid=timeline-bar]");
    let counted: usize = clusters
        .iter()
        .map(|c| {
            c.text_content()
                .unwrap_or_default()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(
        counted + bars.len(),
        200,
        "every run is a bar or counted in a cluster"
    );
    assert!(
        clusters.len() + bars.len() <= 27,
        "{} drawn for 200 runs",
        clusters.len() + bars.len()
    );
    let first: web_sys::HtmlElement = clusters[0].clone().unchecked_into();
    assert_eq!(first.text_content().unwrap(), first_runs.to_string());
    let label = attr(&first, "aria-label");
    assert!(
        label.starts_with(&format!("{first_runs} runs, 0:01 to "))
            && label.ends_with("zoom in to see each"),
        "{label}"
    );
    assert!(first.offset_width() >= 20, "wide enough to read its count");
    first.click();
    settle().await;
    assert_eq!(
        reported.take(),
        [format!("Span({}, {})", first_span.0, first_span.1)]
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn the_panel_reports_keys_choices_zoom_and_closing() {
    let mut v = viewer();
    let view = v.timeline(&TimelineQuery::default());
    let (host, _handle, reported) = mount_panel(view, None);
    settle().await;
    let lanes = one(&host, "[data-testid=timeline-lanes]");
    key(&lanes, "ArrowDown");
    key(&lanes, "End");
    key(&lanes, "x");
    bar(&host, "b").click();
    one(&host, "[data-testid=timeline-zoom-in]").click();
    one(&host, "[data-testid=timeline-whole]").click();
    one(&host, "button.tl-toggle").click();
    key(&one(&host, "[data-testid=timeline]"), "Escape");
    settle().await;
    assert_eq!(
        reported.take(),
        [
            "Key(Down)",
            "Key(End)",
            "Choose(\"b\")",
            "Zoom(None, true)",
            "Whole",
            "Toggle(\"a\")",
            "Close"
        ]
    );
    // Tab reaches the first bar; the others are reached with the arrows.
    let stops: Vec<String> = all(&host, "[data-testid=timeline-bar][tabindex='0']")
        .iter()
        .map(|b| attr(b, "data-id"))
        .collect();
    assert_eq!(stops, ["a"]);
    host.remove();
}

#[wasm_bindgen_test]
async fn the_table_lists_the_runs_with_their_figures_under_column_headers() {
    let mut v = viewer();
    let table = v.timeline_table(0);
    let view = v.timeline(&TimelineQuery::default());
    let (host, _handle, reported) = mount_panel(view, Some(table));
    settle().await;
    let headers: Vec<String> = all(&host, "[data-testid=timeline-table] thead th")
        .iter()
        .map(|h| h.text_content().unwrap_or_default())
        .collect();
    assert_eq!(
        headers,
        [
            "Run",
            "Start",
            "End",
            "Duration",
            "Status",
            "Tokens",
            "Critical path"
        ]
    );
    let first: Vec<String> = all(
        &host,
        "[data-testid=timeline-row]:first-child th, [data-testid=timeline-row]:first-child td",
    )
    .iter()
    .map(|c| c.text_content().unwrap_or_default())
    .collect();
    assert_eq!(
        first,
        [
            "code-reviewer: pass a",
            "0:01",
            "1:01",
            "1m 00s",
            "done",
            "48.2k tokens, 96.4k with nested",
            "no"
        ]
    );
    // The running reviewer set the end of the turn's wave (all the others
    // are in it), and a1 the end of a's.
    let critical: Vec<String> = all(&host, "[data-testid=timeline-row] td:last-child")
        .iter()
        .map(|c| c.text_content().unwrap_or_default())
        .filter(|c| c.starts_with("yes"))
        .collect();
    assert_eq!(
        critical.len(),
        2,
        "a's nested run and the turn's last: {critical:?}"
    );
    assert_eq!(all(&host, "[data-testid=timeline-row]").len(), 7);
    assert!(one(&host, "[data-testid=timeline-next]").has_attribute("disabled"));
    one(&host, "[data-testid=timeline-table-toggle]").click();
    settle().await;
    assert_eq!(reported.take(), ["Table(false)"]);
    host.remove();
}

/// The app's model with `events`, the live panel and the cards of
/// `cards`, under one timeline control (as on a transcript page).
fn mount_live(
    events: Vec<Event>,
    cards: &[&str],
) -> (web_sys::HtmlElement, impl Drop, Live, TimelineControl) {
    let live = Live::new();
    live.apply(events);
    let control = StoredValue::new(None::<TimelineControl>);
    let in_view = live.clone();
    let cards: Vec<RowKey> = cards
        .iter()
        .map(|c| RowKey::Message(c.to_string()))
        .collect();
    let (host, handle) = mount(move || {
        provide_context(in_view);
        let timeline = TimelineControl::provide();
        control.set_value(Some(timeline));
        view! {
            <TimelinePanel control=timeline />
            {cards.into_iter().map(|row_key| view! { <LiveRow row_key /> }).collect_view()}
        }
        .into_any()
    });
    let control = control.get_value().expect("provided");
    (host, handle, live, control)
}

#[wasm_bindgen_test]
async fn the_live_panel_opens_grows_with_new_runs_and_closes_free() {
    let (host, _handle, live, control) = mount_live(wave(), &[]);
    settle().await;
    assert!(host
        .query_selector("[data-testid=timeline]")
        .unwrap()
        .is_none());
    control.open.set(true);
    // The panel re-reads the model at most every 200 ms.
    wait_ms(250).await;
    assert_eq!(all(&host, "[data-testid=timeline-bar]").len(), 7);
    live.apply([done("d", 70, None, 5)]);
    wait_ms(250).await;
    let ids: Vec<String> = all(&host, "[data-testid=timeline-bar]")
        .iter()
        .map(|b| attr(b, "data-id"))
        .collect();
    assert_eq!(ids.last().map(String::as_str), Some("d"), "{ids:?}");
    assert_eq!(live.timeline_snapshot().runs.len(), 8);
    control.open.set(false);
    settle().await;
    assert!(host
        .query_selector("[data-testid=timeline]")
        .unwrap()
        .is_none());
    host.remove();
}

#[wasm_bindgen_test]
async fn a_card_s_show_in_timeline_opens_the_panel_on_its_bar_focused() {
    let (host, _handle, _live, _control) = mount_live(wave(), &["b"]);
    settle().await;
    one(
        &host,
        "[data-testid=subagent-card] [data-testid=show-in-timeline]",
    )
    .click();
    wait_ms(250).await;
    let focused = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .map(|e| (attr(&e, "data-testid"), attr(&e, "data-id")));
    assert_eq!(focused, Some(("timeline-bar".into(), "b".into())));
    host.remove();
}
