//! A capture whose scenario scripted its cards (`captures/scenarios/*.mjs`),
//! read, and each card's face asserted as the scenario told the model:
//! shared by the Copilot CLI and Kimi Code tests.

use crate::captures::read_as;
use crate::common::*;
use taskview_core::model::message::Message;
use taskview_core::model::status::RunState;
use taskview_core::read::import::Dialect;
use taskview_testkit::captures::{capture, Capture};

/// Capture `<cli>-<version>/<scenario>` imported as `dialect` with no
/// unreadable line: its messages, and the session laid out.
pub fn read(name: &str, dialect: Dialect) -> (Capture, Vec<Message>, LaidOut) {
    let c = capture(name);
    let events = read_as(&c, dialect);
    let msgs = messages(&events);
    (c, msgs, LaidOut::new(events))
}

/// The card the scenario described so (its call's description).
pub fn card<'a>(msgs: &'a [Message], description: &str) -> &'a Message {
    let found: Vec<&Message> = cards(msgs)
        .into_iter()
        .filter(|m| m.metadata.subagent.as_ref().unwrap().description == description)
        .collect();
    assert_eq!(found.len(), 1, "one card described {description:?}");
    found[0]
}

/// A message's tool call id.
pub fn id(m: &Message) -> &str {
    m.metadata.tool_call_id.as_deref().unwrap()
}

/// How deep a card sits: 1 for one the main agent launched.
fn depth(msgs: &[Message], m: &Message) -> usize {
    let mut depth = 1;
    let mut parent = m.metadata.parent_tool_call_id.clone();
    while let Some(p) = parent {
        depth += 1;
        parent = msgs
            .iter()
            .find(|x| x.metadata.tool_call_id.as_deref() == Some(p.as_str()))
            .and_then(|x| x.metadata.parent_tool_call_id.clone());
    }
    depth
}

/// A card's face as the scenario scripted it: type (the CLI's own name),
/// status, depth, the tool calls its agent made, and how its report opens.
pub fn assert_card(
    msgs: &[Message],
    laid: &LaidOut,
    description: &str,
    (kind, status, deep, calls, opening): (&str, RunState, usize, usize, &str),
) {
    let m = card(msgs, description);
    let face = laid.card(&m.id);
    assert_eq!(face.type_label, kind, "{description}: type");
    assert_eq!(face.status, status, "{description}: status");
    assert_eq!(depth(msgs, m), deep, "{description}: depth");
    let tools = children(msgs, id(m))
        .into_iter()
        .filter(|c| c.metadata.tool_call_id.is_some())
        .count();
    assert_eq!(tools, calls, "{description}: its tool calls");
    let result = &m.metadata.subagent.as_ref().unwrap().result_text;
    assert!(
        result.starts_with(opening),
        "{description}: report {result:?}"
    );
}

/// The rows the user typed: the main conversation's user rows.
pub fn user_rows(msgs: &[Message]) -> Vec<&str> {
    msgs.iter()
        .filter(|m| m.author.as_str() == "user" && m.metadata.parent_tool_call_id.is_none())
        .map(|m| m.content.as_str())
        .collect()
}

/// Whether a card wears the `background` chip.
fn in_background(laid: &LaidOut, m: &Message) -> bool {
    laid.card(&m.id).chips.iter().any(|c| c.id == "background")
}

/// foreground, as its script tells it: an explore agent, then two general
/// agents side by side (`explore` and `general` are the CLI's names for
/// them), each in the foreground (no background chip) with the calls its
/// script made, its "## Summary" report, its tokens and duration; the prompt
/// is the only user row.
pub fn assert_foreground(msgs: &[Message], laid: &LaidOut, explore: &str, general: &str) {
    let done = RunState::Complete;
    for (description, kind, calls, opening) in [
        (
            "Find the number lexing",
            explore,
            1,
            "## Summary\n\nNumbers are lexed by `lex`",
        ),
        (
            "Write a failing test",
            general,
            2,
            "## Summary\n\nAdded `malformed_number`",
        ),
        (
            "Check the README example",
            general,
            2,
            "## Summary\n\nThe README example is right",
        ),
    ] {
        assert_card(msgs, laid, description, (kind, done, 1, calls, opening));
    }
    for m in cards(msgs) {
        assert!(!in_background(laid, m), "{}", m.id);
        let task = m.metadata.subagent.as_ref().unwrap();
        assert!(task.total_tokens.is_some() && task.duration_ms.is_some());
    }
    assert_eq!(user_rows(msgs), ["Find where parser-kit lexes numbers, then in parallel write a failing test for malformed numbers and check the README example; wait for each answer before going on."]);
}

/// parallel-wave, as its script tells it: four background agents launched
/// in one reply (`types` the CLI's names for them, in the order below), each
/// with the calls its script made and its "## Summary" report.
pub fn assert_parallel_wave(msgs: &[Message], laid: &LaidOut, types: [&str; 4]) {
    let done = RunState::Complete;
    let scripted = [
        (
            "Map the crate structure",
            3,
            "## Summary\n\nparser-kit has three modules",
        ),
        ("Review error handling", 2, "## Summary\n\nTwo panic paths"),
        (
            "Run and assess the tests",
            2,
            "## Summary\n\nThe suite has 2 tests",
        ),
        (
            "Plan the lexer refactor",
            2,
            "## Summary\n\nA three-step plan",
        ),
    ];
    for ((description, calls, opening), kind) in scripted.into_iter().zip(types) {
        assert_card(msgs, laid, description, (kind, done, 1, calls, opening));
    }
    for m in cards(msgs) {
        assert!(in_background(laid, m), "{}", m.id);
    }
}
