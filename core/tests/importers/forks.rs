//! Forked sessions (docs/behaviour.md §4): the `session-fork`
//! captures, a session resumed by id as a fork (`--fork-session`, Codex
//! `exec fork`) whose new session starts with the first one's records
//! (captures/scenarios/session-fork.mjs). Run 1 launched a background
//! reviewer; the fork asks a foreground helper.

use crate::common::*;
use taskview_core::model::message::Message;
use taskview_core::model::status::{is_inherited, is_running_subagent};
use taskview_core::read::import::{fork_origin, import_any_with_files};
use taskview_testkit::captures::{capture, Capture};

const FORKS: [&str; 3] = [
    "claude-code-2.1.337/session-fork",
    "qwen-code-0.24.4/session-fork",
    "codex-0.171.0/session-fork",
];

/// Run 1's prompt: the title of the session the fork came from.
const ORIGIN_TITLE: &str = "Review the parser-kit lexer with one background reviewer.";
/// The fork's own prompt.
const FORK_PROMPT: &str =
    "In a fork of this review, also ask a helper whether the evaluator can divide by zero.";

fn card<'a>(msgs: &'a [Message], description: &str) -> &'a Message {
    cards(msgs)
        .into_iter()
        .find(|m| m.metadata.subagent.as_ref().unwrap().description == description)
        .unwrap_or_else(|| panic!("no card {description:?}"))
}

/// The card of the scripted agent `key` (Codex cards are described by
/// their prompt).
fn card_of_key<'a>(c: &Capture, msgs: &'a [Message], key: &str) -> &'a Message {
    let agents = c.agents();
    let agent = agents.iter().find(|a| a["key"] == key).unwrap();
    let description = agent["description"].as_str().unwrap();
    let found = cards(msgs)
        .into_iter()
        .find(|m| m.metadata.subagent.as_ref().unwrap().description == description);
    found.unwrap_or_else(|| {
        let prompt = cards(msgs).into_iter().find(|m| {
            let sa = m.metadata.subagent.as_ref().unwrap();
            key == "lexer-review" && sa.prompt.contains("src/lexer.rs")
                || key == "evaluator-helper" && sa.prompt.contains("src/eval.rs")
        });
        prompt.unwrap_or_else(|| panic!("{}: no card for {key}", c.name))
    })
}

/// The fork opened as a folder is: a quiet `Forked from <title> · <time>`
/// row where the copied records end (after run 1's card and report, before
/// the fork's own prompt); the run it inherited is its origin's, its
/// transcript read from the origin's folder; its own run is its own.
#[test]
fn a_fork_shows_where_the_copies_end_and_reads_its_inherited_runs_from_its_origin() {
    for name in FORKS {
        let c = capture(name);
        let origin =
            fork_origin(&c.session).unwrap_or_else(|| panic!("{name}: the fork is chosen"));
        let events = import_any_with_files(&c.session, &c.file_refs())
            .unwrap()
            .events;
        let msgs = messages(&events);
        let fork_rows: Vec<&Message> = msgs
            .iter()
            .filter(|m| m.metadata.raw_str("event") == Some("fork"))
            .collect();
        assert_eq!(fork_rows.len(), 1, "{name}: one fork row");
        let row = fork_rows[0];
        let prefix = format!("Forked from {ORIGIN_TITLE} · ");
        assert!(
            row.content.starts_with(&prefix),
            "{name}: {:?}",
            row.content
        );
        assert!(row.content.ends_with(" UTC"), "{name}: with the time");
        let at = |m: &Message| msgs.iter().position(|x| x.id == m.id).unwrap();
        let inherited = card_of_key(&c, &msgs, "lexer-review");
        let own = card_of_key(&c, &msgs, "evaluator-helper");
        let prompt = msgs
            .iter()
            .find(|m| m.content == FORK_PROMPT)
            .unwrap_or_else(|| panic!("{name}: the fork's prompt"));
        assert!(
            at(inherited) < at(row) && at(row) < at(prompt) && at(prompt) < at(own),
            "{name}"
        );
        assert!(is_inherited(inherited), "{name}");
        assert_eq!(
            inherited.metadata.raw_str("inherited_from"),
            Some(origin.as_str()),
            "{name}"
        );
        assert!(!is_inherited(own), "{name}: its own run");
        let laid = LaidOut::new(events);
        for m in [inherited, own] {
            let face = laid.card(&m.id);
            assert_eq!(
                face.child_count_label.as_deref(),
                Some("1 tool call"),
                "{name}: its transcript"
            );
            assert!(!face.transcript_not_loaded, "{name}");
        }
    }
}

/// Opened by URL, the fork's inherited run's transcript is fetched from
/// its origin's folder (`<origin>/subagents/…`, qwen-code's
/// `../subagents/<origin>/…`), round after round as any companion.
#[test]
fn a_fork_by_url_fetches_its_inherited_runs_transcript_from_its_origins_folder() {
    for name in &FORKS[..2] {
        let c = capture(name);
        let origin = fork_origin(&c.session).unwrap();
        let found = super::captures::fetched_by_url(&c);
        assert!(
            found
                .iter()
                .any(|(n, _)| n.contains(&origin) && n.ends_with(".jsonl")),
            "{name}: {:?}",
            found.iter().map(|(n, _)| *n).collect::<Vec<_>>()
        );
        let events = import_any_with_files(&c.session, &found).unwrap().events;
        let msgs = messages(&events);
        let inherited = card(&msgs, "Review the lexer");
        assert_eq!(
            LaidOut::new(events)
                .card(&inherited.id)
                .child_count_label
                .as_deref(),
            Some("1 tool call"),
            "{name}"
        );
    }
}

/// Nothing is counted twice: cut where the reviewer still ran (before its
/// notification), the origin counts it running and the fork, whose copy
/// of it is the origin's run, does not.
#[test]
fn a_run_a_fork_inherited_is_counted_running_by_its_origin_only() {
    for name in &FORKS[..2] {
        let c = capture(name);
        let origin_id = fork_origin(&c.session).unwrap();
        let before_notification = |text: &str| -> String {
            text.lines()
                .take_while(|l| !l.contains("<task-id>"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let fork = before_notification(&c.session);
        let events = import_any_with_files(&fork, &[]).unwrap().events;
        let msgs = messages(&events);
        let copy = card(&msgs, "Review the lexer");
        assert!(is_inherited(copy), "{name}");
        assert!(
            !is_running_subagent(copy, None),
            "{name}: the fork does not count it"
        );
        // The origin, cut at the same place, does.
        let origin = taskview_testkit::fixtures::fixtures_under(&format!("captures/{name}/"))
            .find(|(p, _)| p.ends_with(&format!("{origin_id}.jsonl")) && !p.contains("/subagents/"))
            .map(|(_, t)| t)
            .unwrap_or_else(|| panic!("{name}: the origin's file"));
        let events = import_any_with_files(&before_notification(origin), &[])
            .unwrap()
            .events;
        let msgs = messages(&events);
        let run = card(&msgs, "Review the lexer");
        assert!(!is_inherited(run), "{name}");
        assert!(
            is_running_subagent(run, None),
            "{name}: its origin counts it"
        );
    }
}
