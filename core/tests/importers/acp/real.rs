//! The Claude ACP adapter's own scenario snapshots (tests/fixtures/real/
//! claude-agent-acp, protocol v2 and v1) and synthetic frames of the same
//! shapes: what docs/formats.md §7 "ACP (Claude adapter)" says real
//! files do.

use super::*;
use taskview_core::model::event::Event;
use taskview_core::model::message::MessageType;
use taskview_core::read::import::{import_any, Dialect};

const V2: &str = "claude-agent-acp/__snapshots__/v2";

fn snapshot(name: &str) -> Vec<Event> {
    let import = import_any(&real(&format!("{V2}/{name}.jsonl"))).expect("import");
    assert_eq!(import.dialect, Dialect::Acp, "{name}");
    assert!(unreadable(&import.events).is_empty(), "{name}");
    import.events
}

/// A v2 notification wrapped as the adapter's snapshots wrap it.
fn wrapped(update: Value) -> Value {
    json!({"kind": "notification", "method": "session/update",
           "payload": {"sessionId": "s", "update": update}})
}

fn user_message(text: &str) -> Value {
    wrapped(json!({"sessionUpdate": "user_message", "content": [{"type": "text", "text": text}]}))
}

fn idle(stop: &str) -> Value {
    wrapped(json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": stop}))
}

fn chunk(text: &str) -> Value {
    wrapped(
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}),
    )
}

/// docs/formats.md §7 ACP 5: `{kind, method, payload}` (v2) and `{kind, payload}`
/// (v1) lines are recognised as ACP and unwrapped; no line is unreadable.
#[test]
fn every_snapshot_envelope_is_detected_and_unwrapped() {
    for name in [
        "subagent-task-legacy",
        "subagent-nested",
        "subagent-agent-async",
        "subagent-late-child-update",
        "subagent-native-sessions",
    ] {
        let msgs = messages(&snapshot(name));
        assert_eq!(msgs[0].content, "prompt 1", "{name}: the v2 user_message");
        assert_eq!(
            cards(&msgs).len(),
            if name == "subagent-nested" { 2 } else { 1 }
        );
    }
    let v1 = import_any(&real(
        "claude-agent-acp/origin-main/plain/subagent-task-legacy.jsonl",
    ))
    .unwrap();
    assert_eq!(v1.dialect, Dialect::Acp);
    assert!(unreadable(&v1.events).is_empty());
    assert_eq!(cards(&messages(&v1.events)).len(), 1);
}

/// docs/formats.md §7 ACP 1: v2 has no `tool_call`; a call first appears as a
/// pending `tool_call_update` and its input arrives on later updates.
#[test]
fn a_call_that_starts_with_an_update_gets_its_input_and_children() {
    let msgs = messages(&snapshot("subagent-task-legacy"));
    let sa = payload(&msgs, "toolu_task");
    assert_eq!(
        (
            sa.subagent_type.as_str(),
            sa.description.as_str(),
            sa.prompt.as_str()
        ),
        ("Explore", "Explore code", "Find the parser")
    );
    assert_eq!(sa.result_text, "The parser is in x.ts.");
    assert_eq!(sa.agent_id, "a1");
    let kids = children(&msgs, "toolu_task");
    assert_eq!(
        kinds(&kids),
        [
            "message",
            "tool_read",
            "tool_execute",
            "tool_edit",
            "message"
        ]
    );
    assert_eq!(kids[0].content, "Looking for the parser.");
    assert_eq!(by_id(&msgs, "toolu_sub_read").content, "Read /x.ts");
}

/// docs/formats.md §7 ACP 1: a permission request carries its call under
/// `subject.toolCall`.
#[test]
fn a_v2_permission_request_is_shown_on_its_call() {
    let msgs = messages(&snapshot("subagent-native-sessions"));
    let bash = by_id(&msgs, "toolu_native_bash");
    assert_eq!(
        bash.metadata.raw["permission"]["status"].as_str(),
        Some("pending")
    );
    assert_eq!(
        bash.metadata.parent_tool_call_id.as_deref(),
        Some("toolu_native")
    );
}

/// docs/formats.md §7 ACP 1: `terminal_update` carries the command's output in
/// base64 and its exit status; the call showing that terminal gets them.
#[test]
fn terminal_updates_give_their_call_its_output_and_exit_code() {
    let msgs = messages(&snapshot("subagent-task-legacy"));
    let bash = by_id(&msgs, "toolu_sub_bash");
    assert_eq!(bash.kind, MessageType::ToolExecute);
    assert_eq!(bash.metadata.raw_str("result"), Some("x.ts"));
    assert_eq!(
        bash.metadata.raw["normalized"]["shell_exec"]["output"]["exit_code"],
        json!(0)
    );
    let failed = messages(&snapshot("subagent-native-sessions"));
    let make = by_id(&failed, "toolu_native_bash");
    assert_eq!(make.metadata.raw_str("result"), Some("make: *** Error 2"));
    assert_eq!(make.metadata.status.as_deref(), Some("error"));
}

/// docs/formats.md §7 ACP 1: `state_update idle` ends a turn: open text closes,
/// a stop reason other than `end_turn` is one status row, and the next
/// `user_message` starts the next turn.
#[test]
fn state_update_idle_ends_the_turn() {
    let msgs = import(&[
        user_message("first"),
        chunk("Work"),
        idle("cancelled"),
        chunk("ing"),
        // The v1 prompt response can say it again: reported once.
        json!({"kind": "promptResponse", "payload": {"stopReason": "cancelled"}}),
        user_message("second"),
        chunk("done"),
        idle("end_turn"),
    ]);
    let rows: Vec<(String, &str, Option<&str>)> = msgs
        .iter()
        .map(|m| {
            (
                m.kind.as_str().to_string(),
                m.content.as_str(),
                m.turn_id.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("message".into(), "first", Some("turn-1")),
            ("message".into(), "Work", Some("turn-1")),
            ("status".into(), "Turn ended: cancelled", Some("turn-1")),
            ("message".into(), "ing", Some("turn-1")),
            ("message".into(), "second", Some("turn-2")),
            ("message".into(), "done", Some("turn-2")),
        ]
    );
}

/// docs/formats.md §7 ACP 2: the adapter sends `in_progress` with a progress
/// tick `toolResponse: {elapsedTimeSeconds, subagentType}`: not a result.
#[test]
fn a_progress_tick_is_not_a_result() {
    let tick = |id: &str| {
        frame(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "in_progress",
            "_meta": {"claudeCode": {"toolName": "Agent",
                "toolResponse": {"elapsedTimeSeconds": 3, "subagentType": "Explore"}}}}),
        )
    };
    let msgs = subagent_with(&[tick("toolu_A")]);
    let sa = payload(&msgs, "toolu_A");
    assert_eq!(sa.result_text, "");
    assert_eq!(sa.status, "");
    assert_eq!(
        by_id(&msgs, "toolu_A").metadata.status.as_deref(),
        Some("in_progress")
    );
    // On the real capture the tick comes before the result and changes nothing.
    let real = messages(&snapshot("subagent-task-legacy"));
    assert_eq!(payload(&real, "toolu_task").status, "completed");
}

/// docs/formats.md §7 ACP 3: a failed subagent's displayed content is fenced;
/// `rawOutput` is plain text and wins; without it the fence is removed.
#[test]
fn fenced_failure_content_is_read_without_its_fence() {
    let real = messages(&snapshot("subagent-native-sessions"));
    let sa = payload(&real, "toolu_native");
    assert_eq!(sa.result_text, "The build still fails.");
    assert_eq!(sa.status, "failed");
    let fenced_only = subagent_with(&[frame(json!({
        "sessionUpdate": "tool_call_update", "toolCallId": "toolu_A", "status": "failed",
        "content": [{"type": "content", "content": {"type": "text", "text": "```\nThe build still fails.\n```"}}],
        "_meta": {"claudeCode": {"toolName": "Agent"}}}))]);
    assert_eq!(
        payload(&fenced_only, "toolu_A").result_text,
        "The build still fails."
    );
}

/// docs/formats.md §7 ACP 4: numbers can arrive as strings; a string that is no
/// number (the snapshot's `"<number>"`) is unknown, not zero.
#[test]
fn numbers_sent_as_strings_are_read() {
    let msgs = subagent_with(&[hook(
        "toolu_A",
        json!({"status": "completed", "totalDurationMs": "1234", "totalTokens": " 56 ",
               "totalToolUseCount": "0", "content": [{"type": "text", "text": "ok"}]}),
    )]);
    let sa = payload(&msgs, "toolu_A");
    assert_eq!(
        (sa.duration_ms, sa.total_tokens, sa.tool_use_count),
        (Some(1234), Some(56), Some(0))
    );
    let v1 = messages(
        &import_any(&real(
            "claude-agent-acp/origin-main/plain/subagent-task-legacy.jsonl",
        ))
        .unwrap()
        .events,
    );
    let sa = payload(&v1, "toolu_task");
    assert_eq!((sa.duration_ms, sa.total_tokens), (None, Some(5)));
}

/// docs/formats.md §7 ACP 4: a child's frame can arrive after its parent
/// completed, without `parentToolUseId`: it stays the parent's child.
#[test]
fn a_late_child_frame_stays_under_its_parent() {
    let msgs = messages(&snapshot("subagent-late-child-update"));
    let read = by_id(&msgs, "toolu_late_read");
    assert_eq!(
        read.metadata.parent_tool_call_id.as_deref(),
        Some("toolu_late")
    );
    assert_eq!(read.metadata.status.as_deref(), Some("complete"));
    assert_eq!(
        payload(&msgs, "toolu_late").result_text,
        "The logs are clean."
    );
    let laid = LaidOut::new(snapshot("subagent-late-child-update"));
    assert!(laid.orphan_parents().is_empty());
    assert_eq!(
        laid.card("toolu_late").child_count_label.as_deref(),
        Some("1 tool call")
    );
}

/// docs/formats.md §7 ACP 4: a nested Agent carries the outer call's
/// `parentToolUseId`; it is a full card inside its parent and counts as one
/// of the parent's tool calls (docs/behaviour.md §3.1 item 5).
#[test]
fn a_nested_agent_is_a_card_inside_its_parent_and_counts() {
    let msgs = messages(&snapshot("subagent-nested"));
    let inner = by_id(&msgs, "toolu_inner");
    assert_eq!(
        inner.metadata.parent_tool_call_id.as_deref(),
        Some("toolu_outer")
    );
    assert_eq!(
        by_id(&msgs, "toolu_grandchild_read")
            .metadata
            .parent_tool_call_id
            .as_deref(),
        Some("toolu_inner")
    );
    let laid = LaidOut::new(snapshot("subagent-nested"));
    assert_eq!(
        laid.card("toolu_outer").child_count_label.as_deref(),
        Some("1 tool call")
    );
    assert_eq!(
        laid.card("toolu_outer").result_summary.as_deref(),
        Some("Plan: do X.")
    );
    assert_eq!(laid.card("toolu_inner").type_label, "Explore");
}

/// docs/formats.md §7 ACP 4 and docs/behaviour.md §1: after a background launch child text
/// keeps arriving with no final completion; `Async agent launched
/// successfully.` is neither the result nor the call's output.
#[test]
fn a_background_launch_shows_no_placeholder() {
    let events = snapshot("subagent-agent-async");
    let msgs = messages(&events);
    let sa = payload(&msgs, "toolu_agent");
    assert_eq!(sa.result_text, "");
    assert!(sa.is_async);
    assert_eq!(sa.agent_id, "a2");
    assert_eq!(by_id(&msgs, "toolu_agent").metadata.raw_str("result"), None);
    assert_eq!(
        children(&msgs, "toolu_agent")
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>(),
        ["Reviewing now."]
    );
    let card = LaidOut::new(events).card("toolu_agent");
    assert_eq!(card.result_summary, None);
    assert!(card.result_body.is_none());
}
