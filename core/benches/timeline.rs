//! What the Timeline of subagent runs (docs/user-guide.md "The Timeline") costs
//! a page, after 1,000, 10,000 and 100,000 messages of the synthetic session
//! (two subagents a turn: about 140, 1,400 and 14,000 runs):
//!
//! - opening it: reading the session and building its first screen of rows;
//! - one live event while it is open, as the page pays it: `Viewer::apply`
//!   with the timeline open against closed (the difference is its write
//!   path), and the view of one screen of rows after the event (its read
//!   path, what the page does at most once per refresh). A live update must
//!   cost no more than a row update: `Viewer::apply` with the timeline
//!   closed and the views of the transcript rows the event changed (what the
//!   page renders again for it).
//!
//! Criterion measures; the figures and their ratios from one run are printed
//! at the end.

use criterion::Criterion;
use std::hint::black_box;
use std::time::{Duration, Instant};
use taskview_core::model::event::Event;
use taskview_core::screen::view::timeline::query::TimelineQuery;
use taskview_core::screen::viewer::Viewer;
use taskview_testkit::synthetic::live_session;

/// Events timed per measurement, after [`LEAD`] untimed ones (a clone's
/// tables are exactly full; see the viewer bench).
const WINDOW: usize = 300;
const LEAD: usize = 100;

/// The viewer after `prefix` events, loaded a page at a time.
fn prepared(events: &[Event], prefix: usize, open: bool) -> Viewer {
    let mut viewer = Viewer::new();
    for page in events[..prefix].chunks(1000) {
        viewer.apply(page.iter().cloned());
    }
    if open {
        viewer.timeline(&TimelineQuery::default());
    }
    viewer
}

/// One screen of rows at the end of the session (where a live session is
/// read), wide as a laptop's panel, packed or not.
fn screen(viewer: &mut Viewer, packed: bool) -> TimelineQuery {
    let query = TimelineQuery {
        packed,
        width: 900,
        ..TimelineQuery::default()
    };
    let rows = viewer.timeline(&query).rows_total;
    TimelineQuery {
        first_row: rows.saturating_sub(12),
        ..query
    }
}

/// Time of the window's events one at a time (`apply`), of the views of the
/// transcript rows each changed (what the page renders again after it), and
/// of a view of one screen of the timeline after each (`view`, when asked),
/// in µs per event.
fn window(base: &Viewer, events: &[Event], view: bool, packed: bool) -> (f64, f64, f64) {
    let mut viewer = base.clone();
    let (lead, timed) = events.split_at(LEAD);
    for e in lead {
        viewer.apply([e.clone()]);
    }
    let query = screen(&mut viewer, packed);
    let (mut applying, mut rows, mut viewing) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for e in timed {
        let start = Instant::now();
        let update = black_box(viewer.apply([e.clone()]));
        applying += start.elapsed();
        let start = Instant::now();
        for key in &update.rows {
            black_box(viewer.row(key));
        }
        rows += start.elapsed();
        if view {
            let start = Instant::now();
            black_box(viewer.timeline(&query));
            viewing += start.elapsed();
        }
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / timed.len() as f64;
    (per(applying), per(rows), per(viewing))
}

/// The least of five runs of [`window`], each figure on its own.
fn best(base: &Viewer, events: &[Event], view: bool, packed: bool) -> (f64, f64, f64) {
    (0..5).map(|_| window(base, events, view, packed)).fold(
        (f64::INFINITY, f64::INFINITY, f64::INFINITY),
        |(a, r, v), (a2, r2, v2)| (a.min(a2), r.min(r2), v.min(v2)),
    )
}

/// Time to open the timeline on `base` and build its first screen, best of three, in ms.
fn open_ms(base: &Viewer) -> f64 {
    (0..3)
        .map(|_| {
            let mut viewer = base.clone();
            let start = Instant::now();
            black_box(viewer.timeline(&TimelineQuery::default()));
            start.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
    let events = live_session(SIZES[2] + 10_000);
    // The event after which the store holds each size.
    let mut ends = Vec::new();
    let mut messages = 0;
    for (i, e) in events.iter().enumerate() {
        messages += usize::from(matches!(e, Event::MessageAdded(_)));
        if ends.len() < SIZES.len() && messages >= SIZES[ends.len()] {
            ends.push(i + 1);
        }
    }
    let bases: Vec<(usize, usize, Viewer, Viewer)> = SIZES
        .iter()
        .zip(ends)
        .map(|(&size, end)| {
            (
                size,
                end,
                prepared(&events, end, false),
                prepared(&events, end, true),
            )
        })
        .collect();

    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let mut group = c.benchmark_group("timeline");
    for (size, end, closed, open) in &bases {
        let live = &events[*end..*end + LEAD + WINDOW];
        group.bench_function(format!("open it after {size} messages"), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| Duration::from_secs_f64(open_ms(closed) / 1e3))
                    .sum()
            })
        });
        group.bench_function(
            format!("300 live events, open, a screen after each, after {size} messages"),
            |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| {
                            let (a, r, v) = window(open, live, true, false);
                            Duration::from_secs_f64((a + r + v) * WINDOW as f64 / 1e6)
                        })
                        .sum()
                })
            },
        );
    }
    group.finish();
    c.final_summary();

    println!();
    println!("Timeline, one run, best of 5 windows of {WINDOW} live events:");
    for (size, end, closed, open) in &bases {
        let live = &events[*end..*end + LEAD + WINDOW];
        let runs = {
            let mut v = open.clone();
            v.timeline_snapshot().runs.len()
        };
        let (apply, row_views, _) = best(closed, live, false, false);
        let row_update = apply + row_views;
        println!(
            "  {size:>6} messages, {runs:>5} runs: open {:7.2} ms; per live event: a row update {row_update:6.2} µs \
             (Viewer::apply {apply:.2} µs, timeline closed, and the views of the rows it changed {row_views:.2} µs)",
            open_ms(closed),
        );
        for packed in [false, true] {
            let (applied, _, viewed) = best(open, live, true, packed);
            println!(
                "    with the timeline open{}: its write {:+.2} µs and a screen of its rows after the event \
                 {viewed:.2} µs: {:.2}x a row update ({:.2}x Viewer::apply alone)",
                if packed { ", packed" } else { "" },
                applied - apply,
                (applied - apply + viewed) / row_update,
                viewed / apply,
            );
        }
    }
}
