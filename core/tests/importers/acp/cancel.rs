//! A turn an ACP client cancels (`session/cancel`): the Claude ACP adapter's
//! `interrupted` capture, where the client cancels the prompt while two
//! background subagents wait on a slow reply (captures/scenarios/
//! interrupted.mjs). The adapter answers the prompt `stopReason:
//! "cancelled"` and sends nothing after it. What is expected comes from the
//! script, not from taskview's output.

use super::*;
use taskview_core::model::event::Event;
use taskview_core::model::message::{Author, MessageType};
use taskview_core::model::status::RunState;
use taskview_core::read::import::{import_any_with_files, Dialect};
use taskview_core::screen::view::board::SubagentActivity;
use taskview_core::screen::viewer::Viewer;
use taskview_core::state::layout::RowKey;
use taskview_testkit::captures::{capture, Capture};

const INTERRUPTED: &str = "claude-agent-acp-0.101.0/interrupted";

/// Each scripted subagent's description and the one call it made before the cancel.
const CUT_OFF: [(&str, &str); 2] = [
    ("Profile the lexer", "src/lexer.rs"),
    ("Audit the tests", "tests/parser_test.rs"),
];

fn read_capture() -> (Capture, Vec<Event>) {
    let c = capture(INTERRUPTED);
    let import = import_any_with_files(&c.session, &c.file_refs()).expect("imports");
    assert_eq!(import.dialect, Dialect::Acp);
    assert!(unreadable(&import.events).is_empty());
    (c, import.events)
}

fn card_of<'a>(msgs: &'a [Message], description: &str) -> &'a Message {
    cards(msgs)
        .into_iter()
        .find(|m| m.metadata.subagent.as_ref().unwrap().description == description)
        .unwrap_or_else(|| panic!("no card {description:?}"))
}

/// The capture is what the script tells: the client cancelled the prompt
/// and the adapter answered it `cancelled`.
#[test]
fn the_capture_holds_the_cancel_and_the_prompt_s_cancelled_answer() {
    let (c, _) = read_capture();
    let frames: Vec<Value> = c
        .session
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let cancel = frames
        .iter()
        .position(|f| f["method"] == "session/cancel")
        .expect("a session/cancel");
    assert!(frames[cancel].get("id").is_none(), "a notification");
    let prompt_id = frames
        .iter()
        .find(|f| f["method"] == "session/prompt")
        .map(|f| f["id"].clone())
        .unwrap();
    let answer = frames
        .iter()
        .position(|f| f["id"] == prompt_id && f.get("result").is_some())
        .unwrap();
    assert!(answer > cancel);
    assert_eq!(frames[answer]["result"]["stopReason"], "cancelled");
}

/// A prompt answered `cancelled` ends its turn as an interruption: the
/// prompt once, the main agent's two scripted texts (never its report),
/// and the turn's end one status row, last, in the turn (as Codex's
/// recorded abort is one); no error row.
#[test]
fn a_prompt_answered_cancelled_ends_its_turn_with_one_status_row() {
    let (_, events) = read_capture();
    let msgs = messages(&events);
    let top: Vec<&Message> = msgs
        .iter()
        .filter(|m| m.metadata.parent_tool_call_id.is_none() && !m.is_subagent_payload())
        .collect();
    let said = |author: Author| -> Vec<&str> {
        top.iter()
            .filter(|m| m.author == author && m.kind == MessageType::Message)
            .map(|m| m.content.as_str())
            .collect()
    };
    assert_eq!(
        said(Author::User),
        ["Profile the parser-kit lexer and audit its tests, in parallel."]
    );
    assert_eq!(
        said(Author::Agent),
        [
            "Profiling and auditing in parallel.",
            "0 of 2 reports are in; waiting for: Profile the lexer, Audit the tests."
        ]
    );
    let status: Vec<&str> = msgs
        .iter()
        .filter(|m| m.kind.as_str() == "status")
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(status, ["Turn ended: cancelled"]);
    let last = msgs.last().unwrap();
    assert_eq!(last.content, "Turn ended: cancelled");
    assert_eq!(last.turn_id.as_deref(), Some("turn-1"));
    assert!(msgs.iter().all(|m| m.kind.as_str() != "error"));
}

/// The runs the cancel cut off had not reported: each card holds only the
/// call it made before the cancel (its first read, completed), no result,
/// no summary, no duration or tokens (only its background launch and
/// model). The agent recorded stopping them (the prompt answered
/// `cancelled`), and what it recorded wins (docs/behaviour.md §1): each reads
/// `cancelled`, at once, on a live source as in a still file, with no
/// spinner, no lifecycle mark and nothing now, and none counts as at work.
#[test]
fn the_runs_a_cancel_cut_off_read_cancelled_on_any_source() {
    let (_, events) = read_capture();
    let msgs = messages(&events);
    assert_eq!(cards(&msgs).len(), CUT_OFF.len());
    let laid = LaidOut::new(events.clone());
    for still in [false, true] {
        let mut viewer = Viewer::new();
        viewer.set_still(still);
        viewer.tick(0);
        viewer.apply(events.clone());
        viewer.tick(60 * 1000);
        for (description, path) in CUT_OFF {
            let what = format!("{description} (still: {still})");
            let m = card_of(&msgs, description);
            let sa = m.metadata.subagent.as_ref().unwrap();
            assert_eq!(sa.subagent_type, "general-purpose", "{what}");
            assert!(sa.result_text.is_empty(), "{what}: no result");
            let calls = children(&msgs, m.metadata.tool_call_id.as_deref().unwrap());
            assert_eq!(calls.len(), 1, "{what}: {calls:?}");
            assert!(calls[0].content.contains(path), "{what}: {calls:?}");
            assert_eq!(calls[0].metadata.status.as_deref(), Some("complete"));
            let card = laid.card(&m.id);
            assert_eq!(card.child_count_label.as_deref(), Some("1 tool call"));
            assert!(card.result_summary.is_none(), "{what}: no summary");
            let chips: Vec<&str> = card.chips.iter().map(|c| c.id).collect();
            assert_eq!(chips, ["background", "model"], "{what}: no figures");
            let face = viewer
                .row(&RowKey::Message(m.id.clone()))
                .and_then(|r| r.card().cloned())
                .unwrap_or_else(|| panic!("{what} is not a row"))
                .card;
            assert_eq!(face.status, RunState::Cancelled, "{what}");
            assert_eq!(face.lifecycle, None, "{what}: no spinner, no mark");
            assert_eq!(face.now_text, None, "{what}: at nothing now");
        }
        // Not at work: no chip, no drill-down item.
        assert_eq!(
            viewer.subagent_activity(),
            SubagentActivity::default(),
            "still: {still}"
        );
        assert!(viewer.drill_down().items.is_empty());
    }
}
