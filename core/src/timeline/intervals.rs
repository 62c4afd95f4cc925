//! Keyed intervals in start order (issue 26: the main conversation's turns,
//! and the waves its turns waited in), each with the latest end among those
//! up to it, so a drawing of any window finds what it needs by binary search
//! instead of walking the session. A change costs a search and the
//! intervals after it: at the end of a live session, next to nothing.

use crate::activity::Millis;

/// See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Intervals {
    /// `(start, end, key)`, by start, then key.
    items: Vec<(Millis, Millis, String)>,
    /// The latest end among the items up to each.
    reach: Vec<Millis>,
}

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
    pub fn first_not(&self, from: usize, to: usize, before: impl Fn(Millis) -> bool) -> usize {
        from + self.items[from..to].partition_point(|(s, _, _)| before(*s))
    }
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
}
