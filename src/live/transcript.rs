//! The transcript list (docs/behaviour.md §2, §4, §10): virtualized top-level rows with
//! measured heights, follow-the-tail, "jump to latest", `#msg-<id>` deep
//! links, and a polite live region announcing settled subagents.
//!
//! The list shows a reading position held by row (`core::viewer::ReadingPosition`):
//! the tail while following, else a row and an offset into it, so rows
//! landing or resizing above (an older page, a measurement) do not move what
//! the reader sees. The list puts itself there after every change; a scroll
//! it did not make is the reader's and moves the position (unless it is the
//! browser clamping the offset to a list that got shorter). A deep link is
//! held in view (following stops) until the reader scrolls it away
//! (`core::viewer::pin_action`); wheel, touch, key or pointer in the list
//! release it too.

use super::rows::LiveRow;
use super::scroll::{is_at_bottom, set_changed, Scroll, PIN_TRIES};
use super::Live;
use leptos::html::Div;
use leptos::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use taskview_core::screen::view::anchor::anchor_target;
use taskview_core::screen::viewer::ReadingPosition;
use taskview_core::screen::viewport::css_px;
use taskview_core::state::layout::RowKey;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Rows are rendered this many pixels beyond each edge of the viewport.
const OVERSCAN_PX: f64 = 800.0;

/// The transcript of whatever the app's model holds.
#[component]
pub fn LiveTranscript(
    /// Start at the newest row and follow it (live sessions); files start at the top.
    #[prop(default = false)]
    start_at_end: bool,
) -> impl IntoView {
    let live = expect_context::<Live>();
    let initial = move || {
        if start_at_end {
            ReadingPosition::Tail
        } else {
            ReadingPosition::start()
        }
    };
    let scroll = Scroll {
        live: StoredValue::new(live.clone()),
        scroller: NodeRef::<Div>::new(),
        position: RwSignal::new(initial()),
        pinned: RwSignal::new(None::<String>),
        known_top: StoredValue::new(0.0),
        resizing: StoredValue::new(false),
        at_bottom: RwSignal::new(true),
        rendered: StoredValue::new(Vec::new()),
    };
    provide_context(scroll);
    let scroller = scroll.scroller;
    let viewport = RwSignal::new(800.0);
    let measure: Measure = StoredValue::new_local(Measurer::new(live.clone()));
    provide_context(measure);
    on_cleanup(move || {
        if let Some(Some(m)) = measure.try_update_value(Option::take) {
            m.observer.disconnect();
        }
    });

    let window = {
        let live = live.clone();
        Memo::new(move |_| {
            scroll
                .position
                .with(|p| live.window(p, viewport.get(), OVERSCAN_PX))
        })
    };
    let row_count = Memo::new(move |_| window.with(|w| w.rows));
    {
        let hook = live.before_batch(move || scroll.catch_up());
        let live = live.clone();
        on_cleanup(move || live.remove_before_batch(&hook));
    }

    let on_scroll = move |_| {
        let Some(el) = scroller.get_untracked() else {
            return;
        };
        let top = f64::from(el.scroll_top());
        if scroll.resizing.get_value() {
            // The browser clamped the offset to a row the reader closed.
            scroll.resizing.set_value(false);
            scroll.known_top.set_value(top);
        } else if scroll.moved(&el) {
            scroll.reader_scrolled(&el);
            return;
        }
        set_changed(scroll.at_bottom, is_at_bottom(&el));
    };

    // After rows, heights or the position change: put the list there, once
    // this change's rows and spacers are in the DOM (the list's own render
    // effects run after this one, in the same microtask).
    let feed = NodeRef::<Div>::new();
    // The effect returns the rows' places as numbered: a change of heights
    // or position alone (the most common) leaves them.
    Effect::new(move |numbered: Option<(usize, usize)>| {
        let (top, first, rows, same_rows) = window.with(|w| {
            let same_rows = scroll.rendered.with_value(|r| *r == w.keys);
            if !same_rows {
                scroll.rendered.set_value(w.keys.clone());
            }
            (w.scroll_top, w.first, w.rows, same_rows)
        });
        let renumber = !same_rows || numbered != Some((first, rows));
        queue_microtask(move || {
            if let Some(feed) = feed.get_untracked().filter(|_| renumber) {
                number_articles(&feed, first, rows);
            }
            scroll.settle(top, PIN_TRIES);
            // The list's own rows stand where the server's first screen shows them.
            if rows > 0 {
                crate::first_screen::take_over();
            }
        });
        (first, rows)
    });
    // Measure the viewport once mounted, and again when it is resized (a
    // panel opening above it takes its room: fewer rows to render).
    crate::resize::on_resize(scroller, move |el| {
        set_changed(viewport, f64::from(el.client_height()).max(200.0));
    });
    // `#msg-<id>`: follow it now and on every hash change.
    {
        follow_hash(&live);
        let live = live.clone();
        let handle = window_event_listener(leptos::ev::hashchange, move |_| follow_hash(&live));
        on_cleanup(move || handle.remove());
    }
    // Another transcript opened: start over. A deep link laid out: hold it
    // in view from its row; following stops. One effect, so a reveal that
    // comes with the opening is never undone by it.
    {
        let (opened, reveal) = (live.inner.opened.clone(), live.inner.reveal.clone());
        let live = live.clone();
        Effect::new(move |previous: Option<(u64, Option<u64>)>| {
            let now = (opened.get(), reveal.with(|r| r.as_ref().map(|(n, _)| *n)));
            let reopened = previous.is_some_and(|(o, _)| o != now.0);
            if reopened {
                scroll.pinned.set(None);
                scroll.position.set(initial());
            }
            if reopened || previous.map(|(_, r)| r) != Some(now.1) {
                if let Some((_, reveal)) = reveal.get_untracked() {
                    scroll.pinned.set(Some(reveal.anchor.clone()));
                    scroll.position.set(live.position_of_row(reveal.top_index));
                }
            }
            now
        });
    }

    // An embed's host sizes its frame from the list's full height.
    Effect::new(move |_| {
        if let Some(el) = feed.get() {
            crate::embed::watch_height(&el);
        }
    });

    let release = move || scroll.release();
    let jump = move |_| {
        scroll.release();
        scroll.position.set(ReadingPosition::Tail);
    };
    let announcement = live.inner.announcement.clone();
    let show_jump = move || !scroll.at_bottom.get() && row_count.get() != 0;
    let keys = move || window.with(|w| w.keys.clone());
    view! {
        <div class="transcript-scroll" node_ref=scroller on:scroll=on_scroll
            on:wheel=move |_| release() on:touchstart=move |_| release()
            on:keydown=move |_| release() on:pointerdown=move |_| release()
            data-testid="transcript" tabindex="0" role="region" aria-label="Transcript">
            <div class="transcript" role="feed" aria-label="Messages" node_ref=feed>
                <div class="spacer" style:height=move || css_px(window.with(|w| w.before))></div>
                <For each=keys key=RowKey::clone let:row_key>
                    <RowSlot row_key />
                </For>
                <div class="spacer" style:height=move || css_px(window.with(|w| w.after))></div>
            </div>
        </div>
        <Show when=show_jump>
            <button class="jump-latest" data-testid="jump-to-latest" on:click=jump>"Jump to latest ↓"</button>
        </Show>
        <div class="visually-hidden" aria-live="polite" data-testid="live-region">
            {move || announcement.get()}
        </div>
    }
}

/// One `ResizeObserver` for every row slot of a list: the heights measured
/// in a frame reach the model as one batch (one list update, not one per row).
struct Measurer {
    observer: web_sys::ResizeObserver,
    /// Each observed slot's `data-row-key` and its row.
    keys: Rc<RefCell<HashMap<String, RowKey>>>,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl Measurer {
    fn new(live: Live) -> Option<Measurer> {
        let keys = Rc::new(RefCell::new(HashMap::<String, RowKey>::new()));
        let known = keys.clone();
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let known = known.borrow();
            let heights: Vec<(RowKey, f64)> = entries
                .iter()
                .filter_map(|entry| {
                    let target = entry
                        .dyn_into::<web_sys::ResizeObserverEntry>()
                        .ok()?
                        .target();
                    let key = known.get(&target.get_attribute("data-row-key")?)?;
                    let height = target.get_bounding_client_rect().height();
                    (height > 0.0).then(|| (key.clone(), height))
                })
                .collect();
            drop(known);
            live.set_heights(&heights);
        });
        let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
        Some(Measurer {
            observer,
            keys,
            _callback: callback,
        })
    }

    fn observe(&self, el: &web_sys::Element, key: &RowKey) {
        self.keys.borrow_mut().insert(key.to_string(), key.clone());
        self.observer.observe(el);
    }

    fn unobserve(&self, el: &web_sys::Element, key: &RowKey) {
        self.keys.borrow_mut().remove(&key.to_string());
        self.observer.unobserve(el);
    }
}

/// The list's measurer, for its row slots.
type Measure = StoredValue<Option<Measurer>, LocalStorage>;

/// A top-level row inside a wrapper whose size is measured.
#[component]
fn RowSlot(row_key: RowKey) -> impl IntoView {
    let measure = expect_context::<Measure>();
    let slot = NodeRef::<Div>::new();
    let observed = StoredValue::new_local(None::<web_sys::Element>);
    {
        let row_key = row_key.clone();
        Effect::new(move |_| {
            let Some(el) = slot.get() else { return };
            if observed.with_value(Option::is_some) {
                return;
            }
            let el: web_sys::Element = el.into();
            measure.with_value(|m| m.as_ref().map(|m| m.observe(&el, &row_key)));
            observed.set_value(Some(el));
        });
    }
    {
        let row_key = row_key.clone();
        on_cleanup(move || {
            if let Some(Some(el)) = observed.try_update_value(Option::take) {
                let _ = measure.try_with_value(|m| m.as_ref().map(|m| m.unobserve(&el, &row_key)));
            }
        });
    }
    let dom_key = row_key.to_string();
    view! {
        <div class="row-slot" role="article" node_ref=slot data-row-key=dom_key>
            <LiveRow row_key />
        </div>
    }
}

/// Tells each rendered article of the feed its place in the whole list
/// (`aria-posinset`, from `first + 1`) and the list's size (`aria-setsize`):
/// only a window of rows is in the DOM (ARIA feed pattern).
fn number_articles(feed: &web_sys::HtmlDivElement, first: usize, rows: usize) {
    let articles = feed.children();
    let total = rows.to_string();
    let mut place = first;
    for i in 0..articles.length() {
        let Some(article) = articles.item(i) else {
            continue;
        };
        if article.get_attribute("role").as_deref() != Some("article") {
            continue;
        }
        place += 1;
        set_attribute_changed(&article, "aria-posinset", &place.to_string());
        set_attribute_changed(&article, "aria-setsize", &total);
    }
}

/// Sets attribute `name` unless it holds `value` already.
fn set_attribute_changed(el: &web_sys::Element, name: &str, value: &str) {
    if el.get_attribute(name).as_deref() != Some(value) {
        let _ = el.set_attribute(name, value);
    }
}

/// Follows the message named by `location.hash` (`#msg-<id>`), if any.
fn follow_hash(live: &Live) {
    let hash = window().location().hash().unwrap_or_default();
    if let Some(id) = anchor_target(&hash) {
        live.follow_anchor(&decode(id));
    }
}

fn decode(s: &str) -> String {
    js_sys::decode_uri_component(s)
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| s.to_string())
}
