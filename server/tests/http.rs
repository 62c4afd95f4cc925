//! HTTP integration tests against a server on an ephemeral port.

mod common;

use common::*;
use serde_json::Value;
use taskview_server::{serve, Config, StartError};

const REVIEW: &str = "/api/v1/task-sessions/sess-demo-review/messages";

fn m(range: std::ops::RangeInclusive<u32>) -> Vec<String> {
    range.map(|n| format!("m{n:03}")).collect()
}

fn rev(mut v: Vec<String>) -> Vec<String> {
    v.reverse();
    v
}

#[tokio::test]
async fn pagination_boundaries() {
    let server = start(config(demo())).await;
    let addr = server.addr();
    // (query, ids, has_more, cursor)
    let cases: Vec<(&str, Vec<String>, bool, Value)> = vec![
        ("", m(1..=20), false, "m020".into()),
        ("?sort=asc&limit=5", m(1..=5), true, "m005".into()),
        (
            "?sort=asc&limit=5&after=m005",
            m(6..=10),
            true,
            "m010".into(),
        ),
        (
            "?sort=asc&limit=5&after=m015",
            m(16..=20),
            false,
            "m020".into(),
        ),
        ("?sort=desc&limit=5", rev(m(16..=20)), true, "m016".into()),
        (
            "?sort=desc&limit=5&before=m016",
            rev(m(11..=15)),
            true,
            "m011".into(),
        ),
        (
            "?sort=desc&limit=5&before=m006",
            rev(m(1..=5)),
            false,
            "m001".into(),
        ),
        ("?sort=desc&before=m001", vec![], false, Value::Null),
        ("?sort=asc&after=m020", vec![], false, Value::Null),
        ("?limit=20", m(1..=20), false, "m020".into()),
        ("?limit=19", m(1..=19), true, "m019".into()),
        ("?limit=0", m(1..=20), false, "m020".into()),
        ("?after=m003&before=m008", m(4..=7), false, "m007".into()),
        (
            "?after=m003&before=m008&sort=desc&limit=2",
            rev(m(6..=7)),
            true,
            "m006".into(),
        ),
        ("?after=m008&before=m003", vec![], false, Value::Null),
    ];
    for (query, expected, has_more, cursor) in cases {
        let (status, page) = get(addr, &format!("{REVIEW}{query}")).await;
        assert_eq!(status, 200, "{query}");
        assert_eq!(page_ids(&page), expected, "{query}");
        assert_eq!(page["has_more"], has_more, "{query}");
        assert_eq!(page["cursor"], cursor, "{query}");
        assert_eq!(page["total"], expected.len(), "{query}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn walking_back_with_cursors_visits_every_message_once() {
    let server = start(config(demo())).await;
    let mut seen = Vec::new();
    let mut query = "?sort=desc&limit=7".to_string();
    loop {
        let (_, page) = get(server.addr(), &format!("{REVIEW}{query}")).await;
        seen.extend(page_ids(&page));
        if page["has_more"] == false {
            break;
        }
        query = format!(
            "?sort=desc&limit=7&before={}",
            page["cursor"].as_str().unwrap()
        );
    }
    assert_eq!(seen, rev(m(1..=20)));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn bad_paging_parameters_are_errors_with_codes() {
    let server = start(config(demo())).await;
    let addr = server.addr();
    for (path, status, code) in [
        (format!("{REVIEW}?limit=abc"), 400, "VALIDATION_ERROR"),
        (format!("{REVIEW}?limit=-1"), 400, "VALIDATION_ERROR"),
        (format!("{REVIEW}?sort=sideways"), 400, "VALIDATION_ERROR"),
        (format!("{REVIEW}?before=m999"), 404, "NOT_FOUND"),
        (
            "/api/v1/task-sessions/nope/messages".to_string(),
            404,
            "NOT_FOUND",
        ),
        (
            "/api/v1/task-sessions/nope/turns".to_string(),
            404,
            "NOT_FOUND",
        ),
        ("/api/v1/tasks/nope".to_string(), 404, "NOT_FOUND"),
        (
            "/api/v1/workflows/nope/snapshot".to_string(),
            404,
            "NOT_FOUND",
        ),
        ("/api/v1/no/such/endpoint".to_string(), 404, "NOT_FOUND"),
    ] {
        let (got, body) = get(addr, &path).await;
        assert_eq!(
            (got, body["code"].as_str()),
            (status, Some(code)),
            "{path}: {body}"
        );
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn board_task_and_session_lookups() {
    let server = start(config(demo())).await;
    let addr = server.addr();
    let (_, list) = get(addr, "/api/v1/workflows").await;
    assert_eq!(list["total"], 1);
    assert_eq!(list["workflows"][0]["id"], "wf-demo");
    let (_, other) = get(addr, "/api/v1/workflows?workspace_id=elsewhere").await;
    assert_eq!(other["total"], 0);
    let (_, mine) = get(addr, "/api/v1/workflows?workspace_id=ws-demo").await;
    assert_eq!(mine["total"], 1);

    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-demo/snapshot").await;
    assert_eq!(snapshot["workflow"]["name"], "Demo board");
    assert_eq!(snapshot["steps"].as_array().unwrap().len(), 4);
    let tasks = snapshot["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 7);
    for task in tasks {
        assert!(task["active_subagent_count"].is_u64(), "{task}");
        assert!(task.get("id").is_some() && task.get("task_id").is_none());
    }

    let (_, task) = get(addr, "/api/v1/tasks/task-demo-review").await;
    assert_eq!(task["primary_session_id"], "sess-demo-review");
    assert_eq!(task["active_subagent_count"], 0);
    let (_, todo) = get(addr, "/api/v1/tasks/task-demo-todo").await;
    assert_eq!(todo["primary_session_id"], Value::Null);

    for prefix in ["task-sessions", "agent-sessions"] {
        let (_, session) = get(addr, &format!("/api/v1/{prefix}/sess-demo-review")).await;
        assert_eq!(session["task_id"], "task-demo-review");
        assert_eq!(session["state"], "WAITING_FOR_INPUT");
        assert_eq!(session["message_count"], 20);
        let (_, page) = get(
            addr,
            &format!("/api/v1/{prefix}/sess-demo-review/messages?limit=1"),
        )
        .await;
        assert_eq!(page_ids(&page), ["m001"]);
    }
    let (_, sessions) = get(addr, "/api/v1/tasks/task-demo-review/sessions").await;
    assert_eq!(sessions["total"], 1);

    let (_, turns) = get(addr, "/api/v1/task-sessions/sess-demo-review/turns").await;
    assert_eq!(turns["total"], 2);
    assert_eq!(turns["turns"][1]["id"], "turn-2");
    assert!(turns["turns"][1]["completed_at"].is_string());
    let (_, scenario) = get(addr, "/api/v1/scenario").await;
    assert_eq!(scenario["name"], "demo");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn messages_keep_the_list_shape_of_the_fixture() {
    let server = start(config(demo())).await;
    let (_, page) = get(server.addr(), &format!("{REVIEW}?after=m012&limit=1")).await;
    let subagent = &page["messages"][0];
    assert_eq!(subagent["id"], "m013");
    assert_eq!(subagent["session_id"], "sess-demo-review");
    assert_eq!(subagent["type"], "tool_call");
    assert_eq!(subagent["metadata"]["normalized"]["kind"], "subagent_task");
    let payload = &subagent["metadata"]["normalized"]["subagent_task"];
    assert_eq!(payload["subagent_type"], "code-reviewer");
    assert!(payload["result_text"].as_str().unwrap().contains('\n'));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_loopback_page_of_another_port_reads_the_api_with_credentials_once_named() {
    // docs/behaviour.md §7 "Who may read": another loopback port is another
    // origin (a local dev server, kandev's web client); --allow-origin names it.
    let ask = |addr: std::net::SocketAddr| async move {
        reqwest::Client::new()
            .get(format!("http://{addr}/api/v1/workflows"))
            .header("Origin", "http://localhost:5173")
            .send()
            .await
            .unwrap()
    };
    let server = start(config(demo())).await;
    assert_eq!(ask(server.addr()).await.status(), 403, "not named: refused");
    server.shutdown().await.unwrap();

    let mut named = config(demo());
    named.access.allow_origins = vec!["http://localhost:5173".parse().unwrap()];
    let server = start(named).await;
    let response = ask(server.addr()).await;
    let allowed = response
        .headers()
        .get("access-control-allow-origin")
        .unwrap();
    assert_eq!(allowed, "http://localhost:5173");
    let credentials = response.headers().get("access-control-allow-credentials");
    assert_eq!(
        credentials.unwrap(),
        "true",
        "kandev's client sends its cookies"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_app_is_served_with_an_spa_fallback() {
    let dist = TempDir::new("dist");
    dist.write("index.html", "<!doctype html><title>taskview</title>");
    dist.write("app.js", "console.log('hi')");
    let server = start(Config {
        dist: Some(dist.0.clone()),
        ..config(demo())
    })
    .await;
    let fetch = |path: &'static str| {
        let url = format!("http://{}{path}", server.addr());
        async move {
            let r = reqwest::get(url).await.unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    };
    assert_eq!(fetch("/app.js").await, (200, "console.log('hi')".into()));
    for path in [
        "/",
        "/board/wf-demo",
        "/task/task-demo-wave",
        "/embed/task/x",
    ] {
        let (status, body) = fetch(path).await;
        assert_eq!(status, 200, "{path}");
        assert!(body.contains("<title>taskview</title>"), "{path}");
    }
    // API paths never fall back to the app, and neither do missing files.
    assert_eq!(fetch("/api/v1/nope").await.0, 404);
    assert_eq!(fetch("/e2e/missing.json").await.0, 404);
    assert_eq!(fetch("/view").await.0, 200);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_dist_only_the_api_is_served() {
    let server = start(config(demo())).await;
    let response = reqwest::get(format!("http://{}/board/x", server.addr()))
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 404);
    assert!(response.text().await.unwrap().contains("--no-dist"));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn start_up_errors_are_clear() {
    let missing = std::env::temp_dir().join("taskview-test-no-such-dist");
    let err = serve(Config {
        dist: Some(missing.clone()),
        ..config(demo())
    })
    .await
    .err()
    .unwrap();
    assert!(matches!(err, StartError::MissingDist(_)));
    assert!(err.to_string().contains("--no-dist"), "{err}");

    let empty = TempDir::new("empty-dist");
    let err = serve(Config {
        dist: Some(empty.0.clone()),
        ..config(demo())
    })
    .await
    .err()
    .unwrap();
    assert!(matches!(err, StartError::MissingIndex(_)), "{err}");

    let err = serve(config(taskview_server::Source::Recordings {
        dirs: vec![missing],
        watching: taskview_server::sources::recordings::Watching::every(
            std::time::Duration::from_millis(100),
        ),
    }))
    .await
    .err()
    .unwrap();
    assert!(matches!(err, StartError::MissingRecordings(_)), "{err}");

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let err = serve(Config {
        addr: taken.local_addr().unwrap(),
        ..config(demo())
    })
    .await
    .err()
    .unwrap();
    assert!(matches!(err, StartError::Bind(..)), "{err}");
    assert!(err.to_string().contains("cannot listen"), "{err}");
}
