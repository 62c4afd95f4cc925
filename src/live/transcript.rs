//! The transcript list (SPEC.md §2, §4, §10): virtualized top-level rows with
//! measured heights, follow-the-tail, "jump to latest", `#msg-<id>` deep
//! links, and a polite live region announcing settled subagents.
//!
//! A deep link is followed until the reader moves (wheel, touch, key or
//! pointer in the list): the row is scrolled into view when it is laid out,
//! again whenever rows arrive or resize around it, and following the tail
//! stops while it is pinned.

use super::rows::LiveRow;
use super::Live;
use leptos::html::Div;
use leptos::prelude::*;
use std::time::Duration;
use taskview_core::layout::RowKey;
use taskview_core::view::row::anchor_target;
use taskview_core::viewport::css_px;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Rows are rendered this many pixels beyond each edge of the viewport.
const OVERSCAN_PX: f64 = 800.0;
/// Within this distance of the end counts as "at the bottom".
const BOTTOM_SLACK_PX: f64 = 32.0;

/// The transcript of whatever the app's model holds.
#[component]
pub fn LiveTranscript(
    /// Start at the newest row and follow it (live sessions); files start at the top.
    #[prop(default = false)]
    start_at_end: bool,
) -> impl IntoView {
    let live = expect_context::<Live>();
    let scroller = NodeRef::<Div>::new();
    let scroll_top = RwSignal::new(0.0);
    let viewport = RwSignal::new(800.0);
    let following = RwSignal::new(start_at_end);
    let at_bottom = RwSignal::new(true);
    // The element id of the deep link being kept in view, if any.
    let pinned = RwSignal::new(None::<String>);
    // Where this list last scrolled itself to, to tell the reader's scrolls apart.
    let own_scroll = StoredValue::new(f64::NAN);

    let window = {
        let live = live.clone();
        Memo::new(move |_| live.window(scroll_top.get(), viewport.get(), OVERSCAN_PX))
    };
    let row_count = Memo::new(move |_| window.with(|w| w.rows));

    // The reader moving on releases a deep link.
    let release = {
        let live = live.clone();
        Callback::new(move |()| {
            if pinned.get_untracked().is_some() {
                pinned.set(None);
                live.release_anchor();
            }
        })
    };

    // Following stops only when the user scrolls up; content growing below
    // (or scroll anchoring) must not end it.
    let last_top = StoredValue::new(0.0_f64);
    let on_scroll = move |_| {
        let Some(el) = scroller.get_untracked() else {
            return;
        };
        let top = f64::from(el.scroll_top());
        scroll_top.set(top);
        viewport.set(f64::from(el.client_height()));
        let bottom = is_at_bottom(&el);
        at_bottom.set(bottom);
        if let Some(anchor) = pinned.get_untracked() {
            // A scroll this list did not make that takes the link out of view.
            let ours = (top - own_scroll.get_value()).abs() < 2.0;
            let away = document()
                .get_element_by_id(&anchor)
                .is_some_and(|target| !is_in_view(&el, &target));
            if !ours && away {
                release.run(());
            }
        }
        if bottom && pinned.get_untracked().is_none() {
            following.set(true);
        } else if top < last_top.get_value() - 1.0 {
            following.set(false);
        }
        last_top.set_value(top);
    };

    // After rows or heights change: stay at the bottom, or keep the pinned
    // deep link in view.
    Effect::new(move |_| {
        window.track();
        let follow = following.get_untracked();
        let pin = pinned.get_untracked();
        // The list may be gone by the next frame: only `try_` accesses here.
        request_animation_frame(move || {
            let Some(Some(el)) = scroller.try_get_untracked() else {
                return;
            };
            if let Some(anchor) = pin {
                if let Some(target) = document().get_element_by_id(&anchor) {
                    if !is_in_view(&el, &target) {
                        target.scroll_into_view_with_bool(true);
                        own_scroll.try_set_value(f64::from(el.scroll_top()));
                    }
                }
            } else if follow {
                el.set_scroll_top(el.scroll_height());
            }
            at_bottom.try_set(is_at_bottom(&el));
        });
    });
    // Measure the viewport once mounted.
    Effect::new(move |_| {
        if let Some(el) = scroller.get() {
            viewport.set(f64::from(el.client_height()).max(200.0));
        }
    });
    // `#msg-<id>`: follow it now and on every hash change.
    {
        follow_hash(&live);
        let live = live.clone();
        let handle = window_event_listener(leptos::ev::hashchange, move |_| follow_hash(&live));
        on_cleanup(move || handle.remove());
    }
    // A deep link was laid out: scroll there and keep it in view.
    {
        let reveal = live.inner.reveal.clone();
        let live = live.clone();
        Effect::new(move |_| {
            let Some((_, reveal)) = reveal.get() else {
                return;
            };
            following.set(false);
            pinned.set(Some(reveal.anchor.clone()));
            if let Some(el) = scroller.get_untracked() {
                el.set_scroll_top(live.offset_of(reveal.top_index) as i32);
                own_scroll.set_value(f64::from(el.scroll_top()));
            }
            scroll_into_view(scroller, reveal.anchor, 10, own_scroll);
        });
    }

    let jump = move |_| {
        release.run(());
        following.set(true);
        scroll_to_end(scroller);
    };
    let announcement = live.inner.announcement.clone();
    let show_jump = move || !at_bottom.get() && row_count.get() != 0;
    let keys = move || window.with(|w| w.keys.clone());
    view! {
        <div class="transcript-scroll" node_ref=scroller on:scroll=on_scroll
            on:wheel=move |_| release.run(()) on:touchstart=move |_| release.run(())
            on:keydown=move |_| release.run(()) on:pointerdown=move |_| release.run(())
            data-testid="transcript">
            <div class="transcript" role="feed" aria-label="Transcript">
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

/// A top-level row inside a wrapper whose size is measured.
#[component]
fn RowSlot(row_key: RowKey) -> impl IntoView {
    let live = expect_context::<Live>();
    let slot = NodeRef::<Div>::new();
    let observer = StoredValue::new_local(
        None::<(web_sys::ResizeObserver, Closure<dyn FnMut(js_sys::Array)>)>,
    );
    {
        let row_key = row_key.clone();
        Effect::new(move |_| {
            let Some(el) = slot.get() else { return };
            if observer.with_value(Option::is_some) {
                return;
            }
            let (live, key) = (live.clone(), row_key.clone());
            let measure =
                Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                    let Some(entry) = entries
                        .get(0)
                        .dyn_ref::<web_sys::ResizeObserverEntry>()
                        .cloned()
                    else {
                        return;
                    };
                    let height = entry.target().get_bounding_client_rect().height();
                    if height > 0.0 {
                        live.set_height(&key, height);
                    }
                });
            if let Ok(ro) = web_sys::ResizeObserver::new(measure.as_ref().unchecked_ref()) {
                ro.observe(&el);
                observer.set_value(Some((ro, measure)));
            }
        });
    }
    on_cleanup(move || {
        if let Some(Some((ro, _closure))) = observer.try_update_value(Option::take) {
            ro.disconnect();
        }
    });
    let dom_key = row_key.to_string();
    view! {
        <div class="row-slot" node_ref=slot data-row-key=dom_key>
            <LiveRow row_key />
        </div>
    }
}

/// True when the end of the list is in view.
fn is_at_bottom(el: &web_sys::HtmlDivElement) -> bool {
    f64::from(el.scroll_top() + el.client_height())
        >= f64::from(el.scroll_height()) - BOTTOM_SLACK_PX
}

/// True when `target`'s top is inside the scroller's visible part.
fn is_in_view(el: &web_sys::HtmlDivElement, target: &web_sys::Element) -> bool {
    let outer = el.get_bounding_client_rect();
    let top = target.get_bounding_client_rect().top();
    top >= outer.top() - 1.0 && top < outer.bottom() - 8.0
}

fn scroll_to_end(scroller: NodeRef<Div>) {
    if let Some(Some(el)) = scroller.try_get_untracked() {
        el.set_scroll_top(el.scroll_height());
    }
}

/// Follows the message named by `location.hash` (`#msg-<id>`), if any.
fn follow_hash(live: &Live) {
    let hash = window().location().hash().unwrap_or_default();
    if let Some(id) = anchor_target(&hash) {
        live.follow_anchor(&decode(id));
    }
}

/// Scrolls element `id` into view once it is rendered, retrying a few frames.
/// Records where that left the list, as a scroll of its own.
fn scroll_into_view(scroller: NodeRef<Div>, id: String, tries: u32, own_scroll: StoredValue<f64>) {
    set_timeout(
        move || match document().get_element_by_id(&id) {
            Some(el) => {
                el.scroll_into_view_with_bool(true);
                if let Some(Some(list)) = scroller.try_get_untracked() {
                    own_scroll.try_set_value(f64::from(list.scroll_top()));
                }
            }
            None if tries > 0 => scroll_into_view(scroller, id, tries - 1, own_scroll),
            None => {}
        },
        Duration::from_millis(30),
    );
}

fn decode(s: &str) -> String {
    js_sys::decode_uri_component(s)
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| s.to_string())
}
