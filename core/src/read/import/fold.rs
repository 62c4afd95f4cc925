//! The ordered fold every importer uses: items keyed by id and kept in the
//! order they were first seen, with unreadable input keeping its position
//! and records that carry no conversation counted (`jsonl::NotShown`), then
//! turned into `Event`s.

use super::jsonl::{NotShown, Reading};
use crate::model::event::Event;
use crate::model::message::{Message, MessageType};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Items keyed by id, in first-seen order, interleaved with unreadable input.
pub(crate) struct Ordered<T> {
    items: Vec<T>,
    slots: Vec<Slot>,
    index: HashMap<String, usize>,
    /// The next `#n` suffix to try for a base key (keeps `push_fresh` linear).
    suffixes: HashMap<String, usize>,
    not_shown: NotShown,
}

/// A position in the output: an item (by its index in `items`) or unreadable input.
enum Slot {
    Item(usize),
    Unreadable { raw: String, error: String },
}

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered::new()
    }
}

impl<T> Ordered<T> {
    pub(crate) fn new() -> Self {
        Ordered {
            items: Vec::new(),
            slots: Vec::new(),
            index: HashMap::new(),
            suffixes: HashMap::new(),
            not_shown: NotShown::default(),
        }
    }

    /// The item with this key, if any.
    pub(crate) fn get(&self, key: &str) -> Option<&T> {
        self.items.get(*self.index.get(key)?)
    }

    /// The item with this key, if any.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut T> {
        self.items.get_mut(*self.index.get(key)?)
    }

    /// The item with this key, appended with `make` on first sight.
    pub(crate) fn get_or_insert_with(&mut self, key: &str, make: impl FnOnce() -> T) -> &mut T {
        let at = match self.index.get(key) {
            Some(&at) => at,
            None => self.append(key.to_string(), make()),
        };
        &mut self.items[at]
    }

    /// Appends an item under `base`, or under `base#2`, `base#3`, … when that
    /// key is taken; returns the key used.
    pub(crate) fn push_fresh(&mut self, base: &str, item: T) -> String {
        let mut key = base.to_string();
        if self.index.contains_key(base) {
            let next = self.suffixes.entry(base.to_string()).or_insert(2);
            loop {
                key = format!("{base}#{next}");
                *next += 1;
                if !self.index.contains_key(&key) {
                    break;
                }
            }
        }
        self.append(key.clone(), item);
        key
    }

    fn append(&mut self, key: String, item: T) -> usize {
        self.items.push(item);
        let at = self.items.len() - 1;
        self.slots.push(Slot::Item(at));
        self.index.insert(key, at);
        at
    }

    /// The item appended last, unless unreadable input came after it.
    pub(crate) fn last(&self) -> Option<&T> {
        match self.slots.last()? {
            Slot::Item(at) => self.items.get(*at),
            Slot::Unreadable { .. } => None,
        }
    }

    /// Keeps unreadable input in its position.
    pub(crate) fn push_unreadable(&mut self, raw: &str, error: String) {
        self.slots.push(Slot::Unreadable {
            raw: raw.to_string(),
            error,
        });
    }

    /// Settles a record after its importer's `reading` (SPEC.md §1): one
    /// that should have been a message and could not be read keeps its
    /// position as unreadable input (`raw`); one that carries no
    /// conversation is counted by kind.
    pub(crate) fn settle(&mut self, reading: Reading, record: &Value, raw: &str) {
        if let Some(error) = self.not_shown.settle(reading, record) {
            self.push_unreadable(raw, error);
        }
    }

    /// Counts one record of `kind` skipped whole (`NotShown::count`).
    pub(crate) fn count_not_shown(&mut self, kind: &str) {
        self.not_shown.count(kind);
    }

    /// Turns each item into a message (or nothing) and the whole into events,
    /// with echoed subagent answers removed (see `drop_echoed_results`), the
    /// counts of records not shown last.
    pub(crate) fn into_events(
        self,
        mut to_message: impl FnMut(&T) -> Option<Message>,
    ) -> Vec<Event> {
        let items = self.items;
        let mut events: Vec<Event> = self
            .slots
            .into_iter()
            .filter_map(|slot| match slot {
                Slot::Item(at) => items
                    .get(at)
                    .and_then(&mut to_message)
                    .map(Event::MessageAdded),
                Slot::Unreadable { raw, error } => Some(Event::Unreadable { raw, error }),
            })
            .collect();
        drop_echoed_results(&mut events);
        events.extend(self.not_shown.into_events());
        events
    }
}

/// A subagent's final answer often also arrives as its last agent text row.
/// That row repeats the card's `result_text` (whitespace aside: qwen-code's
/// result display squeezes runs of spaces), so it is dropped: the card's
/// children are the subagent's work, and its answer shows once.
fn drop_echoed_results(events: &mut Vec<Event>) {
    let results: HashMap<String, String> = events
        .iter()
        .filter_map(|e| {
            let m = added(e)?;
            let text = squeezed(&m.metadata.subagent.as_ref()?.result_text);
            let id = m.metadata.tool_call_id.clone()?;
            (!text.is_empty()).then_some((id, text))
        })
        .collect();
    if results.is_empty() {
        return;
    }
    let mut last_text_child: HashMap<String, usize> = HashMap::new();
    for (at, e) in events.iter().enumerate() {
        let Some(m) = added(e) else { continue };
        if let Some(parent) = &m.metadata.parent_tool_call_id {
            if m.kind == MessageType::Message && results.contains_key(parent) {
                last_text_child.insert(parent.clone(), at);
            }
        }
    }
    let echoes: HashSet<usize> = last_text_child
        .into_iter()
        .filter(|(parent, at)| {
            let text = events
                .get(*at)
                .and_then(added)
                .map(|m| squeezed(&m.content));
            text.is_some() && results.get(parent) == text.as_ref()
        })
        .map(|(_, at)| at)
        .collect();
    let mut at = 0;
    events.retain(|_| {
        at += 1;
        !echoes.contains(&(at - 1))
    });
}

/// `text` with every run of whitespace one space, trimmed.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn added(e: &Event) -> Option<&Message> {
    match e {
        Event::MessageAdded(m) => Some(m),
        _ => None,
    }
}
