//! OpenCode sessions (docs/formats.md §10), as the harness
//! captured OpenCode 1.18.33: each scenario's `opencode export` of its root
//! session, with its child sessions' exports beside it. What every CLI's
//! captures must read as (no unreadable row, no wrapper text, each scripted
//! subagent a card with its face) is checked in `captures.rs`; here is what
//! is OpenCode's own.

use crate::common::*;
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::model::status::RunState;
use taskview_core::read::import::folder::companion_path;
use taskview_core::read::import::{
    import_any, import_any_with_files, opencode, wanted_companions, Dialect,
};
use taskview_core::screen::view::sessions::{
    chosen, session_choices, FileFacts, FolderOpening, TITLE_HEAD_BYTES,
};
use taskview_testkit::captures::{captures, Capture};
use taskview_testkit::fixtures::fixtures_under;

/// The OpenCode release the harness captured.
const OPENCODE: &str = "opencode-1.18.33";

/// Capture `opencode-<version>/<scenario>`: its root session's export,
/// the other sessions' exports as its files.
fn capture(scenario: &str) -> Capture {
    taskview_testkit::captures::capture(&format!("{OPENCODE}/{scenario}"))
}

/// Every captured scenario.
fn all() -> Vec<Capture> {
    captures(OPENCODE)
}

fn import(c: &Capture) -> Vec<Event> {
    let import = import_any_with_files(&c.session, &c.file_refs())
        .unwrap_or_else(|e| panic!("{}: {e}", c.name));
    assert_eq!(import.dialect, Dialect::OpenCode, "{}", c.name);
    import.events
}

fn card_for<'a>(c: &Capture, msgs: &'a [Message], description: &str) -> &'a Message {
    let found: Vec<&Message> = cards(msgs)
        .into_iter()
        .filter(|m| m.metadata.subagent.as_ref().unwrap().description == description)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{}: one card described {description:?}",
        c.name
    );
    found[0]
}

/// A background run's notification (`<task id=…>`, which the shared
/// capture tests keep off the screen) is no user row: the user typed one
/// prompt a run.
#[test]
fn notifications_of_an_opencode_capture_are_no_user_rows() {
    for c in all() {
        let msgs = messages(&import(&c));
        let prompts = msgs.iter().filter(|m| m.author.as_str() == "user").count();
        let runs = 1 + c.manifest["command"]["later"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(prompts, runs, "{}: the user typed one prompt a run", c.name);
    }
}

/// The scripted reports are the cards' results: the first line after the
/// `## Summary` heading is what the scenario wrote.
#[test]
fn the_nested_capture_is_three_deep_with_the_scripted_reports() {
    let c = capture("nested");
    let msgs = messages(&import(&c));
    let checker = card_for(&c, &msgs, "Confirm the lexer panic");
    let task = checker.metadata.subagent.as_ref().unwrap();
    assert!(
        task.result_text
            .starts_with("## Summary\n\nConfirmed: `\"1..2\".parse::<f64>()` is an `Err`"),
        "{:?}",
        task.result_text
    );
    let depth = |m: &Message| {
        let mut d = 1;
        let mut at = m.metadata.parent_tool_call_id.clone();
        while let Some(p) = at {
            d += 1;
            at = by_id(&msgs, &p).metadata.parent_tool_call_id.clone();
        }
        d
    };
    assert_eq!(depth(checker), 3);
}

/// Without its child sessions' exports, an export still shows every card
/// of its own session, settled, each noting its transcript is not loaded.
#[test]
fn a_root_export_alone_shows_its_cards_with_their_transcripts_not_loaded() {
    let c = capture("parallel-wave");
    let import = import_any(&c.session).unwrap();
    let events = import.events;
    let msgs = messages(&events);
    let laid = LaidOut::new(events.clone());
    assert_eq!(cards(&msgs).len(), 4);
    for m in cards(&msgs) {
        let card = laid.card(&m.id);
        assert_eq!(
            card.status,
            RunState::Complete,
            "{}",
            card.description_title
        );
        assert!(card.transcript_not_loaded, "{}", card.description_title);
    }
}

/// Opened by URL, the file view fetches what the exports name, round
/// after round, down to the depth-3 session.
#[test]
fn an_opencode_export_names_its_child_sessions_exports_in_rounds() {
    let c = capture("nested");
    let mut found: Vec<(&str, &str)> = Vec::new();
    for _ in 0..6 {
        let wanted = wanted_companions(&c.session, "", &found);
        let fetched: Vec<(&str, &str)> = c
            .file_refs()
            .into_iter()
            .filter(|(n, _)| wanted.iter().any(|w| w == n))
            .collect();
        if fetched.is_empty() {
            break;
        }
        found.extend(fetched);
    }
    assert_eq!(found.len(), c.files.len(), "every descendant session");
    assert!(opencode::exports_beside(
        "https://h/x/ses_a.json?raw=1",
        &c.session
    ));
    assert!(!opencode::exports_beside(
        "https://h/x/ses_a.jsonl",
        &c.session
    ));
    let leaf = c
        .files
        .iter()
        .find(|(_, t)| t.contains("Confirm the lexer panic (@explore"))
        .unwrap();
    assert!(
        !opencode::exports_beside("https://h/x/leaf.json", &leaf.1),
        "a leaf session names none"
    );
    assert_eq!(
        opencode::companion_paths(&c.session, &c.file_refs()),
        Vec::<String>::new()
    );
}

/// The first `bytes` of `text`, as the session chooser reads a file's head
/// (cut at a character).
fn head(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A capture's `exports/` folder dropped on the file view (the folder the
/// user exported each session into): the session chooser, from the files'
/// paths and their first bytes, opens the root session at once with every
/// other export as its files, and it reads as by URL: every scripted
/// subagent a card.
#[test]
fn a_dropped_folder_of_exports_opens_the_root_session_with_its_child_sessions() {
    for c in all() {
        let dropped: Vec<(&str, &str)> =
            fixtures_under(&format!("captures/{}/exports/", c.name)).collect();
        let paths: Vec<String> = dropped
            .iter()
            .map(|(p, _)| format!("exports/{}", p.rsplit('/').next().unwrap()))
            .collect();
        let facts: Vec<FileFacts> = dropped
            .iter()
            .zip(&paths)
            .map(|((_, text), path)| FileFacts {
                path,
                size: text.len() as u64,
                modified_ms: 1_796_532_820_000.0,
            })
            .collect();
        let found = session_choices(&facts, 1_796_532_900_000.0);
        assert_eq!(found.len(), dropped.len(), "{}: each export", c.name);
        let titled = found
            .into_iter()
            .map(|mut choice| {
                choice.titled(head(
                    dropped[choice.files.session].1,
                    TITLE_HEAD_BYTES as usize,
                ));
                choice
            })
            .collect();
        let FolderOpening::One(opened) = chosen(titled) else {
            panic!("{}: one session opens at once", c.name);
        };
        let session = &paths[opened.files.session];
        assert_eq!(
            dropped[opened.files.session].1, c.session,
            "{}: the root",
            c.name
        );
        let mut files: Vec<(String, &str)> = opened
            .files
            .companions
            .iter()
            .map(|&at| (companion_path(session, &paths[at]), dropped[at].1))
            .collect();
        files.sort();
        let mut expected: Vec<(String, &str)> = c
            .files
            .iter()
            .map(|(n, t)| (n.clone(), t.as_str()))
            .collect();
        expected.sort();
        assert_eq!(files, expected, "{}: every other export, by name", c.name);
        let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        let events = import_any_with_files(dropped[opened.files.session].1, &refs)
            .unwrap()
            .events;
        assert_eq!(
            cards(&messages(&events)).len(),
            c.agents().len(),
            "{}: every scripted subagent a card",
            c.name
        );
    }
}

/// Parts with no conversation are skipped and counted, never rows.
#[test]
fn step_parts_are_counted_not_shown() {
    let c = capture("foreground");
    let events = import(&c);
    let counted = not_shown(&events);
    assert!(
        counted.iter().any(|(k, n)| k == "step-start" && *n > 0),
        "{counted:?}"
    );
    assert!(
        counted.iter().any(|(k, n)| k == "step-finish" && *n > 0),
        "{counted:?}"
    );
}
