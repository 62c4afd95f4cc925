//! Search over every message (docs/behaviour.md §8): the time of a search at 1,000 and
//! 100,000 messages, a query that extends the previous one, and the index
//! upkeep per appended message (which must not grow with the session).
//!
//! Criterion measures; a summary of ratios from one run is printed at the end.

use criterion::Criterion;
use serde_json::json;
use std::hint::black_box;
use std::time::{Duration, Instant};
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::state::search::SearchIndex;
use taskview_core::state::store::Store;

const WORDS: [&str; 12] = [
    "closure",
    "cursor",
    "retry",
    "review",
    "diff",
    "await",
    "token",
    "subagent",
    "verdict",
    "invariant",
    "tests",
    "sync",
];

/// Message `n`: a tool call or a text of a few hundred characters, with a
/// rare marker (`rare-<n>` on every 997th) to search for.
fn message(n: usize) -> Event {
    let mut text = String::new();
    for k in 0..40 {
        text.push_str(WORDS[(n * 7 + k * 3) % WORDS.len()]);
        text.push(' ');
    }
    if n.is_multiple_of(997) {
        text.push_str(&format!("rare-{n}"));
    }
    let kind = if n.is_multiple_of(3) {
        "message"
    } else {
        "tool_execute"
    };
    let v = json!({"id": format!("m{n}"), "type": kind, "content": text,
        "created_at": format!("2026-08-03T00:00:00.{n:09}Z"),
        "metadata": {"title": format!("Run step {n}"), "tool_call_id": format!("tc{n}"),
            "normalized": {"kind": "shell_exec", "shell_exec": {"command": "cargo test",
                "output": {"stdout": format!("test result: ok. {n} passed")}}}}});
    Event::MessageAdded(Message::from_value(&v).expect("bench message"))
}

fn indexed(n: usize) -> (Store, SearchIndex) {
    let mut store = Store::new();
    let mut index = SearchIndex::new();
    let changes = store.apply_all((0..n).map(message));
    index.record(&store, &changes);
    (store, index)
}

/// Time of a fresh query (a full scan of the index).
fn time_search(index: &SearchIndex, query: &str) -> Duration {
    let mut index = index.clone();
    let start = Instant::now();
    black_box(index.set_query(query));
    start.elapsed()
}

/// Time of typing one more character after `first`.
fn time_narrowing(index: &SearchIndex, first: &str, then: &str) -> Duration {
    let mut index = index.clone();
    index.set_query(first);
    let start = Instant::now();
    black_box(index.set_query(then));
    start.elapsed()
}

/// Time per message of appending `count` messages to an index of `from`,
/// with a query active.
fn time_upkeep(base: &(Store, SearchIndex), from: usize, count: usize) -> Duration {
    let (mut store, mut index) = base.clone();
    index.set_query("rare");
    let events: Vec<Event> = (from..from + count).map(message).collect();
    let start = Instant::now();
    for e in events {
        let changes = store.apply(e);
        index.record(&store, &changes);
    }
    start.elapsed() / count as u32
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let small = indexed(1_000);
    let large = indexed(100_000);
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let mut group = c.benchmark_group("search");
    for (name, (_, index)) in [("1k", &small), ("100k", &large)] {
        group.bench_function(format!("search 'verdict tests' in {name} messages"), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| time_search(index, "verdict tests"))
                    .sum()
            })
        });
        group.bench_function(format!("search a rare word in {name} messages"), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| time_search(index, "rare-99")).sum())
        });
    }
    group.finish();
    c.final_summary();

    let fresh_1k = time_search(&small.1, "verdict tests");
    let fresh_100k = time_search(&large.1, "verdict tests");
    let rare_100k = time_search(&large.1, "rare-99");
    let narrow_100k = time_narrowing(&large.1, "rare-9", "rare-99");
    let upkeep_1k = time_upkeep(&small, 1_000, 500);
    let upkeep_100k = time_upkeep(&large, 100_000, 500);
    println!();
    println!("== search benchmark summary (one run)");
    println!(
        "a search at 1,000 messages: {:.2} ms; at 100,000: {:.1} ms (ratio {:.0}x for 100x the messages)",
        ms(fresh_1k),
        ms(fresh_100k),
        fresh_100k.as_secs_f64() / fresh_1k.as_secs_f64()
    );
    println!(
        "at 100,000 messages: a rare word {:.1} ms; typing one more character after it {:.3} ms (ratio {:.0}x)",
        ms(rare_100k),
        ms(narrow_100k),
        rare_100k.as_secs_f64() / narrow_100k.as_secs_f64().max(1e-9)
    );
    println!(
        "index upkeep per appended message: {:.2} µs at 1k, {:.2} µs at 100k: ratio 100k/1k = {:.2}",
        upkeep_1k.as_secs_f64() * 1e6,
        upkeep_100k.as_secs_f64() * 1e6,
        upkeep_100k.as_secs_f64() / upkeep_1k.as_secs_f64()
    );
}
