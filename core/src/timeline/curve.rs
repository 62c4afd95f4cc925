//! The concurrency curve (issue 26): how many subagent runs were going at
//! each moment, and its peak. It is kept as the change of that number at
//! each moment, so a run that starts, ends or moves costs a few map updates;
//! the peak is found again only when asked after a change.

use crate::activity::Millis;
use std::collections::BTreeMap;

/// See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Curve {
    /// Moment → how the number of runs going changes there.
    deltas: BTreeMap<Millis, i64>,
    /// The most runs going at once and when that was first reached, while
    /// nothing changed.
    peak: Option<(u32, Millis)>,
    /// Counts the changes, so a drawing of it can be kept while it is the same.
    version: u64,
}

impl Curve {
    /// Counts a run going over `start..end` (`end` `None` while it runs) in
    /// (`by` 1) or out (`by` -1). A run without a known end (`end <=
    /// start`) never counts as going; a run that ends as another starts
    /// does not overlap it.
    pub fn change(&mut self, start: Millis, end: Option<Millis>, by: i64) {
        if end.is_some_and(|end| end <= start) {
            return;
        }
        self.bump(start, by);
        if let Some(end) = end {
            self.bump(end, -by);
        }
        self.peak = None;
        self.version += 1;
    }

    /// Changes so far: equal versions draw the same.
    pub fn version(&self) -> u64 {
        self.version
    }

    fn bump(&mut self, at: Millis, by: i64) {
        let delta = self.deltas.entry(at).or_insert(0);
        *delta += by;
        if *delta == 0 {
            self.deltas.remove(&at);
        }
    }

    /// The peak, found again if something changed since it was last asked.
    pub fn peak(&mut self) -> (u32, Millis) {
        if let Some(peak) = self.peak {
            return peak;
        }
        let mut count = 0i64;
        let mut peak = (0u32, 0);
        for (t, delta) in &self.deltas {
            count += delta;
            if count > i64::from(peak.0) {
                peak = (count as u32, *t);
            }
        }
        self.peak = Some(peak);
        peak
    }

    /// The peak as last found by [`Curve::peak`].
    pub fn known_peak(&self) -> (u32, Millis) {
        self.peak.unwrap_or_default()
    }

    /// Runs going at `t`.
    pub fn at(&self, t: Millis) -> u32 {
        self.deltas.range(..=t).map(|(_, d)| d).sum::<i64>().max(0) as u32
    }

    /// The most runs going within each of `n` equal slices of `from..to`, so
    /// a short peak still shows at any zoom.
    pub fn sample(&self, from: Millis, to: Millis, n: usize) -> Vec<u32> {
        if n == 0 || to <= from {
            return Vec::new();
        }
        let span = (to - from) as f64;
        let slice_end = |k: usize| from + (span * (k + 1) as f64 / n as f64) as Millis;
        let mut current = self.at(from);
        let mut changes = self.deltas.range(from + 1..).peekable();
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let end = slice_end(k);
            let mut most = current;
            while let Some((_, delta)) = changes.next_if(|(t, _)| **t < end) {
                current = (i64::from(current) + delta).max(0) as u32;
                most = most.max(current);
            }
            out.push(most);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(runs: &[(Millis, Option<Millis>)]) -> Curve {
        let mut c = Curve::default();
        for (start, end) in runs {
            c.change(*start, *end, 1);
        }
        c
    }

    #[test]
    fn two_parallel_runs_and_one_serial_peak_at_two() {
        let mut c = curve(&[(0, Some(10)), (2, Some(8)), (10, Some(20))]);
        assert_eq!(c.peak(), (2, 2));
        assert_eq!(c.at(1), 1);
        assert_eq!(c.at(5), 2);
        assert_eq!(c.at(9), 1);
        assert_eq!(
            c.at(10),
            1,
            "a run ending as another starts does not overlap it"
        );
        assert_eq!(c.at(25), 0);
        assert_eq!(c.at(-5), 0);
    }

    #[test]
    fn a_running_run_counts_until_now_and_one_without_an_end_never_counts() {
        let mut c = curve(&[(0, None), (5, Some(5)), (1, Some(3))]);
        assert_eq!(c.peak().0, 2);
        assert_eq!(c.at(1_000_000), 1);
        assert_eq!(c.at(5), 1);
    }

    #[test]
    fn a_run_that_moves_is_counted_out_then_in_again() {
        let mut c = curve(&[(0, None), (1, Some(3))]);
        assert_eq!(c.peak().0, 2);
        // The open run settles at 1: the other never overlapped it.
        c.change(0, None, -1);
        c.change(0, Some(1), 1);
        assert_eq!(c.peak(), (1, 0));
        let mut settled = curve(&[(0, Some(1)), (1, Some(3))]);
        settled.peak();
        assert_eq!(c.deltas, settled.deltas);
    }

    #[test]
    fn sampling_keeps_a_short_peak_in_its_slice() {
        let c = curve(&[(0, Some(100)), (40, Some(41)), (41, Some(42))]);
        assert_eq!(c.sample(0, 100, 4), [1, 2, 1, 1]);
        assert_eq!(c.sample(0, 100, 0), Vec::<u32>::new());
        assert_eq!(c.sample(150, 200, 2), [0, 0]);
    }
}
