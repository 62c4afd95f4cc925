//! A team's board on a real PostgreSQL (docs/behaviour.md §7 "A team's
//! board", docs/team-store.md): two writers on the real captures and two
//! readers show the union with the same transcripts the files give, live;
//! a reader restarted lists the same tasks; what the database holds is
//! masked, or cards only; the password shows nowhere.

mod common;

use common::postgres::{cluster, eventually, texts, PASSWORD};
use common::team::{reader, writer};
use common::*;
use serde_json::Value;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use taskview_server::sources::store::Content;

const CAPTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/captures");

fn capture(path: &str) -> PathBuf {
    Path::new(CAPTURES).join(path)
}

/// The tasks of a board (the first workflow's).
async fn board(addr: SocketAddr) -> Vec<Value> {
    let (_, list) = get(addr, "/api/v1/workflows").await;
    let Some(id) = list["workflows"][0]["id"].as_str() else {
        return Vec::new();
    };
    let (_, snapshot) = get(addr, &format!("/api/v1/workflows/{id}/snapshot")).await;
    snapshot["tasks"].as_array().cloned().unwrap_or_default()
}

/// The tasks of a board this server lists from its own files (a writer
/// lists the other machines' too).
async fn own_tasks(addr: SocketAddr) -> Vec<Value> {
    let tasks = board(addr).await.into_iter();
    tasks
        .filter(|t| !t["id"].as_str().unwrap().contains('~'))
        .collect()
}

/// A session's messages without the ids a server gives them (its session, its task).
fn portable(messages: Vec<Value>) -> Vec<Value> {
    messages
        .into_iter()
        .map(|mut m| {
            let fields = m.as_object_mut().unwrap();
            fields.remove("session_id");
            fields.remove("task_id");
            m
        })
        .collect()
}

const CLAUDE: &str =
    "claude-code-2.1.332/slow-wave/projects/-tmp-taskview-captures-claude-code-slow-wave-parser-kit";
const QWEN: &str = "qwen-code-0.24.4/slow-wave/projects";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_writers_and_two_readers_show_every_machine_with_the_same_transcripts() {
    let url = cluster().database();
    let ana = start(writer(&[capture(CLAUDE)], "ana-laptop", &url)).await;
    let bo = start(writer(&[capture(QWEN)], "bo-desktop", &url)).await;
    let readers = [start(reader(&url)).await, start(reader(&url)).await];
    let expected = own_tasks(ana.addr()).await.len() + own_tasks(bo.addr()).await.len();
    assert!(expected >= 2, "each writer lists its captures");
    for r in &readers {
        eventually(PATIENCE, "a reader lists both machines", async || {
            board(r.addr()).await.len() == expected
        })
        .await;
        // A reader's own board is one taskview makes: columns by state (docs/board.md).
        let (_, list) = get(r.addr(), "/api/v1/workflows").await;
        assert_eq!(list["workflows"][0]["columns_by"], "state", "{list}");
    }
    for (writer, machine) in [(&ana, "ana-laptop"), (&bo, "bo-desktop")] {
        for task in own_tasks(writer.addr()).await {
            let session = task["primary_session_id"].as_str().unwrap();
            let there = portable(session_messages(writer.addr(), session).await);
            let here_id = format!("{machine}~{session}");
            for r in &readers {
                let listed = board(r.addr()).await;
                let shown = listed
                    .iter()
                    .find(|t| t["primary_session_id"] == here_id.as_str())
                    .unwrap_or_else(|| panic!("{here_id} on the reader's board"));
                assert_eq!(shown["machine"], machine);
                assert_eq!(shown["person"], "ana");
                assert_eq!(shown["title"], task["title"]);
                assert_eq!(
                    shown["active_subagent_count"],
                    task["active_subagent_count"]
                );
                let mut here = Vec::new();
                eventually(
                    PATIENCE,
                    "the whole transcript is in the store",
                    async || {
                        here = portable(session_messages(r.addr(), &here_id).await);
                        here.len() == there.len()
                    },
                )
                .await;
                assert_eq!(
                    here, there,
                    "{here_id}: the reader pages what the files give"
                );
            }
        }
    }
    for server in [ana, bo] {
        server.shutdown().await.unwrap();
    }
    for r in readers {
        r.shutdown().await.unwrap();
    }
}

/// One Claude Code record of a user's prompt.
fn prompt(uuid: &str, parent: &str, text: &str) -> String {
    serde_json::json!({
        "type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "live-1",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": { "role": "user", "content": text }
    })
    .to_string()
        + "\n"
}

/// A kandev message list of `contents`, one message each.
fn list(contents: &[&str]) -> String {
    let messages: Vec<Value> = contents
        .iter()
        .enumerate()
        .map(|(i, content)| {
            serde_json::json!({"id": format!("m{i}"), "turn_id": "turn-1", "author_type": "agent",
                "type": "message", "content": content,
                "created_at": "2026-08-03T10:00:00Z", "updated_at": "2026-08-03T10:00:00Z"})
        })
        .collect();
    serde_json::json!({ "messages": messages }).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_append_on_one_machine_reaches_a_reader_live_and_a_restarted_reader_lists_the_same() {
    let url = cluster().database();
    let dir = TempDir::new("store-live");
    dir.write("live.json", list(&["first prompt"]));
    let ana = start(writer(std::slice::from_ref(&dir.0), "ana-laptop", &url)).await;
    let team = start(reader(&url)).await;
    eventually(PATIENCE, "the reader lists the session", async || {
        board(team.addr()).await.len() == 1
    })
    .await;
    let task = board(team.addr()).await.remove(0);
    let session = task["primary_session_id"].as_str().unwrap().to_string();
    assert_eq!(session, "ana-laptop~sess-rec-live-json");
    let mut ws = Ws::connect(team.addr()).await;
    ws.request(
        "session.subscribe",
        serde_json::json!({ "session_id": session }),
    )
    .await;
    dir.write("live.json", list(&["first prompt", "second prompt"]));
    let frames = ws
        .until(|f| {
            f["action"] == "session.message.updated" && f["payload"]["content"] == "second prompt"
        })
        .await;
    let last = frames.last().unwrap();
    assert_eq!(last["payload"]["session_id"], session.as_str());
    assert_eq!(session_messages(team.addr(), &session).await.len(), 2);

    let tasks = board(team.addr()).await;
    team.shutdown().await.unwrap();
    let again = start(reader(&url)).await;
    eventually(
        PATIENCE,
        "a restarted reader lists the same tasks",
        async || board(again.addr()).await == tasks,
    )
    .await;
    again.shutdown().await.unwrap();
    ana.shutdown().await.unwrap();
}

const PLANTED: &str = "ghp_R4nd0mT0k3nF0rT3st1ngPurp0s3s0nly123";

/// Every text the store's tables hold.
async fn everything_stored(url: &str) -> String {
    let mut all = String::new();
    for table in ["tasks", "sessions", "turns", "messages"] {
        let query = format!("SELECT body::TEXT FROM taskview_{table}");
        all.push_str(&texts(url, &query).await.join("\n"));
    }
    all
}

/// A writer of `dir` publishing `content`, masked unless `unmasked`;
/// what the store holds once its session is there.
async fn stored(dir: &TempDir, content: Content, unmasked: bool) -> String {
    let url = cluster().database();
    let mut config = writer(std::slice::from_ref(&dir.0), "ana-laptop", &url);
    let store = config.store.as_mut().unwrap();
    store.content = content;
    store.unmasked = unmasked;
    let server = start(config).await;
    eventually(PATIENCE, "the session is stored", async || {
        let rows = texts(&url, "SELECT message_id FROM taskview_messages").await;
        !rows.is_empty()
            && !texts(&url, "SELECT task_id FROM taskview_tasks")
                .await
                .is_empty()
    })
    .await;
    server.shutdown().await.unwrap();
    everything_stored(&url).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn published_text_is_masked_unless_asked_and_cards_keep_the_words_home() {
    let dir = TempDir::new("store-masked");
    let session = capture(&format!(
        "{CLAUDE}/32617231-44f7-46f0-b7bd-1073b3e90a96.jsonl"
    ));
    let mut text = std::fs::read_to_string(&session).unwrap();
    text.push_str(&prompt(
        "planted",
        "",
        &format!("deploy with GITHUB_TOKEN={PLANTED}"),
    ));
    dir.write("planted.jsonl", text);
    let subagents = capture(&format!("{CLAUDE}/32617231-44f7-46f0-b7bd-1073b3e90a96"));
    copy_dir(&subagents, &dir.0.join("planted"));

    let masked = stored(&dir, Content::Full, false).await;
    assert!(!masked.contains(PLANTED), "the planted secret is masked");
    assert!(masked.contains("[masked: github-pat]"));
    assert!(masked.contains("deploy with GITHUB_TOKEN="));

    let kept = stored(&dir, Content::Full, true).await;
    assert!(kept.contains(PLANTED), "--store-unmasked keeps it");

    let cards = stored(&dir, Content::Cards, false).await;
    assert!(!cards.contains("deploy with"), "no prompt");
    let folder = dir.0.display().to_string();
    assert!(!cards.contains(&folder), "no path: {folder}");
    let folder_name = dir.0.file_name().unwrap().to_string_lossy();
    assert!(
        cards.contains(&format!("\"description\": \"project {folder_name}\"")),
        "the project folder's name alone"
    );
    assert!(cards.contains("\"title\": \"session planted.jsonl\""));
    let first_prompt = first_user_text(&std::fs::read_to_string(&session).unwrap());
    assert!(
        !cards.contains(&first_prompt),
        "no conversation text: {first_prompt}"
    );
    assert!(cards.contains("subagent_task"), "the cards are there");
    assert!(cards.contains("\"total_tokens\""), "with their figures");
}

/// The text of the first user record of a Claude Code session.
fn first_user_text(session: &str) -> String {
    session
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["type"] == "user" && r["message"]["content"].is_string())
        .and_then(|r| {
            r["message"]["content"]
                .as_str()
                .map(|s| s[..40.min(s.len())].to_string())
        })
        .expect("the capture starts with a prompt")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_password_reaches_no_page_and_a_wrong_address_says_so_without_it() {
    let url = cluster().database();
    let team = start(reader(&url)).await;
    for path in ["/api/v1/workflows", "/api/v1/scenario"] {
        let (_, body) = get(team.addr(), path).await;
        assert!(!body.to_string().contains(PASSWORD), "{path}: {body}");
    }
    team.shutdown().await.unwrap();
    let closed = format!("postgres://postgres:{PASSWORD}@127.0.0.1:1/nowhere");
    let refused = match taskview_server::serve(reader(&closed)).await {
        Ok(_) => panic!("a store that cannot be reached stops the start"),
        Err(e) => e.to_string(),
    };
    assert!(refused.contains("store unreachable"), "{refused}");
    assert!(!refused.contains(PASSWORD), "{refused}");
}

/// A reader's view of a session: what `GET /api/v1/task-sessions/{id}` says.
async fn session_info(addr: SocketAddr, session: &str) -> Value {
    get(addr, &format!("/api/v1/task-sessions/{session}"))
        .await
        .1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_says_how_many_messages_the_store_holds_of_a_session() {
    let url = cluster().database();
    let dir = TempDir::new("store-count");
    dir.write("count.json", list(&["one", "two", "three"]));
    let ana = start(writer(std::slice::from_ref(&dir.0), "ana-laptop", &url)).await;
    let team = start(reader(&url)).await;
    let session = "ana-laptop~sess-rec-count-json";
    eventually(PATIENCE, "the reader counts three messages", async || {
        session_info(team.addr(), session).await["message_count"] == 3
    })
    .await;
    dir.write("count.json", list(&["one", "two", "three", "four"]));
    eventually(PATIENCE, "and four once one more is written", async || {
        session_info(team.addr(), session).await["message_count"] == 4
    })
    .await;
    let stored = texts(
        &url,
        "SELECT message_count::TEXT FROM taskview_sessions WHERE session_id = 'sess-rec-count-json'",
    )
    .await;
    assert_eq!(stored, ["4"], "the count is the store's");
    team.shutdown().await.unwrap();
    ana.shutdown().await.unwrap();
}

/// A kandev message list: `(id, content, created_at)` each.
fn dated(messages: &[(&str, &str, &str)]) -> String {
    let messages: Vec<Value> = messages
        .iter()
        .map(|(id, content, at)| {
            serde_json::json!({"id": id, "turn_id": "turn-1", "author_type": "agent",
                "type": "message", "content": content, "created_at": at, "updated_at": at})
        })
        .collect();
    serde_json::json!({ "messages": messages }).to_string()
}

/// Ids of the tasks listed on a board.
async fn listed(addr: SocketAddr) -> Vec<String> {
    let mut ids: Vec<String> = board(addr)
        .await
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

/// A reader that prunes the store at `url` to `days`.
fn pruning_reader(url: &str, days: u32) -> taskview_server::Config {
    let mut config = reader(url);
    config.store.as_mut().unwrap().keep_days = Some(days);
    config
}

const OLD_AT: &str = "2026-01-01T10:00:00Z";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_past_the_kept_days_leave_the_store_once_and_come_back_only_with_new_work() {
    let url = cluster().database();
    let dir = TempDir::new("store-keep");
    dir.write("old.json", dated(&[("o1", "old work", OLD_AT)]));
    dir.write("new.json", dated(&[("n1", "new work", OLD_AT)]));
    let ana = start(writer(std::slice::from_ref(&dir.0), "ana-laptop", &url)).await;
    let messages = "SELECT message_id FROM taskview_messages WHERE NOT deleted ORDER BY message_id";
    eventually(PATIENCE, "both sessions are stored", async || {
        texts(&url, messages).await == ["n1", "o1"]
    })
    .await;
    let age = "UPDATE taskview_sessions SET active_at = now() - INTERVAL '10 days'
               WHERE session_id = 'sess-rec-old-json'";
    common::postgres::client(&url)
        .await
        .execute(age, &[])
        .await
        .unwrap();

    // Two servers prune at once: the old session goes, once.
    let (a, b) = tokio::join!(
        start(pruning_reader(&url, 7)),
        start(pruning_reader(&url, 7))
    );
    for r in [&a, &b] {
        eventually(PATIENCE, "the old task leaves the board", async || {
            listed(r.addr()).await == ["ana-laptop~rec-new-json"]
        })
        .await;
    }
    assert_eq!(texts(&url, messages).await, ["n1"], "its messages are gone");
    let turns = "SELECT turn_id FROM taskview_turns WHERE session_id = 'sess-rec-old-json'";
    assert!(texts(&url, turns).await.is_empty(), "its turns too");
    let kept = "SELECT session_id || ' ' || message_count FROM taskview_sessions WHERE pruned";
    assert_eq!(
        texts(&url, kept).await,
        ["sess-rec-old-json 0"],
        "a small row says it was removed"
    );
    let tasks = "SELECT task_id FROM taskview_tasks WHERE deleted AND pruned";
    assert_eq!(texts(&url, tasks).await, ["rec-old-json"]);

    // The writer's restart does not send it again.
    ana.shutdown().await.unwrap();
    let ana = start(writer(std::slice::from_ref(&dir.0), "ana-laptop", &url)).await;
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    assert_eq!(texts(&url, messages).await, ["n1"], "not sent again");
    assert_eq!(listed(a.addr()).await, ["ana-laptop~rec-new-json"]);

    // New work in it brings it back, with the new messages only.
    let now = texts(
        &url,
        "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
    )
    .await
    .remove(0);
    dir.write(
        "old.json",
        dated(&[("o1", "old work", OLD_AT), ("o2", "more work", &now)]),
    );
    eventually(PATIENCE, "the task is back on the board", async || {
        listed(a.addr()).await.len() == 2
    })
    .await;
    let back = session_messages(a.addr(), "ana-laptop~sess-rec-old-json").await;
    let ids: Vec<&str> = back.iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["o2"], "only what is newer than the removal");
    for server in [a, b, ana] {
        server.shutdown().await.unwrap();
    }
}
