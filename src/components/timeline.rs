//! The Timeline of every subagent run (issue 26): a panel beside the
//! transcript (a sheet on a phone, CSS decides) drawing core's
//! `TimelineView`: a minimap of the whole session to brush a window, the
//! concurrency curve and the parent's turns over that window, one row of
//! bars per run (only the rows in view are in the DOM), and the focused
//! run's breakdown; or, switched, the accessible table of the same runs.
//! Props-only: every move goes back through [`TimelineActions`].

use leptos::html::Div;
use leptos::prelude::*;
use taskview_core::view::timeline::{
    BarView, LaneView, TableRow, TimelineKey, TimelineTable, TimelineView, CURVE_PX, ROW_PX,
};
use taskview_core::viewport::css_px;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What the panel asks of its owner.
#[derive(Clone, Copy)]
pub struct TimelineActions {
    /// Close the panel (its button, Escape).
    pub close: Callback<()>,
    /// Rows packed (runs that never overlap share one) or not.
    pub pack: Callback<bool>,
    /// The table instead of the chart, or back.
    pub table: Callback<bool>,
    /// Another page of the table: `-1` or `1`.
    pub page: Callback<i32>,
    /// Zoom in (`true`) or out around pixel `x` of the bars' area.
    pub zoom: Callback<(i32, bool)>,
    /// Pan by pixels of the bars' area.
    pub pan: Callback<i32>,
    /// A window brushed on the minimap, in its pixels.
    pub brush: Callback<(i32, i32)>,
    /// The whole session again.
    pub whole: Callback<()>,
    /// The rows in view: first and how many.
    pub rows: Callback<(usize, usize)>,
    /// The bars' area is this wide.
    pub width: Callback<u32>,
    /// A key that moves the focus between bars.
    pub key: Callback<TimelineKey>,
    /// A run was chosen (its message id): open its card.
    pub choose: Callback<String>,
    /// A run's nested runs shown or hidden.
    pub toggle: Callback<String>,
}

/// Rows rendered beyond each edge of the lanes' scroll box.
const OVERSCAN_ROWS: usize = 2;

/// The panel.
#[component]
pub fn Timeline(
    /// The timeline as core draws it, kept current by the caller.
    #[prop(into)]
    view: Signal<TimelineView>,
    /// The table's page while the table is shown.
    #[prop(into)]
    table: Signal<Option<TimelineTable>>,
    /// Whether rows are packed.
    #[prop(into)]
    packed: Signal<bool>,
    actions: TimelineActions,
) -> impl IntoView {
    let heading = move || view.with(|v| v.heading.clone());
    let summary = move || view.with(|v| v.summary.clone());
    let showing_table = move || table.with(Option::is_some);
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" {
            ev.stop_propagation();
            actions.close.run(());
        }
    };
    let width = move || view.with(|v| v.ticks.len()) as u32;
    let _ = width;
    view! {
        <section class="timeline" id="subagent-timeline" data-testid="timeline"
            aria-labelledby="timeline-heading" on:keydown=on_keydown>
            <header class="tl-head">
                <h2 id="timeline-heading" class="tl-title">"Timeline"
                    <span class="muted tl-count" data-testid="timeline-heading">{heading}</span>
                </h2>
                <button class="tl-close" aria-label="Close the timeline" on:click=move |_| actions.close.run(())>"×"</button>
            </header>
            <div class="tl-controls" role="group" aria-label="Timeline view">
                <button class="tl-button" data-testid="timeline-pack" aria-pressed=move || packed.get().to_string()
                    on:click=move |_| actions.pack.run(!packed.get_untracked())>"Pack rows"</button>
                <button class="tl-button" data-testid="timeline-table-toggle" aria-pressed=move || showing_table().to_string()
                    on:click=move |_| actions.table.run(!showing_table())>"Table"</button>
                <button class="tl-button" data-testid="timeline-zoom-in" aria-label="Zoom in"
                    on:click=move |_| actions.zoom.run((i32::MAX, true))>"+"</button>
                <button class="tl-button" data-testid="timeline-zoom-out" aria-label="Zoom out"
                    on:click=move |_| actions.zoom.run((i32::MAX, false))>"−"</button>
                <button class="tl-button" data-testid="timeline-whole" on:click=move |_| actions.whole.run(())>"Whole session"</button>
            </div>
            <p class="tl-summary muted" data-testid="timeline-summary">{summary}</p>
            {move || match showing_table() {
                true => view! { <RunTable table actions /> }.into_any(),
                false => view! { <Chart view actions /> }.into_any(),
            }}
        </section>
    }
}

/// The horizontal position of `ev` in `el`, in pixels.
fn x_in(el: &web_sys::Element, client_x: i32) -> i32 {
    client_x - el.get_bounding_client_rect().left() as i32
}

/// The chart: minimap, curve, axis and turns over the window, then the rows.
#[component]
fn Chart(view: Signal<TimelineView>, actions: TimelineActions) -> impl IntoView {
    let track = NodeRef::<Div>::new();
    let lanes_box = NodeRef::<Div>::new();
    let observer = StoredValue::new_local(None::<(web_sys::ResizeObserver, Closure<dyn FnMut(js_sys::Array)>)>);
    // The bars' area is as wide as the track head: measured, and again when it resizes.
    Effect::new(move |_| {
        let Some(el) = track.get() else { return };
        if observer.with_value(Option::is_some) {
            return;
        }
        let measure = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Some(entry) = entries.get(0).dyn_ref::<web_sys::ResizeObserverEntry>() {
                let width = entry.target().client_width();
                if width > 0 {
                    actions.width.run(width as u32);
                }
            }
        });
        if let Ok(ro) = web_sys::ResizeObserver::new(measure.as_ref().unchecked_ref()) {
            ro.observe(&el);
            observer.set_value(Some((ro, measure)));
        }
    });
    on_cleanup(move || {
        if let Some(Some((ro, _))) = observer.try_update_value(Option::take) {
            ro.disconnect();
        }
    });
    let report_rows = move || {
        if let Some(el) = lanes_box.get_untracked() {
            let row = ROW_PX as i32;
            let first = (el.scroll_top() / row).max(0) as usize;
            let shown = (el.client_height() / row).max(1) as usize + 1;
            let from = first.saturating_sub(OVERSCAN_ROWS);
            actions.rows.run((from, shown + first - from + OVERSCAN_ROWS));
        }
    };
    Effect::new(move |_| {
        if lanes_box.get().is_some() {
            report_rows();
        }
    });
    // The keyboard's bar gets the focus once it is drawn (after a key, or
    // "show in timeline").
    let focused = Memo::new(move |_| {
        view.with(|v| {
            v.lanes
                .iter()
                .flat_map(|l| &l.bars)
                .find(|b| b.focused)
                .map(|b| b.id.clone())
        })
    });
    Effect::new(move |previous: Option<Option<String>>| {
        let now = focused.get();
        if previous.is_some_and(|p| p != now) {
            if let (Some(id), Some(el)) = (&now, lanes_box.get_untracked()) {
                let selector = format!("[data-testid=timeline-bar][data-id=\"{}\"]", id.replace('"', ""));
                if let Ok(Some(bar)) = el.query_selector(&selector) {
                    if let Some(bar) = bar.dyn_ref::<web_sys::HtmlElement>() {
                        let _ = bar.focus();
                    }
                }
            }
        }
        now
    });
    let on_lanes_key = move |ev: leptos::ev::KeyboardEvent| {
        if let Some(key) = TimelineKey::parse(&ev.key()) {
            ev.prevent_default();
            actions.key.run(key);
        } else if matches!(ev.key().as_str(), "+" | "=" | "-") {
            ev.prevent_default();
            actions.zoom.run((i32::MAX, ev.key() != "-"));
        }
    };
    // Zoom: the wheel over the time axes, or with Ctrl (a pinch on a
    // trackpad) anywhere on the chart; Shift pans.
    let on_wheel = move |ev: leptos::ev::WheelEvent, always: bool| {
        let Some(el) = track.get_untracked() else { return };
        let x = x_in(&el, ev.client_x());
        if ev.shift_key() {
            ev.prevent_default();
            actions.pan.run(ev.delta_y().signum() as i32 * 60);
        } else if always || ev.ctrl_key() || ev.meta_key() {
            ev.prevent_default();
            actions.zoom.run((x, ev.delta_y() < 0.0));
        }
    };
    let pinch = StoredValue::new(Vec::<(i32, i32)>::new());
    let on_pointerdown = move |ev: leptos::ev::PointerEvent| {
        if ev.pointer_type() == "touch" {
            pinch.update_value(|p| p.push((ev.pointer_id(), ev.client_x())));
        }
    };
    let on_pointermove = move |ev: leptos::ev::PointerEvent| {
        let Some(el) = track.get_untracked() else { return };
        let moved = pinch.try_update_value(|p| {
            let before = match p.as_slice() {
                [a, b] => (a.1 - b.1).abs(),
                _ => return None,
            };
            for pointer in p.iter_mut().filter(|q| q.0 == ev.pointer_id()) {
                pointer.1 = ev.client_x();
            }
            let after = (p[0].1 - p[1].1).abs();
            let centre = (p[0].1 + p[1].1) / 2;
            (after * 4 > before * 5 || after * 5 < before * 4).then_some((centre, after > before))
        });
        if let Some(Some((centre, zoom_in))) = moved {
            actions.zoom.run((x_in(&el, centre), zoom_in));
        }
    };
    let on_pointerup = move |ev: leptos::ev::PointerEvent| {
        pinch.update_value(|p| p.retain(|q| q.0 != ev.pointer_id()));
    };
    let lane_rows = move || view.with(|v| v.lanes.iter().map(|l| l.row).collect::<Vec<_>>());
    let spacer = move || css_px(view.with(|v| (v.rows_total as u32 * ROW_PX) as f64));
    let curve = move || view.with(|v| v.curve.clone());
    let focus_text = move || view.with(|v| v.focus_text.clone());
    view! {
        <div class="tl-chart" on:pointerdown=on_pointerdown on:pointermove=on_pointermove
            on:pointerup=on_pointerup on:pointercancel=on_pointerup
            on:wheel=move |ev| on_wheel(ev, false)>
            <Minimap view actions />
            <div class="tl-top" on:wheel=move |ev| on_wheel(ev, true)>
                <div class="tl-side muted">"running at once"</div>
                <div class="tl-track-head" node_ref=track data-testid="timeline-axis">
                    <svg class="tl-curve" data-testid="timeline-curve" aria-hidden="true"
                        height=CURVE_PX width=move || view.with(|v| v.brush_width())>
                        <polyline points=curve />
                    </svg>
                    {move || view.with(|v| v.peak_x.map(|x| (x, v.peak.clone()))).map(|(x, peak)| view! {
                        <span class="tl-peak" data-testid="timeline-peak" style:left=css_px(f64::from(x))>{peak}</span>
                    })}
                    {move || view.with(|v| v.now_x).map(|x| view! {
                        <span class="tl-now" aria-hidden="true" style:left=css_px(f64::from(x))></span>
                    })}
                    <div class="tl-axis" aria-hidden="true">
                        {move || view.with(|v| v.ticks.clone()).into_iter().map(|t| view! {
                            <span class="tl-tick" style:left=css_px(f64::from(t.x))>{t.label}</span>
                        }).collect_view()}
                    </div>
                    <div class="tl-turns" data-testid="timeline-turns">
                        {move || view.with(|v| v.turns.clone()).into_iter().map(|t| view! {
                            <span class="tl-turn" title=t.title.clone() aria-label=t.title
                                style:left=css_px(f64::from(t.x)) style:width=css_px(f64::from(t.w))>
                                {t.waits.into_iter().map(|(x, w)| view! {
                                    <span class="tl-wait" style:left=css_px(f64::from(x - t.x)) style:width=css_px(f64::from(w))></span>
                                }).collect_view()}
                            </span>
                        }).collect_view()}
                    </div>
                </div>
            </div>
            <div class="tl-lanes" node_ref=lanes_box data-testid="timeline-lanes" role="list"
                aria-label="Subagent runs over time: arrows move between runs, Enter opens one"
                on:scroll=move |_| report_rows() on:keydown=on_lanes_key>
                <div class="tl-spacer" style:height=spacer>
                    <For each=lane_rows key=|row| *row let:row>
                        {
                            let lane = Memo::new(move |_| {
                                view.with(|v| v.lanes.iter().find(|l| l.row == row).cloned().unwrap_or_default())
                            });
                            view! { <Lane lane actions /> }
                        }
                    </For>
                </div>
            </div>
            <p class="tl-focus" data-testid="timeline-focus">{focus_text}</p>
        </div>
    }
}

/// The whole session's curve, with the window shown on it; brushing it (or a
/// click, or the arrow keys) picks the window.
#[component]
fn Minimap(view: Signal<TimelineView>, actions: TimelineActions) -> impl IntoView {
    let map = NodeRef::<Div>::new();
    let brushing = RwSignal::new(None::<(i32, i32)>);
    let on_down = move |ev: leptos::ev::PointerEvent| {
        let Some(el) = map.get_untracked() else { return };
        if ev.pointer_type() != "touch" || ev.is_primary() {
            let x = x_in(&el, ev.client_x());
            brushing.set(Some((x, x)));
            let _ = el.set_pointer_capture(ev.pointer_id());
        }
    };
    let on_move = move |ev: leptos::ev::PointerEvent| {
        let Some(el) = map.get_untracked() else { return };
        if let Some((x0, _)) = brushing.get_untracked() {
            brushing.set(Some((x0, x_in(&el, ev.client_x()))));
        }
    };
    let on_up = move |_| {
        if let Some(range) = brushing.get_untracked() {
            brushing.set(None);
            actions.brush.run(range);
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let step = (view.with_untracked(|v| v.brush_width()) / 10).max(1) as i32;
        match ev.key().as_str() {
            "ArrowLeft" => actions.pan.run(-step),
            "ArrowRight" => actions.pan.run(step),
            "+" | "=" => actions.zoom.run((i32::MAX, true)),
            "-" => actions.zoom.run((i32::MAX, false)),
            "Home" => actions.whole.run(()),
            _ => return,
        }
        ev.prevent_default();
    };
    let brush = move || {
        brushing
            .get()
            .map(|(a, b)| (a.min(b), (a - b).abs().max(2)))
            .unwrap_or_else(|| view.with(|v| v.brush))
    };
    view! {
        <div class="tl-minimap-row">
            <div class="tl-side muted" data-testid="timeline-window">{move || view.with(|v| v.window_text.clone())}</div>
            <div class="tl-minimap" node_ref=map data-testid="timeline-minimap" tabindex="0" role="slider"
                aria-label="Time shown: drag to pick, arrows to move, + and − to zoom"
                aria-valuemin="0" aria-valuemax="100"
                aria-valuenow=move || view.with(|v| v.window_percent())
                aria-valuetext=move || view.with(|v| v.window_text.clone())
                on:pointerdown=on_down on:pointermove=on_move on:pointerup=on_up on:pointercancel=on_up
                on:keydown=on_key>
                <svg class="tl-curve" aria-hidden="true" height=CURVE_PX width=move || view.with(|v| v.brush_width())>
                    <polyline points=move || view.with(|v| v.minimap.clone()) />
                </svg>
                <span class="tl-brush" data-testid="timeline-brush"
                    style:left=move || css_px(f64::from(brush().0)) style:width=move || css_px(f64::from(brush().1))></span>
            </div>
        </div>
    }
}

/// One row: its label (with the button that shows or hides nested runs)
/// and its bars.
#[component]
fn Lane(#[prop(into)] lane: Signal<LaneView>, actions: TimelineActions) -> impl IntoView {
    let bar_ids = move || lane.with(|l| l.bars.iter().map(|b| b.id.clone()).collect::<Vec<_>>());
    let toggle = move || {
        lane.with(|l| l.toggle.clone()).map(|(id, shown)| {
            let label = if shown { "Hide nested runs" } else { "Show nested runs" };
            view! {
                <button class="tl-toggle" aria-expanded=shown.to_string() aria-label=label
                    on:click=move |_| actions.toggle.run(id.clone())>{if shown { "▾" } else { "▸" }}</button>
            }
        })
    };
    view! {
        <div class=move || format!("tl-lane depth-{}", lane.with(|l| l.depth.min(4))) role="listitem"
            data-testid="timeline-lane" data-row=move || lane.with(|l| l.row)
            style:top=move || css_px(f64::from(lane.with(|l| l.top)))>
            <div class="tl-label" title=move || lane.with(|l| l.label.clone())>
                {toggle}<span class="tl-label-text">{move || lane.with(|l| l.label.clone())}</span>
            </div>
            <div class="tl-track">
                <For each=bar_ids key=|id| id.clone() let:id>
                    {
                        let bar = Memo::new(move |_| {
                            lane.with(|l| l.bars.iter().find(|b| b.id == id).cloned().unwrap_or_default())
                        });
                        view! { <Bar bar actions /> }
                    }
                </For>
            </div>
        </div>
    }
}

/// One run's bar: a link to its card. The element stays while the run
/// grows, so the focus on it is kept.
#[component]
fn Bar(#[prop(into)] bar: Signal<BarView>, actions: TimelineActions) -> impl IntoView {
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if ev.button() == 0 && !(ev.ctrl_key() || ev.meta_key() || ev.shift_key()) {
            ev.prevent_default();
            actions.choose.run(bar.with_untracked(|b| b.id.clone()));
        }
    };
    let px = |n: i32| css_px(f64::from(n));
    let launch = move || {
        bar.with(|b| b.launch_x).map(|x| view! {
            <span class="tl-launch" data-testid="timeline-launch" style:left=px(x)
                title="launched in the background: the call returned at once"></span>
        })
    };
    view! {
        {launch}
        <a class="tl-bar" data-testid="timeline-bar" href=move || bar.with(|b| format!("#{}", b.anchor))
            data-id=move || bar.with(|b| b.id.clone()) data-status=move || bar.with(|b| b.status)
            data-state=move || bar.with(|b| b.state) data-critical=move || bar.with(|b| b.critical.to_string())
            data-hit=move || bar.with(|b| b.hit.then_some("true"))
            class:open=move || bar.with(|b| b.open) class:critical=move || bar.with(|b| b.critical)
            class:hit=move || bar.with(|b| b.hit) class:outside=move || bar.with(|b| b.text_outside)
            class:cut-start=move || bar.with(|b| b.cut_start) class:cut-end=move || bar.with(|b| b.cut_end)
            tabindex=move || if bar.with(|b| b.tab_stop) { "0" } else { "-1" }
            aria-label=move || bar.with(|b| b.label.clone()) title=move || bar.with(|b| b.title.clone())
            style:left=move || px(bar.with(|b| b.x)) style:width=move || px(bar.with(|b| b.w))
            on:click=on_click>
            <span class="tl-bar-text" aria-hidden="true">
                {move || bar.with(|b| b.text.clone())}
                {move || bar.with(|b| b.word.clone()).map(|w| view! { " "<span class="tl-word">{w}</span> })}
            </span>
        </a>
    }
}

/// The accessible table of the same runs, a page at a time.
#[component]
fn RunTable(table: Signal<Option<TimelineTable>>, actions: TimelineActions) -> impl IntoView {
    let rows = move || table.with(|t| t.as_ref().map(|t| t.rows.clone()).unwrap_or_default());
    let range = move || table.with(|t| t.as_ref().map(|t| t.range_text.clone()).unwrap_or_default());
    let previous = move || table.with(|t| t.as_ref().is_some_and(|t| t.has_previous));
    let next = move || table.with(|t| t.as_ref().is_some_and(|t| t.has_next));
    view! {
        <div class="tl-table-box">
            <table class="tl-table" data-testid="timeline-table">
                <caption>"Subagent runs: "{range}</caption>
                <thead>
                    <tr>
                        <th scope="col">"Run"</th><th scope="col">"Start"</th><th scope="col">"End"</th>
                        <th scope="col">"Duration"</th><th scope="col">"Status"</th><th scope="col">"Tokens"</th>
                        <th scope="col">"Critical path"</th>
                    </tr>
                </thead>
                <tbody>
                    <For each=rows key=|r: &TableRow| (r.id.clone(), r.clone()) let:row>
                        <TableLine row actions />
                    </For>
                </tbody>
            </table>
            <div class="tl-pages">
                <button class="tl-button" data-testid="timeline-previous" disabled=move || !previous()
                    on:click=move |_| actions.page.run(-1)>"Previous runs"</button>
                <button class="tl-button" data-testid="timeline-next" disabled=move || !next()
                    on:click=move |_| actions.page.run(1)>"Next runs"</button>
            </div>
        </div>
    }
}

#[component]
fn TableLine(row: TableRow, actions: TimelineActions) -> impl IntoView {
    let id = row.id.clone();
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if ev.button() == 0 && !(ev.ctrl_key() || ev.meta_key() || ev.shift_key()) {
            ev.prevent_default();
            actions.choose.run(id.clone());
        }
    };
    view! {
        <tr data-testid="timeline-row" data-id=row.id.clone()>
            <th scope="row" class=format!("depth-{}", row.depth.min(4))>
                <a href=format!("#{}", row.anchor) on:click=on_click>{row.name}</a>
            </th>
            <td>{row.start}</td><td>{row.end}</td><td>{row.duration}</td>
            <td>{row.status}</td><td>{row.tokens}</td><td>{row.critical}</td>
        </tr>
    }
}
