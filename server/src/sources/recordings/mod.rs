//! Recordings: every session of a folder becomes a task with one session,
//! read by taskview-core's importers (the code the browser uses). The folder
//! may be flat or a tree laid out like `~/.claude/projects` (see `tree`). A
//! task is titled by its session's own title (a Claude Code rename or
//! `summary`, else its first prompt on one line), else its file name. A
//! file that cannot be read is reported and skipped, never fatal; it is
//! tried again when it changes.
//!
//! Light at rest, any size (docs/behaviour.md §7): the server answers at once and the
//! board fills as the sessions are indexed (`index`: the ends of each file);
//! a session is imported whole only when it is read or its agent works, and
//! imported sessions nobody reads are dropped past a memory budget
//! (`sessions`). Changes come from filesystem notifications (`watch`), with
//! a slow rescan behind them; a growing file is followed by its appended
//! bytes (`tail`): new and changed messages are pushed live, the growth
//! counts as an active turn (so its subagents run and the board chip
//! moves), and the turn completes once the file has been quiet for a while.
//! The board's tasks and their states are `tasks`'s.
//!
//! Claude Code subagent transcripts (`agent-<id>.jsonl`), their sidecars
//! and workflow runs are not tasks of their own: they are read with the
//! session they belong to (docs/formats.md §2.1, §7), the ones under
//! `<session file stem>/` and the ones beside the sessions whose records
//! carry that session's `sessionId`; compaction helpers are skipped. A new,
//! changed or removed one re-reads its session.

mod index;
mod opencode;
mod sessions;
mod tail;
mod tasks;
mod tree;
mod watch;

use crate::backend::Backend;
use crate::shutdown::Shutdown;
use serde_json::json;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use taskview_core::model::event::Event;
use taskview_core::model::message::{Author, Message, MessageType, Metadata};
use taskview_core::read::import::{detect, import_any_with_files, otlp, Dialect};
use taskview_core::read::protocol::TurnDto;
use taskview_core::state::store::{EntryId, Store};
use tokio::task::JoinHandle;

use sessions::Sessions;

/// Reads one recording into events, whatever its dialect (detected from
/// content by the importers the browser uses). `files` are the files that
/// belong to it, `(relative path, contents)`: a Claude Code session's
/// subagent transcripts.
/// Telemetry (docs/behaviour.md §7 "OpenTelemetry") is read as of now: a session still sending may
/// have subagents running that no record has settled yet.
pub fn import_recording(text: &str, files: &[(&str, &str)]) -> Result<Vec<Event>, String> {
    if detect(text) == Some(Dialect::Otlp) {
        return otlp::import_live(text, now_ms());
    }
    import_any_with_files(text, files)
        .map(|import| import.events)
        .map_err(|e| e.to_string())
}

/// Milliseconds since the epoch: the time a live session is judged at.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Folds importer events into a session's messages through the core store
/// (its merge rules, docs/behaviour.md §1.1), in display order. Every message is
/// re-homed into `session_id`/`task_id`; an unreadable element becomes a
/// visible `error` message `unreadable-<n>` quoting its text.
pub fn messages_from_events(events: Vec<Event>, session_id: &str, task_id: &str) -> Vec<Message> {
    let mut store = Store::new();
    store.apply_all(events);
    let mut messages: Vec<Message> = store
        .entries()
        .filter_map(|(_, entry)| match entry {
            EntryId::Message(id) => store.message(id).cloned(),
            EntryId::Unreadable(seq) => store
                .unreadable(*seq)
                .map(|u| unreadable(u.seq, &u.raw, &u.error)),
        })
        .collect();
    for m in &mut messages {
        m.session_id = session_id.to_string();
        m.task_id = task_id.to_string();
    }
    messages
}

/// The visible message of an unreadable element `n`.
fn unreadable(n: u64, raw: &str, error: &str) -> Message {
    Message {
        id: format!("unreadable-{n}"),
        author: Author::Agent,
        kind: MessageType::Error,
        content: format!("Unreadable message in the recording: {error}\n\n{raw}"),
        metadata: Metadata::from_value(&json!({ "unreadable": true, "raw": raw })),
        ..Message::default()
    }
}

/// One finished turn per distinct `turn_id`, from its first to its last message.
pub fn finished_turns(messages: &[Message], session_id: &str, task_id: &str) -> Vec<TurnDto> {
    let mut turns: Vec<TurnDto> = Vec::new();
    for m in messages {
        let Some(turn_id) = &m.turn_id else {
            continue;
        };
        let last = std::cmp::max(&m.updated_at, &m.created_at).clone();
        match turns.iter_mut().find(|t| &t.id == turn_id) {
            Some(t) => {
                t.completed_at = Some(last.clone());
                t.updated_at = last;
            }
            None => turns.push(TurnDto {
                id: turn_id.clone(),
                session_id: session_id.to_string(),
                task_id: task_id.to_string(),
                started_at: m.created_at.clone(),
                completed_at: Some(last.clone()),
                created_at: m.created_at.clone(),
                updated_at: last,
            }),
        }
    }
    turns
}

/// Loads a finished transcript into an existing session.
pub fn load_transcript(
    backend: &Backend,
    session_id: &str,
    task_id: &str,
    text: &str,
) -> Result<(), String> {
    let messages = messages_from_events(import_recording(text, &[])?, session_id, task_id);
    for turn in finished_turns(&messages, session_id, task_id) {
        backend.record_turn(session_id, turn);
    }
    backend.sync_messages(session_id, messages);
    Ok(())
}

/// How the recordings folders are watched.
#[derive(Clone, Debug, PartialEq)]
pub struct Watching {
    /// How often every folder is looked through in case a change was
    /// missed (the only way changes are found without notifications).
    pub rescan: Duration,
    /// Bytes of session files that may stay imported with nobody reading them.
    pub budget: u64,
    /// Filesystem notifications (false: the rescan alone).
    pub notify: bool,
    /// The telemetry store a Collector's file in the folders is fed to
    /// (`otlp::Feed`); `None`: such a file is read as one session.
    pub telemetry: Option<PathBuf>,
}

impl Watching {
    /// Bytes of session files kept imported by default (`--memory-mb`).
    pub const DEFAULT_BUDGET: u64 = 256 << 20;

    /// Notifications, a rescan every `rescan`, the default budget.
    pub fn every(rescan: Duration) -> Watching {
        Watching {
            rescan,
            budget: Self::DEFAULT_BUDGET,
            notify: true,
            telemetry: None,
        }
    }
}

/// Sessions indexed per hold of the lock at start, so reads are served between.
const INDEX_CHUNK: usize = 32;

/// The recordings of some folders, shared by their watcher and the readers
/// that open a session.
pub struct Folder {
    roots: Vec<PathBuf>,
    sessions: Arc<Mutex<Sessions>>,
    /// OpenCode's session stores among the folders.
    stores: Arc<Mutex<opencode::Stores>>,
}

fn lock(sessions: &Mutex<Sessions>) -> MutexGuard<'_, Sessions> {
    sessions.lock().unwrap_or_else(|e| e.into_inner())
}

impl Folder {
    /// Creates the board (empty: sessions are listed once watching starts)
    /// and lets the backend open a session nobody read yet.
    pub fn load(backend: &Backend, roots: &[PathBuf], watching: &Watching) -> Folder {
        tasks::add_board(backend, roots);
        let mut sessions = Sessions::new(roots, watching.budget);
        if let Some(dir) = &watching.telemetry {
            match crate::sources::telemetry::Feed::open(dir) {
                Ok(feed) => sessions.feed_collector_files(feed),
                Err(e) => tracing::warn!("cannot feed Collector files to {}: {e}", dir.display()),
            }
        }
        let sessions = Arc::new(Mutex::new(sessions));
        let opener = Arc::clone(&sessions);
        // The read is made without holding the sessions: the watcher goes
        // on meanwhile.
        backend.set_opener(Box::new(move |backend, session_id| {
            let Some(reading) = lock(&opener).to_open(session_id) else {
                return;
            };
            // A big one is shown from its end first; its whole read follows.
            if let Some(Ok(tail)) = reading.read_tail() {
                lock(&opener).open_tail(backend, session_id, tail);
                return;
            }
            let whole = reading.read();
            lock(&opener).open(backend, session_id, whole);
        }));
        Folder {
            roots: roots.to_vec(),
            sessions,
            stores: Arc::new(Mutex::new(opencode::Stores::new(roots))),
        }
    }

    /// Runs `work` on the sessions off the async threads.
    async fn run<T: Send + 'static>(
        &self,
        backend: &Arc<Backend>,
        work: impl FnOnce(&mut Sessions, &Backend) -> T + Send + 'static,
    ) -> Option<T> {
        let sessions = Arc::clone(&self.sessions);
        let backend = Arc::clone(backend);
        tokio::task::spawn_blocking(move || work(&mut lock(&sessions), &backend))
            .await
            .ok()
    }

    /// Reads again the OpenCode stores that changed, off the async threads.
    async fn refresh_stores(&self, backend: &Arc<Backend>) {
        let stores = Arc::clone(&self.stores);
        let backend = Arc::clone(backend);
        let refresh = move || {
            stores
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .refresh(&backend)
        };
        let _ = tokio::task::spawn_blocking(refresh).await;
    }

    /// Indexes every session (the board fills as it goes; the scenario
    /// status counts them in `frames` and says `iterations: 1` when all are
    /// listed), then follows the folders' changes until shutdown.
    pub fn spawn_tail(
        self,
        backend: &Arc<Backend>,
        watching: &Watching,
        shutdown: &Shutdown,
    ) -> JoinHandle<()> {
        let backend = Arc::clone(backend);
        let mut shutdown = shutdown.clone();
        let watching = watching.clone();
        tokio::spawn(async move {
            let mut watch = watch::Watch::start(&self.roots, watching.notify);
            self.run(&backend, |s, _| s.look()).await;
            let index_some =
                |s: &mut Sessions, b: &Backend| (s.index_some(b, INDEX_CHUNK, true), s.listed());
            while let Some((true, listed)) = self.run(&backend, index_some).await {
                backend.update_scenario(|s| s.frames = listed as u64);
                if !shutdown.sleep(Duration::ZERO).await {
                    return;
                }
            }
            self.refresh_stores(&backend).await;
            backend.update_scenario(|s| s.iterations = 1);
            // Sessions at work: imported one by one, each read without
            // holding the sessions (`Backend::open`).
            if let Some(working) = self.run(&backend, |s, _| s.take_working()).await {
                for session_id in working {
                    let backend = Arc::clone(&backend);
                    let _ = tokio::task::spawn_blocking(move || backend.open(&session_id)).await;
                }
            }
            // Every card's facts, each session nobody opened read once,
            // whole, without holding the sessions.
            while let Some(Some((session_id, reading))) =
                self.run(&backend, |s, _| s.next_card()).await
            {
                let whole = tokio::task::spawn_blocking(move || reading.read()).await;
                let Ok(whole) = whole else { break };
                self.run(&backend, move |s, b| s.take_card(b, &session_id, whole))
                    .await;
                if !shutdown.sleep(Duration::ZERO).await {
                    return;
                }
            }
            let tick = watching.rescan.min(Duration::from_millis(500));
            let mut rescanned = Instant::now();
            loop {
                let batch = tokio::select! {
                    batch = watch.next(tick) => batch,
                    _ = shutdown.requested() => return,
                };
                let arrived = !watch.arrived().is_empty();
                let rescan = batch.rescan || rescanned.elapsed() >= watching.rescan;
                if rescan || arrived {
                    rescanned = Instant::now();
                    self.run(&backend, |s, b| s.rescan(b)).await;
                } else if !batch.is_empty() {
                    let paths = batch.paths;
                    self.run(&backend, move |s, b| s.changed_paths(b, &paths))
                        .await;
                }
                let listed = self.run(&backend, move |s, b| {
                    s.tick(b, tick);
                    s.listed()
                });
                if let Some(listed) = listed.await {
                    backend.update_scenario(|s| s.frames = listed as u64);
                }
                self.start_whole_reads(&backend);
                self.refresh_stores(&backend).await;
            }
        })
    }

    /// Starts the whole reads of the sessions shown from their end first,
    /// each off the async threads and without holding the sessions; each
    /// lands when done (`Sessions::open`), the watcher going on meanwhile.
    fn start_whole_reads(&self, backend: &Arc<Backend>) {
        for (session_id, reading) in lock(&self.sessions).take_whole_reads() {
            let sessions = Arc::clone(&self.sessions);
            let backend = Arc::clone(backend);
            tokio::task::spawn_blocking(move || {
                let whole = reading.read();
                lock(&sessions).open(&backend, &session_id, whole);
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_fold_into_rehomed_messages_in_order() {
        let events = import_recording(
            r#"[{"id":"a","session_id":"x","turn_id":"t1","created_at":"1","updated_at":"2"},
                 17,
                 {"id":"b","turn_id":"t2","created_at":"3","updated_at":"3"},
                 {"id":"a","content":"again","turn_id":"t1","created_at":"1","updated_at":"4"}]"#,
            &[],
        )
        .unwrap();
        let messages = messages_from_events(events, "s", "t");
        let ids: Vec<&str> = messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!((ids[0], ids[2]), ("a", "b"));
        assert!(ids[1].starts_with("unreadable-"), "{ids:?}");
        // Ids are stable when the file grows.
        let again = import_recording(r#"[{"id":"a"}, 17, {"id":"b"}, {"id":"c"}]"#, &[]).unwrap();
        let grown = messages_from_events(again, "s", "t");
        assert_eq!(grown[1].id, ids[1]);
        assert_eq!(messages[0].content, "again");
        assert!(messages
            .iter()
            .all(|m| m.session_id == "s" && m.task_id == "t"));
        assert_eq!(messages[1].kind, MessageType::Error);
        assert!(messages[1].content.contains("17"));

        let turns = finished_turns(&messages, "s", "t");
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].started_at, "1");
        assert_eq!(turns[0].completed_at.as_deref(), Some("4"));
    }

    #[test]
    fn updates_and_deletes_from_richer_importers_are_folded() {
        let added = Message::from_value(&json!({"id": "m", "content": "one"})).unwrap();
        let patch = taskview_core::model::message::MessagePatch {
            id: "m".into(),
            content: Some("two".into()),
            ..Default::default()
        };
        let orphan = taskview_core::model::message::MessagePatch {
            id: "n".into(),
            content: Some("new".into()),
            ..Default::default()
        };
        let events = vec![
            Event::MessageAdded(added),
            Event::MessageUpdated(patch),
            Event::MessageUpdated(orphan),
            Event::MessageDeleted { id: "m".into() },
        ];
        let messages = messages_from_events(events, "s", "t");
        assert_eq!(messages.len(), 1);
        assert_eq!(
            (messages[0].id.as_str(), messages[0].content.as_str()),
            ("n", "new")
        );
    }
}
