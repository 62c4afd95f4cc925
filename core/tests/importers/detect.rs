//! Dialect detection and `import_any` (issue: "detection from content").

use crate::common::*;
use taskview_core::read::import::{
    detect, import_any, import_any_with_files, Dialect, ImportError,
};

#[test]
fn each_fixture_is_detected_from_its_content() {
    for (path, dialect) in [
        ("dialects/acp-frames.jsonl", Dialect::Acp),
        ("dialects/claude-code-session.jsonl", Dialect::ClaudeCode),
        ("dialects/gadget-turns.json", Dialect::Gadget),
        ("session-review-wave.json", Dialect::Kandev),
    ] {
        let text = fixture(path);
        assert_eq!(detect(&text), Some(dialect), "{path}");
        let import = import_any(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(import.dialect, dialect);
        assert!(
            !cards(&messages(&import.events)).is_empty(),
            "{path} has subagent cards"
        );
        assert!(
            unreadable(&import.events).is_empty(),
            "{path} reads cleanly"
        );
    }
}

#[test]
fn detection_ignores_noise_lines_before_the_records() {
    let text = format!("garbage line\n\n{}", fixture("dialects/acp-frames.jsonl"));
    let import = import_any(&text).unwrap();
    assert_eq!(import.dialect, Dialect::Acp);
    assert_eq!(unreadable(&import.events), ["garbage line"]);
}

#[test]
fn child_files_reach_the_claude_code_importer() {
    let text = fixture("dialects/claude-code-session.jsonl");
    let (side, main): (Vec<&str>, Vec<&str>) = text
        .lines()
        .partition(|l| l.contains("\"isSidechain\":true"));
    let side = side.join("\n");
    let import = import_any_with_files(
        &main.join("\n"),
        &[("subagents/agent-a3f9c2e1b7d40c5e8.jsonl", &side)],
    )
    .unwrap();
    assert_eq!(
        children(&messages(&import.events), "toolu_01Kx7TaskBilling3qZ").len(),
        3
    );
}

#[test]
fn nothing_matching_is_an_error_naming_every_format_tried() {
    let err = import_any("Just some prose.\nNot a transcript.").unwrap_err();
    assert_eq!(
        err,
        ImportError::Unrecognized {
            tried: Dialect::ALL.to_vec()
        }
    );
    let text = err.to_string();
    for name in [
        "kandev message list",
        "ACP frames",
        "Claude Code session JSONL",
        "gadget turns",
    ] {
        assert!(text.contains(name), "{text}");
    }
    assert_eq!(import_any("").unwrap_err(), ImportError::Empty);
}
