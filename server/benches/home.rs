//! `make bench`: a home of many agent sessions (docs/behaviour.md §7 "All
//! day, any size"). Writes a `~/.claude/projects`-like tree of `HOME_SESSIONS`
//! sessions (default 1,000) made from the repo's Claude Code captures
//! (fresh ids, each capture repeated 1–9 times so sizes spread around 1 MB,
//! with its subagent files; modification times spread over a month) plus one
//! session of `HOME_BIG_MB` (default 150) MB, then runs `taskview serve
//! --recordings` on it and reports, never judges: the time until the board
//! answers and until it holds every session, the server's CPU at rest over
//! `HOME_IDLE_SECS` (default 20) seconds (`/proc/<pid>/stat`), its resident
//! memory with nothing open (`VmRSS`), the time to a first page of the
//! median and the big session, the latency of a record appended to each
//! until the API shows it (median and worst of 8), and the server CPU per
//! appended record.
//!
//! `TASKVIEW_BIN` is the server measured (default `target/release/taskview`);
//! `TASKVIEW_OLD_BIN`, when set, is measured the same way on the same home
//! beside it (a build of an earlier commit, say). The home is written
//! once under `HOME_DIR` (default `target/bench-home`) and reused while its
//! parameters are the same.

mod proc_stats;
mod served;

use serde_json::{json, Value};
use served::{env_or, Served};
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Appends measured per session.
const APPENDS: usize = 8;
/// Linux clock ticks per second (`getconf CLK_TCK`).
const TICKS_PER_SECOND: f64 = 100.0;

/// The Claude Code capture sessions: each main file and its own folder.
fn captures(root: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut pending = vec![root.join("tests/fixtures/captures")];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl")
                && path.to_string_lossy().contains("claude-code")
                && path
                    .parent()
                    .and_then(Path::parent)
                    .and_then(Path::file_name)
                    == Some("projects".as_ref())
            {
                let id = path.file_stem().unwrap().to_string_lossy().into_owned();
                found.push((path, id));
            }
        }
    }
    found.sort();
    found
}

/// A fresh session id for session `n`.
fn fresh_id(n: usize) -> String {
    format!("{n:08x}-b3c4-4d5e-8f60-{:012x}", n * 7919)
}

/// `text` with its ids made fresh for repetition `rep` of session `id`.
fn refreshed(text: &str, old: &str, id: &str, rep: usize) -> String {
    text.replace(old, id)
        .replace("\"uuid\":\"", &format!("\"uuid\":\"r{rep}-"))
        .replace("\"parentUuid\":\"", &format!("\"parentUuid\":\"r{rep}-"))
        .replace("\"id\":\"msg_", &format!("\"id\":\"msg_r{rep}"))
        .replace("toolu_", &format!("toolu_r{rep}"))
}

/// Writes session `n` from capture `(path, old id)` repeated `reps` times;
/// returns its file.
fn write_session(
    project: &Path,
    n: usize,
    (path, old): &(PathBuf, String),
    reps: usize,
) -> PathBuf {
    let id = fresh_id(n);
    let text = std::fs::read_to_string(path).expect("capture");
    let file = project.join(format!("{id}.jsonl"));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&file).expect("session file"));
    for rep in 0..reps {
        out.write_all(refreshed(&text, old, &id, rep).as_bytes())
            .unwrap();
    }
    out.flush().unwrap();
    let own = path.with_extension("");
    if let Ok(entries) = std::fs::read_dir(own.join("subagents")) {
        let to = project.join(&id).join("subagents");
        std::fs::create_dir_all(&to).unwrap();
        for entry in entries.filter_map(Result::ok) {
            let body = std::fs::read_to_string(entry.path()).unwrap_or_default();
            std::fs::write(to.join(entry.file_name()), body.replace(old.as_str(), &id)).unwrap();
        }
    }
    file
}

/// Sets a file's modification time `ago` before now.
fn age(path: &Path, ago: Duration) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - ago).unwrap();
}

/// The home: its folder, the median session's file, the big session's file.
struct Home {
    dir: PathBuf,
    median: PathBuf,
    big: PathBuf,
    sessions: usize,
    bytes: u64,
}

fn write_home(root: &Path, dir: &Path, sessions: usize, big_mb: u64) -> Home {
    let stamp = dir.join(".home");
    let want = format!("{sessions} {big_mb}");
    let ready = std::fs::read_to_string(&stamp).ok().as_deref() == Some(want.as_str());
    let captures = captures(root);
    assert!(
        !captures.is_empty(),
        "no Claude Code captures under tests/fixtures/captures"
    );
    if !ready {
        let _ = std::fs::remove_dir_all(dir);
    }
    let mut files = Vec::new();
    for n in 0..sessions {
        let project = dir.join(format!("-home-dev-project-{}", n % 40));
        let path = project.join(format!("{}.jsonl", fresh_id(n)));
        if !ready {
            std::fs::create_dir_all(&project).unwrap();
            let reps = 1 + (n * 7) % 9;
            write_session(&project, n, &captures[n % captures.len()], reps);
            age(
                &path,
                Duration::from_secs(3600 + (n as u64 * 2593) % (30 * 86400)),
            );
        }
        files.push(path);
    }
    let big_project = dir.join("-home-dev-big");
    let big = big_project.join(format!("{}.jsonl", fresh_id(sessions)));
    if !ready {
        std::fs::create_dir_all(&big_project).unwrap();
        let source = captures
            .iter()
            .max_by_key(|(p, _)| p.metadata().map(|m| m.len()).unwrap_or(0))
            .unwrap();
        let size = source.0.metadata().unwrap().len().max(1);
        let reps = ((big_mb << 20) / size + 1) as usize;
        write_session(&big_project, sessions, source, reps);
        age(&big, Duration::from_secs(7200));
        std::fs::write(&stamp, &want).unwrap();
    }
    let mut sized: Vec<(u64, PathBuf)> = files
        .iter()
        .map(|p| (p.metadata().map(|m| m.len()).unwrap_or(0), p.clone()))
        .collect();
    sized.sort();
    let bytes = sized.iter().map(|(s, _)| s).sum::<u64>() + big.metadata().unwrap().len();
    Home {
        dir: dir.to_path_buf(),
        median: sized[sized.len() / 2].1.clone(),
        big,
        sessions: sessions + 1,
        bytes,
    }
}

impl Served {
    /// CPU time used so far, in seconds.
    fn cpu(&self) -> f64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        let after_name = stat.rsplit(')').next().unwrap_or_default();
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        // utime and stime are fields 14 and 15 of the line; 12 and 13 after the name.
        let ticks: f64 = [11, 12]
            .iter()
            .filter_map(|&i| fields.get(i)?.parse::<f64>().ok())
            .sum();
        ticks / TICKS_PER_SECOND
    }

    /// Resident memory, in MiB.
    fn rss_mib(&self) -> f64 {
        proc_stats::rss_mib(self.child.id())
    }
}

/// One build's figures.
#[derive(Default)]
struct Figures {
    answers: Option<Duration>,
    holds_all: Option<Duration>,
    listed: usize,
    idle_cpu: f64,
    rss: f64,
    open_median: Option<Duration>,
    open_big: Option<Duration>,
    append_median: Vec<Duration>,
    append_big: Vec<Duration>,
    cpu_median: Option<f64>,
    cpu_big: Option<f64>,
}

async fn get(client: &reqwest::Client, url: &str) -> Option<Value> {
    let response = client.get(url).send().await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    response.json().await.ok()
}

fn task_count(snapshot: &Value) -> usize {
    snapshot["tasks"].as_array().map_or(0, Vec::len)
}

fn session_of(path: &Path) -> String {
    let name = path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace('.', "-");
    format!("sess-rec-{name}")
}

/// Appends `APPENDS` prompts to `path` one at a time, each timed until the
/// API's newest message is it; the latencies and the CPU per record (less
/// the CPU at rest), or nothing when the session is not served.
async fn appends(
    served: &Served,
    client: &reqwest::Client,
    path: &Path,
    idle_rate: f64,
) -> (Option<Duration>, Vec<Duration>, Option<f64>) {
    let session = session_of(path);
    let page = format!(
        "{}/api/v1/task-sessions/{session}/messages?limit=100&sort=desc",
        served.base
    );
    let opened = Instant::now();
    if get(client, &page).await.is_none() {
        return (None, Vec::new(), None);
    }
    let open = opened.elapsed();
    let claude_id = path.file_stem().unwrap().to_string_lossy().into_owned();
    let (length, modified) = {
        let meta = path.metadata().unwrap();
        (meta.len(), meta.modified().unwrap())
    };
    let newest = format!(
        "{}/api/v1/task-sessions/{session}/messages?limit=1&sort=desc",
        served.base
    );
    let append = |k: usize, tag: &str| {
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let text = format!("bench {tag} {k} {nanos}");
        let record = json!({"type": "user", "uuid": format!("bench-{text}"), "sessionId": claude_id,
            "timestamp": "2026-12-06T00:00:00.000Z", "message": {"role": "user", "content": text}});
        let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        file.write_all(format!("{record}\n").as_bytes()).unwrap();
        text
    };
    // Latency: each record polled for through the API.
    let mut latencies = Vec::new();
    for k in 0..APPENDS {
        let start = Instant::now();
        let text = append(k, "latency");
        loop {
            let shown = get(client, &newest)
                .await
                .is_some_and(|p| p.to_string().contains(&text));
            if shown || start.elapsed() > Duration::from_secs(120) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        latencies.push(start.elapsed());
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // CPU: records written without reading them back, then a pause.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (cpu0, t0) = (served.cpu(), Instant::now());
    for k in 0..APPENDS {
        append(k, "cpu");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let cpu = (served.cpu() - cpu0 - idle_rate * t0.elapsed().as_secs_f64()) / APPENDS as f64;
    // The home as it was, for the next build measured.
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_len(length).unwrap();
    file.set_modified(modified).unwrap();
    (Some(open), latencies, Some(cpu.max(0.0)))
}

async fn measure(bin: &Path, home: &Home, idle_secs: u64) -> Figures {
    let started = Instant::now();
    let served = Served::start(bin, [OsStr::new("--recordings"), home.dir.as_os_str()]);
    let client = reqwest::Client::new();
    let snapshot = format!("{}/api/v1/workflows/wf-recordings/snapshot", served.base);
    let mut figures = Figures::default();
    let (mut count, mut changed) = (0, Instant::now());
    while started.elapsed() < Duration::from_secs(600) {
        if let Some(s) = get(&client, &snapshot).await {
            figures.answers.get_or_insert(started.elapsed());
            let now = task_count(&s);
            if now != count {
                (count, changed) = (now, Instant::now());
                figures.holds_all = Some(started.elapsed());
            }
            // Every session, or all but one and nothing new for 10 s (the
            // big one skipped).
            let stalled = count + 1 >= home.sessions && changed.elapsed() > Duration::from_secs(10);
            if count >= home.sessions || stalled {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    figures.listed = count;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (cpu0, t0) = (served.cpu(), Instant::now());
    tokio::time::sleep(Duration::from_secs(idle_secs)).await;
    figures.idle_cpu = (served.cpu() - cpu0) / t0.elapsed().as_secs_f64();
    figures.rss = served.rss_mib();
    let (open, latencies, cpu) = appends(&served, &client, &home.median, figures.idle_cpu).await;
    (
        figures.open_median,
        figures.append_median,
        figures.cpu_median,
    ) = (open, latencies, cpu);
    let (open, latencies, cpu) = appends(&served, &client, &home.big, figures.idle_cpu).await;
    (figures.open_big, figures.append_big, figures.cpu_big) = (open, latencies, cpu);
    figures
}

fn ms(d: Option<Duration>) -> String {
    d.map_or("—".into(), |d| {
        format!("{:.0} ms", d.as_secs_f64() * 1000.0)
    })
}

fn spread(latencies: &[Duration]) -> String {
    if latencies.is_empty() {
        return "not served".into();
    }
    let mut sorted = latencies.to_vec();
    sorted.sort();
    format!(
        "{} / {}",
        ms(Some(sorted[sorted.len() / 2])),
        ms(sorted.last().copied())
    )
}

fn cpu_ms(cpu: Option<f64>) -> String {
    cpu.map_or("not served".into(), |c| format!("{:.0} ms", c * 1000.0))
}

fn rows(f: &Figures, home: &Home) -> Vec<String> {
    vec![
        ms(f.answers),
        ms(f.holds_all),
        format!("{} of {}", f.listed, home.sessions),
        format!("{:.1}%", f.idle_cpu * 100.0),
        format!("{:.0} MiB", f.rss),
        ms(f.open_median),
        ms(f.open_big).replace('—', "not served"),
        spread(&f.append_median),
        spread(&f.append_big),
        cpu_ms(f.cpu_median),
        cpu_ms(f.cpu_big),
    ]
}

#[tokio::main]
async fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let sessions = env_or("HOME_SESSIONS", 1000) as usize;
    let big_mb = env_or("HOME_BIG_MB", 150);
    let idle_secs = env_or("HOME_IDLE_SECS", 20);
    let dir =
        std::env::var_os("HOME_DIR").map_or_else(|| root.join("target/bench-home"), PathBuf::from);
    let written = Instant::now();
    let home = write_home(&root, &dir, sessions, big_mb);
    println!(
        "home: {} sessions, {:.0} MB, in {} (ready in {:.1} s); median session {:.1} MB, big {:.0} MB",
        home.sessions,
        home.bytes as f64 / 1e6,
        home.dir.display(),
        written.elapsed().as_secs_f64(),
        home.median.metadata().unwrap().len() as f64 / 1e6,
        home.big.metadata().unwrap().len() as f64 / 1e6,
    );
    let bin = std::env::var_os("TASKVIEW_BIN")
        .map_or_else(|| root.join("target/release/taskview"), PathBuf::from);
    let new = measure(&bin, &home, idle_secs).await;
    let old = match std::env::var_os("TASKVIEW_OLD_BIN") {
        Some(old) => Some(measure(Path::new(&old), &home, idle_secs).await),
        None => None,
    };
    let labels = [
        "board answers after start",
        "board holds every session",
        "sessions listed",
        &format!("CPU at rest ({idle_secs} s)"),
        "resident memory, nothing open",
        "first page of the median session",
        "first page of the big session",
        "append → API, median session (median / worst of 8)",
        "append → API, big session (median / worst of 8)",
        "server CPU per record, median session",
        "server CPU per record, big session",
    ];
    let new_rows = rows(&new, &home);
    let old_rows = old.as_ref().map(|o| rows(o, &home));
    let issue = [
        "6 s",
        "6 s",
        "big one skipped",
        "32%",
        "353 MB",
        "—",
        "skipped (over 64 MB)",
        "511–727 ms",
        "skipped",
        "0.27 s (8 MB)",
        "skipped",
    ];
    let (old_title, old_rows): (&str, Vec<String>) = match old_rows {
        Some(rows) => ("main (same run)", rows),
        None => (
            "the old build, as first reported",
            issue.iter().map(|s| s.to_string()).collect(),
        ),
    };
    println!("{:<52} {:>22} {:>26}", "", "this build", old_title);
    for (i, label) in labels.iter().enumerate() {
        println!("{label:<52} {:>22} {:>26}", new_rows[i], old_rows[i]);
    }
}
