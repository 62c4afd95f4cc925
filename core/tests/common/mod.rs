//! Helpers shared by the importer test suites.
#![allow(dead_code)]

use taskview_core::event::Event;
use taskview_core::layout::Layout;
use taskview_core::model::{Message, SubagentTask};
use taskview_core::store::Store;
use taskview_core::view::card::{card_view, CardView};

/// A fixture file under the repository's `tests/fixtures/`.
pub fn fixture(path: &str) -> String {
    let full = format!("{}/../tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

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

/// The card's summary line (SPEC.md §3.1): the first line of `result_text`
/// that is non-empty after trimming, trimmed.
pub fn summary_line(task: &SubagentTask) -> Option<&str> {
    task.result_text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
}

/// Message types in order, as wire spellings.
pub fn kinds(msgs: &[&Message]) -> Vec<String> {
    msgs.iter().map(|m| m.kind.as_str().to_string()).collect()
}

/// A fixture under `tests/fixtures/real/` (captures other tools wrote).
pub fn real(path: &str) -> String {
    fixture(&format!("real/{path}"))
}

/// An import laid out as the transcript shows it.
pub struct LaidOut {
    pub store: Store,
    pub layout: Layout,
}

impl LaidOut {
    /// Applies `events` to a fresh store and lays them out.
    pub fn new(events: Vec<Event>) -> LaidOut {
        let mut store = Store::new();
        let changes = store.apply_all(events);
        let mut layout = Layout::new();
        layout.update(&store, &changes);
        LaidOut { store, layout }
    }

    /// The card of subagent message `id`, as the transcript renders it.
    pub fn card(&self, id: &str) -> CardView {
        card_view(&self.store, &self.layout, id).unwrap_or_else(|| panic!("no card {id}"))
    }

    /// The chip texts of a card, as `id:text`.
    pub fn chips(&self, id: &str) -> Vec<String> {
        self.card(id)
            .chips
            .iter()
            .map(|c| format!("{}:{}", c.id, c.text))
            .collect()
    }

    /// The ids of orphan cards (children whose parent is not loaded).
    pub fn orphan_parents(&self) -> Vec<String> {
        self.layout
            .outline()
            .into_iter()
            .filter_map(|row| match &row.key {
                taskview_core::layout::RowKey::Orphans(parent) => Some(parent.clone()),
                _ => None,
            })
            .collect()
    }
}
