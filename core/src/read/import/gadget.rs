//! Gadget-style stored turns (docs/formats.md §4; seeds: the gadget
//! subagent-context design): `{sessionId, turns: [{turnId, createdAt,
//! userMessage, thinking, toolCalls, response}]}`, a bare array of turns, or
//! one turn.
//!
//! Each turn becomes, in order: the user row, the thinking row, the tool
//! calls, the agent's response row. A tool call named `subagent` is a
//! subagent card, resolved by the backward-compatible chain:
//! 1. a structured `subagent` record: `prompt`, `response` → `result_text`,
//!    `thinking` → a thinking row inside the card, `toolCalls` → its children
//!    (recursively), `stats` → metrics (`toolCallCount|toolUseCount`,
//!    `durationMs`, `totalTokens|inputTokens+outputTokens`, `model`), the tool
//!    count falling back to the number of nested calls;
//! 2. otherwise `response` parsed as a `{success, data: {response, …}}`
//!    envelope: `result_text = data.response` (or the envelope's `error`),
//!    `success: false` → failed, the other `data` keys read as stats and kept
//!    in `metadata.envelope_data`;
//! 3. otherwise the raw `response` string, verbatim.
//!
//! A subagent's `metadata.parent_received` is what the master agent's context
//! received (the gadget design's replay rule): `subagent.response`, else the
//! raw `response`; the card shows it apart from the subagent's record
//! (docs/behaviour.md §8). A turn's `spills: [{spillId, toolCallId?, content}]` rows
//! (a context editor's stored outputs, docs/behaviour.md §4) become rows marked
//! `spill_id` beside the call whose output they hold.
//!
//! `description` and the type come from `parameters.description` and
//! `parameters.subagentType` (or `subagent_type`); no type means the generic
//! `subagent` chip (gadget has no implicit forks). Ordinary tool calls use the
//! same envelope for their status (`success: false` → error, output = its
//! `error`). Records that are not objects become unreadable rows; a truncated
//! file keeps every turn before the cut.

use super::build::{Row, RowKind, Stamp};
use super::fold::Ordered;
use super::tool::{ToolCall, ToolKind, ToolStatus};
use crate::model::event::Event;
use crate::model::message::{json_kind, str_at, u64_at, Message, SubagentTask};
use serde_json::Value;

/// Turns a gadget turn document into events.
pub fn import(text: &str) -> Result<Vec<Event>, String> {
    let body = text.trim_start_matches('\u{feff}').trim();
    let mut fold = Fold::default();
    match serde_json::from_str::<Value>(body) {
        Ok(doc) => {
            let (session, turns) = turns_of(&doc).ok_or_else(|| {
                format!(
                    "expected gadget turns (an object with \"turns\"), found {}",
                    json_kind(&doc)
                )
            })?;
            fold.session = session;
            for turn in turns {
                fold.turn(turn);
            }
        }
        Err(e) => fold.recover_truncated(body, &e.to_string())?,
    }
    Ok(fold.items.into_events(|item| Some(item.to_message())))
}

/// True when `text` looks like gadget turns.
pub fn looks_like(text: &str) -> bool {
    let body = text.trim_start_matches('\u{feff}').trim();
    match serde_json::from_str::<Value>(body) {
        Ok(v) => looks_like_value(&v),
        Err(_) => {
            body.starts_with('{')
                && body
                    .get(..4096.min(body.len()))
                    .is_some_and(|h| h.contains("\"turns\""))
        }
    }
}

/// True when a parsed document holds gadget turns.
pub(crate) fn looks_like_value(v: &Value) -> bool {
    turns_of(v).is_some()
}

/// The session id and the turns of a document in any accepted shape.
fn turns_of(doc: &Value) -> Option<(String, Vec<&Value>)> {
    let is_turn = |t: &Value| {
        ["toolCalls", "userMessage", "turnId"]
            .iter()
            .any(|k| t.get(*k).is_some())
    };
    match doc {
        Value::Object(o) => match o.get("turns") {
            Some(Value::Array(turns)) => Some((str_at(doc, "sessionId"), turns.iter().collect())),
            _ if is_turn(doc) => Some((str_at(doc, "sessionId"), vec![doc])),
            _ => None,
        },
        Value::Array(turns) if turns.first().is_some_and(is_turn) => {
            Some((String::new(), turns.iter().collect()))
        }
        _ => None,
    }
}

enum Item {
    Row(Box<Row>),
    Tool(Box<(ToolCall, Stamp)>),
}

impl Item {
    fn to_message(&self) -> Message {
        match self {
            Item::Row(row) => row.to_message(),
            Item::Tool(tool) => tool.0.to_message(&tool.1),
        }
    }
}

#[derive(Default)]
struct Fold {
    items: Ordered<Item>,
    session: String,
    turns: usize,
    calls: usize,
    /// Each tool call's enclosing subagent, by call id (where its spill rows go).
    parents: std::collections::HashMap<String, Option<String>>,
}

impl Fold {
    /// The document did not parse: read the turns before the damage.
    fn recover_truncated(&mut self, body: &str, error: &str) -> Result<(), String> {
        let inner = if let Some(rest) = body.strip_prefix('[') {
            rest
        } else {
            let key = body
                .find("\"turns\"")
                .ok_or_else(|| format!("not gadget turns: {error}"))?;
            let after = &body[key + "\"turns\"".len()..];
            let open = after
                .find('[')
                .filter(|&at| after[..at].trim().trim_start_matches(':').trim().is_empty())
                .ok_or_else(|| format!("not gadget turns: {error}"))?;
            self.session = session_id_before(&body[..key]);
            &after[open + 1..]
        };
        for piece in super::kandev::split_elements(inner) {
            match serde_json::from_str::<Value>(piece) {
                Ok(turn) => self.turn(&turn),
                Err(e) => self
                    .items
                    .push_unreadable(piece, format!("invalid JSON: {e}")),
            }
        }
        Ok(())
    }

    fn turn(&mut self, turn: &Value) {
        self.turns += 1;
        if !turn.is_object() {
            self.items.push_unreadable(
                &turn.to_string(),
                format!("expected a turn object, found {}", json_kind(turn)),
            );
            return;
        }
        let turn_id = Some(str_at(turn, "turnId"))
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| format!("turn-{}", self.turns));
        let stamp = Stamp {
            session_id: self.session.clone(),
            turn_id: Some(turn_id.clone()),
            created_at: str_at(turn, "createdAt"),
        };
        self.row(
            &format!("{turn_id}:user"),
            RowKind::UserText,
            &str_at(turn, "userMessage"),
            &stamp,
            None,
        );
        self.row(
            &format!("{turn_id}:thinking"),
            RowKind::Thinking,
            &str_at(turn, "thinking"),
            &stamp,
            None,
        );
        if let Some(calls) = turn.get("toolCalls").and_then(Value::as_array) {
            self.tool_calls(calls, &stamp);
        }
        if let Some(spills) = turn.get("spills").and_then(Value::as_array) {
            for spill in spills {
                self.spill_row(spill, &stamp);
            }
        }
        self.row(
            &format!("{turn_id}:response"),
            RowKind::AgentText,
            &str_at(turn, "response"),
            &stamp,
            None,
        );
    }

    fn row(&mut self, id: &str, kind: RowKind, text: &str, stamp: &Stamp, parent: Option<&str>) {
        if text.trim().is_empty() {
            return;
        }
        let mut row = Row::new(id, kind, text, stamp);
        row.parent = parent.map(str::to_string);
        let key = self.items.push_fresh(id, Item::Row(Box::new(row)));
        if let Some(Item::Row(r)) = self.items.get_mut(&key) {
            r.id = key;
        }
    }

    /// A stored spill row (the context editor's `tool_output_spills` record,
    /// docs/behaviour.md §4): `{spillId|id, toolCallId?, content|text}`, shown beside
    /// the call whose output it holds, as a tool row marked `spill_id`.
    fn spill_row(&mut self, spill: &Value, stamp: &Stamp) {
        let first = |keys: &[&str]| {
            keys.iter()
                .map(|k| str_at(spill, k))
                .find(|v| !v.is_empty())
                .unwrap_or_default()
        };
        let id = first(&["spillId", "spill_id", "id"]);
        if crate::model::spill::spill_id_in(&id).is_none() {
            self.items.push_unreadable(
                &spill.to_string(),
                "expected a spill row with a spill_<id>".into(),
            );
            return;
        }
        let owner = first(&["toolCallId", "tool_call_id"]);
        let mut extra = serde_json::Map::new();
        extra.insert("spill_id".into(), Value::String(id.clone()));
        let call = ToolCall {
            id: format!("{id}:stored"),
            parent: self.parents.get(&owner).cloned().flatten(),
            name: "spill".into(),
            title: format!("stored output {id}"),
            kind: Some(ToolKind::Generic),
            status: ToolStatus::Complete,
            output: Some(first(&["content", "text"])),
            extra,
            ..ToolCall::default()
        };
        let key = self.items.push_fresh(
            &call.id.clone(),
            Item::Tool(Box::new((call, stamp.clone()))),
        );
        if let Some(Item::Tool(tool)) = self.items.get_mut(&key) {
            tool.0.id = key;
        }
    }

    /// A turn's tool calls and, depth first, everything nested in their
    /// structured subagent records (an explicit stack: nesting depth costs no
    /// call stack).
    fn tool_calls(&mut self, calls: &[Value], stamp: &Stamp) {
        let mut pending: Vec<(&Value, Option<String>)> =
            calls.iter().rev().map(|c| (c, None)).collect();
        while let Some((record, parent)) = pending.pop() {
            let Some((card, subagent)) = self.tool_call(record, parent.as_deref(), stamp) else {
                continue;
            };
            let thinking = str_at(subagent, "thinking");
            self.row(
                &format!("{card}:thinking"),
                RowKind::Thinking,
                &thinking,
                stamp,
                Some(&card),
            );
            if let Some(nested) = subagent.get("toolCalls").and_then(Value::as_array) {
                pending.extend(nested.iter().rev().map(|c| (c, Some(card.clone()))));
            }
        }
    }

    /// Adds one tool call; for a subagent with a structured record, returns
    /// its card id and the record, whose contents go inside the card.
    fn tool_call<'a>(
        &mut self,
        record: &'a Value,
        parent: Option<&str>,
        stamp: &Stamp,
    ) -> Option<(String, &'a Value)> {
        if !record.is_object() {
            self.items.push_unreadable(
                &record.to_string(),
                format!("expected a tool call object, found {}", json_kind(record)),
            );
            return None;
        }
        self.calls += 1;
        let call_id = match record.get("callId") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => format!("gadget-call-{}", self.calls),
        };
        self.parents
            .insert(call_id.clone(), parent.map(str::to_string));
        let name = str_at(record, "name");
        let parameters = match record.get("parameters") {
            Some(Value::String(s)) => {
                serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
            }
            Some(v) => v.clone(),
            None => Value::Null,
        };
        let response = match record.get("response") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        let envelope = Envelope::parse(&response);
        let mut call = ToolCall {
            id: call_id.clone(),
            parent: parent.map(str::to_string),
            name: name.clone(),
            input: parameters,
            status: match &envelope {
                Some(env) if !env.success => ToolStatus::Error,
                _ => ToolStatus::Complete,
            },
            ..ToolCall::default()
        };
        let structured = record.get("subagent").filter(|s| s.is_object());
        let is_subagent = name.eq_ignore_ascii_case("subagent");
        if is_subagent {
            call.kind = Some(ToolKind::Subagent);
            call.output = Some(response.clone());
            let mut task = SubagentTask {
                description: str_at(&call.input, "description"),
                subagent_type: Some(str_at(&call.input, "subagentType"))
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| str_at(&call.input, "subagent_type")),
                prompt: str_at(&call.input, "prompt"),
                status: if call.status == ToolStatus::Error {
                    "failed"
                } else {
                    "completed"
                }
                .into(),
                ..SubagentTask::default()
            };
            // What the master agent's context received (the gadget design's
            // historical rule): `subagent.response`, else the raw `response`.
            let received = structured
                .map(|s| str_at(s, "response"))
                .filter(|r| !r.trim().is_empty())
                .unwrap_or_else(|| response.clone());
            if !received.trim().is_empty() {
                call.extra
                    .insert("parent_received".into(), Value::String(received));
            }
            match (structured, &envelope) {
                (Some(s), _) => {
                    task.merge_from(&SubagentTask {
                        prompt: str_at(s, "prompt"),
                        result_text: str_at(s, "response"),
                        ..SubagentTask::default()
                    });
                    read_stats(&mut task, s.get("stats").unwrap_or(&Value::Null));
                    let nested = s.get("toolCalls").and_then(Value::as_array);
                    if task.tool_use_count.is_none() {
                        task.tool_use_count = nested.map(|n| n.len() as u64);
                    }
                }
                (None, Some(env)) => {
                    task.result_text = env.text.clone();
                    read_stats(&mut task, &env.data);
                    // The design's envelope nests them: `data.stats`.
                    read_stats(&mut task, env.data.get("stats").unwrap_or(&Value::Null));
                    if let Some(mut data) = env.data.as_object().cloned() {
                        data.remove("response");
                        if !data.is_empty() {
                            call.extra
                                .insert("envelope_data".into(), Value::Object(data));
                        }
                    }
                }
                (None, None) => task.result_text = response.clone(),
            }
            call.subagent = Some(task);
        } else {
            call.kind = Some(ToolKind::from_tool_name(&name));
            call.output = Some(match &envelope {
                Some(env) if !env.success && !env.text.is_empty() => env.text.clone(),
                _ => response.clone(),
            });
        }
        let key = self
            .items
            .push_fresh(&call_id, Item::Tool(Box::new((call, stamp.clone()))));
        if let Some(Item::Tool(tool)) = self.items.get_mut(&key) {
            tool.0.id = key.clone();
        }
        structured.filter(|_| is_subagent).map(|s| (key, s))
    }
}

/// A `{success, data?, error?}` result envelope.
struct Envelope {
    success: bool,
    data: Value,
    /// `data.response`, else `error` (a string, or `error.message`).
    text: String,
}

impl Envelope {
    fn parse(response: &str) -> Option<Envelope> {
        if !response.trim_start().starts_with('{') {
            return None;
        }
        let v: Value = serde_json::from_str(response).ok()?;
        let success = v.get("success")?.as_bool()?;
        let data = v.get("data").cloned().unwrap_or(Value::Null);
        let error = match v.get("error") {
            Some(Value::String(s)) => s.clone(),
            Some(e) => str_at(e, "message"),
            None => String::new(),
        };
        let response_text = str_at(&data, "response");
        Some(Envelope {
            success,
            text: if response_text.is_empty() {
                error
            } else {
                response_text
            },
            data,
        })
    }
}

/// Reads run statistics leniently into the payload.
fn read_stats(task: &mut SubagentTask, stats: &Value) {
    let first = |keys: &[&str]| keys.iter().find_map(|k| u64_at(stats, k));
    let tokens = first(&["totalTokens", "total_tokens"]).or_else(|| {
        let input = u64_at(stats, "inputTokens");
        let output = u64_at(stats, "outputTokens");
        (input.is_some() || output.is_some())
            .then(|| input.unwrap_or(0).saturating_add(output.unwrap_or(0)))
    });
    task.merge_from(&SubagentTask {
        model: str_at(stats, "model"),
        duration_ms: first(&["durationMs", "duration_ms", "totalDurationMs"]),
        total_tokens: tokens,
        tool_use_count: first(&[
            "toolCallCount",
            "toolUseCount",
            "tool_use_count",
            "totalToolUseCount",
        ]),
        ..SubagentTask::default()
    });
}

/// The `sessionId` in the part of a truncated document before `"turns"`.
fn session_id_before(head: &str) -> String {
    let Some(at) = head.find("\"sessionId\"") else {
        return String::new();
    };
    let rest = head[at + "\"sessionId\"".len()..]
        .trim_start()
        .trim_start_matches(':')
        .trim_start();
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    match stream.next() {
        Some(Ok(Value::String(s))) => s,
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_needs_a_boolean_success() {
        let ok = Envelope::parse(r#"{"success": true, "data": {"response": "r", "model": "m"}}"#)
            .unwrap();
        assert!(ok.success);
        assert_eq!(ok.text, "r");
        let failed = Envelope::parse(r#"{"success":false,"error":"exit code 1"}"#).unwrap();
        assert!(!failed.success);
        assert_eq!(failed.text, "exit code 1");
        assert!(Envelope::parse(r#"{"success": "yes"}"#).is_none());
        assert!(Envelope::parse("plain text").is_none());
        assert!(Envelope::parse("{not json").is_none());
    }

    #[test]
    fn stats_accept_either_spelling_and_sum_token_parts() {
        let mut task = SubagentTask::default();
        read_stats(
            &mut task,
            &serde_json::json!({"toolUseCount": 0, "inputTokens": 10, "outputTokens": 5}),
        );
        assert_eq!(task.tool_use_count, Some(0));
        assert_eq!(task.total_tokens, Some(15));
        assert_eq!(task.duration_ms, None);
    }
}
