//! The scroll state of the transcript list (docs/behaviour.md §4, §10): the reading
//! position held by row, the held deep link and the offset the list last put
//! itself at or saw; the list (`transcript`) settles it after every change and
//! the rows (`rows`) reach it through the context to keep a toggled row's
//! header in place.

use super::Live;
use leptos::html::Div;
use leptos::prelude::*;
use taskview_core::screen::view::row::body_id;
use taskview_core::screen::viewer::{
    follows_tail_after_scroll, moved_by_others, pin_action, PinAction, ReadingPosition,
};
use taskview_core::state::layout::RowKey;
use wasm_bindgen::JsCast;

/// Within this distance of the end counts as "at the bottom".
const BOTTOM_SLACK_PX: f64 = 32.0;
/// Frames to wait for a held deep link's element to render.
pub(super) const PIN_TRIES: u32 = 10;

/// The scroll state of one list: where the reader is, the held deep link,
/// and the offset the list last put itself at or saw. Rows reach it through
/// the context, to keep a toggled row's header in place.
#[derive(Clone, Copy)]
pub(super) struct Scroll {
    pub(super) live: StoredValue<Live>,
    pub(super) scroller: NodeRef<Div>,
    pub(super) position: RwSignal<ReadingPosition>,
    pub(super) pinned: RwSignal<Option<String>>,
    pub(super) known_top: StoredValue<f64>,
    /// A row the reader toggled is resizing: the next offset the browser
    /// clamps it to is the list's own doing, not the reader's scroll.
    pub(super) resizing: StoredValue<bool>,
    pub(super) at_bottom: RwSignal<bool>,
    /// The top-level rows rendered now, in order.
    pub(super) rendered: StoredValue<Vec<RowKey>>,
}

impl Scroll {
    fn following(&self) -> bool {
        self.position
            .with_untracked(|p| *p == ReadingPosition::Tail)
    }

    /// Stops holding the deep link.
    pub(super) fn release(&self) {
        if self.pinned.get_untracked().is_some() {
            self.pinned.set(None);
            self.live.with_value(Live::release_anchor);
        }
    }

    /// A scroll the list did not make: the reader's. It moves the reading
    /// position and releases a held link it takes out of view.
    pub(super) fn reader_scrolled(&self, el: &web_sys::HtmlDivElement) {
        let top = f64::from(el.scroll_top());
        let scrolled_up = top < self.known_top.get_value() - 1.0;
        self.known_top.set_value(top);
        if let Some(anchor) = self.pinned.get_untracked() {
            if pin_action(element_in_view(el, &anchor), true) == PinAction::Release {
                self.release();
            }
        }
        let holding = self.pinned.get_untracked().is_some();
        let tail =
            follows_tail_after_scroll(self.following(), is_at_bottom(el), holding, scrolled_up);
        let next = if tail {
            ReadingPosition::Tail
        } else {
            self.position_here(el)
        };
        if self.position.with_untracked(|p| *p != next) {
            self.position.set(next);
        }
        set_changed(self.at_bottom, is_at_bottom(el));
    }

    /// The reading position at the list's top edge, read from the rendered
    /// rows: exact while a row's height is not measured yet (a card that
    /// just opened), where the height index would point rows further on.
    /// From the index when the edge is in a spacer.
    fn position_here(&self, el: &web_sys::HtmlDivElement) -> ReadingPosition {
        let edge = el.get_bounding_client_rect().top();
        let slots = el.query_selector_all(".row-slot").ok();
        let found = self.rendered.with_value(|keys| {
            let slots = slots?;
            for (n, key) in keys.iter().enumerate() {
                let slot = slots.item(n as u32)?.dyn_into::<web_sys::Element>().ok()?;
                if slot.get_attribute("data-row-key")? != key.to_string() {
                    return None;
                }
                let rect = slot.get_bounding_client_rect();
                if rect.bottom() > edge {
                    return (rect.top() <= edge + 0.5).then(|| (key.clone(), edge - rect.top()));
                }
            }
            None
        });
        let top = f64::from(el.scroll_top());
        self.live.with_value(|live| match found {
            Some((key, within)) => live.position_in_row(&key, within),
            None => live.position_at(top),
        })
    }

    /// Where the header of row `key` is before it toggles: its top-level
    /// row, how far into that row, and how far below the list's top edge.
    /// `None` when the row is not rendered in this list.
    pub(super) fn header_of(&self, key: &RowKey) -> Option<(RowKey, f64, f64)> {
        let el = self.scroller.get_untracked()?;
        // A toggled row's header controls its body; the header is the row's top.
        let row = document()
            .get_element_by_id(&body_id(key))?
            .parent_element()?;
        let slot = row.closest(".row-slot").ok()??;
        let slot_key = slot.get_attribute("data-row-key")?;
        let top = self
            .rendered
            .with_value(|keys| keys.iter().find(|k| k.to_string() == slot_key).cloned())?;
        let header = row.get_bounding_client_rect().top();
        Some((
            top,
            header - slot.get_bounding_client_rect().top(),
            header - el.get_bounding_client_rect().top(),
        ))
    }

    /// A row toggled by the reader: the list holds its header where it was
    /// on screen (`core::viewer::Viewer::position_keeping_header`), instead
    /// of following the tail or a deep link, or keeping an offset into a row
    /// that no longer reaches it.
    pub(super) fn keep_header(&self, (top, in_row, on_screen): (RowKey, f64, f64)) {
        self.release();
        self.resizing.set_value(true);
        let at = self.live.with_value(|live| {
            live.viewer()
                .position_keeping_header(&top, in_row, on_screen)
        });
        self.position.set(at);
    }

    /// Whether the list's offset is not the one it last put itself at or
    /// saw (`core::viewer::moved_by_others`).
    pub(super) fn moved(&self, el: &web_sys::HtmlDivElement) -> bool {
        let end = f64::from(el.scroll_height() - el.client_height());
        moved_by_others(f64::from(el.scroll_top()), self.known_top.get_value(), end)
    }

    /// Takes a scroll the reader made that the list has not seen yet (its
    /// event comes with the next frame), before a batch changes the rows.
    pub(super) fn catch_up(&self) {
        let Some(Some(el)) = self.scroller.try_get_untracked() else {
            return;
        };
        if !self.resizing.get_value() && self.moved(&el) {
            self.reader_scrolled(&el);
        }
    }

    /// Puts the list at the reading position (`scroll_top` for a row), then
    /// brings a held deep link back into view if rows moved it away. An
    /// unprocessed scroll of the reader wins over both.
    pub(super) fn settle(&self, scroll_top: f64, tries: u32) {
        let Some(Some(el)) = self.scroller.try_get_untracked() else {
            return;
        };
        let resizing = self.resizing.get_value();
        self.resizing.set_value(false);
        if !resizing && self.moved(&el) {
            self.reader_scrolled(&el);
            return;
        }
        let target = if self.following() {
            f64::from(el.scroll_height())
        } else {
            scroll_top
        };
        if (f64::from(el.scroll_top()) - target).abs() >= 1.0 {
            el.set_scroll_top(target as i32);
        }
        self.known_top.set_value(f64::from(el.scroll_top()));
        if let Some(anchor) = self.pinned.get_untracked() {
            if pin_action(element_in_view(&el, &anchor), false) == PinAction::Rescroll {
                match document().get_element_by_id(&anchor) {
                    Some(target) => {
                        target.scroll_into_view_with_bool(true);
                        self.known_top.set_value(f64::from(el.scroll_top()));
                        self.position.set(self.position_here(&el));
                    }
                    // Not rendered yet (a card opening): try again next frame.
                    None if tries > 0 => {
                        let this = *self;
                        request_animation_frame(move || this.settle(scroll_top, tries - 1));
                    }
                    None => {}
                }
            }
        }
        set_changed(self.at_bottom, is_at_bottom(&el));
    }
}

/// Sets `signal` to `value` unless it holds that already (a set wakes its
/// readers even when nothing changed).
pub(super) fn set_changed<T: PartialEq + Send + Sync + 'static>(signal: RwSignal<T>, value: T) {
    if signal.with_untracked(|v| *v != value) {
        signal.set(value);
    }
}

/// True when the end of the list is in view.
pub(super) fn is_at_bottom(el: &web_sys::HtmlDivElement) -> bool {
    f64::from(el.scroll_top() + el.client_height())
        >= f64::from(el.scroll_height()) - BOTTOM_SLACK_PX
}

/// Whether element `id`'s top is inside the scroller's visible part;
/// `None` when it is not rendered.
fn element_in_view(el: &web_sys::HtmlDivElement, id: &str) -> Option<bool> {
    let target = document().get_element_by_id(id)?;
    let outer = el.get_bounding_client_rect();
    let top = target.get_bounding_client_rect().top();
    Some(top >= outer.top() - 1.0 && top < outer.bottom() - 8.0)
}
