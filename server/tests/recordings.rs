//! `--recordings DIR`: one task per readable file, unreadable files
//! reported and skipped (and picked up once fixed), growing files tailed.

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;
use taskview_server::sources::recordings::Watching;
use taskview_server::{Config, Source};

const REVIEW_WAVE: &str = include_str!("../../tests/fixtures/session-review-wave.json");

fn recordings(dir: &TempDir) -> Source {
    Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching::every(Duration::from_millis(20)),
    }
}

fn task_field(snapshot: &Value, field: &str) -> Vec<String> {
    snapshot["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[field].as_str().unwrap().to_string())
        .collect()
}

fn task_titles(snapshot: &Value) -> Vec<String> {
    task_field(snapshot, "title")
}

fn task_ids(snapshot: &Value) -> Vec<String> {
    task_field(snapshot, "id")
}

#[tokio::test]
async fn unreadable_files_are_skipped_and_picked_up_once_fixed() {
    let dir = TempDir::new("recordings-bad");
    dir.write("a-review.json", REVIEW_WAVE);
    dir.write("b-broken.json", "this is not a message list");
    dir.write("c-binary.dat", [0xff, 0xfe, 0x00, 0x9f]);
    dir.write("d-empty.json", "");
    dir.write(".hidden.json", REVIEW_WAVE);
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();

    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    // Titled by its first prompt (it has no title of its own).
    assert_eq!(
        task_titles(&snapshot),
        ["Review the closure diff before we merge."]
    );
    let task = &snapshot["tasks"][0];
    assert_eq!(task["id"], "rec-a-review-json");
    let session = task["primary_session_id"].as_str().unwrap();
    let (_, page) = get(addr, &format!("/api/v1/task-sessions/{session}/messages")).await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 20);
    assert_eq!(
        page["messages"][0]["session_id"], session,
        "re-homed into its session"
    );
    let (_, turns) = get(addr, &format!("/api/v1/task-sessions/{session}/turns")).await;
    assert_eq!(turns["total"], 2);

    // Fixing a skipped file makes it a task, announced to every client.
    let mut ws = Ws::connect_registered(addr).await;
    dir.write(
        "b-broken.json",
        r#"{"messages": [{"id": "x1", "content": "fixed"}]}"#,
    );
    let seen = ws.until(|f| f["action"] == "task.created").await;
    let created = &seen.last().unwrap()["payload"];
    assert_eq!(created["task_id"], "rec-b-broken-json");
    // No user prompt and no title of its own: its file name.
    assert_eq!(created["title"], "b-broken.json");
    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    assert_eq!(
        task_ids(&snapshot),
        ["rec-a-review-json", "rec-b-broken-json"]
    );
    server.shutdown().await.unwrap();
}

fn message(id: &str, turn: &str, content: &str) -> Value {
    json!({"id": id, "turn_id": turn, "author_type": "agent", "type": "message", "content": content,
           "created_at": "2026-08-03T10:00:00Z", "updated_at": "2026-08-03T10:00:00Z"})
}

fn subagent(id: &str, turn: &str, status: &str, updated_at: &str) -> Value {
    json!({"id": id, "turn_id": turn, "author_type": "agent", "type": "tool_call", "content": "Task",
           "created_at": "2026-08-03T10:00:01Z", "updated_at": updated_at,
           "metadata": {"tool_call_id": format!("toolu_{id}"), "status": status,
               "normalized": {"kind": "subagent_task", "subagent_task":
                   {"subagent_type": "code-reviewer", "description": "review", "prompt": ""}}}})
}

fn list(messages: &[Value]) -> String {
    json!({ "messages": messages }).to_string()
}

#[tokio::test]
async fn a_growing_file_is_tailed_live() {
    let dir = TempDir::new("recordings-grow");
    let first = message("m1", "turn-1", "Review the closure diff.");
    dir.write("live.json", list(std::slice::from_ref(&first)));
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();
    let session = "sess-rec-live-json";
    let mut ws = Ws::connect_registered(addr).await;
    ws.request("session.subscribe", json!({"session_id": session}))
        .await;

    // A subagent starts in a new turn: it streams in and the chip rises.
    let running = subagent("m2", "turn-2", "in_progress", "2026-08-03T10:00:01Z");
    dir.write("live.json", list(&[first.clone(), running]));
    let seen = ws
        .until(|f| f["action"] == "task.updated" && f["payload"]["active_subagent_count"] == 1)
        .await;
    let actions: Vec<&str> = seen.iter().map(|f| f["action"].as_str().unwrap()).collect();
    assert!(actions.contains(&"session.turn.started"), "{actions:?}");
    let added: Vec<&Value> = seen
        .iter()
        .filter(|f| f["action"] == "session.message.added")
        .collect();
    assert_eq!(added.len(), 1, "only the new message is pushed");
    assert_eq!(added[0]["payload"]["message_id"], "m2");

    // Half of the next element is on disk: nothing unreadable is pushed yet.
    let done = subagent("m2", "turn-2", "complete", "2026-08-03T10:00:09Z");
    let reply = message("m3", "turn-2", "Both reviews are in.");
    let full = list(&[first.clone(), done, reply]);
    let cut = full.len() - 40;
    dir.write("live.json", &full[..cut]);
    // Then the rest: m2 settles (the chip falls) and m3 arrives.
    let seen_partial = ws
        .until(|f| f["action"] == "session.message.updated" && f["payload"]["message_id"] == "m2")
        .await;
    dir.write("live.json", &full);
    let seen = ws
        .until(|f| f["action"] == "session.message.added" && f["payload"]["message_id"] == "m3")
        .await;
    let all: Vec<&Value> = seen_partial.iter().chain(&seen).collect();
    assert!(all.iter().all(|f| !f["payload"]["message_id"]
        .as_str()
        .unwrap_or("")
        .starts_with("unreadable")));
    let counts: Vec<u64> = all
        .iter()
        .filter(|f| f["action"] == "task.updated")
        .map(|f| f["payload"]["active_subagent_count"].as_u64().unwrap())
        .collect();
    assert_eq!(counts.last(), Some(&0), "{counts:?}");

    // Quiet for a while: the turn completes.
    ws.until(|f| f["action"] == "session.turn.completed" && f["payload"]["id"] == "turn-2")
        .await;
    let (_, page) = get(addr, &format!("/api/v1/task-sessions/{session}/messages")).await;
    assert_eq!(page_ids(&page), ["m1", "m2", "m3"]);
    server.shutdown().await.unwrap();
}

/// The first frame that carries added messages after a recording of one
/// message grows by five (`m2`–`m6`), served with `frame_per_event`.
async fn first_added_frame(frame_per_event: bool) -> String {
    let dir = TempDir::new("recordings-joined");
    let first = message("m1", "turn-1", "Review the closure diff.");
    dir.write("live.json", list(std::slice::from_ref(&first)));
    let server = start(Config {
        frame_per_event,
        ..config(recordings(&dir))
    })
    .await;
    let session = "sess-rec-live-json";
    let mut ws = Ws::connect_registered(server.addr()).await;
    ws.request("session.subscribe", json!({"session_id": session}))
        .await;
    let more: Vec<Value> = (2..=6)
        .map(|n| message(&format!("m{n}"), "turn-1", &format!("Note {n}.")))
        .collect();
    dir.write("live.json", list(&[vec![first], more].concat()));
    let frame = loop {
        let text = ws.next_text().await.expect("a frame");
        if text.contains("session.message.added") {
            break text;
        }
    };
    server.shutdown().await.unwrap();
    frame
}

/// The ids of the messages a frame's `session.message.added` envelopes add.
fn added_ids(frame: &str) -> Vec<Value> {
    frame
        .split('\n')
        .map(|part| serde_json::from_str::<Value>(part).expect("each line is an envelope"))
        .filter(|e| e["action"] == "session.message.added")
        .map(|e| e["payload"]["message_id"].clone())
        .collect()
}

/// One change of a recording reaches a client as one frame: its envelopes
/// joined by `\n` (docs/protocol.md §5.2), each a whole JSON envelope, in order.
#[tokio::test]
async fn the_envelopes_of_one_change_travel_in_one_frame() {
    let frame = first_added_frame(false).await;
    assert_eq!(added_ids(&frame), ["m2", "m3", "m4", "m5", "m6"], "{frame}");
}

/// `--frame-per-event` sends what kandev's backend sends: one envelope a frame.
#[tokio::test]
async fn with_frame_per_event_every_envelope_is_a_frame_of_its_own() {
    let frame = first_added_frame(true).await;
    assert_eq!(added_ids(&frame), ["m2"], "{frame}");
    assert!(!frame.contains('\n'), "{frame}");
}

#[tokio::test]
async fn a_growing_file_takes_its_title_when_its_first_prompt_arrives() {
    let dir = TempDir::new("recordings-retitle");
    dir.write("notes.json", list(&[message("m1", "turn-1", "Starting.")]));
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();
    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    assert_eq!(
        task_titles(&snapshot),
        ["notes.json"],
        "no prompt yet: its file name"
    );
    let mut ws = Ws::connect_registered(addr).await;
    let mut prompt = message("u1", "turn-1", "Tidy the release notes for 2.1.");
    prompt["author_type"] = json!("user");
    dir.write(
        "notes.json",
        list(&[message("m1", "turn-1", "Starting."), prompt]),
    );
    let seen = ws
        .until(|f| {
            f["action"] == "task.updated"
                && f["payload"]["title"] == "Tidy the release notes for 2.1."
        })
        .await;
    assert_eq!(seen.last().unwrap()["payload"]["task_id"], "rec-notes-json");
    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    assert_eq!(task_titles(&snapshot), ["Tidy the release notes for 2.1."]);
    server.shutdown().await.unwrap();
}

/// The Claude Code fixture: one `Task` (an Explore subagent) whose sidechain
/// records are inline. Read from the file: the Task's tool-use id, the agent
/// id its result and its sidechain records name, the session id every record
/// carries, the three tool calls the subagent made (Grep, Read, Bash), and
/// the metrics its result reports.
const CLAUDE_SESSION: &str =
    include_str!("../../tests/fixtures/dialects/claude-code-session.jsonl");
const TASK_TOOL_ID: &str = "toolu_01Kx7TaskBilling3qZ";
const AGENT_ID: &str = "a3f9c2e1b7d40c5e8";
const CLAUDE_SESSION_ID: &str = "6f0c1d2e-8a47-4b3e-9c51-2d7e4f90a1b3";
const SUBAGENT_TOOLS: [&str; 3] = [
    "toolu_01SubGrep8hJk",
    "toolu_01SubRead2mNp",
    "toolu_01SubBash5qRs",
];

/// The fixture split the way newer Claude Code writes it: the main
/// conversation, and the subagent's sidechain records as its own file.
fn split_claude_session() -> (String, String) {
    let (mut main, mut agent) = (String::new(), String::new());
    for line in CLAUDE_SESSION.lines().filter(|l| !l.trim().is_empty()) {
        let record: Value = serde_json::from_str(line).unwrap();
        let target = if record["isSidechain"] == true {
            &mut agent
        } else {
            &mut main
        };
        target.push_str(line);
        target.push('\n');
    }
    assert_eq!(agent.lines().count(), 8, "the fixture's sidechain records");
    (main, agent)
}

/// The messages of a recording's session, over HTTP.
/// The tool-call ids of the messages inside subagent `parent`, in order.
fn children_of(messages: &[Value], parent: &str) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m["metadata"]["parent_tool_call_id"] == parent)
        .map(|m| {
            m["metadata"]["tool_call_id"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

fn message_by_id<'a>(messages: &'a [Value], id: &str) -> &'a Value {
    messages
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no message {id}"))
}

#[tokio::test]
async fn a_claude_session_reads_its_subagent_file_from_the_subagents_folder() {
    let dir = TempDir::new("recordings-claude-subagents");
    let (main, agent) = split_claude_session();
    dir.write("session.jsonl", &main);
    dir.write(&format!("session/subagents/agent-{AGENT_ID}.jsonl"), &agent);
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();

    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    assert_eq!(task_ids(&snapshot), ["rec-session-jsonl"]);
    let messages = session_messages(addr, "sess-rec-session-jsonl").await;
    assert_eq!(children_of(&messages, TASK_TOOL_ID), SUBAGENT_TOOLS);
    let task = message_by_id(&messages, TASK_TOOL_ID);
    assert_eq!(task["metadata"]["transcript_not_loaded"], Value::Null);
    let payload = &task["metadata"]["normalized"]["subagent_task"];
    assert_eq!(payload["subagent_type"], "Explore");
    assert_eq!(payload["tool_use_count"], 3);
    // The subagent's own model comes from its records in the child file.
    assert_eq!(payload["model"], "claude-haiku-4-5-20251001");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn agent_files_beside_sessions_go_to_the_session_their_records_name() {
    let dir = TempDir::new("recordings-claude-beside");
    let (main, agent) = split_claude_session();
    // Another session with the same conversation under another session id:
    // the beside file names the first session, so this one stays without it.
    let other = main.replace(CLAUDE_SESSION_ID, "0aa00000-0000-4000-8000-000000000000");
    dir.write(&format!("{CLAUDE_SESSION_ID}.jsonl"), &main);
    dir.write(&format!("agent-{AGENT_ID}.jsonl"), &agent);
    dir.write("other.jsonl", &other);
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();

    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-recordings/snapshot").await;
    assert_eq!(
        task_ids(&snapshot),
        [
            format!("rec-{CLAUDE_SESSION_ID}-jsonl"),
            "rec-other-jsonl".to_string()
        ],
        "subagent files are not tasks"
    );
    let own = session_messages(addr, &format!("sess-rec-{CLAUDE_SESSION_ID}-jsonl")).await;
    assert_eq!(children_of(&own, TASK_TOOL_ID), SUBAGENT_TOOLS);
    let other = session_messages(addr, "sess-rec-other-jsonl").await;
    assert_eq!(children_of(&other, TASK_TOOL_ID), Vec::<String>::new());
    assert_eq!(
        message_by_id(&other, TASK_TOOL_ID)["metadata"]["transcript_not_loaded"],
        true
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_its_subagent_file_the_card_keeps_its_metrics_and_says_not_loaded() {
    let dir = TempDir::new("recordings-claude-alone");
    let (main, _) = split_claude_session();
    dir.write("session.jsonl", &main);
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();

    let messages = session_messages(addr, "sess-rec-session-jsonl").await;
    assert!(
        messages
            .iter()
            .all(|m| m["metadata"]["parent_tool_call_id"].is_null()),
        "no children without the subagent's transcript"
    );
    let task = message_by_id(&messages, TASK_TOOL_ID);
    assert_eq!(task["metadata"]["transcript_not_loaded"], true);
    let payload = &task["metadata"]["normalized"]["subagent_task"];
    assert_eq!(payload["agent_id"], AGENT_ID);
    assert_eq!(payload["duration_ms"], 52344);
    assert_eq!(payload["total_tokens"], 24781);
    assert_eq!(payload["tool_use_count"], 3);
    assert!(payload["result_text"]
        .as_str()
        .unwrap()
        .starts_with("Webhook retries live in two places:"));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_subagent_file_that_appears_or_goes_rereads_its_session() {
    let dir = TempDir::new("recordings-claude-later");
    let (main, agent) = split_claude_session();
    dir.write("session.jsonl", &main);
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();
    let path = "/api/v1/task-sessions/sess-rec-session-jsonl/messages?limit=1000";
    let children = |page: &Value| children_of(page["messages"].as_array().unwrap(), TASK_TOOL_ID);
    assert_eq!(children(&get(addr, path).await.1), Vec::<String>::new());

    let name = format!("agent-{AGENT_ID}.jsonl");
    dir.write(&name, &agent);
    wait_http(addr, path, |page| children(page) == SUBAGENT_TOOLS).await;

    dir.remove(&name);
    let page = wait_http(addr, path, |page| children(page).is_empty()).await;
    let task = message_by_id(page["messages"].as_array().unwrap(), TASK_TOOL_ID);
    assert_eq!(task["metadata"]["transcript_not_loaded"], true);
    server.shutdown().await.unwrap();
}
