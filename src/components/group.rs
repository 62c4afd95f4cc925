//! The turn-group row (SPEC.md §2.3–§2.6): a toggle with the count badge and
//! label, a spinner and `now:` line while running, the members when open.

use crate::components::message::MessageRow;
use crate::live::Live;
use leptos::prelude::*;
use taskview_core::layout::{RowKey, RowKind};
use taskview_core::view::group::{group_expanded, group_view};

/// A collapsed run of same-turn activity.
#[component]
pub fn TurnGroup(row_key: RowKey) -> impl IntoView {
    let live = expect_context::<Live>();
    let key = row_key.to_string();
    let body_id = format!("body-{key}").replace(':', "-");
    move || {
        live.track_row(&key);
        let group = live.read(|d| match d.layout.row(&row_key).map(|r| &r.kind) {
            Some(RowKind::Group(g)) => Some(g.clone()),
            _ => None,
        })?;
        let view_model = group_view(&group);
        let expanded = group_expanded(live.manual(&key));
        let members = expanded.then(|| {
            live.read(|d| {
                group
                    .member_ids
                    .iter()
                    .filter_map(|id| d.store.message(id))
                    .map(|m| (m.clone(), d.store.is_turn_active(m)))
                    .collect::<Vec<_>>()
            })
        });
        let toggle = {
            let (live, key) = (live.clone(), key.clone());
            move |_| live.set_manual(&key, !expanded)
        };
        let first = group.member_ids.first().cloned().unwrap_or_default();
        Some(view! {
            <div class="row turn-group" data-first=first data-testid="turn-group" data-running=view_model.running.to_string()>
                <button
                    class="group-head"
                    aria-expanded=expanded.to_string()
                    aria-controls=body_id.clone()
                    on:click=toggle
                >
                    <span class="chevron" aria-hidden="true">{if expanded { "▾" } else { "▸" }}</span>
                    <span class="count-badge" aria-hidden="true">{group.tool_count}</span>
                    <span class="group-label" data-testid="turn-group-label">{view_model.label}</span>
                    {view_model.running.then(|| view! {
                        <span class="spinner" role="status" aria-label="Running"></span>
                    })}
                    {view_model.now_text.map(|t| view! {
                        <span class="now-text" data-testid="turn-group-now">{t}</span>
                    })}
                </button>
                <div class="group-body" id=body_id.clone() hidden=!expanded>
                    {members.map(|members| members
                        .into_iter()
                        .map(|(message, turn_active)| view! { <MessageRow message turn_active /> })
                        .collect_view())}
                </div>
            </div>
        })
    }
}
