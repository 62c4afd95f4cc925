//! The publisher: a writer's backend sends every change to it
//! (`backend::outbox`); it coalesces them (`pending`) and writes them a
//! few milliseconds later (`write`), so an append costs its new records.
//! While the store is away it keeps what it read and writes it when the
//! store is back. Beside it, the catch-up hands it every session it has
//! not sent whole yet (each read once, then compared with what the store
//! holds), so a session nobody opened still reaches the team, and a
//! restart sends what the last run had not.

use super::link::Link;
use super::pending::Pending;
use super::shape::Shaper;
use super::write::Writer;
use super::StoreConfig;
use crate::backend::outbox::Change;
use crate::backend::Backend;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::runtime::Handle;
use tokio::sync::mpsc;

/// How long changes gather before they are written together.
const GATHER: Duration = Duration::from_millis(25);
/// How long a writer waits before trying an unreachable store again.
const RETRY: Duration = Duration::from_secs(1);
/// The catch-up reads no further session while this many message changes wait.
const CATCH_UP_ROOM: usize = 20_000;
/// How often a writer forgets old batches.
const PRUNE_EVERY: Duration = Duration::from_secs(600);
/// How often the catch-up looks for sessions it has not sent.
const CATCH_UP_EVERY: Duration = Duration::from_secs(2);

/// What the publisher tells the catch-up.
struct Progress {
    waiting: AtomicUsize,
    reachable: AtomicBool,
}

/// Sends `backend`'s changes to the store from now on.
pub(super) fn start(handle: &Handle, backend: &Arc<Backend>, link: Link, config: &StoreConfig) {
    let (outbox, changes) = mpsc::unbounded_channel();
    backend.set_outbox(outbox);
    let shaper = Shaper::new(
        &config.machine,
        &config.person,
        config.content,
        config.unmasked,
    );
    let writer = Writer::new(&config.machine, shaper);
    let progress = Arc::new(Progress {
        waiting: AtomicUsize::new(0),
        reachable: AtomicBool::new(true),
    });
    handle.spawn(publish(changes, link, writer, Arc::clone(&progress)));
    handle.spawn(catch_up(Arc::clone(backend), progress));
}

/// Gathers changes and writes them until the backend is gone.
async fn publish(
    mut changes: mpsc::UnboundedReceiver<Change>,
    link: Link,
    mut writer: Writer,
    progress: Arc<Progress>,
) {
    let mut pending = Pending::default();
    let mut down = false;
    let mut pruned = Instant::now();
    loop {
        let waiting = !pending.is_empty();
        tokio::select! {
            change = changes.recv() => match change {
                Some(change) => pending.add(change),
                None => return,
            },
            () = tokio::time::sleep(RETRY), if waiting => {}
        }
        tokio::time::sleep(GATHER).await;
        while let Ok(change) = changes.try_recv() {
            pending.add(change);
        }
        match writer.flush(&link, &mut pending).await {
            Ok(()) => {
                if down {
                    tracing::info!(store = %link.url(), "store reachable again; caught up");
                }
                down = false;
                if pruned.elapsed() >= PRUNE_EVERY {
                    pruned = Instant::now();
                    if let Err(e) = writer.prune(&link).await {
                        tracing::debug!("old batches not pruned: {e}");
                    }
                }
            }
            Err(e) => {
                if !down {
                    tracing::warn!(
                        store = %link.url(),
                        "{e}; keeping {} message changes to write when it is back",
                        pending.message_count()
                    );
                }
                down = true;
            }
        }
        progress
            .waiting
            .store(pending.message_count(), Ordering::Relaxed);
        progress.reachable.store(!down, Ordering::Relaxed);
        if down {
            tokio::time::sleep(RETRY).await;
        }
    }
}

/// Hands every session not yet sent whole to the publisher, one at a
/// time, while it keeps up: a resident one as it is held, another read
/// first (`Backend::open`, which sends it whole when it loads).
async fn catch_up(backend: Arc<Backend>, progress: Arc<Progress>) {
    let mut sent: HashSet<String> = HashSet::new();
    loop {
        for (session_id, _) in backend.session_ids() {
            if sent.contains(&session_id) {
                continue;
            }
            while progress.waiting.load(Ordering::Relaxed) > CATCH_UP_ROOM
                || !progress.reachable.load(Ordering::Relaxed)
            {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            let backend = Arc::clone(&backend);
            let id = session_id.clone();
            let read = tokio::task::spawn_blocking(move || {
                if !backend.emit_whole(&id) {
                    backend.open(&id);
                }
            });
            if read.await.is_err() {
                tracing::warn!(
                    session = session_id,
                    "could not read a session to publish it"
                );
            }
            sent.insert(session_id);
        }
        tokio::time::sleep(CATCH_UP_EVERY).await;
    }
}
