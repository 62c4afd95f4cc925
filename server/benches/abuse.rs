//! `make bench`: a loopback attacker against the telemetry receiver
//! (docs/security.md "Telemetry"). It posts the three attacks that once cost
//! gigabytes (one span of 1.3 million attributes, 3.1 MB gzipped; one string
//! of 60 MB, 61 KB gzipped; one post naming 1,500 sessions), then
//! `ABUSE_MB` (100) MB of hostile posts within the size limits (a million
//! attributes, a 15 MB string, 9,000 spans of 128 attributes, 1,500
//! sessions), `ABUSE_POSTERS` (4) at a time, for at most `ABUSE_SECS` (300)
//! seconds; then it restarts the server on the same folders. It reports,
//! never judges: each attack's answer and time, the server's resident memory
//! at rest, at its peak (the kernel's high-water mark) and after, the
//! telemetry folder's size against its quota (`--otlp-max-mb ABUSE_QUOTA_MB`,
//! 100, when the binary has the flag), and the memory at rest after the
//! restart, with the ratios to the rest before.
//!
//! `TASKVIEW_BIN` is the server measured (default `target/release/taskview`);
//! `TASKVIEW_OLD_BIN`, when set, is measured the same way beside it (a
//! build before the limits, say: its posts may take a minute and gigabytes).

mod proc_stats;
mod served;

use flate2::write::GzEncoder;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use served::{env_or, Served};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One hostile post.
struct Attack {
    name: &'static str,
    content_type: &'static str,
    body: Vec<u8>,
}

fn text(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..Default::default()
    }
}

fn span(n: usize, attributes: Vec<KeyValue>) -> Span {
    Span {
        trace_id: vec![0x5b; 16],
        span_id: (n as u64 + 1).to_be_bytes().to_vec(),
        name: "claude_code.interaction".into(),
        start_time_unix_nano: 1_764_990_000_000_000_000,
        end_time_unix_nano: 1_764_990_001_000_000_000,
        attributes,
        ..Default::default()
    }
}

fn spans(spans: Vec<Span>) -> Vec<u8> {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            scope_spans: vec![ScopeSpans {
                spans,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
    .encode_to_vec()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut packer = GzEncoder::new(Vec::new(), flate2::Compression::best());
    packer.write_all(bytes).unwrap();
    packer.finish().unwrap()
}

/// One span of `count` empty attributes in `session`, protobuf, gzipped.
fn many_attributes(name: &'static str, session: &str, count: usize) -> Attack {
    let mut attributes = vec![text("session.id", session)];
    attributes.extend((0..count).map(|n| text(&format!("a{n}"), "")));
    Attack {
        name,
        content_type: "application/x-protobuf",
        body: gzip(&spans(vec![span(0, attributes)])),
    }
}

/// One string of `mb` megabytes, JSON, gzipped.
fn long_string(name: &'static str, session: &str, mb: usize) -> Attack {
    let line = serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "00000000000000aa", "name": "x",
        "attributes": [{"key": "session.id", "value": {"stringValue": session}},
                       {"key": "x", "value": {"stringValue": "A".repeat(mb << 20)}}]}]}]}]});
    Attack {
        name,
        content_type: "application/json",
        body: gzip(line.to_string().as_bytes()),
    }
}

fn many_sessions() -> Attack {
    let all = (0..1500).map(|n| span(n, vec![text("session.id", &format!("attack-{n:04}"))]));
    Attack {
        name: "one post naming 1,500 sessions",
        content_type: "application/x-protobuf",
        body: gzip(&spans(all.collect())),
    }
}

fn wide_spans() -> Attack {
    let wide = (0..9000).map(|n| {
        let mut attributes = vec![text("session.id", "attack-wide")];
        attributes.extend((0..127).map(|k| text(&format!("k{k}"), "v")));
        span(n, attributes)
    });
    Attack {
        name: "9,000 spans of 128 attributes (14.8 MB)",
        content_type: "application/x-protobuf",
        body: gzip(&spans(wide.collect())),
    }
}

/// A POST of `attack` to `base`: its status and how long it took.
async fn post(client: &reqwest::Client, base: &str, attack: &Attack) -> (u16, Duration) {
    let started = Instant::now();
    let answer = client
        .post(format!("{base}/v1/traces"))
        .header("content-type", attack.content_type)
        .header("content-encoding", "gzip")
        .body(attack.body.clone())
        .timeout(Duration::from_secs(600))
        .send()
        .await;
    let status = answer.map_or(0, |a| a.status().as_u16());
    (status, started.elapsed())
}

async fn wait_ready(base: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while reqwest::get(format!("{base}/api/v1/scenario"))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "{base} starts");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Megabytes of the files in `dir`, and how many.
fn folder(dir: &Path) -> (f64, usize) {
    let files: Vec<u64> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .collect()
        })
        .unwrap_or_default();
    (
        files.iter().sum::<u64>() as f64 / f64::from(1 << 20),
        files.len(),
    )
}

/// What one binary did.
#[derive(Default)]
struct Figures {
    rest: f64,
    attacks: Vec<(String, u16, Duration, f64)>,
    sent_mb: f64,
    campaign: Duration,
    peak: f64,
    after: f64,
    folder_mb: f64,
    files: usize,
    restart_rest: f64,
    restart_peak: f64,
}

/// The server's flags: a recordings folder, the telemetry folder, the quota
/// when the binary has one.
fn flags(bin: &Path, work: &Path, quota_mb: u64) -> Vec<String> {
    let help = std::process::Command::new(bin)
        .args(["serve", "--help"])
        .output();
    let has_quota =
        help.is_ok_and(|h| String::from_utf8_lossy(&h.stdout).contains("--otlp-max-mb"));
    let mut flags: Vec<String> = ["--recordings", &work.join("rec").to_string_lossy()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    flags.extend([
        "--otlp-dir".into(),
        work.join("otlp").to_string_lossy().into_owned(),
    ]);
    if has_quota {
        flags.extend(["--otlp-max-mb".into(), quota_mb.to_string()]);
    }
    flags
}

async fn measure(bin: &Path, work: &Path, issue: &[Attack], campaign: &[Attack]) -> Figures {
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work.join("rec")).unwrap();
    let flags = flags(bin, work, env_or("ABUSE_QUOTA_MB", 100));
    let served = Served::start(bin, &flags);
    let pid = served.child.id();
    wait_ready(&served.base).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut figures = Figures {
        rest: proc_stats::rss_mib(pid),
        ..Figures::default()
    };
    let client = reqwest::Client::new();
    for attack in issue {
        let (status, took) = post(&client, &served.base, attack).await;
        figures
            .attacks
            .push((attack.name.into(), status, took, proc_stats::peak_mib(pid)));
    }
    let budget = env_or("ABUSE_MB", 100) << 20;
    let until = Instant::now() + Duration::from_secs(env_or("ABUSE_SECS", 300));
    let sent = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let posters = (0..env_or("ABUSE_POSTERS", 4)).map(|p| {
        let (client, base, sent) = (client.clone(), served.base.clone(), Arc::clone(&sent));
        async move {
            let mut n = p as usize;
            while sent.load(Ordering::Relaxed) < budget as usize && Instant::now() < until {
                let attack = &campaign[n % campaign.len()];
                sent.fetch_add(attack.body.len(), Ordering::Relaxed);
                post(&client, &base, attack).await;
                n += 1;
            }
        }
    });
    futures_util::future::join_all(posters).await;
    figures.campaign = started.elapsed();
    figures.sent_mb = sent.load(Ordering::Relaxed) as f64 / f64::from(1 << 20);
    tokio::time::sleep(Duration::from_secs(5)).await;
    figures.peak = proc_stats::peak_mib(pid);
    figures.after = proc_stats::rss_mib(pid);
    (figures.folder_mb, figures.files) = folder(&work.join("otlp"));
    drop(served);
    let again = Served::start(bin, &flags);
    wait_ready(&again.base).await;
    tokio::time::sleep(Duration::from_secs(10)).await;
    figures.restart_rest = proc_stats::rss_mib(again.child.id());
    figures.restart_peak = proc_stats::peak_mib(again.child.id());
    figures
}

fn report(label: &str, f: &Figures) {
    println!("\n{label}");
    println!(
        "  resident memory at rest                 {:8.1} MiB",
        f.rest
    );
    for (name, status, took, peak) in &f.attacks {
        println!(
            "  {name:<40} {status} in {:6.2} s, peak so far {peak:8.1} MiB",
            took.as_secs_f64()
        );
    }
    println!(
        "  {:.0} MB of hostile posts in {:.1} s: peak {:8.1} MiB ({:.1}x rest), after {:8.1} MiB ({:.1}x rest)",
        f.sent_mb,
        f.campaign.as_secs_f64(),
        f.peak,
        f.peak / f.rest,
        f.after,
        f.after / f.rest
    );
    println!(
        "  telemetry folder                        {:8.1} MB in {} files",
        f.folder_mb, f.files
    );
    println!(
        "  after a restart: at rest {:8.1} MiB ({:.2}x the rest before), peak {:8.1} MiB",
        f.restart_rest,
        f.restart_rest / f.rest,
        f.restart_peak
    );
}

#[tokio::main]
async fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let work = root.join("target/bench-abuse");
    let issue = [
        many_attributes(
            "one span of 1.3 million attributes",
            "attack-attrs",
            1_300_000,
        ),
        long_string("one string of 60 MB", "attack-long", 60),
        many_sessions(),
    ];
    for attack in &issue {
        println!(
            "{:<40} {:8.1} KB sent",
            attack.name,
            attack.body.len() as f64 / 1024.0
        );
    }
    let campaign = [
        many_attributes(
            "one span of a million attributes",
            "attack-attrs-fit",
            1_000_000,
        ),
        long_string("one string of 15 MB", "attack-long-fit", 15),
        wide_spans(),
        many_sessions(),
    ];
    let bin = std::env::var_os("TASKVIEW_BIN")
        .map_or_else(|| root.join("target/release/taskview"), PathBuf::from);
    let new = measure(&bin, &work, &issue, &campaign).await;
    report(&bin.display().to_string(), &new);
    if let Some(old_bin) = std::env::var_os("TASKVIEW_OLD_BIN") {
        let old = measure(Path::new(&old_bin), &work, &issue, &campaign).await;
        report(&format!("{} (old)", Path::new(&old_bin).display()), &old);
        println!(
            "\nold / new: peak {:.1}x, after {:.1}x, at rest after a restart {:.1}x",
            old.peak / new.peak,
            old.after / new.after,
            old.restart_rest / new.restart_rest
        );
    }
}
