//! Codex rollouts (docs/formats.md §8.4): the rules the captures'
//! tests (`captures`) do not name, on records shaped like Codex 0.171.0's.

use crate::common::*;
use serde_json::{json, Value};
use taskview_core::read::import::{codex, detect, Dialect};
use taskview_testkit::captures::capture;

const MAIN: &str = "01a2419f-0000-7000-8000-00000000000a";
const CHILD: &str = "01a2419f-0000-7000-8000-00000000000b";

fn record(second: u32, kind: &str, payload: Value) -> Value {
    json!({"timestamp": format!("2026-12-04T15:15:{second:02}.000Z"), "type": kind, "payload": payload})
}

fn meta(second: u32, id: &str, parent: Option<&str>) -> Value {
    let source = match parent {
        Some(p) => {
            json!({"subagent": {"thread_spawn": {"parent_thread_id": p, "depth": 1, "agent_nickname": "Ampere"}}})
        }
        None => json!("exec"),
    };
    record(
        second,
        "session_meta",
        json!({"id": id, "source": source, "parent_thread_id": parent}),
    )
}

fn user(second: u32, id: &str, text: &str) -> Value {
    record(
        second,
        "response_item",
        json!({"type": "message", "id": id, "role": "user", "content": [{"type": "input_text", "text": text}]}),
    )
}

fn reply(second: u32, id: &str, text: &str) -> Value {
    record(
        second,
        "response_item",
        json!({"type": "message", "id": id, "role": "assistant", "content": [{"type": "output_text", "text": text}]}),
    )
}

fn call(second: u32, id: &str, name: &str, args: Value) -> Value {
    record(
        second,
        "response_item",
        json!({"type": "function_call", "name": name, "arguments": args.to_string(), "call_id": id}),
    )
}

fn output(second: u32, id: &str, output: &str) -> Value {
    record(
        second,
        "response_item",
        json!({"type": "function_call_output", "call_id": id, "output": output}),
    )
}

fn event(second: u32, payload: Value) -> Value {
    record(second, "event_msg", payload)
}

/// A parent that spawns one agent and, if `waits`, waits for it: the wait
/// returns its answer, its notification repeats it, and closing it after
/// it finished (`shutdown` would read as a stop) changes nothing.
fn parent(waits: bool) -> String {
    let mut records = vec![
        meta(0, MAIN, None),
        record(
            0,
            "response_item",
            json!({"type": "message", "role": "developer",
            "content": [{"type": "input_text", "text": "<permissions instructions>x</permissions instructions>"}]}),
        ),
        user(
            0,
            "u0",
            "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
        ),
        record(0, "turn_context", json!({"model": "gpt-5-codex"})),
        user(1, "u1", "Audit it; delegate to a lead."),
        call(
            2,
            "call_spawn",
            "spawn_agent",
            json!({"message": "Lead the audit."}),
        ),
        output(
            2,
            "call_spawn",
            &json!({"agent_id": CHILD, "nickname": "Ampere"}).to_string(),
        ),
    ];
    if waits {
        let done = json!({"completed": "## Summary\n\nNo panics."});
        records.extend([
            call(3, "call_wait", "wait_agent", json!({"targets": [CHILD]})),
            output(
                8,
                "call_wait",
                &json!({"status": {CHILD: done}, "timed_out": false}).to_string(),
            ),
            user(
                8,
                "u2",
                &format!(
                    "<subagent_notification>\n{}\n</subagent_notification>",
                    json!({"agent_path": CHILD, "status": done})
                ),
            ),
            call(9, "call_close", "close_agent", json!({"target": CHILD})),
            output(
                9,
                "call_close",
                &json!({"previous_status": done}).to_string(),
            ),
            user(
                9,
                "u3",
                &format!(
                    "<subagent_notification>\n{}\n</subagent_notification>",
                    json!({"agent_path": CHILD, "status": "shutdown"})
                ),
            ),
        ]);
    }
    records.push(reply(10, "r1", "## Summary\n\nThe lead found no panics."));
    lines(&records)
}

fn child() -> String {
    lines(&[
        meta(2, CHILD, Some(MAIN)),
        record(2, "turn_context", json!({"model": "gpt-5.1-codex-mini"})),
        user(2, "c0", "Lead the audit."),
        call(3, "call_cat", "exec_command", json!({"cmd": "cat src/lexer.rs"})),
        output(
            4,
            "call_cat",
            "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nfn lex() {}\n",
        ),
        event(5, json!({"type": "token_count", "info": {"total_token_usage": {"total_tokens": 4100}}})),
        reply(6, "c1", "## Summary\n\nNo panics."),
        event(7, json!({"type": "token_count", "info": {"total_token_usage": {"total_tokens": 9000}}})),
        event(7, json!({"type": "task_complete", "turn_id": "t", "last_agent_message": "## Summary\n\nNo panics."})),
    ])
}

#[test]
fn a_codex_rollout_is_detected_by_its_envelopes() {
    assert_eq!(detect(&parent(true)), Some(Dialect::Codex));
    assert_eq!(
        detect(&meta(0, MAIN, None).to_string()),
        Some(Dialect::Codex),
        "a one-line rollout is no kandev document"
    );
}

/// The CLI's instructions and environment are no speech; a spawn is a
/// card described by its prompt and named by the agent's nickname; the
/// transport calls (`wait_agent`, `close_agent`) and notifications are no
/// rows, and closing a finished agent does not stop it.
#[test]
fn a_spawned_agent_is_a_card_settled_by_what_its_parent_receives() {
    let msgs =
        messages(&codex::import_with_files(&parent(true), &[("b.jsonl", &child())]).unwrap());
    let top: Vec<&str> = msgs
        .iter()
        .filter(|m| m.metadata.parent_tool_call_id.is_none())
        .map(|m| m.id.as_str())
        .collect();
    assert_eq!(top, ["u1", "call_spawn", "r1"]);
    let sa = payload(&msgs, "call_spawn");
    assert_eq!(
        (
            sa.subagent_type.as_str(),
            sa.description.as_str(),
            sa.status.as_str(),
            sa.result_text.as_str(),
        ),
        (
            "Ampere",
            "Lead the audit.",
            "completed",
            "## Summary\n\nNo panics."
        )
    );
    assert!(sa.is_async, "Codex agents run in the background");
}

/// A child thread's rollout is its card's children (its prompt is the
/// card's); its model is its `turn_context`'s, its tokens its last
/// `token_count`'s, its duration its first to last record; a command's
/// output loses the CLI's header.
#[test]
fn a_child_threads_rollout_is_its_cards_children_with_its_model_and_tokens() {
    let msgs =
        messages(&codex::import_with_files(&parent(true), &[("b.jsonl", &child())]).unwrap());
    let inside: Vec<&str> = children(&msgs, "call_spawn")
        .iter()
        .map(|m| m.id.as_str())
        .collect();
    assert_eq!(inside, ["call_cat"], "the final reply repeats the answer");
    let cat = msgs.iter().find(|m| m.id == "call_cat").unwrap();
    assert_eq!(cat.metadata.raw_str("result"), Some("fn lex() {}\n"));
    let sa = payload(&msgs, "call_spawn");
    assert_eq!(sa.model, "gpt-5.1-codex-mini");
    assert_eq!(sa.total_tokens, Some(9000));
    assert_eq!(sa.duration_ms, Some(5000));
}

/// A parent that never waited (the session was cut, or it is still
/// running): the child's own `task_complete` settles its card.
#[test]
fn a_childs_own_end_settles_a_card_its_parent_never_waited_for() {
    let msgs =
        messages(&codex::import_with_files(&parent(false), &[("b.jsonl", &child())]).unwrap());
    let sa = payload(&msgs, "call_spawn");
    assert_eq!(
        (sa.status.as_str(), sa.result_text.as_str()),
        ("completed", "## Summary\n\nNo panics.")
    );
    let alone = messages(&codex::import(&parent(false)).unwrap());
    let card = alone.iter().find(|m| m.id == "call_spawn").unwrap();
    assert_eq!(
        card.metadata.raw_str("status"),
        Some("in_progress"),
        "without its rollout it is still running"
    );
}

/// Only the threads that descend from the one opened are read: a rollout
/// of another session beside it is not.
#[test]
fn a_rollout_of_another_session_beside_it_is_not_read() {
    let other = lines(&[
        meta(0, "01a2419f-0000-7000-8000-0000000000ff", None),
        user(1, "o1", "Something else."),
    ]);
    let with =
        codex::import_with_files(&parent(true), &[("b.jsonl", &child()), ("o.jsonl", &other)])
            .unwrap();
    let without = codex::import_with_files(&parent(true), &[("b.jsonl", &child())]).unwrap();
    assert_eq!(with, without);
}

/// A fork's rollout repeats its parent's history (the parent's
/// `session_meta` and records up to the fork's own first record): it is
/// not the fork's work, and is skipped and counted.
#[test]
fn a_forks_copy_of_its_parents_history_is_skipped_and_counted() {
    let c = capture("codex-0.171.0/fork");
    let events = codex::import_with_files(&c.session, &c.file_refs()).unwrap();
    let msgs = messages(&events);
    for card in cards(&msgs) {
        let sa = card.metadata.subagent.as_ref().unwrap();
        assert!(sa.is_fork, "{}", sa.description);
        let inside = children(&msgs, card.metadata.tool_call_id.as_deref().unwrap());
        assert_eq!(inside.len(), 1, "{}: its one command", sa.description);
        assert!(inside.iter().all(|m| m.author.as_str() != "user"));
    }
    let inherited = not_shown(&events)
        .into_iter()
        .find(|(kind, _)| kind == "fork's inherited history")
        .map(|(_, n)| n);
    assert_eq!(inherited, Some(14), "seven records copied into each fork");
}

/// A stopped agent (closed while it ran: `shutdown`) reads cancelled, and
/// its rollout's interrupted turn is one status line in its card.
#[test]
fn a_stopped_agent_reads_cancelled() {
    let c = capture("codex-0.171.0/stopped");
    let msgs = messages(&codex::import_with_files(&c.session, &c.file_refs()).unwrap());
    let stopped: Vec<&str> = cards(&msgs)
        .iter()
        .filter(|m| m.metadata.subagent.as_ref().unwrap().status == "cancelled")
        .map(|m| m.metadata.tool_call_id.as_deref().unwrap())
        .collect();
    assert_eq!(stopped.len(), 1);
    let lines: Vec<&str> = children(&msgs, stopped[0])
        .iter()
        .filter(|m| m.kind.as_str() == "status")
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(lines, ["Turn aborted: interrupted"]);
}
