//! Gadget-style stored turns (docs/formats.md §4).

use crate::common::*;
use serde_json::{json, Value};
use taskview_core::model::message::{Message, MessageType};
use taskview_core::read::import::gadget;

const TURNS: &str = "dialects/gadget-turns.json";

fn import_turn(tool_calls: Value) -> Vec<Message> {
    let doc = json!({"sessionId": "g1", "turns": [{"turnId": "t1", "toolCalls": tool_calls}]});
    messages(&gadget::import(&doc.to_string()).expect("gadget import"))
}

fn subagent(call_id: &str, response: &str) -> Value {
    json!({"callId": call_id, "name": "subagent",
           "parameters": {"description": "Audit", "prompt": "Audit it.", "subagentType": "reviewer"},
           "response": response})
}

#[test]
fn fixture_imports_to_three_cards_structured_envelope_and_raw() {
    let msgs = messages(&gadget_events(TURNS));
    let ids: Vec<&str> = cards(&msgs).iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["call_7f3a01", "call_8a1b01", "call_9c2d01"]);
    assert!(msgs.iter().all(|m| m.session_id == "gs_2026_03_12_0001"));

    let structured = payload(&msgs, "call_7f3a01");
    assert_eq!(structured.subagent_type, "reviewer");
    assert_eq!(structured.description, "Audit invoice parser");
    assert_eq!(structured.status, "completed");
    assert_eq!(
        structured.prompt,
        "Read src/billing/invoice.ts and list any currency or rounding bugs. Do not edit files."
    );
    assert_eq!(
        (
            structured.duration_ms,
            structured.total_tokens,
            structured.tool_use_count
        ),
        (Some(18342), Some(9120 + 611), Some(3))
    );
    assert_eq!(structured.model, "gpt-5-mini");
    assert_eq!(summary_line(structured).as_deref(), Some("One bug found."));
    assert!(structured
        .result_text
        .contains("\n- invoice.ts:88 rounds to 2 decimals BEFORE converting"));
    let kids = children(&msgs, "call_7f3a01");
    assert_eq!(
        kinds(&kids),
        ["thinking", "tool_search", "tool_read", "tool_execute"]
    );
    assert_eq!(
        kids[0].content,
        "Start with the conversion path, then the rounding helpers."
    );
    assert_eq!(kids[3].metadata.status.as_deref(), Some("error"));
    assert_eq!(
        kids[3].metadata.raw_str("result"),
        Some("exit code 1: 1 failing (JPY rounding)")
    );
    assert_eq!(
        kids[2].metadata.kind_payload().unwrap()["file_path"],
        "src/billing/invoice.ts"
    );

    let envelope = payload(&msgs, "call_8a1b01");
    assert_eq!(envelope.subagent_type, "");
    assert!(!envelope.is_fork, "gadget has no implicit forks");
    assert_eq!(envelope.description, "Find parseInvoice callers");
    assert_eq!(envelope.status, "completed");
    assert_eq!(envelope.prompt, "List every caller of parseInvoice.");
    assert_eq!(envelope.tool_use_count, Some(2));
    assert_eq!(envelope.model, "gpt-5-mini");
    assert_eq!(
        summary_line(envelope).as_deref(),
        Some("Found 2 call sites of parseInvoice:")
    );
    assert!(children(&msgs, "call_8a1b01").is_empty());
    assert_eq!(
        by_id(&msgs, "call_8a1b01").metadata.raw["envelope_data"],
        json!({"toolCallCount": 2, "model": "gpt-5-mini"})
    );

    let raw = payload(&msgs, "call_9c2d01");
    assert_eq!(raw.description, "Summarize auth middleware");
    assert_eq!(raw.status, "completed");
    assert_eq!(raw.result_text, "Subagent timed out after 120s. Partial notes:\n- verifies JWT with RS256\n- refresh path not reviewed");
    assert_eq!(
        summary_line(raw).as_deref(),
        Some("Subagent timed out after 120s. Partial notes:")
    );
    assert_eq!(
        (raw.duration_ms, raw.total_tokens, raw.tool_use_count),
        (None, None, None)
    );
    assert!(children(&msgs, "call_9c2d01").is_empty());
}

#[test]
fn fixture_turns_are_user_thinking_tools_then_response() {
    let msgs = messages(&gadget_events(TURNS));
    let turn_1: Vec<&Message> = msgs
        .iter()
        .filter(|m| {
            m.turn_id.as_deref() == Some("turn_01") && m.metadata.parent_tool_call_id.is_none()
        })
        .collect();
    assert_eq!(
        kinds(&turn_1),
        ["message", "thinking", "tool_call", "tool_read", "message"]
    );
    assert_eq!(turn_1[0].author.as_str(), "user");
    assert_eq!(turn_1[4].author.as_str(), "agent");
    assert_eq!(turn_1[0].created_at, "2026-03-12T09:14:02.511Z");
}

#[test]
fn a_structured_record_counts_its_nested_calls_when_stats_lack_a_count() {
    let mut call = subagent("c1", "ignored");
    call["subagent"] = json!({"prompt": "p", "response": "r", "toolCalls": [
        {"callId": "c1_1", "name": "grep", "parameters": {"pattern": "x"}, "response": "hit"},
        {"callId": "c1_2", "name": "grep", "parameters": {"pattern": "y"}, "response": "hit"}], "stats": {}});
    let msgs = import_turn(json!([call]));
    assert_eq!(payload(&msgs, "c1").tool_use_count, Some(2));
    assert_eq!(payload(&msgs, "c1").result_text, "r");
}

#[test]
fn without_a_record_the_envelope_response_is_the_result() {
    let msgs = import_turn(json!([subagent(
        "c1",
        r#"{"success": true, "data": {"response": "found 3", "durationMs": 1200}}"#
    )]));
    let sa = payload(&msgs, "c1");
    assert_eq!(sa.result_text, "found 3");
    assert_eq!(sa.duration_ms, Some(1200));
    assert_eq!(sa.status, "completed");
}

#[test]
fn a_failed_envelope_marks_the_card_failed() {
    let msgs = import_turn(json!([
        subagent("c1", r#"{"success": false, "error": "budget exceeded"}"#),
        subagent(
            "c2",
            r#"{"success": false, "data": {"response": "partial answer"}}"#
        ),
    ]));
    for (id, text) in [("c1", "budget exceeded"), ("c2", "partial answer")] {
        assert_eq!(by_id(&msgs, id).metadata.status.as_deref(), Some("error"));
        assert_eq!(payload(&msgs, id).status, "failed");
        assert_eq!(payload(&msgs, id).result_text, text);
    }
}

#[test]
fn a_response_that_is_not_an_envelope_is_the_raw_result() {
    for response in [
        "{not json",
        r#"{"data": {"response": "no success flag"}}"#,
        "  plain\n  text  ",
        "",
    ] {
        let msgs = import_turn(json!([subagent("c1", response)]));
        assert_eq!(payload(&msgs, "c1").result_text, response);
        assert_eq!(payload(&msgs, "c1").status, "completed");
    }
}

#[test]
fn subagents_nest_structurally() {
    let mut inner = subagent("inner", "");
    inner["subagent"] = json!({"prompt": "deeper", "response": "inner answer",
        "toolCalls": [{"callId": "leaf", "name": "read_file", "parameters": {"path": "a"}, "response": "x"}]});
    let mut outer = subagent("outer", "");
    outer["subagent"] = json!({"prompt": "top", "response": "outer answer", "toolCalls": [inner]});
    let msgs = import_turn(json!([outer]));
    assert_eq!(cards(&msgs).len(), 2);
    assert_eq!(
        by_id(&msgs, "inner")
            .metadata
            .parent_tool_call_id
            .as_deref(),
        Some("outer")
    );
    assert_eq!(
        by_id(&msgs, "leaf").metadata.parent_tool_call_id.as_deref(),
        Some("inner")
    );
    assert_eq!(payload(&msgs, "inner").result_text, "inner answer");
}

#[test]
fn malformed_records_never_crash_and_stay_visible() {
    let doc = json!({"turns": [
        {"turnId": "t1", "toolCalls": [
            42,
            {"name": "subagent", "subagent": "oops", "response": 17, "parameters": "{\"description\": \"d\"}"},
            {"callId": "dup", "name": "grep"},
            {"callId": "dup", "name": "grep"},
            {"callId": "s", "name": "subagent", "subagent": {"toolCalls": "nope", "stats": [1], "response": 5}}]},
        "not a turn",
        {"userMessage": "second turn without id"}]});
    let events = gadget::import(&doc.to_string()).unwrap();
    assert_eq!(unreadable(&events), ["42", "\"not a turn\""]);
    let msgs = messages(&events);
    let odd = cards(&msgs)[0];
    assert_eq!(odd.metadata.subagent.as_ref().unwrap().description, "d");
    assert_eq!(odd.metadata.subagent.as_ref().unwrap().result_text, "17");
    let ids: Vec<&str> = msgs.iter().map(|m| m.id.as_str()).collect();
    assert!(ids.contains(&"dup") && ids.contains(&"dup#2"), "{ids:?}");
    assert_eq!(payload(&msgs, "s").result_text, "");
    assert_eq!(msgs.last().unwrap().turn_id.as_deref(), Some("turn-3"));
    assert_eq!(msgs.last().unwrap().kind, MessageType::Message);
}

#[test]
fn a_truncated_file_keeps_every_turn_before_the_cut() {
    let text = fixture(TURNS);
    let cut = text.find("call_9c2d01").unwrap();
    let events = gadget::import(&text[..cut]).unwrap();
    let msgs = messages(&events);
    let ids: Vec<&str> = cards(&msgs).iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["call_7f3a01", "call_8a1b01"]);
    assert_eq!(unreadable(&events).len(), 1);
    assert!(msgs.iter().all(|m| m.session_id == "gs_2026_03_12_0001"));
}

#[test]
fn a_bare_array_of_turns_or_a_single_turn_is_accepted() {
    let turn = json!({"turnId": "t9", "userMessage": "hi", "response": "hello"});
    for doc in [json!([turn]), turn.clone()] {
        let msgs = messages(&gadget::import(&doc.to_string()).unwrap());
        assert_eq!(msgs.len(), 2);
        assert_eq!(msgs[0].turn_id.as_deref(), Some("t9"));
    }
    assert!(gadget::import(r#"{"hello": 1}"#).is_err());
    assert!(gadget::import("garbage").is_err());
}

#[test]
fn deep_nesting_keeps_every_level_inside_its_parent() {
    let mut nested = json!({"callId": "leaf", "name": "grep", "response": "r"});
    for depth in 0..40 {
        nested = json!({"callId": format!("c{depth}"), "name": "subagent", "response": "",
                        "subagent": {"response": format!("level {depth}"), "toolCalls": [nested]}});
    }
    let msgs = import_turn(json!([nested]));
    assert_eq!(cards(&msgs).len(), 40);
    assert_eq!(
        by_id(&msgs, "leaf").metadata.parent_tool_call_id.as_deref(),
        Some("c0")
    );
    assert_eq!(
        by_id(&msgs, "c0").metadata.parent_tool_call_id.as_deref(),
        Some("c1")
    );
    assert_eq!(by_id(&msgs, "c39").metadata.parent_tool_call_id, None);
    assert_eq!(payload(&msgs, "c0").result_text, "level 0");
}
