//! `--recordings` on OpenCode's data folder: each root session of its
//! SQLite store is a task (its subagents' sessions inside it), in progress
//! while its agent works with the chip counting the running subagents, read
//! again as the CLI writes the store (a writer in WAL mode, as OpenCode's);
//! the folder's other files are no tasks; each task carries its card's
//! facts (docs/behaviour.md §5).

mod common;

use common::*;
use rusqlite::{params, Connection};
use serde_json::{json, Value};
use std::time::Duration;
use taskview_server::sources::recordings::Watching;
use taskview_server::Source;

fn recordings(dir: &TempDir) -> Source {
    Source::Recordings {
        dirs: vec![dir.0.clone()],
        watching: Watching::every(Duration::from_millis(20)),
    }
}

const SNAPSHOT: &str = "/api/v1/workflows/wf-recordings/snapshot";

#[tokio::test]
async fn a_captured_store_is_one_finished_task_with_its_cards_and_the_folders_other_files_are_none()
{
    let dir = TempDir::new("opencode-captured");
    let db = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/captures/opencode-1.18.33/nested/opencode.db"
    ))
    .unwrap();
    dir.write("opencode.db", db);
    dir.write(
        "auth.json",
        r#"{"mock": {"type": "api", "key": "sk-secret"}}"#,
    );
    dir.write("log/2026-12-06.log", "INFO service=server started");
    let server = start(config(recordings(&dir))).await;
    let snapshot = wait_http(server.addr(), SNAPSHOT, |s| {
        s["tasks"][0]["session_facts"].is_object()
    })
    .await;
    let tasks = snapshot["tasks"].as_array().unwrap();
    assert_eq!(
        tasks.len(),
        1,
        "one root session; no task for auth.json or a log: {tasks:?}"
    );
    assert_eq!(tasks[0]["title"], "Scripted session");
    assert_eq!(tasks[0]["state"], "COMPLETED");
    let session = tasks[0]["primary_session_id"].as_str().unwrap();
    let messages = session_messages(server.addr(), session).await;
    let cards: Vec<&Value> = messages
        .iter()
        .filter(|m| m["metadata"]["normalized"]["subagent_task"].is_object())
        .collect();
    assert_eq!(cards.len(), 4, "the lead, its two workers and the checker");
    // Its card's facts (docs/behaviour.md §5): what OpenCode's own exports of
    // the same run count, every message's tokens, none priced (mock-model).
    let facts = &tasks[0]["session_facts"];
    assert_eq!(facts["agent"], "OpenCode");
    assert_eq!(facts["subagents_total"], 4);
    let exports = std::fs::read_dir(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/captures/opencode-1.18.33/nested/exports"
    ))
    .unwrap();
    let tokens: u64 = exports
        .map(|e| {
            serde_json::from_slice::<Value>(&std::fs::read(e.unwrap().path()).unwrap()).unwrap()
        })
        .flat_map(|doc| doc["messages"].as_array().cloned().unwrap_or_default())
        .filter_map(|m| m["info"]["tokens"]["total"].as_u64())
        .sum();
    assert_eq!(facts["spend_with_subagents"]["tokens"], tokens, "{facts}");
    assert_eq!(facts["spend_with_subagents"]["unpriced_tokens"], tokens);
}

/// The tables a test writer fills (OpenCode 1.18.33's columns the server reads).
const SCHEMA: &str = "
CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, title TEXT NOT NULL, version TEXT NOT NULL,
  agent TEXT, model TEXT, tokens_input INTEGER DEFAULT 0 NOT NULL, tokens_output INTEGER DEFAULT 0 NOT NULL,
  tokens_reasoning INTEGER DEFAULT 0 NOT NULL, tokens_cache_read INTEGER DEFAULT 0 NOT NULL,
  tokens_cache_write INTEGER DEFAULT 0 NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
";

/// The writer's clock, in ms: OpenCode stamps `time_updated` with it on
/// every write (what a reader follows the store by).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn session(w: &Connection, id: &str, parent: Option<&str>, title: &str) {
    w.execute(
        "INSERT INTO session (id, parent_id, title, version, time_created, time_updated) VALUES (?1, ?2, ?3, '1.18.33', 1, ?4)",
        params![id, parent, title, now_ms()],
    )
    .unwrap();
}

/// Message `id`, created at `data.time.created` (the order OpenCode reads them in).
fn message(w: &Connection, id: &str, session: &str, data: Value) {
    let created = data["time"]["created"].as_i64().unwrap();
    w.execute(
        "INSERT OR REPLACE INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id, session, created, now_ms(), data.to_string()],
    )
    .unwrap();
}

fn part(w: &Connection, id: &str, message: &str, session: &str, data: Value) {
    w.execute(
        "INSERT OR REPLACE INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, 1, ?4, ?5)",
        params![id, message, session, now_ms(), data.to_string()],
    )
    .unwrap();
}

fn reply(done: bool) -> Value {
    let time = if done {
        json!({"created": 1_796_532_820_000i64, "completed": 1_796_532_821_000i64})
    } else {
        json!({"created": 1_796_532_820_000i64})
    };
    json!({"role": "assistant", "time": time, "modelID": "mock-model"})
}

fn task(call: &str, child: &str, status: &str) -> Value {
    let output = format!("<task id=\"{child}\" state=\"completed\">\n<task_result>\n## Summary\n\n{call} done.\n</task_result>\n</task>");
    json!({"type": "tool", "tool": "task", "callID": call, "state": {
        "status": status,
        "input": {"description": format!("Review {call}"), "prompt": format!("Review {call}."), "subagent_type": "general"},
        "metadata": {"sessionId": child},
        "output": if status == "completed" { output } else { String::new() },
        "time": {"start": 1_796_532_820_000i64, "end": 1_796_532_821_000i64}
    }})
}

#[tokio::test]
async fn a_store_being_written_is_a_live_task_whose_chip_counts_its_running_subagents() {
    let dir = TempDir::new("opencode-live");
    let writer = Connection::open(dir.0.join("opencode.db")).unwrap();
    writer.pragma_update(None, "journal_mode", "WAL").unwrap();
    writer.execute_batch(SCHEMA).unwrap();
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();

    // The user's prompt and a wave of two subagents at work.
    session(&writer, "ses_root", None, "Review the crate");
    message(
        &writer,
        "msg_u",
        "ses_root",
        json!({"role": "user", "time": {"created": 1_796_532_819_000i64}}),
    );
    part(
        &writer,
        "prt_u",
        "msg_u",
        "ses_root",
        json!({"type": "text", "text": "Review the crate."}),
    );
    message(&writer, "msg_a", "ses_root", reply(false));
    for i in 0..2 {
        part(
            &writer,
            &format!("prt_t{i}"),
            "msg_a",
            "ses_root",
            task(&format!("call_{i}"), &format!("ses_c{i}"), "running"),
        );
    }
    let running = |s: &Value| {
        s["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["state"] == "IN_PROGRESS" && t["active_subagent_count"] == 2)
    };
    let snapshot = wait_http(addr, SNAPSHOT, running).await;
    assert_eq!(snapshot["tasks"][0]["title"], "Review the crate");

    // One subagent ends: the chip counts one.
    part(
        &writer,
        "prt_t0",
        "msg_a",
        "ses_root",
        task("call_0", "ses_c0", "completed"),
    );
    wait_http(addr, SNAPSHOT, |s| {
        s["tasks"][0]["active_subagent_count"] == 1
    })
    .await;

    // The other ends and the reply is finished: the task is done.
    part(
        &writer,
        "prt_t1",
        "msg_a",
        "ses_root",
        task("call_1", "ses_c1", "completed"),
    );
    message(&writer, "msg_a", "ses_root", reply(true));
    let done = wait_http(addr, SNAPSHOT, |s| s["tasks"][0]["state"] == "COMPLETED").await;
    assert_eq!(
        done["tasks"][0]["active_subagent_count"]
            .as_u64()
            .unwrap_or(0),
        0
    );
    assert_eq!(done["tasks"].as_array().unwrap().len(), 1);
}

/// docs/behaviour.md §8: a store whose CLI was killed mid-reply (an unfinished reply,
/// a task still running) and that nobody has written for long is not at work.
#[tokio::test]
async fn a_store_left_mid_reply_long_ago_is_not_at_work() {
    let dir = TempDir::new("opencode-abandoned");
    let path = dir.0.join("opencode.db");
    {
        let writer = Connection::open(&path).unwrap();
        writer.execute_batch(SCHEMA).unwrap();
        session(&writer, "ses_root", None, "Review the crate");
        message(
            &writer,
            "msg_u",
            "ses_root",
            json!({"role": "user", "time": {"created": 1_796_532_819_000i64}}),
        );
        part(
            &writer,
            "prt_u",
            "msg_u",
            "ses_root",
            json!({"type": "text", "text": "Review the crate."}),
        );
        message(&writer, "msg_a", "ses_root", reply(false));
        part(
            &writer,
            "prt_t0",
            "msg_a",
            "ses_root",
            task("call_0", "ses_c0", "running"),
        );
    }
    let long_ago = std::time::SystemTime::now() - Duration::from_secs(20 * 60);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let server = start(config(recordings(&dir))).await;
    let snapshot = wait_http(server.addr(), SNAPSHOT, |s| {
        s["tasks"][0]["session_facts"].is_object()
    })
    .await;
    assert_eq!(snapshot["tasks"][0]["state"], "COMPLETED", "{snapshot}");
    // Nobody writes it: its task says so, and the run that never got a
    // result reads interrupted, so the chip counts none.
    let task = wait_http(server.addr(), "/api/v1/tasks/rec-opencode-ses-root", |t| {
        t["primary_session_still"] == true
    })
    .await;
    assert_eq!(task["active_subagent_count"], 0, "{task}");
}

/// Dates every row of session `id` (the session, its messages and parts)
/// back to `ms` on the writer's clock.
fn backdate(w: &Connection, id: &str, ms: i64) {
    w.execute(
        "UPDATE session SET time_updated = ?1 WHERE id = ?2",
        params![ms, id],
    )
    .unwrap();
    for table in ["message", "part"] {
        w.execute(
            &format!("UPDATE {table} SET time_updated = ?1 WHERE session_id = ?2"),
            params![ms, id],
        )
        .unwrap();
    }
}

/// Session `id` mid-wave: the user's prompt and an unfinished reply whose
/// task parts `runs` (`(call, child session)`) run.
fn mid_wave(w: &Connection, id: &str, title: &str, runs: &[(&str, &str)]) {
    session(w, id, None, title);
    let (user, reply_id) = (format!("{id}_u"), format!("{id}_a"));
    message(
        w,
        &user,
        id,
        json!({"role": "user", "time": {"created": 1_796_532_819_000i64}}),
    );
    part(
        w,
        &format!("{user}_p"),
        &user,
        id,
        json!({"type": "text", "text": format!("{title}.")}),
    );
    message(w, &reply_id, id, reply(false));
    for (call, child) in runs {
        part(
            w,
            &format!("{id}_{call}"),
            &reply_id,
            id,
            task(call, child, "running"),
        );
    }
}

/// docs/behaviour.md §8, per session: in a store another session keeps writing, a
/// session nobody has written past the idle threshold is still (its
/// unsettled run counts on no chip) while the other stays live; written
/// again, it is live again.
#[tokio::test]
async fn a_session_nobody_writes_in_a_store_another_writes_is_still_until_written_again() {
    let dir = TempDir::new("opencode-per-session");
    let writer = Connection::open(dir.0.join("opencode.db")).unwrap();
    writer.pragma_update(None, "journal_mode", "WAL").unwrap();
    writer.execute_batch(SCHEMA).unwrap();
    // Left mid-wave twenty minutes ago (its CLI killed), and one at work now.
    mid_wave(
        &writer,
        "ses_old",
        "Audit the lexer",
        &[("call_o0", "ses_o0")],
    );
    backdate(&writer, "ses_old", now_ms() - 20 * 60 * 1000);
    let runs = [("call_n0", "ses_n0"), ("call_n1", "ses_n1")];
    mid_wave(&writer, "ses_new", "Review the crate", &runs);
    let server = start(config(recordings(&dir))).await;
    let addr = server.addr();
    let (old, new) = (
        "/api/v1/tasks/rec-opencode-ses-old",
        "/api/v1/tasks/rec-opencode-ses-new",
    );
    let abandoned = |t: &Value| t["primary_session_still"] == true;
    let still = wait_http(addr, old, abandoned).await;
    assert_eq!(still["active_subagent_count"], 0, "{still}");
    let live = wait_http(addr, new, |t| t["active_subagent_count"] == 2).await;
    assert_eq!(live["primary_session_still"], false, "{live}");
    assert_eq!(live["state"], "IN_PROGRESS", "{live}");

    // The other session writes on: the abandoned one stays still.
    part(
        &writer,
        "ses_new_call_n0",
        "ses_new_a",
        "ses_new",
        task("call_n0", "ses_n0", "completed"),
    );
    wait_http(addr, new, |t| t["active_subagent_count"] == 1).await;
    let still = wait_http(addr, old, abandoned).await;
    assert_eq!(still["active_subagent_count"], 0, "{still}");
    assert_eq!(still["state"], "COMPLETED", "{still}");

    // Written again (resumed): live, its chip counting its running runs.
    part(
        &writer,
        "ses_old_call_o1",
        "ses_old_a",
        "ses_old",
        task("call_o1", "ses_o1", "running"),
    );
    let resumed = wait_http(addr, old, |t| t["primary_session_still"] == false).await;
    assert_eq!(resumed["state"], "IN_PROGRESS", "{resumed}");
    wait_http(addr, old, |t| t["active_subagent_count"] == 2).await;
}
