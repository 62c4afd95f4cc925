//! Who may read (docs/behaviour.md §7): the Host allow-list, the origins granted CORS
//! and WebSockets, and the token beyond loopback, on every kind of route
//! (the app's files, `/api`, `/ws`, the fallback). Requests are written by
//! hand so that `Host`, `Origin` and the rest are exactly what a test says.

mod common;

use common::*;
use std::net::SocketAddr;
use taskview_server::access::{Access, TokenRule};
use taskview_server::{Config, RunningServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};

const API: &str = "/api/v1/workflows";
const EVIL: &str = "https://evil.example";

/// A response read off the wire.
struct Reply {
    status: u16,
    head: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.head
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `request` (a whole HTTP/1 request head) and reads the reply until
/// the server closes.
async fn raw(addr: SocketAddr, request: &str) -> Reply {
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
async fn send(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
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

async fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Reply {
    send(addr, "GET", path, headers).await
}

/// A browser's preflight for a GET with an `Authorization` header.
async fn preflight(addr: SocketAddr, origin: &str) -> Reply {
    let headers = [
        ("Origin", origin),
        ("Access-Control-Request-Method", "GET"),
        ("Access-Control-Request-Headers", "authorization"),
    ];
    send(addr, "OPTIONS", API, &headers).await
}

/// The status of a WebSocket handshake on `/ws` with these headers.
async fn ws_status(addr: SocketAddr, path_and_query: &str, headers: &[(&str, &str)]) -> u16 {
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

/// A server with a tiny app (`index.html`, `app.js`) and these rules.
async fn serve_app(addr: &str, access: Access) -> (RunningServer, TempDir) {
    let dist = TempDir::new("access");
    dist.write("index.html", "<!doctype html><title>taskview</title>");
    dist.write("app.js", "console.log('app')");
    let server = start(Config {
        addr: addr.parse().unwrap(),
        dist: Some(dist.0.clone()),
        access,
        ..config(quiet())
    })
    .await;
    (server, dist)
}

/// The routes of every kind: app page, app file, API, SPA fallback.
const ROUTES: [&str; 4] = ["/", "/app.js", API, "/task/task-7c1e"];

#[tokio::test]
async fn a_foreign_host_is_refused_on_app_api_and_ws_routes() {
    let (server, _dist) = serve_app("127.0.0.1:0", Access::default()).await;
    let addr = server.addr();
    for host in [
        "evil.example",
        &format!("evil.example:{}", addr.port()),
        "localhost.evil.example",
        "0.0.0.0",
        "127.0.0.1.nip.io",
        "",
    ] {
        for path in ROUTES.into_iter().chain(["/ws"]) {
            let reply = get(addr, path, &[("Host", host)]).await;
            assert_eq!(reply.status, 403, "{host} {path}: {}", reply.body);
            assert!(reply.body.starts_with("taskview: Host"), "{}", reply.body);
            assert!(reply.body.contains("--allow-host"), "{}", reply.body);
            assert_eq!(reply.body.lines().count(), 1, "one line: {}", reply.body);
        }
        assert_eq!(
            ws_status(addr, "/ws", &[("Host", host)]).await,
            403,
            "{host}"
        );
    }
    // An absolute request-target names the host too, whatever `Host` says.
    let reply = raw(
        addr,
        &format!(
            "GET http://evil.example{API} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            addr.port()
        ),
    )
    .await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_fallback_of_a_server_without_app_files_is_guarded_too() {
    let server = start(config(quiet())).await;
    let reply = get(server.addr(), "/anything", &[("Host", "evil.example")]).await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    let reply = get(server.addr(), "/anything", &[]).await;
    assert_eq!(reply.status, 404, "{}", reply.body);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn loopback_names_on_any_port_and_the_bound_address_are_served() {
    let (server, _dist) = serve_app("127.0.0.1:0", Access::default()).await;
    let addr = server.addr();
    let bound = addr.to_string();
    for host in [
        "localhost",
        "localhost:3000",
        "LocalHost.:80",
        "app.localhost:8080",
        "127.0.0.1",
        "127.4.5.6:9",
        "[::1]:8080",
        &bound,
    ] {
        for path in ROUTES {
            let reply = get(addr, path, &[("Host", host)]).await;
            assert_eq!(reply.status, 200, "{host} {path}: {}", reply.body);
        }
        assert_eq!(
            ws_status(addr, "/ws", &[("Host", host)]).await,
            101,
            "{host}"
        );
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn names_given_with_allow_host_are_served_and_no_others() {
    let access = Access {
        allow_hosts: vec!["tv.example".parse().unwrap(), "10.1.2.3".parse().unwrap()],
        ..Access::default()
    };
    let (server, _dist) = serve_app("127.0.0.1:0", access).await;
    let addr = server.addr();
    for host in ["tv.example", "TV.example:8443", "10.1.2.3:80"] {
        for path in ROUTES {
            assert_eq!(
                get(addr, path, &[("Host", host)]).await.status,
                200,
                "{host}"
            );
        }
        assert_eq!(
            ws_status(addr, "/ws", &[("Host", host)]).await,
            101,
            "{host}"
        );
    }
    for host in ["www.tv.example", "tv.example.evil", "10.1.2.4"] {
        assert_eq!(
            get(addr, API, &[("Host", host)]).await.status,
            403,
            "{host}"
        );
    }
    server.shutdown().await.unwrap();
}

/// No browser sends a request without `Host`, so DNS rebinding cannot
/// make one: HTTP/1.0 tools that leave it out are served (the token rule
/// still holds).
#[tokio::test]
async fn a_request_without_host_passes_the_host_rule_but_not_the_token_rule() {
    let (server, _dist) = serve_app("127.0.0.1:0", Access::default()).await;
    let reply = raw(server.addr(), &format!("GET {API} HTTP/1.0\r\n\r\n")).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.body.contains("wf-1"), "{}", reply.body);
    server.shutdown().await.unwrap();

    let (server, _dist) = serve_app("0.0.0.0:0", Access::default()).await;
    let reply = raw(server.addr(), &format!("GET {API} HTTP/1.0\r\n\r\n")).await;
    assert_eq!(reply.status, 401, "{}", reply.body);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn foreign_and_null_origins_get_no_cors_grant_on_get_and_preflight() {
    let (server, _dist) = serve_app("127.0.0.1:0", Access::default()).await;
    let addr = server.addr();
    for origin in [
        EVIL,
        "null",
        "http://evil.example:8080",
        "http://localhost.evil.example",
        "http://127.0.0.1.evil.example",
        "file://",
        "chrome-extension://abc",
    ] {
        for path in ROUTES {
            let reply = get(addr, path, &[("Origin", origin)]).await;
            assert_eq!(reply.status, 403, "{origin} {path}");
            assert_eq!(
                reply.header("access-control-allow-origin"),
                None,
                "{origin}"
            );
            assert_eq!(reply.header("access-control-allow-credentials"), None);
            assert!(reply.body.contains("--allow-origin"), "{}", reply.body);
        }
        let reply = preflight(addr, origin).await;
        assert_eq!(reply.status, 403, "{origin}");
        assert_eq!(
            reply.header("access-control-allow-origin"),
            None,
            "{origin}"
        );
        assert_eq!(
            reply.header("access-control-allow-methods"),
            None,
            "{origin}"
        );
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn loopback_own_and_allowed_origins_get_a_grant_for_exactly_their_origin() {
    let access = Access {
        allow_origins: vec!["https://kandev.example".parse().unwrap()],
        allow_hosts: vec!["tv.example".parse().unwrap()],
        ..Access::default()
    };
    let (server, _dist) = serve_app("127.0.0.1:0", access).await;
    let addr = server.addr();
    let own = format!("http://127.0.0.1:{}", addr.port());
    for origin in [
        "http://localhost:5173",
        "http://127.0.0.1:9",
        "http://app.localhost:3000",
        "http://[::1]:3000",
        "https://kandev.example",
        &own,
    ] {
        let reply = get(addr, API, &[("Origin", origin)]).await;
        assert_eq!(reply.status, 200, "{origin}: {}", reply.body);
        assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
        assert_eq!(
            reply.header("access-control-allow-credentials"),
            Some("true")
        );
        let reply = preflight(addr, origin).await;
        assert_eq!(reply.status, 204, "{origin}");
        assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
        assert_eq!(
            reply.header("access-control-allow-methods"),
            Some("GET, HEAD, OPTIONS")
        );
        assert_eq!(
            reply.header("access-control-allow-headers"),
            Some("authorization")
        );
    }
    // The app's own origin is its Host, whatever name that is.
    let reply = get(
        addr,
        API,
        &[
            ("Host", "tv.example:8443"),
            ("Origin", "https://tv.example:8443"),
        ],
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    // --allow-origin is exact: not another port, scheme or subdomain.
    for origin in [
        "https://kandev.example:8443",
        "http://kandev.example",
        "https://www.kandev.example",
        // Not its own origin: another port of the same name.
        "https://tv.example:9999",
    ] {
        let reply = get(
            addr,
            API,
            &[("Host", "tv.example:8443"), ("Origin", origin)],
        )
        .await;
        assert_eq!(reply.status, 403, "{origin}");
    }
    // Requests without Origin (curl, same-origin navigations) need no grant.
    let reply = get(addr, API, &[]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("access-control-allow-origin"), None);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn websocket_upgrades_are_refused_for_foreign_and_null_origins() {
    let access = Access {
        allow_origins: vec!["https://kandev.example".parse().unwrap()],
        ..Access::default()
    };
    let (server, _dist) = serve_app("127.0.0.1:0", access).await;
    let addr = server.addr();
    for origin in [
        EVIL,
        "null",
        "https://kandev.example:444",
        "http://evil.localhost.example",
    ] {
        assert_eq!(
            ws_status(addr, "/ws", &[("Origin", origin)]).await,
            403,
            "{origin}"
        );
    }
    let own = format!("http://127.0.0.1:{}", addr.port());
    for origin in [
        "http://localhost:3000",
        "https://kandev.example",
        own.as_str(),
    ] {
        assert_eq!(
            ws_status(addr, "/ws", &[("Origin", origin)]).await,
            101,
            "{origin}"
        );
    }
    // And a granted socket works.
    let mut ws = Ws::connect_registered(addr).await;
    let reply = ws
        .request(
            "task.subscribe",
            serde_json::json!({"task_id": "task-7c1e"}),
        )
        .await;
    assert_eq!(reply["type"], "response");
    ws.close().await;
    server.shutdown().await.unwrap();
}

/// A server bound to every interface: the token is needed, though the
/// tests reach it through loopback.
async fn beyond_loopback() -> (RunningServer, TempDir, String) {
    let (server, dist) = serve_app("0.0.0.0:0", Access::default()).await;
    let token = server
        .token()
        .expect("a token is made beyond loopback")
        .to_string();
    (server, dist, token)
}

#[tokio::test]
async fn beyond_loopback_nothing_is_served_without_the_token() {
    let (server, _dist, token) = beyond_loopback().await;
    let addr = server.addr();
    assert_eq!(token.len(), 48);
    assert_eq!(
        server.url(),
        format!("http://127.0.0.1:{}/?token={token}", addr.port())
    );
    for path in ROUTES.into_iter().chain(["/ws"]) {
        let reply = get(addr, path, &[]).await;
        assert_eq!(reply.status, 401, "{path}");
        assert_eq!(
            reply.header("www-authenticate"),
            Some("Bearer realm=\"taskview\"")
        );
        assert!(
            reply.body.contains("open the URL taskview printed"),
            "{}",
            reply.body
        );
        assert!(!reply.body.contains(&token), "{}", reply.body);
    }
    assert_eq!(ws_status(addr, "/ws", &[]).await, 401);
    // The Host and Origin rules hold before the token is asked for.
    assert_eq!(
        get(addr, API, &[("Host", "evil.example")]).await.status,
        403
    );
    assert_eq!(get(addr, API, &[("Origin", EVIL)]).await.status, 403);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_token_in_the_url_sets_a_strict_httponly_cookie_and_is_dropped_from_the_url() {
    let (server, _dist, token) = beyond_loopback().await;
    let addr = server.addr();
    let reply = get(addr, &format!("/?token={token}"), &[]).await;
    assert_eq!(reply.status, 303);
    assert_eq!(reply.header("location"), Some("/"));
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    let cookie = reply.header("set-cookie").expect("a cookie").to_string();
    let name = format!("taskview-token-{}", addr.port());
    assert_eq!(
        cookie,
        format!("{name}={token}; Path=/; HttpOnly; SameSite=Strict")
    );
    // The rest of the URL is kept as it was.
    let reply = get(
        addr,
        &format!("/task/task-7c1e?api=http%3A%2F%2F127.0.0.1%3A9&token={token}&debug"),
        &[],
    )
    .await;
    assert_eq!(
        reply.header("location"),
        Some("/task/task-7c1e?api=http%3A%2F%2F127.0.0.1%3A9&debug")
    );
    // The redirect never leaves this server.
    let reply = get(addr, &format!("//evil.example/x?token={token}"), &[]).await;
    assert_eq!(reply.header("location"), Some("/evil.example/x"));
    // The cookie opens everything, the socket included.
    let jar = format!("other=1; {name}={token}");
    for path in ROUTES {
        let reply = get(addr, path, &[("Cookie", &jar)]).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    }
    assert_eq!(ws_status(addr, "/ws", &[("Cookie", &jar)]).await, 101);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_bearer_token_reads_the_api_and_opens_the_websocket() {
    let (server, _dist, token) = beyond_loopback().await;
    let addr = server.addr();
    let bearer = format!("Bearer {token}");
    let reply = get(addr, API, &[("Authorization", &bearer)]).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.body.contains("wf-1"));
    assert_eq!(
        ws_status(addr, "/ws", &[("Authorization", &bearer)]).await,
        101
    );
    // A client that cannot set headers on a WebSocket puts it in the URL.
    assert_eq!(
        ws_status(addr, &format!("/ws?token={token}"), &[]).await,
        101
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_wrong_token_is_refused_however_it_is_sent() {
    let (server, _dist, token) = beyond_loopback().await;
    let addr = server.addr();
    // The token with its last character changed.
    let last = if token.ends_with('0') { '1' } else { '0' };
    let wrong = format!("{}{last}", &token[..47]);
    let cookie = format!("taskview-token-{}={wrong}", addr.port());
    let bearer = format!("Bearer {wrong}");
    for (path, headers) in [
        (format!("/?token={wrong}"), vec![]),
        (format!("{API}?token={token}x"), vec![]),
        (API.to_string(), vec![("Authorization", bearer.as_str())]),
        (API.to_string(), vec![("Authorization", "Bearer")]),
        (API.to_string(), vec![("Cookie", cookie.as_str())]),
        // A cookie of another server on this host is not this one's.
        (API.to_string(), vec![("Cookie", "taskview-token-1=x")]),
    ] {
        let reply = get(addr, &path, &headers).await;
        assert_eq!(reply.status, 401, "{path} {headers:?}");
        assert_eq!(reply.header("set-cookie"), None);
    }
    assert_eq!(
        ws_status(addr, "/ws", &[("Authorization", &bearer)]).await,
        401
    );
    assert_eq!(
        ws_status(addr, &format!("/ws?token={wrong}"), &[]).await,
        401
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn on_loopback_no_token_is_needed_unless_one_is_given() {
    let (server, _dist) = serve_app("127.0.0.1:0", Access::default()).await;
    assert_eq!(server.token(), None);
    assert_eq!(
        server.url(),
        format!("http://127.0.0.1:{}/", server.addr().port())
    );
    server.shutdown().await.unwrap();

    let given = Access {
        token: TokenRule::Given("s3cret-token".parse().unwrap()),
        ..Access::default()
    };
    let (server, _dist) = serve_app("127.0.0.1:0", given).await;
    let addr = server.addr();
    assert_eq!(server.token(), Some("s3cret-token"));
    assert_eq!(get(addr, API, &[]).await.status, 401);
    let reply = get(addr, API, &[("Authorization", "Bearer s3cret-token")]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(get(addr, "/?token=s3cret-token", &[]).await.status, 303);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn no_auth_serves_beyond_loopback_without_a_token_but_keeps_host_and_origin_rules() {
    let off = Access {
        token: TokenRule::Off,
        ..Access::default()
    };
    let (server, _dist) = serve_app("0.0.0.0:0", off).await;
    let addr = server.addr();
    assert_eq!(server.token(), None);
    for path in ROUTES {
        assert_eq!(get(addr, path, &[]).await.status, 200, "{path}");
    }
    assert_eq!(ws_status(addr, "/ws", &[]).await, 101);
    assert_eq!(
        get(addr, API, &[("Host", "evil.example")]).await.status,
        403
    );
    assert_eq!(get(addr, API, &[("Origin", "null")]).await.status, 403);
    assert_eq!(ws_status(addr, "/ws", &[("Origin", EVIL)]).await, 403);
    server.shutdown().await.unwrap();
}
