//! The app's router: the URL's path and query in a signal, kept current by
//! the browser's back and forward (`popstate`) and by in-app links. A plain
//! click on a same-origin `<a>` to another page of the app navigates without
//! a reload (`history.pushState`); anything else (a new tab, a download, a
//! file, a change of `#hash` alone) is left to the browser. Which page a path
//! shows is core's `route::Route`.

use leptos::ev;
use leptos::prelude::*;
use taskview_core::read::route::{Page, Route};
use wasm_bindgen::{JsCast, JsValue};

/// Where the app is: the URL's path and query (`?…`, or empty).
#[derive(Clone, Copy)]
pub struct Location {
    url: RwSignal<(String, String)>,
}

impl Location {
    /// Reads the page's URL, follows it from now on, and provides it as
    /// context for the whole app.
    pub fn install() -> Location {
        let location = Location {
            url: RwSignal::new(current()),
        };
        provide_context(location);
        window_event_listener(ev::popstate, move |_| location.url.set(current()));
        window_event_listener(ev::click, move |event| {
            if let Some(url) = in_app_link(&event) {
                event.prevent_default();
                location.go(&url);
            }
        });
        location
    }

    /// The app's location, from context.
    pub fn get() -> Location {
        expect_context::<Location>()
    }

    /// The route of the path (tracked).
    pub fn route(&self) -> Route {
        self.url.with(|(path, _)| Route::of(path))
    }

    /// Whether the page is an embed (read once: it never changes in a frame).
    pub fn is_embed(&self) -> bool {
        self.url.with_untracked(|(path, _)| Route::of(path).embed)
    }

    /// The path (tracked).
    pub fn path(&self) -> String {
        self.url.with(|(path, _)| path.clone())
    }

    /// The value of query parameter `name` (tracked).
    pub fn query(&self, name: &str) -> Option<String> {
        self.url.with(|(_, search)| {
            web_sys::UrlSearchParams::new_with_str(search)
                .ok()
                .and_then(|params| params.get(name))
        })
    }

    /// The URL's query, `?…` or empty (tracked).
    pub fn search(&self) -> String {
        self.url.with(|(_, search)| search.clone())
    }

    /// Replaces the URL's query with `query` (without its `?`; empty: none)
    /// in place, adding no history entry: what a page shows, kept in its URL.
    pub fn replace_query(&self, query: &str) {
        let path = self.url.with_untracked(|(path, _)| path.clone());
        let search = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        if self.url.with_untracked(|(_, s)| *s == search) {
            return;
        }
        if let Ok(history) = window().history() {
            let url = format!("{path}{search}");
            let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
        }
        self.url.set((path, search));
    }

    /// Navigates to `url` (same origin) without a reload.
    fn go(&self, url: &web_sys::Url) {
        if let Ok(history) = window().history() {
            let _ = history.push_state_with_url(&JsValue::NULL, "", Some(&url.href()));
        }
        self.url.set((url.pathname(), url.search()));
    }
}

/// The path and query of the page's URL.
fn current() -> (String, String) {
    let location = window().location();
    (
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default(),
    )
}

/// The URL a click goes to when it is an in-app navigation: the primary
/// button alone, on a link without `target` or `download`, to another page
/// of the app on this origin.
fn in_app_link(event: &web_sys::MouseEvent) -> Option<web_sys::Url> {
    let modified = event.meta_key() || event.ctrl_key() || event.shift_key() || event.alt_key();
    if event.default_prevented() || event.button() != 0 || modified {
        return None;
    }
    let link = event
        .target()?
        .dyn_into::<web_sys::Element>()
        .ok()?
        .closest("a[href]")
        .ok()??;
    let elsewhere = link
        .get_attribute("target")
        .is_some_and(|t| !t.is_empty() && t != "_self");
    if elsewhere || link.has_attribute("download") {
        return None;
    }
    let here = window().location();
    let url = web_sys::Url::new_with_base(&link.get_attribute("href")?, &here.href().ok()?).ok()?;
    let same_page =
        url.pathname() == here.pathname().ok()? && url.search() == here.search().ok()?;
    let hash_only = same_page && !url.hash().is_empty();
    let app_page = Route::of(&url.pathname()).page != Page::Unknown;
    (url.origin() == here.origin().ok()? && app_page && !hash_only).then_some(url)
}
