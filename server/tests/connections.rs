//! Connections are bounded (docs/security.md "Connections"): headers arrive
//! in time, idle connections close, and past the cap the idlest one is let
//! go, so slow or idle clients never keep a normal one out, even with the
//! process under a small open-file limit.

mod common;

use common::{config, demo, start};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use taskview_server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Whether the server closes `socket` within `within` (a read that ends).
async fn closed_within(socket: &mut TcpStream, within: Duration) -> bool {
    let mut byte = [0u8; 1];
    matches!(
        tokio::time::timeout(within, socket.read(&mut byte)).await,
        Ok(Ok(0) | Err(_))
    )
}

/// A GET of `path` on a fresh connection: its status line, and how long it took.
async fn get(addr: SocketAddr, path: &str) -> (String, Duration) {
    let started = Instant::now();
    let mut socket = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    socket.read_to_end(&mut answer).await.unwrap();
    let text = String::from_utf8_lossy(&answer);
    (
        text.lines().next().unwrap_or("").to_string(),
        started.elapsed(),
    )
}

fn timed(header: u64, idle: u64) -> Config {
    let mut config = config(demo());
    config.connections.header_timeout = Duration::from_secs(header);
    config.connections.idle_timeout = Duration::from_secs(idle);
    config
}

#[tokio::test]
async fn headers_that_do_not_arrive_in_time_close_the_connection() {
    let server = start(timed(1, 30)).await;
    let mut slow = TcpStream::connect(server.addr()).await.unwrap();
    slow.write_all(b"GET /api/v1/scenario HTTP/1.1\r\nHost: 127")
        .await
        .unwrap();
    let started = Instant::now();
    assert!(closed_within(&mut slow, Duration::from_secs(5)).await);
    assert!(started.elapsed() >= Duration::from_millis(900));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_connection_idle_past_its_timeout_is_closed_and_one_at_work_is_not() {
    let server = start(timed(30, 1)).await;
    let mut idle = TcpStream::connect(server.addr()).await.unwrap();
    assert!(
        closed_within(&mut idle, Duration::from_secs(5)).await,
        "a fresh idle one"
    );
    // A kept-alive connection: answered, then idle.
    let mut kept = TcpStream::connect(server.addr()).await.unwrap();
    kept.write_all(b"GET /api/v1/scenario HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0u8; 4096];
    let read = kept.read(&mut answer).await.unwrap();
    assert!(String::from_utf8_lossy(&answer[..read]).starts_with("HTTP/1.1 200"));
    assert!(
        closed_within(&mut kept, Duration::from_secs(5)).await,
        "after its answer"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn past_the_cap_the_idlest_connection_makes_room_for_a_new_one() {
    let mut config = config(demo());
    config.connections.max_connections = 20;
    let server = start(config).await;
    let mut idle = Vec::new();
    for _ in 0..40 {
        idle.push(TcpStream::connect(server.addr()).await.unwrap());
    }
    let (status, took) = get(server.addr(), "/api/v1/scenario").await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let mut closed = 0;
    for socket in &mut idle {
        if closed_within(socket, Duration::from_millis(50)).await {
            closed += 1;
        }
    }
    assert!(closed >= 20, "{closed} of the 40 idle ones were let go");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn websockets_hold_their_place_while_idle_connections_come_and_go() {
    let mut config = config(demo());
    config.connections.max_connections = 10;
    let server = start(config).await;
    let mut sockets = Vec::new();
    for _ in 0..3 {
        sockets.push(common::Ws::connect_registered(server.addr()).await);
    }
    let mut idle = Vec::new();
    for _ in 0..30 {
        idle.push(TcpStream::connect(server.addr()).await.unwrap());
    }
    let (status, _) = get(server.addr(), "/api/v1/scenario").await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    for ws in &mut sockets {
        let reply = ws.request("user.subscribe", serde_json::json!({})).await;
        assert_eq!(reply["type"], "response", "{reply}");
    }
    drop(idle);
    server.shutdown().await.unwrap();
}

/// The binary under `ulimit -n 256`, on a free loopback port.
struct Limited(Child, SocketAddr);

impl Limited {
    fn start() -> Limited {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut command = Command::new(env!("CARGO_BIN_EXE_taskview"));
        command
            .args(["serve", "--no-dist", "--log", "warn"])
            .args(["--addr", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // SAFETY: setrlimit is async-signal-safe; the child only lowers its own limit.
            unsafe {
                command.pre_exec(|| {
                    let limit = libc::rlimit {
                        rlim_cur: 256,
                        rlim_max: 256,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let child = command.spawn().expect("the taskview binary runs");
        Limited(child, SocketAddr::from(([127, 0, 0, 1], port)))
    }
}

impl Drop for Limited {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The attack: 300 idle or half-sent sockets against a server that
/// may open 256 files; a normal request still answers at once.
#[tokio::test]
async fn three_hundred_idle_or_half_sent_sockets_under_256_files_keep_no_one_out() {
    let served = Limited::start();
    let addr = served.1;
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(addr).await.is_err() {
        assert!(Instant::now() < deadline, "the server starts");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut attackers = Vec::new();
    for n in 0..300 {
        let Ok(mut socket) = TcpStream::connect(addr).await else {
            continue;
        };
        if n % 2 == 1 {
            let _ = socket
                .write_all(b"GET /api/v1/scenario HTTP/1.1\r\nHo")
                .await;
        }
        attackers.push(socket);
    }
    assert!(attackers.len() >= 256, "{} sockets opened", attackers.len());
    for _ in 0..3 {
        let (status, took) = get(addr, "/api/v1/scenario").await;
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(took < Duration::from_secs(2), "answered in {took:?}");
    }
    drop(attackers);
}
