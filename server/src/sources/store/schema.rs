//! The store's tables, made and changed by numbered migrations that every
//! server runs at start (each in a transaction that first claims its
//! number, so two servers starting together run it once). SQL that
//! PostgreSQL 14+ and CockroachDB both accept: no advisory locks, no
//! sequences, no arrays of JSON.
//!
//! Rows are keyed by machine, session and record (a message's id), so a
//! second writer, a restart or a replay writes the same rows again instead
//! of new ones. Every row carries the `batch` that last wrote it; each
//! committed batch takes the next number of `taskview_clock` under its row
//! lock, so batch numbers follow commit order with no gap, and a reader
//! that has seen batch N has seen everything committed before it.

use super::link::Link;
use super::StoreError;

/// The migrations, oldest first: `(version, SQL)`.
const MIGRATIONS: &[(i32, &str)] = &[(1, TABLES), (2, COUNTS_AND_RETENTION)];

/// Version 1: the clock, the batches and the kept records.
const TABLES: &str = "
CREATE TABLE IF NOT EXISTS taskview_clock (
    id INT PRIMARY KEY,
    seq BIGINT NOT NULL
);
INSERT INTO taskview_clock (id, seq) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;
CREATE TABLE IF NOT EXISTS taskview_batches (
    seq BIGINT PRIMARY KEY,
    batch BIGINT NOT NULL,
    committed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS taskview_tasks (
    machine TEXT NOT NULL,
    task_id TEXT NOT NULL,
    person TEXT NOT NULL,
    body JSONB NOT NULL,
    deleted BOOLEAN NOT NULL DEFAULT false,
    batch BIGINT NOT NULL,
    PRIMARY KEY (machine, task_id)
);
CREATE INDEX IF NOT EXISTS taskview_tasks_batch ON taskview_tasks (batch);
CREATE TABLE IF NOT EXISTS taskview_sessions (
    machine TEXT NOT NULL,
    session_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    body JSONB NOT NULL,
    batch BIGINT NOT NULL,
    PRIMARY KEY (machine, session_id)
);
CREATE INDEX IF NOT EXISTS taskview_sessions_batch ON taskview_sessions (batch);
CREATE TABLE IF NOT EXISTS taskview_turns (
    machine TEXT NOT NULL,
    session_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    body JSONB NOT NULL,
    batch BIGINT NOT NULL,
    PRIMARY KEY (machine, session_id, turn_id)
);
CREATE INDEX IF NOT EXISTS taskview_turns_batch ON taskview_turns (batch);
CREATE TABLE IF NOT EXISTS taskview_messages (
    machine TEXT NOT NULL,
    session_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    pos BIGINT NOT NULL,
    body JSONB NOT NULL,
    hash BIGINT NOT NULL,
    deleted BOOLEAN NOT NULL DEFAULT false,
    batch BIGINT NOT NULL,
    PRIMARY KEY (machine, session_id, message_id)
);
CREATE INDEX IF NOT EXISTS taskview_messages_order
    ON taskview_messages (machine, session_id, pos, message_id);
CREATE INDEX IF NOT EXISTS taskview_messages_batch ON taskview_messages (batch);
";

/// Version 2: each session's message count as the store holds it, its
/// last activity (when a writer last sent a message of it) and whether
/// the retention removed it (`--store-keep-days`); a removed task is
/// marked so that a writer's restart does not list it again.
const COUNTS_AND_RETENTION: &str = "
ALTER TABLE taskview_sessions ADD COLUMN IF NOT EXISTS message_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE taskview_sessions ADD COLUMN IF NOT EXISTS active_at TIMESTAMPTZ NOT NULL DEFAULT now();
ALTER TABLE taskview_sessions ADD COLUMN IF NOT EXISTS pruned BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE taskview_tasks ADD COLUMN IF NOT EXISTS pruned BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS taskview_sessions_active ON taskview_sessions (active_at);
UPDATE taskview_sessions s SET message_count = (
    SELECT count(*) FROM taskview_messages m
    WHERE m.machine = s.machine AND m.session_id = s.session_id AND NOT m.deleted);
";

/// The newest schema this taskview knows.
pub(super) const VERSION: i32 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// Brings the store's schema up to [`VERSION`], running each migration it
/// has not run yet; fails on a schema newer than this taskview.
pub(super) async fn migrate(link: &Link) -> Result<(), StoreError> {
    let client = link.client().await?;
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS taskview_migrations (
                version INT PRIMARY KEY,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )",
        )
        .await?;
    let found = applied(&client).await?;
    if found > VERSION {
        return Err(StoreError::NewerSchema {
            found,
            known: VERSION,
        });
    }
    for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > found) {
        client.batch_execute("BEGIN").await?;
        let claimed = client
            .query(
                "INSERT INTO taskview_migrations (version) VALUES ($1)
                 ON CONFLICT (version) DO NOTHING RETURNING version",
                &[version],
            )
            .await;
        let ran = match claimed {
            Ok(rows) if rows.is_empty() => Ok(false),
            Ok(_) => client.batch_execute(sql).await.map(|()| true),
            Err(e) => Err(e),
        };
        match ran {
            Ok(true) => {
                client.batch_execute("COMMIT").await?;
                tracing::info!(version, "store schema migrated");
            }
            Ok(false) => client.batch_execute("ROLLBACK").await?,
            Err(e) => {
                let _ = client.batch_execute("ROLLBACK").await;
                return Err(e.into());
            }
        }
    }
    Ok(())
}

/// The newest migration the store has run (0: none).
async fn applied(client: &tokio_postgres::Client) -> Result<i32, StoreError> {
    let row = client
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM taskview_migrations",
            &[],
        )
        .await?;
    Ok(row.get(0))
}
