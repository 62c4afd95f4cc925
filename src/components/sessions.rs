//! The session chooser of a folder or a telemetry file that holds several
//! sessions (`core::view::sessions`, `core::view::file_sessions`): one
//! button per session, newest first.

use leptos::prelude::*;
use taskview_core::screen::view::file_sessions::chooser_heading;
use taskview_core::screen::view::sessions::SessionChoice;

/// Lists `choices`; `on_choose` gets the index of the one picked.
#[component]
pub fn SessionChooser(
    choices: Vec<SessionChoice>,
    on_choose: impl Fn(usize) + Clone + Send + Sync + 'static,
) -> impl IntoView {
    let title = chooser_heading(&choices);
    let items = choices
        .into_iter()
        .enumerate()
        .map(|(at, choice)| {
            let on_choose = on_choose.clone();
            let (heading, subheading) = (choice.heading().to_string(), choice.subheading());
            view! {
                <li>
                    <button class="session-choice" data-testid="session-choice" on:click=move |_| on_choose(at)>
                        <span class="session-name">{heading}</span>
                        <span class="muted session-folder">{choice.folder}</span>
                        <span class="muted session-detail">{subheading}</span>
                    </button>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="session-chooser" data-testid="session-chooser" aria-labelledby="session-chooser-title">
            <h2 id="session-chooser-title">{title}</h2>
            <p class="muted">"Pick one to open; the others stay a click away."</p>
            <ul>{items}</ul>
        </section>
    }
}
