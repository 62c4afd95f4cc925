//! The records an importer skipped as carrying no conversation (SPEC.md §1):
//! a muted disclosure, `N records not shown`, listing each kind and its
//! count on request (props only: `core::view::not_shown` decides every word).

use leptos::prelude::*;
use taskview_core::view::not_shown::NotShownView;

/// `N records not shown`, opening to the kinds and their counts.
#[component]
pub fn RecordsNotShown(view: NotShownView) -> impl IntoView {
    let NotShownView { label, kinds } = view;
    view! {
        <details class="not-shown" data-testid="records-not-shown">
            <summary class="muted">{label}</summary>
            <table class="not-shown-kinds">
                <caption class="visually-hidden">"Records not shown, by kind"</caption>
                <tbody>
                    {kinds
                        .into_iter()
                        .map(|(kind, count)| view! {
                            <tr><th scope="row"><code>{kind}</code></th><td>{count}</td></tr>
                        })
                        .collect_view()}
                </tbody>
            </table>
        </details>
    }
}
