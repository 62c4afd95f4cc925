//! App chrome: the header with navigation, the embed frame, empty states.

use crate::api::ApiBase;
use crate::router::Location;
use leptos::prelude::*;
use taskview_core::route::Page;

/// Wraps every page: the header on normal routes, nothing on embed routes
/// and exported pages (no server to navigate to).
#[component]
pub fn Frame(children: Children) -> impl IntoView {
    let location = Location::get();
    let export = crate::sources::file::is_export();
    let embed = Memo::new(move |_| export || location.route().embed);
    view! {
        <div class="app" class:embed=embed>
            <Show when=move || !embed.get()>
                <Header />
            </Show>
            <main class="app-main">{children()}</main>
        </div>
    }
}

/// The header: product name and navigation between the board and a file view.
#[component]
pub fn Header() -> impl IntoView {
    let api = expect_context::<ApiBase>();
    let location = Location::get();
    let on_board = move || matches!(location.route().page, Page::Board(_));
    let on_view = move || location.route().page == Page::View;
    view! {
        <header class="app-header" data-testid="app-header">
            <a class="brand" href=api.link("/")>"taskview"</a>
            <nav class="app-nav" aria-label="Main">
                <a href=api.link("/") data-testid="nav-board" aria-current=move || on_board().then_some("page")>
                    "Board"
                </a>
                <a href=api.link("/view") data-testid="nav-view" aria-current=move || on_view().then_some("page")>
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
