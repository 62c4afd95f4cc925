//! The seeds' subagent patterns (docs/behaviour.md §3.1, §3.5, §4, §8) end to end in
//! core: importers, store and view-models on the repository's fixtures.

use serde_json::json;
use taskview_core::model::status::RunState;
use taskview_core::screen::view::conclusion::{Provenance, ResultBody};
use taskview_core::screen::view::spill::spill_view;
use taskview_testkit::*;

fn gadget_session() -> Session {
    Session::new(gadget_events("seeds/gadget-isolation.json"))
}

fn seed_session() -> Session {
    Session::new(kandev_events("session-seed-patterns.json"))
}

#[test]
fn spilled_output_in_a_gadget_record_opens_the_stored_text_of_its_spill_row() {
    let s = gadget_session();
    let crawl = s.store.message("crawl-1").expect("spilled call");
    let spill = spill_view(&s.store, crawl).expect("a spill chip");
    assert_eq!(spill.id, "spill_9b2f61c4-crawl-page-3");
    let stored = spill.stored.expect("stored text from the spill row");
    assert!(stored.text.starts_with("# Policy v6 (superseded)"));
    // The spill row sits in the card beside the call whose output it holds.
    let row = stored.anchor.trim_start_matches("msg-").to_string();
    let parent = s
        .store
        .message(&row)
        .unwrap()
        .metadata
        .parent_tool_call_id
        .clone();
    assert_eq!(parent.as_deref(), Some("sub-1"));
}

#[test]
fn spilled_output_in_a_kandev_session_opens_the_later_read_run_result() {
    let s = seed_session();
    let spill = spill_view(&s.store, s.store.message("c2").unwrap()).expect("chip");
    let stored = spill.stored.expect("stored text");
    assert_eq!(stored.anchor, "msg-c4");
    assert!(stored.text.contains("superseded by v7"));
}

#[test]
fn gadget_master_received_response_is_shown_apart_from_the_subagent_record() {
    let s = gadget_session();
    let card = s.card("sub-1");
    let received = card.received.expect("what the master received");
    assert_eq!(
        received.text,
        r#"{"policy": "v7", "chunk": "c-8812", "confidence": "high"}"#
    );
    assert!(!received.more_than_answer);
    // The record (thinking, tool calls, stats) is the card's children and chips.
    assert!(
        s.outline().iter().any(|r| r.contains("sub-1:thinking")),
        "{:?}",
        s.outline()
    );
    // A legacy envelope record put the whole JSON in the master's context.
    let legacy = s.card("sub-2");
    let received = legacy.received.expect("received");
    assert!(received.more_than_answer);
    assert!(received.text.contains("\"thinking\""));
    assert_eq!(
        legacy.result_body,
        Some(ResultBody::Markdown("Policy v7 (chunk c-8812).".into()))
    );
}

#[test]
fn context_isolation_counts_what_the_parent_received_a_quarter_token_per_char_against_total_tokens()
{
    let s = gadget_session();
    // 57 characters received → ~15 tokens (rounded up), of 14,000 spent.
    assert_eq!(
        s.card("sub-1").isolation.expect("returned chip").text,
        "~15 tokens returned of 14k"
    );
    assert_eq!(s.card("sub-1").isolation.unwrap().id, "returned");
    // The legacy record's whole JSON reached the parent: far more returned.
    let legacy = s.card("sub-2").isolation.expect("returned chip").text;
    let received = s.card("sub-2").received.unwrap().text;
    assert_eq!(
        legacy,
        format!(
            "~{} tokens returned of 9.8k",
            received.chars().count().div_ceil(4)
        )
    );
}

#[test]
fn context_isolation_is_shown_only_once_settled_and_never_for_a_launch_placeholder() {
    let s = seed_session();
    assert_eq!(
        s.card("sa-policy").isolation.unwrap().text,
        "~28 tokens returned of 14.2k"
    );
    let watch = s.card("sa-watch");
    assert_eq!(watch.isolation, None);
}

#[test]
fn typed_conclusion_from_the_demo_session_carries_provenance_badges_and_a_link() {
    let s = seed_session();
    let Some(ResultBody::Conclusion(fields)) = s.card("sa-policy").result_body else {
        panic!("a typed conclusion")
    };
    let provenance: Vec<&Provenance> = fields.iter().flat_map(|f| &f.provenance).collect();
    assert_eq!(
        provenance,
        [
            &Provenance::Badge("c-8812".into()),
            &Provenance::Link {
                text: "https://policies.example.com/freight/v7".into(),
                href: "https://policies.example.com/freight/v7".into()
            }
        ]
    );
    assert_eq!(
        s.card("sa-carrier").result_summary.as_deref(),
        Some("no conclusion: sub-agent returned an invalid conclusion")
    );
}

#[test]
fn fork_type_chip_reads_fork_for_a_subagent_started_without_a_type() {
    let s = seed_session();
    assert_eq!(s.card("sa-fork").type_label, "fork");
    assert_eq!(s.card("sa-policy").type_label, "policy-finder");
}

#[test]
fn refused_recursive_fork_shows_failed_and_its_error() {
    let s = seed_session();
    let nested = s.card("sa-fork-nested");
    assert_eq!(nested.status, RunState::Failed);
    assert_eq!(nested.status_word, Some("failed"));
    assert_eq!(
        nested.result_summary.as_deref(),
        Some("Fork is not available inside a forked worker. Complete your task directly using your tools.")
    );
}

#[test]
fn a_fork_running_in_the_background_never_looks_finished() {
    let s = seed_session();
    let watch = s.card("sa-watch");
    assert_eq!(watch.status, RunState::Running);
    assert_eq!(
        watch.lifecycle.map(|l| l.text).as_deref(),
        Some("background · running")
    );
    assert_eq!(watch.result_summary, None);
    assert_eq!(watch.result_body, None);
    // qwen-code's own `background` status reads the same.
    let s = Session::new([added(subagent(
        "q",
        1,
        "t1",
        json!({"subagent_type": "", "status": "background"}),
    ))]);
    assert_eq!(s.card("q").status, RunState::Running);
}

#[test]
fn fork_placeholder_result_is_replaced_by_the_final_one_and_a_late_placeholder_never_wins() {
    let fork = |result: &str, status: &str, at_s: u64| {
        let mut v = subagent(
            "f",
            1,
            "t1",
            json!({"subagent_type": "", "is_fork": true, "description": "Research A",
                "status": status, "result_text": result, "total_tokens": 900}),
        );
        v["updated_at"] = json!(at(at_s));
        v
    };
    let mut s = Session::with([added(fork(
        "Fork started — processing in background",
        "",
        1,
    ))]);
    assert_eq!(s.card("f").status, RunState::Running);
    assert_eq!(s.card("f").result_summary, None);
    s.apply(updated(fork(
        "Research A found two call sites.",
        "completed",
        5,
    )));
    let card = s.card("f");
    assert_eq!(card.status, RunState::Complete);
    assert_eq!(card.lifecycle, None);
    assert_eq!(
        card.result_summary.as_deref(),
        Some("Research A found two call sites.")
    );
    // A placeholder frame that arrives last does not bring the launch back.
    s.apply(updated(fork(
        "Fork started — processing in background",
        "",
        9,
    )));
    let card = s.card("f");
    assert_eq!(
        card.result_summary.as_deref(),
        Some("Research A found two call sites.")
    );
    assert_eq!(card.status, RunState::Complete);
}
