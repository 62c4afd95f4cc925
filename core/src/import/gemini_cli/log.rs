//! A Gemini CLI chat log as it stands once read: a header line, then
//! messages and metadata patches (`{"$set": …}`). A message may be written
//! again under its id (first without, then with its tool calls): the later
//! record replaces the earlier in its place; `$set.messages` replaces the
//! list, and `{"$rewindTo": id}` cuts it after that message.

use super::super::jsonl::{self, Line};
use super::MESSAGE_TYPES;
use crate::model::str_at;
use serde_json::Value;

/// The lines of a log, resolved: every line that stays, in order.
pub(super) fn resolve(text: &str) -> Vec<Line<'_>> {
    let mut out: Vec<Line<'_>> = Vec::new();
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
            out.retain(|l| message_id(l).is_none());
            out.extend(messages.iter().map(|m| Line::Object {
                value: m.clone(),
                raw,
            }));
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
    ids: std::collections::HashSet<String>,
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
}
