//! Gemini CLI chat logs (docs/formats.md §8.2): the rules the
//! captures' tests (`captures`) do not name.

use crate::common::*;
use serde_json::{json, Value};
use taskview_core::read::import::{detect, gemini_cli, Dialect};

fn header(id: &str, kind: &str) -> Value {
    json!({"sessionId": id, "projectHash": "h", "startTime": "2026-12-04T15:09:44.000Z",
        "lastUpdated": "2026-12-04T15:09:44.000Z", "kind": kind})
}

/// A chat log whose first message list is `$set` is no kandev list.
#[test]
fn a_gemini_chat_log_is_detected_apart_from_a_kandev_list() {
    let text = lines(&[
        header("s1", "main"),
        json!({"$set": {"messages": [{"id": "m0", "timestamp": "2026-12-04T15:09:44.100Z", "type": "user",
            "content": [{"text": "<session_context>\nsetup\n</session_context>"}]}]}}),
        json!({"id": "m1", "timestamp": "2026-12-04T15:09:44.200Z", "type": "user", "content": [{"text": "hi"}]}),
    ]);
    assert_eq!(detect(&text), Some(Dialect::GeminiCli));
    let events = gemini_cli::import(&text).unwrap();
    let msgs = messages(&events);
    assert_eq!(
        kinds_and_contents(&msgs),
        [("message", "hi")],
        "the setup context is no speech"
    );
    assert_eq!(not_shown(&events), [("user".to_string(), 1)]);
}

/// A subagent's own log is its card's children, but for its hand-back
/// (`complete_task`), which carries its answer and is no step of its work;
/// its model and tokens are its log's (its latest reply's), its duration
/// its log's, from its header's start to its last record.
#[test]
fn a_subagents_log_is_its_cards_children_without_its_hand_back() {
    let main = lines(&[
        header("s1", "main"),
        json!({"id": "m1", "timestamp": "2026-12-04T15:09:44.200Z", "type": "user", "content": [{"text": "map it"}]}),
        json!({"id": "m2", "timestamp": "2026-12-04T15:09:45.000Z", "type": "gemini", "content": "",
            "model": "gemini-2.5-pro", "toolCalls": [{"id": "invoke_agent__1", "name": "invoke_agent",
                "args": {"agent_name": "codebase_investigator", "prompt": "Map the crate."},
                "status": "success", "timestamp": "2026-12-04T15:09:49.000Z", "agentId": "a1",
                "result": [{"functionResponse": {"id": "invoke_agent__1", "name": "invoke_agent", "response": {
                    "output": "Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\n{\"SummaryOfFindings\": \"Three modules.\"}"}}}]}]}),
    ]);
    let child = lines(&[
        header("a1", "subagent"),
        json!({"id": "c1", "timestamp": "2026-12-04T15:09:45.100Z", "type": "user", "content": [{"text": "Map the crate."}]}),
        json!({"id": "c2", "timestamp": "2026-12-04T15:09:46.000Z", "type": "gemini", "content": "", "model": "gemini-2.5-flash",
            "tokens": {"total": 900}, "toolCalls": [
                {"id": "read_file__1", "name": "read_file", "args": {"file_path": "src/lib.rs"}, "status": "success",
                 "result": [{"functionResponse": {"id": "read_file__1", "name": "read_file", "response": {"output": "pub mod x;"}}}]}]}),
        json!({"id": "c3", "timestamp": "2026-12-04T15:09:48.500Z", "type": "gemini", "content": "", "model": "gemini-2.5-flash",
            "tokens": {"total": 1200}, "toolCalls": [
                {"id": "complete_task__1", "name": "complete_task", "args": {"result": "Three modules."}, "status": "success"}]}),
    ]);
    let msgs = messages(&gemini_cli::import_with_files(&main, &[("s1/a1.jsonl", &child)]).unwrap());
    let ids: Vec<&str> = children(&msgs, "invoke_agent__1")
        .iter()
        .map(|m| m.id.as_str())
        .collect();
    assert_eq!(ids, ["read_file__1"]);
    let sa = payload(&msgs, "invoke_agent__1");
    assert_eq!(
        (
            sa.subagent_type.as_str(),
            sa.status.as_str(),
            sa.result_text.as_str(),
            sa.model.as_str(),
            sa.total_tokens,
            sa.duration_ms
        ),
        (
            "codebase_investigator",
            "completed",
            "Three modules.",
            "gemini-2.5-flash",
            Some(1200),
            Some(4500)
        )
    );
}
