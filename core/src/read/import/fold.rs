//! The ordered fold every importer uses: items keyed by id and kept in the
//! order they were first seen, with unreadable input keeping its position
//! and records that carry no conversation counted (`jsonl::NotShown`), then
//! turned into `Event`s.
//!
//! The fold can be drained more than once ([`Ordered::drain`]): each drain
//! turns the items added since the last one into `MessageAdded` events and
//! the items changed since (every `get_mut`, or `touch`) into
//! `MessageReplaced` events, so a follower (`follow`) reads a growing file by
//! its new records. A whole import is one drain of everything.

use super::jsonl::{NotShown, Reading};
use crate::model::event::Event;
use crate::model::message::{Message, MessageType};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::ops::Range;

/// Items keyed by id, in first-seen order, interleaved with unreadable input.
pub(crate) struct Ordered<T> {
    items: Vec<T>,
    /// The slot of each item.
    item_slots: Vec<usize>,
    slots: Vec<Slot>,
    index: HashMap<String, usize>,
    /// The next `#n` suffix to try for a base key (keeps `push_fresh` linear).
    suffixes: HashMap<String, usize>,
    not_shown: NotShown,
    /// Slots and items already drained.
    drained_slots: usize,
    drained_items: usize,
    /// Drained items changed since (each once), and whether each item is listed.
    dirty: Vec<usize>,
    listed: Vec<bool>,
    echoes: Echoes,
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
            item_slots: Vec::new(),
            slots: Vec::new(),
            index: HashMap::new(),
            suffixes: HashMap::new(),
            not_shown: NotShown::default(),
            drained_slots: 0,
            drained_items: 0,
            dirty: Vec::new(),
            listed: Vec::new(),
            echoes: Echoes::default(),
        }
    }

    /// The item with this key, if any.
    pub(crate) fn get(&self, key: &str) -> Option<&T> {
        self.items.get(*self.index.get(key)?)
    }

    /// The item with this key, if any (marked changed).
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut T> {
        let at = *self.index.get(key)?;
        self.touch_item(at);
        self.items.get_mut(at)
    }

    /// The item with this key, appended with `make` on first sight (an
    /// existing one is marked changed).
    pub(crate) fn get_or_insert_with(&mut self, key: &str, make: impl FnOnce() -> T) -> &mut T {
        let at = match self.index.get(key) {
            Some(&at) => {
                self.touch_item(at);
                at
            }
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
        self.listed.push(false);
        let at = self.items.len() - 1;
        self.item_slots.push(self.slots.len());
        self.slots.push(Slot::Item(at));
        self.index.insert(key, at);
        at
    }

    /// The item at `at` (an index from `undrained`).
    pub(crate) fn item(&self, at: usize) -> &T {
        &self.items[at]
    }

    /// Marks the item with this key changed (its message is drained again).
    pub(crate) fn touch(&mut self, key: &str) {
        if let Some(&at) = self.index.get(key) {
            self.touch_item(at);
        }
    }

    /// Marks the item at `at` changed.
    pub(crate) fn touch_item(&mut self, at: usize) {
        if at < self.drained_items && !self.listed[at] {
            self.listed[at] = true;
            self.dirty.push(at);
        }
    }

    /// The indices of the items added since the last drain.
    pub(crate) fn undrained(&self) -> Range<usize> {
        self.drained_items..self.items.len()
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

    /// Settles a record after its importer's `reading` (docs/behaviour.md §1): one
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
    /// with echoed subagent answers removed (see [`Echoes`]), the counts of
    /// records not shown last: one drain of everything.
    pub(crate) fn into_events(
        mut self,
        to_message: impl FnMut(&T) -> Option<Message>,
    ) -> Vec<Event> {
        self.drain(to_message)
    }

    /// The events that bring a store fed with every earlier drain up to
    /// date: the items changed since as `MessageReplaced` (whole), the
    /// slots added since in order (`MessageAdded`, `Unreadable`), a row that
    /// became (or stopped being) an echoed subagent answer deleted (or added
    /// back), and the records not shown since, counted.
    pub(crate) fn drain(
        &mut self,
        mut to_message: impl FnMut(&T) -> Option<Message>,
    ) -> Vec<Event> {
        let mut affected = HashSet::new();
        let mut updated = Vec::new();
        for at in std::mem::take(&mut self.dirty) {
            self.listed[at] = false;
            let slot = self.item_slots[at];
            if let Some(m) = to_message(&self.items[at]) {
                self.echoes.read(slot, &m, &mut affected);
                updated.push((slot, m));
            }
        }
        let mut added = Vec::new();
        for slot in self.drained_slots..self.slots.len() {
            match &self.slots[slot] {
                Slot::Item(at) => {
                    if let Some(m) = to_message(&self.items[*at]) {
                        self.echoes.read(slot, &m, &mut affected);
                        added.push((slot, Some(m)));
                    }
                }
                Slot::Unreadable { .. } => added.push((slot, None)),
            }
        }
        let first_new = self.drained_slots;
        self.drained_slots = self.slots.len();
        self.drained_items = self.items.len();
        self.listed.resize(self.items.len(), false);
        let (dropped, restored) = self.echoes.settle(affected);
        let mut events = Vec::new();
        for (slot, m) in updated {
            let shown = !self.echoes.hidden.contains_key(&slot) && !dropped.contains(&slot);
            if shown && !restored.contains(&slot) {
                events.push(Event::MessageReplaced(m));
            }
        }
        for &slot in &dropped {
            if slot < first_new && self.echoes.hidden.insert(slot, true).is_none() {
                if let Slot::Item(at) = self.slots[slot] {
                    if let Some(m) = to_message(&self.items[at]) {
                        events.push(Event::MessageDeleted { id: m.id });
                    }
                }
            } else {
                self.echoes.hidden.entry(slot).or_insert(false);
            }
        }
        for slot in restored {
            self.echoes.hidden.remove(&slot);
            if slot < first_new {
                if let Slot::Item(at) = self.slots[slot] {
                    events.extend(to_message(&self.items[at]).map(Event::MessageAdded));
                }
            }
        }
        for (slot, m) in added {
            match m {
                Some(m) if !self.echoes.hidden.contains_key(&slot) => {
                    events.push(Event::MessageAdded(m))
                }
                Some(_) => {}
                None => {
                    if let Slot::Unreadable { raw, error } = &self.slots[slot] {
                        events.push(Event::Unreadable {
                            raw: raw.clone(),
                            error: error.clone(),
                        });
                    }
                }
            }
        }
        events.extend(std::mem::take(&mut self.not_shown).into_events());
        events
    }
}

/// A subagent's final answer often also arrives as its last agent text row.
/// That row repeats the card's `result_text` (whitespace aside: qwen-code's
/// result display squeezes runs of spaces), so it is dropped: the card's
/// children are the subagent's work, and its answer shows once. Tracked as
/// messages come and change, so a drain settles only the cards it touched.
#[derive(Default)]
struct Echoes {
    /// Tool-call id → the slot and answer (squeezed, hashed) of the latest
    /// message carrying it with an answer.
    results: HashMap<String, (usize, u64)>,
    /// Card → its text children: slot → text (squeezed, hashed).
    texts: HashMap<String, BTreeMap<usize, u64>>,
    /// Text child slot → its card.
    card_of: HashMap<usize, String>,
    /// Card → the slot of its echo being dropped.
    dropped: HashMap<String, usize>,
    /// Slots not in the store because they are echoes: whether each was
    /// drained (and deleted) before.
    hidden: HashMap<usize, bool>,
}

impl Echoes {
    /// Takes in message `m` at `slot`; the cards it may concern join `affected`.
    fn read(&mut self, slot: usize, m: &Message, affected: &mut HashSet<String>) {
        if let Some(id) = &m.metadata.tool_call_id {
            let answer = m
                .metadata
                .subagent
                .as_ref()
                .and_then(|sa| squeezed_hash(&sa.result_text));
            let latest = self.results.get(id).map(|(at, _)| *at);
            match answer {
                Some(h) if latest.is_none_or(|at| at <= slot) => {
                    self.results.insert(id.clone(), (slot, h));
                    affected.insert(id.clone());
                }
                None if latest == Some(slot) => {
                    self.results.remove(id);
                    affected.insert(id.clone());
                }
                _ => {}
            }
        }
        let card = m
            .metadata
            .parent_tool_call_id
            .clone()
            .filter(|_| m.kind == MessageType::Message);
        if let Some(old) = self.card_of.get(&slot).cloned() {
            if Some(&old) != card.as_ref() {
                if let Some(texts) = self.texts.get_mut(&old) {
                    texts.remove(&slot);
                }
                self.card_of.remove(&slot);
                affected.insert(old);
            }
        }
        if let Some(card) = card {
            let text = squeezed_hash(&m.content).unwrap_or(0);
            self.texts
                .entry(card.clone())
                .or_default()
                .insert(slot, text);
            self.card_of.insert(slot, card.clone());
            affected.insert(card);
        }
    }

    /// Settles the echoes of the `affected` cards: the slots that became
    /// echoes, and those that stopped being one.
    fn settle(&mut self, affected: HashSet<String>) -> (Vec<usize>, Vec<usize>) {
        let (mut dropped, mut restored) = (Vec::new(), Vec::new());
        for card in affected {
            let last = self.texts.get(&card).and_then(|t| t.last_key_value());
            let answer = self.results.get(&card).map(|(_, h)| *h);
            let echo = last
                .filter(|(_, text)| answer == Some(**text))
                .map(|(slot, _)| *slot);
            let before = self.dropped.get(&card).copied();
            if before == echo {
                continue;
            }
            if let Some(slot) = before {
                restored.push(slot);
                self.dropped.remove(&card);
            }
            if let Some(slot) = echo {
                dropped.push(slot);
                self.dropped.insert(card, slot);
            }
        }
        restored.retain(|s| !dropped.contains(s));
        (dropped, restored)
    }
}

/// A hash of `text` with every run of whitespace one space, trimmed;
/// `None` when that is empty.
fn squeezed_hash(text: &str) -> Option<u64> {
    let mut words = text.split_whitespace().peekable();
    words.peek()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for word in words {
        word.hash(&mut h);
        ' '.hash(&mut h);
    }
    Some(h.finish())
}
