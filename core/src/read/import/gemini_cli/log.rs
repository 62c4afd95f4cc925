//! A Gemini CLI chat log as it stands once read: a header line, then
//! messages and metadata patches (`{"$set": …}`). A message may be written
//! again under its id (first without, then with its tool calls): the later
//! record replaces the earlier in its place; `$set.messages` replaces the
//! list, and `{"$rewindTo": id}` cuts it after that message. A resumed
//! session restates its history with `$set.messages` in the model API's
//! shape (calls and results as content parts, tokens and models dropped):
//! a message already read keeps its first record, and the restated tool
//! results of calls it holds go.

use super::super::jsonl::{self, Line};
use super::MESSAGE_TYPES;
use crate::model::message::str_at;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The lines of a log, resolved: every line that stays, in order.
pub(super) fn resolve(text: &str) -> Vec<Line<'_>> {
    let mut out: Vec<Line<'_>> = Vec::new();
    let mut read: HashMap<String, (Value, &str)> = HashMap::new();
    for line in jsonl::lines(text) {
        let Line::Object { value, raw } = line else {
            out.push(line);
            continue;
        };
        if let Some(messages) = value
            .get("$set")
            .and_then(|s| s.get("messages"))
            .and_then(Value::as_array)
        {
            restate(&mut out, messages, raw, &read);
            continue;
        }
        if let Some(to) = value.get("$rewindTo").and_then(Value::as_str) {
            if let Some(at) = out.iter().position(|l| message_id(l) == Some(to)) {
                let mut seen = 0;
                out.retain(|l| {
                    seen += 1;
                    seen <= at + 1 || message_id(l).is_none()
                });
            }
            continue;
        }
        let id = str_at(&value, "id");
        if !id.is_empty() && MESSAGE_TYPES.contains(&str_at(&value, "type").as_str()) {
            read.insert(id.clone(), (value.clone(), raw));
        }
        let again = (!id.is_empty())
            .then(|| out.iter().position(|l| message_id(l) == Some(id.as_str())))
            .flatten();
        match again {
            Some(at) => out[at] = Line::Object { value, raw },
            None => out.push(Line::Object { value, raw }),
        }
    }
    out
}

/// Replaces the messages of `out` with `messages` (`$set.messages`): one
/// read before under its id (`read`: each message's latest record as the
/// CLI wrote it) keeps that record, and a restated result of one of its
/// tool calls (an `<id>_response` message, or a user message of function
/// responses only) goes.
fn restate<'a>(
    out: &mut Vec<Line<'a>>,
    messages: &[Value],
    raw: &'a str,
    read: &HashMap<String, (Value, &'a str)>,
) {
    out.retain(|l| message_id(l).is_none());
    let calls: HashSet<String> = read
        .values()
        .filter_map(|(value, _)| value.get("toolCalls")?.as_array())
        .flatten()
        .map(|call| str_at(call, "id"))
        .collect();
    for message in messages {
        match read.get(&str_at(message, "id")) {
            Some((value, raw)) => out.push(Line::Object {
                value: value.clone(),
                raw,
            }),
            None if restated_results(message, &calls) => {}
            None => out.push(Line::Object {
                value: message.clone(),
                raw,
            }),
        }
    }
}

/// True for a user message whose parts are all results of tool calls in
/// `calls` (read already with their calls).
fn restated_results(message: &Value, calls: &HashSet<String>) -> bool {
    let parts = message.get("content").and_then(Value::as_array);
    str_at(message, "type") == "user"
        && parts.is_some_and(|parts| {
            !parts.is_empty()
                && parts.iter().all(|part| {
                    part.get("functionResponse")
                        .is_some_and(|r| calls.contains(&str_at(r, "id")))
                })
        })
}

/// What a record appended to a log does to it (`Appends::next`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Append {
    /// It is read as it comes (a new message, the header, a metadata patch).
    Read,
    /// It changes nothing (a rewind to a message the log does not hold).
    Skip,
    /// It rewrites what was read (a message written again, `$set.messages`,
    /// a rewind): the log must be resolved again from its start.
    Rewrite,
}

/// The message ids a log has written so far, to tell appends from rewrites.
#[derive(Default)]
pub(crate) struct Appends {
    ids: HashSet<String>,
}

impl Appends {
    /// What record `value`, appended to the log, does (see `resolve`).
    pub(crate) fn next(&mut self, value: &Value) -> Append {
        if value
            .get("$set")
            .and_then(|s| s.get("messages"))
            .is_some_and(Value::is_array)
        {
            return Append::Rewrite;
        }
        if let Some(to) = value.get("$rewindTo").and_then(Value::as_str) {
            return if self.ids.contains(to) {
                Append::Rewrite
            } else {
                Append::Skip
            };
        }
        let id = str_at(value, "id");
        if !id.is_empty() && self.ids.contains(&id) {
            return Append::Rewrite;
        }
        self.note(value);
        Append::Read
    }

    /// Notes the id of a message record read.
    pub(crate) fn note(&mut self, value: &Value) {
        if MESSAGE_TYPES.contains(&str_at(value, "type").as_str()) {
            if let Some(id) = value.get("id").and_then(Value::as_str) {
                self.ids.insert(id.to_string());
            }
        }
    }
}

/// The id of a message line (a record of a message type with an `id`).
fn message_id<'a>(line: &'a Line<'_>) -> Option<&'a str> {
    match line {
        Line::Object { value, .. } if MESSAGE_TYPES.contains(&str_at(value, "type").as_str()) => {
            value.get("id").and_then(Value::as_str)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        resolve(text)
            .iter()
            .map(|l| match l {
                Line::Object { value, .. } => {
                    let id = str_at(value, "id");
                    let tools = value
                        .get("toolCalls")
                        .map_or(0, |t| t.as_array().map_or(0, Vec::len));
                    if id.is_empty() {
                        "-".to_string()
                    } else {
                        format!("{id}:{tools}")
                    }
                }
                Line::Unreadable { raw, .. } => format!("?{raw}"),
            })
            .collect()
    }

    #[test]
    fn a_message_written_again_replaces_itself_in_place() {
        let text = concat!(
            r#"{"sessionId":"s","projectHash":"h","startTime":"t"}"#,
            "\n",
            r#"{"id":"a","type":"user","content":"hi"}"#,
            "\n",
            r#"{"id":"b","type":"gemini","content":"x"}"#,
            "\n",
            r#"{"$set":{"lastUpdated":"t"}}"#,
            "\n",
            "garbage\n",
            r#"{"id":"b","type":"gemini","content":"x","toolCalls":[{"id":"c"}]}"#,
        );
        assert_eq!(ids(text), ["-", "a:0", "b:1", "-", "?garbage"]);
    }

    #[test]
    fn set_messages_replaces_the_list_and_a_rewind_cuts_it() {
        let text = concat!(
            r#"{"$set":{"messages":[{"id":"a","type":"user","content":"old"}]}}"#,
            "\n",
            r#"{"id":"b","type":"gemini","content":"x"}"#,
            "\n",
            r#"{"id":"c","type":"user","content":"y"}"#,
            "\n",
            r#"{"$rewindTo":"b"}"#,
            "\n",
            r#"{"id":"d","type":"user","content":"z"}"#,
        );
        assert_eq!(ids(text), ["a:0", "b:0", "d:0"]);
    }

    #[test]
    fn a_resume_restating_the_history_keeps_the_records_first_read() {
        let text = concat!(
            r#"{"id":"a","type":"user","content":"review"}"#,
            "\n",
            r#"{"id":"b","type":"gemini","content":"x","toolCalls":[{"id":"c1"}]}"#,
            "\n",
            r#"{"$set":{"messages":[{"id":"a","type":"user","content":[{"text":"review"}]}]}}"#,
            "\n",
            r#"{"$set":{"messages":[{"id":"a","type":"user","content":[{"text":"review"}]},"#,
            r#"{"id":"b","type":"gemini","content":[{"functionCall":{"id":"c1"}}]},"#,
            r#"{"id":"b_response","type":"user","content":[{"functionResponse":{"id":"c1"}}]},"#,
            r#"{"id":"e","type":"user","content":[{"functionResponse":{"id":"c1"}}]}]}}"#,
            "\n",
            r#"{"id":"f","type":"user","content":"next"}"#,
        );
        assert_eq!(ids(text), ["a:0", "b:1", "f:0"]);
    }
}
