//! A recording nobody writes any more (docs/behaviour.md §8 "Honest lifecycle"): a
//! session whose files were last written past the server's idle threshold
//! says so in its task (`primary_session_still`, taskview's own field, absent
//! from kandev's), so the app reads its unsettled subagents as interrupted
//! and its chip counts none of them; when its file grows again it is live
//! again.

mod common;

use common::*;
use std::io::Write;
use std::time::{Duration, SystemTime};
use taskview_server::sources::recordings::Watching;
use taskview_server::Source;

const SNAPSHOT: &str = "/api/v1/workflows/wf-recordings/snapshot";

/// The captured Claude Code `interrupted` story's session file: the CLI got
/// SIGINT while two background agents ran.
const INTERRUPTED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/captures/claude-code-2.1.332/interrupted/projects/",
    "-tmp-taskview-captures-claude-code-interrupted-parser-kit/",
    "eee1f52a-69f4-4d80-81c8-d4a6d62f3305.jsonl"
);

fn recordings(dir: &TempDir) -> Source {
    Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching::every(Duration::from_millis(20)),
    }
}

#[tokio::test]
async fn a_recording_idle_past_the_threshold_is_still_and_live_again_when_it_grows() {
    let dir = TempDir::new("still-recording");
    dir.write("idle.jsonl", std::fs::read(INTERRUPTED).unwrap());
    dir.write("fresh.jsonl", std::fs::read(INTERRUPTED).unwrap());
    let idle = dir.0.join("idle.jsonl");
    let an_hour_ago = SystemTime::now() - Duration::from_secs(60 * 60);
    std::fs::File::options()
        .write(true)
        .open(&idle)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();
    let snapshot = wait_http(addr, SNAPSHOT, |s| {
        s["tasks"].as_array().is_some_and(|t| t.len() == 2)
    })
    .await;
    let still = |id: &str| {
        snapshot["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .map(|t| t["primary_session_still"].clone())
    };
    assert_eq!(still("rec-idle-jsonl"), Some(true.into()), "{snapshot}");
    assert_eq!(still("rec-fresh-jsonl"), Some(false.into()), "{snapshot}");
    let (_, task) = get(addr, "/api/v1/tasks/rec-idle-jsonl").await;
    assert_eq!(task["primary_session_still"], true, "the task says it too");

    // Its two agents never got a result: interrupted, not running, so its
    // chip counts none, while the same file written now counts both.
    for session in ["sess-rec-fresh-jsonl", "sess-rec-idle-jsonl"] {
        assert!(!session_messages(addr, session).await.is_empty());
    }
    wait_http(addr, "/api/v1/tasks/rec-fresh-jsonl", |t| {
        t["active_subagent_count"] == 2
    })
    .await;
    let (_, task) = get(addr, "/api/v1/tasks/rec-idle-jsonl").await;
    assert_eq!(task["active_subagent_count"], 0, "{task}");

    // The file grows: the session is written again.
    let last = std::fs::read_to_string(&idle).unwrap();
    let last = last.lines().last().unwrap().to_string();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&idle)
        .unwrap()
        .write_all(format!("{last}\n").as_bytes())
        .unwrap();
    wait_http(addr, "/api/v1/tasks/rec-idle-jsonl", |t| {
        t["primary_session_still"] == false && t["active_subagent_count"] == 2
    })
    .await;
}
