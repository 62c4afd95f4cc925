//! Gemini CLI's chat records (docs/formats.md §8.2) read into the
//! shared session-log fold (`agent_log`): user prompts, model replies with
//! their thoughts and tool calls (a call and its result are one record),
//! `info`/`warning`/`error` lines, and the subagent calls (`invoke_agent`,
//! the older `delegate_to_agent`) whose output names how the agent ended.

use super::super::agent_log::{Dialect, Fold, Owner};
use super::super::build::{Row, RowKind, Stamp};
use super::super::jsonl::Reading;
use super::super::subagent_fold::join_text_blocks;
use super::super::tool::ToolStatus;
use crate::model::message::{str_at, u64_at};
use serde_json::{json, Value};

/// The tools that run a subagent.
const SUBAGENT_TOOLS: [&str; 2] = ["invoke_agent", "delegate_to_agent"];

/// The tool a subagent hands its answer back with: transport, not work.
const HAND_BACK_TOOL: &str = "complete_task";

/// The Gemini CLI dialect of session logs.
pub(super) struct Gemini;

impl Dialect for Gemini {
    fn is_record(v: &Value) -> bool {
        super::is_record(v)
    }

    fn record(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
        if is_structure(v) {
            return Reading::Conversation;
        }
        match str_at(v, "type").as_str() {
            "user" => user(fold, v, owner, stamp),
            "gemini" => model_reply(fold, v, owner, stamp),
            kind @ ("info" | "warning" | "error") => {
                let text = text_of(v.get("content").unwrap_or(&Value::Null));
                if text.trim().is_empty() {
                    return Reading::NoConversation;
                }
                let kind = if kind == "error" {
                    RowKind::Error
                } else {
                    RowKind::Status
                };
                fold.push_row(owner, Row::new("", kind, &text, stamp));
                Reading::Conversation
            }
            _ => Reading::UnknownKind,
        }
    }
}

/// The log's header and its metadata patches: its structure, not rows.
fn is_structure(v: &Value) -> bool {
    v.get("projectHash").is_some() || v.get("$set").is_some() || v.get("$rewindTo").is_some()
}

/// A message's text: a string, or its text parts joined.
fn text_of(content: &Value) -> String {
    join_text_blocks(&match content {
        Value::Array(parts) => Value::Array(
            parts
                .iter()
                .filter_map(|p| p.get("text").cloned())
                .collect(),
        ),
        other => other.clone(),
    })
}

/// A user message: typed text, or the CLI's setup context (not speech); its
/// tool results repeat what the calls already hold, but for a call the CLI
/// refused before running it (no call record holds it): that one is a
/// failed call of its own.
fn user(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let content = v.get("content").unwrap_or(&Value::Null);
    let text = text_of(content);
    if text.trim().is_empty() {
        let responses: Vec<&Value> = content
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.get("functionResponse"))
            .collect();
        for response in &responses {
            let id = str_at(response, "id");
            if fold.has_item(&id) {
                continue;
            }
            let body = response.get("response").unwrap_or(&Value::Null);
            let error = body.get("error").and_then(Value::as_str);
            let output = error
                .or_else(|| body.get("output").and_then(Value::as_str))
                .unwrap_or("");
            fold.tool_use(
                &id,
                &str_at(response, "name"),
                &Value::Null,
                false,
                owner,
                stamp,
            );
            fold.tool_result(&id, output, error.is_some(), None, owner, stamp);
        }
        return if responses.is_empty() {
            Reading::NoConversation
        } else {
            Reading::Conversation
        };
    }
    if text.trim_start().starts_with("<session_context>") {
        return Reading::NoConversation;
    }
    fold.user_text(&text, owner, stamp);
    Reading::Conversation
}

/// A model reply: its thoughts, its text, its tool calls with their
/// results, and its tokens (a subagent's are its card's).
fn model_reply(fold: &mut Fold, v: &Value, owner: &Owner, stamp: &Stamp) -> Reading {
    let id = str_at(v, "id");
    let model = str_at(v, "model");
    let tokens = v
        .get("tokens")
        .and_then(|t| u64_at(t, "total"))
        .unwrap_or(0);
    fold.child_reply(owner, &id, &model, tokens);
    for thought in v
        .get("thoughts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let text = [str_at(thought, "subject"), str_at(thought, "description")]
            .into_iter()
            .filter(|t| !t.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        fold.text_block(&id, RowKind::Thinking, &text, owner, stamp, &model);
    }
    let text = text_of(v.get("content").unwrap_or(&Value::Null));
    fold.text_block(&id, RowKind::AgentText, &text, owner, stamp, &model);
    for call in v
        .get("toolCalls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        tool_call(fold, call, owner, stamp);
    }
    Reading::Conversation
}

/// A tool call and its result. A subagent call's output says how the agent
/// ended and what it answered; its `agentId` names its transcript. A
/// subagent's own hand-back (`complete_task`) is not one of its steps.
fn tool_call(fold: &mut Fold, call: &Value, owner: &Owner, stamp: &Stamp) {
    let name = str_at(call, "name");
    if name == HAND_BACK_TOOL && *owner != Owner::Main {
        return;
    }
    let id = str_at(call, "id");
    let args = call.get("args").cloned().unwrap_or(Value::Null);
    let subagent = SUBAGENT_TOOLS.contains(&name.as_str()) || ran_an_agent(call);
    let input = if subagent {
        launch_input(&name, &args)
    } else {
        args
    };
    fold.tool_use(&id, &name, &input, subagent, owner, stamp);
    let status = str_at(call, "status");
    if status.is_empty() || status == "executing" || status == "scheduled" {
        return;
    }
    let output = call
        .get("result")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.get("functionResponse")?.get("response"))
        .map(|r| {
            ["output", "error"]
                .iter()
                .find_map(|k| r.get(*k).and_then(Value::as_str))
                .unwrap_or("")
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n");
    let output = match call.get("resultDisplay").and_then(Value::as_str) {
        Some(display) if subagent && output.trim().is_empty() => display.to_string(),
        _ => output,
    };
    let outcome = subagent.then(|| agent_outcome(&output, &status));
    let ended = outcome
        .as_ref()
        .map_or(status.as_str(), |(s, _)| s.as_str());
    let failed = ["error", "failed", "cancelled"].contains(&ended);
    let structured = outcome
        .as_ref()
        .map(|(status, answer)| json!({"status": status, "content": answer}));
    let text = match &outcome {
        Some((_, answer)) => answer.as_str(),
        None => output.as_str(),
    };
    // Stamped with its reply: a call's own time is when its whole batch
    // ended, so a subagent's duration is its log's.
    fold.tool_result(&id, text, failed, structured.as_ref(), owner, stamp);
    if ended == "cancelled" {
        if let Some(tool) = fold.tool_entry(&id, owner, stamp) {
            tool.call.status = ToolStatus::Cancelled;
        }
    }
    let agent = str_at(call, "agentId");
    if subagent && !agent.is_empty() {
        fold.name_agent(&id, &agent);
    }
}

/// True for a call of an agent exposed as a tool of its own name (early
/// 2026 builds: `codebase_investigator`, `cli_help`, …): its output (or its
/// display) opens `Subagent <name> Finished` and says how it ended.
fn ran_an_agent(call: &Value) -> bool {
    let says = |text: &str| {
        let text = text.trim_start();
        text.starts_with("Subagent ") && text.contains("Termination Reason:")
    };
    let display = call.get("resultDisplay").and_then(Value::as_str);
    let output = call
        .get("result")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| {
            r.get("functionResponse")?
                .get("response")?
                .get("output")?
                .as_str()
        });
    display.into_iter().chain(output).any(says)
}

/// A subagent call's input in the shape a card folds: its type is the
/// agent's name (`agent_name`), its prompt the `prompt` (`objective` in
/// the older tool), which also describes it when nothing else does.
fn launch_input(name: &str, args: &Value) -> Value {
    let agent = str_at(args, "agent_name");
    let prompt = [str_at(args, "prompt"), str_at(args, "objective")]
        .into_iter()
        .find(|p| !p.trim().is_empty())
        .unwrap_or_default();
    let description = [str_at(args, "description"), prompt.clone()]
        .into_iter()
        .find(|d| !d.trim().is_empty())
        .unwrap_or_default();
    json!({
        "subagent_type": if agent.is_empty() { name.to_string() } else { agent },
        "description": description,
        "prompt": prompt,
    })
}

/// How a subagent ended and what it answered, from its call's output:
/// `Subagent '<name>' finished.\nTermination Reason: <reason>\nResult:\n<answer>`
/// (a goal reached is `completed`, an abort `cancelled`, any other reason
/// `failed`), or `Subagent '<name>' failed. Error: <error>`. An answer that
/// is a JSON object gives its report field (`SummaryOfFindings`, `response`,
/// `result`).
fn agent_outcome(output: &str, call_status: &str) -> (String, String) {
    if let Some((_, error)) = output.split_once(" failed. Error: ") {
        return ("failed".into(), error_message(error));
    }
    // The reason follows on its line, or (the display's layout) on the next.
    let mut lines = output.lines();
    let reason = lines
        .by_ref()
        .find_map(|l| l.strip_prefix("Termination Reason:"))
        .map(str::trim)
        .map(|r| match r {
            "" => lines.next().unwrap_or("").trim(),
            r => r,
        })
        .unwrap_or("");
    let answer = output.split_once("\nResult:\n").map_or(output, |(_, a)| a);
    let status = match (reason, call_status) {
        ("GOAL", _) | ("", "success") => "completed",
        ("ABORTED", _) | (_, "cancelled") => "cancelled",
        _ => "failed",
    };
    (status.into(), report_of(answer))
}

/// The report an answer carries: the text field of a JSON object answer,
/// else the answer.
fn report_of(answer: &str) -> String {
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(answer.trim()) else {
        return answer.to_string();
    };
    ["SummaryOfFindings", "response", "result"]
        .iter()
        .find_map(|k| fields.get(*k).and_then(Value::as_str))
        .map_or_else(|| answer.to_string(), str::to_string)
}

/// An error as words: a JSON error's `message`, else the text.
fn error_message(error: &str) -> String {
    serde_json::from_str::<Value>(error.trim())
        .ok()
        .and_then(|v| v.get("error").map(|e| str_at(e, "message")))
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| error.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subagents_output_says_how_it_ended_and_what_it_answered() {
        let cases = [
            ("Subagent 'planner' finished.\nTermination Reason: GOAL\nResult:\n## Summary\nDone.", ("completed", "## Summary\nDone.")),
            ("Subagent 'g' finished.\nTermination Reason: GOAL\nResult:\n{\n  \"response\": \"## Summary\\nok\"\n}", ("completed", "## Summary\nok")),
            ("Subagent 'c' finished.\nTermination Reason: MAX_TURNS\nResult:\n{\"SummaryOfFindings\": \"partial\"}", ("failed", "partial")),
            ("Subagent 'c' failed. Error: {\"error\":{\"code\":500,\"message\":\"Internal server error\"}}", ("failed", "Internal server error")),
            ("Subagent 'p' failed. Error: Model stream ended with empty response text.", ("failed", "Model stream ended with empty response text.")),
            ("Subagent codebase_investigator Finished\n\nTermination Reason:\n MAX_TURNS\n\nResult:\n{\"SummaryOfFindings\": \"partial\"}", ("failed", "partial")),
        ];
        for (output, (status, answer)) in cases {
            assert_eq!(
                agent_outcome(output, "success"),
                (status.to_string(), answer.to_string()),
                "{output}"
            );
        }
    }
}
