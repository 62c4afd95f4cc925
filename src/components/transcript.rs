//! The transcript list (SPEC.md §2, §4, §8): virtualized top-level rows with
//! measured heights, follow-the-tail, "jump to latest", `#msg-<id>` anchors,
//! and a polite live region announcing finished subagents.

use crate::components::row::RowView;
use crate::live::Live;
use leptos::html::Div;
use leptos::prelude::*;
use std::time::Duration;
use taskview_core::layout::RowKey;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Rows are rendered this many pixels beyond each edge of the viewport.
const OVERSCAN_PX: f64 = 800.0;
/// Within this distance of the end counts as "at the bottom".
const BOTTOM_SLACK_PX: f64 = 32.0;

/// The transcript of whatever the app's store holds.
#[component]
pub fn Transcript(
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

    let range = {
        let live = live.clone();
        Memo::new(move |_| {
            live.track_list();
            live.track_heights();
            let (top, height) = (scroll_top.get(), viewport.get());
            live.read(|d| {
                let (first, end) = d.heights.visible_range(top, height, OVERSCAN_PX);
                let before = d.heights.offset_of(first);
                let after = d.heights.total() - d.heights.offset_of(end);
                (first, end, before, after)
            })
        })
    };
    let keys = {
        let live = live.clone();
        move || {
            live.track_list();
            let (first, end, ..) = range.get();
            live.read(|d| {
                (first..end)
                    .filter_map(|i| d.layout.top_row(i).map(|r| r.key.clone()))
                    .collect::<Vec<_>>()
            })
        }
    };
    let row_count = {
        let live = live.clone();
        Memo::new(move |_| {
            live.track_list();
            live.read(|d| d.heights.len())
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
        if bottom {
            following.set(true);
        } else if top < last_top.get_value() - 1.0 {
            following.set(false);
        }
        last_top.set_value(top);
    };

    // Follow the tail: after rows or heights change, stay at the bottom.
    {
        let live = live.clone();
        Effect::new(move |_| {
            live.track_list();
            live.track_heights();
            let follow = following.get_untracked();
            // The list may be gone by the next frame: only `try_` accesses here.
            request_animation_frame(move || {
                let Some(Some(el)) = scroller.try_get_untracked() else {
                    return;
                };
                if follow {
                    el.set_scroll_top(el.scroll_height());
                }
                at_bottom.try_set(is_at_bottom(&el));
            });
        });
    }
    // Measure the viewport once mounted.
    Effect::new(move |_| {
        if let Some(el) = scroller.get() {
            viewport.set(f64::from(el.client_height()).max(200.0));
        }
    });
    // `#msg-<id>`: open what contains it and scroll there, now and on hashchange.
    {
        let on_load = live.clone();
        let revealed = StoredValue::new(false);
        Effect::new(move |_| {
            if row_count.get() > 0 && !revealed.get_value() {
                revealed.set_value(reveal_hash(&on_load, scroller, following));
            }
        });
        let live = live.clone();
        let handle = window_event_listener(leptos::ev::hashchange, move |_| {
            reveal_hash(&live, scroller, following);
        });
        on_cleanup(move || handle.remove());
    }

    let jump = move |_| {
        following.set(true);
        scroll_to_end(scroller);
    };
    let announcement = live.announcement();
    let show_jump = move || !at_bottom.get() && row_count.get() != 0;
    view! {
        <div class="transcript-scroll" node_ref=scroller on:scroll=on_scroll data-testid="transcript">
            <div class="transcript" role="feed" aria-label="Transcript">
                <div class="spacer" style:height=move || format!("{}px", range.get().2)></div>
                <For each=keys key=|k| k.to_string() let:row_key>
                    <RowSlot row_key />
                </For>
                <div class="spacer" style:height=move || format!("{}px", range.get().3)></div>
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
            <RowView row_key />
        </div>
    }
}

/// True when the end of the list is in view.
fn is_at_bottom(el: &web_sys::HtmlDivElement) -> bool {
    f64::from(el.scroll_top() + el.client_height())
        >= f64::from(el.scroll_height()) - BOTTOM_SLACK_PX
}

fn scroll_to_end(scroller: NodeRef<Div>) {
    if let Some(Some(el)) = scroller.try_get_untracked() {
        el.set_scroll_top(el.scroll_height());
    }
}

/// Opens and scrolls to the message named by `location.hash` (`#msg-<id>`).
/// Returns whether there is nothing (more) to do: no anchor, or it was found.
fn reveal_hash(live: &Live, scroller: NodeRef<Div>, following: RwSignal<bool>) -> bool {
    let hash = window().location().hash().unwrap_or_default();
    let Some(id) = hash.strip_prefix("#msg-").map(decode) else {
        return true;
    };
    let Some(index) = live.reveal(&id) else {
        return false;
    };
    following.set(false);
    if let Some(el) = scroller.get_untracked() {
        let offset = live.read(|d| d.heights.offset_of(index));
        el.set_scroll_top(offset as i32);
    }
    scroll_into_view(format!("msg-{id}"), 10);
    true
}

/// Scrolls element `id` into view once it is rendered, retrying a few frames.
fn scroll_into_view(id: String, tries: u32) {
    set_timeout(
        move || match document().get_element_by_id(&id) {
            Some(el) => el.scroll_into_view_with_bool(true),
            None if tries > 0 => scroll_into_view(id, tries - 1),
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
