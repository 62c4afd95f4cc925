//! GitHub Copilot CLI sessions (docs/formats.md §10.3), on the
//! captures the harness made with Copilot CLI 1.0.102: every expectation
//! below is what the scenario scripts (`captures/scenarios/*.mjs`) told the
//! model, not what taskview showed.

use crate::common::*;
use crate::scripted::{self, assert_card, card, id};
use serde_json::json;
use taskview_core::model::message::Message;
use taskview_core::model::status::RunState;
use taskview_core::read::import::{detect, import_any_with_files, Dialect};
use taskview_testkit::captures::{capture, Capture};

/// The Copilot CLI release the harness captured.
const COPILOT: &str = "copilot-1.0.102";

fn read(scenario: &str) -> (Capture, Vec<Message>, LaidOut) {
    scripted::read(&format!("{COPILOT}/{scenario}"), Dialect::Copilot)
}

#[test]
fn copilot_events_are_detected_and_no_other_dialect_claims_them() {
    let (c, _, _) = read("foreground");
    assert_eq!(detect(&c.session), Some(Dialect::Copilot));
    let first = c.session.lines().next().unwrap();
    assert_eq!(detect(first), Some(Dialect::Copilot), "one event alone");
    // The other agent logs' records are not Copilot events.
    let claude = json!({"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-12-06T00:00:00Z", "message": {"role": "user", "content": "hi"}});
    let codex = json!({"timestamp": "2026-12-06T00:00:00Z", "type": "session_meta", "payload": {"id": "t"}});
    assert_eq!(detect(&claude.to_string()), Some(Dialect::ClaudeCode));
    assert_eq!(detect(&codex.to_string()), Some(Dialect::Codex));
}

/// foreground: an Explore agent, then two general-purpose agents side by
/// side, each run `sync` (no background chip), each with the calls its
/// script made and its "## Summary" report; the prompt is the only user row.
#[test]
fn foreground_tasks_are_sync_cards_with_their_calls_and_reports() {
    let (_, msgs, laid) = read("foreground");
    scripted::assert_foreground(&msgs, &laid, "explore", "general-purpose");
}

/// parallel-wave: four background agents launched in one reply, settled by
/// their `subagent.completed` (tokens, tool count, duration as the CLI
/// recorded them); the `read_agent` calls the CLI makes to fetch each
/// report are no rows, and no launch placeholder is a result.
#[test]
fn a_background_wave_settles_from_the_clis_completion_events() {
    let (c, msgs, laid) = read("parallel-wave");
    scripted::assert_parallel_wave(
        &msgs,
        &laid,
        [
            "explore",
            "code-review",
            "general-purpose",
            "general-purpose",
        ],
    );
    let map = card(&msgs, "Map the crate structure")
        .metadata
        .subagent
        .clone()
        .unwrap();
    let completed = c
        .session
        .lines()
        .find(|l| l.contains("\"subagent.completed\"") && l.contains("\"map\""))
        .unwrap();
    let completed: serde_json::Value = serde_json::from_str(completed).unwrap();
    assert_eq!(map.total_tokens, completed["data"]["totalTokens"].as_u64());
    assert_eq!(map.duration_ms, completed["data"]["durationMs"].as_u64());
    assert_eq!(
        map.tool_use_count,
        completed["data"]["totalToolCalls"].as_u64()
    );
    assert!(
        msgs.iter()
            .all(|m| m.metadata.raw_str("tool_name") != Some("read_agent")),
        "read_agent fetches a report the card shows already"
    );
    assert!(msgs
        .iter()
        .all(|m| !m.content.contains("Agent started in background")));
}

/// nested: a background lead (depth 1) runs two sync workers (depth 2);
/// the lexer worker runs a checker (depth 3); each card sits under its
/// parent's, with its own calls (a nested launch is one of them).
#[test]
fn a_nested_tree_keeps_every_card_at_its_depth() {
    let (_, msgs, laid) = read("nested");
    let done = RunState::Complete;
    assert_card(
        &msgs,
        &laid,
        "Lead the panic audit",
        (
            "general-purpose",
            done,
            1,
            2,
            "## Summary\n\nMerged findings",
        ),
    );
    assert_card(
        &msgs,
        &laid,
        "Audit the lexer",
        ("general-purpose", done, 2, 2, "## Summary\n\nOne panic"),
    );
    assert_card(
        &msgs,
        &laid,
        "Audit the parser",
        ("general-purpose", done, 2, 1, "## Summary\n\nNo panics in"),
    );
    assert_card(
        &msgs,
        &laid,
        "Confirm the lexer panic",
        ("explore", done, 3, 1, "## Summary\n\nConfirmed"),
    );
    let lead = card(&msgs, "Lead the panic audit");
    let lexer = card(&msgs, "Audit the lexer");
    assert_eq!(
        lexer.metadata.parent_tool_call_id.as_deref(),
        Some(id(lead))
    );
}

/// failures: the main agent's own command exits 1 (an error row, its
/// output without the CLI's shell line); one agent recovers from a tool
/// error, one fails on an HTTP 500, one on an overloaded stream after the
/// CLI's retries, each failure's reason on its card.
#[test]
fn failed_agents_show_the_error_the_cli_recorded() {
    let (_, msgs, laid) = read("failures");
    assert_card(
        &msgs,
        &laid,
        "Find the version",
        (
            "general-purpose",
            RunState::Complete,
            1,
            2,
            "## Summary\n\nparser-kit is at **0.3.1**",
        ),
    );
    assert_card(
        &msgs,
        &laid,
        "List open TODOs",
        (
            "explore",
            RunState::Failed,
            1,
            1,
            "500 Internal server error",
        ),
    );
    assert_card(
        &msgs,
        &laid,
        "Draft the release checklist",
        (
            "general-purpose",
            RunState::Failed,
            1,
            0,
            "Failed to get response from the AI model",
        ),
    );
    let overloaded = card(&msgs, "Draft the release checklist");
    assert_eq!(
        overloaded.metadata.subagent.as_ref().unwrap().model,
        "mock-model",
        "the model subagent.started names, though no reply came"
    );
    let cat = msgs
        .iter()
        .find(|m| m.metadata.raw_str("tool_name") == Some("bash"))
        .unwrap();
    assert_eq!(cat.metadata.raw_str("status"), Some("error"));
    assert_eq!(
        cat.metadata.raw_str("result"),
        Some("cat: CHANGELOG.md: No such file or directory")
    );
}

/// docs/behaviour.md §1: bookkeeping (session start and shutdown, turn marks, usage
/// records, the system prompt, notifications) is skipped and counted.
#[test]
fn bookkeeping_events_are_skipped_and_counted() {
    let c = capture(&format!("{COPILOT}/parallel-wave"));
    let events = import_any_with_files(&c.session, &[]).unwrap().events;
    let counted: Vec<String> = not_shown(&events).into_iter().map(|(k, _)| k).collect();
    for kind in [
        "session.start",
        "session.shutdown",
        "assistant.turn_start",
        "system.message",
        "system.notification",
    ] {
        assert!(counted.iter().any(|k| k == kind), "{kind}: {counted:?}");
    }
}
