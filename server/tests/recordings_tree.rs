//! `--recordings DIR` read like sessions: each task titled by its session's
//! own title (a Claude Code rename or `summary`, else its first prompt on
//! one line), and a tree laid out like `~/.claude/projects` read as one task
//! per session with its subagent and workflow files attached and compaction
//! helpers skipped (real captures from tests/fixtures/real/), one laid out
//! like `~/.qwen/projects` and one like `~/.codex/sessions`
//! (tests/fixtures/captures/).

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;
use taskview_server::sources::recordings::Watching;
use taskview_server::Source;

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/real");
const CAPTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/captures");
const SHOWCASE: &str = "claude-code-log/minimal_showcase";
const SHOWCASE_ID: &str = "55550000-0000-4000-8000-000000000001";
const WORKFLOW: &str = "claude-code-log/workflow_scriptpath";
const WORKFLOW_ID: &str = "22220000-0000-4000-8000-000000000002";

fn recordings(dir: &TempDir) -> Source {
    Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching::every(Duration::from_millis(20)),
    }
}

fn tasks(snapshot: &Value) -> Vec<(String, String)> {
    snapshot["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_string(),
                t["title"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn messages(addr: std::net::SocketAddr, task_id: &str) -> Vec<Value> {
    session_messages(addr, &format!("sess-{task_id}")).await
}

fn parent_of(messages: &[Value], id: &str) -> Option<String> {
    messages
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no message {id}"))["metadata"]["parent_tool_call_id"]
        .as_str()
        .map(str::to_string)
}

/// A Claude Code session titled by its `summary` record, one renamed by a
/// `custom-title`, and one with neither, titled by its first prompt cut to
/// one line.
#[tokio::test]
async fn tasks_are_titled_by_their_sessions_own_titles() {
    let dir = TempDir::new("recordings-titles");
    let record = |uuid: &str, text: &str| {
        format!(
            r#"{{"type":"user","uuid":"{uuid}","sessionId":"{uuid}-s","timestamp":"2026-06-01T10:00:00Z","message":{{"role":"user","content":"{text}"}}}}"#
        )
    };
    dir.write(
        "a.jsonl",
        format!(
            "{}\n{}",
            r#"{"type":"summary","summary":"Webhook retry audit","leafUuid":"u1"}"#,
            record("u1", "look at the webhooks")
        ),
    );
    dir.write(
        "b.jsonl",
        format!(
            "{}\n{}",
            record("u2", "first name"),
            r#"{"type":"custom-title","customTitle":"Parser rewrite","sessionId":"u2-s"}"#
        ),
    );
    dir.write(
        "c.jsonl",
        record(
            "u3",
            "  Fix the flaky test\\nthen run the whole suite twice",
        ),
    );
    let server = start(config(recordings(&dir))).await;
    let (_, snapshot) = get(server.addr(), "/api/v1/workflows/wf-recordings/snapshot").await;
    assert_eq!(
        tasks(&snapshot),
        [
            ("rec-a-jsonl".into(), "Webhook retry audit".into()),
            ("rec-b-jsonl".into(), "Parser rewrite".into()),
            ("rec-c-jsonl".into(), "Fix the flaky test".into()),
        ]
    );
    server.shutdown().await.unwrap();
}

/// A tree laid out like `~/.claude/projects`: one task per session, each
/// with its `subagents/` files (and a workflow run's files) attached, no
/// orphan, and the compaction helper neither a task nor read.
#[tokio::test]
async fn a_projects_tree_is_one_task_per_session_with_its_files() {
    let dir = TempDir::new("recordings-tree");
    dir.copy_tree(&Path::new(REAL).join(SHOWCASE), "-workspace-example-app");
    dir.copy_tree(&Path::new(REAL).join(WORKFLOW), "-repo");
    // A compaction helper: its records would be an orphan card if read.
    dir.write(
        &format!("-repo/{WORKFLOW_ID}/subagents/agent-acompact-1a2b.jsonl"),
        format!(
            r#"{{"type":"assistant","uuid":"cmp-1","sessionId":"{WORKFLOW_ID}","isSidechain":true,"agentId":"acompact-1a2b","timestamp":"2026-06-28T09:10:00Z","message":{{"id":"m-cmp","role":"assistant","content":[{{"type":"text","text":"compacted summary"}}]}}}}"#
        ),
    );
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();
    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    let showcase = format!("rec-{SHOWCASE_ID}-jsonl");
    let workflow = format!("rec-{WORKFLOW_ID}-jsonl");
    assert_eq!(
        tasks(&snapshot),
        [
            (
                workflow.clone(),
                "Run the docs sweep workflow from its file.".into()
            ),
            (
                showcase.clone(),
                "Give me a tour of the repository: its structure, then compare the web and jobs…"
                    .into()
            ),
        ]
    );

    let shown = messages(addr, &showcase).await;
    assert_eq!(
        parent_of(&shown, "toolu_sc_grep").as_deref(),
        Some("toolu_sc_showcol2")
    );
    assert!(shown
        .iter()
        .all(|m| m["metadata"]["transcript_not_loaded"].is_null()));

    let run = messages(addr, &workflow).await;
    assert_eq!(
        parent_of(&run, "workflow-agent-agsp0001").as_deref(),
        Some("toolu_wfsp01")
    );
    let agent = run
        .iter()
        .find(|m| m["id"] == "workflow-agent-agsp0001")
        .unwrap();
    assert_eq!(
        agent["metadata"]["normalized"]["subagent_task"]["result_text"],
        "Batch a and b swept; 2 stale pages flagged."
    );
    assert!(run.iter().all(|m| m["content"] != "compacted summary"));
    assert!(run.iter().all(|m| {
        let parent = m["metadata"]["parent_tool_call_id"].as_str().unwrap_or("");
        parent.is_empty() || run.iter().any(|p| p["metadata"]["tool_call_id"] == parent)
    }));
    server.shutdown().await.unwrap();
}

/// A tree laid out like `~/.qwen/projects` (a real qwen-code capture): each
/// chat under `<project>/chats/` is a task, its subagents read from
/// `<project>/subagents/<chat>/`, nested three deep under their parents'
/// cards, no orphan and no unreadable record.
#[tokio::test]
async fn a_qwen_projects_tree_is_one_task_per_chat_with_its_subagents() {
    let dir = TempDir::new("recordings-qwen");
    let nested = Path::new(CAPTURES).join("qwen-code-0.24.4/nested/projects");
    dir.copy_tree(&nested, "projects");
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();
    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    let listed = tasks(&snapshot);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        listed[0].1,
        "Audit parser-kit for panics; delegate it to a lead agent who splits the work as…"
    );
    let shown = messages(addr, &listed[0].0).await;
    let card = |description: &str| {
        shown
            .iter()
            .find(|m| m["metadata"]["normalized"]["subagent_task"]["description"] == description)
            .unwrap_or_else(|| panic!("no card {description}"))["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (lead, worker, checker) = (
        card("Lead the panic audit"),
        card("Audit the lexer"),
        card("Confirm the lexer panic"),
    );
    assert_eq!(parent_of(&shown, &worker), Some(lead));
    assert_eq!(parent_of(&shown, &checker), Some(worker));
    assert!(shown.iter().all(|m| m["metadata"]["unreadable"].is_null()));
    assert!(shown.iter().all(|m| {
        let parent = m["metadata"]["parent_tool_call_id"].as_str().unwrap_or("");
        parent.is_empty()
            || shown
                .iter()
                .any(|p| p["metadata"]["tool_call_id"] == parent)
    }));
    server.shutdown().await.unwrap();
}

/// A tree laid out like `~/.codex/sessions` (real Codex captures, four
/// background and three foreground subagents): the rollouts of the threads
/// a session spawned lie beside it in its day folder, and are read as its
/// subagents' transcripts, never tasks of their own.
#[tokio::test]
async fn a_codex_sessions_tree_is_one_task_per_session_with_its_threads_as_subagents() {
    let dir = TempDir::new("recordings-codex");
    // Two sessions of one day share its folder: each is a task with its own
    // threads only.
    for capture in ["parallel-wave", "foreground"] {
        let sessions = Path::new(CAPTURES).join(format!("codex-0.171.0/{capture}/sessions"));
        dir.copy_tree(&sessions, "sessions");
    }
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();
    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    let listed = tasks(&snapshot);
    assert_eq!(listed.len(), 2, "{listed:?}");
    let mut card_counts = Vec::new();
    for (task, _) in &listed {
        let shown = messages(addr, task).await;
        let cards: Vec<&Value> = shown
            .iter()
            .filter(|m| !m["metadata"]["normalized"]["subagent_task"].is_null())
            .collect();
        card_counts.push(cards.len());
        assert_cards_hold_their_threads(&shown, &cards);
        assert!(shown.iter().all(|m| m["metadata"]["unreadable"].is_null()));
    }
    card_counts.sort();
    assert_eq!(
        card_counts,
        [3, 4],
        "the foreground session's three, the wave's four"
    );
    server.shutdown().await.unwrap();
}

/// Every card holds records of its thread.
fn assert_cards_hold_their_threads(shown: &[Value], cards: &[&Value]) {
    for card in cards {
        let id = card["id"].as_str().unwrap();
        let children = shown
            .iter()
            .filter(|m| m["metadata"]["parent_tool_call_id"] == id)
            .count();
        assert!(children > 0, "card {id} holds its thread's records");
    }
}
