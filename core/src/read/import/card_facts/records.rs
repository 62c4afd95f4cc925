//! What each dialect's records say of a card's facts (docs/formats.md for
//! the record shapes): the time, the folder, the model, each request's usage
//! and a wait on the user.

use super::{Tally, Usage};
use crate::model::card_facts::NANOS_PER_USD;
use crate::model::pricing::Request;
use crate::read::import::detect::Dialect;
use serde_json::Value;

/// A count at `key` of `v`, 0 when absent.
fn n(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Reads one record of `dialect` into the tally.
pub(super) fn read(t: &mut Tally, dialect: Dialect, v: &Value, agent: Option<&str>) {
    match dialect {
        Dialect::ClaudeCode => claude_code(t, v, agent),
        Dialect::QwenCode => qwen_code(t, v, agent),
        Dialect::GeminiCli => gemini_cli(t, v, agent),
        Dialect::Codex => codex(t, v, agent),
        Dialect::Copilot => copilot(t, v),
        Dialect::Kimi => kimi(t, v, agent),
        Dialect::Acp => acp(t, v),
        Dialect::Otlp => super::otlp::read(t, v),
        _ => {}
    }
}

/// The time and folder every agent-log record carries.
fn time_and_folder(t: &mut Tally, v: &Value, agent: Option<&str>) {
    t.saw_time(s(v, "timestamp"), agent.is_none());
    if agent.is_none() {
        t.saw_project(s(v, "cwd"));
    }
}

/// A forked session's copy of a record of its origin (Claude Code's
/// `requestSessionId` naming another session, qwen-code's `forkedFrom`):
/// what it spent is the origin's card's (docs/board.md "Cost").
fn copied(v: &Value) -> bool {
    let from = s(v, "requestSessionId");
    (!from.is_empty() && from != s(v, "sessionId")) || v.get("forkedFrom").is_some()
}

/// A model name worth showing: not Claude Code's `<synthetic>` replies.
fn real_model(model: &str) -> &str {
    if model.starts_with('<') {
        ""
    } else {
        model
    }
}

/// Claude Code: each reply's `message.usage`, repeated on every record of
/// the reply (one per content block), final once `stop_reason` is written.
fn claude_code(t: &mut Tally, v: &Value, agent: Option<&str>) {
    time_and_folder(t, v, agent);
    if agent.is_none() && v["isSidechain"] != Value::Bool(true) {
        questions(t, v);
        aborted(t, v);
    }
    if s(v, "type") == "system" && s(v, "subtype") == "compact_boundary" {
        // The summary request of a compaction writes no usage.
        t.unrecorded(agent);
    }
    let message = &v["message"];
    if s(v, "type") != "assistant" || !message["usage"].is_object() || copied(v) {
        return;
    }
    let u = &message["usage"];
    let usage = Usage {
        id: message.get("id").and_then(Value::as_str),
        model: real_model(s(message, "model")),
        request: Request {
            input: n(u, "input_tokens"),
            output: n(u, "output_tokens"),
            cache_read: n(u, "cache_read_input_tokens"),
            cache_write: n(u, "cache_creation_input_tokens"),
        },
        finished: message["stop_reason"].is_string(),
        recorded: None,
    };
    t.request(agent, usage);
}

/// Claude Code's `AskUserQuestion`: the agent asked the user and waits
/// until a tool result answers the call (its turn cannot go on without
/// one).
fn questions(t: &mut Tally, v: &Value) {
    let Some(blocks) = v["message"]["content"].as_array() else {
        return;
    };
    for block in blocks {
        match (s(v, "type"), s(block, "type")) {
            ("assistant", "tool_use") if s(block, "name") == "AskUserQuestion" => {
                t.wait(s(block, "id").to_string(), "answer");
            }
            ("user", "tool_result") => t.answered(s(block, "tool_use_id")),
            _ => {}
        }
    }
}

/// Claude Code: the user stopped the turn (`[Request interrupted by user…]`),
/// or began another with a prompt of theirs.
fn aborted(t: &mut Tally, v: &Value) {
    if s(v, "type") != "user" || v.get("toolUseResult").is_some() {
        return;
    }
    let content = &v["message"]["content"];
    let text = match content {
        Value::String(text) => text.as_str(),
        _ => content[0]["text"].as_str().unwrap_or(""),
    };
    if text.is_empty() {
        return;
    }
    t.aborted(text.starts_with("[Request interrupted by user"));
}

/// qwen-code: an assistant record's `usageMetadata` (the prompt includes
/// its cached part, the candidates its thoughts: their sum is the total).
fn qwen_code(t: &mut Tally, v: &Value, agent: Option<&str>) {
    time_and_folder(t, v, agent);
    let u = &v["usageMetadata"];
    if s(v, "type") != "assistant" || !u.is_object() || copied(v) {
        return;
    }
    let cached = n(u, "cachedContentTokenCount");
    let usage = Usage {
        id: v.get("uuid").and_then(Value::as_str),
        model: s(v, "model"),
        request: Request {
            input: n(u, "promptTokenCount").saturating_sub(cached),
            output: n(u, "candidatesTokenCount"),
            cache_read: cached,
            cache_write: 0,
        },
        finished: true,
        recorded: None,
    };
    t.request(agent, usage);
}

/// Gemini CLI: a `gemini` message's `tokens` (its input includes the cached
/// part; thoughts are output, tool-use prompts input), written again when
/// the message is.
fn gemini_cli(t: &mut Tally, v: &Value, agent: Option<&str>) {
    t.saw_time(s(v, "timestamp"), agent.is_none());
    let u = &v["tokens"];
    if s(v, "type") != "gemini" || !u.is_object() {
        return;
    }
    let cached = n(u, "cached");
    let usage = Usage {
        id: v.get("id").and_then(Value::as_str),
        model: s(v, "model"),
        request: Request {
            input: n(u, "input").saturating_sub(cached) + n(u, "tool"),
            output: n(u, "output") + n(u, "thoughts"),
            cache_read: cached,
            cache_write: 0,
        },
        finished: true,
        recorded: None,
    };
    t.request(agent, usage);
}

/// Codex: a thread's `token_count` events carry its running total (OpenAI's
/// counts: the input includes its cached part); `turn_context` its model.
fn codex(t: &mut Tally, v: &Value, agent: Option<&str>) {
    t.saw_time(s(v, "timestamp"), agent.is_none());
    let payload = &v["payload"];
    match s(v, "type") {
        "session_meta" | "turn_context" => {
            if agent.is_none() {
                t.saw_project(s(payload, "cwd"));
            }
            let model = s(payload, "model");
            if !model.is_empty() {
                t.part_model(agent, model);
            }
        }
        "event_msg" if s(payload, "type") == "token_count" => {
            let u = &payload["info"]["total_token_usage"];
            if !u.is_object() {
                return;
            }
            let cached = n(u, "cached_input_tokens");
            let written = n(u, "cache_write_input_tokens");
            let total = Request {
                input: n(u, "input_tokens").saturating_sub(cached + written),
                output: n(u, "output_tokens"),
                cache_read: cached,
                cache_write: written,
            };
            let model = t.model_of(agent);
            t.running_total(agent, &model, total);
        }
        // The user stopped the turn; a new one starts afresh.
        "event_msg" if agent.is_none() => match s(payload, "type") {
            "turn_aborted" => t.aborted(true),
            "task_started" | "user_message" => t.aborted(false),
            _ => {}
        },
        _ => {}
    }
}

/// Copilot CLI: `session.usage_record` per request, a subagent's with its
/// `agentId`; its `cost` is not in dollars (premium requests), so the table
/// prices it.
fn copilot(t: &mut Tally, v: &Value) {
    let agent = v.get("agentId").and_then(Value::as_str);
    t.saw_time(s(v, "timestamp"), agent.is_none());
    let data = &v["data"];
    match s(v, "type") {
        "session.start" => t.saw_project(s(&data["context"], "cwd")),
        "session.usage_record" => {
            let u = &data["usage"];
            let usage = Usage {
                id: v.get("id").and_then(Value::as_str),
                model: s(u, "model"),
                request: Request {
                    input: n(u, "inputTokens"),
                    output: n(u, "outputTokens"),
                    cache_read: n(u, "cacheReadTokens"),
                    cache_write: n(u, "cacheWriteTokens"),
                },
                finished: true,
                recorded: None,
            };
            t.request(agent, usage);
        }
        _ => {}
    }
}

/// Kimi Code: `usage.record` per turn of each agent's wire, its time in ms.
fn kimi(t: &mut Tally, v: &Value, agent: Option<&str>) {
    if let Some(ms) = v.get("time").and_then(Value::as_i64) {
        t.saw_millis(ms, agent.is_none());
    }
    if s(v, "type") != "usage.record" {
        return;
    }
    let u = &v["usage"];
    let usage = Usage {
        id: None,
        model: s(v, "model"),
        request: Request {
            input: n(u, "inputOther"),
            output: n(u, "output"),
            cache_read: n(u, "inputCacheRead"),
            cache_write: n(u, "inputCacheCreation"),
        },
        finished: true,
        recorded: None,
    };
    t.request(agent, usage);
}

/// ACP frames: the agent's own running cost (`usage_update.cost`, its
/// subagents' included), its model, and the permission it asks of the
/// client until the client answers.
fn acp(t: &mut Tally, v: &Value) {
    let params = &v["params"];
    match s(v, "method") {
        "session/new" | "session/load" => t.saw_project(s(params, "cwd")),
        "session/update" => {
            let update = &params["update"];
            if s(update, "sessionUpdate") != "usage_update" {
                return;
            }
            t.saw_model(s(&update["_meta"], "_claude/model"));
            let cost = &update["cost"];
            if s(cost, "currency").eq_ignore_ascii_case("USD") {
                if let Some(usd) = cost["amount"].as_f64().filter(|u| u.is_finite()) {
                    t.recorded_total((usd.max(0.0) * NANOS_PER_USD).round() as u64);
                }
            }
        }
        "session/request_permission" => {
            let what = if s(&params["toolCall"], "name") == "AskUserQuestion" {
                "answer"
            } else {
                "permission"
            };
            t.wait(v["id"].to_string(), what);
        }
        "" => acp_reply(t, v),
        _ => {}
    }
}

/// A reply: the client answering a wait.
fn acp_reply(t: &mut Tally, v: &Value) {
    if v.get("id").is_some() && (v.get("result").is_some() || v.get("error").is_some()) {
        t.answered(&v["id"].to_string());
    }
}

/// OpenCode: an export's assistant messages, each with its tokens and the
/// cost OpenCode recorded (0 where it knows no price: the table prices it).
pub(super) fn opencode(t: &mut Tally, doc: &Value, agent: Option<&str>) {
    if agent.is_none() {
        t.saw_project(s(&doc["info"], "directory"));
    }
    let Some(messages) = doc["messages"].as_array() else {
        return;
    };
    for info in messages.iter().map(|m| &m["info"]) {
        if let Some(ms) = info["time"]["created"].as_i64() {
            t.saw_millis(ms, agent.is_none());
        }
        if s(info, "role") != "assistant" || !info["tokens"].is_object() {
            continue;
        }
        let u = &info["tokens"];
        let cost = info["cost"].as_f64().filter(|c| c.is_finite() && *c > 0.0);
        let usage = Usage {
            id: info.get("id").and_then(Value::as_str),
            model: s(info, "modelID"),
            request: Request {
                input: n(u, "input"),
                output: n(u, "output") + n(u, "reasoning"),
                cache_read: n(&u["cache"], "read"),
                cache_write: n(&u["cache"], "write"),
            },
            finished: info["time"]["completed"].is_number(),
            recorded: cost.map(|c| (c * NANOS_PER_USD).round() as u64),
        };
        t.request(agent, usage);
    }
}
