//! Untrusted text on screen: markdown through core's safe renderer, and plain
//! text blocks. Both cut very large texts in rendering with a "show all" control.

use leptos::prelude::*;
use taskview_core::screen::markdown::images::{loaded, ALT_CLASS, LOAD_CLASS, PLACEHOLDER_CLASS};
use taskview_core::screen::markdown::{displayed, render, Breaks, RemoteImages, SHOW_ALL_LABEL};
use wasm_bindgen::JsCast;

/// Markdown rendered by `taskview_core::screen::markdown::render`, the only HTML path
/// for untrusted text (docs/behaviour.md §6); images from other hosts as the
/// page's [`RemoteImages`] (context) says, a placeholder's click loading its
/// one image.
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
    let images = use_context::<RemoteImages>().unwrap_or_default();
    let show_all = RwSignal::new(false);
    let is_cut = displayed(&text, false).1;
    let html = move || render(displayed(&text, show_all.get()).0, breaks, images);
    view! {
        <div class="md" inner_html=html on:click=load_clicked_image></div>
        <ShowAll is_cut show_all />
    }
}

/// A click on a remote image's placeholder: that one image, as core writes
/// it loaded (`images::loaded`).
fn load_clicked_image(event: leptos::ev::MouseEvent) {
    let Some(target) = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    if target
        .closest(&format!("button.{LOAD_CLASS}"))
        .ok()
        .flatten()
        .is_none()
    {
        return;
    }
    let selector = format!(".{PLACEHOLDER_CLASS}[data-remote-src]");
    let Some(placeholder) = target.closest(&selector).ok().flatten() else {
        return;
    };
    event.prevent_default();
    event.stop_propagation();
    let src = placeholder
        .get_attribute("data-remote-src")
        .unwrap_or_default();
    let alt = placeholder
        .query_selector(&format!(".{ALT_CLASS}"))
        .ok()
        .flatten()
        .and_then(|a| a.text_content())
        .unwrap_or_default();
    if let Some(html) = loaded(&src, &alt) {
        placeholder.set_outer_html(&html);
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
