//! `/`, `/board/:workflow_id` and their embed forms: a live board.
//! `/` shows the first workflow (docs/behaviour.md §7).

use crate::components::board::Board;
use crate::components::board_state::{StateBoardProps, StateBoardView};
use crate::components::connection::LiveConnectionIndicator;
use crate::components::shell::EmptyState;
use crate::live::board::{
    state_card_of, state_column, use_activity, use_board, use_by_state, use_state_board,
};
use crate::live::fanout::use_chip_drill_down;
use crate::router::Location;
use crate::sources::sync::{
    follow_board, follow_workflows, keep_while_mounted, LoadState, Sources,
};
use crate::split::{split_view, SplitView};
use leptos::prelude::*;
use taskview_core::read::client::refetch::first_workflow;
use taskview_core::screen::view::board::filter::BoardFilter;

/// How often a board by state judges its cards' ages and stalls again.
const CLOCK_MS: u32 = 15_000;

/// Where the task page's `← Board` goes back to: this board with its filters.
pub const BOARD_URL_KEY: &str = "taskview-board-url";

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
    let workflow_id_for_state = workflow_id.clone();
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
    // What the board says above its columns (a team board: `store unreachable`).
    let notice = move || view_model.get().and_then(|b| b.notice);
    let board = Signal::derive(move || view_model.get().unwrap_or_default());
    // What to show instead of the board, until there is one.
    let waiting = {
        let state = state.clone();
        Memo::new(move |_| view_model.with(Option::is_none).then(|| state.get()))
    };
    let by_state = use_by_state(workflow_id_for_state.clone());
    view! {
        <div class="board-page">
            <div class="page-bar">
                <h1 class="page-title" data-testid="board-name">{move || name().unwrap_or_else(|| "Board".into())}</h1>
                <LiveConnectionIndicator />
            </div>
            {move || notice().map(|text| view! {
                <p class="board-notice" role="status" data-testid="board-notice">{text}</p>
            })}
            {move || match waiting.get() {
                None if by_state.get() == Some(true) => {
                    let workflow_id = workflow_id_for_state.clone();
                    view! { <SplitView what="the board" load=move || state_board(workflow_id.clone(), href) /> }.into_any()
                }
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

/// The page's clock in ms since the epoch, ticking every [`CLOCK_MS`].
fn page_clock() -> Signal<i64> {
    let now = RwSignal::new(js_sys::Date::now() as i64);
    let handle = set_interval_with_handle(
        move || now.set(js_sys::Date::now() as i64),
        std::time::Duration::from_millis(CLOCK_MS.into()),
    )
    .ok();
    on_cleanup(move || {
        if let Some(handle) = handle {
            handle.clear();
        }
    });
    now.into()
}

/// Remembers this board's URL, filters and all, for the task page's `← Board`.
fn remember_board_url() {
    let location = window().location();
    let url = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    if let Ok(Some(storage)) = window().session_storage() {
        let _ = storage.set_item(BOARD_URL_KEY, &url);
    }
}

split_view! {
    /// The board by state (docs/board.md) with its filters, clock and cards:
    /// a module of its own in the release build, fetched when a board
    /// taskview makes is first shown (kandev's boards and the task page
    /// never download it).
    fn state_board(workflow_id: String, href: Callback<String, String>) {
        let props = state_board_props(workflow_id, href);
        view! { <StateBoardView props /> }.into_any()
    }
}

/// A board by state: its filters in the URL, its clock, its cards.
fn state_board_props(workflow_id: String, href: Callback<String, String>) -> StateBoardProps {
    let location = Location::get();
    let filter = Memo::new(move |_| BoardFilter::from_query(&location.search()));
    let now = page_clock();
    Effect::new(move |_| {
        filter.track();
        remember_board_url();
    });
    let board = use_state_board(workflow_id, filter.into(), now);
    StateBoardProps {
        board,
        card: Callback::new(move |task_id: String| state_card_of(&task_id, now.get())),
        column: Callback::new(move |(column, first, end)| {
            state_column(board, column, (first, end), now.get())
        }),
        href,
        filter: filter.into(),
        on_filter: Callback::new(move |next: BoardFilter| location.replace_query(&next.to_query())),
        activity: use_activity(board, now),
    }
}
