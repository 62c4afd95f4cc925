//! The concurrency curve (docs/user-guide.md "The Timeline"): how many subagent runs were going at
//! each moment, and its peak. It is kept as the change of that number at
//! each moment, so a run that starts, ends or moves costs a few map updates;
//! the count after each moment and the peak so far are kept beside it, and
//! found again when asked, from the earliest moment changed on (in a live
//! session, the last few).

use super::intervals::gallop;
use crate::state::activity::Millis;
use crate::state::change_log::ChangeLog;
use std::collections::BTreeMap;

/// See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Curve {
    /// Moment → how the number of runs going changes there.
    deltas: BTreeMap<Millis, i64>,
    /// Each moment of `deltas` in order, the count after it and the peak up
    /// to it, up to date before `changed_from`.
    counts: Vec<(Millis, i64, (u32, Millis))>,
    /// The moments of `counts` alone, packed for the searches of a drawing.
    times: Vec<Millis>,
    /// The earliest moment changed since `counts` was brought up to date.
    changed_from: Option<Millis>,
    /// `tops[j][i]`: the most runs going after any of moments `i..i + 2^j`
    /// of `counts`, so a slice of any width finds its most in two looks.
    tops: Vec<Vec<u32>>,
    /// The most runs going at once and when that was first reached, while
    /// nothing changed.
    peak: Option<(u32, Millis)>,
    /// Counts the changes, so a drawing of it can be kept while it is the same.
    version: u64,
    /// The earliest moment of each change (change `k` made version `k + 1`),
    /// so a drawing can be drawn again from where it changed only.
    log: ChangeLog<Millis, LOGGED>,
}

/// How many changes [`Curve::changed_since`] can tell of, at least.
const LOGGED: usize = 256;

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
        self.log.push(start);
    }

    /// The earliest moment changed since `version` (`Some(None)`: nothing
    /// changed), or `None` when that is too long ago to tell.
    pub fn changed_since(&self, version: u64) -> Option<Option<Millis>> {
        self.log
            .since(version)
            .map(|changed| changed.iter().copied().min())
    }

    /// Changes so far: equal versions draw the same.
    pub fn version(&self) -> u64 {
        self.version
    }

    fn bump(&mut self, at: Millis, by: i64) {
        self.changed_from = Some(self.changed_from.map_or(at, |from| from.min(at)));
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
        self.count_again();
        let peak = self.counts.last().map_or((0, 0), |(_, _, peak)| *peak);
        self.peak = Some(peak);
        peak
    }

    /// Brings `counts` up to date from the earliest moment changed.
    fn count_again(&mut self) {
        let Some(from) = self.changed_from.take() else {
            return;
        };
        let kept = self.counts.partition_point(|(t, _, _)| *t < from);
        self.counts.truncate(kept);
        self.times.truncate(kept);
        let (mut count, mut peak) = self
            .counts
            .last()
            .map_or((0, (0u32, 0)), |(_, c, p)| (*c, *p));
        for (t, delta) in self.deltas.range(from..) {
            count += delta;
            if count > i64::from(peak.0) {
                peak = (count as u32, *t);
            }
            self.counts.push((*t, count, peak));
            self.times.push(*t);
        }
        self.top_again(kept);
    }

    /// Brings `tops` up to date for `counts` changed from index `from` on.
    fn top_again(&mut self, from: usize) {
        let n = self.counts.len();
        let mut level = 0;
        while level == 0 || 1 << level <= n {
            if self.tops.len() <= level {
                self.tops.push(Vec::new());
            }
            let (lower, upper) = self.tops.split_at_mut(level);
            let tops = &mut upper[0];
            let stale = from.saturating_sub((1 << level) - 1).min(tops.len());
            tops.truncate(stale);
            match lower.last() {
                None => tops.extend(self.counts[stale..].iter().map(|c| c.1.max(0) as u32)),
                Some(below) => {
                    let half = 1 << (level - 1);
                    let len = n + 1 - (1 << level);
                    tops.extend((stale..len).map(|i| below[i].max(below[i + half])));
                }
            }
            level += 1;
        }
        self.tops.truncate(level);
    }

    /// The most runs going after any of moments `from..to` of `counts`
    /// (`from < to`).
    fn most(&self, from: usize, to: usize) -> u32 {
        let level = (to - from).ilog2() as usize;
        let tops = &self.tops[level];
        tops[from].max(tops[to - (1 << level)])
    }

    /// The peak as last found by [`Curve::peak`].
    pub fn known_peak(&self) -> (u32, Millis) {
        self.peak.unwrap_or_default()
    }

    /// Runs going at `t` (a binary search once [`Curve::peak`] was asked
    /// since the last change).
    pub fn at(&self, t: Millis) -> u32 {
        let count = match self.changed_from {
            None => {
                let after = self.times.partition_point(|m| *m <= t);
                after.checked_sub(1).map_or(0, |i| self.counts[i].1)
            }
            Some(_) => self.deltas.range(..=t).map(|(_, d)| d).sum::<i64>(),
        };
        count.max(0) as u32
    }

    /// The most runs going within each of `n` equal slices of `from..to`, so
    /// a short peak still shows at any zoom.
    pub fn sample(&self, from: Millis, to: Millis, n: usize) -> Vec<u32> {
        self.sample_from(from, to, n, 0)
    }

    /// Slices `first..n` of [`Curve::sample`].
    pub fn sample_from(&self, from: Millis, to: Millis, n: usize, first: usize) -> Vec<u32> {
        if n == 0 || to <= from {
            return Vec::new();
        }
        let span = (to - from) as f64;
        let slice_end = |k: usize| from + (span * (k + 1) as f64 / n as f64) as Millis;
        if self.changed_from.is_none() {
            return self.sample_counted(from, n, first, slice_end);
        }
        if first > 0 {
            let all = self.sample_from(from, to, n, 0);
            return all[first.min(n)..].to_vec();
        }
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

    /// [`Curve::sample`] from the counts kept: a binary search and two looks
    /// per slice, however many moments each holds.
    fn sample_counted(
        &self,
        from: Millis,
        n: usize,
        from_slice: usize,
        slice_end: impl Fn(usize) -> Millis,
    ) -> Vec<u32> {
        // The moments before the first slice asked for are behind; the count
        // after the last of them goes on into it.
        let mut first = self.times.partition_point(|t| *t <= from);
        if let Some(before) = from_slice.checked_sub(1) {
            let start = slice_end(before);
            first = first.max(self.times.partition_point(|t| *t < start));
        }
        let mut current = first
            .checked_sub(1)
            .map_or(0, |i| self.counts[i].1.max(0) as u32);
        let mut out = Vec::with_capacity(n.saturating_sub(from_slice));
        for k in from_slice..n {
            let end = slice_end(k);
            let last = first + gallop(&self.times[first..], |t| *t < end);
            let mut most = current;
            if last > first {
                most = most.max(self.most(first, last));
                current = self.counts[last - 1].1.max(0) as u32;
            }
            out.push(most);
            first = last;
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
    fn counts_kept_through_changes_anywhere_are_those_counted_afresh() {
        let runs = [(0, Some(100)), (10, None), (20, Some(30)), (25, Some(90))];
        let mut c = Curve::default();
        for (start, end) in runs {
            c.change(start, end, 1);
            c.peak();
        }
        // A run settles, one moves earlier, one goes away.
        c.change(10, None, -1);
        c.change(10, Some(40), 1);
        c.peak();
        c.change(25, Some(90), -1);
        c.change(5, Some(90), 1);
        c.peak();
        c.change(20, Some(30), -1);
        let mut fresh = curve(&[(0, Some(100)), (10, Some(40)), (5, Some(90))]);
        assert_eq!(c.peak(), fresh.peak());
        assert_eq!(c.peak(), (3, 10));
        for t in -5..110 {
            assert_eq!(c.at(t), fresh.at(t), "at {t}");
        }
        // Sampled from the counts kept, as from the changes themselves.
        let uncounted = curve(&[(0, Some(100)), (10, Some(40)), (5, Some(90))]);
        for (from, to, n) in [(0, 100, 7), (-10, 50, 13), (5, 95, 200), (35, 36, 3)] {
            assert_eq!(c.sample(from, to, n), uncounted.sample(from, to, n));
        }
    }

    #[test]
    fn slices_of_many_moments_sample_from_the_counts_as_from_the_changes() {
        let mut next = crate::state::timeline::test_numbers(11);
        let mut kept = Curve::default();
        let mut uncounted = Curve::default();
        for k in 0..300 {
            let start = next(10_000);
            let end = (k % 9 != 0).then(|| start + 1 + next(700));
            kept.change(start, end, 1);
            uncounted.change(start, end, 1);
            if k % 50 == 0 {
                kept.peak();
            }
        }
        kept.peak();
        for (from, to, n) in [
            (0, 11_000, 3),
            (0, 11_000, 50),
            (2_000, 2_500, 7),
            (-100, 20_000, 450),
            (0, 10, 450),
        ] {
            let all = uncounted.sample(from, to, n);
            assert_eq!(kept.sample(from, to, n), all);
            // From any slice on, as the slices of the whole.
            for first in [1, 2, n / 2, n.saturating_sub(1), n] {
                assert_eq!(kept.sample_from(from, to, n, first), all[first.min(n)..]);
            }
        }
    }

    #[test]
    fn a_curve_tells_the_earliest_moment_changed_since_a_version_while_it_remembers() {
        let mut c = Curve::default();
        c.change(100, Some(200), 1);
        let v = c.version();
        assert_eq!(c.changed_since(v), Some(None));
        c.change(500, None, 1);
        c.change(300, Some(400), 1);
        c.change(900, Some(950), 1);
        assert_eq!(c.changed_since(v), Some(Some(300)));
        assert_eq!(c.changed_since(v + 1), Some(Some(300)));
        assert_eq!(c.changed_since(v + 2), Some(Some(900)));
        assert_eq!(c.changed_since(v + 3), Some(None));
        for k in 0..2 * LOGGED as i64 {
            c.change(1_000 + k, Some(2_000), 1);
        }
        assert_eq!(c.changed_since(v), None, "too long ago");
        assert_eq!(
            c.changed_since(c.version() - 1),
            Some(Some(1_000 + 2 * LOGGED as i64 - 1))
        );
    }

    #[test]
    fn sampling_keeps_a_short_peak_in_its_slice() {
        let c = curve(&[(0, Some(100)), (40, Some(41)), (41, Some(42))]);
        assert_eq!(c.sample(0, 100, 4), [1, 2, 1, 1]);
        assert_eq!(c.sample(0, 100, 0), Vec::<u32>::new());
        assert_eq!(c.sample(150, 200, 2), [0, 0]);
    }
}
