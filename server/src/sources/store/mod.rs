//! A team's board on PostgreSQL (docs/behaviour.md §7 "A team's board",
//! docs/team-store.md): `--store postgres://…`.
//!
//! A server that reads recordings (or receives telemetry) is a writer: its
//! backend's changes (`backend::outbox`) are coalesced and written
//! incrementally and idempotently (`publish`), masked and shaped as asked
//! (`shape`). Every server with a store is a reader: it lists the tasks of
//! every other machine on its board and pages their transcripts from the
//! database (`read`, `pages`), holding none of their messages. Writes and
//! reads share the schema (`schema`, versioned migrations run at start),
//! the database link that reconnects (`link`) and the change sequence
//! readers poll (LISTEN/NOTIFY only wakes them sooner). Everything runs on
//! a small runtime of its own, so a page read from the database can be
//! waited for from the backend's synchronous queries.

mod link;
mod names;
mod pages;
mod pending;
mod publish;
mod read;
mod retention;
mod schema;
mod shape;
mod tls;
mod url;
mod write;

pub use shape::Content;
pub use tls::TlsError;
pub use url::StoreUrl;

use crate::backend::Backend;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;

/// How a server uses the team store.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreConfig {
    /// The database (`--store`, `TASKVIEW_STORE`).
    pub url: StoreUrl,
    /// The machine this server's sessions ran on (`--machine`).
    pub machine: String,
    /// Whose sessions they are (`--person`).
    pub person: String,
    /// What of them is published (`--store-content`).
    pub content: Content,
    /// Publish text as it is (`--store-unmasked`); masked by default.
    pub unmasked: bool,
    /// Publish this server's sessions (it reads recordings or telemetry).
    pub writes: bool,
    /// The most a writer keeps for the store while it is unreachable, in
    /// MB (`--store-pending-mb`); past it, everything is sent again when it is back.
    pub pending_mb: u64,
    /// Remove the sessions not active for this many days (`--store-keep-days`);
    /// `None`: keep them.
    pub keep_days: Option<u32>,
}

/// `--store-pending-mb`'s default.
pub const DEFAULT_PENDING_MB: u64 = 128;

/// What went wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The address is not one the PostgreSQL client reads (said with its password masked).
    #[error("{0}")]
    Address(String),
    /// The database answered with an error or could not be reached.
    #[error("store unreachable: {}", with_causes(.0))]
    Database(#[from] tokio_postgres::Error),
    /// The store's own runtime could not start.
    #[error("cannot start the store's runtime: {0}")]
    Runtime(std::io::Error),
    /// The database holds a schema newer than this taskview knows.
    #[error("the store's schema is version {found}, newer than this taskview's {known}")]
    NewerSchema { found: i32, known: i32 },
    /// A value the database returned does not read.
    #[error("the store holds an unreadable {what}: {detail}")]
    Unreadable { what: &'static str, detail: String },
    /// A page's cursor names a message the session does not hold.
    #[error("message {0} not found")]
    UnknownCursor(String),
    /// The address's TLS settings cannot be used.
    #[error("{0}")]
    Tls(#[from] TlsError),
    /// The server takes only encrypted connections and the address said `sslmode=disable`.
    #[error("store unreachable: {0} (the server accepts only encrypted connections: use sslmode=require, verify-ca or verify-full instead of sslmode=disable)")]
    TlsRequired(String),
    /// The database did not answer in time.
    #[error("store unreachable: no answer within {0:?}")]
    Timeout(Duration),
}

/// An error with every cause under it (the client says only "error
/// performing TLS handshake" and keeps the why underneath).
pub(super) fn with_causes(error: &dyn std::error::Error) -> String {
    let mut said = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let more = e.to_string();
        if !said.contains(&more) {
            said.push_str(": ");
            said.push_str(&more);
        }
        cause = e.source();
    }
    said
}

/// The words a reader's board shows while its store cannot be read.
pub const UNREACHABLE: &str = "store unreachable";

/// A running team store: its runtime, stopped when this is dropped.
pub struct Team {
    runtime: Option<Runtime>,
}

impl Drop for Team {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            // Dropped from async code too: nothing waits for the tasks.
            runtime.shutdown_background();
        }
    }
}

impl Team {
    /// Starts the store for `backend`: migrations first (an error here
    /// stops the server: nothing can be kept or read), then the reader and,
    /// when this server writes, the publisher.
    pub fn start(backend: &Arc<Backend>, config: &StoreConfig) -> Result<Team, StoreError> {
        config.url.check().map_err(StoreError::Address)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("taskview-store")
            .enable_all()
            .build()
            .map_err(StoreError::Runtime)?;
        let handle = runtime.handle().clone();
        // Held from here, so that an early return stops it too.
        let team = Team {
            runtime: Some(runtime),
        };
        let link = Arc::new(link::Link::new(config.url.clone())?);
        let migrated = {
            let link = Arc::clone(&link);
            run_on(&handle, async move { schema::migrate(&link).await })
        };
        migrated.unwrap_or(Err(StoreError::Timeout(START_TIMEOUT)))?;
        tracing::info!(store = %config.url, "team store ready");
        if config.writes {
            backend.sign_tasks(&config.machine, &config.person);
            let writes = link::Link::new(config.url.clone())?;
            publish::start(&handle, backend, writes, config);
        }
        if let Some(days) = config.keep_days {
            // A link of its own: its transactions must not take in the reader's queries.
            let prunes = Arc::new(link::Link::new(config.url.clone())?);
            retention::start(&handle, prunes, days);
        }
        read::start(&handle, backend, link, config);
        Ok(team)
    }
}

/// How long start-up waits for the database.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `work` on the store's runtime and waits for it from any thread
/// (an async worker of another runtime too); `None` past [`START_TIMEOUT`].
fn run_on<T: Send + 'static>(
    handle: &tokio::runtime::Handle,
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> Option<T> {
    wait_for(handle, work, START_TIMEOUT)
}

/// Runs `work` on the store's runtime and waits at most `limit` for it.
fn wait_for<T: Send + 'static>(
    handle: &tokio::runtime::Handle,
    work: impl std::future::Future<Output = T> + Send + 'static,
    limit: Duration,
) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    handle.spawn(async move {
        let _ = tx.send(work.await);
    });
    let wait = || rx.recv_timeout(limit).ok();
    let multi_thread = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    if multi_thread {
        tokio::task::block_in_place(wait)
    } else {
        wait()
    }
}
