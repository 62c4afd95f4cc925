//! The subagent roster (SPEC.md §8): a side panel on wide screens, a sheet at
//! phone width (CSS decides), listing core's `RosterView`. Props-only: the
//! filter, the order and the choice go back through callbacks.

use leptos::prelude::*;
use std::collections::{HashMap, HashSet};
use taskview_core::view::roster::RosterFilter;
use taskview_core::view::roster::{RosterItem, RosterSort, RosterView};

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
    /// The reader asked to list more subagents.
    on_more: Callback<()>,
    /// A subagent was chosen (its message id): show its card.
    on_choose: Callback<String>,
    /// The panel asked to close (its close button, Escape).
    on_close: Callback<()>,
) -> impl IntoView {
    let heading = move || roster.with(|r| r.heading.clone());
    // One signal per subagent, set only when its own item changed: a row
    // subscribes to its item alone, so a roster change costs one pass over
    // the items, not a re-run of every row (thousands in a long session).
    // The ids listed are set after their signals, so every id the list
    // reads has one.
    let items = StoredValue::new(HashMap::<String, ArcRwSignal<RosterItem>>::new());
    let ids = RwSignal::new(Vec::<String>::new());
    let sync = move |r: &RosterView| {
        items.update_value(|signals| sync_item_signals(signals, &r.items));
        let listed: Vec<String> = r.items.iter().map(|i| i.id.clone()).collect();
        if ids.with_untracked(|old| *old != listed) {
            ids.set(listed);
        }
    };
    // The first page before the list is first drawn, then each new one.
    roster.with_untracked(sync);
    Effect::new(move |_| roster.with(sync));
    let empty = move || roster.with(|r| r.empty_text.clone());
    let more = move || roster.with(|r| r.more.clone());
    let sort = move || roster.with(|r| r.sort.as_str());
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" {
            ev.stop_propagation();
            on_close.run(());
        }
    };
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
            <ul class="roster-list">
                <For each=move || ids.get() key=|id| id.clone() let:id>
                    {
                        let item = items.with_value(|signals| signals.get(&id).cloned())
                            .expect("an id is listed only once its signal is made");
                        view! { <RosterRow item=item.into() on_choose /> }
                    }
                </For>
            </ul>
            {move || more().map(|label| view! {
                <button class="roster-more" data-testid="roster-more" on:click=move |_| on_more.run(())>{label}</button>
            })}
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
fn RosterRow(item: Signal<RosterItem>, on_choose: Callback<String>) -> impl IntoView {
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if ev.button() == 0 && !(ev.ctrl_key() || ev.meta_key() || ev.shift_key()) {
            ev.prevent_default();
            on_choose.run(item.with_untracked(|i| i.id.clone()));
        }
    };
    let content = move || {
        let i = item.get();
        let figures: Vec<String> = [i.duration, i.tokens, i.model]
            .into_iter()
            .flatten()
            .collect();
        view! {
            // Spaces between the parts (flex layout ignores them) keep the
            // words apart in the text, so the link's name holds it (WCAG 2.5.3).
            <span class="roster-line">
                <span class="type-chip">{i.type_label}</span>" "
                {i.description.map(|d| view! { <span class="description" title=i.description_title>{d}</span>" " })}
                {(!i.status_text.is_empty()).then(|| view! {
                    <span class=format!("roster-status {}", i.status) data-testid="roster-status"
                        title=i.status_title>{i.status_text}</span>
                })}
            </span>" "
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
            )
        })
    };
    view! {
        <li class=move || {
                let (_, _, depth, context, ..) = attrs();
                format!("roster-item depth-{depth}{}", if context { " context" } else { "" })
            }
            data-testid="roster-item" data-id=move || attrs().0 data-status=move || attrs().1
            data-depth=move || attrs().2>
            <a class="roster-link" href=move || format!("#{}", attrs().4) aria-label=move || attrs().5 on:click=on_click>
                {content}
            </a>
        </li>
    }
}
