//! Serving a router on a listener with the bounds `axum::serve` does not
//! give (docs/security.md "Connections"): a request's headers must arrive
//! within `--header-timeout-secs` and its body within
//! `--body-timeout-secs` (the OTLP receiver, the one route that reads one);
//! a connection idle between requests longer than `--idle-timeout-secs` is
//! closed; and at most `--max-connections` are open (fewer when the
//! process may open fewer files): past it, the idlest connection with no
//! request in flight is let go, so a slow or idle client never keeps a
//! normal one out. HTTP/1.1 and HTTP/2 (`hyper-util`'s server), upgrades
//! (WebSockets) included; a WebSocket holds its connection busy.

mod table;
mod watched;

pub use table::{Busy, Slot};

use crate::access::Arrival;
use crate::shutdown::Shutdown;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use std::sync::Arc;
use std::time::Duration;
use table::Table;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tower::ServiceExt;
use watched::{Tracked, Watched};

/// The bounds on connections (their flags' defaults in [`Limits::default`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// A request's headers arrive within this, from their first byte.
    pub header_timeout: Duration,
    /// A request's body arrives within this (the receiver's bodies).
    pub body_timeout: Duration,
    /// A connection with nothing in flight is closed after this.
    pub idle_timeout: Duration,
    /// The most connections open at once.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: 512,
        }
    }
}

/// Files kept for everything but connections (recordings, telemetry, the
/// app's files, notifications) under the process's open-file limit.
const FILES_KEPT: usize = 64;

/// The most connections this process can hold: `max`, or fewer when its
/// open-file limit leaves less room.
pub fn capacity(max: usize) -> usize {
    let limit = open_file_limit().unwrap_or(usize::MAX);
    max.min(limit.saturating_sub(FILES_KEPT)).max(1)
}

/// The process's open-file limit (its soft limit).
#[cfg(unix)]
fn open_file_limit() -> Option<usize> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the limit into the struct it is given.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    (read == 0).then(|| usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX))
}

#[cfg(not(unix))]
fn open_file_limit() -> Option<usize> {
    None
}

/// Serves `app` on `listener` in a task of its own until `shutdown` is
/// requested; then stops accepting and lets open connections finish.
pub fn spawn(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    mut shutdown: Shutdown,
) -> JoinHandle<std::io::Result<()>> {
    let capacity = capacity(limits.max_connections);
    tracing::debug!(capacity, "connections at most");
    tokio::spawn(async move {
        let table = Table::new();
        let graceful = GracefulShutdown::new();
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = shutdown.requested() => break,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of files: make room, and try again shortly.
                    tracing::warn!("cannot accept a connection: {e}");
                    table.evict_idlest();
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            };
            if table.len() >= capacity && !table.evict_idlest() {
                tracing::warn!(
                    "{capacity} connections are busy (--max-connections, or the open-file \
                     limit): refusing one from {peer}"
                );
                continue;
            }
            let slot = table.open();
            let connection = connection(stream, app.clone(), Arc::clone(&slot));
            let watched = graceful.watch(connection);
            tokio::spawn(async move {
                tokio::select! {
                    _ = watched => {}
                    () = slot.closed(limits.header_timeout, limits.idle_timeout) => {}
                }
            });
        }
        drop(listener);
        graceful.shutdown().await;
        Ok(())
    })
}

/// One connection: each request marks it busy and carries where it came
/// from (`Arrival`) and its slot (for a WebSocket to hold).
fn connection(
    stream: TcpStream,
    app: Router,
    slot: Arc<Slot>,
) -> impl hyper_util::server::graceful::GracefulConnection {
    let arrival = Arrival::of(stream.local_addr().ok(), stream.peer_addr().ok());
    let io = TokioIo::new(Watched::new(stream, Arc::clone(&slot)));
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        let busy = slot.busy();
        request.extensions_mut().insert(ConnectInfo(arrival));
        request.extensions_mut().insert(Arc::clone(&slot));
        let app = app.clone();
        async move {
            let response = app.oneshot(request).await?;
            Ok::<_, std::convert::Infallible>(response.map(|body| Tracked::new(body, busy)))
        }
    });
    let mut builder = auto::Builder::new(TokioExecutor::new());
    // The slot's watch times the headers and idle connections; hyper's
    // own header timer would also run while a connection idles.
    builder.http1().header_read_timeout(None);
    builder
        .serve_connection_with_upgrades(io, service)
        .into_owned()
}
