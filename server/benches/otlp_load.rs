//! `make bench`: telemetry from many agents at once (docs/behaviour.md
//! §7 "OpenTelemetry"). `OTLP_AGENTS` agents (default 50) post the recorded
//! streams of the capture stories (`tests/fixtures/captures-otlp/*/*/otlp`,
//! each post at its `index.jsonl` arrival time, each agent a copy with its
//! own session id, starts spread over a second) in parallel to one `taskview
//! serve`, at real speed and at 10× in the same run, while a WebSocket
//! client watches the board as the app does (`user.subscribe`, then
//! `session.subscribe` to each task that appears). It reports, never judges:
//! posts accepted per second, post latency (p50, p95, worst), the board's
//! lag (from sending a post that changes the session's cards, as the whole
//! import of the stream so far says, to the first board event for that
//! session after it: the task appearing for a first post, else a
//! `session.message.*`; an upper bound on what a viewer waits), posts whose
//! change no event followed, and the server's resident memory (peak and at
//! the end), with the 10×/1× ratios.
//!
//! `TASKVIEW_BIN` is the server measured (default `target/release/taskview`).

mod proc_stats;
mod served;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use served::{env_or, Served};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use taskview_core::model::event::Event;
use taskview_core::read::import::otlp;
use tokio_tungstenite::{connect_async, tungstenite::Message as Frame};

/// The speeds played, as multiples of real time.
const SPEEDS: [f64; 2] = [1.0, 10.0];
/// How long the board may take to show the last posts before the run ends.
const SETTLE: Duration = Duration::from_secs(5);

/// One recorded post.
struct Post {
    at_ms: u64,
    signal: String,
    content_type: String,
    body: String,
    /// Whether it changes the session's cards.
    changes: bool,
}

/// One capture story's telemetry and the session id it carries.
struct Story {
    session: String,
    posts: Vec<Post>,
}

/// The cards the stream's first `posts` give, as text to compare (judged as
/// the server judges them: the captures' records are older than the quiet
/// that ends a session).
fn cards(posts: &[String]) -> String {
    let events = otlp::import(&posts.join("\n")).unwrap_or_default();
    let cards: Vec<String> = events
        .into_iter()
        .filter_map(|e| match e {
            Event::MessageAdded(m) => Some(format!("{m:?}")),
            _ => None,
        })
        .collect();
    cards.join("\n")
}

fn stories(root: &Path) -> Vec<Story> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for cli in std::fs::read_dir(root).unwrap().filter_map(Result::ok) {
        for story in std::fs::read_dir(cli.path()).into_iter().flatten() {
            let dir = story.unwrap().path().join("otlp");
            if dir.join("index.jsonl").is_file() {
                dirs.push(dir);
            }
        }
    }
    dirs.sort();
    dirs.iter()
        .map(|dir| {
            let index = std::fs::read_to_string(dir.join("index.jsonl")).unwrap();
            let mut lines: Vec<String> = Vec::new();
            let mut posts = Vec::new();
            let mut before = String::new();
            for line in index.lines() {
                let entry: Value = serde_json::from_str(line).unwrap();
                let body =
                    std::fs::read_to_string(dir.join(entry["file"].as_str().unwrap())).unwrap();
                let value: Value = serde_json::from_str(&body).unwrap();
                lines.push(value.to_string());
                let after = cards(&lines);
                posts.push(Post {
                    at_ms: entry["t"].as_u64().unwrap_or(0),
                    signal: entry["signal"].as_str().unwrap().to_string(),
                    content_type: entry["contentType"].as_str().unwrap().to_string(),
                    body,
                    changes: after != before || posts.is_empty(),
                });
                before = after;
            }
            let text = lines.join("\n");
            // Claude Code and qwen-code name it `session.id`, Copilot CLI
            // (the GenAI conventions) `gen_ai.conversation.id`.
            let session = ["session.id", "gen_ai.conversation.id"]
                .iter()
                .find_map(|name| {
                    let key = format!(r#""key":"{name}","value":{{"stringValue":""#);
                    let at = text.find(&key)? + key.len();
                    Some(text[at..].split('"').next()?.to_string())
                })
                .expect("a session id");
            Story { session, posts }
        })
        .collect()
}

/// One post sent: by which agent, when, how long its answer took, whether
/// it was accepted and whether it changes the cards.
struct Sent {
    agent: usize,
    sent: Instant,
    latency: Duration,
    accepted: bool,
    changes: bool,
    first: bool,
}

/// What the board's WebSocket saw, per agent: when its task appeared and
/// when each event about its session came.
#[derive(Default)]
struct Board {
    created: HashMap<usize, Instant>,
    events: HashMap<usize, Vec<Instant>>,
    /// Server session id → agent.
    agents: HashMap<String, usize>,
}

/// The agent a telemetry file belongs to (`<story session>-a<n>.jsonl`).
fn agent_of(description: &str) -> Option<usize> {
    let stem = description.rsplit('/').next()?.strip_suffix(".jsonl")?;
    stem.rsplit_once("-a")?.1.parse().ok()
}

/// Watches the board until `stop`, noting what it saw in `board`.
async fn watch_board(
    url: String,
    board: Arc<Mutex<Board>>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let (mut ws, _) = connect_async(&url).await.expect("a WebSocket");
    let request = |id: &str, action: &str, payload: Value| {
        Frame::text(
            json!({"id": id, "type": "request", "action": action, "payload": payload}).to_string(),
        )
    };
    ws.send(request("u", "user.subscribe", json!({})))
        .await
        .unwrap();
    loop {
        let frame = tokio::select! {
            frame = ws.next() => frame,
            _ = stop.changed() => break,
        };
        let Some(Ok(Frame::Text(text))) = frame else {
            if frame.is_none() {
                break;
            }
            continue;
        };
        let now = Instant::now();
        for envelope in text
            .split('\n')
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            let action = envelope["action"].as_str().unwrap_or_default();
            let payload = &envelope["payload"];
            let mut subscribe = None;
            {
                let mut board = board.lock().unwrap();
                if action == "task.created" {
                    let description = payload["description"].as_str().unwrap_or_default();
                    let task = payload["task_id"].as_str().unwrap_or_default();
                    if let Some(agent) = agent_of(description) {
                        board.created.entry(agent).or_insert(now);
                        let session = format!("sess-{task}");
                        board.agents.insert(session.clone(), agent);
                        subscribe = Some(session);
                    }
                } else if action.starts_with("session.message.") {
                    let session = payload["session_id"].as_str().unwrap_or_default();
                    if let Some(&agent) = board.agents.get(session) {
                        board.events.entry(agent).or_default().push(now);
                    }
                }
            }
            if let Some(session) = subscribe {
                let frame = request(
                    &session,
                    "session.subscribe",
                    json!({"session_id": session}),
                );
                let _ = ws.send(frame).await;
            }
        }
    }
}

/// The `p`-th percentile of `values` (sorted in place).
fn percentile(values: &mut [Duration], p: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    values.sort();
    values[((values.len() - 1) as f64 * p).round() as usize]
}

/// The figures of one speed.
#[derive(Default)]
struct Figures {
    posts: usize,
    accepted: usize,
    per_second: f64,
    latency: [Duration; 3],
    lag: [Duration; 3],
    lagged: usize,
    unreflected: usize,
    rss_peak: f64,
    rss_end: f64,
    /// Tasks that appeared and message events seen on the board.
    tasks: usize,
    events: usize,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn run(
    bin: &Path,
    stories: Arc<Vec<Story>>,
    agents: usize,
    speed: f64,
    work: &Path,
) -> Figures {
    let _ = std::fs::remove_dir_all(work);
    let (recordings, telemetry) = (work.join("recordings"), work.join("otlp"));
    std::fs::create_dir_all(&recordings).unwrap();
    let served = Served::start(
        bin,
        [
            OsStr::new("--recordings"),
            recordings.as_os_str(),
            OsStr::new("--otlp-dir"),
            telemetry.as_os_str(),
        ],
    );
    let base = served.base.clone();
    let client = reqwest::Client::new();
    let ready = Instant::now();
    while client
        .get(format!("{base}/api/v1/scenario"))
        .send()
        .await
        .is_err()
    {
        assert!(
            ready.elapsed() < Duration::from_secs(30),
            "the server did not start"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let board = Arc::new(Mutex::new(Board::default()));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let watcher = tokio::spawn(watch_board(
        format!("{}/ws", base.replacen("http://", "ws://", 1)),
        Arc::clone(&board),
        stopped,
    ));
    tokio::time::sleep(Duration::from_millis(300)).await;

    let pid = served.child.id();
    let peak = Arc::new(Mutex::new(0f64));
    let sampler = {
        let peak = Arc::clone(&peak);
        tokio::spawn(async move {
            loop {
                let rss = proc_stats::rss_mib(pid);
                {
                    let mut peak = peak.lock().unwrap();
                    *peak = peak.max(rss);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let start = tokio::time::Instant::now();
    let mut players = Vec::new();
    for agent in 0..agents {
        let stories = Arc::clone(&stories);
        let client = client.clone();
        let base = base.clone();
        players.push(tokio::spawn(async move {
            let story = &stories[agent % stories.len()];
            let session = format!("{}-a{agent}", story.session);
            let offset = Duration::from_millis((agent as u64 * 1000) / agents as u64);
            let mut sent = Vec::new();
            for (n, post) in story.posts.iter().enumerate() {
                let at = Duration::from_secs_f64(post.at_ms as f64 / 1000.0 / speed);
                tokio::time::sleep_until(start + offset + at).await;
                let body = post.body.replace(&story.session, &session);
                let began = Instant::now();
                let answer = client
                    .post(format!("{base}/v1/{}", post.signal))
                    .header("content-type", &post.content_type)
                    .body(body)
                    .send()
                    .await;
                let accepted = answer.is_ok_and(|a| a.status().is_success());
                sent.push(Sent {
                    agent,
                    sent: began,
                    latency: began.elapsed(),
                    accepted,
                    changes: post.changes,
                    first: n == 0,
                });
            }
            sent
        }));
    }
    let mut sent: Vec<Sent> = Vec::new();
    for player in players {
        sent.extend(player.await.unwrap());
    }
    let posting = start.elapsed();
    tokio::time::sleep(SETTLE).await;
    let rss_end = proc_stats::rss_mib(pid);
    sampler.abort();
    let _ = stop.send(true);
    let _ = watcher.await;

    let board = board.lock().unwrap();
    let mut latencies: Vec<Duration> = sent.iter().map(|s| s.latency).collect();
    let mut lags = Vec::new();
    let mut unreflected = 0;
    for s in sent.iter().filter(|s| s.accepted && s.changes) {
        let seen = if s.first {
            board.created.get(&s.agent).copied()
        } else {
            let events = board
                .events
                .get(&s.agent)
                .map(Vec::as_slice)
                .unwrap_or_default();
            events.iter().copied().find(|&e| e >= s.sent)
        };
        match seen {
            Some(at) => lags.push(at.saturating_duration_since(s.sent)),
            None => unreflected += 1,
        }
    }
    let accepted = sent.iter().filter(|s| s.accepted).count();
    let peak = *peak.lock().unwrap();
    Figures {
        posts: sent.len(),
        accepted,
        per_second: accepted as f64 / posting.as_secs_f64(),
        latency: [
            percentile(&mut latencies, 0.5),
            percentile(&mut latencies, 0.95),
            percentile(&mut latencies, 1.0),
        ],
        lag: [
            percentile(&mut lags, 0.5),
            percentile(&mut lags, 0.95),
            percentile(&mut lags, 1.0),
        ],
        lagged: lags.len(),
        unreflected,
        rss_peak: peak,
        rss_end,
        tasks: board.created.len(),
        events: board.events.values().map(Vec::len).sum(),
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let bin = std::env::var_os("TASKVIEW_BIN")
        .map_or_else(|| root.join("target/release/taskview"), PathBuf::from);
    let agents = env_or("OTLP_AGENTS", 50) as usize;
    let stories = Arc::new(stories(&root.join("tests/fixtures/captures-otlp")));
    println!(
        "{agents} agents posting {} capture stories' telemetry ({} posts each on average) to {}",
        stories.len(),
        stories.iter().map(|s| s.posts.len()).sum::<usize>() / stories.len().max(1),
        bin.display()
    );
    let mut all = Vec::new();
    for speed in SPEEDS {
        let work = root.join(format!("target/bench-otlp-load/{speed}x"));
        let f = run(&bin, Arc::clone(&stories), agents, speed, &work).await;
        println!(
            "{speed}x: {} of {} posts accepted, {:.1} posts/s; post latency p50 {:.1} ms, p95 {:.1} ms, \
             worst {:.1} ms; board lag p50 {:.0} ms, p95 {:.0} ms, worst {:.0} ms ({} changing posts, \
             {} never shown; {} tasks and {} message events seen); server RSS peak {:.1} MiB, \
             at the end {:.1} MiB",
            f.accepted,
            f.posts,
            f.per_second,
            ms(f.latency[0]),
            ms(f.latency[1]),
            ms(f.latency[2]),
            ms(f.lag[0]),
            ms(f.lag[1]),
            ms(f.lag[2]),
            f.lagged,
            f.unreflected,
            f.tasks,
            f.events,
            f.rss_peak,
            f.rss_end
        );
        all.push(f);
    }
    if let [slow, fast] = &all[..] {
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        println!(
            "10x / 1x: posts/s {:.2}, post latency p95 {:.2}, board lag p50 {:.2} and p95 {:.2}, RSS peak {:.2}",
            ratio(fast.per_second, slow.per_second),
            ratio(ms(fast.latency[1]), ms(slow.latency[1])),
            ratio(ms(fast.lag[0]), ms(slow.lag[0])),
            ratio(ms(fast.lag[1]), ms(slow.lag[1])),
            ratio(fast.rss_peak, slow.rss_peak)
        );
    }
}
