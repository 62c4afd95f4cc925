//! OpenCode's session store in a recordings folder (`opencode.db`, as in
//! `~/.local/share/opencode`): each root session is a task of the board, its
//! subagents' sessions read with it. Whenever the database or its write-ahead
//! log (`opencode.db-wal`) changes, the rows written since the last read are
//! read (`store` reads without ever writing) and the trees they touch imported
//! again by the importer the file view uses, so a session is in progress while
//! its agent works and its chip counts the subagents running. Each session is
//! judged still on its own (docs/behaviour.md §8): one whose rows nobody has
//! written past the idle threshold is still while other sessions keep writing
//! the store, and live again once written. Each task carries its tree's card
//! facts (docs/behaviour.md §5: agent, model, what it spent). The folder's
//! other files (OpenCode's logs, credentials, snapshots) are never sessions
//! (`tree`).

mod store;

use super::tasks::{self, follow_work, still_working};
use super::tree::{fingerprint, Fingerprint, OPENCODE_STORE as STORE};
use super::{finished_turns, messages_from_events};
use crate::backend::Backend;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use taskview_core::model::card_facts::SessionFacts;
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::read::import::opencode;

/// A store being followed: its files as last read, its rows, its
/// sessions' tasks, and the trees at work then.
#[derive(Default)]
struct Followed {
    seen: Option<[Option<Fingerprint>; 2]>,
    snapshot: store::Snapshot,
    /// Root session id → its task and session ids.
    tasks: HashMap<String, (String, String)>,
    at_work: HashSet<String>,
    /// Root session id → when its tree's rows were last written (the
    /// writer's clock).
    written: HashMap<String, SystemTime>,
    /// Root session id → whether its task was last told it is still
    /// (docs/behaviour.md §8).
    still: HashMap<String, bool>,
    /// Root session id → the card facts its task was last told (docs/behaviour.md §5).
    cards: HashMap<String, SessionFacts>,
}

impl Followed {
    /// When the tree of `root` was last written: its newest row, or the
    /// store's files (`store`) when those are older (a row's time is its
    /// writer's clock; quiet files mean nobody writes any row).
    fn written(&self, root: &str, store: Option<SystemTime>) -> Option<SystemTime> {
        match (self.written.get(root).copied(), store) {
            (Some(rows), Some(files)) => Some(rows.min(files)),
            (rows, files) => rows.or(files),
        }
    }

    /// Tells each task whether its tree is still, where that changed.
    fn tell_still(&mut self, backend: &Backend, store: Option<SystemTime>, now: SystemTime) {
        for (root, (task_id, _)) in &self.tasks {
            let still = tasks::is_still(self.written(root, store), now);
            if self.still.get(root) != Some(&still) {
                self.still.insert(root.clone(), still);
                tasks::tell_still(backend, task_id, still);
            }
        }
    }
}

/// A row's `time_updated` (ms since the epoch) as a time.
fn row_time(ms: i64) -> Option<SystemTime> {
    UNIX_EPOCH.checked_add(Duration::from_millis(u64::try_from(ms).ok()?))
}

/// When a store's files were last written.
fn newest(seen: &[Option<Fingerprint>; 2]) -> Option<SystemTime> {
    seen.iter()
        .flatten()
        .filter_map(|(_, modified)| *modified)
        .max()
}

/// The stores of the recordings folders.
pub(super) struct Stores {
    stores: Vec<(PathBuf, Followed)>,
    /// Tasks listed so far (their board positions).
    listed: i64,
}

impl Stores {
    /// The stores the folders `roots` may hold (there or not yet).
    pub(super) fn new(roots: &[PathBuf]) -> Stores {
        let stores = roots
            .iter()
            .map(|r| (r.join(STORE), Followed::default()))
            .collect();
        Stores { stores, listed: 0 }
    }

    /// Reads the rows written to each store whose database or write-ahead
    /// log changed since its last read: new root sessions are listed, the
    /// trees they touch (and those at work) synced and their work followed;
    /// then each task is told whether its tree is still. A store that cannot
    /// be read now (being created, locked past the timeout) is tried again
    /// at the next change.
    pub(super) fn refresh(&mut self, backend: &Backend) {
        for (path, followed) in &mut self.stores {
            let wal = path.with_extension("db-wal");
            let now = [fingerprint(path).ok(), fingerprint(&wal).ok()];
            let (files, clock) = (newest(&now), SystemTime::now());
            let unchanged = followed.seen.as_ref() == Some(&now);
            // A tree at work that nobody writes any more is read once more,
            // so the work its killed CLI left open ends (`still_working`).
            let abandoned = unchanged
                && followed
                    .at_work
                    .iter()
                    .any(|root| !at_work(true, followed.written(root, files), clock));
            if now[0].is_some() && (!unchanged || abandoned) {
                read(backend, path, followed, &mut self.listed, &now);
            }
            followed.tell_still(backend, files, clock);
        }
    }
}

/// Reads the rows written to a store since its last read and syncs the
/// trees they touch and those at work.
fn read(
    backend: &Backend,
    path: &Path,
    followed: &mut Followed,
    listed: &mut i64,
    now: &[Option<Fingerprint>; 2],
) {
    let changed = match followed.snapshot.refresh(path) {
        Ok(changed) => changed,
        Err(e) => {
            tracing::warn!("cannot read the OpenCode store {}: {e}", path.display());
            return;
        }
    };
    tracing::debug!(
        "OpenCode store {}: {} rows read",
        path.display(),
        changed.rows
    );
    // The trees at work are judged again: a tree unwritten too long ends its work.
    let roots = changed.roots.map(|mut roots| {
        roots.extend(followed.at_work.iter().cloned());
        roots
    });
    let (files, clock) = (newest(now), SystemTime::now());
    for mut tree in followed.snapshot.trees(roots.as_ref()) {
        if let Some(written) = tree.written_ms.and_then(row_time) {
            followed.written.insert(tree.id.clone(), written);
        }
        tree.working = at_work(tree.working, followed.written(&tree.id, files), clock);
        if tree.working {
            followed.at_work.insert(tree.id.clone());
        } else {
            followed.at_work.remove(&tree.id);
        }
        sync(backend, path, followed, listed, tree);
    }
    followed.seen = Some(*now);
}

/// Whether a tree its store says is at work (`said`) still is: not when it
/// was last `written` too long before `now` (its CLI was killed).
fn at_work(said: bool, written: Option<SystemTime>, now: SystemTime) -> bool {
    still_working(Some(said), written, now) == Some(true)
}

/// Lists a tree's task when it is new, and brings its messages and work
/// up to date.
fn sync(
    backend: &Backend,
    path: &Path,
    followed: &mut Followed,
    listed: &mut i64,
    tree: store::Tree,
) {
    let events = match opencode::import_sessions(&tree.sessions) {
        Ok(events) => events,
        Err(e) => {
            tracing::warn!(
                "skipping OpenCode session {} of {}: {e}",
                tree.id,
                path.display()
            );
            return;
        }
    };
    let facts = card_facts(&tree, &events);
    let title = match tree.title.trim() {
        "" => tree.id.clone(),
        t => t.to_string(),
    };
    let (task_id, session_id) = match followed.tasks.get(&tree.id) {
        Some(ids) => ids.clone(),
        None => {
            let slug = tasks::slug(&tree.id);
            let ids = (
                format!("rec-opencode-{slug}"),
                format!("sess-rec-opencode-{slug}"),
            );
            tasks::add_task(
                backend,
                (&ids.0, &ids.1),
                title.clone(),
                path,
                tree.working,
                *listed,
            );
            *listed += 1;
            let messages = messages_from_events(events, &ids.1, &ids.0);
            let turn = newest_turn(&messages);
            let turns = finished_turns(&messages, &ids.1, &ids.0);
            backend.load_session(&ids.1, messages, turns);
            follow_work(backend, &ids.1, tree.working, turn);
            tell_card(backend, followed, &tree.id, &ids.0, facts);
            followed.tasks.insert(tree.id.clone(), ids);
            return;
        }
    };
    tasks::retitle(backend, &task_id, title);
    let messages = messages_from_events(events, &session_id, &task_id);
    let turn = newest_turn(&messages);
    backend.sync_messages(&session_id, messages);
    follow_work(backend, &session_id, tree.working, turn);
    tell_card(backend, followed, &tree.id, &task_id, facts);
}

/// A tree's card facts (docs/behaviour.md §5), computed by core from its
/// sessions: interrupted when its work ended with a subagent never settled
/// (docs/behaviour.md §8).
fn card_facts(tree: &store::Tree, events: &[Event]) -> SessionFacts {
    let mut facts = taskview_core::read::import::card_facts::opencode_sessions(
        &tree.sessions,
        events,
        tree.working,
    );
    facts.interrupted = !tree.working && facts.runs.iter().any(|r| r.end.is_none());
    facts
}

/// Tells the board tree `root`'s card facts when they changed.
fn tell_card(
    backend: &Backend,
    followed: &mut Followed,
    root: &str,
    task_id: &str,
    facts: SessionFacts,
) {
    if followed.cards.get(root) != Some(&facts) {
        tasks::tell_card(backend, task_id, facts.clone());
        followed.cards.insert(root.to_string(), facts);
    }
}

/// The turn of the newest message that has one: the turn at work.
fn newest_turn(messages: &[Message]) -> Option<String> {
    messages.iter().rev().find_map(|m| m.turn_id.clone())
}

#[cfg(test)]
mod tests;
