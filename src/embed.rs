//! The embed contract's DOM glue (docs/embedding.md); `taskview_core::read::embed`
//! reads the messages and decides whether one is obeyed.
//!
//! [`install`] listens for host messages and, when the page is framed by an
//! allowed origin, says `ready` to it and keeps it told of the content height
//! (`resize`) and of the rows the reader opens (`navigate`), always posting
//! to that exact origin. Ignored messages are counted for the `?debug` hooks.

use crate::live::Live;
use crate::sources::post_message;
use leptos::prelude::*;
use serde_json::Value;
use std::cell::RefCell;
use taskview_core::read::embed::{self, AllowList, Ignored, Inbound, Sender, Theme};
use taskview_core::state::layout::RowKey;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The page's side of the contract.
struct Host {
    live: Live,
    allow: AllowList,
    /// The framing page's exact origin, when it is allowed: where to post.
    target: Option<String>,
    /// Messages ignored, by reason: not from the parent, foreign origin, unknown.
    ignored: [u32; 3],
    last_height: Option<f64>,
    observer: Option<(web_sys::ResizeObserver, Closure<dyn FnMut()>)>,
}

thread_local! {
    static HOST: RefCell<Option<Host>> = const { RefCell::new(None) };
}

/// Starts the contract for the app's lifetime.
pub fn install(live: Live) {
    let window = window();
    let own = window.location().origin().unwrap_or_default();
    let allow = AllowList::new(&own, &listed_origins());
    let framed = window
        .parent()
        .ok()
        .flatten()
        .is_some_and(|p| !is_same(p.as_ref(), window.as_ref()));
    let target = framed
        .then(parent_origin)
        .flatten()
        .and_then(|o| embed::host_target(Some(&o), &allow));
    let listener = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(receive);
    // Adding a listener to the window cannot fail.
    let _ = window.add_event_listener_with_callback("message", listener.as_ref().unchecked_ref());
    listener.forget();
    let observer = target.is_some().then(height_observer).flatten();
    HOST.with_borrow_mut(|h| {
        *h = Some(Host {
            live,
            allow,
            target,
            ignored: [0; 3],
            last_height: None,
            observer,
        })
    });
    post(embed::ready());
    if let Some(body) = document().body() {
        watch_height(&body);
    }
}

/// Messages ignored so far: `[not from the parent, foreign origin, unknown type]`.
pub fn ignored_counts() -> [u32; 3] {
    HOST.with_borrow(|h| h.as_ref().map_or([0; 3], |h| h.ignored))
}

/// Keeps the host told of the content height while `el` changes size (the
/// page body, and each transcript list whose own scrolling hides its height).
pub fn watch_height(el: &web_sys::Element) {
    HOST.with_borrow(|h| {
        if let Some((observer, _)) = h.as_ref().and_then(|h| h.observer.as_ref()) {
            observer.observe(el);
        }
    });
}

/// The reader opened row `key` (a `card` or a `group`): tell the host; an
/// orphan card has no message of its own and is not told.
pub fn opened(key: &RowKey, kind: &str) {
    let (RowKey::Message(id) | RowKey::Group(id)) = key else {
        return;
    };
    let href = window().location().href().unwrap_or_default();
    post(embed::navigate(id, kind, &embed::deep_link(&href, id)));
}

fn receive(ev: web_sys::MessageEvent) {
    let Some(data) = to_value(&ev.data()) else {
        return;
    };
    let inbound = embed::parse(&data);
    if inbound == Inbound::Foreign {
        return;
    }
    let sender = sender(&ev);
    let verdict = HOST.with_borrow(|h| {
        h.as_ref()
            .map(|h| embed::decide(&inbound, sender, &ev.origin(), &h.allow))
    });
    match verdict {
        Some(Ok(())) => obey(inbound),
        Some(Err(why)) => count(why),
        None => {}
    }
}

fn obey(inbound: Inbound) {
    match inbound {
        Inbound::Append(request) => {
            if !post_message::deliver(&request) {
                count(Ignored::Unknown);
            }
        }
        Inbound::Theme(theme) => set_theme(theme),
        Inbound::Reveal(id) => {
            let live = HOST.with_borrow(|h| h.as_ref().map(|h| h.live.clone()));
            if let Some(live) = live {
                live.follow_anchor(&id);
            }
        }
        Inbound::Unknown | Inbound::Foreign => {}
    }
}

fn count(why: Ignored) {
    let slot = match why {
        Ignored::NotParent => 0,
        Ignored::Origin => 1,
        Ignored::Unknown => 2,
    };
    HOST.with_borrow_mut(|h| {
        if let Some(h) = h.as_mut() {
            h.ignored[slot] += 1;
        }
    });
}

/// `data-theme` on `<html>` (style/base.css); removed for `auto`.
fn set_theme(theme: Theme) {
    let Some(root) = document().document_element() else {
        return;
    };
    // Setting or removing an attribute on <html> cannot fail.
    let _ = match theme.attribute() {
        Some(value) => root.set_attribute("data-theme", value),
        None => root.remove_attribute("data-theme"),
    };
}

/// Posts `message` to the host at its exact origin; nothing when there is
/// no allowed host.
fn post(message: Value) {
    let Some(target) = HOST.with_borrow(|h| h.as_ref().and_then(|h| h.target.clone())) else {
        return;
    };
    let Ok(Some(parent)) = window().parent() else {
        return;
    };
    if let Ok(data) = js_sys::JSON::parse(&message.to_string()) {
        // A target origin that no longer matches drops the message, by design.
        let _ = parent.post_message(&data, &target);
    }
}

fn height_observer() -> Option<(web_sys::ResizeObserver, Closure<dyn FnMut()>)> {
    let closure = Closure::<dyn FnMut()>::new(report_height);
    let observer = web_sys::ResizeObserver::new(closure.as_ref().unchecked_ref()).ok()?;
    Some((observer, closure))
}

fn report_height() {
    let height = content_height();
    let due = HOST.with_borrow_mut(|h| {
        let h = h.as_mut()?;
        embed::resize_due(h.last_height, height).then(|| h.last_height = Some(height.ceil()))
    });
    if due.is_some() {
        post(embed::resize(height));
    }
}

/// The frame height at which no list scrolls inside: lists are sized from
/// the viewport (`100vh - …`), so each grows by what its content lacks.
fn content_height() -> f64 {
    let doc = document();
    let viewport = doc
        .document_element()
        .map_or(0.0, |d| f64::from(d.client_height()));
    let body = doc
        .body()
        .map_or(0.0, |b| b.get_bounding_client_rect().height());
    let mut lacking = 0.0;
    if let Ok(lists) = doc.query_selector_all(".transcript-scroll") {
        for i in 0..lists.length() {
            let Some(list) = lists
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            let inner = list
                .first_element_child()
                .map_or(0.0, |c| c.get_bounding_client_rect().height());
            lacking += inner - f64::from(list.client_height());
        }
    }
    viewport.max(body) + lacking
}

/// The origins `taskview serve --embed-origin` wrote into the page.
fn listed_origins() -> String {
    document()
        .query_selector(&format!("meta[name=\"{}\"]", embed::ORIGINS_META))
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .unwrap_or_default()
}

/// The framing page's origin: `location.ancestorOrigins[0]` where the
/// browser has it, else the referrer's.
fn parent_origin() -> Option<String> {
    let location = window().location();
    let ancestors = js_sys::Reflect::get(&location, &"ancestorOrigins".into()).ok();
    if let Some(list) = ancestors.filter(|a| !a.is_undefined() && !a.is_null()) {
        if let Some(first) = js_sys::Reflect::get(&list, &0.into())
            .ok()
            .and_then(|o| o.as_string())
        {
            return Some(first);
        }
    }
    let referrer = document().referrer();
    embed::origin_of(&referrer).map(str::to_string)
}

fn sender(ev: &web_sys::MessageEvent) -> Sender {
    let Some(source) = ev.source() else {
        return Sender::Other;
    };
    let window = window();
    if is_same(source.as_ref(), window.as_ref()) {
        return Sender::Itself;
    }
    match window.parent() {
        Ok(Some(parent)) if is_same(source.as_ref(), parent.as_ref()) => Sender::Parent,
        _ => Sender::Other,
    }
}

fn is_same(a: &JsValue, b: &JsValue) -> bool {
    a == b
}

fn to_value(data: &JsValue) -> Option<Value> {
    let text = js_sys::JSON::stringify(data).ok()?.as_string()?;
    serde_json::from_str(&text).ok()
}
