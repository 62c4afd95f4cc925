//! Watching agents at work (docs/behaviour.md §7): a real session (the slow
//! wave as Claude Code, qwen-code, Copilot CLI and Kimi Code wrote it,
//! `tests/fixtures/captures/`) written into a recordings folder record by
//! record, at a quarter of the pace its CLI wrote it, while `taskview serve
//! --recordings` watches. The task appears, reads in progress the whole time
//! its agent or a subagent works, its chip steps with the scripted lifetimes,
//! and it settles when the last turn ends with nothing running.

mod common;

use common::*;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;
use taskview_server::sources::recordings::Watching;
use taskview_server::Source;

/// Replayed this many times faster than the CLI wrote it.
const SPEED: f64 = 4.0;

/// The slow wave as `cli` wrote it (`tests/fixtures/captures/<cli>/slow-wave`).
fn capture_dir(cli: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/captures")
        .join(cli)
        .join("slow-wave")
}

/// One line to append: when (ms after the first record), to which file
/// (relative to `projects/`), what.
struct Write1 {
    at_ms: f64,
    file: PathBuf,
    line: String,
}

/// Every JSONL line of the capture's `projects/` tree, in the order its CLI
/// wrote them (by each record's timestamp; a record without one was written
/// with the record before it); each sidecar with its agent's first line.
fn replay_plan(projects: &Path) -> Vec<Write1> {
    let mut writes = Vec::new();
    let mut pending = vec![projects.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                let file = path.strip_prefix(projects).unwrap().to_path_buf();
                let mut at = None;
                for line in std::fs::read_to_string(&path).unwrap().lines() {
                    let record: Value = serde_json::from_str(line).unwrap();
                    if let Some(t) = record["timestamp"].as_str() {
                        at = Some(millis(t));
                    } else if let Some(ms) = record["time"].as_f64() {
                        // Kimi Code: epoch ms, a file's lines in the order written.
                        let since_midnight = ms % 86_400_000.0;
                        at = Some(at.map_or(since_midnight, |a: f64| a.max(since_midnight)));
                    }
                    writes.push((at, file.clone(), line.to_string()));
                }
            }
        }
    }
    // A file's leading records without a time were written with its first timed one.
    let start = writes.iter().filter_map(|w| w.0).fold(f64::MAX, f64::min);
    let mut plan: Vec<Write1> = Vec::new();
    for (i, (at, file, line)) in writes.iter().enumerate() {
        let at = at.or_else(|| writes[i..].iter().find(|w| &w.1 == file)?.0);
        plan.push(Write1 {
            at_ms: at.unwrap_or(start) - start,
            file: file.clone(),
            line: line.clone(),
        });
    }
    plan.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
    plan
}

/// Milliseconds of an RFC 3339 UTC timestamp since midnight (one day's capture).
fn millis(timestamp: &str) -> f64 {
    let time = &timestamp[11..timestamp.len() - 1];
    let mut parts = time.split(':').map(|p| p.parse::<f64>().unwrap());
    let (h, m, s) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    ((h * 60.0 + m) * 60.0 + s) * 1000.0
}

/// Appends the plan's lines into `dir` at `SPEED` times their pace. An
/// agent's sidecar (`agent-<id>.meta.json`) is written as its CLI writes it:
/// when the agent starts, without what only its end can say (`finished`, a
/// final `status`, `lastError`), and whole after the agent's last line.
fn replay(plan: Vec<Write1>, projects: PathBuf, dir: PathBuf) {
    let last_lines: std::collections::HashMap<PathBuf, usize> = plan
        .iter()
        .enumerate()
        .map(|(i, w)| (w.file.clone(), i))
        .collect();
    let begun = std::time::Instant::now();
    for (i, write) in plan.into_iter().enumerate() {
        let due = Duration::from_secs_f64(write.at_ms / SPEED / 1000.0);
        std::thread::sleep(due.saturating_sub(begun.elapsed()));
        let target = dir.join(&write.file);
        let sidecar = projects.join(write.file.with_extension("meta.json"));
        let sidecar = std::fs::read_to_string(sidecar).ok();
        if !target.exists() {
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            if let Some(whole) = &sidecar {
                let mut started: Value = serde_json::from_str(whole).unwrap();
                let fields = started.as_object_mut().unwrap();
                fields.remove("finished");
                fields.remove("lastError");
                if fields.contains_key("status") {
                    fields.insert("status".into(), "running".into());
                }
                std::fs::write(target.with_extension("meta.json"), started.to_string()).unwrap();
            }
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&target)
            .unwrap();
        writeln!(file, "{}", write.line).unwrap();
        if let (Some(whole), true) = (sidecar, last_lines[&write.file] == i) {
            std::fs::write(target.with_extension("meta.json"), whole).unwrap();
        }
    }
}

/// How many subagents the scenario's script has running at each change, in
/// order (from the capture's manifest: `timeline.scripted`, every agent but
/// the main one).
fn scripted_running_counts(manifest: &Value) -> Vec<u64> {
    let scripted = manifest["timeline"]["scripted"].as_object().unwrap();
    let mut changes: Vec<(f64, i64)> = Vec::new();
    for (agent, span) in scripted.iter().filter(|(k, _)| *k != "main") {
        let (start, end) = (span["start"].as_f64(), span["end"].as_f64());
        changes.push((start.unwrap_or_else(|| panic!("{agent} has a start")), 1));
        changes.push((end.unwrap_or_else(|| panic!("{agent} has an end")), -1));
    }
    changes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut running = 0i64;
    changes
        .into_iter()
        .map(|(_, step)| {
            running += step;
            running as u64
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_session_written_live_is_in_progress_while_its_agent_works() {
    watch_the_slow_wave("claude-code-2.1.332").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_qwen_code_session_written_live_is_in_progress_while_its_agent_works() {
    watch_the_slow_wave("qwen-code-0.24.4").await;
}

/// Copilot CLI writes one `events.jsonl` per session folder, its subagents'
/// events inline (`~/.copilot/session-state/<session>/`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copilot_session_written_live_is_in_progress_while_its_agent_works() {
    watch_the_slow_wave_in("copilot-1.0.102", "session-state").await;
}

/// Kimi Code writes one `wire.jsonl` per agent in a session folder
/// (`~/.kimi-code/sessions/wd_<dir>_<hash>/session_<uuid>/agents/<id>/`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kimi_session_written_live_is_in_progress_while_its_agent_works() {
    watch_the_slow_wave_in("kimi-code-2.1.0", "sessions").await;
}

/// Replays `cli`'s slow wave into a watched folder and checks every state the
/// board announced for its task.
async fn watch_the_slow_wave(cli: &str) {
    watch_the_slow_wave_in(cli, "projects").await;
}

/// `watch_the_slow_wave` for a CLI whose tree in the capture is `tree`.
async fn watch_the_slow_wave_in(cli: &str, tree: &str) {
    let capture = capture_dir(cli);
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(capture.join("manifest.json")).unwrap())
            .unwrap();
    let projects = capture.join(tree);
    let plan = replay_plan(&projects);
    assert!(
        plan.len() > 40,
        "the capture has its records: {}",
        plan.len()
    );

    let dir = TempDir::new("recordings-live");
    let server = start(config(Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching::every(Duration::from_millis(20)),
    }))
    .await;
    let mut ws = Ws::connect_registered(server.addr()).await;
    let writer = {
        let dir = dir.0.clone();
        std::thread::spawn(move || replay(plan, projects, dir))
    };

    // Every state the board announced for the task, until it settles after
    // the whole file is written.
    let mut states: Vec<(String, u64)> = Vec::new();
    loop {
        let frame = ws.next().await.expect("the socket stays open");
        let action = frame["action"].as_str().unwrap_or_default();
        if action != "task.created" && action != "task.updated" {
            continue;
        }
        let task = &frame["payload"];
        let state = task["state"].as_str().unwrap_or_default().to_string();
        let count = task["active_subagent_count"].as_u64().unwrap_or(0);
        if states.last() != Some(&(state.clone(), count)) {
            states.push((state.clone(), count));
        }
        if writer.is_finished() && state == "COMPLETED" {
            break;
        }
    }
    writer.join().unwrap();

    let (last_state, last_count) = states.last().unwrap().clone();
    assert_eq!(
        (last_state.as_str(), last_count),
        ("COMPLETED", 0),
        "settles when the last turn ends with nothing running: {states:?}"
    );
    let before_the_end = &states[..states.len() - 1];
    assert!(
        before_the_end.iter().all(|(s, _)| s == "IN_PROGRESS"),
        "in progress from its first record until its agent is done: {states:?}"
    );
    let mut counts: Vec<u64> = states.iter().map(|(_, n)| *n).collect();
    counts.dedup();
    let counts: Vec<u64> = counts.into_iter().skip_while(|n| *n == 0).collect();
    assert_eq!(
        counts,
        scripted_running_counts(&manifest),
        "the chip steps with the scripted lifetimes: {states:?}"
    );
}

#[tokio::test]
async fn several_folders_are_watched_and_one_that_appears_later_too() {
    let home = TempDir::new("recordings-agents");
    home.write(".claude/projects/-repo/one.jsonl", PROMPT_RECORD);
    let dirs = vec![
        home.0.join(".claude/projects"),
        home.0.join(".qwen/projects"),
    ];
    let server = start(config(Source::Recordings {
        dirs,
        watching: Watching::every(Duration::from_millis(20)),
    }))
    .await;
    let mut ws = Ws::connect_registered(server.addr()).await;
    let (_, snapshot) = get(server.addr(), "/api/v1/workflows/wf-recordings/snapshot").await;
    assert_eq!(snapshot["tasks"].as_array().unwrap().len(), 1);

    home.write(".qwen/projects/-repo/chats/two.jsonl", PROMPT_RECORD);
    let created = ws.until(|f| f["action"] == "task.created").await;
    let task = &created.last().unwrap()["payload"];
    assert_eq!(task["title"], "Measure the parser");
    assert_eq!(
        task["state"], "IN_PROGRESS",
        "its agent has a prompt to answer"
    );
}

/// A session's first record: the user's prompt.
const PROMPT_RECORD: &str = r#"{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-12-04T10:00:00.000Z","message":{"role":"user","content":"Measure the parser"}}
"#;
