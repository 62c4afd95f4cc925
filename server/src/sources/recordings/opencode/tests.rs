use super::super::tree::holds_opencode_store;
use super::store::{self, Tree};
use super::*;
use rusqlite::Connection;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use taskview_core::model::message::Message;

/// A fresh folder under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("taskview-opencode-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A captured store (OpenCode 1.18.33, `captures/`), copied to `dir`.
fn captured(scenario: &str, dir: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../tests/fixtures/captures/opencode-1.18.33/{scenario}/opencode.db"
    ));
    let to = dir.join(STORE);
    std::fs::copy(from, &to).unwrap();
    to
}

fn cards(tree: &Tree) -> Vec<Message> {
    let events = opencode::import_sessions(&tree.sessions).unwrap();
    messages_from_events(events, "s", "t")
        .into_iter()
        .filter(|m| m.metadata.subagent.is_some())
        .collect()
}

#[test]
fn a_captured_store_reads_as_one_finished_tree_per_root_session_with_every_card() {
    let dir = TempDir::new("captured");
    let path = captured("nested", &dir.0);
    let trees = store::read(&path).unwrap();
    assert_eq!(trees.len(), 1, "one root session");
    let tree = &trees[0];
    assert_eq!(tree.sessions.len(), 5, "the root and its four descendants");
    assert!(
        tree.sessions[0]["info"]["parentID"].is_null(),
        "the root first"
    );
    assert!(!tree.working, "the run had ended");
    let cards = cards(tree);
    let described: Vec<&str> = cards
        .iter()
        .map(|m| m.metadata.subagent.as_ref().unwrap().description.as_str())
        .collect();
    for d in [
        "Lead the panic audit",
        "Audit the lexer",
        "Audit the parser",
        "Confirm the lexer panic",
    ] {
        assert!(described.contains(&d), "{d} in {described:?}");
    }
    assert!(cards
        .iter()
        .all(|m| m.metadata.subagent.as_ref().unwrap().status == "completed"));
}

/// The schema's parts a test writer fills (OpenCode 1.18.33's columns).
const SCHEMA: &str = "
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL,
  directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, agent TEXT, model TEXT,
  tokens_input INTEGER DEFAULT 0 NOT NULL, tokens_output INTEGER DEFAULT 0 NOT NULL,
  tokens_reasoning INTEGER DEFAULT 0 NOT NULL, tokens_cache_read INTEGER DEFAULT 0 NOT NULL,
  tokens_cache_write INTEGER DEFAULT 0 NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
";

/// A writer like OpenCode's: WAL mode, one transaction per change.
struct Writer(Connection);

impl Writer {
    fn open(path: &Path) -> Writer {
        let conn = Connection::open(path).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        Writer(conn)
    }

    fn session(&self, id: &str, parent: Option<&str>, title: &str, t: i64) {
        self.0
            .execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated, tokens_input, tokens_output) \
                 VALUES (?1, 'global', ?2, 's', '/w', ?3, '1.18.33', ?4, ?4, 100, 20)",
                rusqlite::params![id, parent, title, t],
            )
            .unwrap();
    }

    fn message(&self, id: &str, session: &str, data: Value, t: i64) {
        self.0
            .execute(
                "INSERT OR REPLACE INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![id, session, t, data.to_string()],
            )
            .unwrap();
    }

    fn part(&self, id: &str, message: &str, session: &str, data: Value, t: i64) {
        self.0
            .execute(
                "INSERT OR REPLACE INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![id, message, session, t, data.to_string()],
            )
            .unwrap();
    }
}

use serde_json::{json, Value};

fn reply(t: i64, done: bool) -> Value {
    let time = if done {
        json!({"created": t, "completed": t + 5})
    } else {
        json!({"created": t})
    };
    json!({"role": "assistant", "time": time, "modelID": "mock-model", "providerID": "mock"})
}

fn task(call: &str, child: &str, status: &str, t: i64) -> Value {
    json!({"type": "tool", "tool": "task", "callID": call, "state": {
        "status": status,
        "input": {"description": format!("Review {call}"), "prompt": format!("Review part {call}."), "subagent_type": "general"},
        "metadata": {"sessionId": child, "model": {"modelID": "mock-model", "providerID": "mock"}},
        "output": if status == "completed" { format!("<task id=\"{child}\" state=\"completed\">\n<task_result>\n## Summary\n\n{call} is fine.\n</task_result>\n</task>") } else { String::new() },
        "time": {"start": t, "end": t + 3}
    }})
}

/// The root session, its prompt, and the reply that launches the wave.
fn write_prompt(w: &Writer) {
    w.session("ses_root", None, "Review the crate", 1);
    w.message(
        "msg_u",
        "ses_root",
        json!({"role": "user", "time": {"created": 2}}),
        2,
    );
    w.part(
        "prt_u",
        "msg_u",
        "ses_root",
        json!({"type": "text", "text": "Review the crate."}),
        2,
    );
    w.message("msg_a", "ses_root", reply(3, false), 3);
}

/// A wave of `n` foreground subagents, written step by step: the prompt,
/// the launches (running), each child's work, then each task completed and
/// the final answer.
fn write_wave(w: &Writer, n: usize) {
    write_prompt(w);
    for i in 0..n {
        let (call, child) = (format!("call_{i}"), format!("ses_child{i}"));
        w.part(
            &format!("prt_t{i}"),
            "msg_a",
            "ses_root",
            task(&call, &child, "running", 4),
            4,
        );
        w.session(
            &child,
            Some("ses_root"),
            &format!("Review {call} (@general subagent)"),
            5,
        );
        w.message(
            &format!("msg_c{i}u"),
            &child,
            json!({"role": "user", "time": {"created": 5}}),
            5,
        );
        w.part(
            &format!("prt_c{i}u"),
            &format!("msg_c{i}u"),
            &child,
            json!({"type": "text", "text": format!("Review part {call}.")}),
            5,
        );
        w.message(&format!("msg_c{i}a"), &child, reply(6, false), 6);
    }
    for i in 0..n {
        let (call, child) = (format!("call_{i}"), format!("ses_child{i}"));
        w.part(
            &format!("prt_c{i}a"),
            &format!("msg_c{i}a"),
            &child,
            json!({"type": "text", "text": format!("## Summary\n\n{call} is fine.")}),
            7,
        );
        w.message(&format!("msg_c{i}a"), &child, reply(6, true), 6);
        w.part(
            &format!("prt_t{i}"),
            "msg_a",
            "ses_root",
            task(&call, &child, "completed", 4),
            8,
        );
    }
    w.message("msg_a", "ses_root", reply(3, true), 3);
}

#[test]
fn a_store_read_while_its_writer_works_is_always_a_whole_snapshot_and_never_written() {
    let dir = TempDir::new("live");
    let path = dir.0.join(STORE);
    let writer = Writer::open(&path);
    writer.session("ses_seed", None, "seed", 0);
    let done = Arc::new(AtomicBool::new(false));
    let writing = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let w = writer;
            for round in 0..100 {
                w.0.execute_batch("BEGIN IMMEDIATE").unwrap();
                w.0.execute("DELETE FROM part", []).unwrap();
                w.0.execute("DELETE FROM message", []).unwrap();
                w.0.execute("DELETE FROM session WHERE id != 'ses_seed'", [])
                    .unwrap();
                write_wave(&w, 1 + round % 4);
                w.0.execute_batch("COMMIT").unwrap();
            }
            done.store(true, Ordering::SeqCst);
            w
        })
    };
    let started = Instant::now();
    let mut reads = 0;
    while (!done.load(Ordering::SeqCst) || reads < 3) && started.elapsed() < Duration::from_secs(30)
    {
        let trees = store::read(&path).unwrap();
        for tree in trees.iter().filter(|t| t.id == "ses_root") {
            // A committed wave only: every child session its cards name is there, finished.
            let cards = cards(tree);
            assert_eq!(
                cards.len() + 1,
                tree.sessions.len(),
                "one child session per card"
            );
            assert!(!tree.working, "every committed wave is finished");
        }
        reads += 1;
    }
    let writer = writing.join().unwrap();
    assert!(reads >= 3);
    // The reader never checkpointed: the writer's log still holds every frame.
    let wal = std::fs::metadata(path.with_extension("db-wal"))
        .unwrap()
        .len();
    assert!(wal > 0, "the write-ahead log is the writer's to fold");
    let before = std::fs::read(&path).unwrap();
    store::read(&path).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a read writes nothing"
    );
    drop(writer);
}

#[test]
fn a_wave_at_work_is_working_with_its_cards_running() {
    let dir = TempDir::new("working");
    let path = dir.0.join(STORE);
    let w = Writer::open(&path);
    write_prompt(&w);
    for i in 0..2 {
        w.part(
            &format!("prt_t{i}"),
            "msg_a",
            "ses_root",
            task(&format!("call_{i}"), &format!("ses_c{i}"), "running", 4),
            4,
        );
    }
    let trees = store::read(&path).unwrap();
    assert!(trees[0].working);
    let cards = cards(&trees[0]);
    assert_eq!(cards.len(), 2);
    assert!(
        cards
            .iter()
            .all(|m| m.metadata.status.as_deref() == Some("in_progress")),
        "{:?}",
        cards.iter().map(|m| &m.metadata.status).collect::<Vec<_>>()
    );
}

#[test]
fn a_folder_without_a_store_reads_nothing_and_a_damaged_one_is_an_error() {
    let dir = TempDir::new("none");
    assert!(!holds_opencode_store(&dir.0));
    std::fs::write(dir.0.join(STORE), b"not a database").unwrap();
    assert!(holds_opencode_store(&dir.0));
    assert!(store::read(&dir.0.join(STORE)).is_err());
}

/// Each tree of `path` read whole and as `snapshot` follows it, equal.
fn same_as_whole(snapshot: &store::Snapshot, path: &Path, step: &str) {
    assert_eq!(snapshot.trees(None), store::read(path).unwrap(), "{step}");
}

#[test]
fn a_followed_store_reads_only_the_rows_written_since_and_equals_a_whole_read() {
    let dir = TempDir::new("follow");
    let path = dir.0.join(STORE);
    let w = Writer::open(&path);
    w.session("ses_other", None, "Another session", 1);
    write_wave(&w, 3);
    let mut snapshot = store::Snapshot::default();
    let first = snapshot.refresh(&path).unwrap();
    assert!(first.roots.is_none(), "the first read is whole");
    same_as_whole(&snapshot, &path, "first read");

    // A next prompt, minutes later: once rows older than the clock's slack
    // are behind, a change reads its own rows and names its tree.
    let ask = |w: &Writer, n: i64, t: i64| {
        let id = format!("msg_next{n}");
        w.message(
            &id,
            "ses_root",
            json!({"role": "user", "time": {"created": t}}),
            t,
        );
        let text = json!({"type": "text", "text": format!("And part {n}?")});
        w.part(&format!("prt_next{n}"), &id, "ses_root", text, t);
    };
    ask(&w, 1, 100_000);
    snapshot.refresh(&path).unwrap();
    same_as_whole(&snapshot, &path, "a next prompt");
    ask(&w, 2, 160_000);
    let changed = snapshot.refresh(&path).unwrap();
    assert_eq!(
        changed.rows, 4,
        "the two prompts within the slack, each a message and a part"
    );
    assert_eq!(
        changed.roots,
        Some(std::collections::HashSet::from(["ses_root".to_string()]))
    );
    same_as_whole(&snapshot, &path, "another prompt");

    // A row rewritten with a time its writer's clock stepped back to.
    w.part(
        "prt_next2",
        "msg_next2",
        "ses_root",
        json!({"type": "text", "text": "Edited."}),
        155_000,
    );
    snapshot.refresh(&path).unwrap();
    same_as_whole(&snapshot, &path, "a row rewritten with an older time");

    // Rows deleted (a revert): the store is read whole again.
    w.0.execute("DELETE FROM part WHERE id = 'prt_next1'", [])
        .unwrap();
    let changed = snapshot.refresh(&path).unwrap();
    assert!(changed.roots.is_none());
    same_as_whole(&snapshot, &path, "a part deleted");
}

/// A tree was last written when its newest row was, its descendants' rows
/// included and the store's other trees' not: what its stillness is judged by.
#[test]
fn a_trees_written_time_is_its_own_newest_row_whatever_other_trees_write() {
    let dir = TempDir::new("written");
    let path = dir.0.join(STORE);
    let w = Writer::open(&path);
    w.session("ses_a", None, "A", 1_000);
    w.message("msg_a", "ses_a", reply(1_000, false), 1_000);
    w.session("ses_a1", Some("ses_a"), "A's child", 2_000);
    w.part(
        "prt_a1",
        "msg_c",
        "ses_a1",
        json!({"type": "text", "text": "…"}),
        3_000,
    );
    w.session("ses_b", None, "B", 500);
    w.message("msg_b", "ses_b", reply(9_000, false), 9_000);
    let mut snapshot = store::Snapshot::default();
    snapshot.refresh(&path).unwrap();
    let written = |s: &store::Snapshot| -> Vec<(String, Option<i64>)> {
        s.trees(None)
            .into_iter()
            .map(|t| (t.id, t.written_ms))
            .collect()
    };
    assert_eq!(
        written(&snapshot),
        [("ses_b".into(), Some(9_000)), ("ses_a".into(), Some(3_000))],
        "the child's part is A's newest; B's message is B's alone"
    );
    w.part(
        "prt_b",
        "msg_b",
        "ses_b",
        json!({"type": "text", "text": "more"}),
        20_000,
    );
    snapshot.refresh(&path).unwrap();
    assert_eq!(
        written(&snapshot),
        [
            ("ses_b".into(), Some(20_000)),
            ("ses_a".into(), Some(3_000))
        ]
    );
}
