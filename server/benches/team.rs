//! `make bench`: a team's board on PostgreSQL (docs/team-store.md), from
//! one run on a real PostgreSQL started in a temporary folder (as the
//! tests start it). `TEAM_WRITERS` (20) writers each watch a folder of
//! `TEAM_SESSIONS` (50) live sessions, one of which, on the first writer,
//! is `TEAM_BIG_MB` (150) MB; a receiver takes `TEAM_AGENTS` (50) agents'
//! OTLP posts (the capture stories' telemetry, each agent its own session);
//! two readers show the union. For `TEAM_SECONDS` (30) every session gets a
//! record now and then (`TEAM_APPENDS` per second in all, 100). Printed,
//! each beside its goal, never judged: append → reader WebSocket frame
//! (p50, p95) on sessions the readers follow, database bytes per message,
//! each reader's resident memory as the store grows, and the first page
//! of the largest session from the store.
//!
//! `TASKVIEW_BIN` is the server measured (default `target/release/taskview`).

#[allow(dead_code)]
#[path = "../tests/common/postgres.rs"]
mod postgres;
mod proc_stats;
mod served;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use served::{env_or, Served};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::{connect_async, tungstenite::Message as Frame};

/// When each followed record was appended, by its token.
type Sent = Arc<Mutex<HashMap<String, Instant>>>;

/// One Claude Code user record of `session`, about `bytes` long, carrying `token`.
fn record(session: &str, n: usize, token: &str, bytes: usize) -> String {
    let parent = if n == 0 {
        Value::Null
    } else {
        json!(format!("{session}-{}", n - 1))
    };
    let filler = "lorem ipsum dolor sit amet ".repeat(bytes / 27 + 1);
    json!({
        "type": "user", "uuid": format!("{session}-{n}"), "parentUuid": parent,
        "sessionId": session, "timestamp": "2026-01-01T00:00:00Z",
        "message": { "role": "user", "content": format!("{token} {}", &filler[..bytes]) }
    })
    .to_string()
        + "\n"
}

fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// Lays out the writers' folders: `w<i>/s<j>.jsonl`, ten records each, the
/// first writer's first session `TEAM_BIG_MB` MB.
fn lay_out(root: &Path, writers: usize, sessions: usize, big_mb: u64) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for w in 0..writers {
        let dir = root.join(format!("w{w}"));
        std::fs::create_dir_all(&dir).unwrap();
        for s in 0..sessions {
            let name = format!("w{w}s{s}");
            let mut text = String::new();
            let records = if w == 0 && s == 0 {
                (big_mb << 20) / 2048
            } else {
                10
            };
            for n in 0..records as usize {
                text.push_str(&record(&name, n, "seed", 2000));
            }
            std::fs::write(dir.join(format!("s{s}.jsonl")), text).unwrap();
        }
        dirs.push(dir);
    }
    dirs
}

/// The number of tasks on a server's first board.
async fn listed(base: &str) -> usize {
    let get = |path: String| async move {
        let response = reqwest::get(format!("{base}{path}")).await.ok()?;
        response.json::<Value>().await.ok()
    };
    let Some(list) = get("/api/v1/workflows".into()).await else {
        return 0;
    };
    let id = list["workflows"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let snapshot = get(format!("/api/v1/workflows/{id}/snapshot")).await;
    snapshot.map_or(0, |s| s["tasks"].as_array().map_or(0, Vec::len))
}

/// Follows `sessions` on a reader's WebSocket: each frame holding a
/// record's token records the time since it was appended.
async fn follow(base: &str, sessions: Vec<String>, sent: Sent, seen: Arc<Mutex<Vec<Duration>>>) {
    let url = format!("{}/ws", base.replace("http://", "ws://"));
    let (mut socket, _) = connect_async(url).await.expect("the reader's WebSocket");
    for (i, session) in sessions.iter().enumerate() {
        let request = json!({"id": format!("s{i}"), "type": "request",
            "action": "session.subscribe", "payload": {"session_id": session}});
        socket
            .send(Frame::Text(request.to_string().into()))
            .await
            .unwrap();
    }
    while let Some(Ok(frame)) = socket.next().await {
        let Frame::Text(text) = frame else { continue };
        let arrived = Instant::now();
        for part in text.split('\n') {
            let Some(start) = part.find("tok-") else {
                continue;
            };
            let token: String = part[start..].chars().take_while(|c| *c != ' ').collect();
            if let Some(at) = sent.lock().unwrap().get(&token) {
                seen.lock().unwrap().push(arrived - *at);
            }
        }
    }
}

fn percentile(values: &mut [Duration], p: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    values.sort();
    values[((values.len() - 1) as f64 * p).round() as usize]
}

/// The capture stories' telemetry posts: `(signal, body)` each.
fn telemetry_posts() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/captures-otlp");
    let mut posts = Vec::new();
    for index in glob_indexes(&root) {
        let dir = index.parent().unwrap().to_path_buf();
        for line in std::fs::read_to_string(&index).unwrap().lines() {
            let post: Value = serde_json::from_str(line).unwrap();
            let body = std::fs::read_to_string(dir.join(post["file"].as_str().unwrap())).unwrap();
            let parsed: Value = serde_json::from_str(&body).unwrap();
            let signal = ["resourceSpans", "resourceLogs"]
                .iter()
                .zip(["traces", "logs"])
                .find(|(key, _)| parsed.get(**key).is_some())
                .map_or("metrics", |(_, s)| s);
            posts.push((signal.to_string(), parsed.to_string()));
        }
    }
    posts
}

fn glob_indexes(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for cli in std::fs::read_dir(root).unwrap().flatten() {
        for story in std::fs::read_dir(cli.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let index = story.path().join("otlp/index.jsonl");
            if index.is_file() {
                found.push(index);
            }
        }
    }
    found.sort();
    found
}

/// `agents` agents posting the stories' telemetry to `base`, each with its
/// own session id, one post every 200 ms, until `until`.
async fn post_telemetry(base: String, agents: usize, until: Instant) {
    let posts = Arc::new(telemetry_posts());
    let mut tasks = Vec::new();
    for agent in 0..agents {
        let (posts, base) = (Arc::clone(&posts), base.clone());
        tasks.push(tokio::spawn(async move {
            let client = reqwest::Client::new();
            let mut n = agent * 7 % posts.len().max(1);
            while Instant::now() < until {
                let (signal, body) = &posts[n % posts.len()];
                let body = body.replace("\"session.id\"", "\"session.id.original\"");
                let body = with_session(&body, &format!("bench-agent-{agent}"));
                let _ = client
                    .post(format!("{base}/v1/{signal}"))
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await;
                n += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
}

/// A post's body with `session.id` set to `session` on each resource.
fn with_session(body: &str, session: &str) -> String {
    let mut v: Value = serde_json::from_str(body).unwrap();
    let attribute = json!({"key": "session.id", "value": {"stringValue": session}});
    for key in ["resourceSpans", "resourceLogs", "resourceMetrics"] {
        for resource in v[key].as_array_mut().into_iter().flatten() {
            let attributes = &mut resource["resource"]["attributes"];
            if !attributes.is_array() {
                *attributes = json!([]);
            }
            attributes.as_array_mut().unwrap().push(attribute.clone());
        }
    }
    v.to_string()
}

/// The first page of `session` as the app asks for it: the time of each of `n` reads.
async fn first_pages(base: &str, session: &str, n: usize) -> Vec<Duration> {
    let client = reqwest::Client::new();
    let mut times = Vec::new();
    for _ in 0..n {
        let at = Instant::now();
        let url = format!("{base}/api/v1/task-sessions/{session}/messages?limit=100&sort=desc");
        let page: Value = client.get(url).send().await.unwrap().json().await.unwrap();
        times.push(at.elapsed());
        assert_eq!(
            page["messages"].as_array().map_or(0, Vec::len),
            100,
            "{page}"
        );
    }
    times
}

/// What a run is made of (the environment's numbers, else the defaults).
struct Settings {
    writers: usize,
    sessions: usize,
    agents: usize,
    big_mb: u64,
    seconds: u64,
    appends: u64,
}

impl Settings {
    fn from_env() -> Settings {
        Settings {
            writers: env_or("TEAM_WRITERS", 20) as usize,
            sessions: env_or("TEAM_SESSIONS", 50) as usize,
            agents: env_or("TEAM_AGENTS", 50) as usize,
            big_mb: env_or("TEAM_BIG_MB", 150),
            seconds: env_or("TEAM_SECONDS", 30),
            appends: env_or("TEAM_APPENDS", 100),
        }
    }

    /// The records of the big session.
    fn big_records(&self) -> i64 {
        ((self.big_mb << 20) / 2048) as i64
    }
}

/// The servers of a run, stopped when dropped.
struct Team {
    _writers: Vec<Served>,
    collector: Served,
    readers: [Served; 2],
}

impl Team {
    /// A writer per folder of `dirs`, a receiver and two readers, on the store at `url`.
    fn start(bin: &Path, url: &str, root: &Path, dirs: &[PathBuf]) -> Team {
        let mut writers = Vec::new();
        for (w, dir) in dirs.iter().enumerate() {
            let otlp = root.join(format!("otlp-w{w}"));
            let args: Vec<std::ffi::OsString> = vec![
                "--recordings".into(),
                dir.into(),
                "--otlp-dir".into(),
                otlp.into(),
                "--store".into(),
                url.into(),
                "--machine".into(),
                format!("w{w}").into(),
            ];
            writers.push(Served::start(bin, args));
        }
        let otlp = root.join("otlp-collector");
        let collector = Served::start(
            bin,
            [
                "--otlp-dir",
                otlp.to_str().unwrap(),
                "--store",
                url,
                "--machine",
                "collector",
            ],
        );
        let reader = |name: &str| Served::start(bin, ["--store", url, "--machine", name]);
        Team {
            _writers: writers,
            collector,
            readers: [reader("reader-1"), reader("reader-2")],
        }
    }

    fn rss(&self) -> Vec<f64> {
        self.readers
            .iter()
            .map(|r| proc_stats::rss_mib(r.child.id()))
            .collect()
    }
}

/// A number the store's database answers.
async fn number(db: &tokio_postgres::Client, sql: &str) -> i64 {
    db.query_one(sql, &[]).await.unwrap().get::<_, i64>(0)
}

/// Waits until both readers list every session and the big one is stored whole.
async fn wait_until_stored(team: &Team, db: &tokio_postgres::Client, settings: &Settings) {
    let everyone = settings.writers * settings.sessions;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(900);
    for reader in &team.readers {
        while listed(&reader.base).await < everyone {
            assert!(
                Instant::now() < deadline,
                "the readers never listed every session"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    let big = "SELECT count(*) FROM taskview_messages WHERE machine = 'w0' AND session_id = 'sess-rec-s0-jsonl'";
    while number(db, big).await < settings.big_records() {
        assert!(
            Instant::now() < deadline,
            "the big session never reached the store"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    println!(
        "  both readers list {everyone} sessions and the big one is stored, {:.1} s after start",
        started.elapsed().as_secs_f64()
    );
}

/// What the live part measured.
struct Live {
    latencies: Vec<Duration>,
    expected: usize,
    rss_peak: Vec<f64>,
}

/// `settings.seconds` of appends (every fifth to a session the readers
/// follow) and OTLP posts.
async fn live(settings: &Settings, team: &Team, dirs: &[PathBuf]) -> Live {
    let sent: Sent = Arc::default();
    let seen: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let followed: Vec<(usize, usize)> = (0..settings.writers)
        .map(|w| (w, 1 + w % (settings.sessions - 1)))
        .collect();
    let names: Vec<String> = followed
        .iter()
        .map(|(w, s)| format!("w{w}~sess-rec-s{s}-jsonl"))
        .collect();
    for r in &team.readers {
        let (base, names, sent, seen) = (
            r.base.clone(),
            names.clone(),
            Arc::clone(&sent),
            Arc::clone(&seen),
        );
        tokio::spawn(async move { follow(&base, names, sent, seen).await });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let until = Instant::now() + Duration::from_secs(settings.seconds);
    let posting = tokio::spawn(post_telemetry(
        team.collector.base.clone(),
        settings.agents,
        until,
    ));
    let every = Duration::from_secs_f64(1.0 / settings.appends.max(1) as f64);
    let mut rss_peak = vec![0f64; 2];
    let mut n = 0usize;
    while Instant::now() < until {
        let followed_one = n.is_multiple_of(5);
        let (w, s) = if followed_one {
            followed[(n / 5) % followed.len()]
        } else {
            (
                n % settings.writers,
                (n / settings.writers) % settings.sessions,
            )
        };
        let token = format!("tok-{n}");
        if followed_one {
            sent.lock().unwrap().insert(token.clone(), Instant::now());
        }
        append(
            &dirs[w].join(format!("s{s}.jsonl")),
            &record(&format!("w{w}s{s}"), 100_000 + n, &token, 600),
        );
        n += 1;
        if n.is_multiple_of(50) {
            for (peak, now) in rss_peak.iter_mut().zip(team.rss()) {
                *peak = peak.max(now);
            }
        }
        tokio::time::sleep(every).await;
    }
    let _ = posting.await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let latencies = seen.lock().unwrap().clone();
    let expected = 2 * sent.lock().unwrap().len();
    Live {
        latencies,
        expected,
        rss_peak,
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let settings = Settings::from_env();
    let bin = std::env::var_os("TASKVIEW_BIN").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/taskview"),
        PathBuf::from,
    );
    let url = postgres::cluster().database();
    let root = std::env::temp_dir().join(format!("taskview-team-bench-{}", std::process::id()));
    let dirs = lay_out(&root, settings.writers, settings.sessions, settings.big_mb);
    println!(
        "team store: {} writers x {} sessions (one of {} MB), {} OTLP agents, 2 readers, {} s of {} appends/s",
        settings.writers, settings.sessions, settings.big_mb, settings.agents, settings.seconds, settings.appends
    );
    let team = Team::start(&bin, &url, &root, &dirs);
    let db = postgres::client(&url).await;
    wait_until_stored(&team, &db, &settings).await;
    let rss_before = team.rss();
    let size = "SELECT pg_database_size(current_database())";
    let store_before = number(&db, size).await;
    let mut live = live(&settings, &team, &dirs).await;
    let rss_after = team.rss();
    let store_after = number(&db, size).await;
    let messages = number(&db, "SELECT count(*) FROM taskview_messages").await;
    let table = number(&db, "SELECT pg_total_relation_size('taskview_messages')").await;
    let mut pages = first_pages(&team.readers[0].base, "w0~sess-rec-s0-jsonl", 5).await;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mb = |bytes: i64| bytes as f64 / 1_048_576.0;
    println!("  append -> reader WebSocket frame: p50 {:.0} ms, p95 {:.0} ms over {} frames of {} expected (goal: p95 <= 1000 ms)",
        ms(percentile(&mut live.latencies, 0.5)), ms(percentile(&mut live.latencies, 0.95)), live.latencies.len(), live.expected);
    println!("  database bytes per message: {:.0} (taskview_messages with its indexes and TOAST: {:.1} MB for {messages} messages; no goal, lower is better)",
        table as f64 / messages.max(1) as f64, mb(table));
    for i in 0..2 {
        println!("  reader {} resident memory: {:.1} MiB with the store at {:.0} MB, {:.1} MiB (peak {:.1}) at {:.0} MB (goal: <= 150 MB, flat as the store grows)",
            i + 1, rss_before[i], mb(store_before), rss_after[i], live.rss_peak[i], mb(store_after));
    }
    println!("  first page (100 newest) of the {} MB session from the store: median {:.0} ms, worst {:.0} ms of 5 (goal: <= 300 ms)",
        settings.big_mb, ms(percentile(&mut pages, 0.5)), ms(percentile(&mut pages, 1.0)));
    drop(team);
    let _ = std::fs::remove_dir_all(&root);
}
