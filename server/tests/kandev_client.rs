//! What kandev's own web client needs from `taskview serve` (docs/protocol.md
//! §5.1): the board's read path from the workspace list to the snapshot, and
//! demo timestamps on one clock (its "running for" must read seconds).

mod common;

use common::*;
use serde_json::Value;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use taskview_core::model::time::parse_rfc3339;
use taskview_server::Source;

/// kandev's board bootstrap: `GET /api/v1/workspaces`, then the workflows of
/// the active workspace (with `include_hidden`), then each snapshot.
#[tokio::test]
async fn the_kandev_board_path_from_workspaces_to_snapshot_is_served() {
    let server = start(config(demo())).await;
    let addr = server.addr();
    let (status, list) = get(addr, "/api/v1/workspaces").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["total"], 1);
    let workspace = &list["workspaces"][0];
    assert_eq!(workspace["id"], "ws-demo");
    for key in ["name", "owner_id", "created_at", "updated_at"] {
        assert!(
            workspace[key].as_str().is_some_and(|v| !v.is_empty()),
            "{key}: {workspace}"
        );
    }
    let path = "/api/v1/workflows?workspace_id=ws-demo&include_hidden=true";
    let (status, workflows) = get(addr, path).await;
    assert_eq!(status, 200, "{workflows}");
    assert_eq!(workflows["workflows"][0]["id"], "wf-demo");
    assert_eq!(workflows["workflows"][0]["workspace_id"], "ws-demo");
    let (status, snapshot) = get(addr, "/api/v1/workflows/wf-demo/snapshot").await;
    assert_eq!(status, 200);
    assert_eq!(snapshot["tasks"].as_array().map(Vec::len), Some(7));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn each_source_lists_the_workspace_its_boards_belong_to() {
    let server = start(config(quiet())).await;
    let (_, list) = get(server.addr(), "/api/v1/workspaces").await;
    let ids: Vec<&str> = list["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["id"].as_str())
        .collect();
    assert_eq!(ids, ["ws-1"]);
    server.shutdown().await.unwrap();
}

fn wall_ms() -> i128 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    i128::try_from(since.as_millis()).unwrap()
}

/// Every `*_at` string of `v`, with the path that leads to it.
fn timestamps(v: &Value, path: &str, out: &mut Vec<(String, i128)>) {
    match v {
        Value::Object(map) => {
            for (key, value) in map {
                let here = format!("{path}.{key}");
                match value.as_str().and_then(parse_rfc3339) {
                    Some(ns) if key.ends_with("_at") => out.push((here, ns / 1_000_000)),
                    _ => timestamps(value, &here, out),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                timestamps(item, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The demo's clock starts at the wall time and runs `--speed` times as
/// fast: the tasks, sessions, turns and messages it serves, live and
/// finished, are dated between a day before the start and its clock's now,
/// and the live turn started when the server did (not months ago).
#[tokio::test]
async fn demo_timestamps_of_tasks_sessions_turns_and_messages_share_one_clock() {
    const SPEED: i128 = 4;
    let started = wall_ms();
    let server = start(config(Source::Demo {
        seed: 1,
        speed: SPEED as f64,
    }))
    .await;
    let addr = server.addr();
    let turns = "/api/v1/task-sessions/sess-demo-wave/turns";
    let live = wait_http(addr, turns, |t| t["total"].as_u64() > Some(0)).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut seen = Vec::new();
    let (_, snapshot) = get(addr, "/api/v1/workflows/wf-demo/snapshot").await;
    timestamps(&snapshot, "snapshot", &mut seen);
    for session in ["sess-demo-wave", "sess-demo-review", "sess-demo-done"] {
        for part in ["", "/turns", "/messages?limit=100"] {
            let path = format!("/api/v1/task-sessions/{session}{part}");
            let (status, body) = get(addr, &path).await;
            assert_eq!(status, 200, "{path}");
            timestamps(&body, &path, &mut seen);
        }
    }
    let clock_now = started + (wall_ms() - started) * SPEED + 1_000;
    let day_before = started - 86_400_000 - 1_000;
    assert!(seen.len() > 50, "{}", seen.len());
    for (path, at) in &seen {
        assert!(
            (day_before..=clock_now).contains(at),
            "{path} is {} s away from the demo's start",
            (at - started) / 1000
        );
    }
    let turn_start = parse_rfc3339(live["turns"][0]["started_at"].as_str().unwrap()).unwrap();
    let since_start = turn_start / 1_000_000 - started;
    assert!((-1_000..=10_000).contains(&since_start), "{since_start} ms");
    server.shutdown().await.unwrap();
}
