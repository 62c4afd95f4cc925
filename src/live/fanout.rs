//! Readers and controls of docs/behaviour.md §8 over the app's model: the viewer's
//! clock, the roster, search, and the board chip's drill-down. The rules are
//! core's (`Viewer::{tick, roster, search, search_step, drill_down}`); this
//! module wires them to triggers and to the props-only components.

use super::stages::{self, Stage};
use super::Live;
use crate::api::ApiBase;
use crate::components::board::{ChipDrillDown, Popover};
use crate::components::chip_popover::ChipPopover;
use crate::components::roster::Roster;
use crate::components::search::TranscriptSearch;
use crate::live::timeline::{TimelineControl, TimelinePanel, TimelineToggle};
use crate::live::transcript::LiveTranscript;
use crate::sources::sync::{follow_session, Follow, LoadState, Sources};
use crate::split::{split_view, SplitView};
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use std::time::Duration;
use taskview_core::screen::view::anchor::anchor_id;
use taskview_core::screen::view::drilldown::DrillDownView;
use taskview_core::screen::view::roster::{RosterQuery, RosterRows, RosterView};

/// How often the clock ticks: `stalled` shows within this of its five minutes.
const CLOCK_INTERVAL: Duration = Duration::from_secs(5);

/// From this width on the roster opens beside the transcript; below it, it is
/// a sheet opened on demand (style/transcript.css draws the same line).
const SIDE_PANEL_MIN_WIDTH: f64 = 1100.0;

/// Narrower than this the roster is a sheet that closes once a subagent is chosen.
const SHEET_MAX_WIDTH: f64 = 700.0;

fn viewport_width() -> f64 {
    window()
        .inner_width()
        .ok()
        .and_then(|w| w.as_f64())
        .unwrap_or(SIDE_PANEL_MIN_WIDTH)
}

fn now_ms() -> i64 {
    js_sys::Date::now() as i64
}

impl Live {
    /// Starts the viewer's clock (time-based rules: `stalled`, elapsed time):
    /// now, then every few seconds for the life of the app.
    pub fn start_clock(&self) {
        self.tick();
        let live = self.clone();
        set_interval(move || live.tick(), CLOCK_INTERVAL);
    }

    /// Says whether nobody writes the open source any more (a file opened
    /// from disk, docs/behaviour.md §8): its time stops at its newest record.
    pub fn set_still(&self, still: bool) {
        let update = self.viewer().set_still(still);
        self.publish(update);
    }

    pub(super) fn tick(&self) {
        let update = stages::timed(Stage::Clock, || self.viewer().tick(now_ms()));
        self.publish(update);
    }

    /// Subscribes the current scope to the fan-out readers and reads.
    fn read_fanout<R>(
        &self,
        read: impl FnOnce(&mut taskview_core::screen::viewer::Viewer) -> R,
    ) -> R {
        self.inner.fanout.track();
        read(&mut self.viewer())
    }

    /// Searches every message for `query` (docs/behaviour.md §8).
    fn search(&self, query: &str) {
        let (_, rows) = stages::timed(Stage::Search, || self.viewer().search(query));
        self.notify_rows(&rows);
        self.inner.fanout.notify();
    }

    /// Goes to the next (or previous) match: opened, scrolled to, highlighted.
    fn search_step(&self, forward: bool) {
        let step = self.viewer().search_step(forward);
        self.notify_rows(&step.rows);
        if let Some(reveal) = step.reveal {
            self.publish_reveal(reveal);
        }
        self.inner.fanout.notify();
    }

    /// Shows the card of subagent `id` (the deep link of docs/behaviour.md §4), and
    /// puts that link in the address bar without a navigation.
    pub(super) fn choose(&self, id: &str) {
        self.follow_anchor(id);
        let hash = format!("#{}", anchor_id(id));
        if let Ok(history) = window().history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&hash));
        }
    }
}

/// The roster the reader asked for, with the rows its list shows, kept
/// current: re-read when a batch changed a subagent (once per batch: live
/// events are applied together, and a read costs the changed subagents and
/// the rows on screen), when the clock ticks, and when the
/// reader changes the query or scrolls the list.
fn use_roster(query: RwSignal<RosterQuery>, rows: RwSignal<RosterRows>) -> Memo<RosterView> {
    let live = expect_context::<Live>();
    Memo::new(move |_| {
        live.inner.fanout.track();
        let (query, rows) = (query.get(), rows.get());
        stages::timed(Stage::Roster, || live.viewer().roster(query, rows))
    })
}

/// The live transcript with its fan-out tools (docs/behaviour.md §8): the search box
/// and the roster toggle above it, the roster beside it (a sheet at phone
/// width).
#[component]
pub fn FanOutFrame(
    /// Start at the newest row and follow it (live sessions).
    #[prop(default = false)]
    start_at_end: bool,
) -> impl IntoView {
    let live = expect_context::<Live>();
    let timeline = TimelineControl::provide();
    let open = RwSignal::new(viewport_width() >= SIDE_PANEL_MIN_WIDTH);
    let query = RwSignal::new(RosterQuery::default());
    let count = {
        let live = live.clone();
        Signal::derive(move || {
            live.read_fanout(|viewer| {
                stages::timed(Stage::Search, || viewer.search_status().label())
            })
        })
    };
    let on_query = {
        let live = live.clone();
        Callback::new(move |query: String| live.search(&query))
    };
    let on_step = {
        let live = live.clone();
        Callback::new(move |forward: bool| live.search_step(forward))
    };
    // The subagent count alone (kept by core): no roster read while closed.
    let toggle_label = {
        let live = live.clone();
        move || live.read_fanout(|viewer| viewer.roster_toggle_label())
    };
    let on_choose = Callback::new(move |id: String| {
        live.choose(&id);
        if viewport_width() < SHEET_MAX_WIDTH {
            open.set(false);
        }
    });
    view! {
        <div class="fanout-frame">
            <div class="transcript-tools">
                <TranscriptSearch count on_query on_step />
                <button class="roster-toggle" data-testid="roster-toggle" aria-controls=move || open.get().then_some("subagent-roster")
                    aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|o| *o = !*o)>
                    {toggle_label}
                </button>
                <TimelineToggle control=timeline />
            </div>
            <div class="transcript-layout">
                <div class="transcript-main"><TimelinePanel control=timeline /><LiveTranscript start_at_end /></div>
                {move || open.get().then(|| view! {
                    // The panel's place is kept while its module comes, so the rows beside it
                    // never move (the server's first screen draws them with the panel).
                    <Suspense fallback=|| view! { <aside class="roster" aria-hidden="true"></aside> }>
                        <SplitView what="the subagent roster" load=move || roster_panel(query, on_choose, open) />
                    </Suspense>
                })}
            </div>
        </div>
    }
}

split_view! {
    /// The roster panel, read only while open (closing disposes it with its
    /// scope): a module of its own in the release build, fetched when a
    /// roster first opens.
    fn roster_panel(query: RwSignal<RosterQuery>, on_choose: Callback<String>, open: RwSignal<bool>) {
        let rows = RwSignal::new(RosterRows::default());
        let roster = use_roster(query, rows);
        view! {
            <Roster roster on_filter=Callback::new(move |f| query.update(|q| *q = q.with_filter(f)))
                on_sort=Callback::new(move |s| query.update(|q| *q = q.with_sort(s)))
                on_rows=Callback::new(move |r| rows.set(r)) on_choose
                on_close=Callback::new(move |()| open.set(false)) />
        }
        .into_any()
    }
}

/// The board's chip drill-down (docs/behaviour.md §8): activating a chip follows the
/// task's primary session (live, like its transcript) while the popover is
/// open, and lists its running subagents, each linking to its card.
pub fn use_chip_drill_down(sources: &Sources, embed: bool) -> ChipDrillDown {
    let open = RwSignal::new(None::<String>);
    let state = ArcRwSignal::new(LoadState::Loading);
    let follow = StoredValue::new(None::<SendWrapper<Follow>>);
    {
        let (sources, state) = (sources.clone(), state.clone());
        Effect::new(move |_| {
            let task = open.get();
            // The previous follow stops first (it unsubscribes).
            follow.set_value(None);
            state.set(LoadState::Loading);
            let session = task.and_then(|t| {
                sources
                    .live
                    .task(&t)
                    .and_then(|t| t.primary_session_id)
                    .filter(|s| !s.is_empty())
            });
            match session {
                Some(session) => {
                    let followed = follow_session(&sources, &session, state.clone());
                    follow.set_value(Some(SendWrapper::new(followed)));
                }
                None => state.set(LoadState::NotFound),
            }
        });
    }
    on_cleanup(move || follow.set_value(None));
    let state: Signal<LoadState> = RwSignal::from(state).into();
    let popover = Callback::new(move |popover: Popover| {
        let load = move || chip_popover(popover.clone(), state);
        view! { <SplitView what="the running subagents" load /> }.into_any()
    });
    let api = expect_context::<ApiBase>();
    let href = Callback::new(move |(task, anchor): (String, String)| {
        let route = if embed { "/embed/task/" } else { "/task/" };
        let encoded: String = js_sys::encode_uri_component(&task).into();
        format!("{}#{anchor}", api.link(&format!("{route}{encoded}")))
    });
    ChipDrillDown::with_popover(open, popover, href)
}

split_view! {
    /// The open chip's popover, reading its task's running subagents
    /// (`Viewer::drill_down`) once its transcript is loaded: a module of its
    /// own in the release build, fetched when a chip is first activated.
    fn chip_popover(popover: Popover, state: Signal<LoadState>) {
        let live = expect_context::<Live>();
        let drill = Signal::derive(move || {
            let loaded = matches!(state.get(), LoadState::Ready);
            let view = live.read_fanout(|viewer| viewer.drill_down());
            Some(view).filter(|_| loaded).or_else(|| {
                // Nothing to load: say so rather than wait.
                matches!(state.get(), LoadState::NotFound | LoadState::Failed(_)).then(|| {
                    DrillDownView {
                        empty_text: Some("The transcript of this task could not be loaded".into()),
                        ..DrillDownView::default()
                    }
                })
            })
        });
        let Popover { id, href, on_close } = popover;
        view! { <ChipPopover id drill href on_close /> }.into_any()
    }
}
