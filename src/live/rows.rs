//! The row connector: follows one row of the model and hands its view-model
//! to the props-only component of its kind. A row that changes kind (a tool
//! call that gains children becomes a card) is rebuilt; otherwise its
//! component updates in place.

use super::timeline::TimelineControl;
use super::transcript::Scroll;
use super::Live;
use crate::components::card::{OrphanCard, SubagentCard};
use crate::components::group::TurnGroup;
use crate::components::message::{MessageRow, UnreadableRow};
use leptos::prelude::*;
use taskview_core::screen::view::row::{RowBody, RowFrame, RowShape, RowView};
use taskview_core::state::layout::RowKey;

/// Renders row `row_key` from the model, kept current.
#[component]
pub fn LiveRow(row_key: RowKey) -> impl IntoView {
    let live = expect_context::<Live>();
    live.hold_row(&row_key);
    {
        let (live, key) = (live.clone(), row_key.clone());
        on_cleanup(move || live.release_row(&key));
    }
    let view = {
        let (live, key) = (live.clone(), row_key.clone());
        Memo::new(move |_| live.row(&key))
    };
    let shape = Memo::new(move |_| view.with(|v| v.as_ref().map(|v| (v.shape(), v.frame.clone()))));
    // The list this row is in, to keep the row's header in place.
    let scroll = use_context::<Scroll>();
    let on_toggle = {
        let key = row_key.clone();
        Callback::new(move |()| {
            let header = scroll.and_then(|s| s.header_of(&key));
            let open = live.toggle(&key);
            if let (Some(scroll), Some(header)) = (scroll, header) {
                scroll.keep_header(header);
            }
            if open {
                let kind = match shape.get_untracked().map(|(s, _)| s) {
                    Some(RowShape::Group) => "group",
                    _ => "card",
                };
                crate::embed::opened(&key, kind);
            }
        })
    };
    move || {
        let Some((shape, frame)) = shape.get() else {
            return ().into_any();
        };
        match shape {
            RowShape::Message => (move || {
                view.with(|v| match v.as_ref().map(|v| &v.body) {
                    Some(RowBody::Message(row)) => Some(view! { <MessageRow row=row.clone() /> }),
                    _ => None,
                })
            })
            .into_any(),
            RowShape::Card => card(view, frame, on_toggle, &row_key),
            RowShape::Group => (move || {
                view.with(|v| match v.as_ref().map(|v| &v.body) {
                    Some(RowBody::Group(group)) => {
                        Some(view! { <TurnGroup group=group.clone() on_toggle /> })
                    }
                    _ => None,
                })
            })
            .into_any(),
            RowShape::Orphans => orphans(view, frame, on_toggle),
            RowShape::Unreadable => (move || {
                view.with(|v| match v.as_ref().map(|v| &v.body) {
                    Some(RowBody::Unreadable(row)) => {
                        Some(view! { <UnreadableRow row=row.clone() /> })
                    }
                    _ => None,
                })
            })
            .into_any(),
        }
    }
}

/// A subagent card whose children are rows of their own; on a page with a
/// timeline, it offers "show in timeline".
fn card(
    view: Memo<Option<RowView>>,
    frame: RowFrame,
    on_toggle: Callback<()>,
    key: &RowKey,
) -> AnyView {
    let on_show_in_timeline = use_context::<TimelineControl>().map(|control| {
        let (live, id) = (expect_context::<Live>(), key.to_string());
        Callback::new(move |()| control.show(&live, &id))
    });
    let card = Memo::new(move |_| {
        view.with(|v| {
            v.as_ref()
                .and_then(RowView::card)
                .cloned()
                .unwrap_or_default()
        })
    });
    let children = Signal::derive(move || card.with(|c| c.children.clone()));
    view! {
        <SubagentCard card frame on_toggle on_show_in_timeline>
            <ChildRows children />
        </SubagentCard>
    }
    .into_any()
}

/// An orphan card whose children are rows of their own.
fn orphans(view: Memo<Option<RowView>>, frame: RowFrame, on_toggle: Callback<()>) -> AnyView {
    let orphans = Memo::new(move |_| {
        view.with(|v| {
            v.as_ref()
                .and_then(RowView::orphans)
                .cloned()
                .unwrap_or_default()
        })
    });
    let children = Signal::derive(move || orphans.with(|o| o.children.clone()));
    view! {
        <OrphanCard orphans frame on_toggle>
            <ChildRows children />
        </OrphanCard>
    }
    .into_any()
}

/// A card's children in order; a child that changes re-renders alone.
#[component]
fn ChildRows(children: Signal<Vec<RowKey>>) -> impl IntoView {
    view! {
        <For each=move || children.get() key=RowKey::clone let:child>
            <LiveRow row_key=child />
        </For>
    }
}
