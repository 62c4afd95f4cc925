//! What the server logs (docs/security.md): at `--log debug` every request
//! is logged with its URI, never with the token in it (`/?token=…`,
//! `/ws?token=…`, `/v1/traces?token=…`); a page of a refused origin is
//! logged with the exact flag that would allow it. One test: the log is the
//! process's.

mod common;

use common::wire::{get, ws_status, API};
use common::*;
use std::io::Write;
use std::sync::{Arc, Mutex};
use taskview_server::access::{Access, TokenRule};
use taskview_server::{Config, OtlpConfig};

const TOKEN: &str = "s3cret-token-1234";

/// Everything logged, kept.
#[derive(Clone, Default)]
struct Kept(Arc<Mutex<Vec<u8>>>);

impl Write for Kept {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_token_is_never_logged_and_a_refused_origin_names_its_flag() {
    let kept = Kept::default();
    let writer = kept.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    let telemetry = TempDir::new("logging-otlp");
    let server = start(Config {
        addr: "0.0.0.0:0".parse().unwrap(),
        access: Access {
            token: TokenRule::Given(TOKEN.parse().unwrap()),
            ..Access::default()
        },
        otlp: OtlpConfig {
            dir: Some(telemetry.0.clone()),
            ..Default::default()
        },
        ..config(quiet())
    })
    .await;
    let addr = server.addr();
    assert_eq!(
        get(addr, &format!("/?token={TOKEN}"), &[]).await.status,
        303
    );
    assert_eq!(
        get(addr, &format!("{API}?token={TOKEN}"), &[]).await.status,
        303
    );
    assert_eq!(
        ws_status(addr, &format!("/ws?token={TOKEN}"), &[]).await,
        101
    );
    let posted = reqwest::Client::new()
        .post(format!(
            "http://127.0.0.1:{}/v1/traces?token={TOKEN}",
            addr.port()
        ))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status().as_u16(), 200);
    let refused = get(addr, API, &[("Origin", "http://localhost:3000")]).await;
    assert_eq!(refused.status, 403);
    server.shutdown().await.unwrap();

    let log = String::from_utf8(kept.0.lock().unwrap().clone()).unwrap();
    for path in [
        "/ws?token=…",
        "/v1/traces?token=…",
        "/api/v1/workflows?token=…",
    ] {
        assert!(log.contains(path), "{path} is logged, hidden: {log}");
    }
    assert!(!log.contains(TOKEN), "the token is in the log: {log}");
    assert!(
        log.contains("to let it read, start taskview with --allow-origin http://localhost:3000"),
        "{log}"
    );
}
