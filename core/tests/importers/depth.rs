//! Depth 3 with background launches inside subagents (docs/formats.md §9): the
//! `deep-wave` captures. Expectations come from the scenario's script
//! (`captures/scenarios/deep-wave.mjs`, its manifest's `holds`), never from
//! taskview's output.

use crate::common::*;
use taskview_core::model::message::MessageType;
use taskview_core::model::status::RunState;
use taskview_core::read::import::folder::session_name;
use taskview_core::read::import::{import_any_with_files, wanted_companions};
use taskview_testkit::captures::{capture, Capture};

const CLAUDE_DEEP_WAVE: &str = "claude-code-2.1.332/deep-wave";

/// The first line of each agent's scripted report, by description.
const REPORTS: [(&str, &str); 9] = [
    (
        "Lead the lexer audit",
        "Lexer lead: one panic, `digits.parse().unwrap()` on `1..2`.",
    ),
    (
        "Check number lexing",
        "Number lexing panics on `1..2`: `unwrap` at line 27.",
    ),
    ("Check identifier lexing", "Identifier lexing cannot panic."),
    (
        "Trace the lexer entry points",
        "Lexer worker: `lex` is the only entry point; it reaches the `unwrap`.",
    ),
    (
        "Confirm the float parse error",
        "Confirmed: `\"1..2\".parse::<f64>()` is an `Err`.",
    ),
    (
        "Lead the parser audit",
        "Parser lead: no panics; every bad sequence becomes `ParseError`.",
    ),
    (
        "Walk the parser paths",
        "Parser worker: every path returns a `Result`.",
    ),
    (
        "Check the error type",
        "`ParseError` covers every failure; the prober agrees.",
    ),
    (
        "Probe the atom rule",
        "The atom rule maps a missing token to `UnexpectedEnd`.",
    ),
];

/// The outline depth (0 = top level) of each card, by its message id.
fn card_depths(laid: &LaidOut) -> Vec<(String, usize)> {
    laid.outline()
        .iter()
        .filter_map(|line| {
            let trimmed = line.trim_start();
            let id = trimmed.strip_prefix("card:")?;
            Some((id.to_string(), (line.len() - trimmed.len()) / 2))
        })
        .collect()
}

fn imported(c: &Capture) -> (Vec<taskview_core::model::message::Message>, LaidOut) {
    let events = import_any_with_files(&c.session, &c.file_refs())
        .unwrap()
        .events;
    (messages(&events), LaidOut::new(events))
}

/// docs/formats.md §9: every agent of the tree is a card at its scripted depth, under
/// its scripted parent, settled with its scripted answer.
#[test]
fn a_depth_3_tree_with_background_launches_inside_subagents_renders_whole() {
    let c = capture(CLAUDE_DEEP_WAVE);
    let (msgs, laid) = imported(&c);
    let depths = card_depths(&laid);
    assert_eq!(
        depths.len(),
        c.agents().len(),
        "one card per scripted agent"
    );
    assert_eq!(c.agents().len(), REPORTS.len());
    for agent in c.agents() {
        let description = agent["description"].as_str().unwrap();
        let card = cards(&msgs)
            .into_iter()
            .find(|m| m.metadata.subagent.as_ref().unwrap().description == description)
            .unwrap_or_else(|| panic!("a card for {description:?}"));
        let depth = depths.iter().find(|(id, _)| *id == card.id).unwrap().1;
        assert_eq!(
            depth + 1,
            agent["depth"].as_u64().unwrap() as usize,
            "{description}: depth"
        );
        let face = laid.card(&card.id);
        assert_eq!(face.status, RunState::Complete, "{description}");
        let report = REPORTS.iter().find(|(d, _)| *d == description).unwrap().1;
        assert_eq!(
            payload(&msgs, &card.id).result_text.lines().next(),
            Some(report),
            "{description}: the scripted answer"
        );
    }
}

/// docs/behaviour.md §1: a background agent launched inside a subagent delivers its
/// result as a notification in that subagent's file (and Claude Code queues
/// it in the main file too, before the launch is read): it settles the
/// card and is never a row of the main conversation.
#[test]
fn a_nested_background_agents_notification_settles_its_card_and_is_no_row() {
    let c = capture(CLAUDE_DEEP_WAVE);
    let (msgs, _) = imported(&c);
    let nested_background: Vec<&str> = c
        .agents()
        .into_iter()
        .filter(|a| a["depth"].as_u64() > Some(1))
        .filter(|a| a["launch"].as_str().unwrap().starts_with("background"))
        .map(|a| a["description"].as_str().unwrap())
        .collect();
    assert_eq!(nested_background.len(), 4, "the script launches four");
    let statuses: Vec<&str> = msgs
        .iter()
        .filter(|m| m.kind == MessageType::Status)
        .map(|m| m.content.as_str())
        .collect();
    for description in nested_background {
        assert!(
            statuses.iter().all(|s| !s.contains(description)),
            "{description}: no status row, got {statuses:?}"
        );
    }
}

/// The same capture read with the sidecars left out (a file opened with
/// only its transcripts): the tree still renders whole, each nested result
/// applied where it arrives (the parent subagent's file).
#[test]
fn a_nested_notification_is_applied_where_it_arrives_without_sidecars() {
    let c = capture(CLAUDE_DEEP_WAVE);
    let files: Vec<(&str, &str)> = c
        .file_refs()
        .into_iter()
        .filter(|(name, _)| !name.ends_with(".meta.json"))
        .collect();
    let events = import_any_with_files(&c.session, &files).unwrap().events;
    let msgs = messages(&events);
    let laid = LaidOut::new(events);
    assert_eq!(card_depths(&laid).len(), REPORTS.len());
    for m in cards(&msgs) {
        let face = laid.card(&m.id);
        assert_eq!(
            face.status,
            RunState::Complete,
            "{:?}",
            face.description_title
        );
        // Every nested run's own transcript is attached: its child count is
        // the tool calls its script makes.
        let description = &m.metadata.subagent.as_ref().unwrap().description;
        let agent = c
            .agents()
            .into_iter()
            .find(|a| a["description"] == description.as_str())
            .unwrap();
        let calls: u64 = agent["actions"]
            .as_object()
            .map(|a| a.values().filter_map(serde_json::Value::as_u64).sum())
            .unwrap_or(0);
        assert_eq!(
            face.child_count_label,
            Some(taskview_core::screen::view::format::count_label(
                calls,
                "tool call",
                "tool calls"
            )),
            "{description}"
        );
    }
}

/// docs/formats.md §9: qwen-code refuses a nested `run_in_background: true`
/// launch with an error result and writes no transcript for it. Each such
/// launch the script asks for is a failed card with the refusal as its
/// summary and no child; what a refused agent would have launched never
/// exists; every other agent is complete at its scripted depth.
#[test]
fn a_nested_background_launch_qwen_code_refuses_is_a_failed_card() {
    let c = capture("qwen-code-0.24.4/deep-wave");
    let (msgs, laid) = imported(&c);
    let depths = card_depths(&laid);
    let agents = c.agents();
    let refused = |a: &serde_json::Value| {
        a["depth"].as_u64() > Some(1) && a["launch"].as_str().unwrap().starts_with("background")
    };
    let parent_refused =
        |a: &serde_json::Value| agents.iter().any(|p| p["key"] == a["parent"] && refused(p));
    let launched: Vec<_> = agents.iter().filter(|a| !parent_refused(a)).collect();
    assert_eq!(launched.len(), 8, "the prober's parent was refused");
    assert_eq!(depths.len(), launched.len(), "one card per launch");
    for agent in launched {
        let description = agent["description"].as_str().unwrap();
        let card = cards(&msgs)
            .into_iter()
            .find(|m| m.metadata.subagent.as_ref().unwrap().description == description)
            .unwrap_or_else(|| panic!("a card for {description:?}"));
        let depth = depths.iter().find(|(id, _)| *id == card.id).unwrap().1;
        assert_eq!(
            depth + 1,
            agent["depth"].as_u64().unwrap() as usize,
            "{description}"
        );
        let face = laid.card(&card.id);
        if refused(agent) {
            assert_eq!(face.status, RunState::Failed, "{description}");
            assert_eq!(face.child_count_label, None, "{description}");
            assert!(
                face.result_summary
                    .as_deref()
                    .is_some_and(|s| s.contains("not supported from within a sub-agent")),
                "{description}: {:?}",
                face.result_summary
            );
        } else {
            assert_eq!(face.status, RunState::Complete, "{description}");
        }
    }
}

/// Opening deep-wave by URL fetches, round after round, every agent's
/// transcript that a file names: the background agents launched inside
/// subagents are named by their launch acknowledgements in their parent's
/// transcript (no structured result there). Only a foreground Explore
/// helper's hand-back names no agent, so those two are found only in a
/// folder (docs/user-guide.md "Opening transcript files").
#[test]
fn a_deep_wave_by_url_fetches_every_transcript_a_file_names() {
    let c = capture(CLAUDE_DEEP_WAVE);
    let stem = session_name(&c.session_path);
    let mut found: Vec<(&str, &str)> = Vec::new();
    for _ in 0..8 {
        let wanted = wanted_companions(&c.session, stem, &found);
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
    let mut missing: Vec<String> = c
        .file_refs()
        .into_iter()
        .filter(|(n, _)| n.ends_with(".meta.json") && found.iter().all(|(f, _)| f != n))
        .map(|(_, meta)| {
            serde_json::from_str::<serde_json::Value>(meta).unwrap()["description"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    missing.sort();
    assert_eq!(
        missing,
        ["Confirm the float parse error", "Walk the parser paths"]
    );
    let transcripts = found.iter().filter(|(n, _)| n.ends_with(".jsonl")).count();
    assert_eq!(transcripts, REPORTS.len() - 2);
}
