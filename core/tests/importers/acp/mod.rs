//! ACP frames (docs/formats.md §1): the helpers that build frames, and
//! the suites by job: folding frames into rows, subagent payloads, the
//! adapter's real protocol-v2 captures, sessions opened again, a turn the
//! client cancelled.

use crate::common::*;
use serde_json::{json, Value};
use taskview_core::model::message::Message;
use taskview_core::read::import::acp;

mod cancel;
mod frames;
mod real;
mod reopen;
mod subagent;

pub fn frame(update: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update",
           "params": {"sessionId": "sess_1", "update": update}})
}

pub fn text_of(frames: &[Value]) -> String {
    frames
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn import(frames: &[Value]) -> Vec<Message> {
    messages(&acp::import(&text_of(frames)).expect("ACP import"))
}

/// The first frame of a Claude subagent: no input yet (docs/formats.md §1.5 step 1).
pub fn agent_start(id: &str, tool_name: &str) -> Value {
    frame(
        json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": "Task", "kind": "think",
                 "status": "pending", "rawInput": {}, "content": [],
                 "_meta": {"claudeCode": {"toolName": tool_name}}}),
    )
}

/// The update that carries the full input (step 2).
pub fn agent_input(id: &str, input: Value) -> Value {
    frame(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                 "title": input["description"], "kind": "think", "rawInput": input,
                 "content": [{"type": "content", "content": {"type": "text", "text": input["prompt"]}}],
                 "_meta": {"claudeCode": {"toolName": "Agent"}}}),
    )
}

/// The PostToolUse hook frame: `toolResponse`, no status (step 3).
pub fn hook(id: &str, response: Value) -> Value {
    frame(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                 "_meta": {"claudeCode": {"toolName": "Agent", "toolResponse": response}}}),
    )
}

/// The tool-result frame (step 4).
pub fn finished(id: &str, status: &str, raw_output: Value) -> Value {
    frame(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": status,
                 "rawOutput": raw_output, "_meta": {"claudeCode": {"toolName": "Agent"}}}),
    )
}

pub fn explore_input() -> Value {
    json!({"description": "Map the parser", "prompt": "Find the parser.", "subagent_type": "Explore"})
}

/// A subagent with input, then the given frames.
pub fn subagent_with(frames: &[Value]) -> Vec<Message> {
    let mut all = vec![
        agent_start("toolu_A", "Agent"),
        agent_input("toolu_A", explore_input()),
    ];
    all.extend_from_slice(frames);
    import(&all)
}

pub const TRAILER: &str = "agentId: a3f9c2e1b7d40c5e8 (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 23418\ntool_uses: 3\nduration_ms: 41870</usage>";
