//! A real PostgreSQL server for the team store's tests (Debian's
//! `postgresql`, installed by scripts/setup.sh): one cluster per test
//! binary, made with `initdb` in a temporary folder and started with
//! `pg_ctl` on a free port, its socket in that folder. Both refuse to run
//! as root (CI runs as root): then they run as the `postgres` user the
//! package creates. Each test takes a database of its own; a watcher
//! process stops the cluster and removes its folder when the test binary
//! ends, however it ends. A cluster may take TCP connections only with
//! TLS ([`tls_cluster`]), with a certificate the test made.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// A running cluster.
pub struct Postgres {
    dir: PathBuf,
    bin: PathBuf,
    pub port: u16,
    /// Started with `ssl=on`.
    tls: bool,
}

/// A server certificate and its key, PEM.
pub struct ServerCertificate {
    pub cert: String,
    pub key: String,
}

/// The password in every test URL (trust authentication ignores it): tests
/// check it reaches no log and no page.
pub const PASSWORD: &str = "pw-never-shown-7f3a";

static CLUSTER: OnceLock<Postgres> = OnceLock::new();
static DATABASES: AtomicU32 = AtomicU32::new(0);

/// This binary's cluster, started on first use.
pub fn cluster() -> &'static Postgres {
    CLUSTER.get_or_init(|| Postgres::start(None))
}

/// This binary's cluster that takes TCP connections only with TLS, with
/// `certificate` (the first call's), started on first use; Unix-socket
/// connections stay plain (the tests' own queries).
pub fn tls_cluster(certificate: impl FnOnce() -> ServerCertificate) -> &'static Postgres {
    CLUSTER.get_or_init(|| Postgres::start(Some(certificate())))
}

/// Whether this process runs as root.
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The newest of Debian's PostgreSQL programs (not on PATH), else PATH's.
fn bin_dir() -> PathBuf {
    let versions = std::fs::read_dir("/usr/lib/postgresql").ok();
    let mut found: Vec<(u32, PathBuf)> = versions
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    found.sort();
    match found.pop() {
        Some((_, bin)) => bin,
        None => PathBuf::new(),
    }
}

/// A command of the cluster's programs, as `postgres` when this is root.
fn as_owner(bin: &Path, program: &str) -> Command {
    let path = bin.join(program);
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(path);
        command
    } else {
        Command::new(path)
    }
}

fn run(mut command: Command, what: &str) {
    let output = command.output().unwrap_or_else(|e| {
        panic!("{what}: {e}; install PostgreSQL (bash scripts/setup.sh installs Debian's)")
    });
    assert!(
        output.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

impl Postgres {
    fn start(tls: Option<ServerCertificate>) -> Postgres {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "taskview-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        if is_root() {
            run(
                {
                    let mut c = Command::new("chown");
                    c.args(["postgres:postgres"]).arg(&dir);
                    c
                },
                "chown the cluster's folder",
            );
        }
        let bin = bin_dir();
        let mut initdb = as_owner(&bin, "initdb");
        initdb
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(dir.join("data"));
        run(initdb, "initdb");
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let cluster = Postgres {
            dir,
            bin,
            port,
            tls: tls.is_some(),
        };
        if let Some(certificate) = tls {
            cluster.take_only_tls(&certificate);
        }
        cluster.start_again();
        cluster.watch_for_the_end();
        cluster
    }

    /// Installs `certificate` as the server's and refuses TCP connections without TLS.
    fn take_only_tls(&self, certificate: &ServerCertificate) {
        let data = self.dir.join("data");
        let files = [
            ("server.crt", certificate.cert.as_str()),
            ("server.key", certificate.key.as_str()),
            (
                "pg_hba.conf",
                "local all all trust\nhostssl all all 127.0.0.1/32 trust\n\
                 hostnossl all all 0.0.0.0/0 reject\n",
            ),
        ];
        for (name, text) in files {
            let path = data.join(name);
            std::fs::write(&path, text).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
            if is_root() {
                let mut chown = Command::new("chown");
                chown.arg("postgres:postgres").arg(&path);
                run(chown, "chown a cluster file");
            }
        }
    }

    /// Starts the server (again, after `stop`).
    pub fn start_again(&self) {
        let mut pg_ctl = as_owner(&self.bin, "pg_ctl");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300{}",
            self.port,
            self.dir.display(),
            if self.tls { " -c ssl=on" } else { "" }
        );
        pg_ctl
            .arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("log"))
            .args(["-o", &options, "-w", "start"]);
        run(pg_ctl, "pg_ctl start");
    }

    /// Stops the server at once (connections are cut, as in a crash).
    pub fn stop(&self) {
        let mut pg_ctl = as_owner(&self.bin, "pg_ctl");
        pg_ctl
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["-m", "immediate", "-w", "stop"]);
        run(pg_ctl, "pg_ctl stop");
    }

    /// A watcher that stops the cluster and removes its folder once this
    /// process is gone (so it is never waited for: it outlives the tests).
    #[allow(clippy::zombie_processes)]
    fn watch_for_the_end(&self) {
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 1; done; \
             {stop} -D {data} -m immediate stop >/dev/null 2>&1; rm -rf {dir}",
            pid = std::process::id(),
            stop = if is_root() {
                format!(
                    "runuser -u postgres -- {}",
                    self.bin.join("pg_ctl").display()
                )
            } else {
                self.bin.join("pg_ctl").display().to_string()
            },
            data = self.dir.join("data").display(),
            dir = self.dir.display(),
        );
        Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the cluster's watcher starts");
    }

    /// A new empty database; its URL (with [`PASSWORD`]).
    pub fn database(&self) -> String {
        let name = format!("t{}", DATABASES.fetch_add(1, Ordering::Relaxed));
        let mut psql = as_owner(&self.bin, "psql");
        psql.args([
            "-h",
            "127.0.0.1",
            "-p",
            &self.port.to_string(),
            "-U",
            "postgres",
        ])
        .args(["-c", &format!("CREATE DATABASE {name}")]);
        run(psql, "CREATE DATABASE");
        self.url(&name)
    }

    /// The address of database `name` through the cluster's Unix socket
    /// (plain, whatever the cluster asks of TCP connections).
    pub fn socket_url(&self, name: &str) -> String {
        format!(
            "host={} port={} user=postgres dbname={name}",
            self.dir.display(),
            self.port
        )
    }

    /// The URL of database `name`.
    pub fn url(&self, name: &str) -> String {
        format!(
            "postgres://postgres:{PASSWORD}@127.0.0.1:{}/{name}",
            self.port
        )
    }
}

/// A client of the database at `url`, for a test's own queries.
pub async fn client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("the test connects to its database");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client
}

/// Runs `query` and returns the first column of every row as text.
pub async fn texts(url: &str, query: &str) -> Vec<String> {
    let client = client(url).await;
    let rows = client
        .query(query, &[])
        .await
        .expect("the test's query runs");
    rows.iter().map(|r| r.get::<_, String>(0)).collect()
}

/// Waits up to `limit` for `check` to hold, polling every 50 ms.
pub async fn eventually(limit: Duration, what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + limit;
    while !check().await {
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
