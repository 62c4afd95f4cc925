//! A transcript mounted in the page for browser tests: the app's store
//! (`Live`) filled with events and `<LiveTranscript/>` mounted on it.
#![allow(dead_code)] // each test binary uses its own subset

use super::mount;
use leptos::{prelude::*, task::tick};
use taskview_app::live::transcript::LiveTranscript;
use taskview_app::live::Live;
use taskview_core::model::event::Event;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

/// A mounted transcript and its store.
pub struct Mounted {
    pub host: HtmlElement,
    pub live: Live,
    _handle: Box<dyn std::any::Any>,
}

impl Mounted {
    pub async fn with(events: Vec<Event>) -> Mounted {
        let live = Live::new();
        live.apply(events);
        let in_view = live.clone();
        let (host, handle) = mount(move || {
            provide_context(in_view);
            view! { <LiveTranscript /> }.into_any()
        });
        let mounted = Mounted {
            host,
            live,
            _handle: Box::new(handle),
        };
        settle().await;
        mounted
    }

    pub async fn apply(&self, events: Vec<Event>) {
        self.live.apply(events);
        settle().await;
    }

    pub fn all(&self, selector: &str) -> Vec<Element> {
        let list = self.host.query_selector_all(selector).unwrap();
        (0..list.length())
            .filter_map(|i| list.item(i))
            .map(|n| n.unchecked_into())
            .collect()
    }

    pub fn one(&self, selector: &str) -> Option<Element> {
        self.host.query_selector(selector).unwrap()
    }

    pub fn texts(&self, selector: &str) -> Vec<String> {
        self.all(selector)
            .iter()
            .map(|e| e.text_content().unwrap_or_default())
            .collect()
    }

    /// The card showing message `id`.
    pub fn card(&self, id: &str) -> Element {
        self.one(&format!("[data-testid=subagent-card]#msg-{id}"))
            .unwrap_or_else(|| panic!("no card {id}: {}", self.host.inner_html()))
    }

    /// Attribute `name` of the first `selector` (panics when nothing matches).
    pub fn attr(&self, selector: &str, name: &str) -> Option<String> {
        self.one(selector)
            .unwrap_or_else(|| panic!("no {selector}: {}", self.host.inner_html()))
            .get_attribute(name)
    }

    /// `[href, rel]` of every `selector`, empty where one is missing.
    pub fn links(&self, selector: &str) -> Vec<[String; 2]> {
        self.all(selector)
            .iter()
            .map(|a| ["href", "rel"].map(|name| a.get_attribute(name).unwrap_or_default()))
            .collect()
    }

    /// Opens (or closes) card `id` by its header.
    pub async fn toggle(&self, id: &str) {
        let head = self
            .card(id)
            .query_selector("button.card-head")
            .unwrap()
            .expect("an expandable card");
        self.click(&head).await;
    }

    pub async fn click(&self, el: &Element) {
        el.unchecked_ref::<HtmlElement>().click();
        settle().await;
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        self.host.remove();
    }
}

/// Lets the reactive system and the DOM catch up.
pub async fn settle() {
    for _ in 0..4 {
        tick().await;
    }
}

/// Waits `n` animation frames (effects, layout, resize observers and scroll events run).
pub async fn frames(n: u32) {
    for _ in 0..n {
        tick().await;
        let frame = js_sys::Promise::new(&mut |resolve, _| {
            window().request_animation_frame(&resolve).unwrap();
        });
        wasm_bindgen_futures::JsFuture::from(frame).await.unwrap();
    }
    tick().await;
}

/// Waits `ms` of wall time, then for the DOM.
pub async fn wait_ms(ms: i32) {
    let done = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(done).await.unwrap();
    settle().await;
}

/// The text of the first `selector` inside `el`, when there is one.
pub fn text_in(el: &Element, selector: &str) -> Option<String> {
    el.query_selector(selector)
        .unwrap()
        .map(|e| e.text_content().unwrap_or_default())
}
