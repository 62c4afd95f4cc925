//! Loading and re-loading after (re)subscribing (docs/behaviour.md §7): the client
//! subscribes first, then fetches, and merges what it fetched into the store,
//! so nothing that happened while it was away is lost and nothing is doubled.
//!
//! - A session is read whole, newest page first ([`SessionRefetch`],
//!   docs/protocol.md §5.1 "descending pages"): the first page is small, so the
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

/// The workflow `/` shows (docs/behaviour.md §7 "the board of the first workflow"):
/// the lowest `sort_order`, ties in list order.
pub fn first_workflow(list: &WorkflowList) -> Option<&WorkflowDto> {
    list.workflows
        .iter()
        .enumerate()
        .min_by_key(|(i, w)| (w.sort_order, *i))
        .map(|(_, w)| w)
}
