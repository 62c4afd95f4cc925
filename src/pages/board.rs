//! `/`, `/board/:workflow_id` and their embed forms: a live board.
//! `/` shows the first workflow (docs/behaviour.md §7).

use crate::components::board::Board;
use crate::components::connection::LiveConnectionIndicator;
use crate::components::shell::EmptyState;
use crate::live::board::use_board;
use crate::live::fanout::use_chip_drill_down;
use crate::router::Location;
use crate::sources::sync::{
    follow_board, follow_workflows, keep_while_mounted, LoadState, Sources,
};
use leptos::prelude::*;
use taskview_core::read::client::refetch::first_workflow;

/// The board page: the routed workflow, else the first one.
#[component]
pub fn BoardPage(workflow_id: Option<String>) -> impl IntoView {
    match workflow_id {
        Some(workflow_id) => view! { <LiveBoard workflow_id /> }.into_any(),
        None => view! { <FirstBoard /> }.into_any(),
    }
}

/// The first workflow's id (none when there is no workflow), or why the list
/// could not be read.
type FirstWorkflow = Result<Option<String>, String>;

/// Finds the first workflow, then shows its board. The list is read once,
/// and again whenever the connection reopens, so a backend that was down at
/// first is picked up when it comes back.
#[component]
fn FirstBoard() -> impl IntoView {
    let sources = Sources::from_context();
    let list = RwSignal::new(None::<FirstWorkflow>);
    keep_while_mounted(follow_workflows(&sources, move |answer| {
        let first = answer
            .map(|list| first_workflow(&list).map(|w| w.id.clone()))
            .map_err(|e| e.to_string());
        list.try_set(Some(first));
    }));
    // Only a different answer re-renders, and a re-read that is under way or
    // failed keeps a board that was found.
    let first = Memo::new(move |previous: Option<&Option<FirstWorkflow>>| {
        let next = list.get();
        match (previous, &next) {
            (Some(Some(Ok(Some(found)))), None | Some(Err(_))) => Some(Ok(Some(found.clone()))),
            _ => next,
        }
    });
    move || {
        match first.get() {
        None => view! { <p class="loading" role="status">"Loading board…"</p> }.into_any(),
        Some(Ok(Some(workflow_id))) => view! { <LiveBoard workflow_id /> }.into_any(),
        Some(Ok(None)) => view! {
            <EmptyState title="No boards yet" detail="The backend has no workflows." />
        }
        .into_any(),
        Some(Err(reason)) => view! {
            <div class="page-bar">
                <h1 class="page-title">"Board"</h1>
                <LiveConnectionIndicator />
            </div>
            <EmptyState
                title="No board data reachable yet"
                detail=format!("{reason}. Start `taskview serve` or open with ?api=<kandev base URL>.")
            />
        }
        .into_any(),
    }
    }
}

/// One workflow's board, kept live while mounted.
#[component]
fn LiveBoard(workflow_id: String) -> impl IntoView {
    let sources = Sources::from_context();
    let state = ArcRwSignal::new(LoadState::Loading);
    keep_while_mounted(follow_board(&sources, &workflow_id, state.clone()));
    let view_model = use_board(workflow_id);
    let embed = Location::get().is_embed();
    let drill_down = use_chip_drill_down(&sources, embed);
    let api = sources.api.clone();
    let href = Callback::new(move |task_id: String| {
        let route = if embed { "/embed/task/" } else { "/task/" };
        let encoded: String = js_sys::encode_uri_component(&task_id).into();
        api.link(&format!("{route}{encoded}"))
    });
    let name = move || view_model.get().map(|b| b.name).filter(|n| !n.is_empty());
    let board = Signal::derive(move || view_model.get().unwrap_or_default());
    // What to show instead of the board, until there is one.
    let waiting = {
        let state = state.clone();
        Memo::new(move |_| view_model.with(Option::is_none).then(|| state.get()))
    };
    view! {
        <div class="board-page">
            <div class="page-bar">
                <h1 class="page-title" data-testid="board-name">{move || name().unwrap_or_else(|| "Board".into())}</h1>
                <LiveConnectionIndicator />
            </div>
            {move || match waiting.get() {
                None => view! { <Board board href drill_down /> }.into_any(),
                Some(LoadState::Loading | LoadState::Ready) => view! {
                    <p class="loading" role="status">"Loading board…"</p>
                }.into_any(),
                Some(LoadState::NotFound) => view! {
                    <EmptyState title="Board not found" detail="The backend has no workflow with this id." />
                }.into_any(),
                Some(LoadState::Failed(reason)) => view! {
                    <EmptyState title="Could not load the board" detail=reason />
                }.into_any(),
            }}
        </div>
    }
}
