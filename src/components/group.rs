//! The turn-group row (docs/behaviour.md §2.3–§2.6): a toggle with the count badge and
//! label, a spinner and `now:` line while running, the members when open.
//! Props-only: it renders core's `GroupRowView`.

use crate::components::message::MessageRow;
use leptos::prelude::*;
use taskview_core::screen::view::row::GroupRowView;

/// A collapsed run of same-turn activity.
#[component]
pub fn TurnGroup(
    /// The group as core lays it out.
    group: GroupRowView,
    /// The header was activated.
    on_toggle: Callback<()>,
) -> impl IntoView {
    let GroupRowView {
        first,
        body_id,
        tool_count,
        view,
        expanded,
        members,
    } = group;
    view! {
        <div class="row turn-group" data-first=first data-testid="turn-group" data-running=view.running.to_string()>
            <button
                class="group-head"
                aria-expanded=expanded.to_string()
                aria-controls=body_id.clone()
                on:click=move |_| on_toggle.run(())
            >
                <span class="chevron" aria-hidden="true">{if expanded { "▾" } else { "▸" }}</span>
                <span class="count-badge" aria-hidden="true">{tool_count}</span>
                <span class="group-label" data-testid="turn-group-label">{view.label}</span>
                {view.running.then(|| view! {
                    <span class="spinner" role="status" aria-label="Running"></span>
                })}
                {view.now_text.map(|t| view! {
                    <span class="now-text" data-testid="turn-group-now">{t}</span>
                })}
            </button>
            <div class="group-body" id=body_id hidden=!expanded>
                {members.into_iter().map(|row| view! { <MessageRow row /> }).collect_view()}
            </div>
        </div>
    }
}
