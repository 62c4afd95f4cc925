//! The command line: `taskview serve …` (clap derive).

use crate::access::{Access, HostName, PageOrigin, Token, TokenRule};
use crate::app_files::EmbeddedApp;
use crate::http::policy::{ConnectOrigin, Origin, Policy};
use crate::{Config, OtlpConfig, Source};
use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// taskview: a viewer for coding-agent task transcripts and kanban boards.
#[derive(Debug, Parser)]
#[command(name = "taskview", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// What to do.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once, at start
pub enum Command {
    /// Serve the built app plus a kandev-compatible HTTP + WebSocket API, fed
    /// by a built-in scenario (the demo board by default) or a folder of
    /// recorded sessions.
    #[command(after_help = SERVE_NOTES)]
    Serve(ServeArgs),
    /// Write one self-contained HTML file of a transcript: the app, its
    /// styles and the transcript inline; it opens from disk (file://) with
    /// no network and renders as `/view` does (cards, groups, search, roster).
    #[command(after_help = EXPORT_NOTES)]
    Export(ExportArgs),
    /// Write NAME.br and NAME.gz beside each compressible file of a built app
    /// (the last step of the release build); `serve` sends them to browsers
    /// that accept them.
    Precompress {
        /// The built app
        #[arg(value_name = "DIR", default_value = "dist")]
        dir: PathBuf,
    },
    /// Cut cargo's wasm of the app (built with the feature `split`, linked
    /// with --emit-relocs) into modules loaded when first needed, write them
    /// to DIR/app-<hash>/ and boot DIR/index.html from them (a release build
    /// step, before `precompress`).
    Split(SplitArgs),
}

/// Options of `taskview split`.
#[derive(Debug, Args)]
pub struct SplitArgs {
    /// Cargo's wasm of the app
    #[arg(value_name = "WASM")]
    pub wasm: PathBuf,
    /// The built app (Trunk's output)
    #[arg(value_name = "DIR", default_value = "dist")]
    pub dist: PathBuf,
    /// The wasm-bindgen to run
    #[arg(long, default_value = "wasm-bindgen")]
    pub wasm_bindgen: PathBuf,
    /// The wasm-opt to run
    #[arg(long, default_value = "wasm-opt")]
    pub wasm_opt: PathBuf,
    /// wasm-opt's arguments, as one string
    #[arg(long, default_value = "-Oz", allow_hyphen_values = true)]
    pub opt_args: String,
}

const SERVE_NOTES: &str = "\
Scenarios:
  demo       A board (Todo, In Progress, Review, Done) whose in-progress tasks loop:
             a prompt, tool calls, then a review wave of parallel subagents whose
             children stream in; now and then a failed, nested or background one.
             Deterministic given --seed; --speed scales time.
  lifecycle  Replays tests/fixtures/ws-subagent-lifecycle-events.json (task-7c1e,
             chip 0 -> 2 -> 1 -> 0) one frame every --interval-ms (default 1000),
             clearing the session before each pass; loops unless --once.
  stream     One task (task-stream / sess-stream) that receives exactly --messages
             messages plus their updates, one frame every --interval-ms (default 5),
             then ends: message `stream-end`, session COMPLETED, task COMPLETED.
  GET /api/v1/scenario reports {name, finished, iterations, frames}.

Faults (for testing clients): --drop-ws-every N closes each WebSocket (code 1013)
after N frames; --inject-malformed-every N sends each WebSocket a malformed frame
after every N good ones.

Security: the app's pages carry a Content-Security-Policy. The app may fetch
from its own origin and from loopback (127.0.0.1, localhost) on any port;
--connect-origin adds a backend for ?api= or a file host for /view?src=.
Pages may frame the app, and an embedded page obeys their postMessage
requests and posts back to them, only when they share its origin or are named
by --embed-origin (docs/embedding.md).

Who may read: requests whose Host is not a loopback name (localhost,
*.localhost, 127.0.0.0/8, [::1]), the address they came in on, or a name given
with --allow-host are refused (DNS rebinding). Pages of another origin than
the app's own, loopback, or one given with --allow-origin get no CORS grant
and no WebSocket. Beyond loopback (e.g. --addr 0.0.0.0:8080) every request
needs the server's token: one is made at start (or given with --token or
TASKVIEW_TOKEN) and printed in the URL; the first visit trades it for an
HttpOnly cookie, and scripts send Authorization: Bearer TOKEN. --no-auth
serves without it: anyone who can reach the address reads every transcript.

Logging goes to stderr (--log); the first stdout line is the URL.";

const EXPORT_NOTES: &str = "\
INPUT is a transcript file in any dialect /view reads (kandev message list,
ACP frames, Claude Code session, gadget turns), or a folder such as a Claude
Code session with its subagents/ files: the session with the most companion
files is chosen, as the app's \"Open a folder\" does. A recordings task is its
file (or folder) in the recordings folder.

The page carries data-export=\"1\" on <html> and a Content-Security-Policy
that allows its inline app and nothing else (connect-src 'none'): it makes no
network request. The app comes from --dist (a release build, as make run or
make install leave it in dist/).

Secrets are masked: key and token shapes, private key blocks and credentials
in KEY=value lines, as gitleaks' rule set finds them, each replaced by
[masked: <rule id>]; the count is printed and shown in the page. --no-mask
keeps them.

The file view's \"Download HTML\" button writes the same page in the browser.

Example: taskview export session.jsonl -o session.html";

/// Options of `taskview export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The transcript file or session folder
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,

    /// Where to write the HTML file
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// Which session of a folder that holds several: its file name (with or
    /// without .jsonl) or its path in the folder [default: the one with the
    /// most files of its own]
    #[arg(long, value_name = "NAME")]
    pub session: Option<String>,

    /// The built app to inline
    #[arg(long, value_name = "DIR", default_value = "dist")]
    pub dist: PathBuf,

    /// Keep secrets as they are (by default they are masked)
    #[arg(long)]
    pub no_mask: bool,
}

/// Options of `taskview serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on, host:port (port 0 picks a free one)
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080", value_parser = parse_addr)]
    pub addr: SocketAddr,

    /// Serve the built app in DIR instead of the one built into this binary;
    /// unknown paths get its index.html (SPA fallback) [default: the built-in
    /// app; dist for a taskview built without one]
    #[arg(long, value_name = "DIR")]
    pub dist: Option<PathBuf>,

    /// Serve only /api and /ws, without the app files
    #[arg(long, conflicts_with = "dist")]
    pub no_dist: bool,

    /// Play the built-in demo scenario (the default; same as --scenario demo)
    #[arg(long, conflicts_with_all = ["recordings", "scenario"])]
    pub demo: bool,

    /// Serve every session in DIR (at any depth) as a task; files that grow
    /// are tailed and new ones appear. Repeatable. Without DIR: the folders
    /// where agents write their sessions (~/.claude/projects, ~/.qwen/projects,
    /// ~/.gemini/tmp, ~/.codex/sessions, ~/.copilot/session-state, ~/.local/share/opencode,
    /// ~/.kimi-code/sessions)
    #[arg(long, value_name = "DIR", conflicts_with = "scenario", num_args = 0..=1,
          default_missing_value = "", action = clap::ArgAction::Append,
          value_parser = clap::builder::OsStringValueParser::new().map(PathBuf::from))]
    pub recordings: Vec<PathBuf>,

    /// The scripted scenario to play
    #[arg(long, value_enum, value_name = "NAME")]
    pub scenario: Option<ScenarioName>,

    /// Seed of the demo and stream content
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Demo time scale: 10 plays ten times faster, 0.5 at half speed
    #[arg(long, default_value_t = 1.0, value_parser = parse_speed)]
    pub speed: f64,

    /// stream: how many messages the session receives
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub messages: usize,

    /// lifecycle and stream: milliseconds between frames [default: 1000 lifecycle, 5 stream]
    #[arg(long, value_name = "MS")]
    pub interval_ms: Option<u64>,

    /// lifecycle and stream: milliseconds to wait before the first frame
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub start_delay_ms: u64,

    /// lifecycle: play the frames once instead of looping
    #[arg(long)]
    pub once: bool,

    /// recordings: how often to look through the folders for a change the
    /// filesystem's notifications missed, in milliseconds (without
    /// notifications, --no-notify or where the OS gives none, the only way
    /// changes are found)
    #[arg(long, value_name = "MS", default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(10..))]
    pub poll_ms: u64,

    /// recordings: find changes by looking through the folders every
    /// --poll-ms only, without filesystem notifications (e.g. on a network
    /// filesystem that does not send them)
    #[arg(long)]
    pub no_notify: bool,

    /// recordings: megabytes of session files kept imported while nobody
    /// reads them (the least recently read are dropped first and imported
    /// again when read); every session stays listed
    #[arg(long, value_name = "MB", default_value_t = 256)]
    pub memory_mb: u64,

    /// Fault injection: close every WebSocket after it has sent N frames
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub drop_ws_every: Option<u64>,

    /// Fault injection: after every N frames, send each WebSocket one malformed
    /// frame (not JSON, not an envelope, an unknown action, or a payload of the
    /// wrong types), cycling through a fixed list
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub inject_malformed_every: Option<u64>,

    /// Send every envelope as a WebSocket frame of its own, as kandev's own
    /// backend does, instead of joining the envelopes of one change into one
    /// frame (benchmarks measure both paths)
    #[arg(long)]
    pub frame_per_event: bool,

    /// Another origin the app may fetch from and open a WebSocket to
    /// (`?api=<base>` backends, `/view?src=` file hosts); `*` allows any.
    /// Repeatable.
    #[arg(long, value_name = "ORIGIN")]
    pub connect_origin: Vec<ConnectOrigin>,

    /// A page origin that may embed the app in a frame (CSP frame-ancestors)
    /// and whose postMessage requests an embed obeys and answers
    /// (docs/embedding.md); without it, only the app's own origin. Repeatable.
    #[arg(long, value_name = "ORIGIN")]
    pub embed_origin: Vec<Origin>,

    /// A host name this server answers to besides loopback names and the
    /// address it listens on (a LAN or proxy name); requests whose Host
    /// header names anything else are refused. Repeatable.
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<HostName>,

    /// A page origin that may read the API and open /ws besides the app's own
    /// and loopback pages, matched exactly (e.g. the kandev web client at
    /// https://kandev.example.com). Repeatable.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<PageOrigin>,

    /// The secret readers need, wherever the server listens [default: one
    /// made at start when --addr is beyond loopback, none on loopback]
    #[arg(
        long,
        value_name = "TOKEN",
        env = "TASKVIEW_TOKEN",
        hide_env_values = true
    )]
    pub token: Option<Token>,

    /// Ask for no token even beyond loopback: anyone who can reach --addr
    /// reads every transcript served
    #[arg(long, conflicts_with = "token")]
    pub no_auth: bool,

    /// Also receive OpenTelemetry (OTLP/HTTP: /v1/traces, /v1/logs,
    /// /v1/metrics) on this second address, host:port (4318 is the
    /// convention), under the same access rules as --addr. The receiver is
    /// on --addr too whenever it runs (with --recordings, --otlp or
    /// --otlp-dir)
    #[arg(long, value_name = "HOST:PORT", value_parser = parse_addr)]
    pub otlp: Option<SocketAddr>,

    /// Where received telemetry is kept, a file per session [default:
    /// $XDG_DATA_HOME/taskview/otlp, else ~/.local/share/taskview/otlp]
    #[arg(long, value_name = "DIR")]
    pub otlp_dir: Option<PathBuf>,

    /// Log level on stderr
    #[arg(long, value_enum, default_value_t = LogLevel::Info)]
    pub log: LogLevel,
}

/// The user's data folder for telemetry: `$XDG_DATA_HOME/taskview/otlp`,
/// else `~/.local/share/taskview/otlp`.
fn default_otlp_dir(xdg_data_home: Option<PathBuf>, home: Option<&Path>) -> Option<PathBuf> {
    let data = xdg_data_home
        .filter(|d| d.is_absolute())
        .or_else(|| home.map(|h| h.join(".local/share")))?;
    Some(data.join("taskview/otlp"))
}

/// `--scenario` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScenarioName {
    Demo,
    Lifecycle,
    Stream,
}

/// `--log` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogLevel {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

impl LogLevel {
    /// The matching tracing level.
    pub fn level(self) -> tracing::Level {
        match self {
            LogLevel::Error => tracing::Level::ERROR,
            LogLevel::Warn => tracing::Level::WARN,
            LogLevel::Info => tracing::Level::INFO,
            LogLevel::Debug => tracing::Level::DEBUG,
            LogLevel::Trace => tracing::Level::TRACE,
        }
    }
}

/// `host:port`, an IP literal or a resolvable name (first address wins).
fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    let hint = "expected HOST:PORT, e.g. 127.0.0.1:8080";
    if !text.contains(':') {
        return Err(format!("{text:?} has no port; {hint}"));
    }
    text.to_socket_addrs()
        .map_err(|e| format!("{text:?} is not a usable address ({e}); {hint}"))?
        .next()
        .ok_or_else(|| format!("{text:?} resolves to no address; {hint}"))
}

fn parse_speed(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err(format!("{text:?} is not a positive number")),
    }
}

/// Where agents write their sessions, below the home folder.
const AGENT_FOLDERS: [&str; 7] = [
    ".claude/projects",
    ".qwen/projects",
    ".gemini/tmp",
    ".codex/sessions",
    ".copilot/session-state",
    ".local/share/opencode",
    ".kimi-code/sessions",
];

/// The folders `--recordings` names, an empty one (the flag without DIR)
/// standing for the agents' folders below `home`; `None` without the flag.
fn recording_dirs(given: Vec<PathBuf>, home: Option<&Path>) -> Option<Vec<PathBuf>> {
    if given.is_empty() {
        return None;
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    for dir in given {
        let named = if dir.as_os_str().is_empty() {
            let home = home.unwrap_or(Path::new("."));
            AGENT_FOLDERS.iter().map(|f| home.join(f)).collect()
        } else {
            vec![dir]
        };
        for dir in named {
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    Some(dirs)
}

impl ServeArgs {
    /// The server configuration these options describe.
    pub fn into_config(self) -> Config {
        let interval = |default_ms| Duration::from_millis(self.interval_ms.unwrap_or(default_ms));
        let start_delay = Duration::from_millis(self.start_delay_ms);
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let recordings = recording_dirs(self.recordings, home.as_deref());
        // Telemetry is received where agents are watched, or when asked for.
        let receives = recordings.is_some() || self.otlp.is_some() || self.otlp_dir.is_some();
        let otlp = OtlpConfig {
            dir: self.otlp_dir.or_else(|| {
                let xdg = std::env::var_os("XDG_DATA_HOME").map(PathBuf::from);
                default_otlp_dir(xdg, home.as_deref()).filter(|_| receives)
            }),
            listen: self.otlp,
        };
        let source = match (recordings, self.scenario) {
            (Some(dirs), _) => Source::Recordings {
                dirs,
                watching: crate::sources::recordings::Watching {
                    rescan: Duration::from_millis(self.poll_ms),
                    budget: self.memory_mb << 20,
                    notify: !self.no_notify,
                    telemetry: None,
                },
            },
            (None, Some(ScenarioName::Lifecycle)) => Source::Lifecycle {
                interval: interval(1000),
                start_delay,
                once: self.once,
            },
            (None, Some(ScenarioName::Stream)) => Source::Stream {
                messages: self.messages,
                interval: interval(5),
                start_delay,
                seed: self.seed,
            },
            (None, Some(ScenarioName::Demo) | None) => Source::Demo {
                seed: self.seed,
                speed: self.speed,
            },
        };
        // The built-in app unless --dist names a folder; without one, ./dist.
        let embedded = match (self.no_dist, &self.dist) {
            (false, None) => EmbeddedApp::built_in(),
            _ => None,
        };
        let dist = match (self.no_dist, self.dist) {
            (true, _) => None,
            (false, Some(dir)) => Some(dir),
            (false, None) => embedded.is_none().then(|| PathBuf::from("dist")),
        };
        Config {
            addr: self.addr,
            dist,
            embedded,
            source,
            drop_ws_every: self.drop_ws_every,
            inject_malformed_every: self.inject_malformed_every,
            frame_per_event: self.frame_per_event,
            policy: Policy {
                connect: self.connect_origin,
                embed: self.embed_origin,
            },
            access: Access {
                allow_hosts: self.allow_host,
                allow_origins: self.allow_origin,
                token: match (self.token, self.no_auth) {
                    (_, true) => TokenRule::Off,
                    (Some(token), false) => TokenRule::Given(token),
                    (None, false) => TokenRule::Auto,
                },
            },
            otlp,
        }
    }
}

#[cfg(test)]
mod tests;
