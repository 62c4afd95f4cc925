//! Reading what an importer produced: its messages, unreadable rows, cards,
//! payloads and children.

use taskview_core::model::event::Event;
use taskview_core::model::message::{Message, SubagentTask};

/// The messages of an import, in order; unreadable rows are skipped.
pub fn messages(events: &[Event]) -> Vec<Message> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::MessageAdded(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

/// The raw text of every unreadable row, in order.
pub fn unreadable(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Unreadable { raw, .. } => Some(raw.clone()),
            _ => None,
        })
        .collect()
}

/// The records an import skipped, `(kind, count)` in kind order (docs/behaviour.md §1).
pub fn not_shown(events: &[Event]) -> Vec<(String, u64)> {
    let mut counts = std::collections::BTreeMap::<String, u64>::new();
    for e in events {
        if let Event::NotShown { kind, count } = e {
            *counts.entry(kind.clone()).or_default() += count;
        }
    }
    counts.into_iter().collect()
}

/// The subagent cards (messages with a subagent payload), in order.
pub fn cards(msgs: &[Message]) -> Vec<&Message> {
    msgs.iter().filter(|m| m.is_subagent_payload()).collect()
}

/// The payload of the card with this tool-call id.
pub fn payload<'a>(msgs: &'a [Message], id: &str) -> &'a SubagentTask {
    msgs.iter()
        .find(|m| m.metadata.tool_call_id.as_deref() == Some(id))
        .and_then(|m| m.metadata.subagent.as_ref())
        .unwrap_or_else(|| panic!("no subagent card {id}"))
}

/// The message with this id.
pub fn by_id<'a>(msgs: &'a [Message], id: &str) -> &'a Message {
    msgs.iter()
        .find(|m| m.id == id)
        .unwrap_or_else(|| panic!("no message {id}"))
}

/// The children of a card: messages whose parent is its tool-call id.
pub fn children<'a>(msgs: &'a [Message], card: &str) -> Vec<&'a Message> {
    msgs.iter()
        .filter(|m| m.metadata.parent_tool_call_id.as_deref() == Some(card))
        .collect()
}

/// The card's summary line (docs/behaviour.md §3.1 item 6), by core's rule.
pub fn summary_line(task: &SubagentTask) -> Option<String> {
    taskview_core::screen::view::conclusion::result_summary(&task.result_text)
}

/// Message types in order, as wire spellings.
pub fn kinds(msgs: &[&Message]) -> Vec<String> {
    msgs.iter().map(|m| m.kind.as_str().to_string()).collect()
}

/// Each message as `(type, content)`, wire spellings, in order: what an
/// importer test compares with its expected rows.
pub fn kinds_and_contents(msgs: &[Message]) -> Vec<(&str, &str)> {
    msgs.iter()
        .map(|m| (m.kind.as_str(), m.content.as_str()))
        .collect()
}

/// The messages of the main conversation (no parent tool call), in order.
pub fn top_level(msgs: &[Message]) -> Vec<&Message> {
    msgs.iter()
        .filter(|m| m.metadata.parent_tool_call_id.is_none())
        .collect()
}
