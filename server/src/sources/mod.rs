//! Where the served data comes from: the built-in scenarios (the demo, the
//! lifecycle replay, a stream), the recordings (agents' session files in
//! folders) and the telemetry the OTLP receiver keeps. Each feeds the
//! backend; none serves anything itself.

pub mod recordings;
pub mod scenarios;
pub mod telemetry;

use crate::backend::Backend;
use crate::clock::Clock;
use crate::shutdown::Shutdown;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// Where the served data comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The demo board; live tasks loop forever.
    Demo { seed: u64, speed: f64 },
    /// The subagent-lifecycle fixture, replayed frame by frame.
    Lifecycle {
        interval: Duration,
        start_delay: Duration,
        once: bool,
    },
    /// One session streaming exactly `messages` messages, then ending.
    Stream {
        messages: usize,
        interval: Duration,
        start_delay: Duration,
        seed: u64,
    },
    /// Every session in some folders as a task; growing files are tailed,
    /// new ones found (a folder that does not exist yet is watched until it
    /// does).
    Recordings {
        dirs: Vec<PathBuf>,
        watching: recordings::Watching,
    },
}

impl Source {
    /// A few words for the start-up line.
    pub fn describe(&self) -> String {
        match self {
            Source::Demo { .. } => "demo scenario".into(),
            Source::Lifecycle { .. } => "lifecycle scenario".into(),
            Source::Stream { messages, .. } => format!("stream scenario, {messages} messages"),
            Source::Recordings { dirs, .. } => {
                let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
                format!("recordings in {}", dirs.join(", "))
            }
        }
    }
}

/// The recordings watched with the telemetry folder among them: its
/// session files are read back at start and followed like any recording,
/// so what the receiver keeps is on the board (docs/behaviour.md §7 "OpenTelemetry").
pub(crate) fn with_telemetry(source: &Source, store: Option<&telemetry::Store>) -> Source {
    match (source, store) {
        (Source::Recordings { dirs, watching }, Some(store))
            if !dirs.iter().any(|d| d == store.dir()) =>
        {
            let mut dirs = dirs.clone();
            dirs.push(store.dir().to_path_buf());
            Source::Recordings {
                dirs,
                watching: recordings::Watching {
                    telemetry: Some(store.dir().to_path_buf()),
                    ..watching.clone()
                },
            }
        }
        _ => source.clone(),
    }
}

/// Starts the background work of a source once the server is listening.
pub type Starter = Box<dyn FnOnce(Shutdown) -> Vec<JoinHandle<()>> + Send>;

/// The clock of a backend serving `source`: the demo's runs `--speed` times
/// as fast as the wall clock, from the wall time now; the stream's stands at
/// its script's start (its final state depends on the seed only); the
/// others are the wall clock.
pub fn clock(source: &Source) -> Clock {
    match source {
        Source::Demo { speed, .. } => Clock::scaled(*speed),
        Source::Stream { .. } => Clock::stopped_at(scenarios::stream::EPOCH),
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
            scenarios::demo::load(&backend, seed);
            Box::new(move |shutdown| scenarios::demo::spawn(&backend, seed, &shutdown))
        }
        Source::Lifecycle {
            interval,
            start_delay,
            once,
        } => {
            backend.update_scenario(|s| s.name = "lifecycle".into());
            let frames = scenarios::lifecycle::load(&backend);
            Box::new(move |shutdown| {
                vec![scenarios::after_delay(
                    &backend,
                    start_delay,
                    &shutdown,
                    move |b, s| scenarios::lifecycle::play(b, frames, interval, once, s),
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
            scenarios::stream::load(&backend, messages);
            let steps = scenarios::stream::script(seed, messages);
            Box::new(move |shutdown| {
                vec![scenarios::after_delay(
                    &backend,
                    start_delay,
                    &shutdown,
                    move |b, s| scenarios::stream::play(b, steps, interval, s),
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
