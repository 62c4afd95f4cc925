//! OpenCode's session store (`opencode.db`: tables `session`, `message`,
//! `part`, JSON in `data`; reference/agents-more.md part B) read as a
//! second reader beside the CLI that writes it: opened read-only
//! (`mode=ro`) so nothing is ever written, not even a checkpoint; read in
//! one short read transaction (a consistent snapshot of the database and
//! its write-ahead log); a writer holding the lock is waited for briefly
//! (busy timeout). Each root session (no `parent_id`) comes back with its
//! descendants in the shape `opencode export` writes, for the one importer
//! (`taskview_core::read::import::opencode`).

use rusqlite::{Connection, OpenFlags};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// How long a read waits for a writer that holds the lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// One root session and its descendants, as the store holds them now.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tree {
    /// The root session's id and title.
    pub id: String,
    pub title: String,
    /// The root first, then each descendant, in export shape.
    pub sessions: Vec<Value>,
    /// The agent is at work: a reply is not finished, or a task runs.
    pub working: bool,
}

/// Reads every session tree of the store at `path`.
pub(crate) fn read(path: &Path) -> Result<Vec<Tree>, String> {
    let uri = format!("file:{}?mode=ro", uri_path(path));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags).map_err(|e| e.to_string())?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| e.to_string())?;
    let snapshot = conn.unchecked_transaction().map_err(|e| e.to_string())?;
    let rows = Rows::read(&snapshot).map_err(|e| e.to_string())?;
    snapshot.finish().map_err(|e| e.to_string())?;
    Ok(rows.trees())
}

/// A path as a `file:` URI path (`?`, `#` and `%` escaped).
fn uri_path(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// The rows of one snapshot: sessions, and each session's messages with
/// their parts, in the order OpenCode writes them.
struct Rows {
    sessions: Vec<(String, Option<String>, Value)>,
    messages: HashMap<String, Vec<Value>>,
}

impl Rows {
    fn read(conn: &Connection) -> rusqlite::Result<Rows> {
        let mut sessions = Vec::new();
        let mut stmt = conn.prepare(
            "SELECT id, parent_id, title, agent, model, time_created, time_updated, \
             tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, version \
             FROM session ORDER BY time_created, id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let id: String = row.get(0)?;
            let parent: Option<String> = row.get(1)?;
            let model: Option<String> = row.get(4)?;
            let info = json!({
                "id": id,
                "parentID": parent,
                "title": row.get::<_, String>(2)?,
                "agent": row.get::<_, Option<String>>(3)?,
                "model": model.as_deref().and_then(|m| serde_json::from_str::<Value>(m).ok()),
                "version": row.get::<_, String>(12)?,
                "time": {"created": row.get::<_, i64>(5)?, "updated": row.get::<_, i64>(6)?},
                "tokens": {
                    "input": row.get::<_, i64>(7)?,
                    "output": row.get::<_, i64>(8)?,
                    "reasoning": row.get::<_, i64>(9)?,
                    "cache": {"read": row.get::<_, i64>(10)?, "write": row.get::<_, i64>(11)?},
                },
            });
            sessions.push((id, parent, info));
        }
        let mut parts: HashMap<String, Vec<Value>> = HashMap::new();
        let mut stmt = conn
            .prepare("SELECT id, message_id, session_id, data FROM part ORDER BY message_id, id")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let (id, message, session): (String, String, String) =
                (row.get(0)?, row.get(1)?, row.get(2)?);
            let data = with_ids(&row.get::<_, String>(3)?, &id, &session, Some(&message));
            parts.entry(message).or_default().push(data);
        }
        let mut messages: HashMap<String, Vec<Value>> = HashMap::new();
        let mut stmt = conn.prepare(
            "SELECT id, session_id, data FROM message ORDER BY session_id, time_created, id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let (id, session): (String, String) = (row.get(0)?, row.get(1)?);
            let info = with_ids(&row.get::<_, String>(2)?, &id, &session, None);
            let parts = parts.remove(&id).unwrap_or_default();
            messages
                .entry(session)
                .or_default()
                .push(json!({"info": info, "parts": parts}));
        }
        Ok(Rows { sessions, messages })
    }

    /// Each root session with its descendants (a parent before its children).
    fn trees(mut self) -> Vec<Tree> {
        let mut children: HashMap<String, Vec<String>> = HashMap::new();
        for (id, parent, _) in &self.sessions {
            if let Some(p) = parent {
                children.entry(p.clone()).or_default().push(id.clone());
            }
        }
        let mut infos: HashMap<String, Value> = self
            .sessions
            .iter()
            .map(|(id, _, info)| (id.clone(), info.clone()))
            .collect();
        let roots: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, p, _)| p.is_none())
            .map(|(id, _, _)| id.clone())
            .collect();
        roots
            .into_iter()
            .map(|root| {
                let mut order = vec![root.clone()];
                let mut at = 0;
                while at < order.len() {
                    order.extend(children.get(&order[at]).cloned().unwrap_or_default());
                    at += 1;
                }
                let sessions: Vec<Value> = order
                    .iter()
                    .filter_map(|id| {
                        let info = infos.remove(id)?;
                        let messages = self.messages.remove(id).unwrap_or_default();
                        Some(json!({"info": info, "messages": messages}))
                    })
                    .collect();
                let title = sessions[0]["info"]["title"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                let working = sessions.iter().any(at_work);
                Tree {
                    id: root,
                    title,
                    sessions,
                    working,
                }
            })
            .collect()
    }
}

/// A row's JSON `data` with the ids the export adds (`id`, `sessionID`,
/// `messageID`); data that is not a JSON object stays as it was, under `data`.
fn with_ids(data: &str, id: &str, session: &str, message: Option<&str>) -> Value {
    let mut object = match serde_json::from_str::<Value>(data) {
        Ok(Value::Object(o)) => o,
        Ok(other) => Map::from_iter([("data".to_string(), other)]),
        Err(_) => Map::from_iter([("data".to_string(), Value::String(data.to_string()))]),
    };
    object.insert("id".into(), id.into());
    object.insert("sessionID".into(), session.into());
    if let Some(m) = message {
        object.insert("messageID".into(), m.into());
    }
    Value::Object(object)
}

/// Whether a session is at work: an assistant reply without its completion
/// time (and no error), or a tool part still pending or running.
fn at_work(session: &Value) -> bool {
    session["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|m| {
            let info = &m["info"];
            let replying = info["role"] == "assistant"
                && info["time"]["completed"].is_null()
                && info["error"].is_null();
            let running = m["parts"].as_array().into_iter().flatten().any(|p| {
                p["type"] == "tool"
                    && matches!(p["state"]["status"].as_str(), Some("pending" | "running"))
            });
            replying || running
        })
}
