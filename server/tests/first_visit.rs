//! What a first visit to a task page gets (docs/behaviour.md §10): the API's JSON
//! compressed as the browser accepts, and the reads the page makes first
//! announced with the page (`Link: rel=preload`), so they travel with the
//! app's files; the page's caching is what it was.

mod common;

use common::*;
use reqwest::header::HeaderMap;
use serde_json::{json, Value};
use std::time::Duration;
use taskview_core::read::client::preload::{link_header, task_page_reads};
use taskview_server::{Config, RunningServer, Source};

const INDEX: &str = "<!doctype html><title>taskview</title>";
const TASK: &str = "task-demo-wave";

async fn serve_app(dist: &TempDir) -> RunningServer {
    start(Config {
        dist: Some(dist.0.clone()),
        ..config(demo())
    })
    .await
}

/// The demo task's primary session, as the API tells it.
async fn primary_session(server: &RunningServer) -> String {
    let (status, task) = get(server.addr(), &format!("/api/v1/tasks/{TASK}")).await;
    assert_eq!(status, 200, "{task}");
    task["primary_session_id"].as_str().unwrap().to_string()
}

/// A recording of `count` agent messages, as `taskview serve --recordings` reads it.
fn recording(count: usize) -> TempDir {
    let dir = TempDir::new("first-visit-recording");
    let messages: Vec<Value> = (0..count)
        .map(|n| {
            json!({"id": format!("m{n}"), "session_id": "s", "author_type": "agent",
                "type": "message", "content": format!("Step {n}: read the file and report."),
                "created_at": "2026-08-03T10:00:00Z"})
        })
        .collect();
    dir.write("long.json", json!({ "messages": messages }).to_string());
    dir
}

#[tokio::test]
async fn api_answers_are_compressed_as_the_client_accepts() {
    let folder = recording(500);
    let server = start(config(Source::Recordings {
        dirs: vec![folder.0.clone()],
        watching: taskview_server::sources::recordings::Watching::every(Duration::from_secs(60)),
    }))
    .await;
    let (status, task) = get(server.addr(), "/api/v1/tasks/rec-long-json").await;
    assert_eq!(status, 200, "{task}");
    let session = task["primary_session_id"].as_str().unwrap();
    let path = format!("/api/v1/task-sessions/{session}/messages?limit=1000");
    let (status, h, plain) = fetch(&server, &path, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(header(&h, "content-encoding"), None, "asked for nothing");
    let page: Value = serde_json::from_slice(&plain).unwrap();
    assert_eq!(page["messages"].as_array().unwrap().len(), 500);

    let (status, h, br) = fetch(&server, &path, &[("accept-encoding", "gzip, br")]).await;
    assert_eq!(status, 200);
    assert_eq!(header(&h, "content-encoding"), Some("br"), "brotli first");
    assert_eq!(header(&h, "vary"), Some("accept-encoding"));
    assert_eq!(unbrotli(&br), plain);
    assert!(
        br.len() * 4 < plain.len(),
        "{} of {} B",
        br.len(),
        plain.len()
    );

    let (_, h, gz) = fetch(&server, &path, &[("accept-encoding", "gzip")]).await;
    assert_eq!(header(&h, "content-encoding"), Some("gzip"));
    assert_eq!(gunzip(&gz), plain);

    // Every API answer, errors and other endpoints alike, but a tiny one.
    let turns = format!("/api/v1/task-sessions/{session}/turns");
    let (_, h, body) = fetch(&server, &turns, &[("accept-encoding", "br")]).await;
    assert_eq!(header(&h, "content-encoding"), None, "{body:?}");
    for path in [
        "/api/v1/workflows",
        "/api/v1/tasks/rec-long-json",
        "/api/v1/nothing-here",
    ] {
        let (_, h, body) = fetch(&server, path, &[("accept-encoding", "br")]).await;
        assert_eq!(header(&h, "content-encoding"), Some("br"), "{path}");
        let json: Value = serde_json::from_slice(&unbrotli(&body)).unwrap();
        assert!(json.is_object(), "{path}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_task_page_announces_the_reads_it_makes_first() {
    let dist = TempDir::new("first-visit");
    dist.write("index.html", INDEX);
    let server = serve_app(&dist).await;
    let session = primary_session(&server).await;
    let reads = task_page_reads(TASK, Some(&session));
    assert_eq!(reads.len(), 2, "the task and its newest messages");
    for route in [format!("/task/{TASK}"), format!("/embed/task/{TASK}?debug")] {
        let (status, h, body) = fetch(&server, &route, &[]).await;
        assert_eq!(status, 200, "{route}");
        assert!(body.starts_with(INDEX.as_bytes()), "{route}");
        assert_eq!(
            header(&h, "link"),
            Some(link_header(&reads).as_str()),
            "{route}"
        );
    }
    // The announced reads are real answers of this server.
    for read in &reads {
        let (status, body) = get(server.addr(), read).await;
        assert_eq!(status, 200, "{read}: {body}");
    }
    let (_, body) = get(server.addr(), &reads[1]).await;
    assert_eq!(body["messages"][0]["session_id"], session.as_str());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn only_task_pages_this_server_can_answer_announce_reads() {
    let dist = TempDir::new("first-visit-none");
    dist.write("index.html", INDEX);
    dist.write("favicon.svg", "<svg/>");
    let server = serve_app(&dist).await;
    for route in [
        "/",
        "/board/wf-demo",
        "/view?src=/x.json",
        "/task/no-such-task",
        "/task/task-demo-wave?api=http%3A%2F%2F127.0.0.1%3A9",
        "/favicon.svg",
    ] {
        let (status, h, _) = fetch(&server, route, &[]).await;
        assert_eq!(status, 200, "{route}");
        assert_eq!(header(&h, "link"), None, "{route}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_first_visit_leaves_the_pages_caching_and_policy_as_they_were() {
    let dist = TempDir::new("first-visit-cache");
    dist.write("index.html", INDEX);
    let server = serve_app(&dist).await;
    let (_, board, _) = fetch(&server, "/board/wf-demo", &[]).await;
    let task = format!("/task/{TASK}");
    let (_, page, _) = fetch(&server, &task, &[]).await;
    for name in [
        "cache-control",
        "content-security-policy",
        "x-content-type-options",
    ] {
        assert_eq!(header(&page, name), header(&board, name), "{name}");
    }
    assert_eq!(header(&page, "cache-control"), Some("no-cache"));
    let etag = header(&page, "etag").unwrap();
    let (status, revalidated, body) = fetch(&server, &task, &[("if-none-match", etag)]).await;
    assert_eq!((status, body.len()), (304, 0));
    assert_eq!(
        header(&revalidated, "link"),
        header(&page, "link"),
        "a revalidated page announces its reads too"
    );
    server.shutdown().await.unwrap();
}

/// The app's page as sent for `path` to a browser that accepts brotli, decoded.
async fn page(server: &RunningServer, path: &str) -> (HeaderMap, String) {
    let (status, h, body) = fetch(server, path, &[("accept-encoding", "gzip, br")]).await;
    assert_eq!(status, 200, "{path}");
    let body = match header(&h, "content-encoding") {
        Some("br") => unbrotli(&body),
        _ => body,
    };
    (h, String::from_utf8(body).unwrap())
}

#[tokio::test]
async fn a_task_page_comes_with_its_first_screen_of_the_newest_rows() {
    let dist = TempDir::new("first-screen");
    dist.write(
        "index.html",
        "<!doctype html><head><title>t</title></head><body></body>",
    );
    let folder = recording(500);
    let server = start(Config {
        dist: Some(dist.0.clone()),
        ..config(Source::Recordings {
            dirs: vec![folder.0.clone()],
            watching: taskview_server::sources::recordings::Watching::every(Duration::from_secs(
                60,
            )),
        })
    })
    .await;
    let (h, html) = page(&server, "/task/rec-long-json").await;
    assert_eq!(
        header(&h, "content-encoding"),
        Some("br"),
        "written per request"
    );
    let screen = html.split_once("<body>").map(|(_, body)| body).unwrap();
    assert!(
        screen.starts_with("<div id=\"first-screen\""),
        "first in <body>: {screen:.80}"
    );
    assert!(screen.contains("inert") && screen.contains("aria-hidden=\"true\""));
    // One screen of the newest messages, newest last, in the app's row slots.
    assert_eq!(screen.matches("class=\"row-slot\"").count(), 30);
    assert!(screen.contains("Step 499: read the file and report."));
    assert!(screen.contains("Step 470: read the file and report."));
    assert!(!screen.contains("Step 469:"), "older than the preview");
    assert!(screen.find("Step 498").unwrap() < screen.find("Step 499").unwrap());
    // The app's ids and test ids stay the app's.
    assert!(!screen.contains(" id=\"msg-") && screen.contains("data-first-screen-id=\"msg-m499\""));
    assert!(!screen.contains("data-testid="));
    assert_eq!(header(&h, "vary"), Some("accept-encoding"));
    // The embed form has no app chrome; a page elsewhere has no first screen.
    let (_, embed) = page(&server, "/embed/task/rec-long-json").await;
    assert!(embed.contains("first-screen") && !embed.contains("app-header"));
    assert!(html.contains("app-header"));
    for other in [
        "/",
        "/view",
        "/task/rec-long-json?api=http%3A%2F%2F127.0.0.1%3A9",
    ] {
        let (_, html) = page(&server, other).await;
        assert!(!html.contains("first-screen"), "{other}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_first_screen_writes_untrusted_text_as_text() {
    let dist = TempDir::new("first-screen-escape");
    dist.write("index.html", "<!doctype html><body></body>");
    let dir = TempDir::new("first-screen-hostile");
    let hostile = "<script>alert(1)</script><img src=x onerror=alert(2)> \" id=\"x";
    let messages = json!({"messages": [
        {"id": "m1", "session_id": "s", "author_type": "user", "type": "message",
         "content": hostile, "created_at": "2026-08-03T10:00:00Z"},
        {"id": "m2\"><b>", "session_id": "s", "author_type": "agent", "type": "tool_execute",
         "content": hostile, "created_at": "2026-08-03T10:00:01Z",
         "metadata": {"title": hostile, "status": "complete", "normalized": {"kind": "shell_exec",
            "shell_exec": {"command": hostile, "output": {"exit_code": 1, "stdout": hostile}}}}}
    ]});
    dir.write("evil.json", messages.to_string());
    let server = start(Config {
        dist: Some(dist.0.clone()),
        ..config(Source::Recordings {
            dirs: vec![dir.0.clone()],
            watching: taskview_server::sources::recordings::Watching::every(Duration::from_secs(
                60,
            )),
        })
    })
    .await;
    let (h, html) = page(&server, "/task/rec-evil-json").await;
    assert!(html.contains("first-screen"));
    for raw in ["<script", "<img", "<b>", "onerror=alert(2)>"] {
        assert!(!html.contains(raw), "{raw} reached the page as markup");
    }
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "shown as text"
    );
    assert!(!html.contains(" id=\"x"), "no attribute from the text");
    let csp = header(&h, "content-security-policy").unwrap();
    assert!(
        csp.contains("script-src 'self' 'wasm-unsafe-eval';"),
        "{csp}"
    );
    server.shutdown().await.unwrap();
}
