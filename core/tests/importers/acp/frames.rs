//! Folding ACP frames into rows and tool calls (docs/formats.md §1.2–1.4).

use super::*;
use serde_json::{json, Value};
use taskview_core::model::event::Event;
use taskview_core::model::message::MessageType;
use taskview_core::read::import::acp;

#[test]
fn fixture_imports_to_one_explore_card_with_three_children() {
    let msgs = messages(&acp::import(&fixture("dialects/acp-frames.jsonl")).unwrap());
    let cards = cards(&msgs);
    assert_eq!(cards.len(), 1);
    let card = cards[0];
    assert_eq!(
        card.metadata.tool_call_id.as_deref(),
        Some("toolu_01Hq3VbAgentTask9x")
    );
    assert_eq!(card.content, "Map tool_call_update handling");
    assert_eq!(card.metadata.status.as_deref(), Some("complete"));
    let sa = payload(&msgs, "toolu_01Hq3VbAgentTask9x");
    assert_eq!(sa.subagent_type, "Explore");
    assert!(!sa.is_fork);
    assert_eq!(sa.description, "Map tool_call_update handling");
    assert_eq!(sa.status, "completed");
    assert_eq!(sa.agent_id, "a3f9c2e1b7d40c5e8");
    assert_eq!(sa.model, "claude-haiku-4-5-20251001");
    assert_eq!(sa.duration_ms, Some(41870));
    assert_eq!(sa.total_tokens, Some(23418));
    assert_eq!(sa.tool_use_count, Some(3));
    assert!(sa.prompt.starts_with("Find where the ACP adapter converts"));
    assert_eq!(
        summary_line(sa).as_deref(),
        Some("Scope: tool_call_update handling in the ACP adapter.")
    );
    assert!(sa.result_text.ends_with("transport/acp/adapter_tools.go"));
    assert!(!sa.result_text.contains("agentId:"));

    let kids = children(&msgs, "toolu_01Hq3VbAgentTask9x");
    assert_eq!(kinds(&kids), ["tool_search", "tool_read", "tool_execute"]);
    let statuses: Vec<_> = kids
        .iter()
        .map(|m| m.metadata.status.as_deref().unwrap())
        .collect();
    assert_eq!(statuses, ["complete", "complete", "error"]);
    let bash = kids[2].metadata.kind_payload().unwrap();
    assert_eq!(bash["output"]["exit_code"], 1);
    assert!(kids[2]
        .metadata
        .raw_str("result")
        .unwrap()
        .starts_with("Exit code 1"));
    assert_eq!(
        kids[1].metadata.kind_payload().unwrap()["file_path"],
        "/repo/apps/backend/internal/agentctl/server/adapter/transport/acp/adapter_tools.go"
    );
}

#[test]
fn fixture_top_level_rows_fold_chunks_plans_and_the_edit() {
    let msgs = messages(&acp::import(&fixture("dialects/acp-frames.jsonl")).unwrap());
    let top = top_level(&msgs);
    assert_eq!(
        kinds(&top),
        [
            "message",
            "thinking",
            "todo",
            "message",
            "tool_call",
            "todo",
            "tool_edit",
            "message"
        ]
    );
    assert!(top.iter().all(|m| m.turn_id.as_deref() == Some("turn-1")));
    assert!(top[0]
        .content
        .starts_with("Where do we handle tool_call_update frames?"));
    assert_eq!(
        top[1].content,
        "The user wants a code search first; delegate it to an Explore subagent, then make the edit myself."
    );
    assert_eq!(
        top[3].content,
        "I'll send an Explore agent to map the parser first."
    );
    assert_eq!(top[2].metadata.raw["todos"][0]["status"], "in_progress");
    assert_eq!(top[5].metadata.raw["todos"][0]["done"], true);
    let edit = top[6].metadata.kind_payload().unwrap();
    assert_eq!(top[6].metadata.status.as_deref(), Some("complete"));
    let diff = edit["mutations"][0]["diff"].as_str().unwrap();
    assert!(diff.contains("-\tlog.Warn(\"unkown tool call\", \"id\", id)\n"));
    assert!(diff.contains("+\tlog.Warn(\"unknown tool call\", \"id\", id)\n"));
    assert!(top[7].content.ends_with("outside the Go module."));
}

#[test]
fn children_attach_by_parent_tool_use_id_and_keep_it_when_the_hook_omits_it() {
    let child = |id: &str, parent: &str| {
        frame(
            json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": "Read a.go", "kind": "read",
                     "status": "pending", "rawInput": {"file_path": "/a.go"},
                     "_meta": {"claudeCode": {"toolName": "Read", "parentToolUseId": parent}}}),
        )
    };
    let msgs = subagent_with(&[
        child("toolu_c1", "toolu_A"),
        frame(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_c1",
                     "_meta": {"claudeCode": {"toolName": "Read", "toolResponse": {"type": "text"}}}}),
        ),
        frame(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_c1", "status": "completed",
                     "content": [{"type": "content", "content": {"type": "text", "text": "package a"}}]}),
        ),
        frame(
            json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "inside"},
                     "_meta": {"claudeCode": {"parentToolUseId": "toolu_A"}}}),
        ),
    ]);
    let kids = children(&msgs, "toolu_A");
    assert_eq!(kinds(&kids), ["tool_read", "thinking"]);
    assert_eq!(kids[0].metadata.status.as_deref(), Some("complete"));
    assert_eq!(kids[0].metadata.raw_str("result"), Some("package a"));
}

#[test]
fn tool_calls_are_upserted_by_id_never_by_position() {
    let start = |id: &str, parent: &str| {
        frame(
            json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": id, "kind": "execute",
                     "rawInput": {"command": id}, "_meta": {"claudeCode": {"toolName": "Bash", "parentToolUseId": parent}}}),
        )
    };
    let done = |id: &str, out: &str| {
        frame(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed", "rawOutput": out}),
        )
    };
    let msgs = import(&[
        agent_start("toolu_A", "Agent"),
        agent_start("toolu_B", "Task"),
        start("a1", "toolu_A"),
        start("b1", "toolu_B"),
        start("a2", "toolu_A"),
        done("a2", "out a2"),
        done("b1", "out b1"),
        done("a1", "out a1"),
    ]);
    let ids = |card| {
        children(&msgs, card)
            .iter()
            .map(|m| m.id.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids("toolu_A"), ["a1", "a2"]);
    assert_eq!(ids("toolu_B"), ["b1"]);
    for id in ["a1", "a2", "b1"] {
        assert_eq!(
            by_id(&msgs, id).metadata.raw_str("result"),
            Some(format!("out {id}").as_str())
        );
    }
}

#[test]
fn text_and_thought_chunks_merge_until_another_kind_arrives() {
    let chunk = |kind: &str, text: &str| {
        frame(json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}}))
    };
    let msgs = import(&[
        chunk("agent_thought_chunk", "a"),
        chunk("agent_thought_chunk", "b"),
        chunk("agent_message_chunk", ""),
        chunk("agent_message_chunk", "c"),
        frame(json!({"sessionUpdate": "usage_update", "size": 1000, "used": 10})),
        chunk("agent_message_chunk", "d"),
        frame(
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "ls", "kind": "execute"}),
        ),
        chunk("agent_message_chunk", "e"),
        chunk("agent_thought_chunk", "f"),
    ]);
    let expect = [
        ("thinking", "ab"),
        ("message", "cd"),
        ("tool_execute", "ls"),
        ("message", "e"),
        ("thinking", "f"),
    ];
    assert_eq!(kinds_and_contents(&msgs), expect);
    assert_eq!(msgs[0].metadata.raw_str("thinking"), Some("ab"));
}

#[test]
fn a_terminal_status_survives_late_and_null_status_frames() {
    let update = |status: Value| {
        frame(json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": status}))
    };
    let msgs = import(&[
        frame(
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "x", "status": "pending"}),
        ),
        update(json!(null)),
        update(json!("in_progress")),
        update(json!("failed")),
        update(json!("in_progress")),
        update(json!(null)),
    ]);
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].metadata.status.as_deref(), Some("error"));
}

#[test]
fn an_update_for_an_unknown_id_creates_the_call() {
    let msgs = import(&[frame(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "late",
                                      "title": "Fetch docs", "status": "completed", "rawOutput": "ok"}),
    )]);
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].id, "late");
    assert_eq!(msgs[0].kind, MessageType::ToolCall);
    assert_eq!(msgs[0].metadata.status.as_deref(), Some("complete"));
    assert_eq!(msgs[0].metadata.raw_str("result"), Some("ok"));
}

#[test]
fn turns_come_from_prompt_requests_and_responses() {
    let prompt = |id: u64, text: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
               "params": {"sessionId": "sess_1", "prompt": [{"type": "text", "text": text}]}})
    };
    let response =
        |id: u64, stop: &str| json!({"jsonrpc": "2.0", "id": id, "result": {"stopReason": stop}});
    let msgs = import(&[
        prompt(3, "first"),
        frame(
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "slow", "status": "pending"}),
        ),
        prompt(4, "second"),
        frame(
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "on it"}}),
        ),
        frame(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
        ),
        response(3, "end_turn"),
        response(4, "cancelled"),
        json!({"jsonrpc": "2.0", "id": 9, "error": {"code": -32603, "message": "ignored: no such prompt"}}),
    ]);
    let rows: Vec<(String, String, String)> = msgs
        .iter()
        .map(|m| {
            (
                m.kind.as_str().into(),
                m.content.clone(),
                m.turn_id.clone().unwrap_or_default(),
            )
        })
        .collect();
    let expect = [
        ("message", "first", "turn-1"),
        ("tool_call", "slow", "turn-1"),
        ("message", "second", "turn-2"),
        ("message", "on it", "turn-2"),
        ("status", "Turn ended: cancelled", "turn-2"),
    ];
    assert_eq!(rows, expect.map(|(a, b, c)| (a.into(), b.into(), c.into())));
    assert_eq!(msgs[0].author.as_str(), "user");
    assert_eq!(msgs[1].metadata.status.as_deref(), Some("complete"));
    assert!(msgs.iter().all(|m| m.session_id == "sess_1"));
}

#[test]
fn a_failed_prompt_response_is_an_error_row() {
    let msgs = import(&[
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}}),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "model overloaded"}}),
    ]);
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].kind, MessageType::Error);
    assert_eq!(msgs[0].content, "Prompt failed: model overloaded");
}

#[test]
fn every_accepted_line_shape_is_read() {
    let update = |id: &str| json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": id});
    let lines = [
        frame(update("raw")),
        json!({"ts": 1760000000000u64, "protocol": "acp", "agent": "claude-acp", "event": "session_notification",
               "data": {"sessionId": "sess_log", "update": update("debug-log")}}),
        json!({"sessionId": "sess_bare", "update": update("notification")}),
        update("bare-update"),
        json!({"ts": 1, "protocol": "acp", "event": "agent_stderr", "data": "some log text"}),
    ];
    let events = acp::import(&text_of(&lines)).unwrap();
    let msgs = messages(&events);
    let ids: Vec<_> = msgs
        .iter()
        .map(|m| (m.id.as_str(), m.session_id.as_str()))
        .collect();
    assert_eq!(
        ids,
        [
            ("raw", "sess_1"),
            ("debug-log", "sess_log"),
            ("notification", "sess_bare"),
            ("bare-update", "")
        ]
    );
    assert!(unreadable(&events).is_empty());
}

#[test]
fn unknown_variants_are_ignored_and_unreadable_lines_keep_their_position() {
    let text = [
        frame(json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}})).to_string(),
        "not json at all".to_string(),
        frame(json!({"sessionUpdate": "available_commands_update", "availableCommands": []})).to_string(),
        frame(json!({"sessionUpdate": "subagent_update", "sessionId": "child"})).to_string(),
        json!({"foo": 1}).to_string(),
        frame(json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "later"})).to_string(),
        "[1, 2]".to_string(),
    ]
    .join("\n");
    let events = acp::import(&text).unwrap();
    let shape: Vec<String> = events
        .iter()
        .map(|e| match e {
            Event::MessageAdded(m) => m.content.clone(),
            Event::Unreadable { raw, .. } => format!("?{raw}"),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        shape,
        ["a", "?not json at all", "?{\"foo\":1}", "later", "?[1, 2]"]
    );
}

#[test]
fn a_file_without_any_acp_frame_is_refused() {
    assert!(acp::import("{\"foo\": 1}\ngarbage").is_err());
    assert!(acp::import("").is_err());
}

#[test]
fn a_permission_request_is_shown_on_its_tool_call_and_settled_by_the_reply() {
    let msgs = import(&[
        frame(
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "rm -rf build", "kind": "execute",
                     "status": "pending", "rawInput": {"command": "rm -rf build"}}),
        ),
        json!({"jsonrpc": "2.0", "id": 7, "method": "session/request_permission",
               "params": {"sessionId": "sess_1", "toolCall": {"toolCallId": "t1"},
                          "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                                      {"optionId": "no", "name": "Reject", "kind": "reject_once"}]}}),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"outcome": {"outcome": "selected", "optionId": "no"}}}),
    ]);
    assert_eq!(msgs.len(), 1);
    let permission = &msgs[0].metadata.raw["permission"];
    assert_eq!(permission["status"], "rejected");
    assert_eq!(permission["option_id"], "no");
    assert_eq!(permission["options"].as_array().map(Vec::len), Some(2));
}
