//! The Timeline panel's reader (docs/user-guide.md "The Timeline"): opens core's timeline while the
//! panel is mounted (closed, it costs nothing per batch), re-reads it at
//! most once per refresh while the session streams and every second while
//! a run is going, and turns the panel's moves into core's next query. The
//! rules are core's (`Viewer::{timeline, timeline_step, timeline_show,
//! timeline_table}`); a card's "show in timeline" reaches the panel through
//! [`TimelineControl`], in context.

use super::Live;
use crate::components::timeline::{focus_bar, Timeline};
use crate::split::{split_view, SplitView};
use leptos::prelude::*;
use std::time::Duration;
use taskview_core::screen::view::timeline::{
    query::TimelineMove, query::TimelineQuery, snapshot::TimelineSnapshot, table::TimelineTable,
};

/// How stale the timeline may be while the session streams.
const REFRESH: Duration = Duration::from_millis(200);

/// How often a going run's bar grows.
const GROW_EVERY: Duration = Duration::from_secs(1);

/// Narrower than this the timeline is a sheet that closes once a run is chosen.
const SHEET_MAX_WIDTH: f64 = 700.0;

/// The timeline's state on a transcript page, in context so a card can ask
/// to be shown in it.
#[derive(Clone, Copy)]
pub struct TimelineControl {
    /// The panel is shown.
    pub open: RwSignal<bool>,
    query: RwSignal<TimelineQuery>,
    /// The table's page, while the table is shown instead of the chart.
    table: RwSignal<Option<usize>>,
}

impl TimelineControl {
    /// Closed, on the whole session.
    pub fn provide() -> TimelineControl {
        let control = TimelineControl {
            open: RwSignal::new(false),
            query: RwSignal::new(TimelineQuery::default()),
            table: RwSignal::new(None),
        };
        provide_context(control);
        control
    }

    /// "Show in timeline": opens the panel on the run that shows message
    /// `id`, its bar focused.
    pub fn show(&self, live: &Live, id: &str) {
        let query = live.viewer().timeline_show(&self.query.get_untracked(), id);
        let run = query.focus.clone().unwrap_or_default();
        self.table.set(None);
        self.query.set(query);
        self.open.set(true);
        // The panel draws its rows on the next frames; the keyboard goes on
        // from the run's bar.
        request_animation_frame(move || {
            request_animation_frame(move || {
                if let Some(panel) = document().get_element_by_id("subagent-timeline") {
                    focus_bar(&panel, &run);
                }
            })
        });
    }
}

impl Live {
    /// Every run of the timeline and its peak, for the `?debug` hook.
    pub fn timeline_snapshot(&self) -> TimelineSnapshot {
        self.viewer().timeline_snapshot()
    }
}

fn viewport_width() -> f64 {
    window()
        .inner_width()
        .ok()
        .and_then(|w| w.as_f64())
        .unwrap_or(SHEET_MAX_WIDTH)
}

/// The button that opens and closes the panel. Pointing at it or focusing
/// it fetches the panel's module (a split build), so it opens at once.
#[component]
pub fn TimelineToggle(control: TimelineControl) -> impl IntoView {
    let preload = || {
        leptos::task::spawn_local(async {
            // A failure shows when the panel opens (it fetches again then).
            let _ = preload_live_timeline().await;
        })
    };
    view! {
        <button class="roster-toggle" data-testid="timeline-toggle"
            aria-controls=move || control.open.get().then_some("subagent-timeline")
            aria-expanded=move || control.open.get().to_string()
            on:pointerenter=move |_| preload() on:focus=move |_| preload()
            on:click=move |_| control.open.update(|o| *o = !*o)>
            "Timeline"
        </button>
    }
}

/// The panel, while `control` says it is open.
#[component]
pub fn TimelinePanel(control: TimelineControl) -> impl IntoView {
    move || {
        control.open.get().then(
            || view! { <SplitView what="the Timeline" load=move || live_timeline(control) /> },
        )
    }
}

split_view! {
    /// The panel's contents: a module of its own in the release build,
    /// fetched when the panel first opens.
    fn live_timeline(control: TimelineControl) preload preload_live_timeline {
        view! { <LiveTimeline control /> }.into_any()
    }
}

/// The panel's reader: mounted only while the panel is open.
#[component]
fn LiveTimeline(control: TimelineControl) -> impl IntoView {
    let live = expect_context::<Live>();
    live.viewer().set_timeline_open(true);
    {
        let live = live.clone();
        on_cleanup(move || live.viewer().set_timeline_open(false));
    }
    // Re-read at most once per REFRESH while the session changes, and as
    // the clock moves while a run is going.
    let refreshed = RwSignal::new(0u64);
    let pending = StoredValue::new(false);
    {
        let live = live.clone();
        Effect::new(move |_| {
            live.inner.fanout.track();
            if !pending.get_value() {
                pending.set_value(true);
                set_timeout(
                    move || {
                        pending.set_value(false);
                        refreshed.update(|n| *n += 1);
                    },
                    REFRESH,
                );
            }
        });
    }
    if let Ok(grow) = {
        let live = live.clone();
        set_interval_with_handle(move || live.tick(), GROW_EVERY)
    } {
        on_cleanup(move || grow.clear());
    }
    let view = {
        let live = live.clone();
        Memo::new(move |_| {
            refreshed.track();
            control.query.with(|q| live.viewer().timeline(q))
        })
    };
    let table = {
        let live = live.clone();
        Memo::new(move |_| {
            refreshed.track();
            control
                .table
                .get()
                .map(|page| live.viewer().timeline_table(page))
        })
    };
    let query = control.query;
    let on_move = Callback::new(move |mv: TimelineMove| {
        let now = query.get_untracked();
        let next = match mv {
            TimelineMove::Close => return control.open.set(false),
            TimelineMove::Table(shown) => return control.table.set(shown.then_some(0)),
            TimelineMove::Page(by) => {
                return control.table.update(|p| {
                    if let Some(page) = p {
                        *page = page.saturating_add_signed(by as isize);
                    }
                })
            }
            TimelineMove::Key(key) => live.viewer().timeline_step(&now, key),
            TimelineMove::Choose(id) => {
                live.choose(&id);
                if viewport_width() < SHEET_MAX_WIDTH {
                    control.open.set(false);
                }
                TimelineQuery {
                    focus: Some(id),
                    ..now.clone()
                }
            }
            mv => match now.moved(view.with_untracked(|v| v.axis), &mv) {
                Some(next) => next,
                None => return,
            },
        };
        if next != now {
            query.set(next);
        }
    });
    let packed = Signal::derive(move || query.with(|q| q.packed));
    let table: Signal<Option<TimelineTable>> = table.into();
    view! { <Timeline view table packed on_move /> }
}
