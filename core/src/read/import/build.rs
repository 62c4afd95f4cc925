//! Building model messages from what the importers fold: the stamp every
//! message carries and the plain rows (text, thinking, todos, status lines).
//!
//! Metadata conventions (shared by every importer; see `import` module docs):
//! thinking text is in both `content` and `metadata.thinking`; a todo list is
//! `metadata.todos: [{text, status, done, priority?}]` with a plain-text
//! checklist in `content`; a row inside a subagent has
//! `metadata.parent_tool_call_id`.

use crate::model::message::{Author, Message, MessageType, Metadata};
use serde_json::{Map, Value};

/// Where and when a message belongs: session, turn and creation time.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Stamp {
    pub session_id: String,
    pub turn_id: Option<String>,
    pub created_at: String,
}

/// What a plain row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowKind {
    UserText,
    AgentText,
    Thinking,
    Todo,
    Status,
    Error,
}

/// A plain (non-tool) row being folded; its text may still grow.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub id: String,
    pub kind: RowKind,
    pub text: String,
    pub stamp: Stamp,
    /// The enclosing subagent's tool-call id.
    pub parent: Option<String>,
    /// More metadata keys (e.g. `todos`, `model`).
    pub extra: Map<String, Value>,
}

impl Row {
    pub(crate) fn new(id: &str, kind: RowKind, text: &str, stamp: &Stamp) -> Row {
        Row {
            id: id.to_string(),
            kind,
            text: text.to_string(),
            stamp: stamp.clone(),
            parent: None,
            extra: Map::new(),
        }
    }

    /// A todo row from a list of entries (see `todo_entries`).
    pub(crate) fn todo(id: &str, entries: Vec<Value>, stamp: &Stamp) -> Row {
        let checklist: Vec<String> = entries
            .iter()
            .map(|e| {
                let mark = if e.get("done").and_then(Value::as_bool) == Some(true) {
                    "[x]"
                } else {
                    "[ ]"
                };
                format!(
                    "- {mark} {}",
                    e.get("text").and_then(Value::as_str).unwrap_or("")
                )
            })
            .collect();
        let mut row = Row::new(id, RowKind::Todo, &checklist.join("\n"), stamp);
        row.extra.insert("todos".into(), Value::Array(entries));
        row
    }

    /// The row as a model message.
    pub(crate) fn to_message(&self) -> Message {
        let mut meta = self.extra.clone();
        if let Some(parent) = &self.parent {
            meta.insert("parent_tool_call_id".into(), parent.clone().into());
        }
        let (author, kind) = match self.kind {
            RowKind::UserText => (Author::User, MessageType::Message),
            RowKind::AgentText => (Author::Agent, MessageType::Message),
            RowKind::Thinking => {
                meta.insert("thinking".into(), self.text.clone().into());
                (Author::Agent, MessageType::Thinking)
            }
            RowKind::Todo => (Author::Agent, MessageType::Todo),
            RowKind::Status => (Author::Agent, MessageType::Status),
            RowKind::Error => (Author::Agent, MessageType::Error),
        };
        message(&self.id, &self.stamp, author, kind, &self.text, meta)
    }
}

/// A message with metadata built from `meta` (so the typed fields and the
/// raw object always agree).
pub(crate) fn message(
    id: &str,
    stamp: &Stamp,
    author: Author,
    kind: MessageType,
    content: &str,
    meta: Map<String, Value>,
) -> Message {
    Message {
        id: id.to_string(),
        session_id: stamp.session_id.clone(),
        task_id: String::new(),
        turn_id: stamp.turn_id.clone(),
        author,
        kind,
        content: content.to_string(),
        metadata: Metadata::from_value(&Value::Object(meta)),
        created_at: stamp.created_at.clone(),
        updated_at: stamp.created_at.clone(),
    }
}

/// Todo entries in the model's shape, `{text, status, done, priority?}`, from
/// ACP plan entries (`content`, `status`, `priority`) or Claude `TodoWrite`
/// items (`content`, `status`, `activeForm`). Entries without text are dropped.
pub(crate) fn todo_entries(list: &Value) -> Vec<Value> {
    let Some(items) = list.as_array() else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let text = match item {
                Value::String(s) => s.as_str(),
                _ => ["content", "text", "title"]
                    .iter()
                    .find_map(|k| item.get(*k).and_then(Value::as_str))?,
            };
            if text.trim().is_empty() {
                return None;
            }
            let status = item
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("pending");
            let mut entry = Map::new();
            entry.insert("text".into(), text.into());
            entry.insert("status".into(), status.into());
            entry.insert("done".into(), (status == "completed").into());
            if let Some(p) = item.get("priority").and_then(Value::as_str) {
                entry.insert("priority".into(), p.into());
            }
            Some(Value::Object(entry))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn thinking_rows_carry_their_text_in_content_and_metadata() {
        let m = Row::new("t1", RowKind::Thinking, "hmm", &Stamp::default()).to_message();
        assert_eq!(m.kind, MessageType::Thinking);
        assert_eq!(m.content, "hmm");
        assert_eq!(m.metadata.raw_str("thinking"), Some("hmm"));
    }

    #[test]
    fn todo_entries_accept_plans_todowrite_items_and_strings() {
        let entries = todo_entries(&json!([
            {"content": "a", "status": "completed", "priority": "high"},
            {"content": "b", "status": "in_progress", "activeForm": "Doing b"},
            "c", {"content": "  "}, 42
        ]));
        assert_eq!(
            Value::Array(entries.clone()),
            json!([
                {"text": "a", "status": "completed", "done": true, "priority": "high"},
                {"text": "b", "status": "in_progress", "done": false},
                {"text": "c", "status": "pending", "done": false}
            ])
        );
        let row = Row::todo("p", entries, &Stamp::default());
        assert_eq!(row.text, "- [x] a\n- [ ] b\n- [ ] c");
    }
}
