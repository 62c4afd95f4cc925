//! Kimi Code sessions (docs/formats.md §10.3), on the captures the
//! harness made with Kimi Code 2.1.0: every expectation below is what the
//! scenario scripts (`captures/scenarios/*.mjs`) told the model, not what
//! taskview showed.

use crate::common::*;
use crate::scripted::{self, assert_card, card, id, user_rows};
use serde_json::json;
use taskview_core::model::message::Message;
use taskview_core::model::status::RunState;
use taskview_core::read::import::{detect, import_any_with_files, Dialect};
use taskview_testkit::captures::{capture, captures, Capture};

/// The Kimi Code release the harness captured.
const KIMI: &str = "kimi-code-2.1.0";

fn read(scenario: &str) -> (Capture, Vec<Message>, LaidOut) {
    scripted::read(&format!("{KIMI}/{scenario}"), Dialect::Kimi)
}

#[test]
fn a_kimi_wire_is_detected_and_no_other_dialect_claims_it() {
    let (c, _, _) = read("foreground");
    assert_eq!(detect(&c.session), Some(Dialect::Kimi));
    let spawn = c
        .session
        .lines()
        .find(|l| l.contains("\"subagent.spawned\""))
        .unwrap();
    assert_eq!(detect(spawn), Some(Dialect::Kimi), "one record alone");
    let copilot = json!({"type": "session.start", "data": {}, "id": "e", "timestamp": "2026-12-06T00:00:00Z"});
    let claude = json!({"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-12-06T00:00:00Z", "message": {"role": "user", "content": "hi"}});
    assert_eq!(detect(&copilot.to_string()), Some(Dialect::Copilot));
    assert_eq!(detect(&claude.to_string()), Some(Dialect::ClaudeCode));
}

/// foreground: an explore agent, then two coder agents side by side, each
/// run in the foreground (no background chip), each with the calls its
/// script made (read from its own `agents/<id>/wire.jsonl`) and its
/// "## Summary" report; the Agent result's transport (`agent_id:`,
/// `[summary]`, `resume_hint:`) is nowhere on screen; the prompt is the
/// only user row.
#[test]
fn foreground_agents_are_cards_with_their_own_files_calls_and_reports() {
    let (_, msgs, laid) = read("foreground");
    scripted::assert_foreground(&msgs, &laid, "explore", "coder");
    for m in cards(&msgs) {
        assert_eq!(m.metadata.subagent.as_ref().unwrap().model, "mock-model");
    }
    for m in &msgs {
        for wrapper in ["resume_hint:", "[summary]", "actual_subagent_type:"] {
            assert!(!m.content.contains(wrapper), "{}: {wrapper}", m.id);
            assert!(
                m.metadata
                    .raw_str("result")
                    .is_none_or(|r| !r.contains(wrapper)),
                "{}: {wrapper}",
                m.id
            );
        }
    }
}

/// parallel-wave: four background agents launched in one reply, settled by
/// `subagent.completed` (answer, tokens) and `task.terminated` (duration);
/// the `<notification>` prompts that woke the main agent are no rows.
#[test]
fn a_background_wave_settles_from_the_clis_completion_events() {
    let (c, msgs, laid) = read("parallel-wave");
    scripted::assert_parallel_wave(&msgs, &laid, ["explore", "coder", "coder", "plan"]);
    let map = payload(&msgs, id(card(&msgs, "Map the crate structure")));
    let terminated = c
        .session
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| {
            v["type"] == "task.terminated" && v["info"]["description"] == "Map the crate structure"
        })
        .unwrap();
    let info = &terminated["info"];
    let ran = info["endedAt"].as_u64().unwrap() - info["startedAt"].as_u64().unwrap();
    assert_eq!(map.duration_ms, Some(ran), "the task's own times");
    assert!(map.total_tokens.is_some_and(|n| n > 0));
    assert_eq!(
        user_rows(&msgs),
        ["Review the parser-kit crate from four angles at once: structure, error handling, tests, and a refactoring plan."]
    );
    assert!(msgs
        .iter()
        .all(|m| !m.content.contains("<notification") && !m.content.contains("task_id:")));
}

/// failures: the main agent's own command fails; one agent answers, one
/// fails on an HTTP 500, one on an overloaded stream, each failure's
/// reason (as `subagent.failed` recorded it) on its card.
#[test]
fn failed_agents_show_the_error_the_cli_recorded() {
    let (_, msgs, laid) = read("failures");
    assert_card(
        &msgs,
        &laid,
        "Find the version",
        (
            "coder",
            RunState::Complete,
            1,
            2,
            "## Summary\n\nparser-kit is at **0.3.1**",
        ),
    );
    let todos = card(&msgs, "List open TODOs");
    assert_eq!(laid.card(&todos.id).status, RunState::Failed);
    assert!(payload(&msgs, id(todos))
        .result_text
        .contains("Internal server error"));
    let checklist = card(&msgs, "Draft the release checklist");
    assert_eq!(laid.card(&checklist.id).status, RunState::Failed);
    assert!(payload(&msgs, id(checklist))
        .result_text
        .contains("Overloaded"));
}

/// api-errors: the main agent's first request is overloaded twice, then
/// goes through (one retry row, no error); one agent answers, the other is
/// overloaded on every retry and fails, its retries inside its card.
#[test]
fn api_retries_are_one_quiet_row_and_a_doomed_agent_fails() {
    let (_, msgs, laid) = read("api-errors");
    let retries: Vec<&Message> = msgs
        .iter()
        .filter(|m| m.metadata.raw_str("event") == Some("api_retry"))
        .collect();
    let main: Vec<&str> = retries
        .iter()
        .filter(|m| m.metadata.parent_tool_call_id.is_none())
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(
        main,
        ["2 retries · 529 overloaded"],
        "the two scripted 529s"
    );
    assert_card(
        &msgs,
        &laid,
        "Summarize the README",
        (
            "coder",
            RunState::Complete,
            1,
            1,
            "## Summary\n\nparser-kit parses",
        ),
    );
    let doomed = card(&msgs, "Collect usage examples");
    assert_eq!(laid.card(&doomed.id).status, RunState::Failed);
    assert!(retries
        .iter()
        .any(|m| m.metadata.parent_tool_call_id.as_deref() == Some(id(doomed))));
}

/// interrupted: SIGINT mid-wave. Unlike Claude Code and qwen-code, Kimi
/// Code records the end as it closes the session (`task.terminated` with
/// its stop reason, `subagent.cancelled`): what the CLI recorded wins, both
/// running cards are cancelled with its reason, none spins.
#[test]
fn an_interrupted_wave_is_cancelled_as_the_cli_recorded_it() {
    let (c, msgs, laid) = read("interrupted");
    assert!(c.session.contains("\"stopReason\":\"Session closed\""));
    for description in ["Profile the lexer", "Audit the tests"] {
        let m = card(&msgs, description);
        assert_eq!(
            laid.card(&m.id).status,
            RunState::Cancelled,
            "{description}"
        );
        assert_eq!(payload(&msgs, id(m)).result_text, "Session closed");
    }
}

/// stopped: the main agent stops a running background agent with
/// TaskStop: its card is cancelled, the other completes.
#[test]
fn a_stopped_agent_is_cancelled() {
    let (_, msgs, laid) = read("stopped");
    assert_card(
        &msgs,
        &laid,
        "Count the tests",
        ("explore", RunState::Complete, 1, 1, "## Summary\n\n2 tests"),
    );
    let bench = card(&msgs, "Run the long benchmark");
    assert_eq!(laid.card(&bench.id).status, RunState::Cancelled);
}

/// reports: six background reports that open with a fence, a table, a
/// heading then bold, mixed scripts, a 20,000-character line and hostile
/// markup are each their card's answer, whole.
#[test]
fn every_report_opening_is_its_cards_answer() {
    let (_, msgs, _) = read("reports");
    let openings = [
        ("Show the lexer error", "```text\n"),
        ("Tabulate the evaluator results", "| input | result |"),
        ("Find the panics", "## Findings\n\n**Two panics**"),
        ("Summarize in four scripts", "Résumé: 解析器は正しい"),
        ("Write one very long line", "long long long"),
        ("Quote hostile markup", "<img src=x onerror="),
    ];
    for (description, opening) in openings {
        let task = payload(&msgs, id(card(&msgs, description)));
        assert!(task.result_text.starts_with(opening), "{description}");
        assert_eq!(task.status, "completed", "{description}");
    }
    let long = payload(&msgs, id(card(&msgs, "Write one very long line")));
    // The script's line: `'long '.repeat(4000).trimEnd()`.
    assert!(long.result_text.lines().any(|l| l.len() == 19_999));
}

/// docs/behaviour.md §1: bookkeeping (the tool snapshot, requests, usage, token
/// counts, echoes of messages the loop events hold) is skipped and counted,
/// and a main wire read alone still has its cards.
#[test]
fn bookkeeping_records_are_skipped_and_counted() {
    let c = capture(&format!("{KIMI}/parallel-wave"));
    let events = import_any_with_files(&c.session, &[]).unwrap().events;
    let counted: Vec<String> = not_shown(&events).into_iter().map(|(k, _)| k).collect();
    for kind in [
        "llm.tools_snapshot",
        "llm.request",
        "usage.record",
        "context.append_message",
        "agent.message.appended",
    ] {
        assert!(counted.iter().any(|k| k == kind), "{kind}: {counted:?}");
    }
    let msgs = messages(&events);
    assert_eq!(cards(&msgs).len(), 4, "cards from the main wire alone");
}

/// Every captured story opens with no unreadable row and no wrapper text
/// on screen.
#[test]
fn every_captured_story_opens_clean() {
    let all = captures(KIMI);
    assert!(all.len() >= 8, "{} stories", all.len());
    for c in all {
        let import = import_any_with_files(&c.session, &c.file_refs()).expect("imports");
        assert_eq!(import.dialect, Dialect::Kimi, "{}", c.name);
        assert_eq!(
            unreadable(&import.events),
            Vec::<String>::new(),
            "{}",
            c.name
        );
        for m in messages(&import.events) {
            for wrapper in ["<notification", "resume_hint:", "<system-reminder>"] {
                assert!(
                    !m.content.contains(wrapper),
                    "{}: {} {wrapper}",
                    c.name,
                    m.id
                );
            }
        }
    }
}
