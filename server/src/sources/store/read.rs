//! The reader: every server with a store lists the tasks of the machines
//! that write there on its board (its own machine's it shows from its own
//! files when it writes too), follows their changes by the store's batch
//! numbers (woken by NOTIFY where the engine has it, polling in any case),
//! and announces them to its clients as its own: tasks to everyone, turns
//! too, messages to the clients that follow their session. It holds the
//! tasks and the names of their sessions, never their messages (`pages`
//! reads those when asked). While the store cannot be read the board says
//! so (`UNREACHABLE`), and a full read brings it up to date when it is back.

use super::link::{Link, Listener};
use super::names::{Board, Names};
use super::{pages, StoreConfig, StoreError, UNREACHABLE};
use crate::backend::Backend;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::read::protocol::{SessionDto, TaskDto, TurnDto};
use tokio::runtime::Handle;
use tokio_postgres::Client;

/// How often the store is polled (a notification wakes the reader sooner).
const POLL_EVERY: Duration = Duration::from_millis(250);
/// How long an engine that refused LISTEN is not asked again.
const LISTEN_AGAIN_AFTER: Duration = Duration::from_secs(30);
/// Batches applied per poll.
const BATCHES_PER_POLL: i64 = 1000;

/// Lists the store's tasks on `backend`'s board and follows them.
pub(super) fn start(
    handle: &Handle,
    backend: &Arc<Backend>,
    link: Arc<Link>,
    config: &StoreConfig,
) {
    let board = Board::of(backend);
    let names = Arc::new(Names::default());
    let pager = pages::StorePager::new(handle.clone(), Arc::clone(&link), Arc::clone(&names));
    backend.set_pager(Arc::new(pager));
    let reader = Reader {
        backend: Arc::clone(backend),
        link,
        names,
        board,
        own: config.writes.then(|| config.machine.clone()),
    };
    handle.spawn(reader.follow());
}

/// What the reader keeps.
struct Reader {
    backend: Arc<Backend>,
    link: Arc<Link>,
    names: Arc<Names>,
    board: Board,
    /// This server's machine, when it writes: shown from its own files.
    own: Option<String>,
}

impl Reader {
    /// Reads the store whole, then its changes, until the server stops.
    async fn follow(self) {
        let mut seen: Option<i64> = None;
        let mut listener: Option<Listener> = None;
        let mut refused_listen: Option<Instant> = None;
        let mut unreachable = false;
        loop {
            let read = match seen {
                None => self.read_all().await.map(Some),
                Some(seq) => self.read_changes(seq).await,
            };
            match read {
                Ok(now) => {
                    seen = now;
                    if unreachable {
                        tracing::info!(store = %self.link.url(), "store readable again");
                        self.backend.set_notice(None);
                        unreachable = false;
                    }
                }
                Err(e) => {
                    if !unreachable {
                        tracing::warn!(store = %self.link.url(), "cannot read the store: {e}");
                        self.backend.set_notice(Some(UNREACHABLE));
                        unreachable = true;
                    }
                    listener = None;
                }
            }
            let may_listen = refused_listen.is_none_or(|at| at.elapsed() >= LISTEN_AGAIN_AFTER);
            if listener.is_none() && !unreachable && may_listen {
                match self.link.listen().await {
                    Ok(l) => listener = Some(l),
                    Err(_) => refused_listen = Some(Instant::now()),
                }
            }
            wait(&mut listener).await;
        }
    }

    /// Lists every task the store holds (and drops those it no longer
    /// does); the batch number it was read at.
    async fn read_all(&self) -> Result<i64, StoreError> {
        let client = self.link.client().await?;
        let seq: i64 = client
            .query_one("SELECT seq FROM taskview_clock WHERE id = 1", &[])
            .await?
            .get(0);
        let sessions = client
            .query(
                "SELECT machine, session_id, body, message_count FROM taskview_sessions
                 WHERE NOT pruned",
                &[],
            )
            .await?;
        let tasks = client
            .query(
                "SELECT machine, task_id, body, deleted FROM taskview_tasks WHERE NOT deleted",
                &[],
            )
            .await?;
        for row in &sessions {
            self.apply_session(row.get(0), row.get(1), row.get(2), row.get(3));
        }
        let mut listed = Vec::new();
        for row in &tasks {
            listed.extend(self.apply_task(row.get(0), row.get(1), row.get(2), row.get(3)));
        }
        for gone in self.names.tasks_not_in(&listed) {
            self.backend.remove_task(&gone);
        }
        Ok(seq)
    }

    /// Applies the batches after `seen`; the last one applied, or `None`
    /// when some were pruned before this reader saw them (read all again).
    async fn read_changes(&self, seen: i64) -> Result<Option<i64>, StoreError> {
        let client = self.link.client().await?;
        let rows = client
            .query(
                "SELECT seq, batch FROM taskview_batches WHERE seq > $1 ORDER BY seq LIMIT $2",
                &[&seen, &BATCHES_PER_POLL],
            )
            .await?;
        let Some(first) = rows.first() else {
            return Ok(Some(seen));
        };
        if first.get::<_, i64>(0) != seen + 1 {
            return Ok(None);
        }
        let last: i64 = rows[rows.len() - 1].get(0);
        let batches: Vec<i64> = rows.iter().map(|r| r.get(1)).collect();
        self.apply_batches(&client, &batches).await?;
        Ok(Some(last))
    }

    /// Applies what `batches` wrote: sessions, tasks, turns, then the
    /// messages of the sessions someone follows.
    async fn apply_batches(&self, client: &Client, batches: &[i64]) -> Result<(), StoreError> {
        let sessions = client
            .query(
                "SELECT machine, session_id, body, message_count FROM taskview_sessions
                 WHERE batch = ANY($1) AND NOT pruned",
                &[&batches],
            )
            .await?;
        for row in &sessions {
            self.apply_session(row.get(0), row.get(1), row.get(2), row.get(3));
        }
        let tasks = client
            .query(
                "SELECT machine, task_id, body, deleted FROM taskview_tasks WHERE batch = ANY($1)",
                &[&batches],
            )
            .await?;
        for row in &tasks {
            self.apply_task(row.get(0), row.get(1), row.get(2), row.get(3));
        }
        let turns = client
            .query(
                "SELECT machine, body FROM taskview_turns WHERE batch = ANY($1)",
                &[&batches],
            )
            .await?;
        for row in &turns {
            self.apply_turn(row.get(0), row.get(1));
        }
        self.apply_messages(client, batches).await
    }

    /// Announces the changed messages of the followed sessions.
    async fn apply_messages(&self, client: &Client, batches: &[i64]) -> Result<(), StoreError> {
        let watched = self.backend.watched_remote_sessions();
        let keys: Vec<(String, String, String)> = watched
            .into_iter()
            .filter_map(|id| self.names.session(&id).map(|(m, s)| (id, m, s)))
            .collect();
        if keys.is_empty() {
            return Ok(());
        }
        let session_ids: Vec<&str> = keys.iter().map(|(_, _, s)| s.as_str()).collect();
        let rows = client
            .query(
                "SELECT machine, session_id, message_id, body, deleted FROM taskview_messages
                 WHERE batch = ANY($1) AND session_id = ANY($2) ORDER BY pos, message_id",
                &[&batches, &session_ids],
            )
            .await?;
        for (reader_id, machine, session_id) in &keys {
            let mut events = Vec::new();
            let mine = rows
                .iter()
                .filter(|r| r.get::<_, &str>(0) == machine && r.get::<_, &str>(1) == session_id);
            for row in mine {
                let id: String = row.get(2);
                if row.get::<_, bool>(4) {
                    events.push(Event::MessageDeleted { id });
                } else if let Ok(mut message) = Message::from_value(&row.get::<_, Value>(3)) {
                    message.task_id = self.names.task(machine, &message.task_id);
                    message.session_id.clone_from(reader_id);
                    events.push(Event::MessageReplaced(message));
                }
            }
            if !events.is_empty() {
                self.backend.announce_remote_messages(reader_id, &events);
            }
        }
        Ok(())
    }

    /// Lists or updates a task of another machine; its id on this board.
    fn apply_task(
        &self,
        machine: &str,
        task_id: &str,
        body: Value,
        deleted: bool,
    ) -> Option<String> {
        if self.own.as_deref() == Some(machine) {
            return None;
        }
        let id = self.names.task(machine, task_id);
        if deleted {
            self.backend.remove_task(&id);
            self.names.forget_task(&id);
            return None;
        }
        let Ok(mut task) = serde_json::from_value::<TaskDto>(body) else {
            tracing::warn!(machine, task_id, "the store holds an unreadable task");
            return None;
        };
        task.id.clone_from(&id);
        self.board.place(&mut task);
        task.primary_session_id = task
            .primary_session_id
            .map(|session| self.names.session_id(machine, &session));
        self.backend.put_remote_task(task);
        self.names.note_task(&id);
        Some(id)
    }

    /// Updates what a session of another machine says of itself, with
    /// the count of messages the store holds of it.
    fn apply_session(&self, machine: &str, session_id: &str, body: Value, count: i64) {
        if self.own.as_deref() == Some(machine) {
            return;
        }
        let Ok(mut session) = serde_json::from_value::<SessionDto>(body) else {
            return;
        };
        session.message_count = u64::try_from(count).unwrap_or_default();
        let task_id = self.names.task(machine, &session.task_id);
        session.id = self.names.session_id(machine, session_id);
        session.task_id = task_id;
        self.backend.put_remote_session(session);
    }

    /// Announces a turn of a session of another machine.
    fn apply_turn(&self, machine: &str, body: Value) {
        if self.own.as_deref() == Some(machine) {
            return;
        }
        let Ok(mut turn) = serde_json::from_value::<TurnDto>(body) else {
            return;
        };
        turn.task_id = self.names.task(machine, &turn.task_id);
        turn.session_id = self.names.session_id(machine, &turn.session_id);
        self.backend.announce_remote_turn(&turn);
    }
}

/// Waits for a notification or the next poll, whichever comes first; a
/// listener whose connection ended is dropped.
async fn wait(listener: &mut Option<Listener>) {
    let Some(l) = listener.as_mut() else {
        tokio::time::sleep(POLL_EVERY).await;
        return;
    };
    tokio::select! {
        woke = l.wakes.recv() => if woke.is_none() { *listener = None },
        () = tokio::time::sleep(POLL_EVERY) => {}
    }
}
