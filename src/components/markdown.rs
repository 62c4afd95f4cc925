//! Untrusted text on screen: markdown through core's safe renderer, and plain
//! text blocks. Both cut very large texts in rendering with a "show all" control.

use leptos::prelude::*;
use taskview_core::screen::markdown::{displayed, render, Breaks, SHOW_ALL_LABEL};

/// Markdown rendered by `taskview_core::screen::markdown::render`, the only HTML path
/// for untrusted text (docs/behaviour.md §6).
#[component]
pub fn Markdown(
    /// The untrusted markdown source.
    #[prop(into)]
    text: String,
    /// Chat text: a single newline is a line break.
    #[prop(default = true)]
    hard_breaks: bool,
) -> impl IntoView {
    let breaks = if hard_breaks {
        Breaks::Hard
    } else {
        Breaks::Soft
    };
    let show_all = RwSignal::new(false);
    let is_cut = displayed(&text, false).1;
    let html = move || render(displayed(&text, show_all.get()).0, breaks);
    view! {
        <div class="md" inner_html=html></div>
        <ShowAll is_cut show_all />
    }
}

/// Plain text in a `<pre>`, never interpreted.
#[component]
pub fn TextBlock(
    /// The untrusted text.
    #[prop(into)]
    text: String,
    /// Extra class for the block.
    #[prop(optional, into)]
    class: String,
    /// A `data-testid` for the block.
    #[prop(optional, into)]
    testid: Option<String>,
) -> impl IntoView {
    let show_all = RwSignal::new(false);
    let is_cut = displayed(&text, false).1;
    let shown = move || displayed(&text, show_all.get()).0.to_string();
    view! {
        <pre class=format!("text-block {class}") data-testid=testid>{shown}</pre>
        <ShowAll is_cut show_all />
    }
}

/// The "show all" control under a text cut for display.
#[component]
fn ShowAll(is_cut: bool, show_all: RwSignal<bool>) -> impl IntoView {
    view! {
        <Show when=move || is_cut && !show_all.get()>
            <button class="show-all" data-testid="show-all" on:click=move |_| show_all.set(true)>
                {SHOW_ALL_LABEL}
            </button>
        </Show>
    }
}
