//! Built-in sources of data: the demo board, the lifecycle replay and the
//! stream, plus the recordings folder (see `crate::recordings`).

pub mod demo;
pub mod lifecycle;
pub mod script;
pub mod stream;

use crate::clock::Clock;
use crate::recordings;
use crate::shutdown::Shutdown;
use crate::state::Backend;
use crate::Source;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// Starts the background work of a source once the server is listening.
pub type Starter = Box<dyn FnOnce(Shutdown) -> Vec<JoinHandle<()>> + Send>;

/// Runs `play` on a task of its own once `start_delay` has passed, unless
/// the server shuts down first.
fn after_delay<F>(
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

/// The clock of a backend serving `source`: the demo's runs `--speed` times
/// as fast as the wall clock, from the wall time now; the stream's stands at
/// its script's start (its final state depends on the seed only); the
/// others are the wall clock.
pub fn clock(source: &Source) -> Clock {
    match source {
        Source::Demo { speed, .. } => Clock::scaled(*speed),
        Source::Stream { .. } => Clock::stopped_at(stream::EPOCH),
        _ => Clock::default(),
    }
}

/// Loads the source's board into `backend` now, and returns what starts
/// its live part (loops, replay, tailing).
pub fn load(backend: &Arc<Backend>, source: &Source) -> Starter {
    let backend = Arc::clone(backend);
    match source.clone() {
        Source::Demo { seed, .. } => {
            backend.update_scenario(|s| s.name = "demo".into());
            demo::load(&backend, seed);
            Box::new(move |shutdown| demo::spawn(&backend, seed, &shutdown))
        }
        Source::Lifecycle {
            interval,
            start_delay,
            once,
        } => {
            backend.update_scenario(|s| s.name = "lifecycle".into());
            let frames = lifecycle::load(&backend);
            Box::new(move |shutdown| {
                vec![after_delay(
                    &backend,
                    start_delay,
                    &shutdown,
                    move |b, s| lifecycle::play(b, frames, interval, once, s),
                )]
            })
        }
        Source::Stream {
            messages,
            interval,
            start_delay,
            seed,
        } => {
            backend.update_scenario(|s| s.name = "stream".into());
            stream::load(&backend, messages);
            let steps = stream::script(seed, messages);
            Box::new(move |shutdown| {
                vec![after_delay(
                    &backend,
                    start_delay,
                    &shutdown,
                    move |b, s| stream::play(b, steps, interval, s),
                )]
            })
        }
        Source::Recordings { dirs, watching } => {
            backend.update_scenario(|s| s.name = "recordings".into());
            let folder = recordings::Folder::load(&backend, &dirs, &watching);
            Box::new(move |shutdown| vec![folder.spawn_tail(&backend, &watching, &shutdown)])
        }
    }
}
