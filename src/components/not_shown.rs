//! The records an importer skipped as carrying no conversation (docs/behaviour.md §1):
//! a muted disclosure, `N records not shown`, listing each kind and its
//! count on request (props only: `core::view::not_shown` decides every word).

use leptos::prelude::*;
use taskview_core::screen::view::not_shown::NotShownView;

/// `N records not shown`, opening to the kinds and their counts.
#[component]
pub fn RecordsNotShown(view: NotShownView) -> impl IntoView {
    let NotShownView { label, kinds } = view;
    view! {
        <details class="not-shown" data-testid="records-not-shown">
            <summary class="muted">{label}</summary>
            // A scrolling region, so it takes the keyboard focus.
            <div class="not-shown-kinds" role="region" aria-label="Records not shown, by kind" tabindex="0">
                <table>
                    <tbody>
                        {kinds
                            .into_iter()
                            .map(|(kind, count)| view! {
                                <tr><th scope="row"><code>{kind}</code></th><td>{count}</td></tr>
                            })
                            .collect_view()}
                    </tbody>
                </table>
            </div>
        </details>
    }
}
