//! taskview app: Leptos components that render view-models from taskview-core.
//!
//! Data flows one way: sources (HTTP, WebSocket, file) → core importers →
//! the core store → the core layout → these components.

// Natively, where the server renders the first screen with these components
// (`first_screen`), Leptos' HTML rendering nests view types deeper than the
// default limit allows.
#![cfg_attr(not(target_arch = "wasm32"), recursion_limit = "256")]

pub mod api;
pub mod components;
pub mod debug;
pub mod embed;
pub mod export;
pub mod first_screen;
pub mod live;
pub mod pages;
pub mod resize;
pub mod router;
pub mod sources;
pub mod split;

use leptos::prelude::*;
use taskview_core::read::route::Page;

use components::shell::{Frame, NotFound};
use pages::{board::BoardPage, task::TaskPage, view::FileViewPage};
use split::{split_view, SplitView};

/// The application root: the page of each route of docs/behaviour.md §7
/// (`core::route`), each also under `/embed/...` without app chrome.
#[component]
pub fn App() -> impl IntoView {
    let api = api::ApiBase::from_location();
    let live = live::Live::new();
    live.start_clock();
    let connection = sources::ws::Connection::new(&api, live.clone());
    let previews = sources::sync::PagePreviews::from_location();
    debug::install_if_asked(live.clone(), connection.clone());
    embed::install(live.clone());
    provide_context(api);
    provide_context(live);
    provide_context(connection);
    provide_context(previews);
    let location = router::Location::install();
    let page = Memo::new(move |_| location.route().page);
    view! {
        <Frame>
            {move || match page.get() {
                Page::Board(workflow_id) => view! { <BoardPage workflow_id /> }.into_any(),
                Page::Task(task_id) => view! { <TaskPage task_id /> }.into_any(),
                Page::View => view! { <SplitView what="the file view" load=file_view_page /> }.into_any(),
                // An exported page is its file view, whatever its path.
                Page::Unknown if sources::file::is_export() => {
                    view! { <SplitView what="the file view" load=file_view_page /> }.into_any()
                }
                Page::Unknown => view! { <NotFound /> }.into_any(),
            }}
        </Frame>
    }
}

split_view! {
    /// The file view, with the importers of every dialect and the export: a
    /// module of its own in the release build, so the board and task pages
    /// never download it.
    fn file_view_page() {
        view! { <FileViewPage /> }.into_any()
    }
}
