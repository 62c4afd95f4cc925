//! The reading progress bar of a file that opens progressively or of a
//! folder's sessions (props only: the value and every word come from
//! `core::view::progress`).

use leptos::prelude::*;
use taskview_core::screen::view::progress::ProgressView;

/// An accessible progress bar (`role=progressbar` with its values) and its text.
#[component]
pub fn ProgressBar(progress: Signal<ProgressView>) -> impl IntoView {
    let percent = move || progress.with(|p| p.percent);
    view! {
        <span class="progress" data-testid="load-progress">
            <span
                class="progress-track"
                role="progressbar"
                aria-label=move || progress.with(|p| p.label.clone())
                aria-valuemin="0"
                aria-valuemax="100"
                aria-valuenow=percent
                aria-valuetext=move || progress.with(|p| p.text.clone())
            >
                <span class="progress-fill" style:width=move || format!("{}%", percent())></span>
            </span>
            <span class="progress-text" aria-hidden="true">{move || progress.with(|p| p.text.clone())}</span>
        </span>
    }
}
