//! The `captures/` stories (docs/formats.md §9), opened as a user opens them: every
//! report shape the `reports` scenario scripts (a fence, a table, a heading
//! then bold, mixed scripts, a 20,000-character line, markup meant to
//! inject) is a completed card whose one-line summary is the one docs/behaviour.md
//! §3.1 item 6 gives for the scripted report. The expectations below come
//! from `captures/scenarios/reports.mjs`, not from taskview's output.

use crate::common::*;
use taskview_core::model::message::{Author, Message, MessageType};
use taskview_core::read::import::import_any_with_files;
use taskview_testkit::captures::capture;

/// The captures of the `reports` story.
const REPORTS: [&str; 2] = ["claude-code-2.1.332/reports", "qwen-code-0.24.4/reports"];

/// Each scripted report's description and the summary line its script gives.
fn expected_summaries() -> Vec<(&'static str, String)> {
    vec![
        (
            "Show the lexer error",
            r#"parse error at 1:3: unexpected ".""#.to_string(),
        ),
        (
            "Tabulate the evaluator results",
            "| input | result |".to_string(),
        ),
        (
            "Find the panics",
            "Two panics remain in the lexer.".to_string(),
        ),
        (
            "Summarize in four scripts",
            "Résumé: 解析器は正しい — парсер исправен — المحلل سليم".to_string(),
        ),
        (
            "Write one very long line",
            "long ".repeat(4000).trim_end().to_string(),
        ),
        (
            "Quote hostile markup",
            r#"<img src=x onerror="window.__taskviewInjected=1">Markup meant to inject"#
                .to_string(),
        ),
    ]
}

#[test]
fn every_report_shape_is_a_completed_card_whose_summary_line_is_as_scripted() {
    for name in REPORTS {
        let c = capture(name);
        let import = import_any_with_files(&c.session, &c.file_refs()).expect("imports");
        assert!(unreadable(&import.events).is_empty(), "{name}");
        let msgs = messages(&import.events);
        for (description, summary) in expected_summaries() {
            let card = cards(&msgs)
                .into_iter()
                .find(|m| m.metadata.subagent.as_ref().unwrap().description == description)
                .unwrap_or_else(|| panic!("{name}: no card {description:?}"));
            let task = card.metadata.subagent.as_ref().unwrap();
            assert_eq!(task.status, "completed", "{name}: {description}");
            assert_eq!(
                summary_line(task).as_deref(),
                Some(summary.as_str()),
                "{name}: {description}"
            );
        }
    }
}

/// The `api-errors` story: the main agent's first request is overloaded
/// twice (HTTP 529, retried), then answered; of its two subagents one
/// reports and one gets 529 on every request and fails.
#[test]
fn an_overloaded_api_is_one_retry_marker_and_the_subagent_that_never_recovers_fails() {
    for name in [
        "claude-code-2.1.332/api-errors",
        "qwen-code-0.24.4/api-errors",
    ] {
        let c = capture(name);
        let import = import_any_with_files(&c.session, &c.file_refs()).expect("imports");
        assert!(unreadable(&import.events).is_empty(), "{name}");
        let msgs = messages(&import.events);
        let card = |description: &str| {
            cards(&msgs)
                .into_iter()
                .find(|m| m.metadata.subagent.as_ref().unwrap().description == description)
                .and_then(|m| m.metadata.subagent.clone())
                .unwrap_or_else(|| panic!("{name}: no card {description:?}"))
        };
        let steady = card("Summarize the README");
        assert_eq!(steady.status, "completed", "{name}");
        assert_eq!(
            summary_line(&steady).as_deref(),
            Some("parser-kit parses and evaluates arithmetic expressions."),
            "{name}"
        );
        assert_eq!(card("Collect usage examples").status, "failed", "{name}");
        let retries: Vec<(&str, Option<&str>)> = msgs
            .iter()
            .filter(|m| m.metadata.raw_str("event") == Some("api_retry"))
            .map(|m| (m.content.as_str(), m.turn_id.as_deref()))
            .collect();
        if name.starts_with("claude-code") {
            // Claude Code records the main agent's retries (docs/formats.md
            // part A), not a subagent's.
            assert_eq!(
                retries,
                [("2 retries · 529 overloaded", Some("turn-1"))],
                "{name}"
            );
        } else {
            // qwen-code records each retry burst as telemetry, a
            // subagent's only: one marker, in the failing card.
            let doomed = cards(&msgs)
                .into_iter()
                .find(|m| {
                    m.metadata.subagent.as_ref().unwrap().description == "Collect usage examples"
                })
                .unwrap();
            let marker: Vec<&Message> = msgs
                .iter()
                .filter(|m| m.metadata.raw_str("event") == Some("api_retry"))
                .collect();
            assert_eq!(marker.len(), 1, "{name}: {retries:?}");
            assert_eq!(
                marker[0].metadata.parent_tool_call_id, doomed.metadata.tool_call_id,
                "{name}: in the failing card"
            );
            assert!(
                marker[0].content.ends_with(" retries · 529 overloaded"),
                "{name}: {retries:?}"
            );
        }
        assert!(
            msgs.iter()
                .all(|m| m.author != Author::User || !m.content.contains("529")),
            "{name}: an error is no prompt"
        );
    }
}

/// The `interrupted` story: the CLI gets SIGINT while both subagents wait
/// for a reply. Nothing settles them: opened as a file nobody writes any
/// more, each card reads `interrupted · no result recorded`, without a
/// spinner, and the file's own clock (its newest record) is the one that
/// counts, not the reader's.
#[test]
fn a_cli_interrupted_mid_wave_reads_interrupted_in_a_still_file() {
    use taskview_core::screen::viewer::Viewer;
    use taskview_core::state::layout::RowKey;
    for name in [
        "claude-code-2.1.332/interrupted",
        "qwen-code-0.24.4/interrupted",
    ] {
        let c = capture(name);
        let import = import_any_with_files(&c.session, &c.file_refs()).expect("imports");
        assert!(unreadable(&import.events).is_empty(), "{name}");
        let msgs = messages(&import.events);
        let mut viewer = Viewer::new();
        viewer.set_still(true);
        viewer.tick(0);
        viewer.apply(import.events.clone());
        // A day later, the file reads the same.
        viewer.tick(24 * 60 * 60 * 1000);
        for description in ["Profile the lexer", "Audit the tests"] {
            let card = cards(&msgs)
                .into_iter()
                .find(|m| m.metadata.subagent.as_ref().unwrap().description == description)
                .unwrap_or_else(|| panic!("{name}: no card {description:?}"));
            let face = viewer
                .row(&RowKey::Message(card.id.clone()))
                .and_then(|r| r.card().cloned())
                .unwrap_or_else(|| panic!("{name}: {description} is not a row"))
                .card;
            let mark = face
                .lifecycle
                .unwrap_or_else(|| panic!("{name}: {description}"));
            assert_eq!(mark.text, "interrupted · no result recorded", "{name}");
            assert!(!mark.spins(), "{name}: no spinner");
        }
    }
}

/// The `resumed` story: one session over four runs (a wave, `/compact` or
/// qwen's `/compress`, a wave resumed by id, a continuation). Only what the
/// user typed is a prompt; the compaction (with the scripted summary) and
/// Claude Code's `/compact` command are one quiet row each; qwen-code's two
/// resumes and Copilot CLI's three (it marks the compacting run too) are
/// `Resumed` rows (Claude Code writes no marker); both waves' cards stay,
/// each as scripted.
#[test]
fn a_session_resumed_compacted_and_continued_reads_as_one_transcript() {
    for (name, resumes, commands) in [
        ("claude-code-2.1.332/resumed", 0, 1),
        ("qwen-code-0.24.4/resumed", 2, 0),
        ("copilot-1.0.102/resumed", 3, 0),
    ] {
        reads_as_one_session(name, true, resumes, commands);
    }
}

/// The `continued` story (`resumed` without the compaction, for the CLIs
/// that cannot compact headless): three runs read as one transcript with
/// three prompts and both waves' cards. A `Resumed` row stands where the
/// CLI writes a marker: Copilot CLI's `session.resume` (twice), qwen-code's
/// reminder (each resume that restores the first wave's agent); Claude
/// Code, Gemini CLI, Codex, OpenCode and Kimi Code write none.
#[test]
fn a_session_resumed_and_continued_without_compaction_reads_as_one_transcript() {
    for (name, resumes) in [
        ("claude-code-2.1.332/continued", 0),
        ("qwen-code-0.24.4/continued", 2),
        ("copilot-1.0.102/continued", 2),
        ("gemini-cli-0.61.0/continued", 0),
        ("codex-0.171.0/continued", 0),
        ("opencode-1.18.33/continued", 0),
        ("kimi-code-2.1.0/continued", 0),
    ] {
        reads_as_one_session(name, false, resumes, 0);
    }
}

/// Capture `name`, a session over several runs, reads as one transcript:
/// the three prompts the user typed, one compaction row (with the scripted
/// summary) when `compacted`, `commands` command rows (`/compact`),
/// `resumes` `Resumed` rows, both waves' cards as scripted, and run 4's
/// answer last.
fn reads_as_one_session(name: &str, compacted: bool, resumes: usize, commands: usize) {
    let c = capture(name);
    let import = import_any_with_files(&c.session, &c.file_refs()).expect("imports");
    assert!(unreadable(&import.events).is_empty(), "{name}");
    let msgs = messages(&import.events);
    let prompts: Vec<&str> = msgs
        .iter()
        .filter(|m| m.author == Author::User && m.metadata.parent_tool_call_id.is_none())
        // OpenCode's `run` records its message in quotes, as the model gets it.
        .map(|m| m.content.trim_matches('"'))
        .collect();
    assert_eq!(
        prompts,
        [
            "Review the parser-kit lexer with one reviewer.",
            "Now review the parser-kit evaluator with a second reviewer.",
            "Which of the two findings should be fixed first?"
        ],
        "{name}"
    );
    let events = |event: &str| -> Vec<&Message> {
        msgs.iter()
            .filter(|m| m.metadata.raw_str("event") == Some(event))
            .collect()
    };
    let compaction = events("compaction");
    assert_eq!(compaction.len(), usize::from(compacted), "{name}");
    if let [compaction] = compaction.as_slice() {
        assert_eq!(
            compaction.content, "Conversation compacted · manual",
            "{name}"
        );
        let summary = compaction.metadata.raw_str("detail").unwrap_or("");
        assert!(
            summary.contains("Primary request: Review the parser-kit lexer with one reviewer."),
            "{name}: {summary}"
        );
        assert!(!summary.contains("system-reminder"), "{name}");
        assert!(
            !summary.contains("<overview>") && !summary.contains("<summary>"),
            "{name}: no section tags: {summary}"
        );
    }
    let command = events("command");
    assert_eq!(command.len(), commands, "{name}");
    if let [command] = command.as_slice() {
        assert_eq!(command.content, "/compact");
        assert_eq!(command.metadata.raw_str("detail"), Some("Compacted"));
    }
    let resumed = events("resume");
    assert_eq!(resumed.len(), resumes, "{name}");
    assert!(
        resumed.iter().all(|r| r.content.starts_with("Resumed · ")),
        "{name}"
    );
    // One card per wave, in launch order (Gemini CLI and Codex describe a
    // card by its prompt, the others by the scripted description).
    let waves: Vec<_> = cards(&msgs)
        .into_iter()
        .filter_map(|m| m.metadata.subagent.clone())
        .collect();
    assert_eq!(waves.len(), 2, "{name}: one card per wave");
    for (task, (reviews, line)) in waves.iter().zip([
        ("lexer", "lex unwraps f64::from_str: 1..2 panics."),
        ("eval", "Division by zero returns inf instead of an error."),
    ]) {
        assert!(
            task.description.contains(reviews) || task.prompt.contains(reviews),
            "{name}: the {reviews} reviewer: {task:?}"
        );
        assert_eq!(task.status, "completed", "{name}: {reviews}");
        assert_eq!(
            summary_line(task).as_deref(),
            Some(line),
            "{name}: {reviews}"
        );
    }
    let answers: Vec<&str> = msgs
        .iter()
        .filter(|m| m.author == Author::Agent && m.metadata.parent_tool_call_id.is_none())
        .filter(|m| m.kind == MessageType::Message)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(
        answers.last().copied(),
        Some("Fix the lexer first: a panic is worse than a surprising value."),
        "{name}: the last run's answer ends the transcript"
    );
}
