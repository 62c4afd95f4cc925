//! Who may read, against an attacker (docs/security.md "Token and cookie"):
//! two `Host` headers are a bad request, wrong tokens are answered slowly
//! without the delay holding the server, the cookie is not the token and
//! opens one server only, and it is `Secure` behind a trusted HTTPS proxy.

mod common;

use common::wire::{get, raw, API};
use common::*;
use std::time::{Duration, Instant};
use taskview_server::access::{Access, TokenRule};
use taskview_server::{Config, RunningServer};

const TOKEN: &str = "s3cret-token-1234";

async fn serve(addr: &str, access: Access) -> RunningServer {
    start(Config {
        addr: addr.parse().unwrap(),
        access,
        ..config(quiet())
    })
    .await
}

fn given(token: &str) -> Access {
    Access {
        token: TokenRule::Given(token.parse().unwrap()),
        ..Access::default()
    }
}

#[tokio::test]
async fn two_host_headers_are_a_bad_request() {
    let server = serve("127.0.0.1:0", Access::default()).await;
    let port = server.addr().port();
    let request = format!(
        "GET {API} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
    );
    let reply = raw(server.addr(), &request).await;
    assert_eq!(reply.status, 400, "{}", reply.body);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn wrong_tokens_in_a_row_are_answered_more_slowly_and_a_right_one_at_once() {
    let server = serve("127.0.0.1:0", given(TOKEN)).await;
    let addr = server.addr();
    let wrong = [("Authorization", "Bearer wrong-token-0000000")];
    let mut took = Vec::new();
    for _ in 0..4 {
        let started = Instant::now();
        assert_eq!(get(addr, API, &wrong).await.status, 401);
        took.push(started.elapsed());
    }
    for (n, least) in [100, 200, 400, 800].iter().enumerate() {
        assert!(
            took[n] >= Duration::from_millis(*least),
            "wrong token {n}: {:?}",
            took[n]
        );
    }
    let right = format!("Bearer {TOKEN}");
    let started = Instant::now();
    assert_eq!(
        get(addr, API, &[("Authorization", &right)]).await.status,
        200
    );
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "{:?}",
        started.elapsed()
    );
    // Cleared: the next wrong one waits the first delay again.
    let started = Instant::now();
    assert_eq!(get(addr, API, &wrong).await.status, 401);
    assert!(
        started.elapsed() < Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    server.shutdown().await.unwrap();
}

/// The delay is no lever: past 32 answers waiting at once, wrong tokens are
/// answered 429 at once, and a right one is never kept waiting.
#[tokio::test]
async fn many_wrong_tokens_at_once_are_answered_429_without_waiting() {
    let server = serve("127.0.0.1:0", given(TOKEN)).await;
    let addr = server.addr();
    let started = Instant::now();
    let wrong = (0..60).map(|_| async move {
        get(
            addr,
            API,
            &[("Authorization", "Bearer wrong-token-0000000")],
        )
        .await
        .status
    });
    let statuses = futures_util::future::join_all(wrong).await;
    let busy = statuses.iter().filter(|s| **s == 429).count();
    assert!(busy >= 20, "{statuses:?}");
    assert!(
        statuses.iter().all(|s| [401, 429].contains(s)),
        "{statuses:?}"
    );
    let right = format!("Bearer {TOKEN}");
    assert_eq!(
        get(addr, API, &[("Authorization", &right)]).await.status,
        200
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    server.shutdown().await.unwrap();
}

/// The `Set-Cookie` of a `?token=` visit with `headers`, as a `Cookie` pair.
async fn cookie_of(server: &RunningServer, headers: &[(&str, &str)]) -> (String, String) {
    let reply = get(server.addr(), &format!("/?token={TOKEN}"), headers).await;
    assert_eq!(reply.status, 303, "{}", reply.body);
    let set = reply.header("set-cookie").unwrap().to_string();
    (set.split(';').next().unwrap().to_string(), set)
}

#[tokio::test]
async fn the_cookie_of_one_server_does_not_open_another_with_the_same_token() {
    let one = serve("127.0.0.1:0", given(TOKEN)).await;
    let two = serve("127.0.0.1:0", given(TOKEN)).await;
    let (pair, _) = cookie_of(&one, &[]).await;
    assert_eq!(get(one.addr(), API, &[("Cookie", &pair)]).await.status, 200);
    // The same cookie under the other server's name, as a browser would send it there.
    let renamed = pair.replace(
        &one.addr().port().to_string(),
        &two.addr().port().to_string(),
    );
    assert_eq!(
        get(two.addr(), API, &[("Cookie", &renamed)]).await.status,
        401
    );
    assert_eq!(get(two.addr(), API, &[("Cookie", &pair)]).await.status, 401);
    one.shutdown().await.unwrap();
    two.shutdown().await.unwrap();
}

#[tokio::test]
async fn behind_a_trusted_https_proxy_the_cookie_is_host_prefixed_and_secure() {
    let https = [("X-Forwarded-Proto", "https")];
    // No trusted proxy: the header is anyone's, and ignored.
    let plain = serve("127.0.0.1:0", given(TOKEN)).await;
    let (_, set) = cookie_of(&plain, &https).await;
    assert!(
        !set.contains("Secure") && !set.starts_with("__Host-"),
        "{set}"
    );
    plain.shutdown().await.unwrap();
    let proxied = Access {
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..given(TOKEN)
    };
    let server = serve("127.0.0.1:0", proxied).await;
    let (pair, set) = cookie_of(&server, &https).await;
    assert!(
        set.starts_with(&format!("__Host-taskview-{}=", server.addr().port())),
        "{set}"
    );
    assert!(
        set.ends_with("; Path=/; HttpOnly; SameSite=Strict; Secure"),
        "{set}"
    );
    assert_eq!(
        get(server.addr(), API, &[("Cookie", &pair)]).await.status,
        200
    );
    let (_, set) = cookie_of(&server, &[]).await;
    assert!(
        !set.contains("Secure"),
        "plain HTTP through the proxy: {set}"
    );
    server.shutdown().await.unwrap();
}
