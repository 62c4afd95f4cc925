//! What the follow benchmarks (`follow`, `otlp_follow`) time alike: the
//! median of many single appends pushed to a follower.

use std::hint::black_box;
use std::time::{Duration, Instant};
use taskview_core::read::import::Follower;

/// The median time of `runs` pushes to `follower`, each of the next line
/// `next` makes (made outside the time).
pub fn median_push(
    follower: &mut Follower,
    runs: usize,
    mut next: impl FnMut() -> String,
) -> Duration {
    let mut took: Vec<Duration> = (0..runs)
        .map(|_| {
            let line = next();
            let start = Instant::now();
            black_box(follower.push(line.as_bytes()));
            start.elapsed()
        })
        .collect();
    took.sort();
    took[runs / 2]
}
