//! A `taskview serve` child process on a free loopback port, as the
//! benchmarks that start one by its binary run it (`home`, `otlp_load`),
//! and the settings they read from the environment.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The number in environment variable `name`, else `default`.
pub fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A running server, killed when dropped.
pub struct Served {
    pub child: Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
}

impl Served {
    /// Starts `bin serve` without the app (`--no-dist`), logging warnings
    /// only, on a free loopback port, with `args` after; its output is
    /// dropped.
    pub fn start<S: AsRef<OsStr>>(bin: &Path, args: impl IntoIterator<Item = S>) -> Served {
        let port = free_port();
        let child = Command::new(bin)
            .args([
                "serve",
                "--no-dist",
                "--log",
                "warn",
                "--addr",
                &format!("127.0.0.1:{port}"),
            ])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e} (build it: make bench)", bin.display()));
        Served {
            child,
            base: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
