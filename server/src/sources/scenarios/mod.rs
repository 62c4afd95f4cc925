//! The built-in scenarios: the demo board, the lifecycle replay and the
//! stream of a given length, each a script played into the backend.

pub mod demo;
pub mod lifecycle;
mod rng;
pub mod script;
pub mod stream;

use crate::backend::Backend;
use crate::shutdown::Shutdown;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// Runs `play` on a task of its own once `start_delay` has passed, unless
/// the server shuts down first.
pub(super) fn after_delay<F>(
    backend: &Arc<Backend>,
    start_delay: Duration,
    shutdown: &Shutdown,
    play: impl FnOnce(Arc<Backend>, Shutdown) -> F + Send + 'static,
) -> JoinHandle<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let backend = Arc::clone(backend);
    let mut shutdown = shutdown.clone();
    tokio::spawn(async move {
        if shutdown.sleep(start_delay).await {
            play(backend, shutdown).await;
        }
    })
}
