//! A task page's first screen, written by the server before the app has
//! loaded (docs/behaviour.md §10), and its end.
//!
//! The server renders it with the app's own components ([`write`], native
//! only: Leptos renders HTML there), from core's `view::first_screen`: the
//! page's frame, the task's title and chip, and the rows of the newest
//! messages that the app previews first. It lies over the page
//! (`#first-screen`, fixed, inert and hidden from assistive technology) while
//! the app starts beneath it, and the app removes it ([`take_over`]) once its
//! own rows stand in the same places, or once the page shows anything else.
//! Its markup carries no `id` or `data-testid` of the app's (they are
//! renamed), so every lookup finds the app's own elements.

/// The first screen's element id.
pub const SCREEN_ID: &str = "first-screen";

/// Ends the server's first screen, if it is still there.
pub fn take_over() {
    if let Some(screen) = leptos::prelude::document().get_element_by_id(SCREEN_ID) {
        screen.remove();
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub use write::write;

#[cfg(not(target_arch = "wasm32"))]
mod write {
    use super::SCREEN_ID;
    use crate::components::board::SubagentCountChip;
    use crate::components::card::{OrphanCard, SubagentCard};
    use crate::components::connection::ConnectionIndicator;
    use crate::components::group::TurnGroup;
    use crate::components::message::{MessageRow, UnreadableRow};
    use crate::components::shell::Header;
    use leptos::prelude::*;
    use taskview_core::read::client::backoff::ConnectionStatus;
    use taskview_core::screen::view::first_screen::{FirstScreen, ScreenRow};
    use taskview_core::screen::view::row::RowBody;

    /// The first screen's HTML, to put first in `<body>`; `embed` for
    /// `/embed/task/…` (no app chrome). The frame mirrors what the task page
    /// renders around its rows (pages/task.rs, live/fanout.rs,
    /// live/transcript.rs); e2e/tests/first-screen.spec.mjs holds them to the
    /// same places.
    pub fn write(screen: &FirstScreen, embed: bool) -> String {
        let FirstScreen {
            title,
            chip,
            roster_toggle,
            rows,
        } = screen.clone();
        let html = Owner::new().with(|| {
            let header = (!embed).then(|| {
                view! { <Header board="/".to_string() file_view="/view".to_string() on_board=false on_view=false /> }
            });
            let back = (!embed).then(|| view! { <a class="back-link" href="/">"← Board"</a> });
            view! {
                <div id=SCREEN_ID class="first-screen" aria-hidden="true" inert>
                    <div class="app" class:embed=embed>
                        {header}
                        <main class="app-main">
                            <div class="task-page">
                                <div class="page-bar">
                                    {back}
                                    <h1 class="page-title">{title}</h1>
                                    <SubagentCountChip chip />
                                    <ConnectionIndicator status=ConnectionStatus::Connecting on_retry=Callback::new(|()| ()) />
                                </div>
                                <div class="fanout-frame">
                                    <div class="transcript-tools">
                                        <div class="transcript-search">
                                            <input type="search" class="search-input" placeholder="Search  /" />
                                            <span class="search-count muted"></span>
                                            <button class="search-step" disabled>"↑"</button>
                                            <button class="search-step" disabled>"↓"</button>
                                        </div>
                                        <button class="roster-toggle" aria-expanded="true">{roster_toggle}</button>
                                        <button class="roster-toggle" aria-expanded="false">"Timeline"</button>
                                    </div>
                                    <div class="transcript-layout">
                                        <div class="transcript-main">
                                            <div class="transcript-scroll">
                                                <div class="transcript">
                                                    {rows.into_iter().map(slot).collect_view()}
                                                </div>
                                            </div>
                                        </div>
                                        <aside class="roster"></aside>
                                    </div>
                                </div>
                            </div>
                        </main>
                    </div>
                </div>
            }
            .to_html()
        });
        // The app's ids and test ids belong to the app's own elements. An
        // attribute's name cannot occur in text or values: they are escaped.
        html.replace(" id=\"", " data-first-screen-id=\"")
            .replace(" data-testid=\"", " data-first-screen-testid=\"")
            .replace(
                &format!("data-first-screen-id=\"{SCREEN_ID}\""),
                &format!("id=\"{SCREEN_ID}\""),
            )
    }

    /// A top-level row in its slot, as the transcript list wraps it.
    fn slot(row: ScreenRow) -> impl IntoView {
        let key = row.view.key.to_string();
        view! { <div class="row-slot" role="article" data-row-key=key>{render(row)}</div> }
    }

    /// A row by its kind, with the components the app renders it with.
    fn render(row: ScreenRow) -> AnyView {
        let ScreenRow { view, children } = row;
        let frame = view.frame;
        let on_toggle = Callback::new(|()| ());
        // A task page has a timeline: its cards offer it, so the first
        // screen's cards are as tall as the app's.
        let on_show_in_timeline = Some(Callback::new(|()| ()));
        let children = move || children.clone().into_iter().map(render).collect_view();
        match view.body {
            RowBody::Message(row) => view! { <MessageRow row /> }.into_any(),
            RowBody::Card(card) => view! {
                <SubagentCard card=*card frame on_toggle on_show_in_timeline>{children()}</SubagentCard>
            }
            .into_any(),
            RowBody::Group(group) => view! { <TurnGroup group on_toggle /> }.into_any(),
            RowBody::Orphans(orphans) => view! {
                <OrphanCard orphans frame on_toggle>{children()}</OrphanCard>
            }
            .into_any(),
            RowBody::Unreadable(row) => view! { <UnreadableRow row /> }.into_any(),
        }
    }
}
