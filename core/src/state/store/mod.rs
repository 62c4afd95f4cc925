//! The store (docs/behaviour.md §1.1, §5): every message and unreadable entry in display
//! order, the parent → children index, each session's active turn, and the
//! boards. One store feeds the transcript and the board, so a subagent's running
//! state and a board count are never computed twice.
//!
//! [`Store::apply`] takes one [`Event`] and reports what it touched as
//! [`Changes`], which the layout consumes.

mod merge;
pub mod tasks;

use crate::model::event::Event;
use crate::model::message::{Message, MessagePatch};
use crate::model::spill::{self, SpillLink};
use crate::model::status;
use crate::model::time::parse_rfc3339;
use merge::Clocks;
// foldhash rather than std's SipHash: every live event hashes message ids
// several times, and the hasher was a tenth of the per-event cost.
use crate::state::sharded::{ShardedMap, ShardedSet};
use foldhash::{HashMap, HashSet};
use std::collections::BTreeMap;
pub use tasks::{Boards, Workflow};

/// Display position of an entry: `created_at` as an instant, ties broken by
/// first arrival. An entry without a readable `created_at` takes the time of
/// the last entry when it first arrived, so it stays where it arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OrderKey {
    pub time: i128,
    pub seq: u64,
}

/// What an entry is: a message (by id) or an unreadable row (by sequence number).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntryId {
    Message(String),
    Unreadable(u64),
}

/// Input that could not be read as a message, kept visible in its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    pub seq: u64,
    pub raw: String,
    pub error: String,
}

/// A session's active turn moved from `before` to `after`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnChange {
    pub session_id: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// What one or more applied events touched.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Entries added, changed or removed, in the order they were touched.
    pub entries: Vec<EntryId>,
    /// Active-turn moves.
    pub turns: Vec<TurnChange>,
    /// Tasks upserted or removed.
    pub tasks: Vec<String>,
    /// Workflows whose board was reloaded whole.
    pub workflows: Vec<String>,
    /// The transcript started afresh (another session or source was opened):
    /// everything laid out before is gone.
    pub reset: bool,
}

impl Changes {
    /// Adds `other`'s changes after these (to batch several events).
    pub fn merge(&mut self, other: Changes) {
        self.entries.extend(other.entries);
        self.turns.extend(other.turns);
        self.tasks.extend(other.tasks);
        self.workflows.extend(other.workflows);
        self.reset |= other.reset;
    }

    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
            && self.turns.is_empty()
            && self.tasks.is_empty()
            && self.workflows.is_empty()
            && !self.reset
    }
}

/// The links of a message that the indexes hold.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Links {
    parent: Option<String>,
    tool_call_id: Option<String>,
    is_tool: bool,
    spill: Option<SpillLink>,
}

impl Links {
    fn of(m: &Message) -> Links {
        let nonempty = |s: &Option<String>| s.clone().filter(|s| !s.is_empty());
        Links {
            parent: nonempty(&m.metadata.parent_tool_call_id),
            tool_call_id: nonempty(&m.metadata.tool_call_id),
            is_tool: m.kind.is_tool(),
            spill: spill::link_of(m),
        }
    }
}

#[derive(Clone, Debug)]
struct Stored {
    message: Message,
    clocks: Clocks,
    key: OrderKey,
}

/// The messages of one spill id (docs/behaviour.md §4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpillIndex {
    /// Tool calls whose output is the `spill_<id>` placeholder.
    pub placeholders: Vec<String>,
    /// Messages holding the stored text (a `read_run` result, a spill row).
    pub stored: Vec<String>,
}

impl SpillIndex {
    /// The list `link` belongs to, and the other one.
    fn sides(&mut self, link: &SpillLink) -> (&mut Vec<String>, &Vec<String>) {
        match link {
            SpillLink::Placeholder(_) => (&mut self.placeholders, &self.stored),
            SpillLink::Stored(_) => (&mut self.stored, &self.placeholders),
        }
    }
}

/// All transcript and board state. See the module docs.
#[derive(Clone, Debug, Default)]
pub struct Store {
    /// Boxed: growing the table moves pointers, not whole messages (a
    /// rehash at 30k messages moved ~20 MB in one live event).
    messages: ShardedMap<String, Box<Stored>>,
    unreadable: HashMap<u64, (Unreadable, OrderKey)>,
    order: BTreeMap<OrderKey, EntryId>,
    deleted: ShardedSet<String>,
    children: ShardedMap<String, Vec<String>>,
    tool_owners: ShardedMap<String, Vec<String>>,
    /// Spill id → the messages whose output it replaced, and the messages
    /// holding its stored text (docs/behaviour.md §4).
    spills: HashMap<String, SpillIndex>,
    /// Messages whose spill counterpart came or went in this event: their
    /// rows show it, so they change too.
    touched: Vec<String>,
    active_turns: HashMap<String, String>,
    ended_turns: HashSet<(String, String)>,
    next_seq: u64,
    boards: Boards,
    /// The live session whose transcript this store holds, if one is open.
    open_session: Option<String>,
    /// Task events seen while a workflow's snapshot is in flight, by workflow.
    held_for_snapshot: HashMap<String, Vec<Event>>,
    /// A re-read of a session under way: its id and the messages held at its start.
    reading: Option<(String, HashSet<String>)>,
    /// Records the importer skipped, by kind (docs/behaviour.md §1).
    not_shown: BTreeMap<String, u64>,
}

impl Store {
    /// An empty store.
    pub fn new() -> Store {
        Store::default()
    }

    /// Forgets every message and unreadable entry but keeps boards, turn
    /// state and the snapshot gate: a viewer opening another session starts
    /// its transcript afresh.
    fn clear_transcript(&mut self) {
        *self = Store {
            boards: std::mem::take(&mut self.boards),
            active_turns: std::mem::take(&mut self.active_turns),
            ended_turns: std::mem::take(&mut self.ended_turns),
            held_for_snapshot: std::mem::take(&mut self.held_for_snapshot),
            next_seq: self.next_seq,
            ..Store::default()
        };
    }

    /// The live session whose transcript is open, if any.
    pub fn open_session(&self) -> Option<&str> {
        self.open_session.as_deref()
    }

    /// Whether a message event of `session_id` belongs to the open transcript:
    /// always, unless a live session is open and the event names another one.
    fn admits(&self, session_id: Option<&str>) -> bool {
        match (&self.open_session, session_id) {
            (Some(open), Some(s)) if !s.is_empty() => open == s,
            _ => true,
        }
    }

    /// Applies one event (docs/behaviour.md §1.1 merge rules) and reports what it touched.
    pub fn apply(&mut self, event: Event) -> Changes {
        let mut changes = Changes::default();
        if matches!(event, Event::TaskUpdated(_) | Event::TaskDeleted { .. }) {
            for held in self.held_for_snapshot.values_mut() {
                held.push(event.clone());
            }
        }
        match event {
            Event::MessageAdded(m) => {
                let id = m.id.clone();
                if self.admits(Some(&m.session_id)) && self.upsert(MessagePatch::from(m), true) {
                    changes.entries.push(EntryId::Message(id));
                }
            }
            Event::MessageUpdated(p) => {
                let id = p.id.clone();
                if self.admits(p.session_id.as_deref()) && self.upsert(p, false) {
                    changes.entries.push(EntryId::Message(id));
                }
            }
            Event::MessageReplaced(m) => {
                let id = m.id.clone();
                if self.admits(Some(&m.session_id)) && self.replace(m) {
                    changes.entries.push(EntryId::Message(id));
                }
            }
            Event::MessageDeleted { id } => {
                if self.delete(&id) {
                    changes.entries.push(EntryId::Message(id));
                }
            }
            Event::Unreadable { raw, error } => {
                changes.entries.push(self.push_unreadable(raw, error));
            }
            Event::NotShown { kind, count } => {
                *self.not_shown.entry(kind).or_default() += count;
            }
            Event::TurnStarted {
                session_id,
                turn_id,
            } => {
                let ended = self
                    .ended_turns
                    .contains(&(session_id.clone(), turn_id.clone()));
                if !ended {
                    self.set_active_turn(session_id, Some(turn_id), &mut changes);
                }
            }
            Event::TurnCompleted {
                session_id,
                turn_id,
            } => {
                self.ended_turns
                    .insert((session_id.clone(), turn_id.clone()));
                if self.active_turns.get(&session_id) == Some(&turn_id) {
                    self.set_active_turn(session_id, None, &mut changes);
                }
            }
            Event::BoardLoaded(snapshot) => {
                let held = self.held_for_snapshot.remove(&snapshot.workflow_id);
                changes.workflows.push(snapshot.workflow_id.clone());
                changes.tasks = self.boards.load(snapshot);
                // The snapshot may be older than the task events that arrived
                // while it was in flight: they win.
                for event in held.into_iter().flatten() {
                    changes.merge(self.apply(event));
                }
            }
            Event::BoardRequested { workflow_id } => {
                self.held_for_snapshot.insert(workflow_id, Vec::new());
            }
            Event::BoardRequestFailed { workflow_id } => {
                self.held_for_snapshot.remove(&workflow_id);
            }
            Event::SessionReadStarted { session_id } => {
                if self.admits(Some(&session_id)) {
                    self.reading = Some((session_id, self.messages.keys().cloned().collect()));
                }
            }
            Event::SessionReadFinished {
                session_id,
                fetched,
            } => {
                if let Some((reading, held)) = self.reading.take() {
                    if reading != session_id {
                        self.reading = Some((reading, held));
                    } else {
                        let fetched: HashSet<String> = fetched.into_iter().collect();
                        let mut gone: Vec<String> = held.difference(&fetched).cloned().collect();
                        gone.sort();
                        for id in gone {
                            if self.delete(&id) {
                                changes.entries.push(EntryId::Message(id));
                            }
                        }
                    }
                }
            }
            Event::TranscriptOpened { session_id } => {
                if session_id.is_none() || session_id != self.open_session {
                    self.clear_transcript();
                    self.open_session = session_id;
                    changes.reset = true;
                }
            }
            Event::TaskUpdated(patch) => {
                if self.boards.update(&patch) {
                    changes.tasks.push(patch.task_id);
                }
            }
            Event::TaskDeleted { task_id } => {
                if self.boards.remove(&task_id) {
                    changes.tasks.push(task_id);
                }
            }
        }
        for id in self.touched.drain(..) {
            let entry = EntryId::Message(id);
            if !changes.entries.contains(&entry) {
                changes.entries.push(entry);
            }
        }
        changes
    }

    /// Applies events in order and reports everything they touched.
    pub fn apply_all(&mut self, events: impl IntoIterator<Item = Event>) -> Changes {
        let mut changes = Changes::default();
        for e in events {
            changes.merge(self.apply(e));
        }
        changes
    }

    /// The messages of spill `id`: its placeholders and its stored text.
    pub fn spill(&self, id: &str) -> Option<&SpillIndex> {
        self.spills.get(id)
    }

    /// A message by id.
    pub fn message(&self, id: &str) -> Option<&Message> {
        self.messages.get(id).map(|s| &s.message)
    }

    /// The records the importer skipped as carrying no conversation, by
    /// kind (docs/behaviour.md §1).
    pub fn not_shown(&self) -> &BTreeMap<String, u64> {
        &self.not_shown
    }

    /// An unreadable entry by sequence number.
    pub fn unreadable(&self, seq: u64) -> Option<&Unreadable> {
        self.unreadable.get(&seq).map(|(u, _)| u)
    }

    /// The display position of an entry.
    pub fn key_of(&self, entry: &EntryId) -> Option<OrderKey> {
        match entry {
            EntryId::Message(id) => self.messages.get(id).map(|s| s.key),
            EntryId::Unreadable(seq) => self.unreadable.get(seq).map(|(_, k)| *k),
        }
    }

    /// The display position of a message.
    pub fn message_key(&self, id: &str) -> Option<OrderKey> {
        self.messages.get(id).map(|s| s.key)
    }

    /// Every entry in display order.
    pub fn entries(&self) -> impl Iterator<Item = (OrderKey, &EntryId)> {
        self.order.iter().map(|(k, e)| (*k, e))
    }

    /// Number of entries (messages and unreadable rows).
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when the store holds no entry.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Ids of the messages whose `parent_tool_call_id` is `tool_call_id`, in no
    /// particular order.
    pub fn children_of(&self, tool_call_id: &str) -> &[String] {
        self.children
            .get(tool_call_id)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The message a `tool_call_id` names as a parent: the first tool message
    /// (in display order) carrying it. Other messages sharing the id (a
    /// permission request, a duplicate) are never parents.
    pub fn tool_owner(&self, tool_call_id: &str) -> Option<&str> {
        self.tool_owners
            .get(tool_call_id)?
            .iter()
            .filter_map(|id| self.messages.get(id).map(|s| (s.key, id)))
            .min()
            .map(|(_, id)| id.as_str())
    }

    /// A session's active turn (docs/behaviour.md §3.4); a static source has none.
    pub fn active_turn(&self, session_id: &str) -> Option<&str> {
        self.active_turns.get(session_id).map(String::as_str)
    }

    /// True when `message`'s turn is its session's active turn.
    pub fn is_turn_active(&self, message: &Message) -> bool {
        status::in_active_turn(message, self.active_turn(&message.session_id))
    }

    /// True while a read of the open session is under way (between
    /// `SessionReadStarted` and `SessionReadFinished`): what it adds was
    /// there before, not seen arriving.
    pub fn is_reading(&self) -> bool {
        self.reading.is_some()
    }

    /// The boards (docs/behaviour.md §5).
    pub fn boards(&self) -> &Boards {
        &self.boards
    }

    fn set_active_turn(&mut self, session_id: String, turn: Option<String>, changes: &mut Changes) {
        let before = match &turn {
            Some(t) => self.active_turns.insert(session_id.clone(), t.clone()),
            None => self.active_turns.remove(&session_id),
        };
        if before != turn {
            changes.turns.push(TurnChange {
                session_id,
                before,
                after: turn,
            });
        }
    }

    /// Time for an entry that has no readable `created_at`: the last entry's.
    fn inherited_time(&self) -> i128 {
        self.order
            .last_key_value()
            .map_or(i128::MIN, |(k, _)| k.time)
    }

    fn next_key(&mut self, time: i128) -> OrderKey {
        self.next_seq += 1;
        OrderKey {
            time,
            seq: self.next_seq,
        }
    }

    /// Merges a message event; returns whether anything changed. Events for a
    /// deleted id are ignored, so a late update cannot resurrect it.
    fn upsert(&mut self, patch: MessagePatch, full: bool) -> bool {
        if self.deleted.contains(&patch.id) {
            return false;
        }
        let id = patch.id.clone();
        let stamp = patch.updated_at.as_deref().and_then(parse_rfc3339);
        let inherited = self.inherited_time();
        let (before, old_key) = match self.messages.get(&id) {
            Some(s) => (Some(Links::of(&s.message)), Some(s.key)),
            None => (None, None),
        };
        let key = old_key.unwrap_or_else(|| self.next_key(inherited));
        let stored = self.messages.get_or_insert_with(id.clone(), || {
            Box::new(Stored {
                message: Message {
                    id: id.clone(),
                    ..Message::default()
                },
                clocks: Clocks::default(),
                key,
            })
        });
        let changed = merge::merge(&mut stored.message, &mut stored.clocks, patch, full, stamp);
        if !changed && old_key.is_some() {
            return false;
        }
        let time = parse_rfc3339(&stored.message.created_at).unwrap_or(key.time);
        let new_key = OrderKey { time, ..key };
        stored.key = new_key;
        let after = Links::of(&stored.message);
        if old_key != Some(new_key) {
            if let Some(k) = old_key {
                self.order.remove(&k);
            }
            self.order.insert(new_key, EntryId::Message(id.clone()));
        }
        if before.as_ref() != Some(&after) {
            if let Some(b) = before {
                self.unlink(&id, &b);
            }
            self.link(&id, &after);
        }
        true
    }

    /// Replaces a message whole (see `Event::MessageReplaced`); returns
    /// whether anything changed. A deleted id stays deleted.
    fn replace(&mut self, message: Message) -> bool {
        let Some(stored) = self.messages.get(&message.id) else {
            return self.upsert(MessagePatch::from(message), true);
        };
        if stored.message == message {
            return false;
        }
        let (id, old_key, before) = (message.id.clone(), stored.key, Links::of(&stored.message));
        let after = Links::of(&message);
        let time = parse_rfc3339(&message.created_at).unwrap_or(old_key.time);
        let key = OrderKey { time, ..old_key };
        if let Some(stored) = self.messages.get_mut(&id) {
            stored.message = message;
            stored.clocks = Clocks::default();
            stored.key = key;
        }
        if key != old_key {
            self.order.remove(&old_key);
            self.order.insert(key, EntryId::Message(id.clone()));
        }
        if before != after {
            self.unlink(&id, &before);
            self.link(&id, &after);
        }
        true
    }

    fn delete(&mut self, id: &str) -> bool {
        self.deleted.insert(id.to_string());
        let Some(stored) = self.messages.remove(id) else {
            return false;
        };
        self.order.remove(&stored.key);
        self.unlink(id, &Links::of(&stored.message));
        true
    }

    fn push_unreadable(&mut self, raw: String, error: String) -> EntryId {
        let time = self.inherited_time();
        let key = self.next_key(time);
        let entry = EntryId::Unreadable(key.seq);
        let item = Unreadable {
            seq: key.seq,
            raw,
            error,
        };
        self.unreadable.insert(key.seq, (item, key));
        self.order.insert(key, entry.clone());
        entry
    }

    fn link(&mut self, id: &str, links: &Links) {
        if let Some(p) = &links.parent {
            self.children
                .get_or_insert_with(p.clone(), Vec::new)
                .push(id.to_string());
        }
        if let (Some(t), true) = (&links.tool_call_id, links.is_tool) {
            self.tool_owners
                .get_or_insert_with(t.clone(), Vec::new)
                .push(id.to_string());
        }
        if let Some(link) = &links.spill {
            let index = self.spills.entry(link.id().to_string()).or_default();
            let (mine, theirs) = index.sides(link);
            mine.push(id.to_string());
            self.touched.extend(theirs.iter().cloned());
        }
    }

    fn unlink(&mut self, id: &str, links: &Links) {
        fn drop_from(index: &mut ShardedMap<String, Vec<String>>, key: &str, id: &str) {
            if let Some(ids) = index.get_mut(key) {
                ids.retain(|x| x != id);
                if ids.is_empty() {
                    index.remove(key);
                }
            }
        }
        if let Some(p) = &links.parent {
            drop_from(&mut self.children, p, id);
        }
        if let (Some(t), true) = (&links.tool_call_id, links.is_tool) {
            drop_from(&mut self.tool_owners, t, id);
        }
        if let Some(link) = &links.spill {
            if let Some(index) = self.spills.get_mut(link.id()) {
                let (mine, theirs) = index.sides(link);
                mine.retain(|x| x != id);
                self.touched.extend(theirs.iter().cloned());
                if index.placeholders.is_empty() && index.stored.is_empty() {
                    self.spills.remove(link.id());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
