//! SPEC.md §8 components mounted alone in headless Chromium, each fed with
//! view-models core builds from a small session: the roster, the search box,
//! the board chip's drill-down, and the card's lifecycle marker and token
//! figures.
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
use taskview_core::screen::fanout::FanOut;
use taskview_core::screen::view::board::{subagent_chip, task_status, SubagentActivity, TaskCard};
use taskview_core::screen::view::drilldown::DrillDownView;
use taskview_core::screen::view::roster::{
    RosterFilter, RosterQuery, RosterRows, RosterSort, ROSTER_ROW_PX,
};
use taskview_core::screen::view::row::{CardRowView, RowContext, RowFrame, Toggles};
use taskview_core::state::layout::{Layout, RowKey};
use taskview_core::state::store::Store;
use taskview_testkit::{self as kit, added, turn_started, MessageJson};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

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

/// What a mounted roster's buttons call; nothing unless a test says.
struct RosterActions {
    filter: Callback<RosterFilter>,
    sort: Callback<RosterSort>,
    choose: Callback<String>,
    close: Callback<()>,
}

impl Default for RosterActions {
    fn default() -> Self {
        RosterActions {
            filter: Callback::new(|_| ()),
            sort: Callback::new(|_| ()),
            choose: Callback::new(|_| ()),
            close: Callback::new(|()| ()),
        }
    }
}

/// Mounts `<Roster/>` on `model`'s roster for `query` and the rows its list
/// shows, laid out again when either changes.
fn mount_roster(
    model: &Arc<Mutex<Model>>,
    query: Signal<RosterQuery>,
    actions: RosterActions,
) -> (web_sys::HtmlElement, impl Drop) {
    let model = model.clone();
    mount(move || {
        let rows = RwSignal::new(RosterRows::default());
        let roster = Signal::derive(move || {
            let (query, rows) = (query.get(), rows.get());
            let m = &mut *model.lock().unwrap();
            m.fanout.roster(&m.store, &m.layout, query, rows)
        });
        view! {
            <Roster roster on_filter={actions.filter} on_sort={actions.sort}
                on_rows=Callback::new(move |r| rows.set(r)) on_choose={actions.choose}
                on_close={actions.close} />
        }
        .into_any()
    })
}

/// Card links as the board makes them: `/task/<task>#<anchor>`.
fn task_href() -> Callback<(String, String), String> {
    Callback::new(|(task, anchor): (String, String)| format!("/task/{task}#{anchor}"))
}

#[wasm_bindgen_test]
async fn roster_lists_the_store_s_subagents_filters_sorts_and_chooses() {
    let model = Arc::new(Mutex::new(Model::new(wave(), 0)));
    let filter = RwSignal::new(RosterFilter::All);
    let sort = RwSignal::new(RosterSort::Start);
    let chosen = RwSignal::new(None::<String>);
    let closed = RwSignal::new(0);
    let (host, _handle) = mount_roster(
        &model,
        Signal::derive(move || RosterQuery::new(filter.get(), sort.get())),
        RosterActions {
            filter: Callback::new(move |f| filter.set(f)),
            sort: Callback::new(move |s| sort.set(s)),
            choose: Callback::new(move |id| chosen.set(Some(id))),
            close: Callback::new(move |()| closed.update(|n| *n += 1)),
        },
    );
    settle().await;
    let rows = |host: &web_sys::HtmlElement| -> Vec<(String, String)> {
        all(host, "[data-testid=roster-item]")
            .iter()
            .map(|el| (attr(el, "data-id"), attr(el, "data-depth")))
            .collect()
    };
    // SPEC.md §8: every subagent, nested ones under their parent, in start order.
    assert_eq!(
        rows(&host),
        [
            ("rev".into(), "0".into()),
            ("exp".into(), "1".into()),
            ("tst".into(), "0".into()),
            ("bg".into(), "0".into()),
            ("run".into(), "0".into()),
        ]
    );
    let status = |host: &web_sys::HtmlElement, id: &str| {
        one(
            host,
            &format!("[data-testid=roster-item][data-id={id}] [data-testid=roster-status]"),
        )
        .text_content()
        .unwrap_or_default()
    };
    assert_eq!(status(&host, "bg"), "background · running");
    assert_eq!(status(&host, "tst"), "failed");
    let link = one(&host, "[data-id=rev] a");
    assert_eq!(attr(&link, "href"), "#msg-rev");
    assert_eq!(
        attr(&link, "aria-label"),
        "code-reviewer: the closure diff, done, 1m 30s · 48.2k tokens · claude-opus-4-8, APPROVE"
    );
    let figures = one(&host, "[data-id=rev] .roster-figures");
    assert_eq!(
        figures.text_content().as_deref(),
        Some("1m 30s · 48.2k tokens · claude-opus-4-8")
    );
    let summary = one(&host, "[data-id=rev] .roster-summary");
    assert_eq!(summary.text_content().as_deref(), Some("APPROVE"));

    // Filter: running shows the running ones only.
    one(&host, "button[data-filter=running]").click();
    settle().await;
    let ids: Vec<String> = rows(&host).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["bg", "run"]);
    assert_eq!(
        attr(&one(&host, "button[data-filter=running]"), "aria-pressed"),
        "true"
    );

    // Sort by tokens, all: the biggest spender first.
    one(&host, "button[data-filter=all]").click();
    let select: web_sys::HtmlSelectElement =
        one(&host, "[data-testid=roster-sort]").unchecked_into();
    select.set_value("tokens");
    select
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    let ids: Vec<String> = rows(&host).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["rev", "exp", "tst", "bg", "run"]);
    assert_eq!(sort.get_untracked(), RosterSort::Tokens);

    // Choosing one hands its id over instead of following the bare link.
    let before = web_sys::window().unwrap().location().hash().unwrap();
    one(&host, "[data-id=tst] a").click();
    assert_eq!(chosen.get_untracked().as_deref(), Some("tst"));
    assert_eq!(
        web_sys::window().unwrap().location().hash().unwrap(),
        before
    );

    key(
        &one(&host, "[data-testid=subagent-roster]"),
        "Escape",
        false,
    );
    assert_eq!(closed.get_untracked(), 1);
    host.remove();
}

/// The roster's list styles that matter here (the tests load no stylesheet).
const ROSTER_LIST_STYLE: &str = ".roster-scroll { height: 320px; overflow-y: auto; }";

/// Issue 25, a flat DOM: the roster of a session of many subagents holds only
/// the rows on screen (and a few around them), each knowing its place in the
/// whole list; scrolling brings the others, and the keyboard reaches the
/// end and the start of the whole list.
#[wasm_bindgen_test]
async fn a_long_roster_holds_only_the_rows_on_screen_and_the_keyboard_reaches_every_row() {
    let style = document().create_element("style").unwrap();
    style.set_text_content(Some(ROSTER_LIST_STYLE));
    document().head().unwrap().append_child(&style).unwrap();
    let mut events = vec![turn_started("t")];
    events.extend((0..130).map(|n| {
        subagent(
            &format!("s{n}"),
            n + 1,
            None,
            "complete",
            json!({"status": "completed"}),
        )
    }));
    let model = Arc::new(Mutex::new(Model::new(events, 0)));
    let (host, _handle) = mount_roster(
        &model,
        Signal::derive(RosterQuery::default),
        RosterActions::default(),
    );
    frames(2).await;
    let on_screen = (320.0 / ROSTER_ROW_PX) as usize;
    let items = all(&host, "[data-testid=roster-item]");
    assert!(
        items.len() > on_screen && items.len() <= on_screen + 6,
        "{} rows rendered for {on_screen} on screen",
        items.len()
    );
    assert_eq!(attr(&items[0], "data-id"), "s0");
    assert_eq!(attr(&items[0], "aria-posinset"), "1");
    assert_eq!(attr(&items[0], "aria-setsize"), "130");
    assert_eq!(
        one(&host, "[data-testid=roster-count]")
            .text_content()
            .as_deref(),
        Some("130 subagents")
    );
    let list = one(&host, "[data-testid=roster-list]");
    list.set_scroll_top((100.0 * ROSTER_ROW_PX) as i32);
    frames(2).await;
    let s100 = one(&host, "[data-testid=roster-item][data-id=s100]");
    assert_eq!(attr(&s100, "aria-posinset"), "101");
    assert!(all(&host, "[data-testid=roster-item]").len() <= on_screen + 6);
    assert!(host.query_selector("[data-id=s0]").unwrap().is_none());
    let link: web_sys::HtmlElement = s100.query_selector("a").unwrap().unwrap().unchecked_into();
    link.focus().unwrap();
    key(&link, "End", false);
    frames(2).await;
    let focused = document().active_element().expect("a focused link");
    let row = focused
        .closest("[data-testid=roster-item]")
        .unwrap()
        .unwrap();
    assert_eq!(attr(&row, "data-id"), "s129");
    key(&focused, "Home", false);
    frames(2).await;
    let focused = document().active_element().expect("a focused link");
    let row = focused
        .closest("[data-testid=roster-item]")
        .unwrap()
        .unwrap();
    assert_eq!(attr(&row, "data-id"), "s0");
    key(&focused, "ArrowDown", false);
    frames(1).await;
    let focused = document().active_element().expect("a focused link");
    let row = focused
        .closest("[data-testid=roster-item]")
        .unwrap()
        .unwrap();
    assert_eq!(attr(&row, "data-id"), "s1");
    host.remove();
    style.remove();
}

#[wasm_bindgen_test]
async fn roster_rows_appear_and_settle_live() {
    let model = Arc::new(Mutex::new(Model::new(Vec::new(), 0)));
    let version = RwSignal::new(0);
    let query = Signal::derive(move || {
        version.track();
        RosterQuery::default()
    });
    let (host, _handle) = mount_roster(&model, query, RosterActions::default());
    settle().await;
    assert_eq!(
        one(&host, ".roster-empty").text_content().as_deref(),
        Some("No subagents in this transcript yet")
    );
    let apply = |events: Vec<Event>| {
        let m = &mut *model.lock().unwrap();
        let changes = m.store.apply_all(events);
        let diff = m.layout.update(&m.store, &changes);
        m.fanout.record(&m.store, &m.layout, &changes, &diff, 0);
        version.update(|v| *v += 1);
    };
    apply(wave()[..2].to_vec());
    settle().await;
    assert_eq!(all(&host, "[data-testid=roster-item]").len(), 1);
    apply(vec![subagent(
        "run",
        5,
        None,
        "in_progress",
        json!({"status": "started"}),
    )]);
    settle().await;
    let run = one(&host, "[data-id=run]");
    assert_eq!(attr(&run, "data-status"), "running");
    apply(vec![subagent(
        "run",
        5,
        None,
        "complete",
        json!({"status": "completed"}),
    )]);
    settle().await;
    assert_eq!(
        attr(&one(&host, "[data-id=run]"), "data-status"),
        "complete"
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn search_box_reports_keys_and_the_count_and_slash_focuses_it() {
    let queries = RwSignal::new(Vec::<String>::new());
    let steps = RwSignal::new(Vec::<bool>::new());
    let count = RwSignal::new(String::new());
    let (host, _handle) = mount(move || {
        view! {
            <TranscriptSearch count
                on_query=Callback::new(move |q| queries.update(|v| v.push(q)))
                on_step=Callback::new(move |f| steps.update(|v| v.push(f))) />
        }
        .into_any()
    });
    settle().await;
    let input: web_sys::HtmlInputElement =
        one(&host, "[data-testid=transcript-search]").unchecked_into();
    assert_eq!(attr(&input, "aria-label"), "Search this transcript");
    assert!(host.query_selector("[role=search]").unwrap().is_some());
    // `/` anywhere but in a field focuses the box.
    key(
        &web_sys::window()
            .unwrap()
            .document()
            .unwrap()
            .body()
            .unwrap(),
        "/",
        false,
    );
    let active = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element();
    assert_eq!(
        active.map(|a| attr(&a, "data-testid")).as_deref(),
        Some("transcript-search")
    );
    input.set_value("closure");
    input
        .dispatch_event(&web_sys::Event::new("input").unwrap())
        .unwrap();
    assert_eq!(queries.get_untracked(), ["closure"]);
    key(&input, "Enter", false);
    key(&input, "Enter", true);
    assert_eq!(steps.get_untracked(), [true, false]);
    count.set("3 of 12".into());
    settle().await;
    let shown = one(&host, "[data-testid=search-count]");
    assert_eq!(shown.text_content().as_deref(), Some("3 of 12"));
    assert_eq!(attr(&shown, "role"), "status");
    host.remove();
}

#[wasm_bindgen_test]
async fn the_chip_opens_a_live_drill_down_that_links_to_cards_and_closes_with_escape() {
    let mut model = Model::new(wave(), 0);
    model.fanout.tick(&model.store, &model.layout, 2 * MINUTE);
    let drill_view = model.fanout.drill_down(&model.store, &model.layout);
    assert_eq!(drill_view.items.len(), 2);
    let open = RwSignal::new(None::<String>);
    let drill = RwSignal::new(None::<DrillDownView>);
    let (host, _handle) = mount(move || {
        let drill_down = ChipDrillDown::toggling(open, drill.into(), task_href());
        let card = TaskCard {
            task_id: "task-1".into(),
            title: "Review wave".into(),
            state: "IN_PROGRESS".into(),
            status: None,
            subagent_chip: subagent_chip(Some(2)),
        };
        view! { <TaskCardView card href="/task/task-1".into() drill_down /> }.into_any()
    });
    settle().await;
    let chip = one(&host, "[data-testid=task-subagent-count]");
    // The chip stays the SPEC.md §5 chip, as a button.
    assert_eq!(chip.tag_name(), "BUTTON");
    assert_eq!(attr(&chip, "aria-label"), "2 subagents running");
    assert_eq!(chip.text_content().as_deref(), Some("2"));
    assert_eq!(attr(&chip, "aria-expanded"), "false");
    assert!(host
        .query_selector("[data-testid=board-chip-popover]")
        .unwrap()
        .is_none());
    chip.click();
    settle().await;
    assert_eq!(attr(&chip, "aria-expanded"), "true");
    let popover = one(&host, "[data-testid=board-chip-popover]");
    assert_eq!(attr(&popover, "role"), "dialog");
    let loading = popover.text_content().unwrap_or_default();
    assert!(loading.contains("Loading…"), "{loading}");
    drill.set(Some(drill_view));
    settle().await;
    let items = all(&host, "[data-testid=popover-item]");
    assert_eq!(
        items.iter().map(|i| attr(i, "data-id")).collect::<Vec<_>>(),
        ["bg", "run"]
    );
    let run = one(&host, "[data-testid=popover-item][data-id=run] a");
    assert_eq!(attr(&run, "href"), "/task/task-1#msg-run");
    let text = run.text_content().unwrap();
    assert!(text.contains("code-reviewer"), "{text}");
    assert!(text.contains("the retry path"), "{text}");
    assert!(text.contains("now: Read run-1.rs"), "{text}");
    assert!(text.contains("2m 01s"), "elapsed: {text}");
    assert_eq!(
        one(&host, "[data-id=bg] [data-testid=subagent-status]")
            .text_content()
            .as_deref(),
        Some("background · running")
    );
    // Live: one settles, the list follows.
    let settled = Model::new(
        [
            wave(),
            vec![subagent(
                "run",
                5,
                None,
                "complete",
                json!({"status": "completed"}),
            )],
        ]
        .concat(),
        0,
    );
    drill.set(Some(
        settled.fanout.drill_down(&settled.store, &settled.layout),
    ));
    settle().await;
    assert_eq!(all(&host, "[data-testid=popover-item]").len(), 1);
    assert_eq!(
        one(&host, ".popover-title").text_content().as_deref(),
        Some("1 subagent running")
    );
    key(&popover, "Escape", false);
    settle().await;
    assert!(host
        .query_selector("[data-testid=board-chip-popover]")
        .unwrap()
        .is_none());
    let active = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element();
    assert_eq!(
        active.map(|a| attr(&a, "data-testid")).as_deref(),
        Some("task-subagent-count")
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn a_popover_mounts_alone_with_its_empty_state() {
    let drill = Signal::stored(Some(DrillDownView {
        heading: "0 subagents running".into(),
        items: Vec::new(),
        empty_text: Some("No subagent is running now".into()),
        scale_start: None,
    }));
    let (host, _handle) = mount(move || {
        view! { <ChipPopover id="p" drill href=Callback::new(|a: String| a) on_close=Callback::new(|()| ()) /> }
            .into_any()
    });
    settle().await;
    assert_eq!(
        one(&host, ".popover-note").text_content().as_deref(),
        Some("No subagent is running now")
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn cards_say_background_running_then_stalled_with_the_idle_time_in_title() {
    let mut model = Model::new(wave(), 0);
    let card = RwSignal::new(model.card("bg"));
    let (host, _handle) = mount(move || {
        view! { <SubagentCard card frame=RowFrame::at(0) on_toggle=Callback::new(|()| ())><span></span></SubagentCard> }
            .into_any()
    });
    settle().await;
    let status = one(&host, "[data-testid=subagent-status]");
    assert_eq!(
        status.text_content().as_deref(),
        Some("background · running")
    );
    model.fanout.tick(&model.store, &model.layout, 6 * MINUTE);
    card.set(model.card("bg"));
    settle().await;
    let status = one(&host, "[data-testid=subagent-status]");
    assert_eq!(
        status.text_content().as_deref(),
        Some("background · stalled")
    );
    assert_eq!(attr(&status, "data-state"), "stalled");
    assert_eq!(attr(&status, "title"), "no new child or update for 6m 02s");
    host.remove();
}

#[wasm_bindgen_test]
async fn a_parent_card_shows_own_and_nested_tokens_and_what_it_returned() {
    let model = Model::new(wave(), 0);
    let card = model.card("rev");
    let (host, _handle) = mount(move || {
        view! { <SubagentCard card frame=RowFrame::at(0) on_toggle=Callback::new(|()| ())><span></span></SubagentCard> }
            .into_any()
    });
    settle().await;
    let meta: Vec<String> = all(&host, "[data-testid=subagent-meta] > *")
        .iter()
        .map(|c| c.text_content().unwrap_or_default())
        .collect();
    assert_eq!(
        meta,
        [
            "1m 30s",
            "48.2k tokens",
            "61k with nested",
            "~2 tokens returned of 48.2k",
            "claude-opus-4-8"
        ]
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn the_current_search_match_is_highlighted() {
    let mut model = Model::new(wave(), 0);
    model.fanout.search(&model.layout, "retry path");
    model.fanout.step(&model.layout, true);
    let card = model.card("run");
    assert!(card.highlighted);
    let (host, _handle) = mount(move || {
        view! { <SubagentCard card frame=RowFrame::at(0) on_toggle=Callback::new(|()| ())><span></span></SubagentCard> }
            .into_any()
    });
    settle().await;
    let el = one(&host, "[data-testid=subagent-card]");
    assert_eq!(attr(&el, "data-search-hit"), "true");
    assert!(el.class_list().contains("search-hit"));
    host.remove();
}

/// A board card for `task-1` with a chip of `running` subagents that opens a
/// drill-down; the card's signal changes it.
fn mount_chipped_card(running: u64) -> (RwSignal<TaskCard>, web_sys::HtmlElement, impl Drop) {
    let open = RwSignal::new(None::<String>);
    let card = RwSignal::new(TaskCard {
        task_id: "task-1".into(),
        title: "Review wave".into(),
        state: "IN_PROGRESS".into(),
        status: None,
        subagent_chip: subagent_chip(Some(running)),
    });
    let (host, handle) = mount(move || {
        let drill_down = ChipDrillDown::toggling(open, Signal::stored(None), task_href());
        view! { <TaskCardView card href="/task/task-1".into() drill_down /> }.into_any()
    });
    (card, host, handle)
}

/// The card's chip drops to zero, and goes (SPEC.md §5).
async fn chip_goes_at_zero(card: RwSignal<TaskCard>, host: &web_sys::HtmlElement) {
    card.update(|c| c.subagent_chip = subagent_chip(Some(0)));
    settle().await;
    assert!(host
        .query_selector("[data-testid=task-subagent-count]")
        .unwrap()
        .is_none());
}

#[wasm_bindgen_test]
async fn an_open_drill_down_survives_its_chip_changing_and_dropping_to_zero() {
    let (card, host, _handle) = mount_chipped_card(2);
    settle().await;
    one(&host, "[data-testid=task-subagent-count]").click();
    settle().await;
    let popover = one(&host, "[data-testid=board-chip-popover]");
    popover.set_attribute("data-probe", "same").unwrap();
    card.update(|c| c.subagent_chip = subagent_chip(Some(3)));
    settle().await;
    assert_eq!(
        one(&host, "[data-testid=task-subagent-count]")
            .text_content()
            .as_deref(),
        Some("3")
    );
    assert_eq!(
        attr(
            &one(&host, "[data-testid=board-chip-popover]"),
            "data-probe"
        ),
        "same"
    );
    // SPEC.md §5: at zero the chip goes; the drill-down the reader opened stays.
    chip_goes_at_zero(card, &host).await;
    let popover = one(&host, "[data-testid=board-chip-popover]");
    key(&popover, "Escape", false);
    settle().await;
    assert!(host
        .query_selector("[data-testid=board-chip-popover]")
        .unwrap()
        .is_none());
    let active = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .unwrap();
    assert_eq!(active.tag_name(), "A", "focus back on the card's link");
    host.remove();
}

/// Focus is never dropped on the page: a focused chip that goes at zero
/// (SPEC.md §5) hands focus to its card's link.
#[wasm_bindgen_test]
async fn a_focused_chip_that_goes_at_zero_hands_focus_to_the_card_link() {
    let (card, host, _handle) = mount_chipped_card(1);
    settle().await;
    let chip = one(&host, "[data-testid=task-subagent-count]");
    chip.focus().unwrap();
    let document = web_sys::window().unwrap().document().unwrap();
    let focused = document.active_element().unwrap();
    assert_eq!(attr(&focused, "data-testid"), "task-subagent-count");
    chip_goes_at_zero(card, &host).await;
    let active = document.active_element().unwrap();
    assert_eq!(active.tag_name(), "A", "focus on the card's link");
    assert_eq!(attr(&active, "href"), "/task/task-1");
    host.remove();
}

/// SPEC.md §8 honest lifecycle on the board: a task whose only activity is a
/// background or stalled subagent says so on its card rather than "running".
#[wasm_bindgen_test]
async fn a_board_card_says_background_or_stalled_when_that_is_its_only_activity() {
    let idle_with_subagents = Task {
        id: "task-1".into(),
        primary_session_state: Some("IDLE".into()),
        active_subagent_count: Some(1),
        ..Task::default()
    };
    let running = Task {
        primary_session_state: Some("RUNNING".into()),
        ..idle_with_subagents.clone()
    };
    let reported_background = Task {
        foreground_activity: Some("background".into()),
        ..running.clone()
    };
    let stalled = SubagentActivity {
        stalled: 1,
        ..SubagentActivity::default()
    };
    let foreground = SubagentActivity {
        foreground: 1,
        ..stalled
    };
    let cases = [
        (&idle_with_subagents, None, "background", "◔background"),
        (&reported_background, None, "background", "◔background"),
        (&running, Some(stalled), "stalled", "⧖stalled"),
        (&running, Some(foreground), "running", "running"),
        (&running, None, "running", "running"),
    ];
    for (task, known, state, text) in cases {
        let card = TaskCard {
            task_id: task.id.clone(),
            title: "Review wave".into(),
            state: "IN_PROGRESS".into(),
            status: task_status(task, known),
            subagent_chip: subagent_chip(task.active_subagent_count),
        };
        let (host, _handle) =
            mount(move || view! { <TaskCardView card href="/task/task-1".into() /> }.into_any());
        settle().await;
        let badge = one(&host, "[data-testid=task-status]");
        assert_eq!(attr(&badge, "data-state"), state, "{task:?} {known:?}");
        assert_eq!(badge.text_content().unwrap(), text);
        host.remove();
    }
}
