//! Issue 34's stories in `captures/`, opened as a user opens them: every
//! report shape the `reports` scenario scripts (a fence, a table, a heading
//! then bold, mixed scripts, a 20,000-character line, markup meant to
//! inject) is a completed card whose one-line summary is the one SPEC.md
//! §3.1 item 6 gives for the scripted report. The expectations below come
//! from `captures/scenarios/reports.mjs`, not from taskview's output.

use crate::common::*;
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
