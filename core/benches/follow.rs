//! Following a growing session (docs/behaviour.md §7 "All day, any size"):
//! the cost of pushing one appended record to a follower that already holds
//! a 1 MB session, and one that holds a 100 MB session, measured in the same
//! run. The sessions are a Claude Code capture's records repeated with fresh
//! ids. Per-append work must not grow with the session: the ratio printed
//! at the end should be about 1. A subagent launch is also measured apart:
//! it changes which card a transcript belongs to (only the transcripts it
//! names are linked again while every transcript's agent is named).
//!
//! Criterion measures; a summary from one run is printed at the end.

mod pushes;

use criterion::{BatchSize, Criterion};
use pushes::median_push;
use std::hint::black_box;
use std::time::Duration;
use taskview_core::read::import::{Dialect, Follower};
use taskview_testkit::captures::capture;

/// The sizes followed: `(label, bytes)`.
const SIZES: [(&str, usize); 2] = [("1 MB", 1 << 20), ("100 MB", 100 << 20)];

/// The capture whose records are repeated.
const CAPTURE: &str = "claude-code-2.1.332/long-session";

/// The capture's session repeated, each copy's ids made fresh, to at least
/// `bytes`.
fn session_of(bytes: usize) -> String {
    let records = capture(CAPTURE).session;
    let mut text = String::with_capacity(bytes + records.len());
    let mut copy = 0;
    while text.len() < bytes {
        text.push_str(&fresh_ids(&records, &format!("c{copy}")));
        copy += 1;
    }
    text
}

/// `records` with every record, message and tool id made unique to `tag`.
fn fresh_ids(records: &str, tag: &str) -> String {
    records
        .replace("\"uuid\":\"", &format!("\"uuid\":\"{tag}-"))
        .replace("\"parentUuid\":\"", &format!("\"parentUuid\":\"{tag}-"))
        .replace("toolu_", &format!("toolu_{tag}_"))
        .replace("msg_", &format!("msg_{tag}_"))
}

/// Appended record `n`: a reply calling a tool, then that tool's result.
fn record(n: u64) -> String {
    let call = n / 2;
    if n.is_multiple_of(2) {
        format!(
            r#"{{"type":"assistant","uuid":"bench-{n}","sessionId":"s","timestamp":"2026-12-06T10:00:00Z","message":{{"id":"msg_bench_{call}","role":"assistant","model":"m","content":[{{"type":"text","text":"Reading file {call}."}},{{"type":"tool_use","id":"toolu_bench_{call}","name":"Read","input":{{"file_path":"/src/{call}.rs"}}}}]}}}}"#
        ) + "\n"
    } else {
        format!(
            r#"{{"type":"user","uuid":"bench-{n}","sessionId":"s","timestamp":"2026-12-06T10:00:01Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_bench_{call}","content":"fn main() {{}}"}}]}}}}"#
        ) + "\n"
    }
}

/// Appended record `n` launching a subagent.
fn launch(n: u64) -> String {
    format!(
        r#"{{"type":"assistant","uuid":"launch-{n}","sessionId":"s","timestamp":"2026-12-06T10:00:02Z","message":{{"id":"msg_launch_{n}","role":"assistant","model":"m","content":[{{"type":"tool_use","id":"toolu_launch_{n}","name":"Task","input":{{"description":"Look {n}","prompt":"Look at {n}","subagent_type":"general-purpose"}}}}]}}}}"#
    ) + "\n"
}

/// A follower that has read `text`.
fn follower_of(text: &str) -> Follower {
    let mut follower = Follower::new(Some(Dialect::ClaudeCode));
    black_box(follower.push(text.as_bytes()));
    follower
}

fn main() {
    let mut loaded: Vec<(&str, usize, Follower, u64)> = SIZES
        .iter()
        .map(|(label, bytes)| {
            let text = session_of(*bytes);
            let size = text.len();
            (*label, size, follower_of(&text), 0)
        })
        .collect();
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let mut group = c.benchmark_group("follow");
    for (label, _, follower, next) in &mut loaded {
        group.bench_function(format!("push one record to a {label} session"), |b| {
            b.iter_batched(
                || {
                    *next += 1;
                    record(*next - 1)
                },
                |line| black_box(follower.push(line.as_bytes())),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
    c.final_summary();

    println!();
    println!("== follow benchmark summary (one run, median of 2001 pushes)");
    let mut medians = Vec::new();
    let mut launches = Vec::new();
    for (label, size, follower, next) in &mut loaded {
        let mut made = |make: fn(u64) -> String| {
            *next += 1;
            make(*next - 1)
        };
        let median = median_push(follower, 2001, || made(record));
        let launch = median_push(follower, 101, || made(launch));
        medians.push(median);
        launches.push(launch);
        println!(
            "{label} session ({:.1} MB): one appended record in {:.1} µs; one subagent \
             launch in {:.1} µs",
            *size as f64 / 1e6,
            median.as_secs_f64() * 1e6,
            launch.as_secs_f64() * 1e6
        );
    }
    if let ([small, large], [small_launch, large_launch]) = (&medians[..], &launches[..]) {
        println!(
            "per-append time, 100 MB session / 1 MB session: {:.2} (a subagent launch: {:.2})",
            large.as_secs_f64() / small.as_secs_f64(),
            large_launch.as_secs_f64() / small_launch.as_secs_f64()
        );
    }
}
