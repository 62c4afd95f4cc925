//! Real telemetry (docs/behaviour.md §7 "OpenTelemetry"): Claude Code 2.1.332, qwen-code 0.24.4 and
//! Copilot CLI 1.0.102 (the GenAI conventions) ran
//! the capture stories with OpenTelemetry on (`node captures/run.mjs --otlp`), and the cards its
//! telemetry gives match the cards its session files from the same run give:
//! the same spawning calls, types, nesting and statuses, and starts and
//! durations within a second. One difference is Claude Code's own: without
//! its content flags a project-defined agent's type is sent as `custom`
//! (`query_source_safe=agent.custom`, `agent_type=custom`); its name is in
//! no record.

use std::collections::BTreeMap;
use taskview_core::model::event::Event;
use taskview_core::model::time::parse_rfc3339;
use taskview_core::read::import::otlp;
use taskview_server::sources::recordings::import_recording;
use taskview_testkit::captures::{otlp_capture, otlp_posts};

const CLAUDE: &str = "claude-code-2.1.332";
const QWEN: &str = "qwen-code-0.24.4";
const COPILOT: &str = "copilot-1.0.102";

/// A card: parent, type, status, start (ms) and duration (ms).
#[derive(Debug)]
struct Card {
    parent: String,
    subagent_type: String,
    status: String,
    start_ms: i128,
    duration_ms: u64,
}

fn cards(events: Vec<Event>) -> BTreeMap<String, Card> {
    events
        .into_iter()
        .filter_map(|e| match e {
            Event::MessageAdded(m) => Some(m),
            _ => None,
        })
        .filter_map(|m| {
            let task = m.metadata.subagent.clone()?;
            let card = Card {
                parent: m.metadata.parent_tool_call_id.clone().unwrap_or_default(),
                subagent_type: task.subagent_type,
                status: m.metadata.status.clone().unwrap_or_default(),
                start_ms: parse_rfc3339(&m.created_at)? / 1_000_000,
                duration_ms: task.duration_ms.unwrap_or_default(),
            };
            Some((m.id, card))
        })
        .collect()
}

/// The cards of the run's session files (Claude Code's and qwen-code's
/// project folder, or Copilot CLI's session folder).
fn from_files(cli: &str, story: &str) -> BTreeMap<String, Card> {
    let c = otlp_capture(&format!("{cli}/{story}"));
    cards(import_recording(&c.session, &c.file_refs()).unwrap())
}

/// The cards of the run's telemetry, its posts in arrival order as lines.
fn from_telemetry(cli: &str, story: &str) -> BTreeMap<String, Card> {
    cards(otlp::import(&otlp_posts(&format!("{cli}/{story}")).join("\n")).unwrap())
}

/// `custom`: the cards whose type telemetry sends as `custom`.
fn same_cards(cli: &str, story: &str, custom: &[&str]) {
    let files = from_files(cli, story);
    let telemetry = from_telemetry(cli, story);
    assert!(!files.is_empty(), "{cli} {story}: the files have cards");
    assert_eq!(
        telemetry.keys().collect::<Vec<_>>(),
        files.keys().collect::<Vec<_>>(),
        "{cli} {story}: the same spawning calls"
    );
    for (id, file_card) in &files {
        let card = &telemetry[id];
        assert_eq!(card.parent, file_card.parent, "{cli} {story} {id}: nesting");
        if custom.contains(&id.as_str()) {
            assert_eq!(
                card.subagent_type, "custom",
                "{cli} {story} {id}: a project agent"
            );
            assert_ne!(file_card.subagent_type, "custom");
        } else {
            assert_eq!(
                card.subagent_type, file_card.subagent_type,
                "{cli} {story} {id}: type"
            );
        }
        assert_eq!(card.status, file_card.status, "{cli} {story} {id}: status");
        assert!(
            (card.start_ms - file_card.start_ms).abs() <= 1000,
            "{cli} {story} {id}: start {card:?} vs {file_card:?}"
        );
        assert!(
            card.duration_ms.abs_diff(file_card.duration_ms) <= 1000,
            "{cli} {story} {id}: duration {card:?} vs {file_card:?}"
        );
    }
}

#[test]
fn a_parallel_wave_gives_the_same_cards_from_its_telemetry_as_from_its_files() {
    same_cards(
        CLAUDE,
        "parallel-wave",
        &["toolu_015m2gEvOytcC26QzBjMsqChof"],
    );
}

#[test]
fn a_nested_fan_out_gives_the_same_tree_from_its_telemetry_as_from_its_files() {
    same_cards(CLAUDE, "nested", &[]);
}

#[test]
fn qwen_code_gives_the_same_cards_from_its_telemetry_as_from_its_files() {
    same_cards(QWEN, "parallel-wave", &[]);
    same_cards(QWEN, "nested", &[]);
}

#[test]
fn copilot_cli_gives_the_same_cards_from_its_genai_telemetry_as_from_its_files() {
    same_cards(COPILOT, "parallel-wave", &[]);
    same_cards(COPILOT, "nested", &[]);
}
