//! The subagent roster (SPEC.md §8): a side panel on wide screens, a sheet at
//! phone width (CSS decides), listing core's `RosterView`. Props-only: the
//! filter, the order and the choice go back through callbacks.

use leptos::prelude::*;
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
    /// A subagent was chosen (its message id): show its card.
    on_choose: Callback<String>,
    /// The panel asked to close (its close button, Escape).
    on_close: Callback<()>,
) -> impl IntoView {
    let heading = move || roster.with(|r| r.heading.clone());
    let filters = move || roster.with(|r| r.filters.clone());
    let ids = move || roster.with(|r| r.items.iter().map(|i| i.id.clone()).collect::<Vec<_>>());
    let empty = move || roster.with(|r| r.empty_text.clone());
    let sort = move || roster.with(|r| r.sort.as_str());
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" {
            ev.stop_propagation();
            on_close.run(());
        }
    };
    view! {
        <aside class="roster" data-testid="subagent-roster" aria-labelledby="roster-heading" on:keydown=on_keydown>
            <header class="roster-head">
                <h2 id="roster-heading" class="roster-title">"Subagents"
                    <span class="muted roster-count" data-testid="roster-count">{heading}</span>
                </h2>
                <button class="roster-close" aria-label="Close the subagent list" on:click=move |_| on_close.run(())>"×"</button>
            </header>
            <div class="roster-controls">
                <div class="roster-filters" role="group" aria-label="Show">
                    <For each=filters key=|f| f.clone() let:option>
                        <button class="roster-filter" data-filter=option.filter.as_str()
                            aria-pressed=option.selected.to_string()
                            on:click=move |_| on_filter.run(option.filter)>
                            {option.label}
                        </button>
                    </For>
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
                <For each=ids key=|id| id.clone() let:id>
                    {
                        let item = Signal::derive(move || {
                            roster.with(|r| r.items.iter().find(|i| i.id == id).cloned().unwrap_or_default())
                        });
                        view! { <RosterRow item on_choose /> }
                    }
                </For>
            </ul>
            {move || empty().map(|text| view! { <p class="muted roster-empty">{text}</p> })}
        </aside>
    }
}

/// One subagent: a link to its card. The element stays while its content
/// changes (elapsed time, status), so focus on it is kept.
#[component]
fn RosterRow(item: Signal<RosterItem>, on_choose: Callback<String>) -> impl IntoView {
    let field = move |f: fn(&RosterItem) -> String| move || item.with(|i| f(i));
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if ev.button() == 0 && !(ev.ctrl_key() || ev.meta_key() || ev.shift_key()) {
            ev.prevent_default();
            on_choose.run(item.with_untracked(|i| i.id.clone()));
        }
    };
    let figures = move || {
        item.with(|i| {
            [&i.duration, &i.tokens, &i.model]
                .into_iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>()
                .join(" · ")
        })
    };
    view! {
        <li class="roster-item" class:context=move || item.with(|i| i.context_only)
            data-testid="roster-item" data-id=field(|i| i.id.clone())
            data-status=field(|i| i.status.to_string()) style=field(|i| format!("--depth: {}", i.depth))>
            <a class="roster-link" href=field(|i| format!("#{}", i.anchor))
                aria-label=field(|i| i.label.clone()) on:click=on_click>
                <span class="roster-line">
                    <span class="type-chip">{field(|i| i.type_label.clone())}</span>
                    {move || item.with(|i| i.description.clone().map(|d| view! {
                        <span class="description" title=i.description_title.clone()>{d}</span>
                    }))}
                    {move || item.with(|i| (!i.status_text.is_empty()).then(|| view! {
                        <span class=format!("roster-status {}", i.status) data-testid="roster-status"
                            title=i.status_title.clone()>{i.status_text.clone()}</span>
                    }))}
                </span>
                <span class="roster-figures muted" title=move || item.with(|i| i.tokens_title.clone())>{figures}</span>
                {move || item.with(|i| i.summary.clone().map(|s| {
                    let title = s.clone();
                    view! { <span class="roster-summary" title=title>{s}</span> }
                }))}
            </a>
        </li>
    }
}
