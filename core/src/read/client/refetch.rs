//! Loading and re-loading after (re)subscribing (SPEC.md §7): the client
//! subscribes first, then fetches, and merges what it fetched into the store,
//! so nothing that happened while it was away is lost and nothing is doubled.
//!
//! - A session is read whole, newest page first ([`SessionRefetch`],
//!   kandev-wire.md §5.1 "descending pages"): the first page is small, so the
//!   newest rows show at once, and the older pages follow in the background,
//!   each landing above what is shown. Re-applying a message the store holds
//!   changes nothing (the store's merge rules are stamped by `updated_at`), an
//!   older copy of a message that streamed in meanwhile loses to it, and
//!   messages held before the read (`Event::SessionReadStarted`) but no longer
//!   on the server (`Event::SessionReadFinished`) were deleted while the
//!   client was away. Re-reading whole is what catches updates to old
//!   messages; it happens once per (re)connect, never per live message.
//! - A board snapshot replaces its board whole; the store re-applies the task
//!   events that arrived while it was in flight (`Event::BoardRequested`).
//! - Turns: a turn without `completed_at` is active ([`turn_events`]).

use crate::model::event::Event;
use crate::read::protocol::{
    MessagesPage, MessagesQuery, SortOrder, TurnList, WorkflowDto, WorkflowList,
};
use std::collections::HashSet;

/// Messages in the first (newest) page: a screenful and some, so the first
/// rows of a session of any length cost the same, and a subagent's children
/// on screen mostly come with their card. Never the size of a preview
/// (`client::preload`), whose preloaded answer must not answer this read.
pub const FIRST_PAGE_SIZE: u32 = 100;
/// Messages per older page (the server's maximum).
pub const PAGE_SIZE: u32 = 1000;

/// Reading one session whole, newest page first.
#[derive(Clone, Debug)]
pub struct SessionRefetch {
    session_id: String,
    fetched: HashSet<String>,
    /// The oldest message read so far: the next page ends before it.
    before: Option<String>,
    done: bool,
}

/// What one page gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageEvents {
    /// The page's messages as store events, oldest first.
    pub events: Vec<Event>,
    /// No page follows.
    pub done: bool,
}

impl SessionRefetch {
    /// Plans a read of `session_id`; apply [`SessionRefetch::started`]
    /// before the first page is requested.
    pub fn new(session_id: &str) -> SessionRefetch {
        SessionRefetch {
            session_id: session_id.to_string(),
            fetched: HashSet::new(),
            before: None,
            done: false,
        }
    }

    /// The query of the next page, or `None` when done: the newest
    /// [`FIRST_PAGE_SIZE`] messages, then [`PAGE_SIZE`] at a time before the
    /// oldest one read, newest first.
    pub fn next_query(&self) -> Option<MessagesQuery> {
        let limit = match self.before {
            None => FIRST_PAGE_SIZE,
            Some(_) => PAGE_SIZE,
        };
        (!self.done).then(|| MessagesQuery {
            limit: Some(limit),
            before: self.before.clone(),
            after: None,
            sort: Some(SortOrder::Desc),
        })
    }

    /// Takes the answer to [`SessionRefetch::next_query`] (newest first) and
    /// gives its events oldest first. Unreadable elements whose text
    /// `unreadable` has already seen are left out (a re-read must not show
    /// them twice); new ones are recorded there.
    pub fn take_page(
        &mut self,
        page: &MessagesPage,
        unreadable: &mut UnreadableSeen,
    ) -> PageEvents {
        let events = oldest_first(page, unreadable);
        for event in &events {
            if let Event::MessageAdded(m) = event {
                self.fetched.insert(m.id.clone());
            }
        }
        let oldest = page
            .cursor
            .clone()
            .or_else(|| page.messages.last().and_then(element_id));
        match oldest {
            Some(id) if page.has_more => self.before = Some(id),
            _ => self.done = true,
        }
        PageEvents {
            events,
            done: self.done,
        }
    }

    /// Starts over from the newest page (a cursor vanished between pages);
    /// what was fetched so far still counts.
    pub fn restart(&mut self) {
        self.before = None;
        self.done = false;
    }

    /// The event that starts the read: the store remembers which messages
    /// it holds now (all of them came from the server before).
    pub fn started(&self) -> Event {
        Event::SessionReadStarted {
            session_id: self.session_id.clone(),
        }
    }

    /// Once the last page is taken: the event with every id the pages held,
    /// so the store deletes what it held before the read and the server no
    /// longer has. `None` while pages remain.
    pub fn finished(&self) -> Option<Event> {
        let mut fetched: Vec<String> = self.fetched.iter().cloned().collect();
        fetched.sort();
        self.done.then(|| Event::SessionReadFinished {
            session_id: self.session_id.clone(),
            fetched,
        })
    }
}

/// A page's events (newest first on the wire) oldest first, without the
/// unreadable elements `unreadable` has already seen (new ones are recorded).
pub fn oldest_first(page: &MessagesPage, unreadable: &mut UnreadableSeen) -> Vec<Event> {
    let mut events = page.events();
    events.reverse();
    events.retain(|event| match event {
        Event::Unreadable { raw, .. } => unreadable.first_time(raw),
        _ => true,
    });
    events
}

/// The id of a raw page element (`id`, or `message_id`), if it has one.
fn element_id(v: &serde_json::Value) -> Option<String> {
    ["id", "message_id"]
        .iter()
        .find_map(|k| v.get(*k).and_then(serde_json::Value::as_str))
        .map(str::to_string)
}

/// The texts of unreadable page elements already shown for one session.
#[derive(Clone, Debug, Default)]
pub struct UnreadableSeen {
    seen: HashSet<String>,
}

impl UnreadableSeen {
    /// True the first time `raw` is seen.
    pub fn first_time(&mut self, raw: &str) -> bool {
        self.seen.insert(raw.to_string())
    }
}

/// The store events of a session's turn list: the active turn (no
/// `completed_at`) starts, every completed turn completes. The store ignores
/// a start for a turn it has seen complete, so a stale list cannot revive one.
pub fn turn_events(session_id: &str, turns: &TurnList) -> Vec<Event> {
    let mut completed = Vec::new();
    let mut started = Vec::new();
    for turn in &turns.turns {
        if turn.id.is_empty() {
            continue;
        }
        let session_id = if turn.session_id.is_empty() {
            session_id.to_string()
        } else {
            turn.session_id.clone()
        };
        let turn_id = turn.id.clone();
        if turn.completed_at.as_deref().is_some_and(|c| !c.is_empty()) {
            completed.push(Event::TurnCompleted {
                session_id,
                turn_id,
            });
        } else {
            started.push(Event::TurnStarted {
                session_id,
                turn_id,
            });
        }
    }
    completed.extend(started);
    completed
}

/// The workflow `/` shows (SPEC.md §7 "the board of the first workflow"):
/// the lowest `sort_order`, ties in list order.
pub fn first_workflow(list: &WorkflowList) -> Option<&WorkflowDto> {
    list.workflows
        .iter()
        .enumerate()
        .min_by_key(|(i, w)| (w.sort_order, *i))
        .map(|(_, w)| w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::protocol::TurnDto;
    use crate::state::store::{EntryId, Store};
    use serde_json::{json, Value};

    /// A message created at second `n` of a minute and updated `version`
    /// minutes later.
    fn message(id: &str, content: &str, n: u32) -> Value {
        versioned(id, content, n, 0)
    }

    fn versioned(id: &str, content: &str, n: u32, version: u32) -> Value {
        json!({"id": id, "session_id": "s", "content": content,
            "created_at": format!("2026-08-03T10:00:{n:02}Z"),
            "updated_at": format!("2026-08-03T10:{version:02}:{n:02}Z")})
    }

    /// Serves `messages` the way `taskview serve` pages them (desc, before,
    /// limit at most `max`).
    fn serve(messages: &[Value], query: &MessagesQuery, max: usize) -> MessagesPage {
        assert_eq!((query.sort, &query.after), (Some(SortOrder::Desc), &None));
        let end = match &query.before {
            Some(b) => messages.iter().position(|m| m["id"] == b.as_str()).unwrap(),
            None => messages.len(),
        };
        let start = end.saturating_sub((query.limit.unwrap() as usize).min(max));
        let page: Vec<Value> = messages[start..end].iter().rev().cloned().collect();
        MessagesPage {
            has_more: start > 0,
            cursor: page.last().map(|m| m["id"].as_str().unwrap().to_string()),
            total: page.len() as u64,
            messages: page,
        }
    }

    fn refetch_into(store: &mut Store, server: &[Value], limit: usize) -> usize {
        let mut r = SessionRefetch::new("s");
        store.apply(r.started());
        let mut seen = UnreadableSeen::default();
        let mut pages = 0;
        while let Some(q) = r.next_query() {
            let page = serve(server, &q, limit);
            pages += 1;
            store.apply_all(r.take_page(&page, &mut seen).events);
        }
        store.apply_all(r.finished());
        pages
    }

    fn contents(store: &Store) -> Vec<String> {
        store
            .entries()
            .filter_map(|(_, e)| match e {
                EntryId::Message(id) => store.message(id).map(|m| format!("{id}={}", m.content)),
                EntryId::Unreadable(_) => None,
            })
            .collect()
    }

    #[test]
    fn pages_follow_the_cursor_until_has_more_is_false() {
        let server: Vec<Value> = (0..25)
            .map(|n| message(&format!("m{n:02}"), "x", n))
            .collect();
        let mut store = Store::new();
        assert_eq!(refetch_into(&mut store, &server, 10), 3);
        assert_eq!(store.len(), 25);
    }

    #[test]
    fn the_newest_page_comes_first_and_older_pages_follow_oldest_first_within() {
        let server: Vec<Value> = (0..1250)
            .map(|n| message(&format!("m{n:04}"), "x", n % 60))
            .collect();
        let mut r = SessionRefetch::new("s");
        let first = r.next_query().unwrap();
        assert_eq!(first.limit, Some(FIRST_PAGE_SIZE));
        assert_eq!(first.before, None);
        let page = r.take_page(
            &serve(&server, &first, 1000),
            &mut UnreadableSeen::default(),
        );
        let ids = |events: &[Event]| -> Vec<String> {
            events
                .iter()
                .filter_map(|e| match e {
                    Event::MessageAdded(m) => Some(m.id.clone()),
                    _ => None,
                })
                .collect()
        };
        let newest = ids(&page.events);
        assert_eq!(newest.len(), 100);
        assert_eq!(
            (newest[0].as_str(), newest[99].as_str()),
            ("m1150", "m1249")
        );
        let older = r.next_query().unwrap();
        assert_eq!(older.limit, Some(PAGE_SIZE));
        assert_eq!(older.before.as_deref(), Some("m1150"));
        let page = r.take_page(
            &serve(&server, &older, 1000),
            &mut UnreadableSeen::default(),
        );
        let ids = ids(&page.events);
        assert_eq!((ids[0].as_str(), ids[999].as_str()), ("m0150", "m1149"));
        let last = r.next_query().unwrap();
        assert_eq!(last.before.as_deref(), Some("m0150"));
        assert!(
            r.take_page(&serve(&server, &last, 1000), &mut UnreadableSeen::default())
                .done
        );
        assert_eq!(r.next_query(), None);
        let Some(Event::SessionReadFinished { fetched, .. }) = r.finished() else {
            panic!("not finished")
        };
        assert_eq!(fetched.len(), 1250);
    }

    #[test]
    fn a_refetch_after_a_gap_equals_the_server_with_nothing_doubled() {
        let mut server: Vec<Value> = (0..6).map(|n| message(&format!("m{n}"), "v1", n)).collect();
        let mut store = Store::new();
        refetch_into(&mut store, &server, 4);
        // While away: m1 is updated, m3 deleted, m6 and m7 added.
        server[1] = versioned("m1", "v2", 1, 5);
        server.remove(3);
        server.push(message("m6", "v1", 6));
        server.push(message("m7", "v1", 7));
        refetch_into(&mut store, &server, 4);
        let expected = [
            "m0=v1", "m1=v2", "m2=v1", "m4=v1", "m5=v1", "m6=v1", "m7=v1",
        ];
        assert_eq!(contents(&store), expected);
        // Re-reading again changes nothing.
        refetch_into(&mut store, &server, 3);
        assert_eq!(contents(&store), expected);
    }

    #[test]
    fn an_older_copy_from_a_page_loses_to_a_newer_streamed_update() {
        let server = vec![message("m0", "old", 1)];
        let mut store = Store::new();
        store.apply(Event::MessageAdded(
            crate::model::message::Message::from_value(&versioned("m0", "new", 1, 9)).unwrap(),
        ));
        refetch_into(&mut store, &server, 10);
        assert_eq!(contents(&store), ["m0=new"]);
    }

    #[test]
    fn messages_streamed_during_the_refetch_are_not_deleted() {
        let server = vec![message("m0", "a", 0)];
        let mut store = Store::new();
        let mut r = SessionRefetch::new("s");
        store.apply(r.started());
        let page = serve(&server, &r.next_query().unwrap(), 10);
        // A message streams in after the page was served.
        store.apply(Event::MessageAdded(
            crate::model::message::Message::from_value(&message("m1", "b", 1)).unwrap(),
        ));
        store.apply_all(r.take_page(&page, &mut UnreadableSeen::default()).events);
        store.apply_all(r.finished());
        assert_eq!(contents(&store), ["m0=a", "m1=b"]);
    }

    #[test]
    fn deletions_wait_for_the_last_page_and_restart_keeps_what_was_fetched() {
        let server: Vec<Value> = (0..4).map(|n| message(&format!("m{n}"), "x", n)).collect();
        let mut store = Store::new();
        store.apply_all(
            [message("m0", "x", 0), message("gone", "x", 9)].map(|v| {
                Event::MessageAdded(crate::model::message::Message::from_value(&v).unwrap())
            }),
        );
        let mut r = SessionRefetch::new("s");
        store.apply(r.started());
        let page = serve(&server, &r.next_query().unwrap(), 2);
        store.apply_all(r.take_page(&page, &mut UnreadableSeen::default()).events);
        assert!(r.finished().is_none(), "not done yet");
        r.restart();
        assert_eq!(r.next_query().unwrap().before, None);
        let page = serve(&server, &r.next_query().unwrap(), 10);
        store.apply_all(r.take_page(&page, &mut UnreadableSeen::default()).events);
        store.apply_all(r.finished());
        assert_eq!(contents(&store), ["m0=x", "m1=x", "m2=x", "m3=x"]);
    }

    #[test]
    fn an_unreadable_element_is_shown_once_across_refetches() {
        let page = MessagesPage {
            messages: vec![json!(17), message("m0", "x", 0)],
            total: 2,
            has_more: false,
            cursor: Some("m0".into()),
        };
        let mut seen = UnreadableSeen::default();
        let first = SessionRefetch::new("s").take_page(&page, &mut seen);
        assert_eq!(first.events.len(), 2);
        let again = SessionRefetch::new("s").take_page(&page, &mut seen);
        assert_eq!(again.events.len(), 1);
        assert!(matches!(again.events[0], Event::MessageAdded(_)));
    }

    #[test]
    fn an_empty_page_ends_the_refetch() {
        let mut r = SessionRefetch::new("s");
        let done = r.take_page(&MessagesPage::default(), &mut UnreadableSeen::default());
        assert!(done.done && r.next_query().is_none());
    }

    #[test]
    fn the_open_turn_starts_and_completed_turns_complete() {
        let turn = |id: &str, completed: Option<&str>| TurnDto {
            id: id.into(),
            session_id: "s".into(),
            completed_at: completed.map(str::to_string),
            ..TurnDto::default()
        };
        let list = TurnList {
            turns: vec![turn("t2", None), turn("t1", Some("2026-08-03T10:00:00Z"))],
            total: 2,
        };
        let events = turn_events("s", &list);
        assert_eq!(
            events,
            [
                Event::TurnCompleted {
                    session_id: "s".into(),
                    turn_id: "t1".into()
                },
                Event::TurnStarted {
                    session_id: "s".into(),
                    turn_id: "t2".into()
                },
            ]
        );
        let mut store = Store::new();
        store.apply_all(events);
        assert_eq!(store.active_turn("s"), Some("t2"));
        // A stale list cannot revive a turn that completed live.
        store.apply(Event::TurnCompleted {
            session_id: "s".into(),
            turn_id: "t2".into(),
        });
        store.apply_all(turn_events("s", &list));
        assert_eq!(store.active_turn("s"), None);
    }

    #[test]
    fn the_first_workflow_has_the_lowest_sort_order_then_comes_first() {
        let wf = |id: &str, sort_order: i64| WorkflowDto {
            id: id.into(),
            sort_order,
            ..WorkflowDto::default()
        };
        let list = WorkflowList {
            workflows: vec![wf("b", 2), wf("a", 1), wf("c", 1)],
            total: 3,
        };
        assert_eq!(first_workflow(&list).map(|w| w.id.as_str()), Some("a"));
        assert_eq!(first_workflow(&WorkflowList::default()), None);
    }
}
