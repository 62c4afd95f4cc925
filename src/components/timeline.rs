//! The Timeline of every subagent run (docs/user-guide.md "The Timeline"): a panel beside the
//! transcript (a sheet on a phone, CSS decides) drawing core's
//! `TimelineView`: a minimap of the whole session to brush a window, the
//! concurrency curve and the parent's turns over that window, one row of
//! bars per run (only the rows in view are in the DOM), and the focused
//! run's breakdown; or, switched, the accessible table of the same runs.
//! Props-only: every move goes back as a `TimelineMove`.

use crate::resize::on_resize;
use leptos::html::Div;
use leptos::prelude::*;
use taskview_core::screen::view::timeline::{
    keys::TimelineKey, query::TimelineMove, table::TableRow, table::TimelineTable, BarView,
    ClusterView, LaneView, TimelineView, CURVE_PX, ROW_PX, TURNS_PX,
};
use taskview_core::screen::viewport::css_px;
use wasm_bindgen::JsCast;

/// Rows rendered beyond each edge of the lanes' scroll box.
const OVERSCAN_ROWS: usize = 2;

fn px(n: i32) -> String {
    css_px(f64::from(n))
}

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
    /// The reader's moves.
    on_move: Callback<TimelineMove>,
) -> impl IntoView {
    let showing_table = move || table.with(Option::is_some);
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" {
            ev.stop_propagation();
            on_move.run(TimelineMove::Close);
        }
    };
    let button = |id: &'static str,
                  label: &'static str,
                  mv: fn(bool) -> TimelineMove,
                  pressed: Signal<bool>| {
        view! {
            <button class="tl-button" data-testid=id aria-pressed=move || pressed.get().to_string()
                on:click=move |_| on_move.run(mv(!pressed.get_untracked()))>{label}</button>
        }
    };
    let zoom = |id: &'static str, label: &'static str, text: &'static str, mv: TimelineMove| {
        view! {
            <button class="tl-button" data-testid=id aria-label=label
                on:click=move |_| on_move.run(mv.clone())>{text}</button>
        }
    };
    view! {
        <section class="timeline" id="subagent-timeline" data-testid="timeline"
            aria-labelledby="timeline-heading" on:keydown=on_keydown>
            <header class="tl-head">
                <h2 id="timeline-heading" class="tl-title">"Timeline"
                    <span class="muted tl-count" data-testid="timeline-heading">{move || view.with(|v| v.heading.clone())}</span>
                </h2>
                <button class="tl-close" aria-label="Close the timeline" on:click=move |_| on_move.run(TimelineMove::Close)>"×"</button>
            </header>
            <div class="tl-controls" role="group" aria-label="Timeline view">
                {button("timeline-pack", "Pack rows", TimelineMove::Pack, packed)}
                {button("timeline-table-toggle", "Table", TimelineMove::Table, Signal::derive(showing_table))}
                {zoom("timeline-zoom-in", "Zoom in", "+", TimelineMove::Zoom(None, true))}
                {zoom("timeline-zoom-out", "Zoom out", "−", TimelineMove::Zoom(None, false))}
                {zoom("timeline-whole", "Whole session", "Whole session", TimelineMove::Whole)}
            </div>
            <p class="tl-summary muted" data-testid="timeline-summary">{move || view.with(|v| v.summary.clone())}</p>
            {move || if showing_table() {
                view! { <RunTable table on_move /> }.into_any()
            } else {
                view! { <Chart view on_move /> }.into_any()
            }}
        </section>
    }
}

/// Moves the keyboard's focus to run `id`'s bar inside `root`; false when
/// it is not drawn.
pub fn focus_bar(root: &web_sys::Element, id: &str) -> bool {
    let selector = format!(
        "[data-testid=timeline-bar][data-id=\"{}\"]",
        id.replace(['"', '\\'], "")
    );
    match root.query_selector(&selector) {
        Ok(Some(bar)) => bar.unchecked_ref::<web_sys::HtmlElement>().focus().is_ok(),
        _ => false,
    }
}

/// The horizontal position of `client_x` in `el`, in pixels.
fn x_in(el: &web_sys::Element, client_x: i32) -> i32 {
    client_x - el.get_bounding_client_rect().left() as i32
}

/// Reports the width of `el` now and whenever it resizes.
fn watch_width(el: NodeRef<Div>, on_move: Callback<TimelineMove>) {
    on_resize(el, move |target| {
        let width = target.client_width();
        if width > 0 {
            on_move.run(TimelineMove::Width(width as u32));
        }
    });
}

/// The chart: minimap, curve, axis and turns over the window, then the rows.
#[component]
fn Chart(view: Signal<TimelineView>, on_move: Callback<TimelineMove>) -> impl IntoView {
    let track = NodeRef::<Div>::new();
    let lanes_box = NodeRef::<Div>::new();
    watch_width(track, on_move);
    let report_rows = move || {
        if let Some(el) = lanes_box.get_untracked() {
            let row = ROW_PX as i32;
            let first = (el.scroll_top() / row).max(0) as usize;
            let shown = (el.client_height() / row).max(1) as usize + 1;
            let from = first.saturating_sub(OVERSCAN_ROWS);
            on_move.run(TimelineMove::Rows(
                from,
                shown + first - from + OVERSCAN_ROWS,
            ));
        }
    };
    // Once mounted, and whenever the panel gives the rows more or less room.
    on_resize(lanes_box, move |_| report_rows());
    // The keyboard's bar has the focus while the keyboard is in the rows:
    // after a key, "show in timeline", or a redraw of its row.
    let keyboard_in = StoredValue::new(false);
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
        view.track();
        let moved = previous.is_some_and(|p| p != now);
        // After this change's rows are drawn.
        let id = now.clone();
        request_animation_frame(move || {
            // The chart may be gone by then.
            let (Some(id), Some(el)) = (id, lanes_box.try_get_untracked().flatten()) else {
                return;
            };
            let active = document().active_element();
            let lost =
                keyboard_in.get_value() && active.as_ref().is_none_or(|a| !el.contains(Some(a)));
            if (moved || lost) && focus_bar(&el, &id) {
                keyboard_in.set_value(true);
            }
        });
        now
    });
    let on_lanes_key = move |ev: leptos::ev::KeyboardEvent| {
        let key = ev.key();
        let mv = match TimelineKey::parse(&key) {
            Some(k) => TimelineMove::Key(k),
            None if matches!(key.as_str(), "+" | "=" | "-") => TimelineMove::Zoom(None, key != "-"),
            None => return,
        };
        ev.prevent_default();
        on_move.run(mv);
    };
    // A row redrawn while its bar has the focus takes the focus with it
    // until the next frame gives it back (the Effect above): keys pressed
    // meanwhile reach the page, not the rows. They are the rows' keys still.
    let stray_keys = window_event_listener(leptos::ev::keydown, move |ev| {
        let in_page = document()
            .active_element()
            .is_none_or(|a| document().body().is_some_and(|b| a == *b));
        if !keyboard_in.get_value() || !in_page || ev.default_prevented() {
            return;
        }
        match focused.get_untracked() {
            // Enter opens the focused run, as on its bar (a link).
            Some(id) if ev.key() == "Enter" => {
                ev.prevent_default();
                on_move.run(TimelineMove::Choose(id));
            }
            _ => on_lanes_key(ev),
        }
    });
    on_cleanup(move || stray_keys.remove());
    // Zoom: the wheel over the time axes, or with Ctrl (a pinch on a
    // trackpad) anywhere on the chart; Shift pans.
    let on_wheel = move |ev: leptos::ev::WheelEvent, always: bool| {
        let Some(el) = track.get_untracked() else {
            return;
        };
        let mv = if ev.shift_key() {
            TimelineMove::Pan(ev.delta_y().signum() as i32 * 60)
        } else if always || ev.ctrl_key() || ev.meta_key() {
            TimelineMove::Zoom(Some(x_in(&el, ev.client_x())), ev.delta_y() < 0.0)
        } else {
            return;
        };
        ev.prevent_default();
        on_move.run(mv);
    };
    // A two-finger pinch on a touch screen.
    let pinch = StoredValue::new(Vec::<(i32, i32)>::new());
    let on_pointer = move |ev: leptos::ev::PointerEvent| {
        if ev.pointer_type() != "touch" {
            return;
        }
        let (id, x) = (ev.pointer_id(), ev.client_x());
        let zoom = pinch.try_update_value(|p| match ev.type_().as_str() {
            "pointerdown" => {
                p.push((id, x));
                None
            }
            "pointermove" => {
                let [a, b] = p.as_slice() else { return None };
                let before = (a.1 - b.1).abs();
                p.iter_mut().filter(|q| q.0 == id).for_each(|q| q.1 = x);
                let after = (p[0].1 - p[1].1).abs();
                (after * 4 > before * 5 || after * 5 < before * 4)
                    .then(|| ((p[0].1 + p[1].1) / 2, after > before))
            }
            _ => {
                p.retain(|q| q.0 != id);
                None
            }
        });
        if let (Some(Some((centre, zoom_in))), Some(el)) = (zoom, track.get_untracked()) {
            on_move.run(TimelineMove::Zoom(Some(x_in(&el, centre)), zoom_in));
        }
    };
    let lane_rows = move || view.with(|v| v.lanes.iter().map(|l| l.row).collect::<Vec<_>>());
    view! {
        <div class="tl-chart" on:pointerdown=on_pointer on:pointermove=on_pointer
            on:pointerup=on_pointer on:pointercancel=on_pointer on:wheel=move |ev| on_wheel(ev, false)>
            <Minimap view on_move />
            <div class="tl-top" on:wheel=move |ev| on_wheel(ev, true)>
                <div class="tl-side muted">"running at once"</div>
                <div class="tl-track-head" node_ref=track data-testid="timeline-axis">
                    {move || view.with(|v| view! {
                        <svg class="tl-curve" data-testid="timeline-curve" aria-hidden="true" height=CURVE_PX width=v.width>
                            <polyline points=v.curve.clone() />
                        </svg>
                        {v.peak_x.map(|x| view! { <span class="tl-peak" data-testid="timeline-peak" style:left=px(x)>{v.peak.clone()}</span> })}
                        {v.now_x.map(|x| view! { <span class="tl-now" aria-hidden="true" style:left=px(x)></span> })}
                        <div class="tl-axis" aria-hidden="true">
                            {v.ticks.iter().map(|t| view! { <span class="tl-tick" style:left=px(t.x)>{t.label.clone()}</span> }).collect_view()}
                        </div>
                        <svg class="tl-turns" data-testid="timeline-turns" aria-hidden="true" height=TURNS_PX width=v.width>
                            <path class="tl-turn" d=v.turns_path.clone() />
                            <path class="tl-wait" d=v.waits_path.clone() />
                        </svg>
                    })}
                </div>
            </div>
            <div class="tl-lanes" node_ref=lanes_box data-testid="timeline-lanes" role="list"
                aria-label="Subagent runs over time: arrows move between runs, Enter opens one"
                on:scroll=move |_| report_rows() on:keydown=on_lanes_key
                on:focusin=move |ev: leptos::ev::FocusEvent| {
                    keyboard_in.set_value(true);
                    let bar = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .filter(|el| el.get_attribute("data-testid").as_deref() == Some("timeline-bar"))
                        .and_then(|el| el.get_attribute("data-id"));
                    if let Some(id) = bar.filter(|id| focused.get_untracked().as_ref() != Some(id)) {
                        on_move.run(TimelineMove::Focus(id));
                    }
                }
                on:focusout=move |ev: leptos::ev::FocusEvent| {
                    // A bar redrawn loses the focus without the reader
                    // leaving: only a bar still in the page was left.
                    let left = ev.target().and_then(|t| t.dyn_into::<web_sys::Node>().ok());
                    request_animation_frame(move || {
                        let (Some(left), Some(el)) = (left, lanes_box.try_get_untracked().flatten()) else { return };
                        let within = document().active_element().is_some_and(|a| el.contains(Some(&a)));
                        if left.is_connected() && !within {
                            keyboard_in.set_value(false);
                        }
                    });
                }>
                <div class="tl-spacer" style:height=move || css_px(view.with(|v| f64::from(v.rows_total as u32 * ROW_PX)))>
                    <For each=lane_rows key=|row| *row let:row>
                        {
                            let lane = Memo::new(move |_| {
                                view.with(|v| v.lanes.iter().find(|l| l.row == row).cloned().unwrap_or_default())
                            });
                            move || lane.with(|lane| lane_row(lane, on_move))
                        }
                    </For>
                </div>
            </div>
            <p class="tl-focus" data-testid="timeline-focus">{move || view.with(|v| v.focus_text.clone())}</p>
        </div>
    }
}

/// The whole session's curve, with the window shown on it; brushing it (or a
/// click, or the arrow keys) picks the window.
#[component]
fn Minimap(view: Signal<TimelineView>, on_move: Callback<TimelineMove>) -> impl IntoView {
    let map = NodeRef::<Div>::new();
    let brushing = RwSignal::new(None::<(i32, i32)>);
    let on_pointer = move |ev: leptos::ev::PointerEvent| {
        let Some(el) = map.get_untracked() else {
            return;
        };
        let x = x_in(&el, ev.client_x());
        match (ev.type_().as_str(), brushing.get_untracked()) {
            ("pointerdown", _) if ev.is_primary() => {
                brushing.set(Some((x, x)));
                let _ = el.set_pointer_capture(ev.pointer_id());
            }
            ("pointermove", Some((x0, _))) => brushing.set(Some((x0, x))),
            ("pointerup" | "pointercancel", Some(range)) => {
                brushing.set(None);
                on_move.run(TimelineMove::Brush(range.0, range.1));
            }
            _ => {}
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let step = (view.with_untracked(|v| v.width) / 10).max(1) as i32;
        let mv = match ev.key().as_str() {
            "ArrowLeft" => TimelineMove::Pan(-step),
            "ArrowRight" => TimelineMove::Pan(step),
            "+" | "=" => TimelineMove::Zoom(None, true),
            "-" => TimelineMove::Zoom(None, false),
            "Home" => TimelineMove::Whole,
            _ => return,
        };
        ev.prevent_default();
        on_move.run(mv);
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
                aria-valuenow=move || view.with(|v| v.window_percent)
                aria-valuetext=move || view.with(|v| v.window_text.clone())
                on:pointerdown=on_pointer on:pointermove=on_pointer on:pointerup=on_pointer
                on:pointercancel=on_pointer on:keydown=on_key>
                {move || view.with(|v| view! {
                    <svg class="tl-curve" aria-hidden="true" height=CURVE_PX width=v.width>
                        <polyline points=v.minimap.clone() />
                    </svg>
                })}
                <span class="tl-brush" data-testid="timeline-brush"
                    style:left=move || px(brush().0) style:width=move || px(brush().1)></span>
            </div>
        </div>
    }
}

/// One row, drawn whole from its view: its label (with the button that
/// shows or hides nested runs) and its bars, links to their cards. Its
/// elements are few (the page holds at most 400): the bars stand in the row
/// itself, right of the label by a margin, and hold their text themselves.
fn lane_row(lane: &LaneView, on_move: Callback<TimelineMove>) -> impl IntoView {
    let toggle = lane.toggle.clone().map(|(id, shown)| {
        let label = if shown { "Hide nested runs" } else { "Show nested runs" };
        view! {
            <button class="tl-toggle" aria-expanded=shown.to_string() aria-label=label
                on:click=move |_| on_move.run(TimelineMove::Toggle(id.clone()))>{if shown { "▾" } else { "▸" }}</button>
        }
    });
    view! {
        <div class=format!("tl-lane depth-{}", lane.depth.min(4)) role="listitem"
            data-testid="timeline-lane" data-row=lane.row style:top=px(lane.top)>
            <div class="tl-label" title=lane.label.clone()>{toggle}{lane.label.clone()}</div>
            {lane.bars.iter().map(|b| bar_link(b, on_move)).collect_view()}
            {lane.clusters.iter().map(|c| cluster_button(c, on_move)).collect_view()}
        </div>
    }
}

/// One run's bar.
fn bar_link(bar: &BarView, on_move: Callback<TimelineMove>) -> impl IntoView {
    let id = bar.id.clone();
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if ev.button() == 0 && !(ev.ctrl_key() || ev.meta_key() || ev.shift_key()) {
            ev.prevent_default();
            on_move.run(TimelineMove::Choose(id.clone()));
        }
    };
    let flag = |on: bool, name: &str| {
        if on {
            format!(" {name}")
        } else {
            String::new()
        }
    };
    let class = format!(
        "tl-bar{}{}{}{}{}{}",
        flag(bar.open, "open"),
        flag(bar.critical, "critical"),
        flag(bar.hit, "hit"),
        flag(bar.text_outside, "outside"),
        flag(bar.cut_start, "cut-start"),
        flag(bar.cut_end, "cut-end"),
    );
    let shown = view! {
        {bar.text.clone()}
        {bar.word.clone().map(|w| view! {
            {(!bar.text.is_empty()).then_some(" ")}<span class="tl-word">{w}</span>
        })}
    };
    view! {
        {bar.launch_x.map(|x| view! {
            <span class="tl-launch" data-testid="timeline-launch" style:left=px(x)
                title="launched in the background: the call returned at once"></span>
        })}
        <a class=class data-testid="timeline-bar" href=format!("#{}", bar.anchor) data-id=bar.id.clone()
            data-status=bar.status data-state=bar.state data-critical=bar.critical.to_string()
            data-hit=bar.hit.then_some("true") tabindex=if bar.tab_stop { "0" } else { "-1" }
            aria-label=bar.label.clone() title=bar.title.clone()
            style:left=px(bar.x) style:width=px(bar.w) on:click=on_click>
            // Its label holds these words, in their place (WCAG 2.5.3).
            {if bar.text_outside {
                view! { <span class="tl-bar-text">{shown}</span> }.into_any()
            } else {
                shown.into_any()
            }}
        </a>
    }
}

/// Runs of a packed row too close to draw apart: a click zooms in on them.
fn cluster_button(cluster: &ClusterView, on_move: Callback<TimelineMove>) -> impl IntoView {
    let (from, to) = cluster.span;
    view! {
        <button class=if cluster.hit { "tl-cluster hit" } else { "tl-cluster" }
            data-testid="timeline-cluster" data-hit=cluster.hit.then_some("true")
            tabindex="-1" aria-label=cluster.label.clone() title=cluster.label.clone()
            style:left=px(cluster.x) style:width=px(cluster.w)
            on:click=move |_| on_move.run(TimelineMove::Span(from, to))>{cluster.runs}</button>
    }
}

/// The accessible table of the same runs, a page at a time.
#[component]
fn RunTable(
    table: Signal<Option<TimelineTable>>,
    on_move: Callback<TimelineMove>,
) -> impl IntoView {
    move || {
        let t = table.get().unwrap_or_default();
        view! {
            <div class="tl-table-box">
                <table class="tl-table" data-testid="timeline-table">
                    <caption>"Subagent runs: "{t.range_text}</caption>
                    <thead>
                        <tr>
                            {["Run", "Start", "End", "Duration", "Status", "Tokens", "Critical path"]
                                .map(|h| view! { <th scope="col">{h}</th> })}
                        </tr>
                    </thead>
                    <tbody>
                        {t.rows.into_iter().map(|row| table_line(row, on_move)).collect_view()}
                    </tbody>
                </table>
                <div class="tl-pages">
                    <button class="tl-button" data-testid="timeline-previous" disabled=!t.has_previous
                        on:click=move |_| on_move.run(TimelineMove::Page(-1))>"Previous runs"</button>
                    <button class="tl-button" data-testid="timeline-next" disabled=!t.has_next
                        on:click=move |_| on_move.run(TimelineMove::Page(1))>"Next runs"</button>
                </div>
            </div>
        }
    }
}

/// One run in the table, its name a link to its card.
fn table_line(row: TableRow, on_move: Callback<TimelineMove>) -> impl IntoView {
    let id = row.id.clone();
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if ev.button() == 0 && !(ev.ctrl_key() || ev.meta_key() || ev.shift_key()) {
            ev.prevent_default();
            on_move.run(TimelineMove::Choose(id.clone()));
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
