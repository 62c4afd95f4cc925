//! The concurrency curve (issue 26): how many subagent runs were going at
//! each moment, and its peak.

use crate::activity::Millis;

/// A step function: from each step's time on, `count` runs are going.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Curve {
    /// In time order; before the first step nothing runs.
    pub steps: Vec<(Millis, u32)>,
    /// The most runs going at once, and when that was first reached.
    pub peak: u32,
    pub peak_at: Millis,
}

/// The curve of runs going over `start..end` (`end` `None` while one still
/// runs). A run that ends as another starts does not overlap it; a run
/// without a known end (`end <= start`) is never counted as going.
pub fn curve(runs: impl IntoIterator<Item = (Millis, Option<Millis>)>) -> Curve {
    let mut events: Vec<(Millis, i32)> = Vec::new();
    for (start, end) in runs {
        match end {
            Some(end) if end <= start => {}
            Some(end) => events.extend([(start, 1), (end, -1)]),
            None => events.push((start, 1)),
        }
    }
    // Ends before starts at the same moment.
    events.sort_unstable();
    let mut out = Curve::default();
    let mut count: i64 = 0;
    for (i, (t, delta)) in events.iter().enumerate() {
        count += i64::from(*delta);
        if events.get(i + 1).is_some_and(|(next, _)| next == t) {
            continue;
        }
        let now = count.max(0) as u32;
        if now > out.peak {
            out.peak = now;
            out.peak_at = *t;
        }
        out.steps.push((*t, now));
    }
    out
}

impl Curve {
    /// Runs going at `t`.
    pub fn at(&self, t: Millis) -> u32 {
        let i = self.steps.partition_point(|(s, _)| *s <= t);
        i.checked_sub(1).map_or(0, |i| self.steps[i].1)
    }

    /// The most runs going within each of `n` equal slices of `from..to`, so
    /// a short peak still shows at any zoom.
    pub fn sample(&self, from: Millis, to: Millis, n: usize) -> Vec<u32> {
        if n == 0 || to <= from {
            return Vec::new();
        }
        let span = i128::from(to - from);
        let slice_start = |k: usize| from + (span * k as i128 / n as i128) as Millis;
        let mut out = Vec::with_capacity(n);
        let mut i = self.steps.partition_point(|(s, _)| *s <= from);
        let mut current = i.checked_sub(1).map_or(0, |i| self.steps[i].1);
        for k in 0..n {
            let end = slice_start(k + 1);
            let mut most = current;
            while let Some(&(_, c)) = self.steps.get(i).filter(|(t, _)| *t < end) {
                most = most.max(c);
                current = c;
                i += 1;
            }
            out.push(most);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_parallel_runs_and_one_serial_peak_at_two() {
        let c = curve([(0, Some(10)), (2, Some(8)), (10, Some(20))]);
        assert_eq!(c.peak, 2);
        assert_eq!(c.peak_at, 2);
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
        let c = curve([(0, None), (5, Some(5)), (1, Some(3))]);
        assert_eq!(c.peak, 2);
        assert_eq!(c.at(1_000_000), 1);
        assert_eq!(c.at(5), 1);
    }

    #[test]
    fn sampling_keeps_a_short_peak_in_its_slice() {
        let c = curve([(0, Some(100)), (40, Some(41)), (41, Some(42))]);
        assert_eq!(c.sample(0, 100, 4), [1, 2, 1, 1]);
        assert_eq!(c.sample(0, 100, 0), Vec::<u32>::new());
        assert_eq!(c.sample(150, 200, 2), [0, 0]);
    }
}
