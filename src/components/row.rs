//! One layout row, whatever its kind. The dispatch re-renders only when a row
//! changes kind; each kind's component follows its own row's trigger.

use crate::components::card::{OrphanCard, SubagentCard};
use crate::components::group::TurnGroup;
use crate::components::message::{MessageRow, UnreadableRow};
use crate::live::Live;
use leptos::prelude::*;
use taskview_core::layout::{RowKey, RowKind};

/// What kind of row a key currently is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Message,
    Subagent,
    Group,
    Orphans,
    Unreadable,
}

fn shape_of(kind: &RowKind) -> Shape {
    match kind {
        RowKind::Message => Shape::Message,
        RowKind::Subagent => Shape::Subagent,
        RowKind::Group(_) => Shape::Group,
        RowKind::Orphans => Shape::Orphans,
        RowKind::Unreadable => Shape::Unreadable,
    }
}

/// Renders the row `row_key` from the store.
#[component]
pub fn RowView(row_key: RowKey) -> impl IntoView {
    let live = expect_context::<Live>();
    let dom_key = row_key.to_string();
    let shape = {
        let (live, row_key) = (live.clone(), row_key.clone());
        Memo::new(move |_| {
            live.track_row(&dom_key);
            live.read(|d| d.layout.row(&row_key).map(|r| (shape_of(&r.kind), r.depth)))
        })
    };
    move || {
        let Some((shape, depth)) = shape.get() else {
            return ().into_any();
        };
        let row_key = row_key.clone();
        match shape {
            Shape::Message => view! { <LiveMessageRow row_key /> }.into_any(),
            Shape::Subagent => view! { <SubagentCard row_key depth /> }.into_any(),
            Shape::Group => view! { <TurnGroup row_key /> }.into_any(),
            Shape::Orphans => view! { <OrphanCard row_key depth /> }.into_any(),
            Shape::Unreadable => view! { <LiveUnreadableRow row_key /> }.into_any(),
        }
    }
}

/// A message row that follows its message in the store.
#[component]
fn LiveMessageRow(row_key: RowKey) -> impl IntoView {
    let live = expect_context::<Live>();
    let id = row_key.to_string();
    move || {
        live.track_row(&id);
        live.read(|d| {
            d.store
                .message(&id)
                .map(|m| (m.clone(), d.store.is_turn_active(m)))
        })
        .map(|(message, turn_active)| view! { <MessageRow message turn_active /> })
    }
}

/// An unreadable entry, kept in its position with its raw text.
#[component]
fn LiveUnreadableRow(row_key: RowKey) -> impl IntoView {
    let live = expect_context::<Live>();
    let RowKey::Unreadable(seq) = row_key else {
        return ().into_any();
    };
    live.read(|d| d.store.unreadable(seq).cloned())
        .map(|u| view! { <UnreadableRow id=format!("unreadable-{seq}") raw=u.raw error=u.error /> })
        .into_any()
}
