//! Arithmetic for the virtualized transcript list (docs/behaviour.md §8): row heights in
//! a Fenwick tree, so offsets, "which row is at this scroll position" and
//! appends cost O(log n) whatever the session length.

/// Heights of the top-level rows in display order, estimated until measured.
#[derive(Clone, Debug, Default)]
pub struct HeightIndex {
    heights: Vec<f64>,
    /// Fenwick tree over `heights` (1-based: `tree[i - 1]` covers `(i - lowbit(i)), i]`).
    tree: Vec<f64>,
}

fn lowbit(i: usize) -> usize {
    i & i.wrapping_neg()
}

impl HeightIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.heights.len()
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.heights.is_empty()
    }

    /// The height of row `index`.
    pub fn height(&self, index: usize) -> Option<f64> {
        self.heights.get(index).copied()
    }

    /// Appends a row of `height`, in O(log n).
    pub fn push(&mut self, height: f64) {
        self.heights.push(height);
        let i = self.heights.len();
        // Node i covers (i - lowbit(i), i]: this height plus the earlier part.
        let covered = self.prefix(i - 1) - self.prefix(i - lowbit(i));
        self.tree.push(covered + height);
    }

    /// Keeps the first `len` rows, in O(1): no node depends on later rows.
    pub fn truncate(&mut self, len: usize) {
        self.heights.truncate(len);
        self.tree.truncate(len);
    }

    /// Sets the height of row `index` (a measurement), in O(log n).
    pub fn set(&mut self, index: usize, height: f64) {
        let Some(old) = self.heights.get_mut(index) else {
            return;
        };
        let delta = height - *old;
        *old = height;
        let mut i = index + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] += delta;
            i += lowbit(i);
        }
    }

    /// Sum of the heights of the first `count` rows.
    pub fn prefix(&self, count: usize) -> f64 {
        let mut i = count.min(self.tree.len());
        let mut sum = 0.0;
        while i > 0 {
            sum += self.tree[i - 1];
            i -= lowbit(i);
        }
        sum
    }

    /// The offset of the top of row `index`.
    pub fn offset_of(&self, index: usize) -> f64 {
        self.prefix(index)
    }

    /// The total height of all rows.
    pub fn total(&self) -> f64 {
        self.prefix(self.len())
    }

    /// The row that covers `offset` (the last row when past the end), in O(log n).
    pub fn index_at(&self, offset: f64) -> usize {
        if self.is_empty() {
            return 0;
        }
        let mut pos = 0;
        let mut remaining = offset;
        let mut step = self.tree.len().next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= self.tree.len() && self.tree[next - 1] <= remaining {
                pos = next;
                remaining -= self.tree[next - 1];
            }
            step /= 2;
        }
        pos.min(self.len() - 1)
    }

    /// The rows to render for a viewport at `scroll_top` of `height`, with
    /// `margin` pixels of extra rows above and below: a half-open index range.
    pub fn visible_range(&self, scroll_top: f64, height: f64, margin: f64) -> (usize, usize) {
        if self.is_empty() {
            return (0, 0);
        }
        let first = self.index_at((scroll_top - margin).max(0.0));
        let last = self.index_at(scroll_top + height + margin);
        (first, (last + 1).min(self.len()))
    }
}

/// A spacer length as a CSS value, to 1/1000 px (finer than Chromium's 1/64 px
/// layout unit), formatted as integers: `f64`'s `Display` would add its float
/// printing code to the release wasm (docs/behaviour.md §10). A negative, NaN or infinite
/// length (never a valid spacer) is `0px`.
pub fn css_px(px: f64) -> String {
    let thousandths = if px.is_finite() && px > 0.0 {
        (px * 1000.0).round() as u64
    } else {
        0
    };
    let (whole, fraction) = (thousandths / 1000, thousandths % 1000);
    if fraction == 0 {
        return format!("{whole}px");
    }
    let digits = format!("{fraction:03}");
    format!("{whole}.{}px", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn css_px_prints_a_length_like_display_to_a_thousandth_of_a_pixel() {
        assert_eq!(css_px(0.0), "0px");
        assert_eq!(css_px(12.0), "12px");
        assert_eq!(css_px(12.5), "12.5px");
        assert_eq!(css_px(7.25), "7.25px");
        assert_eq!(css_px(0.001), "0.001px");
        assert_eq!(css_px(1234.5625), "1234.563px");
        assert_eq!(css_px(99.9996), "100px");
        assert_eq!(css_px(0.0004), "0px");
    }

    #[test]
    fn css_px_of_a_negative_or_non_finite_length_is_zero() {
        assert_eq!(css_px(-3.0), "0px");
        assert_eq!(css_px(-1e-13), "0px");
        assert_eq!(css_px(f64::NAN), "0px");
        assert_eq!(css_px(f64::INFINITY), "0px");
    }

    fn index_of(heights: &[f64]) -> HeightIndex {
        let mut index = HeightIndex::new();
        heights.iter().for_each(|h| index.push(*h));
        index
    }

    #[test]
    fn offsets_are_prefix_sums_of_heights() {
        let index = index_of(&[10.0, 20.0, 30.0, 40.0, 50.0]);
        let offsets: Vec<f64> = (0..=5).map(|i| index.offset_of(i)).collect();
        assert_eq!(offsets, [0.0, 10.0, 30.0, 60.0, 100.0, 150.0]);
        assert_eq!(index.total(), 150.0);
    }

    #[test]
    fn measured_heights_update_later_offsets() {
        let mut index = index_of(&[10.0; 7]);
        index.set(2, 35.0);
        assert_eq!(index.offset_of(3), 55.0);
        assert_eq!(index.offset_of(7), 95.0);
    }

    #[test]
    fn index_at_finds_the_row_under_an_offset() {
        let index = index_of(&[10.0, 20.0, 30.0]);
        let rows: Vec<usize> = [0.0, 9.9, 10.0, 29.0, 30.0, 59.0, 500.0]
            .iter()
            .map(|o| index.index_at(*o))
            .collect();
        assert_eq!(rows, [0, 0, 1, 1, 2, 2, 2]);
    }

    #[test]
    fn truncate_then_push_equals_a_fresh_build() {
        let mut index = index_of(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        index.set(4, 50.0);
        index.truncate(3);
        index.push(7.0);
        index.push(8.0);
        let fresh = index_of(&[1.0, 2.0, 3.0, 7.0, 8.0]);
        for i in 0..=5 {
            assert_eq!(index.offset_of(i), fresh.offset_of(i), "offset {i}");
        }
    }

    #[test]
    fn visible_range_covers_the_viewport_plus_margin() {
        let index = index_of(&[100.0; 100]);
        assert_eq!(index.visible_range(1000.0, 300.0, 0.0), (10, 14));
        assert_eq!(index.visible_range(1000.0, 300.0, 200.0), (8, 16));
        assert_eq!(index.visible_range(0.0, 300.0, 200.0), (0, 6));
        assert_eq!(HeightIndex::new().visible_range(0.0, 300.0, 200.0), (0, 0));
    }
}
