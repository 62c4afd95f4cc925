//! Layout cost per live event (docs/behaviour.md §8): incremental updates against a full
//! recompute after every event, on a synthetic 10,000-message session made of
//! turns with tool calls, thinking and subagent waves with interleaved children.
//!
//! Criterion measures the per-event costs; a summary of ratios from one run is
//! printed at the end, with the cost of an older page landing before 10k and
//! 90k messages (a session read newest page first).

use criterion::Criterion;
use std::hint::black_box;
use std::time::{Duration, Instant};
use taskview_core::model::event::Event;
use taskview_core::state::layout::Layout;
use taskview_core::state::store::Store;
use taskview_testkit::synthetic::live_session;

/// Events timed per measurement: a window of the stream after the prefix.
const WINDOW: usize = 300;

/// Store and layout after the first `prefix` events.
fn prepared(events: &[Event], prefix: usize) -> (Store, Layout) {
    let mut store = Store::new();
    let changes = store.apply_all(events[..prefix].iter().cloned());
    let mut layout = Layout::new();
    layout.update(&store, &changes);
    (store, layout)
}

/// Time to apply `window` events incrementally on top of a prepared state.
fn time_incremental(base: &(Store, Layout), window: &[Event]) -> Duration {
    let (mut store, mut layout) = base.clone();
    let start = Instant::now();
    for e in window {
        let changes = store.apply(e.clone());
        black_box(layout.update(&store, &changes));
    }
    start.elapsed()
}

/// Time to apply `window` events recomputing the full layout after each.
fn time_full(base: &Store, window: &[Event]) -> Duration {
    let mut store = base.clone();
    let start = Instant::now();
    for e in window {
        store.apply(e.clone());
        black_box(Layout::from_store(&store));
    }
    start.elapsed()
}

/// Least time, in ms, to apply one page of `page` events before what
/// `state` holds (an older page of a session read newest first), over the
/// next three pages of `older` (newest last); `state` takes them.
fn time_older_pages(state: &mut (Store, Layout), older: &mut Vec<Event>, page: usize) -> f64 {
    (0..3)
        .map(|_| {
            let batch = older.split_off(older.len().saturating_sub(page));
            let start = Instant::now();
            let changes = state.0.apply_all(batch);
            black_box(state.1.update(&state.0, &changes));
            start.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

/// Reading a session newest page first: the cost of one older page landing
/// before 10k messages and before 90k (docs/behaviour.md §10: per-page work must not
/// grow with what is already shown).
fn older_pages_summary() {
    const PAGE: usize = 1000;
    let mut older = live_session(100_000);
    let mut state = (Store::new(), Layout::new());
    let fill_to = |state: &mut (Store, Layout), older: &mut Vec<Event>, messages: usize| {
        while state.0.len() < messages && !older.is_empty() {
            let batch = older.split_off(older.len().saturating_sub(PAGE));
            let changes = state.0.apply_all(batch);
            state.1.update(&state.0, &changes);
        }
    };
    fill_to(&mut state, &mut older, 10_000);
    let at_10k = time_older_pages(&mut state, &mut older, PAGE);
    fill_to(&mut state, &mut older, 90_000);
    let at_90k = time_older_pages(&mut state, &mut older, PAGE);
    println!(
        "an older page of {PAGE} events landing before everything: {at_10k:.1} ms at 10k messages, {at_90k:.1} ms at 90k: ratio 90k/10k = {:.2}",
        at_90k / at_10k
    );
}

fn per_event(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e6 / n as f64
}

fn main() {
    let events = live_session(10_000);
    let at = |messages: usize| {
        // The event index after which the store holds `messages` messages.
        let mut s = Store::new();
        events
            .iter()
            .position(|e| {
                s.apply(e.clone());
                s.len() >= messages
            })
            .map_or(events.len(), |i| i + 1)
    };
    let (i1k, i10k) = (at(1_000), at(10_000) - WINDOW);
    let base_1k = prepared(&events, i1k);
    let base_10k = prepared(&events, i10k);

    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let mut group = c.benchmark_group("layout");
    group.bench_function("incremental, 300 events after 1k messages", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| time_incremental(&base_1k, &events[i1k..i1k + WINDOW]))
                .sum()
        })
    });
    group.bench_function("incremental, 300 events after ~10k messages", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| time_incremental(&base_10k, &events[i10k..i10k + WINDOW]))
                .sum()
        })
    });
    group.bench_function("full recompute of a 10k-message layout", |b| {
        b.iter(|| Layout::from_store(&base_10k.0))
    });
    group.finish();
    c.final_summary();

    // One-run summary.
    let build_inc = time_incremental(&(Store::new(), Layout::new()), &events);
    let inc_1k = per_event(
        time_incremental(&base_1k, &events[i1k..i1k + WINDOW]),
        WINDOW,
    );
    let inc_10k = per_event(
        time_incremental(&base_10k, &events[i10k..i10k + WINDOW]),
        WINDOW,
    );
    let full_10k = per_event(time_full(&base_10k.0, &events[i10k..i10k + 20]), 20);
    let prefix = at(2_000);
    let naive_prefix = time_full(&Store::new(), &events[..prefix]);
    let inc_prefix = time_incremental(&(Store::new(), Layout::new()), &events[..prefix]);
    println!();
    println!(
        "== layout benchmark summary ({} events, 10,000 messages)",
        events.len()
    );
    println!(
        "build 10,000 messages event by event, incremental: {:.1} ms ({:.2} µs/event)",
        build_inc.as_secs_f64() * 1e3,
        per_event(build_inc, events.len())
    );
    println!(
        "first 2,000 messages ({prefix} events): full recompute after every event {:.0} ms vs incremental {:.1} ms: ratio {:.0}x",
        naive_prefix.as_secs_f64() * 1e3,
        inc_prefix.as_secs_f64() * 1e3,
        naive_prefix.as_secs_f64() / inc_prefix.as_secs_f64()
    );
    println!(
        "per event at 10k messages: full recompute {full_10k:.0} µs (20 events) vs incremental {inc_10k:.2} µs (300 events): ratio {:.0}x",
        full_10k / inc_10k
    );
    println!(
        "incremental cost per appended event: {inc_1k:.2} µs at 1k messages, {inc_10k:.2} µs at 10k: ratio 10k/1k = {:.2}",
        inc_10k / inc_1k
    );
    println!(
        "(a full recompute after each of all 10,000 messages would take about {:.0} s, so it is measured on the first 2,000 and as a per-event cost at 10k)",
        full_10k * events.len() as f64 / 2.0 / 1e6
    );
    older_pages_summary();
}
