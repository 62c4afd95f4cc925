//! Search over every message of the session (docs/behaviour.md §8), in core over the
//! store: rows that are collapsed, inside cards or outside the virtualized
//! window are found like any other, because nothing here looks at the DOM.
//!
//! The index keeps each message's searchable text, lower-cased, in display
//! order. [`SearchIndex::record`] re-reads only the messages a batch changed
//! (the cost of those messages, not of the session) and keeps the matches of
//! the active query current. A query that extends the previous one (typing on)
//! only re-tests the previous matches; any other query scans the index once.
//! A match is a message; [`SearchIndex::step`] moves through them in display
//! order, wrapping around. Readers that follow the matches (the Timeline's
//! highlighted runs) read what changed since they last looked
//! ([`SearchIndex::match_changes_since`]), not every match again.

use crate::model::message::Message;
use crate::state::change_log::ChangeLog;
use crate::state::sharded::ShardedMap;
use crate::state::store::{Changes, EntryId, OrderKey, Store};
use serde_json::Value;
use std::collections::BTreeMap;

/// The match changes a reader may be behind by (at least) before it reads
/// every match again.
const MATCH_LOG: usize = 4096;

/// Nested metadata deeper than this is not searched.
const MAX_DEPTH: usize = 8;

/// Metadata keys whose values are identifiers or states, not text a reader sees.
fn is_hidden_key(key: &str) -> bool {
    key == "id" || key.ends_with("_id") || matches!(key, "status" | "kind" | "type")
}

fn push_leaves(v: &Value, depth: usize, out: &mut String) {
    match v {
        Value::String(s) if !s.is_empty() => {
            out.push('\n');
            out.push_str(s);
        }
        Value::Array(items) if depth < MAX_DEPTH => {
            items.iter().for_each(|i| push_leaves(i, depth + 1, out));
        }
        Value::Object(map) if depth < MAX_DEPTH => {
            for (k, v) in map {
                if !is_hidden_key(k) {
                    push_leaves(v, depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

/// What search looks at in a message (docs/behaviour.md §8): its content, its title,
/// and every text its metadata carries (tool inputs and outputs, the subagent's
/// type, description, prompt, result and model, thinking, todos), lower-cased.
pub fn searchable_text(m: &Message) -> String {
    let mut text = m.content.clone();
    if let Some(title) = &m.metadata.title {
        text.push('\n');
        text.push_str(title);
    }
    push_leaves(&m.metadata.raw, 0, &mut text);
    if let Some(sa) = &m.metadata.subagent {
        for field in [&sa.subagent_type, &sa.description, &sa.result_text] {
            if !text.contains(field.as_str()) {
                text.push('\n');
                text.push_str(field);
            }
        }
    }
    text.to_lowercase()
}

/// What the search box shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchStatus {
    /// The query as typed (trimmed); empty when no search is active.
    pub query: String,
    /// Messages that match.
    pub total: usize,
    /// 1-based position of the current match, once one is chosen.
    pub current: Option<usize>,
}

impl SearchStatus {
    /// `3 of 12`, `12 matches` before one is chosen, `no matches`; empty
    /// without a query.
    pub fn label(&self) -> String {
        match (self.query.is_empty(), self.total, self.current) {
            (true, _, _) => String::new(),
            (false, 0, _) => "no matches".into(),
            (false, n, Some(i)) => format!("{i} of {n}"),
            (false, 1, None) => "1 match".into(),
            (false, n, None) => format!("{n} matches"),
        }
    }
}

/// The active query and its matches, in display order.
#[derive(Clone, Debug, Default)]
struct Query {
    typed: String,
    needle: String,
    matches: Vec<OrderKey>,
    current: Option<OrderKey>,
}

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub struct SearchIndex {
    texts: BTreeMap<OrderKey, (String, Box<str>)>,
    keys: ShardedMap<String, OrderKey>,
    query: Option<Query>,
    log: MatchLog,
}

/// Where a reader of the matches stands: the query (or reset) it read them
/// under, and the changes it has read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchCursor {
    generation: u64,
    read: u64,
}

/// The changes to the active query's matches: message id, and whether it
/// matches now. A new query or a reset starts a new generation.
#[derive(Clone, Debug, Default)]
struct MatchLog {
    generation: u64,
    changes: ChangeLog<(String, bool), MATCH_LOG>,
}

impl MatchLog {
    fn push(&mut self, id: &str, matches: bool) {
        self.changes.push((id.to_string(), matches));
    }

    fn restart(&mut self) {
        *self = MatchLog {
            generation: self.generation + 1,
            ..MatchLog::default()
        };
    }
}

impl SearchIndex {
    /// An empty index.
    pub fn new() -> SearchIndex {
        SearchIndex::default()
    }

    /// Re-reads the messages a batch changed; the active query's matches
    /// follow them (a new match appears, a changed one may stop matching).
    pub fn record(&mut self, store: &Store, changes: &Changes) {
        if changes.reset {
            self.texts.clear();
            self.keys.clear();
            self.log.restart();
            if let Some(q) = &mut self.query {
                q.matches.clear();
                q.current = None;
            }
        }
        for entry in &changes.entries {
            let EntryId::Message(id) = entry else {
                continue;
            };
            if let Some(old) = self.keys.remove(id) {
                self.texts.remove(&old);
                if self.unmatch(old) {
                    self.log.push(id, false);
                }
            }
            let (Some(m), Some(key)) = (store.message(id), store.message_key(id)) else {
                continue;
            };
            let text: Box<str> = searchable_text(m).into();
            if let Some(q) = &mut self.query {
                if text.contains(q.needle.as_str()) {
                    let at = q.matches.partition_point(|k| *k < key);
                    q.matches.insert(at, key);
                    self.log.push(id, true);
                }
            }
            self.keys.insert(id.clone(), key);
            self.texts.insert(key, (id.clone(), text));
        }
    }

    /// Takes `key` out of the matches; whether it was one.
    fn unmatch(&mut self, key: OrderKey) -> bool {
        let Some(q) = &mut self.query else {
            return false;
        };
        // The current match keeps its place, so the next step goes on from there.
        let at = q.matches.binary_search(&key);
        if let Ok(at) = at {
            q.matches.remove(at);
        }
        at.is_ok()
    }

    /// Searches for `query` (case-insensitive; blank ends the search). The
    /// current match is kept when it still matches.
    pub fn set_query(&mut self, query: &str) -> SearchStatus {
        let typed = query.trim();
        self.log.restart();
        if typed.is_empty() {
            self.query = None;
            return self.status();
        }
        let needle = typed.to_lowercase();
        let previous = self.query.take().filter(|q| needle.contains(&q.needle));
        let matches: Vec<OrderKey> = match &previous {
            Some(q) => q
                .matches
                .iter()
                .filter(|k| self.texts.get(k).is_some_and(|(_, t)| t.contains(&needle)))
                .copied()
                .collect(),
            None => self
                .texts
                .iter()
                .filter(|(_, (_, t))| t.contains(&needle))
                .map(|(k, _)| *k)
                .collect(),
        };
        let current = previous
            .and_then(|q| q.current)
            .filter(|c| matches.binary_search(c).is_ok());
        self.query = Some(Query {
            typed: typed.to_string(),
            needle,
            matches,
            current,
        });
        self.status()
    }

    /// Moves to the next match (or the previous one) after the current one,
    /// wrapping around; the first move goes to the first (or last) match.
    /// Returns the message id of the match now current.
    pub fn step(&mut self, forward: bool) -> Option<String> {
        let q = self.query.as_mut()?;
        let n = q.matches.len();
        if n == 0 {
            return None;
        }
        let index = match q.current.map(|c| q.matches.binary_search(&c)) {
            None => {
                if forward {
                    0
                } else {
                    n - 1
                }
            }
            Some(Ok(i)) if forward => (i + 1) % n,
            Some(Ok(i)) => (i + n - 1) % n,
            // The current match went away: the one after its place comes next.
            Some(Err(i)) if forward => i % n,
            Some(Err(i)) => (i + n - 1) % n,
        };
        let key = q.matches[index];
        q.current = Some(key);
        self.texts.get(&key).map(|(id, _)| id.clone())
    }

    /// The message ids of every match, in display order.
    pub fn matches(&self) -> impl Iterator<Item = &str> {
        let keys = self.query.as_ref().map_or(&[][..], |q| &q.matches[..]);
        keys.iter()
            .filter_map(|k| self.texts.get(k).map(|(id, _)| id.as_str()))
    }

    /// Where a reader that has read every match now stands.
    pub fn match_cursor(&self) -> MatchCursor {
        MatchCursor {
            generation: self.log.generation,
            read: self.log.changes.end(),
        }
    }

    /// The changes to the matches since `cursor`, in order (message id, and
    /// whether it matches now); `None` when the reader is to read every
    /// match again (another query, a reset, or too far behind).
    pub fn match_changes_since(
        &self,
        cursor: MatchCursor,
    ) -> Option<impl Iterator<Item = (&str, bool)>> {
        let changes = (cursor.generation == self.log.generation)
            .then(|| self.log.changes.since(cursor.read))
            .flatten()?;
        Some(changes.iter().map(|(id, m)| (id.as_str(), *m)))
    }

    /// The message id of the current match.
    pub fn current(&self) -> Option<&str> {
        let key = self.query.as_ref()?.current?;
        self.texts.get(&key).map(|(id, _)| id.as_str())
    }

    /// Where the search stands.
    pub fn status(&self) -> SearchStatus {
        let Some(q) = &self.query else {
            return SearchStatus::default();
        };
        SearchStatus {
            query: q.typed.clone(),
            total: q.matches.len(),
            current: q
                .current
                .and_then(|c| q.matches.binary_search(&c).ok())
                .map(|i| i + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::Event;
    use serde_json::json;

    fn message(id: &str, n: u32, content: &str) -> Event {
        Event::MessageAdded(
            Message::from_value(&json!({"id": id, "type": "message", "content": content,
                "created_at": format!("2026-08-03T10:00:{n:02}Z")}))
            .unwrap(),
        )
    }

    fn indexed(events: Vec<Event>) -> (Store, SearchIndex) {
        let mut store = Store::new();
        let mut index = SearchIndex::new();
        let changes = store.apply_all(events);
        index.record(&store, &changes);
        (store, index)
    }

    #[test]
    fn search_text_covers_content_title_tool_output_and_the_subagent_payload() {
        let m = Message::from_value(&json!({"id": "s", "type": "tool_call", "content": "Body",
            "metadata": {"title": "Task", "tool_call_id": "toolu_SECRET", "status": "complete",
            "normalized": {"kind": "subagent_task", "subagent_task": {
                "subagent_type": "code-reviewer", "description": "Closure diff",
                "prompt": "Find LEAKS", "result_text": "APPROVE", "model": "opus"}},
            "result": {"output": ["Line A"]}}}))
        .unwrap();
        let text = searchable_text(&m);
        for word in [
            "body",
            "task",
            "code-reviewer",
            "closure diff",
            "find leaks",
            "approve",
            "opus",
            "line a",
        ] {
            assert!(text.contains(word), "{word} in {text:?}");
        }
        assert!(!text.contains("toolu_secret"), "ids are not text");
        assert!(!text.contains("complete"), "states are not text");
    }

    #[test]
    fn matches_are_messages_in_display_order_case_insensitive() {
        let (_, mut index) = indexed(vec![
            message("b", 2, "the Closure diff"),
            message("a", 1, "CLOSURE first"),
            message("c", 3, "nothing"),
        ]);
        let status = index.set_query("closure");
        assert_eq!(status.total, 2);
        assert_eq!(status.label(), "2 matches");
        assert_eq!(index.step(true).as_deref(), Some("a"));
        assert_eq!(index.status().label(), "1 of 2");
        assert_eq!(index.step(true).as_deref(), Some("b"));
        assert_eq!(index.step(true).as_deref(), Some("a"), "wraps around");
        assert_eq!(
            index.step(false).as_deref(),
            Some("b"),
            "Shift+Enter goes back"
        );
    }

    #[test]
    fn typing_on_narrows_the_previous_matches_and_keeps_the_current_one() {
        let (_, mut index) = indexed(vec![
            message("a", 1, "review wave"),
            message("b", 2, "review"),
        ]);
        index.set_query("rev");
        index.step(true);
        let status = index.set_query("review w");
        assert_eq!((status.total, status.current), (1, Some(1)));
        assert_eq!(index.current(), Some("a"));
        assert_eq!(index.set_query("zzz").label(), "no matches");
        assert_eq!(index.set_query("  ").label(), "");
    }

    #[test]
    fn live_messages_join_and_leave_the_matches() {
        let (mut store, mut index) = indexed(vec![message("a", 1, "flaky test")]);
        index.set_query("flaky");
        let changes = store.apply(message("b", 2, "another flaky run"));
        index.record(&store, &changes);
        assert_eq!(index.status().total, 2);
        let changes = store.apply(Event::MessageUpdated(
            crate::model::message::MessagePatch::from_value(
                &json!({"id": "a", "content": "fixed"}),
            )
            .unwrap(),
        ));
        index.record(&store, &changes);
        assert_eq!(index.status().total, 1);
        let changes = store.apply(Event::MessageDeleted { id: "b".into() });
        index.record(&store, &changes);
        assert_eq!(index.status().label(), "no matches");
    }

    #[test]
    fn a_vanished_current_match_moves_on_to_the_next_in_place() {
        let (mut store, mut index) = indexed(vec![
            message("a", 1, "x hit"),
            message("b", 2, "x hit"),
            message("c", 3, "x hit"),
        ]);
        index.set_query("hit");
        index.step(true);
        index.step(true);
        let changes = store.apply(Event::MessageDeleted { id: "b".into() });
        index.record(&store, &changes);
        assert_eq!(index.status().current, None);
        assert_eq!(index.step(true).as_deref(), Some("c"));
    }

    #[test]
    fn a_reader_of_the_matches_reads_what_changed_since_it_looked_until_the_query_changes() {
        let (mut store, mut index) =
            indexed(vec![message("a", 1, "needle"), message("b", 2, "hay")]);
        index.set_query("needle");
        let cursor = index.match_cursor();
        let apply = |store: &mut Store, index: &mut SearchIndex, events: Vec<Event>| {
            let changes = store.apply_all(events);
            index.record(store, &changes);
        };
        apply(
            &mut store,
            &mut index,
            vec![
                message("c", 3, "a needle"),
                message("b", 2, "needle now"),
                message("a", 1, "hay now"),
            ],
        );
        let changes: Vec<(&str, bool)> = index.match_changes_since(cursor).unwrap().collect();
        assert_eq!(changes, [("c", true), ("b", true), ("a", false)]);
        let read = index.match_cursor();
        assert_eq!(
            index.match_changes_since(read).unwrap().count(),
            0,
            "nothing since"
        );
        // A match that changes and still matches goes out and in again.
        apply(&mut store, &mut index, vec![message("c", 3, "the needle")]);
        let changes: Vec<(&str, bool)> = index.match_changes_since(read).unwrap().collect();
        assert_eq!(changes, [("c", false), ("c", true)]);
        // Another query: read every match again.
        index.set_query("needle now");
        assert!(index.match_changes_since(read).is_none());
        // A reader too far behind reads every match again.
        index.set_query("needle");
        let behind = index.match_cursor();
        for k in 0..=MATCH_LOG {
            apply(
                &mut store,
                &mut index,
                vec![message("c", 3, &format!("needle {k}"))],
            );
        }
        assert!(index.match_changes_since(behind).is_none());
    }
}
