//! Export masking (docs/behaviour.md §9): the time to mask secrets in every capture of
//! the real CLIs (tests/fixtures/captures, about 16 MB of JSON), as an export
//! of them would, and its throughput.
//!
//! Criterion measures; the throughput of one run is printed at the end.

use criterion::Criterion;
use std::hint::black_box;
use std::time::{Duration, Instant};
use taskview_core::screen::secrets::{Masked, Masker};
use taskview_testkit::fixtures::fixtures_under;

/// Masks every capture with one masker (its regexes compiled on first need).
fn mask_all(texts: &[&str]) -> Masked {
    let masker = Masker::new();
    let mut masked = Masked::default();
    for text in texts {
        black_box(masker.mask_json(text, &mut masked));
    }
    masked
}

fn main() {
    let texts: Vec<&str> = fixtures_under("captures/").map(|(_, t)| t).collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(5));
    c.bench_function("mask secrets in every capture", |b| {
        b.iter(|| mask_all(&texts))
    });
    c.final_summary();

    let start = Instant::now();
    let masked = mask_all(&texts);
    let took = start.elapsed().as_secs_f64();
    println!();
    println!("== mask benchmark summary (one run)");
    println!(
        "{} files, {:.1} MB: {:.0} ms, {:.0} MB/s; {}",
        texts.len(),
        bytes as f64 / 1e6,
        took * 1e3,
        bytes as f64 / 1e6 / took,
        masked.summary()
    );
}
