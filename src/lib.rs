//! taskview app: Leptos components that render view-models from taskview-core.
//!
//! Data flows one way: sources (HTTP, WebSocket, file) → core importers →
//! the core store → the core layout → these components.

pub mod api;
pub mod components;
pub mod debug;
pub mod embed;
pub mod export;
pub mod live;
pub mod pages;
pub mod sources;

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

use components::shell::{Frame, NotFound};
use pages::{board::BoardPage, task::TaskPage, view::FileViewPage};

/// The application root: the router and every route of SPEC.md §7, each also
/// under `/embed/...` without app chrome.
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
    view! {
        <Router>
            <Frame>
                <Routes fallback=move || {
                    // An exported page is its file view, whatever its path.
                    if sources::file::is_export() {
                        view! { <FileViewPage /> }.into_any()
                    } else {
                        view! { <NotFound /> }.into_any()
                    }
                }>
                    <Route path=path!("/") view=BoardPage />
                    <Route path=path!("/board/:workflow_id") view=BoardPage />
                    <Route path=path!("/task/:task_id") view=TaskPage />
                    <Route path=path!("/view") view=FileViewPage />
                    <Route path=path!("/embed") view=BoardPage />
                    <Route path=path!("/embed/board/:workflow_id") view=BoardPage />
                    <Route path=path!("/embed/task/:task_id") view=TaskPage />
                    <Route path=path!("/embed/view") view=FileViewPage />
                </Routes>
            </Frame>
        </Router>
    }
}
