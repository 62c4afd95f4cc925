//! What one live event costs the page (docs/behaviour.md §10): the time of
//! [`Viewer::apply`] per event — store, layout, height index and fan-out
//! bookkeeping together — over a window of 300 live events (appends and
//! updates) after 1,000, 10,000 and 100,000 messages of the synthetic
//! session. It must not grow with the session.
//!
//! Criterion measures; the ratio from one run is printed at the end, with the
//! slowest single event of each doubling band of messages while the session
//! is built one live event at a time (a table growing stalls the event that
//! makes it double): that worst event must not grow with the session either.
//! The time of all those events together, stalls included, is the fair
//! average when tables grow in steps (a window between two doublings of
//! whole tables leaves their rehash out).

use criterion::Criterion;
use std::hint::black_box;
use std::time::{Duration, Instant};
use taskview_core::model::event::Event;
use taskview_core::screen::viewer::Viewer;
use taskview_testkit::synthetic::live_session;

/// Events timed per measurement: a window of the stream after the prefix.
const WINDOW: usize = 300;

/// Events applied untimed to each copy before the window. A clone's vectors
/// are exactly full, so the copy's first appends would each reallocate (and
/// copy) a session-sized table, which the live viewer, whose vectors grew by
/// doubling, does not do per event; a few turns of events give the copy that
/// headroom back.
const LEAD: usize = 100;

/// Events loaded per batch while preparing a viewer (a page).
const PAGE: usize = 1000;

/// The viewer after `prefix` events, loaded a page at a time.
fn prepared(events: &[Event], prefix: usize) -> Viewer {
    let mut viewer = Viewer::new();
    for page in events[..prefix].chunks(PAGE) {
        viewer.apply(page.iter().cloned());
    }
    viewer
}

/// Time to apply the events of `window` after the first [`LEAD`] one at a
/// time (as a live source sends them) to a copy of `base`; the copy is
/// made, led in and dropped untimed.
fn time_window(base: &Viewer, window: &[Event]) -> Duration {
    let mut viewer = base.clone();
    let (lead, window) = window.split_at(LEAD);
    for e in lead {
        viewer.apply([e.clone()]);
    }
    let start = Instant::now();
    for e in window {
        black_box(viewer.apply([e.clone()]));
    }
    let elapsed = start.elapsed();
    drop(viewer);
    elapsed
}

/// The least of five runs of [`time_window`], in µs per event.
fn per_event(base: &Viewer, window: &[Event]) -> f64 {
    (0..5)
        .map(|_| time_window(base, window).as_secs_f64() * 1e6 / WINDOW as f64)
        .fold(f64::INFINITY, f64::min)
}

/// Messages the session grows to one live event at a time, for the slowest
/// event per doubling band (1k–2k, …, 64k–128k).
const GROWN: usize = 128_000;

/// Doubling bands of messages, the first from 1k to 2k: band `b` holds the
/// events that left the store with `1k·2^b` to `1k·2^(b+1)` messages.
const BANDS: usize = 7;

/// What applying `events` one at a time to a new viewer took.
struct Growth {
    /// The slowest event of each band: its time and the messages after it.
    bands: [(Duration, usize); BANDS],
    /// The time of every event together, stalls included.
    total: Duration,
    /// The event index after which the store first holds each of the sizes.
    ends: Vec<usize>,
}

fn grow(events: &[Event], sizes: &[usize]) -> Growth {
    let mut viewer = Viewer::new();
    let mut bands = [(Duration::ZERO, 0); BANDS];
    let mut total = Duration::ZERO;
    let mut ends = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let start = Instant::now();
        viewer.apply([e.clone()]);
        let elapsed = start.elapsed();
        total += elapsed;
        let len = viewer.store().len();
        let band = (len / 1000).checked_ilog2().map(|b| b as usize);
        if let Some(slowest) = band.and_then(|b| bands.get_mut(b)) {
            *slowest = (*slowest).max((elapsed, len));
        }
        if ends.len() < sizes.len() && len >= sizes[ends.len()] {
            ends.push(i + 1);
        }
    }
    Growth { bands, total, ends }
}

fn main() {
    const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
    let events = live_session(GROWN);
    // Growing a table (a rehash) is amortised per event but stalls the one
    // that triggers it, at the same message count every time; the best of
    // three growths leaves out a run that the machine preempted.
    let mut bands = [(Duration::MAX, 0); BANDS];
    let mut total = Duration::MAX;
    let mut ends = Vec::new();
    for _ in 0..3 {
        let growth = grow(&events, &SIZES);
        for (best, this) in bands.iter_mut().zip(growth.bands) {
            *best = (*best).min(this);
        }
        total = total.min(growth.total);
        ends = growth.ends;
    }
    let bases: Vec<(usize, usize, Viewer)> = SIZES
        .iter()
        .zip(ends)
        .map(|(&size, end)| (size, end, prepared(&events, end)))
        .collect();

    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let mut group = c.benchmark_group("viewer");
    for (size, end, base) in &bases {
        let window = &events[*end..*end + LEAD + WINDOW];
        group.bench_function(
            format!("apply, 300 live events after {size} messages"),
            |b| b.iter_custom(|iters| (0..iters).map(|_| time_window(base, window)).sum()),
        );
    }
    group.finish();
    c.final_summary();

    let costs: Vec<f64> = bases
        .iter()
        .map(|(_, end, base)| per_event(base, &events[*end..*end + LEAD + WINDOW]))
        .collect();
    println!();
    println!(
        "Viewer::apply per live event: {:.2} µs at 1k messages, {:.2} µs at 10k, {:.2} µs at 100k: ratio 100k/1k = {:.2}",
        costs[0],
        costs[1],
        costs[2],
        costs[2] / costs[0]
    );
    println!(
        "slowest single event per band while building {GROWN} messages one live event at a time (best of 3):"
    );
    for (band, (time, at)) in bands.iter().enumerate() {
        println!(
            "  {:>3}k-{:>3}k messages: {:6.2} ms, at {at} messages",
            1 << band,
            2 << band,
            time.as_secs_f64() * 1e3,
        );
    }
    println!(
        "all {} events one at a time (best of 3): {:.2} s, {:.2} µs per event, stalls included",
        events.len(),
        total.as_secs_f64(),
        total.as_secs_f64() * 1e6 / events.len() as f64
    );
}
