//! Helpers for integration tests: servers on ephemeral ports, a JSON HTTP
//! getter and a WebSocket client that waits for conditions with timeouts.

#![allow(dead_code)] // each test binary uses its own subset

pub mod otlp;
pub mod postgres;
pub mod team;
pub mod wire;

use futures_util::{SinkExt, StreamExt};
use reqwest::header::HeaderMap;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use taskview_server::{serve, Config, RunningServer, Source};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long any single wait may take before the test fails.
pub const PATIENCE: Duration = Duration::from_secs(15);

/// A config on 127.0.0.1:0 without app files.
/// A server watching `recordings` every 20 ms whose telemetry receiver keeps
/// what it accepts in `telemetry` (its folder watched with them).
pub fn receiving(recordings: &TempDir, telemetry: &TempDir) -> Config {
    Config {
        otlp: taskview_server::OtlpConfig {
            dir: Some(telemetry.0.clone()),
            listen: None,
            ..Default::default()
        },
        ..config(Source::Recordings {
            dirs: vec![recordings.0.clone()],
            watching: taskview_server::sources::recordings::Watching::every(Duration::from_millis(
                20,
            )),
        })
    }
}

pub fn config(source: Source) -> Config {
    Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        dist: None,
        embedded: None,
        source,
        drop_ws_every: None,
        inject_malformed_every: None,
        frame_per_event: false,
        policy: Default::default(),
        access: Default::default(),
        otlp: Default::default(),
        store: None,
        connections: Default::default(),
    }
}

/// The demo at its normal speed.
pub fn demo() -> Source {
    Source::Demo {
        seed: 1,
        speed: 1.0,
    }
}

/// A board where nothing happens on its own: the lifecycle fixture's board
/// (task-7c1e / sess-7c1e) with its replay an hour away. Tests drive it
/// through `RunningServer::backend`.
pub fn quiet() -> Source {
    Source::Lifecycle {
        interval: Duration::from_millis(10),
        start_delay: Duration::from_secs(3600),
        once: true,
    }
}

/// A started server; a recordings server once it has listed every session
/// of its folders (it answers before: `indexed`).
pub async fn start(config: Config) -> RunningServer {
    let recordings = matches!(config.source, Source::Recordings { .. });
    let server = serve(config).await.expect("server starts");
    if recordings {
        indexed(server.addr()).await;
    }
    server
}

/// Waits until a recordings server has listed every session it found at
/// start (`iterations` of its scenario status turns 1).
pub async fn indexed(addr: SocketAddr) -> Value {
    wait_http(addr, "/api/v1/scenario", |s| s["iterations"] == 1).await
}

/// Every message of a session (one page of up to 1000).
pub async fn session_messages(addr: std::net::SocketAddr, session: &str) -> Vec<Value> {
    let (status, page) = get(
        addr,
        &format!("/api/v1/task-sessions/{session}/messages?limit=1000"),
    )
    .await;
    assert_eq!(status, 200, "{page}");
    page["messages"].as_array().unwrap().clone()
}

/// GET a path; the status and the JSON body (`Null` when not JSON).
pub async fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    let response = reqwest::get(format!("http://{addr}{path}"))
        .await
        .expect("HTTP request");
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body)
}

/// Polls `GET path` until `done` holds for the body.
pub async fn wait_http(addr: SocketAddr, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (_, body) = get(addr, path).await;
        if done(&body) {
            return body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting on {path}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The ids of a page's messages, in order.
pub fn page_ids(page: &Value) -> Vec<String> {
    page["messages"]
        .as_array()
        .expect("a page of messages")
        .iter()
        .map(|m| m["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A temporary folder removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("taskview-test-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// Writes `name` (a path relative to the folder; missing folders are made).
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, contents).unwrap();
    }

    /// Copies every file under `from` into this folder at `to`.
    pub fn copy_tree(&self, from: &Path, to: &str) {
        for entry in std::fs::read_dir(from).unwrap().filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let target = format!("{to}/{name}");
            if entry.file_type().unwrap().is_dir() {
                self.copy_tree(&entry.path(), &target);
            } else {
                self.write(&target, std::fs::read(entry.path()).unwrap());
            }
        }
    }

    /// Removes the file `name`.
    pub fn remove(&self, name: &str) {
        std::fs::remove_file(self.0.join(name)).unwrap();
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A WebSocket client. Frames read while waiting for something else are
/// kept, in order, for later reads.
pub struct Ws {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    backlog: VecDeque<Value>,
    /// Envelopes of the last frame read that were not asked for yet.
    unread: VecDeque<Value>,
    next_id: u64,
    /// Set once the server closed the socket.
    pub closed: bool,
}

impl Ws {
    pub async fn connect(addr: SocketAddr) -> Ws {
        let (socket, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .expect("websocket connects");
        Ws {
            socket,
            backlog: VecDeque::new(),
            unread: VecDeque::new(),
            next_id: 0,
            closed: false,
        }
    }

    /// Connects and waits for the `user.subscribe` ack, so the server has
    /// registered this client before the test goes on.
    pub async fn connect_registered(addr: SocketAddr) -> Ws {
        let mut ws = Ws::connect(addr).await;
        let ack = ws.request("user.subscribe", json!({})).await;
        assert_eq!(ack["type"], "response", "{ack}");
        ws
    }

    pub async fn send_text(&mut self, text: &str) {
        self.socket
            .send(Message::text(text.to_string()))
            .await
            .expect("send");
    }

    pub async fn send_binary(&mut self, bytes: &[u8]) {
        self.socket
            .send(Message::binary(bytes.to_vec()))
            .await
            .expect("send");
    }

    /// The next text frame from the socket, as sent; `None` once closed.
    pub async fn next_text(&mut self) -> Option<String> {
        if self.closed {
            return None;
        }
        loop {
            let next = tokio::time::timeout(PATIENCE, self.socket.next())
                .await
                .expect("timed out waiting for a frame");
            match next {
                Some(Ok(Message::Text(text))) => return Some(text.to_string()),
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => {
                    self.closed = true;
                    return None;
                }
                Some(Ok(_)) => {}
            }
        }
    }

    /// The next envelope from the socket (not the backlog): a frame may
    /// carry several, one per line; `None` once closed.
    async fn read(&mut self) -> Option<Value> {
        if let Some(envelope) = self.unread.pop_front() {
            return Some(envelope);
        }
        let text = self.next_text().await?;
        self.unread = text
            .split('\n')
            .map(|part| serde_json::from_str(part).expect("server sent JSON"))
            .collect();
        self.unread.pop_front()
    }

    /// The next frame, backlog first; `None` once closed.
    pub async fn next(&mut self) -> Option<Value> {
        match self.backlog.pop_front() {
            Some(v) => Some(v),
            None => self.read().await,
        }
    }

    /// Sends a request with a fresh id and returns its response or error;
    /// notifications that arrive first go to the backlog.
    pub async fn request(&mut self, action: &str, payload: Value) -> Value {
        self.next_id += 1;
        let id = format!("req-{}", self.next_id);
        let frame = json!({"id": id, "type": "request", "action": action, "payload": payload});
        self.send_text(&frame.to_string()).await;
        self.reply_to(&id).await
    }

    /// Waits for the response or error that echoes `id`.
    pub async fn reply_to(&mut self, id: &str) -> Value {
        loop {
            let frame = self
                .read()
                .await
                .expect("connection closed before the reply");
            if frame["id"] == id {
                return frame;
            }
            self.backlog.push_back(frame);
        }
    }

    /// Reads (backlog first) until a frame satisfies `pred`; returns every
    /// frame read, the matching one last.
    pub async fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut seen = Vec::new();
        while let Some(frame) = self.next().await {
            let done = pred(&frame);
            seen.push(frame);
            if done {
                return seen;
            }
        }
        panic!("connection closed before the awaited frame; got {seen:?}");
    }

    pub async fn close(mut self) {
        let _ = self.socket.close(None).await;
    }
}

/// The marker the routing tests end their injections with.
pub fn is_marker(frame: &Value, title: &str) -> bool {
    frame["action"] == "task.updated" && frame["payload"]["title"] == title
}

/// GET with extra request headers: status, response headers, raw body.
pub async fn fetch(
    server: &RunningServer,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, HeaderMap, Vec<u8>) {
    let mut request = reqwest::Client::new().get(format!("http://{}{path}", server.addr()));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.bytes().await.unwrap().to_vec())
}

/// A response header as text.
pub fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap())
}

/// A gzip body, decoded.
pub fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// A brotli body, decoded.
pub fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(bytes, 4096)
        .read_to_end(&mut out)
        .unwrap();
    out
}
