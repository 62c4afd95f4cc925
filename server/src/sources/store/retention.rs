//! The store's retention (`--store-keep-days N`, docs/team-store.md
//! "Retention"): any server given it removes, at start and every hour, the
//! sessions of every machine whose last activity (the last time a writer
//! sent a message of one) is older than N days, with their messages and
//! turns; their tasks leave every board. Each pass is transactions of at
//! most [`PER_PASS`] sessions, numbered by the store's clock like a
//! writer's batch so readers see the tasks go. Idempotent and safe with
//! several servers: the sessions are locked as they are chosen, and a
//! session already removed is not chosen again. A removed session keeps a
//! small row saying so, so that its writer's restart does not send it
//! again (only messages newer than its last activity bring it back).

use super::link::Link;
use super::write::{batch_number, commit_batch};
use super::StoreError;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Handle;
use tokio_postgres::Client;

/// How often the store is pruned.
const EVERY: Duration = Duration::from_secs(3600);
/// Sessions removed per transaction.
const PER_PASS: i64 = 100;

/// What one pruning removed.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Pruned {
    pub(super) sessions: u64,
    pub(super) messages: u64,
}

/// Prunes the store every hour, from now on.
pub(super) fn start(handle: &Handle, link: Arc<Link>, keep_days: u32) {
    handle.spawn(async move {
        loop {
            match prune(&link, keep_days).await {
                Ok(pruned) if pruned.sessions > 0 => tracing::info!(
                    sessions = pruned.sessions,
                    messages = pruned.messages,
                    "store retention: removed the sessions not active for {keep_days} days"
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!(store = %link.url(), "store retention not run: {e}"),
            }
            tokio::time::sleep(EVERY).await;
        }
    });
}

/// Removes every session not active for `keep_days` days, a transaction
/// per [`PER_PASS`] of them.
pub(super) async fn prune(link: &Link, keep_days: u32) -> Result<Pruned, StoreError> {
    let client = link.client().await?;
    let mut total = Pruned::default();
    loop {
        client.batch_execute("BEGIN").await?;
        match prune_some(&client, keep_days).await {
            Ok(pruned) if pruned.sessions == 0 => {
                client.batch_execute("ROLLBACK").await?;
                return Ok(total);
            }
            Ok(pruned) => {
                total.sessions += pruned.sessions;
                total.messages += pruned.messages;
            }
            Err(e) => {
                let _ = client.batch_execute("ROLLBACK").await;
                return Err(e);
            }
        }
    }
}

/// Removes up to [`PER_PASS`] sessions inside the open transaction and
/// commits it when there were any.
async fn prune_some(client: &Client, keep_days: u32) -> Result<Pruned, StoreError> {
    let days = i64::from(keep_days);
    let old = client
        .query(
            "SELECT machine, session_id, task_id FROM taskview_sessions
             WHERE NOT pruned AND active_at < now() - $1::INT8 * INTERVAL '1 day'
             ORDER BY active_at LIMIT $2 FOR UPDATE",
            &[&days, &PER_PASS],
        )
        .await?;
    if old.is_empty() {
        return Ok(Pruned::default());
    }
    let machines: Vec<String> = old.iter().map(|r| r.get(0)).collect();
    let sessions: Vec<String> = old.iter().map(|r| r.get(1)).collect();
    let tasks: Vec<String> = old.iter().map(|r| r.get(2)).collect();
    let these = "(machine, session_id) IN (SELECT * FROM unnest($1::TEXT[], $2::TEXT[]))";
    let messages = client
        .execute(
            &format!("DELETE FROM taskview_messages WHERE {these}"),
            &[&machines, &sessions],
        )
        .await?;
    client
        .execute(
            &format!("DELETE FROM taskview_turns WHERE {these}"),
            &[&machines, &sessions],
        )
        .await?;
    let number = batch_number();
    client
        .execute(
            &format!(
                "UPDATE taskview_sessions SET pruned = true, message_count = 0, batch = $3
                 WHERE {these}"
            ),
            &[&machines, &sessions, &number],
        )
        .await?;
    // A task goes once none of its sessions is left.
    client
        .execute(
            "UPDATE taskview_tasks t SET deleted = true, pruned = true, batch = $3
             WHERE (t.machine, t.task_id) IN (SELECT * FROM unnest($1::TEXT[], $2::TEXT[]))
               AND NOT t.deleted
               AND NOT EXISTS (SELECT 1 FROM taskview_sessions s
                   WHERE s.machine = t.machine AND s.task_id = t.task_id AND NOT s.pruned)",
            &[&machines, &tasks, &number],
        )
        .await?;
    commit_batch(client, number).await?;
    Ok(Pruned {
        sessions: old.len() as u64,
        messages,
    })
}
