//! One writer's transactions: a batch of coalesced changes written as
//! upserts keyed by machine, session and record (a row is replaced only
//! when what it holds changed), then numbered by the store's clock and
//! announced (NOTIFY, where the engine has it). A batch is one
//! transaction: a writer killed in the middle of one leaves nothing of
//! it, and its restart writes the same rows, never new ones.

use super::link::{Link, CHANNEL};
use super::pending::{Pending, SessionMessages};
use super::shape::Shaper;
use super::StoreError;
use serde_json::json;
use std::collections::HashMap;
use taskview_core::model::message::Message;
use taskview_core::model::time::parse_rfc3339;
use tokio_postgres::Client;

/// What one writer writes as: its machine, its shaper, and the next
/// position of each session's new messages.
pub(super) struct Writer {
    machine: String,
    /// Behind a lock only because the masker's compiled rules are not
    /// shared between threads (never held across an await).
    shaper: std::sync::Mutex<Shaper>,
    next_pos: HashMap<String, i64>,
    /// Whether the engine has `pg_notify` (CockroachDB has not).
    notifies: bool,
}

/// Message changes written per transaction.
const MESSAGES_PER_BATCH: usize = 500;

impl Writer {
    pub(super) fn new(machine: &str, shaper: Shaper) -> Writer {
        Writer {
            machine: machine.to_string(),
            shaper: std::sync::Mutex::new(shaper),
            next_pos: HashMap::new(),
            notifies: true,
        }
    }

    /// Runs `work` with the shaper.
    fn shape<T>(&self, work: impl FnOnce(&Shaper) -> T) -> T {
        work(&self.shaper.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Writes everything pending, a transaction per batch; on failure
    /// what was not written stays pending.
    pub(super) async fn flush(
        &mut self,
        link: &Link,
        pending: &mut Pending,
    ) -> Result<(), StoreError> {
        let client = link.client().await?;
        for session_id in pending.whole_sessions() {
            self.compare_whole(&client, pending, &session_id).await?;
        }
        while !pending.is_empty() {
            let batch = pending.take(MESSAGES_PER_BATCH);
            if let Err(e) = self.write(&client, &batch).await {
                let _ = client.batch_execute("ROLLBACK").await;
                pending.restore(batch);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Forgets the batches older than an hour: their rows stay, and a
    /// reader further behind than that reads the board whole again.
    pub(super) async fn prune(&self, link: &Link) -> Result<u64, StoreError> {
        let client = link.client().await?;
        let pruned = client
            .execute(
                "DELETE FROM taskview_batches WHERE committed_at < now() - INTERVAL '1 hour'",
                &[],
            )
            .await?;
        Ok(pruned)
    }

    /// Keeps of a session read whole only what the store does not hold
    /// as it is, and removes what the store holds and the session no
    /// longer does. Of a session the store's retention removed, only the
    /// messages newer than its last activity are kept (the others were
    /// removed on purpose, not lost).
    async fn compare_whole(
        &self,
        client: &Client,
        pending: &mut Pending,
        session_id: &str,
    ) -> Result<(), StoreError> {
        let rows = client
            .query(
                "SELECT message_id, hash, deleted FROM taskview_messages
                 WHERE machine = $1 AND session_id = $2",
                &[&self.machine, &session_id],
            )
            .await?;
        let pruned = client
            .query_opt(
                "SELECT (EXTRACT(EPOCH FROM active_at) * 1000)::INT8 FROM taskview_sessions
                 WHERE machine = $1 AND session_id = $2 AND pruned",
                &[&self.machine, &session_id],
            )
            .await?
            .map(|row| row.get::<_, i64>(0));
        let live = rows.iter().filter(|r| !r.get::<_, bool>(2)).count() as i64;
        // What the store holds, counted whole once per whole read: the
        // batches keep it by their own changes from here.
        client
            .execute(
                "UPDATE taskview_sessions SET message_count = $3
                 WHERE machine = $1 AND session_id = $2 AND message_count <> $3",
                &[&self.machine, &session_id, &live],
            )
            .await?;
        let Some(session) = pending.messages.get(session_id) else {
            return Ok(());
        };
        let (mut same, mut gone) = (Vec::new(), Vec::new());
        for row in rows {
            let (id, hash, deleted): (String, i64, bool) = (row.get(0), row.get(1), row.get(2));
            match session.by_id.get(&id) {
                Some((_, Some(message))) => {
                    let shaped = self.shape(|s| s.message(message).map(|s| s.hash));
                    if !deleted && shaped == Some(hash) {
                        same.push(id);
                    }
                }
                Some((_, None)) => {}
                None if !deleted => gone.push(id),
                None => {}
            }
        }
        if let Some(active_ms) = pruned {
            same.extend(older_than(session, active_ms));
        }
        for id in same {
            pending.drop_message(session_id, &id);
        }
        for id in gone {
            pending.remove_message(session_id, id);
        }
        if let Some(session) = pending.messages.get_mut(session_id) {
            session.whole = false;
        }
        Ok(())
    }

    /// Writes one batch in one transaction and announces it.
    async fn write(&mut self, client: &Client, batch: &Pending) -> Result<(), StoreError> {
        let number = batch_number();
        client.batch_execute("BEGIN").await?;
        // Sessions in one order, so that two writers of one folder never wait on each other in a circle.
        let mut sessions: Vec<&String> = batch.messages.keys().collect();
        sessions.sort_unstable();
        let mut written = Vec::new();
        for session_id in sessions {
            let session = &batch.messages[session_id];
            let columns = self.message_columns(client, session_id, session).await?;
            if !columns.ids.is_empty() {
                written.push((session_id, columns));
            }
        }
        // Only new work brings a removed session back: one whose compare
        // kept nothing (all older than its removal) is in the batch but stays removed.
        let working: Vec<&String> = written.iter().map(|(id, _)| *id).collect();
        self.revive(client, &working, number).await?;
        self.write_tasks(client, batch, number).await?;
        self.write_sessions(client, batch, number).await?;
        let mut counted = (Vec::new(), Vec::new());
        for (session_id, columns) in &written {
            let added = self
                .write_messages(client, session_id, columns, number)
                .await?;
            counted.0.push(session_id.to_string());
            counted.1.push(added);
        }
        self.count(client, &counted, number).await?;
        commit_batch(client, number).await?;
        if self.notifies {
            let told = client
                .execute("SELECT pg_notify($1, '')", &[&CHANNEL])
                .await;
            // Readers poll the clock anyway: an engine without NOTIFY only waits for them.
            self.notifies = told.is_ok();
        }
        Ok(())
    }

    /// Upserts the batch's tasks (a removed one kept as removed).
    async fn write_tasks(
        &self,
        client: &Client,
        batch: &Pending,
        number: i64,
    ) -> Result<(), StoreError> {
        if batch.tasks.is_empty() {
            return Ok(());
        }
        let mut ids = Vec::new();
        let mut bodies = Vec::new();
        let mut deleted = Vec::new();
        for (id, task) in &batch.tasks {
            ids.push(id.clone());
            match task {
                Some(task) => bodies.push(self.shape(|s| s.task(task).body)),
                None => bodies.push(json!({ "id": id }).to_string()),
            }
            deleted.push(task.is_none());
        }
        let person = self.shape(|s| s.person().to_string());
        client
            .execute(
                "INSERT INTO taskview_tasks (machine, task_id, person, body, deleted, batch)
                 SELECT $1, t, $2, b::JSONB, d, $3
                 FROM unnest($4::TEXT[], $5::TEXT[], $6::BOOL[]) AS u(t, b, d)
                 ON CONFLICT (machine, task_id) DO UPDATE
                 SET person = EXCLUDED.person, body = EXCLUDED.body,
                     deleted = EXCLUDED.deleted, batch = EXCLUDED.batch
                 WHERE NOT taskview_tasks.pruned",
                &[&self.machine, &person, &number, &ids, &bodies, &deleted],
            )
            .await?;
        Ok(())
    }

    /// Upserts the batch's sessions and turns.
    async fn write_sessions(
        &self,
        client: &Client,
        batch: &Pending,
        number: i64,
    ) -> Result<(), StoreError> {
        if !batch.sessions.is_empty() {
            let (mut ids, mut tasks, mut bodies) = (Vec::new(), Vec::new(), Vec::new());
            for session in batch.sessions.values() {
                ids.push(session.id.clone());
                tasks.push(session.task_id.clone());
                bodies.push(self.shape(|s| s.record(json!(session)).body));
            }
            client
                .execute(
                    "INSERT INTO taskview_sessions (machine, session_id, task_id, body, batch)
                     SELECT $1, s, t, b::JSONB, $2
                     FROM unnest($3::TEXT[], $4::TEXT[], $5::TEXT[]) AS u(s, t, b)
                     ON CONFLICT (machine, session_id) DO UPDATE
                     SET task_id = EXCLUDED.task_id, body = EXCLUDED.body, batch = EXCLUDED.batch
                     WHERE NOT taskview_sessions.pruned",
                    &[&self.machine, &number, &ids, &tasks, &bodies],
                )
                .await?;
        }
        if !batch.turns.is_empty() {
            let (mut sessions, mut ids, mut bodies) = (Vec::new(), Vec::new(), Vec::new());
            for ((session_id, turn_id), turn) in &batch.turns {
                sessions.push(session_id.clone());
                ids.push(turn_id.clone());
                bodies.push(self.shape(|s| s.record(json!(turn)).body));
            }
            client
                .execute(
                    "INSERT INTO taskview_turns (machine, session_id, turn_id, body, batch)
                     SELECT $1, s, t, b::JSONB, $2
                     FROM unnest($3::TEXT[], $4::TEXT[], $5::TEXT[]) AS u(s, t, b)
                     ON CONFLICT (machine, session_id, turn_id) DO UPDATE
                     SET body = EXCLUDED.body, batch = EXCLUDED.batch
                     WHERE taskview_turns.body <> EXCLUDED.body",
                    &[&self.machine, &number, &sessions, &ids, &bodies],
                )
                .await?;
        }
        Ok(())
    }

    /// The rows of a session's message changes: new ones after the last
    /// it holds, changed ones in place, removed ones kept as removed (none:
    /// nothing of it is to be written).
    async fn message_columns(
        &mut self,
        client: &Client,
        session_id: &str,
        session: &SessionMessages,
    ) -> Result<MessageColumns, StoreError> {
        let mut next = self.next_position(client, session_id).await?;
        let mut changed: Vec<_> = session.by_id.iter().collect();
        changed.sort_by_key(|(_, (order, _))| *order);
        let mut columns = MessageColumns::default();
        for (id, (_, message)) in changed {
            let shaped = message.as_ref().and_then(|m| self.shape(|s| s.message(m)));
            let (body, hash, deleted) = match shaped {
                Some(s) => (s.body, s.hash, false),
                None if message.is_some() => continue,
                None => ("{}".to_string(), 0, true),
            };
            columns.push(id, next, body, hash, deleted);
            next += 1;
        }
        self.next_pos.insert(session_id.to_string(), next);
        Ok(columns)
    }

    /// Upserts a session's message rows (each replaced only when what it
    /// holds changed); by how many its live messages changed.
    async fn write_messages(
        &self,
        client: &Client,
        session_id: &str,
        columns: &MessageColumns,
        number: i64,
    ) -> Result<i64, StoreError> {
        let live_before = self.live_among(client, session_id, &columns.ids).await?;
        client
            .execute(
                "INSERT INTO taskview_messages
                     (machine, session_id, message_id, pos, body, hash, deleted, batch)
                 SELECT $1, $2, m, p, b::JSONB, h, d, $3
                 FROM unnest($4::TEXT[], $5::INT8[], $6::TEXT[], $7::INT8[], $8::BOOL[])
                     AS u(m, p, b, h, d)
                 ON CONFLICT (machine, session_id, message_id) DO UPDATE
                 SET body = EXCLUDED.body, hash = EXCLUDED.hash,
                     deleted = EXCLUDED.deleted, batch = EXCLUDED.batch
                 WHERE taskview_messages.hash <> EXCLUDED.hash
                    OR taskview_messages.deleted <> EXCLUDED.deleted",
                &[
                    &self.machine,
                    &session_id,
                    &number,
                    &columns.ids,
                    &columns.positions,
                    &columns.bodies,
                    &columns.hashes,
                    &columns.deleted,
                ],
            )
            .await?;
        // Each row now holds what it was given (one left alone already did).
        let live_after = columns.deleted.iter().filter(|d| !**d).count() as i64;
        Ok(live_after - live_before)
    }

    /// How many of a session's messages `ids` the store holds live, the
    /// session's row locked first so that two writers of it count in turn:
    /// a cost of the batch, never of the session's length.
    async fn live_among(
        &self,
        client: &Client,
        session_id: &str,
        ids: &[String],
    ) -> Result<i64, StoreError> {
        client
            .query(
                "SELECT 1 FROM taskview_sessions WHERE machine = $1 AND session_id = $2 FOR UPDATE",
                &[&self.machine, &session_id],
            )
            .await?;
        let row = client
            .query_one(
                "SELECT count(*) FROM taskview_messages
                 WHERE machine = $1 AND session_id = $2 AND message_id = ANY($3) AND NOT deleted",
                &[&self.machine, &session_id, &ids],
            )
            .await?;
        Ok(row.get(0))
    }

    /// Brings back the sessions (and their tasks) the retention removed
    /// among `sessions`, those the batch writes messages of (a removed
    /// session's compare kept only those newer than its removal): their
    /// agent works again.
    async fn revive(
        &self,
        client: &Client,
        sessions: &[&String],
        number: i64,
    ) -> Result<(), StoreError> {
        if sessions.is_empty() {
            return Ok(());
        }
        client
            .execute(
                "WITH revived AS (
                     UPDATE taskview_sessions SET pruned = false
                     WHERE machine = $1 AND session_id = ANY($2) AND pruned
                     RETURNING task_id)
                 UPDATE taskview_tasks SET deleted = false, pruned = false, batch = $3
                 WHERE machine = $1 AND pruned AND task_id IN (SELECT task_id FROM revived)",
                &[&self.machine, &sessions, &number],
            )
            .await?;
        Ok(())
    }

    /// Adds to each written session's message count what its messages
    /// changed by, and notes its activity now.
    async fn count(
        &self,
        client: &Client,
        (sessions, added): &(Vec<String>, Vec<i64>),
        number: i64,
    ) -> Result<(), StoreError> {
        if sessions.is_empty() {
            return Ok(());
        }
        client
            .execute(
                "UPDATE taskview_sessions s
                 SET message_count = s.message_count + u.added, active_at = now(), batch = $2
                 FROM unnest($3::TEXT[], $4::INT8[]) AS u(session_id, added)
                 WHERE s.machine = $1 AND s.session_id = u.session_id",
                &[&self.machine, &number, sessions, added],
            )
            .await?;
        Ok(())
    }

    /// The position a session's next new message takes: after the last the
    /// store holds, read once per session.
    async fn next_position(&self, client: &Client, session_id: &str) -> Result<i64, StoreError> {
        if let Some(&next) = self.next_pos.get(session_id) {
            return Ok(next);
        }
        let row = client
            .query_one(
                "SELECT COALESCE(MAX(pos) + 1, 0) FROM taskview_messages
                 WHERE machine = $1 AND session_id = $2",
                &[&self.machine, &session_id],
            )
            .await?;
        Ok(row.get(0))
    }
}

/// The columns of a message upsert.
#[derive(Default)]
struct MessageColumns {
    ids: Vec<String>,
    positions: Vec<i64>,
    bodies: Vec<String>,
    hashes: Vec<i64>,
    deleted: Vec<bool>,
}

impl MessageColumns {
    fn push(&mut self, id: &str, position: i64, body: String, hash: i64, deleted: bool) {
        self.ids.push(id.to_string());
        self.positions.push(position);
        self.bodies.push(body);
        self.hashes.push(hash);
        self.deleted.push(deleted);
    }
}

/// The ids of a session's pending messages made before `active_ms`
/// (milliseconds since 1970; a message without a time counts as older).
fn older_than(session: &SessionMessages, active_ms: i64) -> Vec<String> {
    let made_ms = |m: &Message| parse_rfc3339(&m.created_at).map(|ns| ns / 1_000_000);
    let older = session.by_id.iter().filter(|(_, (_, message))| {
        message
            .as_ref()
            .is_none_or(|m| made_ms(m).is_none_or(|made| made <= i128::from(active_ms)))
    });
    older.map(|(id, _)| id.clone()).collect()
}

/// Numbers a batch by the store's clock (the next number, under the clock
/// row's lock, so numbers follow commit order with no gap) and commits it.
pub(super) async fn commit_batch(client: &Client, number: i64) -> Result<(), StoreError> {
    client
        .query_one(
            "WITH c AS (UPDATE taskview_clock SET seq = seq + 1 WHERE id = 1 RETURNING seq)
             INSERT INTO taskview_batches (seq, batch) SELECT seq, $1 FROM c RETURNING seq",
            &[&number],
        )
        .await?;
    client.batch_execute("COMMIT").await?;
    Ok(())
}

/// A number no other batch takes (random: writers do not coordinate).
pub(super) fn batch_number() -> i64 {
    let mut bytes = [0u8; 8];
    // Without randomness the clock still orders batches; the number only
    // has to differ from the batches in flight.
    if getrandom::fill(&mut bytes).is_err() {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        bytes = now.map_or(0, |d| d.as_nanos() as u64).to_be_bytes();
    }
    i64::from_be_bytes(bytes)
}
