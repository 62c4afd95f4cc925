//! qwen-code chat recordings (docs/formats.md §8.1): the record
//! rules the captures do not all show (the captures' own tests are in
//! `captures`).

use crate::common::*;
use serde_json::{json, Value};
use taskview_core::read::import::{detect, qwen_code, Dialect};

fn record(kind: &str, uuid: &str, extra: Value) -> Value {
    let mut v = json!({"type": kind, "uuid": uuid, "sessionId": "q1",
        "timestamp": "2026-12-04T14:22:23.556Z", "version": "0.24.4"});
    v.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    v
}

fn launch(uuid: &str, call: &str, kind: &str) -> Value {
    record(
        "assistant",
        uuid,
        json!({"model": "qwen3-coder-plus", "message": {"role": "model", "parts": [
        {"functionCall": {"id": call, "name": "agent", "args": {"description": "Map it", "prompt": "Map the crate.", "subagent_type": kind}}}]}}),
    )
}

fn prompt(uuid: &str, text: &str) -> Value {
    record(
        "user",
        uuid,
        json!({"message": {"role": "user", "parts": [{"text": text}]}}),
    )
}

#[test]
fn a_qwen_chat_is_detected_apart_from_a_claude_code_session() {
    let text = lines(&[prompt("u1", "hi")]);
    assert_eq!(detect(&text), Some(Dialect::QwenCode));
    let claude = json!({"type": "user", "uuid": "u1", "sessionId": "s",
        "message": {"role": "user", "content": "hi"}});
    assert_eq!(detect(&claude.to_string()), Some(Dialect::ClaudeCode));
}

/// A foreground run's result display is its card: status, answer, tokens,
/// duration and tool count.
#[test]
fn a_foreground_subagent_reads_its_task_execution_display() {
    let result = record(
        "tool_result",
        "r1",
        json!({
        "message": {"role": "user", "parts": [{"functionResponse": {"id": "call_1", "name": "agent",
            "response": {"output": "## Summary\n\nThree modules."}}}]},
        "toolCallResult": {"callId": "call_1", "status": "success", "resultDisplay": {
            "type": "task_execution", "subagentName": "Explore", "status": "completed",
            "result": "## Summary\n\nThree modules.",
            "executionSummary": {"totalDurationMs": 1934, "totalToolCalls": 1, "totalTokens": 8315}}}}),
    );
    let msgs = messages(
        &qwen_code::import(&lines(&[
            prompt("u1", "map it"),
            launch("a1", "call_1", "Explore"),
            result,
        ]))
        .unwrap(),
    );
    let sa = payload(&msgs, "call_1");
    assert_eq!(
        (
            sa.subagent_type.as_str(),
            sa.status.as_str(),
            sa.duration_ms,
            sa.total_tokens,
            sa.tool_use_count
        ),
        ("Explore", "completed", Some(1934), Some(8315), Some(1))
    );
    assert_eq!(summary_line(sa).as_deref(), Some("Three modules."));
}

/// A background launch runs until its notification: a `<task-notification>`
/// user record, or a system `notification` with a `backgroundTask` payload.
#[test]
fn a_background_subagent_runs_until_its_notification_of_either_shape() {
    let launched = record(
        "tool_result",
        "r1",
        json!({
        "message": {"role": "user", "parts": [{"functionResponse": {"id": "call_1", "name": "agent", "response": {
            "output": "Background agent launched successfully.\ntask_id: Explore-call_1 (internal ID)"}}}]},
        "toolCallResult": {"callId": "call_1", "status": "success", "resultDisplay": {
            "type": "task_execution", "subagentName": "Explore", "status": "background"}}}),
    );
    let head = [
        prompt("u1", "map it"),
        launch("a1", "call_1", "Explore"),
        launched,
    ];
    let running = messages(&qwen_code::import(&lines(&head)).unwrap());
    let sa = payload(&running, "call_1");
    assert!(
        sa.is_async && sa.result_text.is_empty(),
        "the launch text is no result"
    );
    assert_eq!(
        by_id(&running, "call_1").metadata.status.as_deref(),
        Some("in_progress")
    );
    let text = record(
        "user",
        "n1",
        json!({"subtype": "notification", "message": {"role": "user", "parts": [{"text":
        "<task-notification>\n<task-id>Explore-call_1</task-id>\n<status>completed</status>\n<result>Mapped.</result>\n<usage>\n<total_tokens>11523</total_tokens>\n</usage>\n</task-notification>"}]}}),
    );
    let payload_shape = record(
        "system",
        "n1",
        json!({"subtype": "notification", "systemPayload": {
        "backgroundTask": {"taskId": "Explore-call_1", "toolUseId": "call_1", "status": "failed", "kind": "agent"}}}),
    );
    for (notification, status) in [(text, "completed"), (payload_shape, "failed")] {
        let mut records = head.to_vec();
        records.push(notification);
        let msgs = messages(&qwen_code::import(&lines(&records)).unwrap());
        assert_eq!(payload(&msgs, "call_1").status, status);
        assert_eq!(
            msgs.iter().filter(|m| m.author.as_str() == "user").count(),
            1,
            "not user speech"
        );
    }
}

/// A fork's inherited history and launch prompt are not shown; telemetry and
/// snapshots are skipped and counted (docs/behaviour.md §1).
#[test]
fn a_forks_inherited_history_and_telemetry_are_skipped_and_counted() {
    let main = lines(&[
        prompt("u1", "fork yourself"),
        launch("a1", "call_f", "fork"),
        record(
            "tool_result",
            "r1",
            json!({"message": {"role": "user", "parts": [{"functionResponse": {
            "id": "call_f", "name": "agent", "response": {
                "output": "Background agent launched successfully.\ntask_id: fork-call_f (internal ID)"}}}]}}),
        ),
        record(
            "system",
            "t1",
            json!({"subtype": "ui_telemetry", "systemPayload": {"uiEvent": {"event.name": "qwen-code.api_response"}}}),
        ),
    ]);
    let fork = |v: Value| {
        let mut v = v;
        v["agentId"] = json!("fork-call_f");
        v["isSidechain"] = json!(true);
        v
    };
    let file = lines(&[
        fork(record(
            "system",
            "b1",
            json!({"subtype": "agent_bootstrap", "systemPayload": {"kind": "fork",
            "history": [{"role": "user", "parts": [{"text": "<fork-boilerplate>inherited</fork-boilerplate>"}]}]}}),
        )),
        fork(prompt("f1", "Fork task: check.")),
        fork(record(
            "system",
            "b2",
            json!({"subtype": "agent_launch_prompt", "systemPayload": {"displayText": "Begin."}}),
        )),
        fork(record(
            "assistant",
            "f2",
            json!({"message": {"role": "model", "parts": [{"text": "Checked."}]}}),
        )),
    ]);
    let events =
        qwen_code::import_with_files(&main, &[("../subagents/q1/agent-fork-call_f.jsonl", &file)])
            .unwrap();
    let msgs = messages(&events);
    assert_eq!(payload(&msgs, "call_f").subagent_type, "fork");
    let inside: Vec<&str> = children(&msgs, "call_f")
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(inside, ["Checked."]);
    assert!(msgs
        .iter()
        .all(|m| !m.content.contains("fork-boilerplate") && m.content != "Begin."));
    assert_eq!(
        not_shown(&events),
        [
            ("system:agent_bootstrap".to_string(), 1),
            ("system:agent_launch_prompt".to_string(), 1),
            ("system:ui_telemetry".to_string(), 1),
        ]
    );
}
