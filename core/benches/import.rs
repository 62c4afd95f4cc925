//! The importers on real captures (docs/formats.md §8): the time to import a session
//! with its subagent files, per record, for the 40-subagent capture of each
//! CLI the harness captured and a 4-subagent one beside it (per-record work
//! must not grow with the session).
//!
//! Criterion measures; a summary from one run is printed at the end.

use criterion::Criterion;
use std::hint::black_box;
use std::time::{Duration, Instant};
use taskview_core::read::import::import_any_with_files;
use taskview_core::read::import::title::session_title;
use taskview_testkit::captures::{capture, Capture};

/// The captures measured: `(label, <cli>-<version>/<scenario>)`, each CLI's
/// 40-subagent session followed by its 4-subagent one.
const CAPTURES: [(&str, &str); 10] = [
    (
        "Claude Code, 40 subagents",
        "claude-code-2.1.332/long-session",
    ),
    (
        "Claude Code, 4 subagents",
        "claude-code-2.1.332/parallel-wave",
    ),
    ("qwen-code, 40 subagents", "qwen-code-0.24.4/long-session"),
    ("qwen-code, 4 subagents", "qwen-code-0.24.4/parallel-wave"),
    ("Copilot CLI, 40 subagents", "copilot-1.0.102/long-session"),
    ("Copilot CLI, 4 subagents", "copilot-1.0.102/parallel-wave"),
    ("Kimi Code, 40 subagents", "kimi-code-2.1.0/long-session"),
    ("Kimi Code, 4 subagents", "kimi-code-2.1.0/parallel-wave"),
    ("OpenCode, 40 subagents", "opencode-1.18.33/long-session"),
    ("OpenCode, 4 subagents", "opencode-1.18.33/parallel-wave"),
];

/// Records (non-blank lines) and bytes of the session and its JSONL files;
/// for OpenCode's exports (whole documents), their parts and bytes.
fn records(c: &Capture) -> (usize, usize) {
    if c.session_path.starts_with("exports/") {
        let texts =
            std::iter::once(c.session.as_str()).chain(c.files.iter().map(|(_, t)| t.as_str()));
        let parts = |text: &str| {
            let doc: serde_json::Value = serde_json::from_str(text).expect("an export");
            doc["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| m["parts"].as_array().map_or(0, Vec::len))
                .sum::<usize>()
        };
        return texts.fold((0, 0), |(n, bytes), t| (n + parts(t), bytes + t.len()));
    }
    let lines = |text: &str| text.lines().filter(|l| !l.trim().is_empty()).count();
    let jsonl = c.files.iter().filter(|(name, _)| name.ends_with(".jsonl"));
    let records = lines(&c.session) + jsonl.clone().map(|(_, t)| lines(t)).sum::<usize>();
    let bytes = c.session.len() + jsonl.map(|(_, t)| t.len()).sum::<usize>();
    (records, bytes)
}

fn import(c: &Capture) -> usize {
    import_any_with_files(&c.session, &c.file_refs())
        .expect("the capture imports")
        .events
        .len()
}

/// The best of `runs` parses of every line as JSON (of every whole export,
/// for OpenCode), the floor under any importer (its speed depends on the
/// text: long strings, escapes, cache).
fn best_parse(c: &Capture, runs: usize) -> Duration {
    let whole = c.session_path.starts_with("exports/");
    let texts: Vec<&str> = std::iter::once(c.session.as_str())
        .chain(
            c.files
                .iter()
                .filter(|(n, _)| whole || n.ends_with(".jsonl"))
                .map(|(_, t)| t.as_str()),
        )
        .collect();
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            let units: Box<dyn Iterator<Item = &str>> = if whole {
                Box::new(texts.iter().copied())
            } else {
                Box::new(texts.iter().flat_map(|t| t.lines()))
            };
            for unit in units {
                black_box(serde_json::from_str::<serde_json::Value>(unit).ok());
            }
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// The best of `runs` whole imports.
fn best_import(c: &Capture, runs: usize) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(import(c));
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// The best of `runs` reads of the session's title from its text and events
/// (what the recordings server does on every change of a session).
fn best_title(c: &Capture, runs: usize) -> Duration {
    let events = import_any_with_files(&c.session, &c.file_refs())
        .expect("the capture imports")
        .events;
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(session_title(&c.session, &events));
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let loaded: Vec<(&str, Capture)> = CAPTURES
        .iter()
        .map(|(label, name)| (*label, capture(name)))
        .collect();
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let mut group = c.benchmark_group("import");
    for (label, capture) in &loaded {
        group.bench_function(format!("import {label}"), |b| b.iter(|| import(capture)));
    }
    group.finish();
    c.final_summary();

    println!();
    println!("== import benchmark summary (one run, best of 5)");
    let mut per_record = Vec::new();
    for (label, capture) in &loaded {
        let (n, bytes) = records(capture);
        let took = best_import(capture, 5);
        let parse = best_parse(capture, 5);
        let title = best_title(capture, 5);
        let each = took.as_secs_f64() * 1e6 / n as f64;
        per_record.push(each);
        println!(
            "{label}: {n} records, {:.2} MB ({} files) in {:.1} ms: {each:.2} µs per record, {:.0} MB/s; \
             parsing the JSON alone {:.1} ms (import / parse = {:.2}); its title {:.2} ms \
             (title / parse = {:.3})",
            bytes as f64 / 1e6,
            capture.files.len() + 1,
            took.as_secs_f64() * 1e3,
            bytes as f64 / 1e6 / took.as_secs_f64(),
            parse.as_secs_f64() * 1e3,
            took.as_secs_f64() / parse.as_secs_f64(),
            title.as_secs_f64() * 1e3,
            title.as_secs_f64() / parse.as_secs_f64()
        );
    }
    for (pair, labels) in per_record.chunks(2).zip(CAPTURES.chunks(2)) {
        if let ([large, small], [(label, _), _]) = (pair, labels) {
            let cli = label.split(',').next().unwrap_or(label);
            println!(
                "{cli}: per-record time, 40 subagents / 4 subagents: {:.2}",
                large / small
            );
        }
    }
}
