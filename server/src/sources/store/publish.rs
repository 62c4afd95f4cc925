//! The publisher: a writer's backend sends every change to it
//! (`backend::outbox`); it coalesces them (`pending`) and writes them a
//! few milliseconds later (`write`), so an append costs its new records.
//! While the store is away it keeps what it read and writes it when the
//! store is back. Beside it, the catch-up hands it every session it has
//! not sent whole yet (each read once, then compared with what the store
//! holds), so a session nobody opened still reaches the team, and a
//! restart sends what the last run had not.
//!
//! An outage long enough for what waits to pass its cap
//! (`--store-pending-mb`) drops what waits and what comes until the store
//! is back; then every task and session is handed over again and each
//! session compared with the store, as at a restart: nothing is lost, and
//! the writer's memory stays bounded however long the outage.

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
    /// Raised each time the store is back after changes were dropped:
    /// everything is to be handed over again.
    resyncs: AtomicUsize,
}

/// What the publisher keeps between its rounds.
struct Round {
    pending: Pending,
    /// The store could not be written at the last try.
    down: bool,
    /// Changes were dropped past the cap: hand everything over again once
    /// the store is back (meanwhile, changes are dropped as they come).
    dropped: bool,
    /// The most `pending` may weigh while the store is away.
    cap: usize,
}

impl Round {
    /// Takes a change in, unless changes are being dropped; drops
    /// everything waiting once it weighs past the cap while the store is away.
    fn add(&mut self, change: Change) {
        if self.dropped {
            return;
        }
        self.pending.add(change);
        if self.down && self.pending.bytes() > self.cap {
            tracing::warn!(
                "the team store is still unreachable and the changes waiting for it passed \
                 their cap ({} MB): dropped them; every session will be compared with the \
                 store when it is back, so nothing is lost",
                self.cap / MB
            );
            self.pending = Pending::default();
            self.dropped = true;
        }
    }
}

const MB: usize = 1024 * 1024;

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
        resyncs: AtomicUsize::new(0),
    });
    let round = Round {
        pending: Pending::default(),
        down: false,
        dropped: false,
        cap: usize::try_from(config.pending_mb)
            .unwrap_or(usize::MAX)
            .saturating_mul(MB),
    };
    handle.spawn(publish(changes, link, writer, round, Arc::clone(&progress)));
    handle.spawn(catch_up(Arc::clone(backend), progress));
}

/// Gathers changes and writes them until the backend is gone.
async fn publish(
    mut changes: mpsc::UnboundedReceiver<Change>,
    link: Link,
    mut writer: Writer,
    mut round: Round,
    progress: Arc<Progress>,
) {
    let mut pruned = Instant::now();
    loop {
        let waiting = !round.pending.is_empty() || round.dropped;
        tokio::select! {
            change = changes.recv() => match change {
                Some(change) => round.add(change),
                None => return,
            },
            () = tokio::time::sleep(RETRY), if waiting => {}
        }
        tokio::time::sleep(GATHER).await;
        while let Ok(change) = changes.try_recv() {
            round.add(change);
        }
        match writer.flush(&link, &mut round.pending).await {
            Ok(()) => {
                if round.down {
                    tracing::info!(store = %link.url(), "store reachable again; caught up");
                }
                round.down = false;
                if round.dropped {
                    round.dropped = false;
                    tracing::info!("handing every session to the team store again");
                    progress.resyncs.fetch_add(1, Ordering::Relaxed);
                }
                if pruned.elapsed() >= PRUNE_EVERY {
                    pruned = Instant::now();
                    if let Err(e) = writer.prune(&link).await {
                        tracing::debug!("old batches not pruned: {e}");
                    }
                }
            }
            Err(e) => {
                if !round.down {
                    tracing::warn!(
                        store = %link.url(),
                        "{e}; keeping {} message changes to write when it is back",
                        round.pending.message_count()
                    );
                }
                round.down = true;
            }
        }
        progress
            .waiting
            .store(round.pending.message_count(), Ordering::Relaxed);
        progress.reachable.store(!round.down, Ordering::Relaxed);
        if round.down && !take_in_for(RETRY, &mut changes, &mut round).await {
            return;
        }
    }
}

/// Takes changes in for `wait` (until the store's next try), so that
/// none piles up in the channel meanwhile: what waits is weighed against
/// its cap as it comes, and dropped past it. False when the backend is gone.
async fn take_in_for(
    wait: Duration,
    changes: &mut mpsc::UnboundedReceiver<Change>,
    round: &mut Round,
) -> bool {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, changes.recv()).await {
            Ok(Some(change)) => round.add(change),
            Ok(None) => return false,
            Err(_) => return true,
        }
    }
}

/// Hands every session not yet sent whole to the publisher, one at a
/// time, while it keeps up: a resident one as it is held, another read
/// first (`Backend::open`, which sends it whole when it loads).
async fn catch_up(backend: Arc<Backend>, progress: Arc<Progress>) {
    let mut sent: HashSet<String> = HashSet::new();
    let mut resyncs = 0;
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
            if progress.resyncs.load(Ordering::Relaxed) != resyncs {
                break;
            }
            hand_over(&backend, &session_id).await;
            sent.insert(session_id);
        }
        let now = progress.resyncs.load(Ordering::Relaxed);
        if now != resyncs {
            // Changes were dropped: every task, session and message again.
            resyncs = now;
            sent.clear();
            backend.emit_board();
            continue;
        }
        tokio::time::sleep(CATCH_UP_EVERY).await;
    }
}

/// Hands one session to the publisher whole: as it is held, or read first
/// (`Backend::open`, which sends it whole when it loads).
async fn hand_over(backend: &Arc<Backend>, session_id: &str) {
    let read = {
        let backend = Arc::clone(backend);
        let id = session_id.to_string();
        tokio::task::spawn_blocking(move || {
            if !backend.emit_whole(&id) {
                backend.open(&id);
            }
        })
    };
    if read.await.is_err() {
        tracing::warn!(
            session = session_id,
            "could not read a session to publish it"
        );
    }
}
