//! The recordings board's cards (docs/behaviour.md §5): the board says its
//! columns are by state, and each task carries its session's card facts
//! (taskview's own `session_facts`, computed by core from the records),
//! for sessions nobody opened too, kept live by `task.updated` as the file
//! grows; a session interrupted mid-turn says so.

mod common;

use common::*;
use std::time::{Duration, SystemTime};
use taskview_server::sources::recordings::Watching;
use taskview_server::Source;

const SNAPSHOT: &str = "/api/v1/workflows/wf-recordings/snapshot";

/// A capture's files, by their path under its folder.
fn capture_files(name: &str, folder: &str) -> Vec<(String, Vec<u8>)> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/captures")
        .join(name)
        .join(folder);
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(&root).unwrap().display().to_string();
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

fn recordings(dir: &TempDir) -> Source {
    Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching::every(Duration::from_millis(20)),
    }
}

fn task<'a>(snapshot: &'a serde_json::Value, id_part: &str) -> &'a serde_json::Value {
    snapshot["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"].as_str().unwrap().contains(id_part))
        .unwrap_or_else(|| panic!("no task {id_part} in {snapshot}"))
}

#[tokio::test]
async fn every_card_carries_its_sessions_facts_without_the_session_being_opened() {
    let dir = TempDir::new("board-cards");
    for (path, bytes) in capture_files("claude-code-2.1.332/parallel-wave", "projects") {
        dir.write(&format!("cc/{path}"), bytes);
    }
    for (path, bytes) in capture_files("codex-0.171.0/parallel-wave", "sessions") {
        dir.write(&format!("codex/{path}"), bytes);
    }
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();
    let snapshot = wait_http(addr, SNAPSHOT, |s| {
        s["tasks"].as_array().is_some_and(|t| {
            t.len() == 2
                && t.iter()
                    .all(|t| t["session_facts"]["spend_with_subagents"].is_object())
        })
    })
    .await;
    assert_eq!(snapshot["workflow"]["columns_by"], "state");
    let claude = &task(&snapshot, "7bbb53f6")["session_facts"];
    assert_eq!(claude["agent"], "Claude Code");
    assert_eq!(claude["model"], "claude-opus-5-5");
    assert_eq!(claude["subagents_total"], 4);
    // What Claude Code itself recorded in its result.json: $0.24544.
    assert_eq!(claude["spend_with_subagents"]["usd"], 0.24544);
    assert_eq!(claude["spend_with_subagents"]["estimated"], true);
    assert!(claude["pricing"]
        .as_str()
        .unwrap()
        .starts_with("genai-prices"));
    let codex = &task(&snapshot, "rollout")["session_facts"];
    assert_eq!(codex["agent"], "Codex");
    assert_eq!(codex["spend"]["tokens"], 47_547, "its own turns' usage");
    // Nobody opened them: they were read for their cards and not kept.
    let (_, claude_task) = get(
        addr,
        "/api/v1/tasks/rec-7bbb53f6-6e46-4fb0-af71-91ae431ddab7-jsonl",
    )
    .await;
    assert!(claude_task["session_facts"].is_object(), "{claude_task}");
}

#[tokio::test]
async fn a_session_stopped_mid_turn_and_idle_past_the_threshold_is_interrupted() {
    let dir = TempDir::new("board-interrupted");
    for (path, bytes) in capture_files("claude-code-2.1.332/interrupted", "projects") {
        dir.write(&path, bytes);
    }
    let an_hour_ago = SystemTime::now() - Duration::from_secs(60 * 60);
    for (path, _) in capture_files("claude-code-2.1.332/interrupted", "projects") {
        std::fs::File::options()
            .write(true)
            .open(dir.0.join(&path))
            .unwrap()
            .set_modified(an_hour_ago)
            .unwrap();
    }
    let server = start(config(recordings(&dir))).await;
    let snapshot = wait_http(server.addr(), SNAPSHOT, |s| {
        s["tasks"][0]["session_facts"].is_object()
    })
    .await;
    let facts = &snapshot["tasks"][0]["session_facts"];
    assert_eq!(facts["interrupted"], true, "{facts}");
    assert_eq!(snapshot["tasks"][0]["state"], "COMPLETED");
}

#[tokio::test]
async fn a_telemetry_session_names_its_agent_and_costs_what_it_recorded() {
    let dir = TempDir::new("board-telemetry");
    let story = "claude-code-2.1.332/parallel-wave";
    let posts = taskview_testkit::captures::otlp_posts(story);
    dir.write("otlp/session.jsonl", format!("{}\n", posts.join("\n")));
    let server = start(config(recordings(&dir))).await;
    let snapshot = wait_http(server.addr(), SNAPSHOT, |s| {
        s["tasks"][0]["session_facts"]["spend_with_subagents"].is_object()
    })
    .await;
    let facts = &snapshot["tasks"][0]["session_facts"];
    assert_eq!(facts["agent"], "Claude Code", "{facts}");
    // What Claude Code itself reported for the run (its result.json).
    let result: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/captures-otlp/claude-code-2.1.332/parallel-wave/result.json"
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        facts["spend_with_subagents"]["usd"],
        result["total_cost_usd"]
    );
    assert!(
        facts["spend_with_subagents"]["estimated"].is_null(),
        "recorded, not estimated"
    );
}
