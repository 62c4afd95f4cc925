//! Older formats (docs/formats.md §9), read from small fixtures written from the
//! formats' facts (`tests/fixtures/older/README.md`).

use crate::common::*;
use taskview_core::model::message::MessageType;
use taskview_core::model::status::RunState;
use taskview_core::read::import::{import_any, Dialect};

const GEMINI_JSON: &str = "older/gemini-cli-session-2026-02-11T09-14-3f2b9c1e.json";

/// docs/formats.md §3.2: Gemini CLI builds before JSONL wrote one
/// `session-*.json` document; it is a Gemini CLI chat log (not a kandev
/// message list) with its prompt, thinking, markdown answer, tool calls
/// (one failed) and the agent it ran as a tool of its own name as a card.
#[test]
fn a_single_document_gemini_cli_chat_log_reads_as_gemini_cli_with_its_calls_and_card() {
    let import = import_any(&fixture(GEMINI_JSON)).unwrap();
    assert_eq!(import.dialect, Dialect::GeminiCli);
    assert_eq!(unreadable(&import.events), Vec::<String>::new());
    let msgs = messages(&import.events);
    let kinds: Vec<MessageType> = msgs.iter().map(|m| m.kind.clone()).collect();
    assert!(kinds.contains(&MessageType::Thinking), "{kinds:?}");
    let user = msgs.iter().find(|m| {
        m.kind == MessageType::Message && m.author == taskview_core::model::message::Author::User
    });
    assert_eq!(
        user.map(|m| m.content.as_str()),
        Some("Find out why parser-kit panics on `1..2` and suggest a fix.")
    );
    let answer = msgs
        .iter()
        .rev()
        .find(|m| m.kind == MessageType::Message)
        .unwrap();
    assert!(
        answer.content.starts_with("## Cause\n\n`lex` calls"),
        "{:?}",
        answer.content
    );

    let all_cards = cards(&msgs);
    assert_eq!(all_cards.len(), 1, "the investigator is the one subagent");
    let laid = LaidOut::new(import.events.clone());
    let card = laid.card(&all_cards[0].id);
    assert_eq!(card.type_label, "codebase_investigator");
    assert_eq!(card.status, RunState::Complete);
    assert_eq!(
        card.result_summary.as_deref(),
        Some("The lexer unwraps the number parse in src/lexer.rs (line 27): 1..2 panics.")
    );
    assert_eq!(
        payload(&msgs, &all_cards[0].id).prompt,
        "Trace how parser-kit lexes numbers and find the code path that panics on the input `1..2`."
    );

    let tools: Vec<&str> = msgs
        .iter()
        .filter(|m| m.metadata.tool_call_id.is_some() && m.metadata.subagent.is_none())
        .map(|m| m.metadata.status.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(tools.len(), 2, "read_file and run_shell_command");
    assert!(
        tools.contains(&"failed") || tools.contains(&"error"),
        "{tools:?}"
    );
    assert!(
        laid.top().iter().any(|r| r == "group:2 tool calls"),
        "{:?}",
        laid.top()
    );
}

const TASK_OUTPUT: &str = "older/claude-code-2.0-taskoutput.jsonl";

/// docs/formats.md §8.5: Claude Code 2.0.x fetched a background agent's
/// result by polling `TaskOutput`; the answer after `--- RESULT ---`
/// settles the card (complete, its summary), which never reads running or
/// stalled in the finished file.
#[test]
fn a_claude_code_2_0_task_output_result_settles_its_background_card() {
    let import = import_any(&fixture(TASK_OUTPUT)).unwrap();
    assert_eq!(import.dialect, Dialect::ClaudeCode);
    assert_eq!(unreadable(&import.events), Vec::<String>::new());
    let msgs = messages(&import.events);
    let laid = LaidOut::new(import.events.clone());
    let expected = [
        (
            "Map the crate structure",
            "Three modules with one job each: lexer (tokens), parser (expression tree), eval (numbers).",
        ),
        (
            "Check error handling",
            "One reachable panic: digits.parse().unwrap() in src/lexer.rs:27 on 1..2.",
        ),
    ];
    let all_cards = cards(&msgs);
    assert_eq!(all_cards.len(), expected.len());
    for (description, summary) in expected {
        let m = all_cards
            .iter()
            .find(|m| m.metadata.subagent.as_ref().unwrap().description == description)
            .unwrap();
        let card = laid.card(&m.id);
        assert_eq!(card.status, RunState::Complete, "{description}");
        assert_eq!(
            card.result_summary.as_deref(),
            Some(summary),
            "{description}"
        );
        assert!(
            laid.chips(&m.id)
                .iter()
                .any(|c| c == "background:background"),
            "{description}"
        );
        assert!(
            !payload(&msgs, &m.id).result_text.contains("--- RESULT ---"),
            "{description}: only the answer"
        );
    }
}
