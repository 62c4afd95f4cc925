//! `taskview serve`: the built app plus the subset of the kandev HTTP and
//! WebSocket protocol taskview uses, fed by a built-in scenario or a folder
//! of recordings (docs/behaviour.md §7; docs/protocol.md §4–§5).
//!
//! [`serve`] starts everything on a tokio runtime and returns a
//! [`RunningServer`]; `main.rs` only parses the command line, prints the URL
//! and waits for SIGINT/SIGTERM. Tests start servers in-process on port 0.

pub mod access;
pub mod app_files;
pub mod backend;
pub mod cli;
mod clock;
pub mod commands;
pub mod http;
mod shutdown;
pub mod sources;

use app_files::{AppFiles, EmbeddedApp};
use backend::Backend;
use http::AppState;
use sources::telemetry;
pub use sources::Source;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::task::JoinHandle;

/// Everything `serve` needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub addr: SocketAddr,
    /// The built app in a folder (`--dist`); it overrides `embedded`.
    pub dist: Option<PathBuf>,
    /// The app built into the binary, served when `dist` is `None`; with
    /// neither, only `/api` and `/ws` are served.
    pub embedded: Option<Arc<EmbeddedApp>>,
    pub source: Source,
    /// Fault injection: close each WebSocket after this many outbound frames.
    pub drop_ws_every: Option<u64>,
    /// Fault injection: send a malformed frame after this many good ones.
    pub inject_malformed_every: Option<u64>,
    /// Every envelope a WebSocket frame of its own, as kandev's backend
    /// sends them (benchmarks), instead of joining those queued together.
    pub frame_per_event: bool,
    /// The allow-lists of the app's Content-Security-Policy.
    pub policy: http::policy::Policy,
    /// Who may read besides loopback, and when a token is needed.
    pub access: access::Access,
    /// The OpenTelemetry receiver.
    pub otlp: OtlpConfig,
}

/// The OpenTelemetry receiver's settings (docs/behaviour.md §7 "OpenTelemetry").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OtlpConfig {
    /// Where accepted telemetry is kept (`--otlp-dir`); `None`: no receiver.
    pub dir: Option<PathBuf>,
    /// A second address serving only the receiver (`--otlp`).
    pub listen: Option<SocketAddr>,
}

/// Why the server could not start.
#[derive(Debug)]
pub enum StartError {
    /// `--dist` does not exist or is not a folder.
    MissingDist(PathBuf),
    /// `--dist` has no `index.html`.
    MissingIndex(PathBuf),

    /// None of the `--recordings` folders exists.
    MissingRecordings(Vec<PathBuf>),
    /// The address could not be bound.
    Bind(SocketAddr, std::io::Error),
    /// The telemetry folder (`--otlp-dir`) cannot be made.
    OtlpDir(PathBuf, std::io::Error),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::MissingDist(dir) => write!(
                f,
                "the app folder {} does not exist; pass --dist DIR (a built app: \
                 make run builds dist/), run a taskview with the app built in \
                 (make install), or use --no-dist to serve only the API",
                dir.display()
            ),
            StartError::MissingIndex(dir) => write!(
                f,
                "the app folder {} has no index.html; is it a built app?",
                dir.display()
            ),
            StartError::MissingRecordings(dirs) => {
                let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
                match dirs.as_slice() {
                    [one] => write!(f, "the recordings folder {one} does not exist"),
                    _ => write!(
                        f,
                        "none of the recordings folders exists: {}",
                        dirs.join(", ")
                    ),
                }
            }
            StartError::Bind(addr, e) => write!(f, "cannot listen on {addr}: {e}"),
            StartError::OtlpDir(dir, e) => {
                write!(f, "cannot keep telemetry in {}: {e}", dir.display())
            }
        }
    }
}

impl std::error::Error for StartError {}

/// A server that is accepting connections.
pub struct RunningServer {
    addr: SocketAddr,
    token: Option<access::Token>,
    backend: Arc<Backend>,
    trigger: shutdown::Trigger,
    server: JoinHandle<std::io::Result<()>>,
    /// The `--otlp` listener: its address and its server.
    otlp: Option<(SocketAddr, JoinHandle<std::io::Result<()>>)>,
    workers: Vec<JoinHandle<()>>,
}

impl RunningServer {
    /// The bound address (the real port when port 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The token readers need (`None` when none is asked for).
    pub fn token(&self) -> Option<&str> {
        self.token.as_ref().map(access::Token::as_str)
    }

    /// The URL to open: the app on a loopback or the bound address, with
    /// the token when one is needed.
    pub fn url(&self) -> String {
        access::url(self.addr, self.token.as_ref())
    }

    /// The `--otlp` listener's address (the real port when port 0 was asked for).
    pub fn otlp_addr(&self) -> Option<SocketAddr> {
        self.otlp.as_ref().map(|(addr, _)| *addr)
    }

    /// The in-memory backend (tests drive and inspect it directly).
    pub fn backend(&self) -> &Arc<Backend> {
        &self.backend
    }

    /// Stops scenarios and connections, then waits for the server to end.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.trigger.fire();
        for worker in self.workers {
            if let Err(e) = worker.await {
                tracing::warn!("a scenario task ended abnormally: {e}");
            }
        }
        if let Some((_, otlp)) = self.otlp {
            otlp.await.map_err(std::io::Error::other)??;
        }
        self.server.await.map_err(std::io::Error::other)?
    }
}

/// Where the app's files come from: `dist` when given, else the embedded
/// app, else none.
fn app_files(config: &Config) -> Result<Option<AppFiles>, StartError> {
    if let Some(dir) = &config.dist {
        if !dir.is_dir() {
            return Err(StartError::MissingDist(dir.clone()));
        }
        if !dir.join(app_files::INDEX).is_file() {
            return Err(StartError::MissingIndex(dir.clone()));
        }
        return Ok(Some(AppFiles::Folder(dir.clone())));
    }
    Ok(config.embedded.clone().map(AppFiles::Embedded))
}

/// Serves `app` on `listener` in a task of its own until `shutdown` is requested.
fn spawn_serving(
    listener: tokio::net::TcpListener,
    app: axum::extract::connect_info::IntoMakeServiceWithConnectInfo<axum::Router, access::Arrival>,
    mut shutdown: shutdown::Shutdown,
) -> JoinHandle<std::io::Result<()>> {
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move { shutdown.requested().await })
            .await
    })
}

/// Checks the configuration, loads the board, binds, and starts serving.
pub async fn serve(config: Config) -> Result<RunningServer, StartError> {
    let files = app_files(&config)?;
    if let Source::Recordings { dirs, .. } = &config.source {
        if !dirs.iter().any(|dir| dir.is_dir()) {
            return Err(StartError::MissingRecordings(dirs.clone()));
        }
        for dir in dirs.iter().filter(|dir| !dir.is_dir()) {
            tracing::warn!("{} does not exist yet; watching for it", dir.display());
        }
    }
    let store = match &config.otlp.dir {
        Some(dir) => Some(Arc::new(
            telemetry::Store::open(dir).map_err(|e| StartError::OtlpDir(dir.clone(), e))?,
        )),
        None => None,
    };
    let source = sources::with_telemetry(&config.source, store.as_deref());
    let backend = Arc::new(Backend::with_clock(sources::clock(&source)));
    let (trigger, shutdown) = shutdown::channel();
    let start_workers = sources::load(&backend, &source);

    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .map_err(|e| StartError::Bind(config.addr, e))?;
    let addr = listener
        .local_addr()
        .map_err(|e| StartError::Bind(config.addr, e))?;
    let state = AppState {
        backend: Arc::clone(&backend),
        drop_ws_every: config.drop_ws_every,
        inject_malformed_every: config.inject_malformed_every,
        frame_per_event: config.frame_per_event,
        shutdown: shutdown.clone(),
    };
    let otlp_listener = match config.otlp.listen.filter(|_| store.is_some()) {
        Some(at) => Some(
            tokio::net::TcpListener::bind(at)
                .await
                .map_err(|e| StartError::Bind(at, e))?,
        ),
        None => None,
    };
    let otlp_addr = match &otlp_listener {
        Some(listener) => Some(
            listener
                .local_addr()
                .map_err(|e| StartError::Bind(config.otlp.listen.unwrap_or(config.addr), e))?,
        ),
        None => None,
    };
    // One token for both listeners, made when either is beyond loopback.
    let access = access::Access {
        token: access::shared_token(&config.access.token, addr, otlp_addr),
        ..config.access.clone()
    };
    let guard = Arc::new(access::Guard::new(&access, addr));
    let token = guard.token().cloned();
    let otlp = match (otlp_listener, otlp_addr, &store) {
        (Some(listener), Some(at), Some(store)) => {
            let guard = Arc::new(access::Guard::new(&access, at));
            let app = telemetry::routes(Arc::clone(store))
                .layer(tower_http::trace::TraceLayer::new_for_http())
                .layer(axum::middleware::from_fn_with_state(guard, access::check))
                .into_make_service_with_connect_info::<access::Arrival>();
            let server = spawn_serving(listener, app, shutdown.clone());
            tracing::info!(addr = %at, "OpenTelemetry receiver listening");
            Some((at, server))
        }
        _ => None,
    };
    // Last, so that it covers every route and the fallback (docs/behaviour.md §7).
    let app = http::router(state, files, &config.policy, store)
        .layer(axum::middleware::from_fn_with_state(guard, access::check))
        .into_make_service_with_connect_info::<access::Arrival>();
    let server = spawn_serving(listener, app, shutdown.clone());
    let workers = start_workers(shutdown);
    tracing::info!(%addr, source = source.describe(), "listening");
    Ok(RunningServer {
        addr,
        token,
        backend,
        trigger,
        server,
        otlp,
        workers,
    })
}
