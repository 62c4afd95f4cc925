//! What happens to a session besides conversation, one quiet row each
//! (docs/behaviour.md §4): compaction, slash commands, resume and API retries, read
//! from Claude Code and qwen-code records written from
//! docs/formats.md §9 (`dialects/claude-code-session-ends.jsonl`
//! and its subagent file).

use crate::common::*;
use serde_json::json;
use taskview_core::model::message::{Author, Message, MessageType};
use taskview_core::read::import::{claude_code, qwen_code};

const SESSION: &str = "dialects/claude-code-session-ends.jsonl";
const AGENT_FILE: &str =
    "dialects/claude-code-session-ends/subagents/agent-a0e1d2c3b4a5f6e7d.jsonl";

fn session() -> Vec<Message> {
    let agent = fixture(AGENT_FILE);
    let sidecar = fixture(&AGENT_FILE.replace(".jsonl", ".meta.json"));
    let files = [
        ("subagents/agent-a0e1d2c3b4a5f6e7d.jsonl", agent.as_str()),
        (
            "subagents/agent-a0e1d2c3b4a5f6e7d.meta.json",
            sidecar.as_str(),
        ),
    ];
    let events = claude_code::import_with_files(&fixture(SESSION), &files).unwrap();
    assert!(unreadable(&events).is_empty(), "{:?}", unreadable(&events));
    messages(&events)
}

fn event_rows<'a>(msgs: &'a [Message], event: &str) -> Vec<&'a Message> {
    msgs.iter()
        .filter(|m| m.metadata.raw_str("event") == Some(event))
        .collect()
}

fn prompts(msgs: &[Message]) -> Vec<&str> {
    msgs.iter()
        .filter(|m| m.author == Author::User && m.kind == MessageType::Message)
        .map(|m| m.content.as_str())
        .collect()
}

/// Every text a row shows, its detail included.
fn shown(m: &Message) -> String {
    format!(
        "{}\n{}",
        m.content,
        m.metadata.raw_str("detail").unwrap_or("")
    )
}

#[test]
fn a_compaction_is_one_quiet_row_expandable_to_its_summary_never_a_you_prompt() {
    let msgs = session();
    let rows = event_rows(&msgs, "compaction");
    assert_eq!(rows.len(), 1);
    let row = rows[0];
    assert_eq!(row.kind, MessageType::Status);
    assert_eq!(row.content, "Conversation compacted · manual");
    let summary = row.metadata.raw_str("detail").unwrap();
    assert!(summary.starts_with("This session is being continued"));
    assert!(summary.contains("Two `unwrap`s remain"));
    assert!(!summary.contains("system-reminder") && !summary.contains("tools-used"));
    assert!(prompts(&msgs)
        .iter()
        .all(|p| !p.contains("being continued")));
}

#[test]
fn an_automatic_compaction_says_auto() {
    let boundary = json!({"type": "system", "subtype": "compact_boundary", "uuid": "b1",
        "sessionId": "s", "timestamp": "2026-12-05T10:00:00Z", "content": "Conversation compacted",
        "compactMetadata": {"trigger": "auto", "preTokens": 160000}});
    let summary = json!({"type": "user", "uuid": "b2", "sessionId": "s", "isCompactSummary": true,
        "timestamp": "2026-12-05T10:00:00Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "Summary: all done."}]}});
    let msgs = messages(&claude_code::import(&lines(&[boundary, summary])).unwrap());
    let rows = event_rows(&msgs, "compaction");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].content, "Conversation compacted · auto");
    assert_eq!(
        rows[0].metadata.raw_str("detail"),
        Some("Summary: all done.")
    );
    assert!(prompts(&msgs).is_empty());
}

#[test]
fn rows_and_cards_from_before_a_compaction_stay() {
    let msgs = session();
    let at = |id_of: &dyn Fn(&Message) -> bool| msgs.iter().position(id_of).unwrap();
    let compaction = at(&|m| m.metadata.raw_str("event") == Some("compaction"));
    let card = at(&|m| m.is_subagent_payload());
    let first_reply = at(&|m| m.content.contains("two `unwrap`s remain"));
    assert!(card < compaction && first_reply < compaction);
    assert_eq!(
        prompts(&msgs),
        [
            "Review the parser for error handling.",
            "Now check the tests."
        ]
    );
}

#[test]
fn a_slash_command_and_its_output_are_one_command_row_without_caveat_or_key_hints() {
    let msgs = session();
    let rows = event_rows(&msgs, "command");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].content, "/compact");
    assert_eq!(rows[0].metadata.raw_str("detail"), Some("Compacted"));
    for m in &msgs {
        let text = shown(m);
        for wrapper in ["Caveat:", "ctrl+o", "<command-", "<local-command-"] {
            assert!(!text.contains(wrapper), "{wrapper:?} in {text:?}");
        }
    }
    assert!(
        msgs.iter().all(|m| m.content.trim() != "compact"),
        "the command's message"
    );
}

#[test]
fn a_command_with_arguments_names_them_and_a_command_without_output_stands_alone() {
    let record = |uuid: &str, text: &str| {
        json!({"type": "user", "uuid": uuid, "sessionId": "s", "timestamp": "2026-12-05T10:00:00Z",
            "message": {"role": "user", "content": text}})
    };
    let msgs = messages(
        &claude_code::import(&lines(&[record(
            "c1",
            "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>",
        )]))
        .unwrap(),
    );
    let rows = event_rows(&msgs, "command");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].content, "/model opus");
    assert_eq!(rows[0].metadata.raw_str("detail"), None);
}

#[test]
fn a_hidden_tools_used_before_summary_reminder_is_never_a_you_prompt() {
    let msgs = session();
    for m in &msgs {
        assert!(!shown(m).contains("tools-used-before-summary"), "{m:?}");
    }
    assert!(prompts(&msgs)
        .iter()
        .all(|p| !p.contains("system-reminder")));
}

#[test]
fn api_errors_are_one_retry_marker_on_their_turn() {
    let msgs = session();
    let rows = event_rows(&msgs, "api_retry");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].content, "3 retries · 529 overloaded");
    assert_eq!(rows[0].kind, MessageType::Status);
    assert_eq!(rows[0].turn_id.as_deref(), Some("turn-1"));
    assert!(msgs.iter().all(|m| m.kind != MessageType::Error));
}

#[test]
fn retries_of_a_later_turn_get_a_marker_of_their_own() {
    let prompt = |uuid: &str| {
        json!({"type": "user", "uuid": uuid, "sessionId": "s", "timestamp": "2026-12-05T10:00:00Z",
            "message": {"role": "user", "content": "go"}})
    };
    let retry = |uuid: &str, status: u64| {
        json!({"type": "system", "subtype": "api_error", "level": "error", "uuid": uuid,
            "sessionId": "s", "timestamp": "2026-12-05T10:00:01Z",
            "error": {"status": status, "message": "x"}, "retryAttempt": 1, "retryInMs": 500})
    };
    let msgs = messages(
        &claude_code::import(&lines(&[
            prompt("p1"),
            retry("r1", 500),
            prompt("p2"),
            retry("r2", 529),
        ]))
        .unwrap(),
    );
    let rows: Vec<_> = event_rows(&msgs, "api_retry")
        .iter()
        .map(|m| (m.content.as_str(), m.turn_id.as_deref()))
        .collect();
    assert_eq!(
        rows,
        [
            ("1 retry · 500 server error", Some("turn-1")),
            ("1 retry · 529 overloaded", Some("turn-2"))
        ]
    );
}

#[test]
fn a_subagent_ended_by_an_api_error_is_its_failure() {
    let launch = json!({"type": "assistant", "uuid": "a1", "sessionId": "s",
        "timestamp": "2026-12-05T10:00:00Z", "message": {"id": "m1", "role": "assistant",
        "model": "claude-sonnet-4-6", "content": [{"type": "tool_use", "id": "toolu_bg",
        "name": "Agent", "input": {"description": "Doomed", "prompt": "Try.", "run_in_background": true}}]}});
    let launched = json!({"type": "user", "uuid": "a2", "sessionId": "s",
        "timestamp": "2026-12-05T10:00:01Z", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_bg", "content": "Async agent launched successfully."}]},
        "toolUseResult": {"isAsync": true, "status": "async_launched", "agentId": "a1b2c3d4e5f6a7b8c"}});
    let child = |uuid: &str, body: serde_json::Value| {
        let mut v = json!({"uuid": uuid, "sessionId": "s", "isSidechain": true,
            "agentId": "a1b2c3d4e5f6a7b8c", "timestamp": "2026-12-05T10:03:00Z"});
        v.as_object_mut()
            .unwrap()
            .extend(body.as_object().unwrap().clone());
        v
    };
    let file = lines(&[
        child(
            "c1",
            json!({"type": "user", "message": {"role": "user", "content": "Try."}}),
        ),
        child(
            "c2",
            json!({"type": "assistant", "isApiErrorMessage": true, "apiErrorStatus": 529,
            "message": {"id": "m2", "role": "assistant", "model": "<synthetic>",
            "content": [{"type": "text", "text": "API Error: 529 Overloaded"}]}}),
        ),
    ]);
    let files = [("subagents/agent-a1b2c3d4e5f6a7b8c.jsonl", file.as_str())];
    let msgs =
        messages(&claude_code::import_with_files(&lines(&[launch, launched]), &files).unwrap());
    let task = payload(&msgs, "toolu_bg");
    assert_eq!(task.status, "failed");
    assert_eq!(task.result_text, "API Error: 529 Overloaded");
}

#[test]
fn a_claude_run_resumed_in_the_same_file_has_no_resumed_row_its_new_prompt_is_the_boundary() {
    // Claude Code writes nothing where one run ends and the next begins
    // (docs/formats.md §9): the file does not say "resumed", so no row does.
    let msgs = session();
    assert!(event_rows(&msgs, "resume").is_empty());
    assert!(prompts(&msgs).contains(&"Now check the tests."));
}

#[test]
fn a_qwen_resume_reminder_is_a_resumed_row_with_the_time_not_a_prompt() {
    let record = |uuid: &str, time: &str, text: &str| {
        json!({"type": "user", "uuid": uuid, "sessionId": "q1", "timestamp": time,
            "version": "0.24.4", "provenance": "real_user",
            "message": {"role": "user", "parts": [{"text": text}]}})
    };
    let text = lines(&[
        record("u1", "2026-12-05T09:00:00.000Z", "Review the parser."),
        record(
            "u2",
            "2026-12-05T11:30:00.000Z",
            "<system-reminder>2 background agents were restored from the previous session. Their results will arrive as notifications.</system-reminder>",
        ),
        record("u3", "2026-12-05T11:30:05.000Z", "Go on."),
    ]);
    let msgs = messages(&qwen_code::import(&text).unwrap());
    let rows = event_rows(&msgs, "resume");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].content, "Resumed · 2026-12-05 11:30 UTC");
    assert_eq!(prompts(&msgs), ["Review the parser.", "Go on."]);
    // As 0.24.4 writes it: the reminder and the new prompt in one record.
    let together = json!({"type": "user", "uuid": "u4", "sessionId": "q1",
        "timestamp": "2026-12-05T12:00:00.000Z", "version": "0.24.4", "provenance": "real_user",
        "message": {"role": "user", "parts": [
            {"text": "<system-reminder>\n1 background agent was restored from this session.\n</system-reminder>\n\n"},
            {"text": "Now the evaluator."}]}});
    let msgs = messages(&qwen_code::import(&lines(&[together])).unwrap());
    assert_eq!(event_rows(&msgs, "resume").len(), 1);
    assert_eq!(prompts(&msgs), ["Now the evaluator."]);
}

#[test]
fn a_qwen_compression_is_one_compaction_row_expandable_to_the_history_it_keeps() {
    let record = json!({"type": "system", "subtype": "chat_compression", "uuid": "c1",
        "sessionId": "q1", "timestamp": "2026-12-05T11:00:00.000Z", "version": "0.24.4",
        "systemPayload": {"info": {"triggerReason": "manual", "originalTokenCount": 10245},
            "compressedHistory": [
                {"role": "user", "parts": [{"text": "<state_snapshot>Parser reviewed.</state_snapshot>"}]},
                {"role": "model", "parts": [{"text": "Got it."}]}]}});
    let msgs = messages(&qwen_code::import(&lines(&[record])).unwrap());
    let rows = event_rows(&msgs, "compaction");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].content, "Conversation compacted · manual");
    assert_eq!(
        rows[0].metadata.raw_str("detail"),
        Some("<state_snapshot>Parser reviewed.</state_snapshot>")
    );
    assert!(prompts(&msgs).is_empty());
}
