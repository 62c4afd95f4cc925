//! What a writer has read and not yet written, coalesced: the newest state
//! of each task, session, turn and message (keyed as the store keys them),
//! so a burst of changes to one record, or an outage of any length, costs
//! one write of it. A session read whole is kept whole until it has been
//! compared with what the store holds (`whole`). What the messages weigh
//! is kept (`bytes`, estimated), so a long outage can be held to a cap.

use crate::backend::outbox::Change;
use std::collections::HashMap;
use taskview_core::model::message::Message;
use taskview_core::read::protocol::{SessionDto, TaskDto, TurnDto};

/// A session's pending messages: each the newest state seen (`None`:
/// removed), numbered in the order they changed.
#[derive(Debug, Default)]
pub(super) struct SessionMessages {
    /// These are the session's messages, whole: any other the store holds
    /// for it was removed.
    pub(super) whole: bool,
    pub(super) by_id: HashMap<String, (u64, Option<Message>)>,
}

/// Everything not yet written.
#[derive(Debug, Default)]
pub(super) struct Pending {
    /// `None`: removed.
    pub(super) tasks: HashMap<String, Option<TaskDto>>,
    pub(super) sessions: HashMap<String, SessionDto>,
    /// By session and turn id.
    pub(super) turns: HashMap<(String, String), TurnDto>,
    pub(super) messages: HashMap<String, SessionMessages>,
    /// The number the next changed message takes.
    next: u64,
    /// About how many bytes the pending messages take.
    bytes: usize,
}

/// About how many bytes a pending message change takes in memory.
fn weight(message: &Option<Message>) -> usize {
    const OVERHEAD: usize = 256;
    let Some(m) = message else {
        return OVERHEAD;
    };
    let ids = m.id.len() + m.session_id.len() + m.task_id.len();
    OVERHEAD + ids + m.content.len() + value_bytes(&m.metadata.raw)
}

/// About how many bytes a JSON value takes in memory.
fn value_bytes(value: &serde_json::Value) -> usize {
    use serde_json::Value;
    const NODE: usize = 32;
    match value {
        Value::String(s) => NODE + s.len(),
        Value::Array(items) => NODE + items.iter().map(value_bytes).sum::<usize>(),
        Value::Object(fields) => {
            let each = fields.iter().map(|(k, v)| NODE + k.len() + value_bytes(v));
            NODE + each.sum::<usize>()
        }
        _ => NODE,
    }
}

impl Pending {
    /// Takes one change in, replacing what it supersedes.
    pub(super) fn add(&mut self, change: Change) {
        match change {
            Change::Task(task) => {
                self.tasks.insert(task.id.clone(), Some(*task));
            }
            Change::TaskRemoved(id) => {
                self.tasks.insert(id, None);
            }
            Change::Session(session) => {
                self.sessions.insert(session.id.clone(), session);
            }
            Change::Turn(turn) => self.put_turn(turn),
            Change::Messages {
                session_id,
                put,
                removed,
            } => {
                let changed = put
                    .into_iter()
                    .map(|m| (m.id.clone(), Some(m)))
                    .chain(removed.into_iter().map(|id| (id, None)));
                self.put_messages(&session_id, changed);
            }
            Change::Whole {
                session_id,
                messages,
                turns,
            } => {
                self.forget_session(&session_id);
                let all = messages.into_iter().map(|m| (m.id.clone(), Some(m)));
                self.put_messages(&session_id, all);
                if let Some(session) = self.messages.get_mut(&session_id) {
                    session.whole = true;
                }
                for turn in turns {
                    self.put_turn(turn);
                }
            }
        }
    }

    fn put_turn(&mut self, turn: TurnDto) {
        let key = (turn.session_id.clone(), turn.id.clone());
        self.turns.insert(key, turn);
    }

    fn put_messages(
        &mut self,
        session_id: &str,
        changed: impl Iterator<Item = (String, Option<Message>)>,
    ) {
        let session = self.messages.entry(session_id.to_string()).or_default();
        for (id, message) in changed {
            self.bytes += weight(&message);
            if let Some((_, older)) = session.by_id.insert(id, (self.next, message)) {
                self.bytes -= weight(&older);
            }
            self.next += 1;
        }
    }

    /// Drops what waits of a session's messages.
    fn forget_session(&mut self, session_id: &str) {
        if let Some(session) = self.messages.remove(session_id) {
            let dropped: usize = session.by_id.values().map(|(_, m)| weight(m)).sum();
            self.bytes -= dropped;
        }
    }

    /// Drops a pending message change (the store holds it as it is).
    pub(super) fn drop_message(&mut self, session_id: &str, id: &str) {
        let session = self.messages.get_mut(session_id);
        if let Some((_, message)) = session.and_then(|s| s.by_id.remove(id)) {
            self.bytes -= weight(&message);
        }
    }

    /// Notes a message the store holds and the session no longer does.
    pub(super) fn remove_message(&mut self, session_id: &str, id: String) {
        let session = self.messages.entry(session_id.to_string()).or_default();
        self.bytes += weight(&None);
        if let Some((_, older)) = session.by_id.insert(id, (0, None)) {
            self.bytes -= weight(&older);
        }
    }

    /// About how many bytes the pending messages take.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Nothing waits.
    pub(super) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
            && self.sessions.is_empty()
            && self.turns.is_empty()
            && self
                .messages
                .values()
                .all(|s| s.by_id.is_empty() && !s.whole)
    }

    /// How many message changes wait.
    pub(super) fn message_count(&self) -> usize {
        self.messages.values().map(|s| s.by_id.len()).sum()
    }

    /// The sessions read whole and not yet compared with the store.
    pub(super) fn whole_sessions(&self) -> Vec<String> {
        let whole = self.messages.iter().filter(|(_, s)| s.whole);
        whole.map(|(id, _)| id.clone()).collect()
    }

    /// Takes what one transaction writes: every task, session and turn,
    /// and at most `max_messages` message changes of sessions already
    /// compared with the store, in the order they changed.
    pub(super) fn take(&mut self, max_messages: usize) -> Pending {
        let mut batch = Pending {
            tasks: std::mem::take(&mut self.tasks),
            sessions: std::mem::take(&mut self.sessions),
            turns: std::mem::take(&mut self.turns),
            ..Pending::default()
        };
        let mut room = max_messages;
        for (session_id, session) in self.messages.iter_mut().filter(|(_, s)| !s.whole) {
            if room == 0 {
                break;
            }
            let mut ids: Vec<(u64, String)> = session
                .by_id
                .iter()
                .map(|(id, (n, _))| (*n, id.clone()))
                .collect();
            ids.sort_unstable();
            ids.truncate(room);
            room -= ids.len();
            let taken = batch.messages.entry(session_id.clone()).or_default();
            for (_, id) in ids {
                if let Some(entry) = session.by_id.remove(&id) {
                    let moved = weight(&entry.1);
                    self.bytes -= moved;
                    batch.bytes += moved;
                    taken.by_id.insert(id, entry);
                }
            }
        }
        self.messages.retain(|_, s| s.whole || !s.by_id.is_empty());
        batch
    }

    /// Puts back what a failed write took, under whatever changed since.
    pub(super) fn restore(&mut self, older: Pending) {
        for (id, task) in older.tasks {
            self.tasks.entry(id).or_insert(task);
        }
        for (id, session) in older.sessions {
            self.sessions.entry(id).or_insert(session);
        }
        for (key, turn) in older.turns {
            self.turns.entry(key).or_insert(turn);
        }
        for (session_id, session) in older.messages {
            let now = self.messages.entry(session_id).or_default();
            for (id, entry) in session.by_id {
                if let std::collections::hash_map::Entry::Vacant(vacant) = now.by_id.entry(id) {
                    self.bytes += weight(&entry.1);
                    vacant.insert(entry);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(id: &str, content: &str) -> Message {
        Message::from_value(&json!({ "id": id, "content": content })).unwrap()
    }

    fn put(session: &str, messages: &[Message], removed: &[&str]) -> Change {
        Change::Messages {
            session_id: session.into(),
            put: messages.to_vec(),
            removed: removed.iter().map(|r| r.to_string()).collect(),
        }
    }

    #[test]
    fn the_newest_state_of_each_message_is_kept_once() {
        let mut pending = Pending::default();
        pending.add(put("s", &[message("a", "one"), message("b", "two")], &[]));
        pending.add(put("s", &[message("a", "three")], &["b"]));
        assert_eq!(pending.message_count(), 2);
        let weighed = pending.bytes();
        assert!(weighed > "three".len(), "{weighed}");
        let batch = pending.take(10);
        assert_eq!(pending.bytes(), 0, "what is taken weighs on the batch");
        let s = &batch.messages["s"];
        assert_eq!(s.by_id["a"].1.as_ref().unwrap().content, "three");
        assert!(s.by_id["b"].1.is_none(), "removed");
        assert!(pending.is_empty());
    }

    #[test]
    fn a_batch_takes_the_oldest_changes_and_a_failed_one_goes_back_under_newer() {
        let mut pending = Pending::default();
        let three = [message("a", "1"), message("b", "2"), message("c", "3")];
        pending.add(put("s", &three, &[]));
        let batch = pending.take(2);
        let taken: Vec<&String> = {
            let mut ids: Vec<&String> = batch.messages["s"].by_id.keys().collect();
            ids.sort();
            ids
        };
        assert_eq!(taken, ["a", "b"]);
        pending.add(put("s", &[message("a", "newer")], &[]));
        pending.restore(batch);
        let all = pending.take(10);
        assert_eq!(all.messages["s"].by_id.len(), 3);
        assert_eq!(
            all.messages["s"].by_id["a"].1.as_ref().unwrap().content,
            "newer"
        );
        assert_eq!(pending.bytes(), 0);
    }

    #[test]
    fn the_weight_follows_what_waits() {
        let mut pending = Pending::default();
        let big = "x".repeat(100_000);
        pending.add(put("s", &[message("a", &big)], &[]));
        let one = pending.bytes();
        assert!(one >= 100_000, "{one}");
        pending.add(put("s", &[message("a", &big)], &[]));
        assert_eq!(pending.bytes(), one, "a replaced message weighs once");
        pending.add(Change::Whole {
            session_id: "s".into(),
            messages: vec![message("b", "small")],
            turns: vec![],
        });
        assert!(pending.bytes() < 1_000, "the whole replaced the big one");
        pending.drop_message("s", "b");
        assert_eq!(pending.bytes(), 0);
    }

    #[test]
    fn a_whole_session_waits_to_be_compared_before_it_is_taken() {
        let mut pending = Pending::default();
        pending.add(Change::Whole {
            session_id: "s".into(),
            messages: vec![message("a", "1")],
            turns: vec![],
        });
        pending.add(put("s", &[message("b", "2")], &[]));
        assert_eq!(pending.whole_sessions(), ["s"]);
        assert!(pending.take(10).messages.is_empty());
        pending.messages.get_mut("s").unwrap().whole = false;
        assert_eq!(pending.take(10).messages["s"].by_id.len(), 2);
    }
}
