//! App chrome: the header with navigation, the embed frame, empty states.

use crate::api::ApiBase;
use crate::router::Location;
use leptos::prelude::*;
use taskview_core::read::route::Page;

/// Wraps every page: the header on normal routes, nothing on embed routes
/// and exported pages (no server to navigate to).
#[component]
pub fn Frame(children: Children) -> impl IntoView {
    let location = Location::get();
    let export = crate::sources::file::is_export();
    let embed = Memo::new(move |_| export || location.route().embed);
    let api = expect_context::<ApiBase>();
    let (board, file_view) = (api.link("/"), api.link("/view"));
    let on_board = Signal::derive(move || matches!(location.route().page, Page::Board(_)));
    let on_view = Signal::derive(move || location.route().page == Page::View);
    view! {
        <div class="app" class:embed=embed>
            <Show when=move || !embed.get()>
                <Header board=board.clone() file_view=file_view.clone() on_board on_view />
            </Show>
            <main class="app-main">{children()}</main>
        </div>
    }
}

/// The header: product name and navigation between the board and a file view.
#[component]
pub fn Header(
    /// The board's link.
    board: String,
    /// The file view's link.
    file_view: String,
    /// The board is the page shown.
    #[prop(into)]
    on_board: Signal<bool>,
    /// The file view is the page shown.
    #[prop(into)]
    on_view: Signal<bool>,
) -> impl IntoView {
    view! {
        <header class="app-header" data-testid="app-header">
            <a class="brand" href=board.clone()>"taskview"</a>
            <nav class="app-nav" aria-label="Main">
                <a href=board data-testid="nav-board" aria-current=move || on_board.get().then_some("page")>
                    "Board"
                </a>
                <a href=file_view data-testid="nav-view" aria-current=move || on_view.get().then_some("page")>
                    "Open a transcript"
                </a>
            </nav>
        </header>
    }
}

/// A calm, centred message for "nothing to show yet", with the reason.
#[component]
pub fn EmptyState(
    /// One-line headline.
    #[prop(into)]
    title: String,
    /// What happened and what to do.
    #[prop(into)]
    detail: String,
) -> impl IntoView {
    view! {
        <section class="empty-state" data-testid="empty-state" role="status">
            <h2>{title}</h2>
            <p>{detail}</p>
        </section>
    }
}

/// Shown for an unknown route.
#[component]
pub fn NotFound() -> impl IntoView {
    view! { <EmptyState title="Page not found" detail="This address is not a board, task or transcript view." /> }
}
