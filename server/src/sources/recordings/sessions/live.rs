//! A session that changed: imported when it was not, else followed by the
//! bytes appended to its files and the changes pushed as one, else read
//! whole again; its turn kept in step with its agent; and the clock's part
//! (quiet files, abandoned turns).

use super::super::tail::{Fold, Growth};
use super::super::tasks::{self, follow_work, quiet_after, still_working};
use super::super::tree::{Fingerprint, Fingerprints};
use super::super::{messages_from_events, unreadable};
use super::{companion_name, newest, Sessions};
use crate::backend::{Backend, MessageChange};
use crate::clock;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;

impl Sessions {
    /// A listed session changed (`now`): imported when it was not (its
    /// agent is at work; a big one from its end first), else followed by the
    /// bytes appended to its files, else (a whole document, a file
    /// rewritten, a companion gone) read again whole.
    pub(super) fn grow(&mut self, backend: &Backend, i: usize, now: Fingerprints) {
        if self.files[i].fold.is_none() {
            // A big one shows its newest records now, its whole read later.
            match self.reading(i).read_tail() {
                Some(Ok(tail)) => self.land_tail(backend, i, tail, true),
                _ => self.load(backend, i, true),
            }
            self.tell_still(backend, i, SystemTime::now());
            return;
        }
        match self.follow(i, &now) {
            Some(events) => {
                let file = &mut self.files[i];
                file.bytes = now[0].1 .0;
                file.seen = Some(now);
                let fold = file.fold.as_mut().expect("imported");
                let newest = file.seen.as_ref().and_then(newest);
                file.said = fold.working();
                file.working = still_working(file.said, newest, SystemTime::now());
                let title = fold.title();
                let mut changes = changes_of(events, fold);
                super::join::enrich_changes(&mut changes, file.facts.as_ref());
                self.apply(backend, i, changes, title);
            }
            None => self.reread(backend, i),
        }
        self.tell_still(backend, i, SystemTime::now());
    }

    /// The events of what was appended to a followed session's files since
    /// they were `seen` (`now`); `None` when it must be read whole again.
    fn follow(&mut self, i: usize, now: &Fingerprints) -> Option<Vec<Event>> {
        let file = &mut self.files[i];
        // By path, so a session with thousands of subagent files costs a
        // look-up per file, not a scan of all the others.
        let seen: HashMap<&PathBuf, &Fingerprint> =
            file.seen.as_ref()?.iter().map(|(p, f)| (p, f)).collect();
        let fold = file.fold.as_mut()?;
        let present: HashSet<&PathBuf> = now.iter().map(|(p, _)| p).collect();
        if !fold.follows() || seen.keys().any(|p| !present.contains(p)) {
            return None;
        }
        let mut events = Vec::new();
        for (at, (path, fingerprint)) in now.iter().enumerate() {
            if seen.get(path) == Some(&fingerprint) {
                continue;
            }
            let companion = (at > 0).then(|| companion_name(&file.root, path));
            let offset = file.offsets.entry(path.clone()).or_default();
            match offset.grow(path) {
                Growth::Same => {}
                Growth::Appended(text) => {
                    events.extend(fold.push(companion.as_deref(), text.as_bytes())?)
                }
                Growth::Replaced | Growth::Gone => return None,
            }
        }
        Some(events)
    }

    /// Reads an imported session again whole and pushes the difference.
    fn reread(&mut self, backend: &Backend, i: usize) {
        match self.read(i) {
            Ok((fold, mut events, title)) => {
                self.files[i].fold = Some(fold);
                // A half-written last element is still being written: wait for it.
                while matches!(events.last(), Some(Event::Unreadable { .. })) {
                    events.pop();
                }
                let file = &self.files[i];
                let mut messages = messages_from_events(events, &file.session_id, &file.task_id);
                super::join::enrich(&mut messages, file.facts.as_ref());
                let known: HashSet<String> = backend
                    .message_ids(&file.session_id)
                    .unwrap_or_default()
                    .into_iter()
                    .collect();
                let fresh: Vec<String> = messages
                    .iter()
                    .filter(|m| !known.contains(&m.id))
                    .map(|m| m.id.clone())
                    .collect();
                let latest_turn = messages.iter().rev().find_map(|m| m.turn_id.clone());
                let fresh_turn = messages
                    .iter()
                    .rev()
                    .find(|m| fresh.contains(&m.id))
                    .map(|m| m.turn_id.clone());
                self.follow_turn(backend, i, latest_turn, fresh_turn);
                backend.sync_messages(&self.files[i].session_id, messages);
                self.after_change(backend, i, title);
            }
            Err(e) => tracing::warn!(
                "recording {} is unreadable now: {e}",
                self.files[i].path.display()
            ),
        }
    }

    /// Pushes the changes a followed session's new records made, its turn
    /// in step with its agent, its title.
    fn apply(
        &mut self,
        backend: &Backend,
        i: usize,
        changes: Vec<MessageChange>,
        title: Option<String>,
    ) {
        let turn_of = |m: &Message| m.turn_id.clone();
        let latest_turn = changes.iter().rev().find_map(|c| match c {
            MessageChange::Put(m) => turn_of(m),
            MessageChange::Removed(_) => None,
        });
        let session_id = self.files[i].session_id.clone();
        let put = changes.iter().filter_map(|c| match c {
            MessageChange::Put(m) => Some(m.id.as_str()),
            MessageChange::Removed(_) => None,
        });
        let known: HashSet<String> = backend
            .known_messages(&session_id, put)
            .into_iter()
            .collect();
        let fresh_turn = changes.iter().rev().find_map(|c| match c {
            MessageChange::Put(m) if !known.contains(&m.id) => Some(turn_of(m)),
            _ => None,
        });
        self.follow_turn(backend, i, latest_turn, fresh_turn);
        backend.change_messages(&session_id, changes);
        self.after_change(backend, i, title);
    }

    /// Before a change lands: while its agent works, the turn of its newest
    /// message is active (a call awaiting its result counts as running
    /// throughout, and the chip never dips); where only growth tells, new
    /// messages start (or go on with) their turn and quiet ends it (`tick`).
    fn follow_turn(
        &self,
        backend: &Backend,
        i: usize,
        latest_turn: Option<String>,
        fresh_turn: Option<Option<String>>,
    ) {
        let file = &self.files[i];
        match file.working {
            Some(true) => {
                let latest = latest_turn.or_else(|| backend.active_turn(&file.session_id));
                follow_work(backend, &file.session_id, true, latest);
            }
            Some(false) => {}
            None => {
                if let Some(turn) = fresh_turn {
                    follow_work(backend, &file.session_id, true, turn);
                }
            }
        }
    }

    /// After a change landed: a turn that ended ends, the task takes the
    /// session's title and its card's facts.
    fn after_change(&mut self, backend: &Backend, i: usize, title: Option<String>) {
        let file = &self.files[i];
        if file.working == Some(false) {
            follow_work(backend, &file.session_id, false, None);
        }
        tasks::retitle(
            backend,
            &file.task_id,
            title.unwrap_or_else(|| file.name.clone()),
        );
        self.tell_card(backend, i);
    }

    /// The clock's part, with no look at the disk: a telemetry session
    /// quiet past `otlp::ENDED_AFTER_QUIET_MS` has ended, a session
    /// abandoned mid-turn settles, a growing file that went quiet ends its
    /// turn, files unwritten past the idle threshold are still, and held
    /// tasks settle.
    pub(in crate::sources::recordings) fn tick(&mut self, backend: &Backend, tick: Duration) {
        self.unfold_viewed(backend);
        for i in 0..self.files.len() {
            let Some(fold) = self.files[i].fold.as_mut() else {
                continue;
            };
            let events = fold.clock();
            if !events.is_empty() {
                let title = fold.title();
                let changes = changes_of(events, fold);
                self.apply(backend, i, changes, title);
            }
        }
        for i in 0..self.files.len() {
            let file = &mut self.files[i];
            if file.fold.is_none() {
                continue;
            }
            if file.working == Some(true) {
                let newest = file.seen.as_ref().and_then(newest);
                file.working = still_working(file.working, newest, SystemTime::now());
                if file.working == Some(false) {
                    follow_work(backend, &file.session_id, false, None);
                    self.tell_card(backend, i);
                }
            }
            let file = &self.files[i];
            let quiet = file.last_growth.elapsed() >= quiet_after(tick);
            if file.working.is_none() && quiet && backend.active_turn(&file.session_id).is_some() {
                backend.complete_turn(&file.session_id, &clock::now(), None);
            }
        }
        let now = SystemTime::now();
        for i in 0..self.files.len() {
            // Only a session told it is written may have stopped being.
            if self.files[i].still == Some(false) {
                self.tell_still(backend, i, now);
            }
        }
        // Read once more since a last subagent settled: its notification
        // would have woken its agent by now.
        backend.release_settle_holds(tick);
        // Followed sessions grow: the budget holds between imports too.
        self.evict(backend, usize::MAX);
    }

    /// Reads whole again the folded telemetry sessions someone views or
    /// read since they were folded: they get every card as the file gives it.
    fn unfold_viewed(&mut self, backend: &Backend) {
        for i in 0..self.files.len() {
            let file = &self.files[i];
            let Some(folded) = file.folded else {
                continue;
            };
            let read_since = backend
                .last_read(&file.session_id)
                .is_some_and(|read| read > folded);
            if read_since || backend.hub().has_subscribers(&file.session_id) {
                self.files[i].folded = None;
                self.reread(backend, i);
            }
        }
    }
}

/// The message changes of a followed session's events; unreadable records
/// become visible messages numbered by the fold.
fn changes_of(events: Vec<Event>, fold: &mut Fold) -> Vec<MessageChange> {
    let mut changes = Vec::new();
    for event in events {
        match event {
            Event::MessageAdded(m) | Event::MessageReplaced(m) => {
                changes.push(MessageChange::Put(Box::new(m)))
            }
            Event::MessageDeleted { id } => changes.push(MessageChange::Removed(id)),
            Event::Unreadable { raw, error } => {
                let n = fold.next_unreadable();
                changes.push(MessageChange::Put(Box::new(unreadable(n, &raw, &error))));
            }
            other => tracing::debug!("a followed session's event is not applied: {other:?}"),
        }
    }
    changes
}
