//! Keyed intervals in start order (docs/user-guide.md "The Timeline": the main
//! conversation's turns, and the waves its turns waited in), each with the
//! latest end among those up to it, so a drawing of any window finds what it
//! needs by binary search instead of walking the session. A change costs a
//! search and the intervals after it: at the end of a live session, next to
//! nothing.

use crate::state::activity::Millis;

/// See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Intervals {
    /// `(start, end, key)`, by start, then key.
    items: Vec<(Millis, Millis, String)>,
    /// The latest end among the items up to each.
    reach: Vec<Millis>,
    /// The widest gap before an item (its start less the reach before it)
    /// in each block of [`BLOCK`] items, so a walk finds the next gap wider
    /// than it cares about without looking at every item.
    block_gaps: Vec<Millis>,
}

/// Items per entry of [`Intervals::block_gaps`].
const BLOCK: usize = 64;

impl Intervals {
    fn find(&self, start: Millis, key: &str) -> Result<usize, usize> {
        self.items
            .binary_search_by(|(s, _, k)| (*s, k.as_str()).cmp(&(start, key)))
    }

    /// Takes out the interval of `key` starting at `start`, if there is one.
    pub fn remove(&mut self, start: Millis, key: &str) {
        if let Ok(at) = self.find(start, key) {
            self.items.remove(at);
            self.reach_from(at);
        }
    }

    /// Puts in an interval of `key` (one per start and key).
    pub fn insert(&mut self, start: Millis, end: Millis, key: &str) {
        let at = match self.find(start, key) {
            Ok(at) => {
                self.items[at].1 = end;
                at
            }
            Err(at) => {
                self.items.insert(at, (start, end, key.to_string()));
                at
            }
        };
        self.reach_from(at);
    }

    fn reach_from(&mut self, at: usize) {
        self.reach.truncate(at);
        let mut reach = at
            .checked_sub(1)
            .and_then(|i| self.reach.get(i))
            .copied()
            .unwrap_or(Millis::MIN);
        for (_, end, _) in &self.items[at..] {
            reach = reach.max(*end);
            self.reach.push(reach);
        }
        let first_block = at / BLOCK;
        self.block_gaps.truncate(first_block);
        for block in first_block..self.items.len().div_ceil(BLOCK) {
            let items = block * BLOCK..((block + 1) * BLOCK).min(self.items.len());
            let widest = items.map(|i| self.gap(i)).max().unwrap_or(Millis::MIN);
            self.block_gaps.push(widest);
        }
    }

    /// Item `i`'s start less the latest end before it (the first item's gap
    /// is the widest there is).
    fn gap(&self, i: usize) -> Millis {
        match i.checked_sub(1) {
            Some(before) => self.items[i].0.saturating_sub(self.reach[before]),
            None => Millis::MAX,
        }
    }

    /// The first item in `from..to` whose gap (see [`Intervals::gap`]) is
    /// wider than `width`, or `to`: every item before it starts within
    /// `width` of an end before it.
    pub fn next_gap(&self, from: usize, to: usize, width: Millis) -> usize {
        let mut i = from;
        while i < to {
            if i.is_multiple_of(BLOCK) && self.block_gaps[i / BLOCK] <= width {
                i += BLOCK;
                continue;
            }
            if self.gap(i) > width {
                return i;
            }
            i += 1;
        }
        to
    }

    /// Every interval, `(key, start, end)`, in start order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, Millis, Millis)> {
        self.items.iter().map(|(s, e, k)| (k, *s, *e))
    }

    /// How many intervals there are.
    pub fn count(&self) -> usize {
        self.items.len()
    }

    /// The start of interval `i`.
    pub fn start(&self, i: usize) -> Millis {
        self.items[i].0
    }

    /// The latest end among intervals `0..=i`.
    pub fn reach(&self, i: usize) -> Millis {
        self.reach[i]
    }

    /// The index of the first interval in `from..to` whose start fails
    /// `before` (which holds for the starts up to some point, then fails).
    /// It costs the log of how far that is from `from`, not of `to - from`.
    pub fn first_not(&self, from: usize, to: usize, before: impl Fn(Millis) -> bool) -> usize {
        from + gallop(&self.items[from..to], |(s, _, _)| before(*s))
    }
}

/// The partition point of `items` by `pred` (which holds up to some point,
/// then fails), found by steps doubling from the start, then a binary
/// search: the log of the answer, not of the length, so a walk that asks
/// for the next few items again and again costs a few looks each time.
pub fn gallop<T>(items: &[T], pred: impl Fn(&T) -> bool) -> usize {
    let mut lo = 0;
    let mut step = 1;
    while lo + step <= items.len() && pred(&items[lo + step - 1]) {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(items.len());
    lo + items[lo..hi].partition_point(pred)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_stay_in_start_order_with_the_latest_end_so_far() {
        let mut list = Intervals::default();
        list.insert(10, 50, "b");
        list.insert(0, 20, "a");
        list.insert(30, 40, "c");
        list.insert(30, 35, "c");
        let items: Vec<(&str, Millis, Millis)> =
            list.iter().map(|(k, s, e)| (k.as_str(), s, e)).collect();
        assert_eq!(items, [("a", 0, 20), ("b", 10, 50), ("c", 30, 35)]);
        assert_eq!(
            (0..3).map(|i| list.reach(i)).collect::<Vec<_>>(),
            [20, 50, 50]
        );
        list.remove(10, "b");
        assert_eq!((list.count(), list.reach(1)), (2, 35));
        assert_eq!(list.first_not(0, 2, |s| s < 30), 1);
    }

    #[test]
    fn the_next_gap_is_the_first_wider_than_asked_whatever_the_blocks() {
        let mut next = crate::state::timeline::test_numbers(3);
        let mut list = Intervals::default();
        for k in 0..300 {
            let start = next(50_000);
            list.insert(start, start + next(400), &format!("t{k}"));
        }
        // Changed in the middle and at the end, as a live session changes them.
        list.insert(list.start(150), 60_000, "long");
        let (key, start, _) = list.iter().nth(299).unwrap();
        let (key, start) = (key.clone(), start);
        list.remove(start, &key);
        let gaps: Vec<Millis> = (0..list.count())
            .map(|i| match i {
                0 => Millis::MAX,
                i => list.start(i) - list.reach(i - 1),
            })
            .collect();
        for width in [-100, 0, 50, 200, 1_000] {
            for from in [0, 1, 63, 64, 65, 130, 250] {
                let to = list.count();
                let expected = (from..to).find(|&i| gaps[i] > width).unwrap_or(to);
                assert_eq!(
                    list.next_gap(from, to, width),
                    expected,
                    "from {from} over {width}"
                );
            }
        }
    }

    #[test]
    fn galloping_finds_the_partition_point_a_binary_search_finds() {
        for len in 0..70 {
            let items: Vec<usize> = (0..len).collect();
            for cut in 0..=len {
                assert_eq!(
                    gallop(&items, |i| *i < cut),
                    cut,
                    "{len} items cut at {cut}"
                );
            }
        }
    }
}
