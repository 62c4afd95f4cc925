//! Which cards of a column are in the page (docs/behaviour.md §5: columns
//! are virtualized like the transcript): cards of one height, so the rows
//! on screen follow from the column's scroll offset alone, with a few more
//! each side so a scroll does not show a gap before the next frame.

/// Cards kept in the page beyond each edge of the visible part.
pub const OVERSCAN: usize = 3;

/// The cards of a column in the page: `first..end`, and the room the
/// cards above and below take (so the scroll height is the whole column's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColumnWindow {
    pub first: usize,
    pub end: usize,
    pub above_px: u64,
    pub below_px: u64,
}

/// The window of a column of `count` cards `card_px` high (gap included),
/// scrolled `scroll_px` down a view `view_px` high.
pub fn column_window(count: usize, card_px: u64, scroll_px: u64, view_px: u64) -> ColumnWindow {
    let card_px = card_px.max(1);
    let first = ((scroll_px / card_px) as usize)
        .min(count)
        .saturating_sub(OVERSCAN);
    let visible = view_px.div_ceil(card_px) as usize + 1;
    let end = (first + visible + 2 * OVERSCAN).min(count);
    ColumnWindow {
        first,
        end,
        above_px: first as u64 * card_px,
        below_px: (count - end) as u64 * card_px,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_holds_what_is_seen_and_a_few_more_whatever_the_column() {
        let top = column_window(10_000, 100, 0, 800);
        assert_eq!((top.first, top.end), (0, 15));
        assert_eq!((top.above_px, top.below_px), (0, 9_985 * 100));
        let middle = column_window(10_000, 100, 500_000, 800);
        assert_eq!((middle.first, middle.end), (4_997, 5_012));
        assert_eq!(middle.above_px + middle.below_px + 15 * 100, 10_000 * 100);
        let bottom = column_window(10_000, 100, 10_000 * 100, 800);
        assert_eq!(bottom.end, 10_000);
        let short = column_window(2, 100, 0, 800);
        assert_eq!((short.first, short.end, short.below_px), (0, 2, 0));
        assert_eq!(column_window(0, 100, 300, 800).end, 0);
    }
}
