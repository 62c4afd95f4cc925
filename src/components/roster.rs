//! The subagent roster (docs/behaviour.md §8): a side panel on wide screens, a sheet at
//! phone width (CSS decides), listing core's `RosterView`. The list is
//! virtualized: only the rows on screen are in the DOM, between spacers as
//! tall as the rows above and below (every row is core's `ROSTER_ROW_PX`
//! tall); it reports which rows it shows as it scrolls. The arrows, Page Up /
//! Down, Home and End move through the whole list. Props-only: the filter,
//! the order, the rows and the choice go back through callbacks.

use crate::resize::on_resize;
use leptos::html::Div;
use leptos::prelude::*;
use std::collections::{HashMap, HashSet};
use taskview_core::screen::view::roster::{
    roster_key_target, roster_rows, RosterFilter, RosterItem, RosterRows, RosterSort, RosterView,
    ROSTER_ROW_PX,
};
use taskview_core::screen::viewport::css_px;
use wasm_bindgen::JsCast;

/// The roster panel.
#[component]
pub fn Roster(
    /// The roster as core lays it out, kept current by the caller.
    #[prop(into)]
    roster: Signal<RosterView>,
    /// A filter button was pressed.
    on_filter: Callback<RosterFilter>,
    /// Another order was chosen.
    on_sort: Callback<RosterSort>,
    /// The list shows other rows now (it scrolled or was resized).
    on_rows: Callback<RosterRows>,
    /// A subagent was chosen (its message id): show its card.
    on_choose: Callback<String>,
    /// The panel asked to close (its close button, Escape).
    on_close: Callback<()>,
) -> impl IntoView {
    let heading = move || roster.with(|r| r.heading.clone());
    // One signal per subagent, set only when its own item changed: a row
    // subscribes to its item alone, so a roster change costs one pass over
    // the rows shown, not a re-run of each. The ids listed are set after
    // their signals, so every id the list reads has one.
    let items = StoredValue::new(HashMap::<String, ArcRwSignal<RosterItem>>::new());
    let ids = RwSignal::new(Vec::<String>::new());
    let sync = move |r: &RosterView| {
        items.update_value(|signals| sync_item_signals(signals, &r.items));
        let listed: Vec<String> = r.items.iter().map(|i| i.id.clone()).collect();
        if ids.with_untracked(|old| *old != listed) {
            ids.set(listed);
        }
    };
    // The first rows before the list is first drawn, then each new read.
    roster.with_untracked(sync);
    Effect::new(move |_| roster.with(sync));
    let list = NodeRef::<Div>::new();
    let shown = StoredValue::new(RosterRows::default());
    let report = move || {
        let Some(el) = list.get_untracked() else {
            return;
        };
        let rows = roster_rows(f64::from(el.scroll_top()), f64::from(el.client_height()));
        if shown.get_value() != rows {
            shown.set_value(rows);
            on_rows.run(rows);
        }
    };
    // Measured once laid out, and again whenever the panel's size changes.
    on_resize(list, move |_| report());
    // Another filter or order is another list: back to its start.
    let choice =
        Memo::new(move |_| roster.with(|r| (r.sort, r.filters.iter().position(|f| f.selected))));
    Effect::new(move |seen: Option<()>| {
        choice.track();
        if let (Some(()), Some(el)) = (seen, list.get_untracked()) {
            el.set_scroll_top(0);
            report();
        }
    });
    // A row the keyboard moved to, focused once it is rendered.
    let wanted = StoredValue::new(None::<usize>);
    let focus_wanted = move || {
        let (Some(index), Some(el)) = (wanted.get_value(), list.get_untracked()) else {
            return;
        };
        let link = el
            .query_selector(&format!("li[aria-posinset=\"{}\"] a", index + 1))
            .ok()
            .flatten()
            .and_then(|a| a.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(link) = link {
            wanted.set_value(None);
            let _ = link.focus();
        }
    };
    Effect::new(move |_| {
        ids.track();
        queue_microtask(focus_wanted);
    });
    let on_list_keydown = move |ev: leptos::ev::KeyboardEvent| {
        let Some(el) = list.get_untracked() else {
            return;
        };
        let current = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|t| t.closest("li[aria-posinset]").ok().flatten())
            .and_then(|li| li.get_attribute("aria-posinset"))
            .and_then(|p| p.parse::<usize>().ok())
            .map_or(0, |p| p.saturating_sub(1));
        let height = f64::from(el.client_height());
        let page = (height / ROSTER_ROW_PX) as usize;
        let listed = roster.with_untracked(|r| r.listed);
        let Some(target) = roster_key_target(&ev.key(), current, listed, page) else {
            return;
        };
        ev.prevent_default();
        let (top, bottom) = (
            target as f64 * ROSTER_ROW_PX,
            (target + 1) as f64 * ROSTER_ROW_PX,
        );
        let scroll = f64::from(el.scroll_top());
        if top < scroll {
            el.set_scroll_top(top as i32);
        } else if bottom > scroll + height {
            el.set_scroll_top((bottom - height).ceil() as i32);
        }
        wanted.set_value(Some(target));
        report();
        focus_wanted();
    };
    let empty = move || roster.with(|r| r.empty_text.clone());
    let sort = move || roster.with(|r| r.sort.as_str());
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" {
            ev.stop_propagation();
            on_close.run(());
        }
    };
    let setsize = Signal::derive(move || roster.with(|r| r.listed));
    view! {
        <aside class="roster" id="subagent-roster" data-testid="subagent-roster" aria-labelledby="roster-heading" on:keydown=on_keydown>
            <header class="roster-head">
                <h2 id="roster-heading" class="roster-title">"Subagents"
                    <span class="muted roster-count" data-testid="roster-count">{heading}</span>
                </h2>
                <button class="roster-close" aria-label="Close the subagent list" on:click=move |_| on_close.run(())>"×"</button>
            </header>
            <div class="roster-controls">
                <div class="roster-filters" role="group" aria-label="Show">
                    {RosterFilter::ALL.into_iter().enumerate().map(|(n, filter)| {
                        let option = move || roster.with(|r| r.filters.get(n).cloned().unwrap_or_default());
                        view! {
                            <button class="roster-filter" data-filter=filter.as_str()
                                aria-pressed=move || option().selected.to_string()
                                on:click=move |_| on_filter.run(filter)>
                                {move || option().label}
                            </button>
                        }
                    }).collect_view()}
                </div>
                <label class="roster-sort">"Sort by "
                    <select data-testid="roster-sort" prop:value=sort
                        on:change=move |ev| on_sort.run(RosterSort::parse(&event_target_value(&ev)))>
                        {RosterSort::ALL.into_iter().map(|s| view! {
                            <option value=s.as_str()>{s.as_str()}</option>
                        }).collect_view()}
                    </select>
                </label>
            </div>
            <div class="roster-scroll" node_ref=list data-testid="roster-list"
                on:scroll=move |_| report() on:keydown=on_list_keydown>
                <ul class="roster-list" aria-label="Subagents"
                    style:padding-top=move || css_px(roster.with(|r| f64::from(r.before_px)))
                    style:padding-bottom=move || css_px(roster.with(|r| f64::from(r.after_px)))>
                    <For each=move || ids.get() key=|id| id.clone() let:id>
                        {
                            let item = items.with_value(|signals| signals.get(&id).cloned())
                                .expect("an id is listed only once its signal is made");
                            view! { <RosterRow item=item.into() setsize on_choose /> }
                        }
                    </For>
                </ul>
            </div>
            {move || empty().map(|text| view! { <p class="muted roster-empty">{text}</p> })}
        </aside>
    }
}

/// Brings the per-subagent signals in line with `items`: a new subagent gets
/// one, a changed one is set, one that left the list loses its own.
fn sync_item_signals(signals: &mut HashMap<String, ArcRwSignal<RosterItem>>, items: &[RosterItem]) {
    let listed: HashSet<&str> = items.iter().map(|i| i.id.as_str()).collect();
    signals.retain(|id, _| listed.contains(id.as_str()));
    for item in items {
        match signals.get(&item.id) {
            Some(signal) => {
                if signal.with_untracked(|old| old != item) {
                    signal.set(item.clone());
                }
            }
            None => {
                signals.insert(item.id.clone(), ArcRwSignal::new(item.clone()));
            }
        }
    }
}

/// One subagent: a link to its card. The link element stays while its
/// content changes (elapsed time, status), so focus on it is kept.
#[component]
fn RosterRow(
    item: Signal<RosterItem>,
    /// Rows in the whole list (`aria-setsize`).
    setsize: Signal<usize>,
    on_choose: Callback<String>,
) -> impl IntoView {
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if ev.button() == 0 && !(ev.ctrl_key() || ev.meta_key() || ev.shift_key()) {
            ev.prevent_default();
            on_choose.run(item.with_untracked(|i| i.id.clone()));
        }
    };
    // Two lines, each cut to fit (every row is as tall as the others): the
    // type, description and status; the figures and the summary. Spaces
    // between the parts (grid layout ignores them) keep the words apart in
    // the text, so the link's name holds it (WCAG 2.5.3).
    let content = move || {
        let i = item.get();
        let figures: Vec<String> = [i.duration, i.tokens, i.model, i.telemetry]
            .into_iter()
            .flatten()
            .collect();
        view! {
            <span class="type-chip">{i.type_label}</span>" "
            {i.description.map(|d| view! { <span class="description" title=i.description_title>{d}</span>" " })}
            {(!i.status_text.is_empty()).then(|| view! {
                <span class=format!("roster-status {}", i.status) data-testid="roster-status"
                    title=i.status_title>{i.status_text}</span>" "
            })}
            <span class="roster-figures muted" title=i.tokens_title>{figures.join(" · ")}</span>
            {i.summary.map(|s| {
                let title = s.clone();
                view! { " "<span class="roster-summary" title=title>{s}</span> }
            })}
        }
    };
    let attrs = move || {
        item.with(|i| {
            (
                i.id.clone(),
                i.status,
                i.depth,
                i.context_only,
                i.anchor.clone(),
                i.label.clone(),
                i.position,
            )
        })
    };
    view! {
        <li class=move || {
                let (_, _, depth, context, ..) = attrs();
                format!("roster-item depth-{depth}{}", if context { " context" } else { "" })
            }
            data-testid="roster-item" data-id=move || attrs().0 data-status=move || attrs().1
            data-depth=move || attrs().2 aria-posinset=move || attrs().6 aria-setsize=setsize
            style:height=css_px(ROSTER_ROW_PX)>
            <a class="roster-link" href=move || format!("#{}", attrs().4) aria-label=move || attrs().5 on:click=on_click>
                {content}
            </a>
        </li>
    }
}
