//! Following a telemetry file (docs/behaviour.md §7 "All day, any
//! size"): the cost of one appended post (a real Claude Code and qwen-code
//! post, as the receiver writes it) pushed to a follower that already holds
//! a short session, and one that holds a session a hundred times as long,
//! measured in the same run. The sessions are the capture stories' posts
//! repeated, each copy's span, agent and call ids made fresh, so each copy
//! adds its own subagent cards. Per-post work must not grow with the
//! session: the ratio printed at the end should be about 1. Beside it, what
//! reading the short session whole again costs (what each post cost before
//! telemetry was followed by its bytes).
//!
//! Criterion measures; a summary from one run is printed at the end.

mod pushes;

use criterion::{BatchSize, Criterion};
use pushes::median_push;
use serde_json::Value;
use std::hint::black_box;
use std::time::{Duration, Instant};
use taskview_core::read::import::{otlp, Dialect, Follower};
use taskview_testkit::captures::otlp_posts;

/// The stories whose posts make the sessions.
const STORIES: [&str; 2] = [
    "claude-code-2.1.332/parallel-wave",
    "qwen-code-0.24.4/parallel-wave",
];

/// The sessions followed: `(label, copies of the stories)`.
const SIZES: [(&str, usize); 2] = [("short", 2), ("long", 200)];

/// Attributes that carry an id a copy must make its own.
const ID_KEYS: [&str; 8] = [
    "agent_id",
    "parent_agent_id",
    "tool_use_id",
    "qwen-code.subagent.id",
    "qwen-code.subagent.parent_agent_id",
    "qwen-code.subagent.invoking_request_id",
    "gen_ai.tool.call.id",
    "prompt.id",
];

/// The stories' posts in their order of arrival, each as a JSON value.
fn posts() -> Vec<Value> {
    STORIES
        .iter()
        .flat_map(|story| otlp_posts(story))
        .map(|line| serde_json::from_str(&line).unwrap())
        .collect()
}

/// `value` with every span id and id attribute prefixed by `tag`.
fn fresh(value: &Value, tag: &str) -> Value {
    match value {
        Value::Object(map) => {
            let key = map.get("key").and_then(Value::as_str);
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                let id_field = matches!(k.as_str(), "spanId" | "parentSpanId");
                let v = match v {
                    Value::String(s) if id_field && !s.is_empty() => {
                        Value::from(format!("{tag}{s}"))
                    }
                    Value::Object(inner)
                        if k == "value" && key.is_some_and(|k| ID_KEYS.contains(&k)) =>
                    {
                        match inner.get("stringValue").and_then(Value::as_str) {
                            Some(s) => serde_json::json!({ "stringValue": format!("{tag}{s}") }),
                            None => v.clone(),
                        }
                    }
                    _ => fresh(v, tag),
                };
                out.insert(k.clone(), v);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| fresh(v, tag)).collect()),
        other => other.clone(),
    }
}

/// Copy `n` of post `i` of `posts`, as a line.
fn line(posts: &[Value], n: usize) -> String {
    let tag = format!("c{}x", n / posts.len());
    fresh(&posts[n % posts.len()], &tag).to_string() + "\n"
}

/// The stories' posts repeated `copies` times, as a telemetry file.
fn session(posts: &[Value], copies: usize) -> String {
    (0..copies * posts.len()).map(|n| line(posts, n)).collect()
}

/// A follower that has read `text`, live.
fn follower_of(text: &str) -> Follower {
    let mut follower = Follower::new(Some(Dialect::Otlp));
    follower.set_clock(0);
    black_box(follower.push(text.as_bytes()));
    follower
}

fn main() {
    let posts = posts();
    let mut loaded: Vec<(&str, String, Follower, usize)> = SIZES
        .iter()
        .map(|(label, copies)| {
            let text = session(&posts, *copies);
            let follower = follower_of(&text);
            (*label, text, follower, 1_000_000 * posts.len())
        })
        .collect();
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let mut group = c.benchmark_group("otlp_follow");
    for (label, _, follower, next) in &mut loaded {
        group.bench_function(
            format!("push one post to a {label} telemetry session"),
            |b| {
                b.iter_batched(
                    || {
                        *next += 1;
                        line(&posts, *next - 1)
                    },
                    |line| black_box(follower.push(line.as_bytes())),
                    BatchSize::SmallInput,
                )
            },
        );
    }
    group.finish();
    c.final_summary();

    println!();
    println!("== telemetry follow benchmark summary (one run, median of 1001 posts)");
    let mut medians = Vec::new();
    for (label, text, follower, next) in &mut loaded {
        let median = median_push(follower, 1001, || {
            *next += 1;
            line(&posts, *next - 1)
        });
        medians.push(median);
        println!(
            "{label} session ({:.1} MB, {} posts): one appended post in {:.1} µs",
            text.len() as f64 / 1e6,
            text.lines().count(),
            median.as_secs_f64() * 1e6
        );
    }
    let (_, short, _, _) = &loaded[0];
    let start = Instant::now();
    black_box(otlp::import_live(short, 0).unwrap());
    let reread = start.elapsed();
    if let [short_post, long_post] = medians[..] {
        println!(
            "per-post time, long session / short session: {:.2}; reading the short session \
             whole again (each post's cost before): {:.1} µs",
            long_post.as_secs_f64() / short_post.as_secs_f64(),
            reread.as_secs_f64() * 1e6
        );
    }
}
