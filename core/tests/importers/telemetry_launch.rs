//! From telemetry alone (docs/formats.md §11): a Claude Code subagent whose launch
//! failed at once. The `custom-agents` story captured with telemetry on
//! (`tests/fixtures/captures-otlp/claude-code-2.1.337/custom-agents`, the
//! harness's `--otlp`) launches `doc-writter`, a type the user has no agent
//! of: Claude Code refuses it (`AgentTypeError`) and no record carries an
//! `agent_id` for it, only its launch (a `claude_code.tool` span with
//! `tool_name: Agent` and its `tool_use_id`, the execution span under it,
//! and the `tool_decision` / `tool_result` logs).

use crate::common::*;
use taskview_core::model::status::RunState;
use taskview_core::read::import::{import_any, import_any_with_files};
use taskview_testkit::captures::{otlp_capture, otlp_posts};

const STORY: &str = "claude-code-2.1.337/custom-agents";

#[test]
fn a_launch_that_failed_at_once_is_a_card_of_its_own_with_the_tool_results_outcome() {
    // The transcript says which launch failed, and why.
    let c = otlp_capture(STORY);
    let files = messages(
        &import_any_with_files(&c.session, &c.file_refs())
            .unwrap()
            .events,
    );
    let refused = cards(&files)
        .into_iter()
        .find(|m| m.metadata.subagent.as_ref().unwrap().subagent_type == "doc-writter")
        .expect("the launch of an agent the user has no agent of");
    assert!(payload(&files, &refused.id)
        .result_text
        .contains("Agent type 'doc-writter' not found"));
    // Telemetry alone: its card, failed, its type unknown.
    let events = import_any(&otlp_posts(STORY).join("\n")).unwrap().events;
    let msgs = messages(&events);
    let card = cards(&msgs)
        .into_iter()
        .find(|m| m.metadata.tool_call_id == refused.metadata.tool_call_id)
        .expect("a card for the launch that failed at once");
    let face = LaidOut::new(events.clone()).card(&card.id);
    assert_eq!(face.status, RunState::Failed);
    assert_eq!(
        face.type_label, "subagent",
        "its type is not known from telemetry"
    );
    assert_eq!(face.result_summary.as_deref(), Some("AgentTypeError"));
    // The launches that ran are their agents' cards, typed as telemetry
    // records them: a user's own agent only as `custom`.
    let mut types: Vec<String> = cards(&msgs)
        .into_iter()
        .filter(|m| m.id != card.id)
        .map(|m| m.metadata.subagent.as_ref().unwrap().subagent_type.clone())
        .collect();
    types.sort();
    assert_eq!(types, ["custom", "custom"]);
}
