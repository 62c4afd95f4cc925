//! `make bench`: many WebSocket viewers on `taskview serve` (docs/contributing.md "Benchmarks"),
//! loopback only, bounded. Two servers run at once: the stream scenario
//! (3,000 messages, the demo's waves then notes) and a recordings folder
//! whose file the bench keeps growing. Each gets `VIEWERS` viewers that
//! subscribe like the app (`user.subscribe`, `session.subscribe`, then an
//! HTTP load merged with what the socket brings) and fold every frame into
//! a core `Store`. Reported, not judged: frames per second delivered, each
//! frame's lag behind the first viewer that got it (slowest viewer), server
//! RSS at start and end; checked: every viewer ends with exactly the
//! messages of a fresh HTTP load.
//!
//! Needs the release server (`target/release/taskview`, or `TASKVIEW_BIN`)
//! and `dist/` (scripts/bench.sh builds both first).

mod proc_stats;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::read::protocol::event_from_notification;
use taskview_core::state::store::Store;
use tokio::sync::watch;
use tokio_tungstenite::{connect_async, tungstenite::Message as Frame};

/// Viewers per server.
const VIEWERS: usize = 200;
/// Messages of the stream scenario.
const STREAM_MESSAGES: usize = 3000;
/// The recording: messages at first, then batches written while viewers watch.
const RECORDING_START: usize = 200;
const RECORDING_BATCHES: usize = 40;
const RECORDING_BATCH: usize = 25;
/// The stream scenario's pace: a wait before the first frame, then one every
/// `STREAM_INTERVAL_MS`.
const STREAM_START_DELAY_MS: u64 = 5000;
const STREAM_INTERVAL_MS: u64 = 2;
/// Between the recording's writes.
const RECORDING_WRITE_MS: u64 = 150;
/// Added to every wait's expected duration for its deadline: a loaded
/// machine is slow, a server that stops sending must not hang the bench.
const MARGIN: Duration = Duration::from_secs(30);

/// A `taskview serve` child process.
struct Served {
    child: Child,
    url: String,
}

impl Served {
    fn start(root: &Path, flags: &[&str]) -> Served {
        let bin = std::env::var_os("TASKVIEW_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/release/taskview"));
        let dist = root.join("dist");
        let mut child = Command::new(&bin)
            .args(["serve", "--addr", "127.0.0.1:0", "--log", "warn", "--dist"])
            .arg(&dist)
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e} (build it: make bench)", bin.display()));
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let (found, url) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let url = lines.by_ref().map_while(Result::ok).find_map(|l| {
                l.find("http://127.0.0.1:")
                    .map(|at| l[at..].split_whitespace().next().unwrap_or("").to_string())
            });
            let _ = found.send(url);
            // Keep reading, so the server never blocks on a full pipe.
            lines.for_each(drop);
        });
        let Some(url) = url.recv_timeout(MARGIN).ok().flatten() else {
            let _ = child.kill();
            panic!("{}: no URL printed within {MARGIN:?}", bin.display())
        };
        Served { child, url }
    }

    /// Resident memory, in MiB (Linux `/proc`).
    fn rss_mib(&self) -> f64 {
        proc_stats::rss_mib(self.child.id())
    }

    fn ws_url(&self) -> String {
        format!("{}ws", self.url.replacen("http://", "ws://", 1))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP client whose every request has a deadline.
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(MARGIN)
        .build()
        .expect("an HTTP client")
}

/// The JSON document at `url`.
async fn get_json(http: &reqwest::Client, url: &str) -> Value {
    let response = http.get(url).send().await;
    let json = match response {
        Ok(response) => response.json().await,
        Err(e) => Err(e),
    };
    json.unwrap_or_else(|e| {
        let reason = if e.is_timeout() {
            format!("timed out after {MARGIN:?}")
        } else {
            e.to_string()
        };
        panic!("{url}: {reason}")
    })
}

/// Every message of `session` over HTTP, oldest first (pages of 500).
async fn http_messages(http: &reqwest::Client, base: &str, session: &str) -> Vec<Message> {
    let mut out = Vec::new();
    let mut after = String::new();
    loop {
        let url =
            format!("{base}api/v1/task-sessions/{session}/messages?limit=500&sort=asc{after}");
        let page = get_json(http, &url).await;
        let items = page["messages"].as_array().cloned().unwrap_or_default();
        out.extend(items.iter().filter_map(|m| Message::from_value(m).ok()));
        match page["cursor"].as_str() {
            Some(cursor) if page["has_more"] == true && !items.is_empty() => {
                after = format!("&after={cursor}")
            }
            _ => return out,
        }
    }
}

/// What one viewer saw.
struct Seen {
    store: Store,
    frames: u64,
    /// When each session frame arrived (bench clock), by the frame's text.
    arrivals: HashMap<u64, Duration>,
}

fn hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// What every viewer shares: the bench clock, one HTTP client, when the
/// last session frame arrived, and the stop signal.
#[derive(Clone)]
struct Shared {
    clock: Instant,
    http: reqwest::Client,
    /// Milliseconds on `clock` of the latest session frame any viewer read.
    last_frame_ms: Arc<AtomicU64>,
    stop: watch::Receiver<bool>,
}

impl Shared {
    /// Waits until no viewer has read a session frame for `QUIET`, or
    /// `deadline` passes (then `false`).
    async fn quiet(&self, deadline: Instant) -> bool {
        loop {
            let now = self.clock.elapsed();
            let last = Duration::from_millis(self.last_frame_ms.load(Ordering::Relaxed));
            if now.saturating_sub(last) >= QUIET {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// How long no frame arrives before the viewers are stopped.
const QUIET: Duration = Duration::from_millis(500);

/// One viewer: subscribes, loads over HTTP while reading frames, and folds
/// both into a store until `stop` turns true.
async fn viewer(ws_url: String, base: String, session: String, shared: Shared) -> Seen {
    let Shared {
        clock,
        http,
        last_frame_ms,
        mut stop,
    } = shared;
    let (mut ws, _) = tokio::time::timeout(MARGIN, connect_async(&ws_url))
        .await
        .unwrap_or_else(|_| panic!("{ws_url}: no WebSocket within {MARGIN:?}"))
        .expect("a WebSocket");
    for (id, action, payload) in [
        ("v1", "user.subscribe", json!({})),
        ("v2", "session.subscribe", json!({"session_id": session})),
    ] {
        let frame = json!({"id": id, "type": "request", "action": action, "payload": payload});
        ws.send(Frame::text(frame.to_string())).await.unwrap();
    }
    let mut seen = Seen {
        store: Store::new(),
        frames: 0,
        arrivals: HashMap::new(),
    };
    // The HTTP load runs beside the socket, as in the app: frames keep being
    // read and stamped while it is under way, so its time is never counted
    // as their lag (there is no send time in a frame, so lag is measured
    // against the first viewer to read it). Their events are held and folded
    // after the load, so a frame still wins over an older loaded message.
    let mut load: Option<tokio::task::JoinHandle<Vec<Message>>> = None;
    let mut held: Option<Vec<Event>> = Some(Vec::new());
    loop {
        let loaded = async {
            match load.as_mut() {
                Some(load) => load.await.expect("the HTTP load"),
                None => std::future::pending().await,
            }
        };
        let frame = tokio::select! {
            frame = ws.next() => Some(frame),
            messages = loaded => {
                for m in messages {
                    seen.store.apply(Event::MessageAdded(m));
                }
                None
            }
            _ = stop.changed() => break,
        };
        let Some(frame) = frame else {
            load = None;
            for event in held.take().unwrap_or_default() {
                seen.store.apply(event);
            }
            continue;
        };
        // A closed or broken socket ends this viewer; other frames are skipped.
        let text = match frame {
            None | Some(Err(_)) => break,
            Some(Ok(Frame::Text(text))) => text,
            Some(Ok(_)) => continue,
        };
        seen.frames += 1;
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if v["id"] == "v2" && load.is_none() && held.is_some() {
            let (http, base, session) = (http.clone(), base.clone(), session.clone());
            load = Some(tokio::spawn(async move {
                http_messages(&http, &base, &session).await
            }));
            continue;
        }
        let action = v["action"].as_str().unwrap_or("");
        if v["type"] != "notification" || !action.starts_with("session.message.") {
            continue;
        }
        let at = clock.elapsed();
        last_frame_ms.fetch_max(at.as_millis() as u64, Ordering::Relaxed);
        seen.arrivals.insert(hash(&text), at);
        if let Ok(Some(event)) = event_from_notification(action, &v["payload"]) {
            match held.as_mut() {
                Some(held) => held.push(event),
                None => {
                    seen.store.apply(event);
                }
            }
        }
    }
    seen
}

/// Viewers on `served`'s `session`, stopped when `shared.stop` turns true.
fn viewers(served: &Served, session: &str, shared: &Shared) -> Vec<tokio::task::JoinHandle<Seen>> {
    (0..VIEWERS)
        .map(|_| {
            tokio::spawn(viewer(
                served.ws_url(),
                served.url.clone(),
                session.to_string(),
                shared.clone(),
            ))
        })
        .collect()
}

/// What every viewer saw, once each has stopped; a viewer still running
/// when `deadline` passes is aborted and noted in `missing`.
async fn joined(
    name: &str,
    viewers: Vec<tokio::task::JoinHandle<Seen>>,
    deadline: tokio::time::Instant,
    missing: &mut Vec<String>,
) -> Vec<Seen> {
    let mut seen = Vec::with_capacity(viewers.len());
    let mut stuck = 0;
    let count = viewers.len();
    for mut viewer in viewers {
        match tokio::time::timeout_at(deadline, &mut viewer).await {
            Ok(done) => seen.push(done.expect("a viewer")),
            Err(_) => {
                viewer.abort();
                stuck += 1;
            }
        }
    }
    if stuck > 0 {
        missing.push(format!(
            "{name}: {stuck} of {count} viewers still running {MARGIN:?} after the stop (left out of the report)"
        ));
    }
    seen
}

/// Each frame's lag behind the first viewer that received it (`first`,
/// by frame), in milliseconds, for the frames `seen` got.
fn lags_ms<'a>(
    seen: &'a Seen,
    first: &'a HashMap<u64, Duration>,
) -> impl Iterator<Item = f64> + 'a {
    seen.arrivals
        .iter()
        .map(|(f, at)| (*at - first[f]).as_secs_f64() * 1000.0)
}

/// The report of one server's viewers, and whether each matched a fresh load.
async fn report(
    http: &reqwest::Client,
    name: &str,
    served: &Served,
    session: &str,
    rss_start: f64,
    seen: Vec<Seen>,
) -> bool {
    let fresh = http_messages(http, &served.url, session).await;
    let matching = seen
        .iter()
        .filter(|s| {
            s.store.len() == fresh.len() && fresh.iter().all(|m| s.store.message(&m.id) == Some(m))
        })
        .count();
    let frames: u64 = seen.iter().map(|s| s.frames).sum();
    // When the first viewer received each frame.
    let mut first: HashMap<u64, Duration> = HashMap::new();
    for s in &seen {
        for (&frame, &at) in &s.arrivals {
            first
                .entry(frame)
                .and_modify(|t| *t = (*t).min(at))
                .or_insert(at);
        }
    }
    let mut worst: Vec<f64> = seen
        .iter()
        .map(|s| lags_ms(s, &first).fold(0.0, f64::max))
        .collect();
    worst.sort_by(f64::total_cmp);
    // From the first session frame any viewer got to the last.
    let streamed = match (
        first.values().min(),
        seen.iter().flat_map(|s| s.arrivals.values()).max(),
    ) {
        (Some(a), Some(b)) => (*b - *a).max(Duration::from_millis(1)),
        _ => Duration::from_millis(1),
    };
    let mean_lag: f64 = {
        let lags: Vec<f64> = seen.iter().flat_map(|s| lags_ms(s, &first)).collect();
        lags.iter().sum::<f64>() / lags.len().max(1) as f64
    };
    println!(
        "{name}: {} viewers, {} messages (fresh load), {} frames delivered in {:.1} s = {:.0} frames/s",
        seen.len(),
        fresh.len(),
        frames,
        streamed.as_secs_f64(),
        frames as f64 / streamed.as_secs_f64()
    );
    println!(
        "{name}: lag behind the first viewer: mean {mean_lag:.1} ms; per-viewer max: median {:.1} ms, slowest viewer {:.1} ms",
        worst.get(worst.len() / 2).copied().unwrap_or(0.0),
        worst.last().copied().unwrap_or(0.0)
    );
    println!(
        "{name}: server RSS {rss_start:.1} MiB at start, {:.1} MiB at end; viewers matching a fresh HTTP load: {matching}/{}",
        served.rss_mib(),
        seen.len()
    );
    matching == seen.len()
}

/// A kandev message of the recording.
fn recorded(n: usize) -> Value {
    let at = format!("2026-08-03T10:{:02}:{:02}.000Z", n / 60 % 60, n % 60);
    json!({"id": format!("r{n}"), "session_id": "s", "task_id": "t", "turn_id": format!("turn-{}", n / 50),
        "author_type": if n.is_multiple_of(50) { "user" } else { "agent" }, "type": "message",
        "content": format!("Recorded message {n}: {}", "text ".repeat(n % 40)), "created_at": at, "updated_at": at})
}

/// Writes the recording with `count` messages whole (beside, then renamed in).
fn write_recording(dir: &Path, count: usize) {
    let messages: Vec<Value> = (0..count).map(recorded).collect();
    let draft = dir.with_extension("draft");
    std::fs::write(&draft, json!({ "messages": messages }).to_string()).unwrap();
    std::fs::rename(&draft, dir.join("grow.json")).unwrap();
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let folder = std::env::temp_dir().join(format!("taskview-load-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    write_recording(&folder, RECORDING_START);

    let messages = STREAM_MESSAGES.to_string();
    let stream = Served::start(
        &root,
        &[
            "--scenario",
            "stream",
            "--messages",
            &messages,
            "--interval-ms",
            &STREAM_INTERVAL_MS.to_string(),
            "--start-delay-ms",
            &STREAM_START_DELAY_MS.to_string(),
        ],
    );
    let folder_arg = folder.to_string_lossy().to_string();
    let recordings = Served::start(&root, &["--recordings", &folder_arg, "--poll-ms", "100"]);
    let http = client();
    let snapshot_url = format!("{}api/v1/workflows/wf-recordings/snapshot", recordings.url);
    let snapshot = get_json(&http, &snapshot_url).await;
    let rec_session = snapshot["tasks"][0]["primary_session_id"]
        .as_str()
        .expect("the recording's session")
        .to_string();
    let rss = (stream.rss_mib(), recordings.rss_mib());

    let clock = Instant::now();
    // What a wait found missing at its deadline; the bench carries on and
    // fails at the end.
    let mut missing = Vec::new();
    let (stop, stopped) = watch::channel(false);
    let shared = Shared {
        clock,
        http: http.clone(),
        last_frame_ms: Arc::new(AtomicU64::new(0)),
        stop: stopped,
    };
    let stream_viewers = viewers(&stream, "sess-stream", &shared);
    let rec_viewers = viewers(&recordings, &rec_session, &shared);

    // The recording grows while the stream plays.
    for batch in 1..=RECORDING_BATCHES {
        tokio::time::sleep(Duration::from_millis(RECORDING_WRITE_MS)).await;
        write_recording(&folder, RECORDING_START + batch * RECORDING_BATCH);
    }
    let total = RECORDING_START + RECORDING_BATCHES * RECORDING_BATCH;
    let deadline = Instant::now() + MARGIN;
    loop {
        let have = http_messages(&http, &recordings.url, &rec_session)
            .await
            .len();
        if have >= total {
            break;
        }
        if Instant::now() > deadline {
            missing.push(format!(
                "growing recording: {have} of {total} messages over HTTP {MARGIN:?} after the last write"
            ));
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The scenario's expected duration, four times over, plus the margin.
    let expected =
        Duration::from_millis(STREAM_START_DELAY_MS + STREAM_INTERVAL_MS * STREAM_MESSAGES as u64);
    let deadline = clock + expected * 4 + MARGIN;
    let scenario_url = format!("{}api/v1/scenario", stream.url);
    while get_json(&http, &scenario_url).await["finished"] != true {
        if Instant::now() > deadline {
            missing.push(format!(
                "stream scenario: not finished {:.0?} after the viewers started",
                clock.elapsed()
            ));
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Let the last frames land, then stop every viewer.
    if !shared.quiet(Instant::now() + MARGIN).await {
        missing.push(format!(
            "frames still arriving {MARGIN:?} after the stream scenario finished"
        ));
    }
    stop.send(true).unwrap();
    let deadline = tokio::time::Instant::now() + MARGIN;
    let stream_seen = joined("stream scenario", stream_viewers, deadline, &mut missing).await;
    let rec_seen = joined("growing recording", rec_viewers, deadline, &mut missing).await;
    let ok_stream = report(
        &http,
        "stream scenario",
        &stream,
        "sess-stream",
        rss.0,
        stream_seen,
    )
    .await;
    let ok_rec = report(
        &http,
        "growing recording",
        &recordings,
        &rec_session,
        rss.1,
        rec_seen,
    )
    .await;
    let _ = std::fs::remove_dir_all(&folder);
    if !(ok_stream && ok_rec) {
        missing.push("a viewer's messages differ from a fresh HTTP load".to_string());
    }
    if !missing.is_empty() {
        for what in &missing {
            eprintln!("load: {what}");
        }
        std::process::exit(1);
    }
}
