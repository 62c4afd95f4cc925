//! Every run at every depth in a recordings folder (docs/behaviour.md §1): the
//! captures the harness wrote with the real CLIs (`tests/fixtures/
//! captures/`), copied into a folder `taskview serve --recordings` watches.
//! Each scripted subagent's card holds the tool calls its script made, as
//! a dropped folder and a session by URL show them: Claude Code 2.1.337's
//! depth-3 tree with its foreground Explore helpers, Kimi Code's agents
//! (one `wire.jsonl` each), and a forked session's inherited run, whose
//! transcript lies under the session it was forked from.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;
use taskview_server::sources::recordings::Watching;
use taskview_server::Source;

const CAPTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/captures");

/// The capture `name`'s folder and manifest.
fn capture(name: &str) -> (PathBuf, Value) {
    let dir = Path::new(CAPTURES).join(name);
    let manifest =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    (dir, manifest)
}

/// Every message of every task the server lists.
async fn all_messages(addr: std::net::SocketAddr) -> Vec<Value> {
    let (_, board) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    let mut all = Vec::new();
    for task in board["tasks"].as_array().unwrap() {
        all.extend(session_messages(addr, &format!("sess-{}", task["id"].as_str().unwrap())).await);
    }
    all
}

/// How many tool calls sit in the card whose call is `id`.
fn child_calls(messages: &[Value], id: &str) -> usize {
    messages
        .iter()
        .filter(|m| {
            m["metadata"]["parent_tool_call_id"] == id && m["metadata"]["tool_call_id"].is_string()
        })
        .count()
}

/// The cards described `description` (by their payload's description):
/// a forked session's inherited run is one in each session.
fn cards<'a>(messages: &'a [Value], description: &str) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|m| m["metadata"]["normalized"]["subagent_task"]["description"] == description)
        .collect()
}

/// Serves the projects tree of each of `captures` (each in a folder of its
/// own) and checks every scripted subagent's card holds its script's calls.
async fn every_card_holds_its_calls(captures: &[&str], tree: &str) {
    let dir = TempDir::new("recordings-every-depth");
    for (n, name) in captures.iter().enumerate() {
        let (from, _) = capture(name);
        dir.copy_tree(&from.join(tree), &format!("c{n}"));
    }
    let server = start(config(Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching::every(Duration::from_millis(20)),
    }))
    .await;
    let messages = all_messages(server.addr()).await;
    for name in captures {
        let (_, manifest) = capture(name);
        for agent in manifest["holds"]["agents"].as_array().unwrap() {
            let description = agent["description"].as_str().unwrap();
            let calls: u64 = agent["actions"]
                .as_object()
                .map_or(0, |a| a.values().filter_map(Value::as_u64).sum());
            let found = cards(&messages, description);
            assert!(!found.is_empty(), "{name}: no card {description:?}");
            for card in found {
                let id = card["metadata"]["tool_call_id"].as_str().unwrap();
                let session = card["session_id"].as_str().unwrap_or_default();
                let calls_here: Vec<Value> = messages
                    .iter()
                    .filter(|m| m["session_id"] == session)
                    .cloned()
                    .collect();
                assert_eq!(
                    child_calls(&calls_here, id) as u64,
                    calls,
                    "{name}: {description} (depth {}, in {session})",
                    agent["depth"]
                );
            }
        }
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_depth_3_tree_and_its_foreground_helpers_hold_their_calls() {
    every_card_holds_its_calls(
        &[
            "claude-code-2.1.337/deep-wave",
            "claude-code-2.1.337/nested",
        ],
        "projects",
    )
    .await;
}

#[tokio::test]
async fn kimi_code_cards_hold_their_calls() {
    every_card_holds_its_calls(
        &[
            "kimi-code-2.1.0/parallel-wave",
            "kimi-code-2.1.0/foreground",
        ],
        "sessions",
    )
    .await;
}

#[tokio::test]
async fn a_forks_inherited_run_holds_its_calls_from_its_origins_folder() {
    every_card_holds_its_calls(&["claude-code-2.1.337/session-fork"], "projects").await;
    every_card_holds_its_calls(&["qwen-code-0.24.4/session-fork"], "projects").await;
}
