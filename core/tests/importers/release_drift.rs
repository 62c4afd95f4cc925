//! Release drift (docs/formats.md §8.5): Claude Code 2.1.337, pinned by the harness,
//! writes `api-request-route` records and adds `toolLimits`,
//! `turnPromptId`, `toolResultScreened` and `adviceNotes` to its records.
//! Each is read or skipped by a rule of the importer
//! (`claude_code::bookkeeping`), not left to the rule for unknown kinds;
//! the capture tests run on both releases (`captures`).

use crate::common::*;
use serde_json::Value;
use taskview_core::read::import::claude_code::bookkeeping::{is_bookkeeping, FIELDS_NOT_READ};
use taskview_core::read::import::import_any_with_files;
use taskview_testkit::captures::{captures, Capture};

const PINNED: &str = "claude-code-2.1.337";

/// The record types the Claude Code importer reads (whatever subtype).
const READ_TYPES: [&str; 6] = [
    "user",
    "assistant",
    "system",
    "progress",
    "queue-operation",
    "attachment",
];

/// Every record kind a 2.1.337 capture skips is a kind the importer reads
/// (an attachment or system record without conversation) or one it names
/// as bookkeeping; `api-request-route` is among them.
#[test]
fn every_kind_the_pinned_release_writes_is_read_or_skipped_by_rule() {
    let mut seen_route = false;
    for c in captures(PINNED) {
        let events = import_any_with_files(&c.session, &c.file_refs())
            .unwrap()
            .events;
        for (kind, _) in not_shown(&events) {
            let record_type = kind.split(':').next().unwrap();
            seen_route |= kind == "api-request-route";
            assert!(
                READ_TYPES.contains(&record_type) || is_bookkeeping(&kind),
                "{}: {kind} is left to the rule for unknown kinds",
                c.name
            );
        }
    }
    assert!(seen_route, "2.1.337 writes api-request-route records");
}

/// `c`'s session and files with `field` removed from every record.
fn without(c: &Capture, field: &str) -> (String, Vec<(String, String)>, usize) {
    let mut removed = 0;
    let mut strip = |text: &str| -> String {
        text.lines()
            .map(|line| match serde_json::from_str::<Value>(line) {
                Ok(mut v) => {
                    removed += remove_everywhere(&mut v, field);
                    v.to_string()
                }
                Err(_) => line.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let session = strip(&c.session);
    let files = c.files.iter().map(|(p, t)| (p.clone(), strip(t))).collect();
    (session, files, removed)
}

/// Removes `field` at any depth; how many it removed.
fn remove_everywhere(v: &mut Value, field: &str) -> usize {
    match v {
        Value::Object(map) => {
            let here = usize::from(map.remove(field).is_some());
            here + map
                .values_mut()
                .map(|x| remove_everywhere(x, field))
                .sum::<usize>()
        }
        Value::Array(items) => items.iter_mut().map(|x| remove_everywhere(x, field)).sum(),
        _ => 0,
    }
}

/// Each field the importer does not read is in the pinned release's files,
/// and taking it out of every record changes nothing on screen: it is
/// skipped, by rule. (`requestSessionId` is read as a fork's origin, tested
/// in `forks`.)
#[test]
fn the_new_fields_the_pinned_release_writes_change_nothing_on_screen() {
    for (field, why) in FIELDS_NOT_READ
        .iter()
        .filter(|(f, _)| *f != "requestSessionId")
    {
        assert!(!why.is_empty());
        let mut found = 0;
        for c in captures(PINNED) {
            let (session, files, removed) = without(&c, field);
            if removed == 0 {
                continue;
            }
            found += removed;
            let refs: Vec<(&str, &str)> = files
                .iter()
                .map(|(p, t)| (p.as_str(), t.as_str()))
                .collect();
            let with = import_any_with_files(&c.session, &c.file_refs())
                .unwrap()
                .events;
            let stripped = import_any_with_files(&session, &refs).unwrap().events;
            assert_eq!(messages(&with), messages(&stripped), "{}: {field}", c.name);
        }
        assert!(found > 0, "2.1.337 writes {field}");
    }
}
