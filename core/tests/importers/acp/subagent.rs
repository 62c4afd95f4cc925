//! Claude adapter subagents over ACP (docs/formats.md §1.5).

use super::*;
use serde_json::json;

#[test]
fn result_text_is_the_text_blocks_joined_by_newlines_in_order() {
    let msgs = subagent_with(&[hook(
        "toolu_A",
        json!({"status": "completed", "content": [
            {"type": "text", "text": "    indented finding"},
            {"type": "text", "text": "\tsecond line\nthird"}]}),
    )]);
    assert_eq!(
        payload(&msgs, "toolu_A").result_text,
        "    indented finding\n\tsecond line\nthird"
    );
}

#[test]
fn result_text_skips_non_text_blocks() {
    let msgs = subagent_with(&[hook(
        "toolu_A",
        json!({"content": [
            {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
            {"type": "text", "text": "APPROVE"},
            {"type": "tool_reference", "tool_name": "Grep"},
            {"type": "text", "text": "All good."}]}),
    )]);
    assert_eq!(payload(&msgs, "toolu_A").result_text, "APPROVE\nAll good.");
}

#[test]
fn absent_content_leaves_result_text_empty_with_no_placeholder() {
    let msgs = subagent_with(&[
        hook(
            "toolu_A",
            json!({"status": "completed", "agentId": "a1", "totalToolUseCount": 2}),
        ),
        frame(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_A", "status": "completed"}),
        ),
    ]);
    let card = msgs.iter().find(|m| m.is_subagent_payload()).unwrap();
    assert_eq!(payload(&msgs, "toolu_A").result_text, "");
    let wire = card.to_value();
    assert!(wire["metadata"]["normalized"]["subagent_task"]
        .get("result_text")
        .is_none());
}

#[test]
fn empty_content_leaves_result_text_empty() {
    let msgs = subagent_with(&[hook(
        "toolu_A",
        json!({"status": "completed", "content": []}),
    )]);
    assert_eq!(payload(&msgs, "toolu_A").result_text, "");
}

#[test]
fn all_non_text_content_leaves_result_text_empty() {
    let msgs = subagent_with(&[hook(
        "toolu_A",
        json!({"status": "completed", "content": [{"type": "image", "data": "x"}, {"type": "text", "text": "   "}]}),
    )]);
    assert_eq!(payload(&msgs, "toolu_A").result_text, "");
}

#[test]
fn a_later_empty_frame_never_overwrites_result_text() {
    let msgs = subagent_with(&[
        hook(
            "toolu_A",
            json!({"content": [{"type": "text", "text": "VERDICT: APPROVE"}], "totalTokens": 900}),
        ),
        hook("toolu_A", json!({"content": []})),
        hook(
            "toolu_A",
            json!({"content": [{"type": "image", "data": "x"}], "totalTokens": 0}),
        ),
        hook("toolu_A", json!({"status": "completed"})),
        frame(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_A", "status": "completed",
                     "content": [], "rawInput": {}}),
        ),
    ]);
    let sa = payload(&msgs, "toolu_A");
    assert_eq!(sa.result_text, "VERDICT: APPROVE");
    assert_eq!(sa.total_tokens, Some(900));
    assert_eq!(sa.prompt, "Find the parser.");
}

#[test]
fn model_comes_from_resolved_model() {
    let msgs = subagent_with(&[hook(
        "toolu_A",
        json!({"resolvedModel": "claude-opus-4-8[1m]"}),
    )]);
    assert_eq!(payload(&msgs, "toolu_A").model, "claude-opus-4-8[1m]");
}

#[test]
fn duration_tokens_and_tool_count_come_from_the_totals() {
    let msgs = subagent_with(&[hook(
        "toolu_A",
        json!({"totalDurationMs": 90278, "totalTokens": 21007, "totalToolUseCount": 5}),
    )]);
    let sa = payload(&msgs, "toolu_A");
    assert_eq!(
        (sa.duration_ms, sa.total_tokens, sa.tool_use_count),
        (Some(90278), Some(21007), Some(5))
    );
}

#[test]
fn a_reported_zero_tool_count_differs_from_an_absent_one() {
    let zero = subagent_with(&[hook("toolu_A", json!({"totalToolUseCount": 0}))]);
    assert_eq!(payload(&zero, "toolu_A").tool_use_count, Some(0));
    let absent = subagent_with(&[hook("toolu_A", json!({"status": "completed"}))]);
    assert_eq!(payload(&absent, "toolu_A").tool_use_count, None);
}

#[test]
fn the_agent_id_usage_trailer_is_stripped_from_the_displayed_text() {
    // No structured content: the tool result's blocks are the result, minus the trailer.
    let msgs = subagent_with(&[finished(
        "toolu_A",
        "completed",
        json!([{"type": "text", "text": "Answer line\n  detail"}, {"type": "text", "text": TRAILER}]),
    )]);
    let sa = payload(&msgs, "toolu_A");
    assert_eq!(sa.result_text, "Answer line\n  detail");
    assert_eq!(sa.agent_id, "a3f9c2e1b7d40c5e8");
    assert_eq!(
        (sa.total_tokens, sa.tool_use_count, sa.duration_ms),
        (Some(23418), Some(3), Some(41870))
    );
    let card = msgs.iter().find(|m| m.is_subagent_payload()).unwrap();
    assert_eq!(
        card.metadata.raw_str("result"),
        Some("Answer line\n  detail")
    );

    // A trailer inside the structured content is stripped too.
    let msgs = subagent_with(&[hook(
        "toolu_A",
        json!({"content": [{"type": "text", "text": "Done."}, {"type": "text", "text": TRAILER}]}),
    )]);
    assert_eq!(payload(&msgs, "toolu_A").result_text, "Done.");
}

#[test]
fn structured_content_wins_over_the_tool_result_text_in_either_order() {
    let structured = hook(
        "toolu_A",
        json!({"content": [{"type": "text", "text": "From toolResponse"}]}),
    );
    let result = finished(
        "toolu_A",
        "completed",
        json!([{"type": "text", "text": "From rawOutput"}]),
    );
    for order in [[structured.clone(), result.clone()], [result, structured]] {
        assert_eq!(
            payload(&subagent_with(&order), "toolu_A").result_text,
            "From toolResponse"
        );
    }
}

#[test]
fn subagents_are_recognised_by_tool_name_agent_or_task() {
    for name in ["Agent", "Task"] {
        let msgs = import(&[agent_start("toolu_A", name)]);
        assert_eq!(cards(&msgs).len(), 1, "{name}");
        assert_eq!(payload(&msgs, "toolu_A").description, "");
    }
    for name in ["Monitor", "ScheduleWakeup", "Bash"] {
        assert!(
            cards(&import(&[agent_start("toolu_A", name)])).is_empty(),
            "{name}"
        );
    }
}

#[test]
fn an_implicit_fork_gets_no_type_and_its_placeholder_is_replaced_by_the_real_result() {
    let launch = [
        agent_start("toolu_F", "Agent"),
        agent_input(
            "toolu_F",
            json!({"description": "Research A", "prompt": "Look into A."}),
        ),
        finished(
            "toolu_F",
            "completed",
            json!("Fork started — processing in background"),
        ),
    ];
    let msgs = import(&launch);
    let sa = payload(&msgs, "toolu_F");
    assert!(sa.is_fork);
    assert_eq!(sa.subagent_type, "");
    assert_eq!(sa.result_text, "", "a placeholder is not a result");
    let card = msgs.iter().find(|m| m.is_subagent_payload()).unwrap();
    assert_eq!(
        card.metadata.raw_str("result"),
        None,
        "nor the tool's output (docs/behaviour.md §1)"
    );

    let mut full = launch.to_vec();
    full.push(hook(
        "toolu_F",
        json!({"status": "completed", "agentType": "fork", "content": [{"type": "text", "text": "A is fine."}]}),
    ));
    let msgs = import(&full);
    let sa = payload(&msgs, "toolu_F");
    assert!(sa.is_fork);
    assert_eq!(sa.subagent_type, "");
    assert_eq!(sa.result_text, "A is fine.");
}

#[test]
fn a_typed_subagent_is_not_a_fork_and_agent_type_only_fills_a_missing_type() {
    let msgs = subagent_with(&[hook("toolu_A", json!({"agentType": "general-purpose"}))]);
    let sa = payload(&msgs, "toolu_A");
    assert!(!sa.is_fork);
    assert_eq!(sa.subagent_type, "Explore");
    // Input never arrived: the type comes from the result, and it is no fork.
    let msgs = import(&[
        agent_start("toolu_B", "Agent"),
        hook("toolu_B", json!({"agentType": "code-reviewer"})),
    ]);
    let sa = payload(&msgs, "toolu_B");
    assert!(!sa.is_fork);
    assert_eq!(sa.subagent_type, "code-reviewer");
}

#[test]
fn a_background_launch_is_async_and_shows_no_placeholder() {
    let msgs = subagent_with(&[
        finished(
            "toolu_A",
            "completed",
            json!([{"type": "text", "text": "Async agent launched successfully.\nagentId: a90 (…)"}]),
        ),
        hook(
            "toolu_A",
            json!({"status": "async_launched", "isAsync": true, "agentId": "a90",
                               "outputFile": "/tmp/a90.output", "canReadOutputFile": true}),
        ),
    ]);
    let sa = payload(&msgs, "toolu_A");
    assert!(sa.is_async);
    assert_eq!(sa.status, "async_launched");
    assert_eq!(sa.result_text, "");
    assert_eq!(sa.agent_id, "a90");
    let card = msgs.iter().find(|m| m.is_subagent_payload()).unwrap();
    assert_eq!(
        card.metadata.status.as_deref(),
        Some("in_progress"),
        "still running in the background"
    );
}
