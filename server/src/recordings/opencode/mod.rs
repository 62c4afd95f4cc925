//! OpenCode's session store in a recordings folder (`opencode.db`, as in
//! `~/.local/share/opencode`): each root session is a task of the board,
//! its subagents' sessions read with it. Whenever the database or its
//! write-ahead log (`opencode.db-wal`) changes, the rows written since the
//! last read are read (`store` reads without ever writing) and the trees
//! they touch imported again by the importer the file view uses, so a session is in progress while its agent works and
//! its chip counts the subagents running. The folder's other files
//! (OpenCode's logs, credentials, snapshots) are never sessions (`tree`).

mod store;

use super::tasks::{self, follow_work, still_working};
use super::tree::{fingerprint, Fingerprint, OPENCODE_STORE as STORE};
use super::{finished_turns, messages_from_events};
use crate::state::Backend;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;
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
    /// Whether the store has gone unwritten past the idle threshold, as its
    /// tasks were last told (SPEC.md §8).
    still: Option<bool>,
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
    /// trees they touch (and those at work) synced and their work followed.
    /// A store that cannot be read now (being created, locked past the
    /// timeout) is tried again at the next change.
    pub(super) fn refresh(&mut self, backend: &Backend) {
        for (path, followed) in &mut self.stores {
            let wal = path.with_extension("db-wal");
            let now = [fingerprint(path).ok(), fingerprint(&wal).ok()];
            let still = tasks::is_still(newest(&now), SystemTime::now());
            if followed.still != Some(still) {
                followed.still = Some(still);
                for (task_id, _) in followed.tasks.values() {
                    tasks::tell_still(backend, task_id, still);
                }
            }
            let unchanged = followed.seen.as_ref() == Some(&now);
            // A store nobody writes any more is read once more, so the work
            // its killed CLI left open ends (`still_working`).
            let working = !followed.at_work.is_empty();
            let abandoned = unchanged && working && !at_work(true, &now);
            if now[0].is_none() || (unchanged && !abandoned) {
                continue;
            }
            let changed = match followed.snapshot.refresh(path) {
                Ok(changed) => changed,
                Err(e) => {
                    tracing::warn!("cannot read the OpenCode store {}: {e}", path.display());
                    continue;
                }
            };
            tracing::debug!(
                "OpenCode store {}: {} rows read",
                path.display(),
                changed.rows
            );
            // The trees at work are judged again: quiet files end their work.
            let roots = changed.roots.map(|mut roots| {
                roots.extend(followed.at_work.iter().cloned());
                roots
            });
            for mut tree in followed.snapshot.trees(roots.as_ref()) {
                tree.working = at_work(tree.working, &now);
                if tree.working {
                    followed.at_work.insert(tree.id.clone());
                } else {
                    followed.at_work.remove(&tree.id);
                }
                sync(backend, path, followed, &mut self.listed, tree);
            }
            followed.seen = Some(now);
        }
    }
}

/// Whether a tree its store says is at work (`said`) still is: not when the
/// store's files (`seen`) have gone unwritten too long (its CLI was killed).
fn at_work(said: bool, seen: &[Option<Fingerprint>; 2]) -> bool {
    still_working(Some(said), newest(seen), SystemTime::now()) == Some(true)
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
            tasks::tell_still(backend, &ids.0, followed.still == Some(true));
            let messages = messages_from_events(events, &ids.1, &ids.0);
            let turn = newest_turn(&messages);
            let turns = finished_turns(&messages, &ids.1, &ids.0);
            backend.load_session(&ids.1, messages, turns);
            follow_work(backend, &ids.1, tree.working, turn);
            followed.tasks.insert(tree.id.clone(), ids);
            return;
        }
    };
    tasks::retitle(backend, &task_id, title);
    let messages = messages_from_events(events, &session_id, &task_id);
    let turn = newest_turn(&messages);
    backend.sync_messages(&session_id, messages);
    follow_work(backend, &session_id, tree.working, turn);
}

/// The turn of the newest message that has one: the turn at work.
fn newest_turn(messages: &[Message]) -> Option<String> {
    messages.iter().rev().find_map(|m| m.turn_id.clone())
}

#[cfg(test)]
mod tests;
