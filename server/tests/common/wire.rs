//! Requests written by hand, so that `Host`, `Origin` and the rest are
//! exactly what a test says, and WebSocket handshakes with chosen headers.

use super::PATIENCE;
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};

/// An API path every server answers.
pub const API: &str = "/api/v1/workflows";

/// A response read off the wire.
pub struct Reply {
    pub status: u16,
    pub head: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `request` (a whole HTTP/1 request head) and reads the reply until
/// the server closes.
pub async fn raw(addr: SocketAddr, request: &str) -> Reply {
    let mut stream = TcpStream::connect(("127.0.0.1", addr.port()))
        .await
        .unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut bytes = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut bytes))
        .await
        .expect("the server answers and closes")
        .unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a response head");
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let head = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    Reply {
        status,
        head,
        body: body.to_string(),
    }
}

/// `method path` with these headers (a `Host` of 127.0.0.1:port unless given).
pub async fn send(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: 127.0.0.1:{}\r\n", addr.port()));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    raw(addr, &request).await
}

pub async fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Reply {
    send(addr, "GET", path, headers).await
}

/// A browser's preflight for a GET with an `Authorization` header.
pub async fn preflight(addr: SocketAddr, origin: &str) -> Reply {
    let headers = [
        ("Origin", origin),
        ("Access-Control-Request-Method", "GET"),
        ("Access-Control-Request-Headers", "authorization"),
    ];
    send(addr, "OPTIONS", API, &headers).await
}

/// The status of a WebSocket handshake on `/ws` with these headers.
pub async fn ws_status(addr: SocketAddr, path_and_query: &str, headers: &[(&str, &str)]) -> u16 {
    let url = format!("ws://127.0.0.1:{}{path_and_query}", addr.port());
    let mut request = url.into_client_request().unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((mut socket, response)) => {
            let _ = socket.close(None).await;
            response.status().as_u16()
        }
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(e) => panic!("handshake failed without a status: {e}"),
    }
}
