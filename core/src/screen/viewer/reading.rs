//! Where the reader is, and whether a deep link is still held (docs/behaviour.md §4,
//! §10). The position is a row, not a pixel offset: rows inserted or
//! resized above it (an older page landing, a measurement) leave what the
//! reader sees where it was, and a live session that follows its tail
//! stays at the end.

use super::Viewer;
use crate::state::layout::RowKey;

/// Distance, in pixels, under which two scroll offsets count as the same.
const SAME_OFFSET_PX: f64 = 2.0;

/// Where the reader is in the top-level list.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadingPosition {
    /// At the end, following new rows (a live session that was not scrolled up).
    Tail,
    /// At a top-level row, `within` pixels into it (negative: above it).
    /// `key` is `None` before the reader scrolled (the start of the list);
    /// `index` is where the row was, for when it goes away.
    Row {
        key: Option<RowKey>,
        index: usize,
        within: f64,
    },
}

impl ReadingPosition {
    /// The start of the list.
    pub fn start() -> ReadingPosition {
        ReadingPosition::Row {
            key: None,
            index: 0,
            within: 0.0,
        }
    }
}

/// What to do about a deep link being kept in view (docs/behaviour.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PinAction {
    /// It is in view: nothing to do.
    Keep,
    /// Rows moved it out of view (or out of the rendered rows): scroll back to it.
    Rescroll,
    /// The reader scrolled it away: stop holding it.
    Release,
}

/// The rule for a held deep link: the reader scrolling it out of view
/// releases it; anything else that takes it out of view brings it back.
/// `in_view` is `None` while its element is not rendered.
pub fn pin_action(in_view: Option<bool>, reader_scrolled: bool) -> PinAction {
    match (in_view, reader_scrolled) {
        (Some(true), _) => PinAction::Keep,
        (_, true) => PinAction::Release,
        (_, false) => PinAction::Rescroll,
    }
}

/// Whether the list's offset `now` is not the one it was last put at or
/// seen at (`known`): someone else (the reader, or the browser keeping its
/// scroll anchor) moved it. `end` is the largest offset the list has now:
/// an offset that went down onto it is the browser's clamp (the rows got
/// shorter than the offset, as when a row is measured smaller than its
/// estimate), not the reader's scroll.
pub fn moved_by_others(now: f64, known: f64, end: f64) -> bool {
    let same = (now - known).abs() < SAME_OFFSET_PX;
    let clamped = now < known && (now - end).abs() < SAME_OFFSET_PX;
    !same && !clamped
}

/// After the reader scrolled: whether the list follows its tail. It does
/// once they reach the end (unless a deep link is held), and keeps doing so
/// unless they scrolled up; rows growing below never end it.
pub fn follows_tail_after_scroll(
    following: bool,
    at_end: bool,
    holding_link: bool,
    scrolled_up: bool,
) -> bool {
    !holding_link && (at_end || (following && !scrolled_up))
}

impl Viewer {
    /// The reading position of a list scrolled to `scroll_top`.
    pub fn position_at(&self, scroll_top: f64) -> ReadingPosition {
        let heights = self.heights();
        if heights.is_empty() {
            return ReadingPosition::start();
        }
        let index = heights.index_at(scroll_top.max(0.0));
        ReadingPosition::Row {
            key: self.layout().top_row(index).map(|r| r.key.clone()),
            index,
            within: (scroll_top - heights.offset_of(index)).max(0.0),
        }
    }

    /// The reading position at the top of top-level row `index` (a deep link's row).
    pub fn position_of_row(&self, index: usize) -> ReadingPosition {
        ReadingPosition::Row {
            key: self.layout().top_row(index).map(|r| r.key.clone()),
            index,
            within: 0.0,
        }
    }

    /// The reading position `within` pixels into top-level row `key`, as the
    /// rendered rows show it (exact before the row's height is measured).
    pub fn position_in_row(&self, key: &RowKey, within: f64) -> ReadingPosition {
        ReadingPosition::Row {
            key: Some(key.clone()),
            index: self.layout().top_index_of(key).unwrap_or_default(),
            within: within.max(0.0),
        }
    }

    /// The reading position that keeps a row's header where it is on screen
    /// while the row opens or closes (docs/behaviour.md §10): the header is
    /// `header_in_row` pixels into top-level row `top` and `on_screen` pixels
    /// below the list's top edge. A header above the edge (the reader was
    /// inside the row, or below it in the same top-level row) comes to the
    /// edge, so the reader is not left among the rows after it.
    pub fn position_keeping_header(
        &self,
        top: &RowKey,
        header_in_row: f64,
        on_screen: f64,
    ) -> ReadingPosition {
        ReadingPosition::Row {
            key: Some(top.clone()),
            index: self.layout().top_index_of(top).unwrap_or_default(),
            within: header_in_row - on_screen.max(0.0),
        }
    }

    /// The scroll offset that shows `position` in a viewport of `viewport`
    /// pixels: the end for [`ReadingPosition::Tail`], else the row's offset
    /// now (found by key, or at its old index when it is gone) plus `within`.
    pub fn scroll_top_of(&self, position: &ReadingPosition, viewport: f64) -> f64 {
        let heights = self.heights();
        let end = (heights.total() - viewport).max(0.0);
        match position {
            ReadingPosition::Tail => end,
            ReadingPosition::Row { key, index, within } => {
                let at = key
                    .as_ref()
                    .and_then(|k| self.layout().top_index_of(k))
                    .unwrap_or_else(|| (*index).min(heights.len().saturating_sub(1)));
                heights.offset_of(at) + within
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::Event;
    use crate::model::message::Message;
    use serde_json::json;

    fn user(id: &str, minute: u64) -> Event {
        let v = json!({"id": id, "session_id": "s", "author_type": "user", "content": "hi",
            "created_at": format!("2026-08-03T10:{minute:02}:00Z")});
        Event::MessageAdded(Message::from_value(&v).unwrap())
    }

    fn key(id: &str) -> RowKey {
        RowKey::Message(id.into())
    }

    /// Ten rows of 44 px (estimated), minutes 20 to 29.
    fn viewer() -> Viewer {
        let mut v = Viewer::new();
        v.apply((20..30).map(|m| user(&format!("m{m}"), m)));
        v
    }

    #[test]
    fn a_row_position_survives_an_older_page_landing_above_it() {
        let mut v = viewer();
        let at = v.position_at(3.0 * 44.0 + 10.0);
        assert_eq!(
            at,
            ReadingPosition::Row {
                key: Some(key("m23")),
                index: 3,
                within: 10.0
            }
        );
        v.apply((0..5).map(|m| user(&format!("old{m}"), m)));
        assert_eq!(v.scroll_top_of(&at, 400.0), 8.0 * 44.0 + 10.0);
    }

    #[test]
    fn a_measured_row_above_moves_the_offset_not_the_reader() {
        let mut v = viewer();
        let at = v.position_at(5.0 * 44.0);
        v.set_height(&key("m21"), 144.0);
        assert_eq!(v.scroll_top_of(&at, 400.0), 5.0 * 44.0 + 100.0);
    }

    #[test]
    fn a_position_read_inside_an_unmeasured_row_stays_in_that_row_once_it_is_measured() {
        // A card that just opened is 2,000 px tall on screen but still 44 px in
        // the index: a position taken from the index at its lower part would
        // land rows further on; the rendered row's own offset does not.
        let mut v = viewer();
        let inside = v.position_in_row(&key("m22"), 1500.0);
        assert_ne!(v.position_at(2.0 * 44.0 + 1500.0), inside);
        v.set_height(&key("m22"), 2000.0);
        assert_eq!(v.scroll_top_of(&inside, 400.0), 2.0 * 44.0 + 1500.0);
        assert_eq!(v.position_at(2.0 * 44.0 + 1500.0), inside);
    }

    #[test]
    fn a_toggled_row_keeps_its_header_on_screen_and_one_above_the_edge_comes_to_it() {
        let mut v = viewer();
        v.set_height(&key("m22"), 2000.0);
        // A header 100 px into m22, 50 px below the top edge: it stays there.
        let at = v.position_keeping_header(&key("m22"), 100.0, 50.0);
        assert_eq!(v.scroll_top_of(&at, 400.0), 2.0 * 44.0 + 50.0);
        // The reader was 300 px below it (inside the row): it comes to the edge.
        let inside = v.position_keeping_header(&key("m22"), 100.0, -300.0);
        assert_eq!(v.scroll_top_of(&inside, 400.0), 2.0 * 44.0 + 100.0);
        // Once the row closes, rows landing above still leave it in place.
        v.set_height(&key("m22"), 60.0);
        v.apply((0..5).map(|m| user(&format!("old{m}"), m)));
        assert_eq!(v.scroll_top_of(&inside, 400.0), 7.0 * 44.0 + 100.0);
    }

    #[test]
    fn the_tail_is_the_end_of_the_list_whatever_lands_above() {
        let mut v = viewer();
        assert_eq!(v.scroll_top_of(&ReadingPosition::Tail, 400.0), 40.0);
        v.apply((0..5).map(|m| user(&format!("old{m}"), m)));
        assert_eq!(v.scroll_top_of(&ReadingPosition::Tail, 400.0), 260.0);
        assert_eq!(v.scroll_top_of(&ReadingPosition::Tail, 9000.0), 0.0);
    }

    #[test]
    fn the_start_stays_at_the_top_and_a_row_that_goes_keeps_its_place() {
        let mut v = viewer();
        assert_eq!(v.scroll_top_of(&ReadingPosition::start(), 400.0), 0.0);
        let at = v.position_of_row(4);
        v.apply([Event::MessageDeleted { id: "m24".into() }]);
        assert_eq!(v.scroll_top_of(&at, 400.0), 4.0 * 44.0);
        assert_eq!(Viewer::new().position_at(100.0), ReadingPosition::start());
    }

    #[test]
    fn a_held_link_is_released_only_by_the_reader_scrolling_it_away() {
        assert_eq!(pin_action(Some(true), false), PinAction::Keep);
        assert_eq!(pin_action(Some(true), true), PinAction::Keep);
        assert_eq!(pin_action(Some(false), false), PinAction::Rescroll);
        assert_eq!(pin_action(None, false), PinAction::Rescroll);
        assert_eq!(pin_action(Some(false), true), PinAction::Release);
        assert_eq!(pin_action(None, true), PinAction::Release);
    }

    #[test]
    fn the_tail_is_followed_from_the_end_until_the_reader_scrolls_up() {
        assert!(follows_tail_after_scroll(false, true, false, false));
        assert!(follows_tail_after_scroll(true, false, false, false));
        assert!(!follows_tail_after_scroll(true, false, false, true));
        assert!(!follows_tail_after_scroll(false, false, false, false));
        assert!(
            !follows_tail_after_scroll(true, true, true, false),
            "a held link wins"
        );
    }

    #[test]
    fn an_offset_the_list_did_not_set_was_moved_by_someone_else() {
        assert!(!moved_by_others(100.0, 100.0, 500.0));
        assert!(!moved_by_others(101.5, 100.0, 500.0));
        assert!(moved_by_others(140.0, 100.0, 500.0));
        assert!(moved_by_others(60.0, 100.0, 500.0), "scrolled up");
        assert!(moved_by_others(100.0, f64::NAN, 500.0), "nothing known yet");
    }

    #[test]
    fn an_offset_clamped_to_a_shorter_list_was_not_moved_by_the_reader() {
        // The list stood at 900; its rows shrank so that 700 is the end.
        assert!(!moved_by_others(700.0, 900.0, 700.0));
        // Scrolling down to the end, or up short of it, is the reader's.
        assert!(moved_by_others(700.0, 500.0, 700.0));
        assert!(moved_by_others(650.0, 900.0, 700.0));
    }
}
