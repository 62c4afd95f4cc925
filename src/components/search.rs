//! The transcript search box (docs/behaviour.md §8): the query, the match count
//! (`3 of 12`), next and previous (Enter / Shift+Enter, or the arrows), and `/`
//! anywhere on the page to focus it. Props-only: core searches; the caller
//! opens, scrolls to and highlights the match.

use leptos::html::Input;
use leptos::prelude::*;

/// The search box.
#[component]
pub fn TranscriptSearch(
    /// The count as core words it (`3 of 12`, `no matches`, empty).
    #[prop(into)]
    count: Signal<String>,
    /// The query changed.
    on_query: Callback<String>,
    /// Go to the next match (`true`) or the previous one.
    on_step: Callback<bool>,
) -> impl IntoView {
    let input = NodeRef::<Input>::new();
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() != "/" || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let typing = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|el| {
                matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                    || el.has_attribute("contenteditable")
            });
        if typing {
            return;
        }
        if let Some(el) = input.get_untracked() {
            ev.prevent_default();
            let _ = el.focus();
            el.select();
        }
    });
    on_cleanup(move || handle.remove());
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "Enter" => {
            ev.prevent_default();
            on_step.run(!ev.shift_key());
        }
        "Escape" => {
            if let Some(el) = input.get_untracked() {
                el.set_value("");
            }
            on_query.run(String::new());
        }
        _ => {}
    };
    let no_query = move || count.with(String::is_empty);
    view! {
        <div class="transcript-search" role="search">
            <input type="search" class="search-input" node_ref=input data-testid="transcript-search"
                aria-label="Search this transcript" aria-keyshortcuts="/" placeholder="Search  /"
                aria-describedby="search-count" autocomplete="off" spellcheck="false"
                on:input=move |ev| on_query.run(event_target_value(&ev)) on:keydown=on_keydown />
            <span id="search-count" class="search-count muted" data-testid="search-count"
                role="status" aria-live="polite">{move || count.get()}</span>
            <button class="search-step" aria-label="Previous match" disabled=no_query
                on:click=move |_| on_step.run(false)>"↑"</button>
            <button class="search-step" aria-label="Next match" disabled=no_query
                on:click=move |_| on_step.run(true)>"↓"</button>
        </div>
    }
}
