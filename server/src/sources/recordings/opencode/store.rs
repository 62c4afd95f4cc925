//! OpenCode's session store (`opencode.db`: tables `session`, `message`,
//! `part`, JSON in `data`; docs/formats.md §10) read as a
//! second reader beside the CLI that writes it: opened read-only
//! (`mode=ro`) so nothing is ever written, not even a checkpoint; read in
//! one short read transaction (a consistent snapshot of the database and
//! its write-ahead log); a writer holding the lock is waited for briefly
//! (busy timeout). Each root session (no `parent_id`) comes back with its
//! descendants in the shape `opencode export` writes, for the one importer
//! (`taskview_core::read::import::opencode`). A [`Snapshot`] keeps the rows
//! between reads: a change reads only the rows written since, and names the
//! trees they touch.

use rusqlite::{Connection, OpenFlags};
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap, HashSet};
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
    /// The newest `time_updated` of the tree's rows (its sessions, their
    /// messages and parts), in ms on the writer's clock: when it was last
    /// written, whatever the store's other sessions do.
    pub written_ms: Option<i64>,
}

/// Reads every session tree of the store at `path` whole (what a followed
/// [`Snapshot`] must equal).
#[cfg(test)]
pub(crate) fn read(path: &Path) -> Result<Vec<Tree>, String> {
    let mut snapshot = Snapshot::default();
    snapshot.refresh(path)?;
    Ok(snapshot.trees(None))
}

/// Opens the store read-only and runs `read` in one read transaction.
fn in_snapshot<T>(
    path: &Path,
    read: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> Result<T, String> {
    let uri = format!("file:{}?mode=ro", uri_path(path));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags).map_err(|e| e.to_string())?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| e.to_string())?;
    let snapshot = conn.unchecked_transaction().map_err(|e| e.to_string())?;
    let read = read(&snapshot).map_err(|e| e.to_string())?;
    snapshot.finish().map_err(|e| e.to_string())?;
    Ok(read)
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

/// `(time_created, id)`: the order rows are read in.
type OrderKey = (i64, String);

/// The rows of a store read so far, kept between reads so a change reads
/// only the rows written since (`time_updated` from `CLOCK_SLACK_MS` before
/// the newest one read; a row deleted, or new with an older time, makes the
/// counts differ and the store is read whole again), with what orders them
/// as OpenCode writes them.
#[derive(Default)]
pub(crate) struct Snapshot {
    /// Session id → its parent, its export `info` and its order key.
    sessions: HashMap<String, (Option<String>, Value, OrderKey)>,
    children: HashMap<String, BTreeSet<OrderKey>>,
    /// Message id → its session, its order key and its `info`.
    messages: HashMap<String, (String, OrderKey, Value)>,
    by_session: HashMap<String, BTreeSet<OrderKey>>,
    /// Part id → its message and its data.
    parts: HashMap<String, (String, Value)>,
    by_message: HashMap<String, BTreeSet<String>>,
    /// Session id → the newest `time_updated` of its own rows.
    written: HashMap<String, i64>,
    /// The newest `time_updated` read.
    since: Option<i64>,
}

/// How far before the newest `time_updated` read the next read starts, in
/// ms: a row's time is its writer's clock, which may step back.
const CLOCK_SLACK_MS: i64 = 10_000;

/// What a refresh read: how many rows, and the root sessions whose trees
/// they changed (`None`: every tree, the store was read whole).
#[derive(Debug)]
pub(crate) struct Changed {
    pub rows: usize,
    pub roots: Option<HashSet<String>>,
}

/// The rows a refresh read and the tables' row counts.
struct Fresh {
    sessions: Vec<(String, Option<String>, Value, i64, i64)>,
    messages: Vec<(String, String, i64, i64, Value)>,
    parts: Vec<(String, String, String, i64, Value)>,
    counts: [usize; 3],
}

impl Fresh {
    fn read(conn: &Connection, since: i64) -> rusqlite::Result<Fresh> {
        let mut sessions = Vec::new();
        let mut stmt = conn.prepare(
            "SELECT id, parent_id, title, agent, model, time_created, time_updated, \
             tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, version \
             FROM session WHERE time_updated >= ?1",
        )?;
        let mut rows = stmt.query([since])?;
        while let Some(row) = rows.next()? {
            let id: String = row.get(0)?;
            let parent: Option<String> = row.get(1)?;
            let model: Option<String> = row.get(4)?;
            let (created, updated): (i64, i64) = (row.get(5)?, row.get(6)?);
            let info = json!({
                "id": id,
                "parentID": parent,
                "title": row.get::<_, String>(2)?,
                "agent": row.get::<_, Option<String>>(3)?,
                "model": model.as_deref().and_then(|m| serde_json::from_str::<Value>(m).ok()),
                "version": row.get::<_, String>(12)?,
                "time": {"created": created, "updated": updated},
                "tokens": {
                    "input": row.get::<_, i64>(7)?,
                    "output": row.get::<_, i64>(8)?,
                    "reasoning": row.get::<_, i64>(9)?,
                    "cache": {"read": row.get::<_, i64>(10)?, "write": row.get::<_, i64>(11)?},
                },
            });
            sessions.push((id, parent, info, created, updated));
        }
        let mut parts = Vec::new();
        let mut stmt = conn.prepare(
            "SELECT id, message_id, session_id, time_updated, data FROM part WHERE time_updated >= ?1",
        )?;
        let mut rows = stmt.query([since])?;
        while let Some(row) = rows.next()? {
            let (id, message, session): (String, String, String) =
                (row.get(0)?, row.get(1)?, row.get(2)?);
            let data = with_ids(&row.get::<_, String>(4)?, &id, &session, Some(&message));
            parts.push((id, message, session, row.get(3)?, data));
        }
        let mut messages = Vec::new();
        let mut stmt = conn.prepare(
            "SELECT id, session_id, time_created, time_updated, data FROM message \
             WHERE time_updated >= ?1",
        )?;
        let mut rows = stmt.query([since])?;
        while let Some(row) = rows.next()? {
            let (id, session): (String, String) = (row.get(0)?, row.get(1)?);
            let info = with_ids(&row.get::<_, String>(4)?, &id, &session, None);
            messages.push((id, session, row.get(2)?, row.get(3)?, info));
        }
        let mut counts = [0; 3];
        for (count, table) in counts.iter_mut().zip(["session", "message", "part"]) {
            let n: i64 =
                conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?;
            *count = n as usize;
        }
        Ok(Fresh {
            sessions,
            messages,
            parts,
            counts,
        })
    }
}

impl Snapshot {
    /// Reads the rows of the store at `path` written since the last read
    /// (all of them the first time, or when some were deleted).
    pub(crate) fn refresh(&mut self, path: &Path) -> Result<Changed, String> {
        let since = self
            .since
            .map_or(i64::MIN, |t| t.saturating_sub(CLOCK_SLACK_MS));
        let fresh = in_snapshot(path, |conn| Fresh::read(conn, since))?;
        let whole = self.since.is_none();
        let mut rows = fresh.sessions.len() + fresh.messages.len() + fresh.parts.len();
        let mut touched = self.apply(fresh.sessions, fresh.messages, fresh.parts);
        let counts = [self.sessions.len(), self.messages.len(), self.parts.len()];
        if counts != fresh.counts && !whole {
            // Rows were deleted (or written with an older time): read whole.
            *self = Snapshot::default();
            let fresh = in_snapshot(path, |conn| Fresh::read(conn, i64::MIN))?;
            rows += fresh.sessions.len() + fresh.messages.len() + fresh.parts.len();
            self.apply(fresh.sessions, fresh.messages, fresh.parts);
            return Ok(Changed { rows, roots: None });
        }
        let roots = touched.drain().filter_map(|s| self.root_of(&s)).collect();
        Ok(Changed {
            rows,
            roots: (!whole).then_some(roots),
        })
    }

    /// Folds rows in; returns the sessions they touch.
    fn apply(
        &mut self,
        sessions: Vec<(String, Option<String>, Value, i64, i64)>,
        messages: Vec<(String, String, i64, i64, Value)>,
        parts: Vec<(String, String, String, i64, Value)>,
    ) -> HashSet<String> {
        let mut touched = HashSet::new();
        let mut newest = self.since.unwrap_or(i64::MIN);
        for (id, parent, info, created, updated) in sessions {
            newest = newest.max(updated);
            self.written_at(&id, updated);
            let key = (created, id.clone());
            if let Some((old_parent, _, old_key)) = self.sessions.remove(&id) {
                if let Some(p) = old_parent {
                    if let Some(set) = self.children.get_mut(&p) {
                        set.remove(&old_key);
                    }
                }
                touched.extend(self.root_of(&id));
            }
            if let Some(p) = &parent {
                self.children
                    .entry(p.clone())
                    .or_default()
                    .insert(key.clone());
            }
            self.sessions.insert(id.clone(), (parent, info, key));
            touched.insert(id);
        }
        for (id, session, created, updated, info) in messages {
            newest = newest.max(updated);
            self.written_at(&session, updated);
            if let Some((old_session, old_key, _)) = self.messages.remove(&id) {
                if let Some(set) = self.by_session.get_mut(&old_session) {
                    set.remove(&old_key);
                }
                touched.insert(old_session);
            }
            let key = (created, id.clone());
            self.by_session
                .entry(session.clone())
                .or_default()
                .insert(key.clone());
            self.messages.insert(id, (session.clone(), key, info));
            touched.insert(session);
        }
        for (id, message, session, updated, data) in parts {
            newest = newest.max(updated);
            self.written_at(&session, updated);
            if let Some((old_message, _)) = self.parts.remove(&id) {
                if let Some(set) = self.by_message.get_mut(&old_message) {
                    set.remove(&id);
                }
            }
            self.by_message
                .entry(message.clone())
                .or_default()
                .insert(id.clone());
            self.parts.insert(id, (message, data));
            touched.insert(session);
        }
        self.since = Some(newest);
        touched
    }

    /// Notes that a row of `session` was written at `updated` (ms).
    fn written_at(&mut self, session: &str, updated: i64) {
        let newest = self.written.entry(session.to_string()).or_insert(updated);
        *newest = (*newest).max(updated);
    }

    /// The root session above `session` (itself when it has no parent).
    fn root_of(&self, session: &str) -> Option<String> {
        let mut at = session;
        for _ in 0..self.sessions.len() + 1 {
            match self.sessions.get(at) {
                Some((Some(parent), _, _)) if self.sessions.contains_key(parent) => at = parent,
                Some(_) => return Some(at.to_string()),
                None => return None,
            }
        }
        None
    }

    /// The trees of the roots `roots` (`None`: every root), in the order
    /// the roots were created: each root with its descendants (a parent
    /// before its children), in export shape.
    pub(crate) fn trees(&self, roots: Option<&HashSet<String>>) -> Vec<Tree> {
        let mut all: Vec<(&OrderKey, &String)> = self
            .sessions
            .iter()
            .filter(|(_, (parent, _, _))| parent.is_none())
            .filter(|(id, _)| roots.is_none_or(|r| r.contains(*id)))
            .map(|(id, (_, _, key))| (key, id))
            .collect();
        all.sort();
        all.into_iter().map(|(_, root)| self.tree(root)).collect()
    }

    fn tree(&self, root: &str) -> Tree {
        let mut order = vec![root.to_string()];
        let mut at = 0;
        while at < order.len() {
            let children = self.children.get(&order[at]).into_iter().flatten();
            let children: Vec<String> = children
                .filter(|(_, id)| self.sessions.contains_key(id))
                .map(|(_, id)| id.clone())
                .collect();
            order.extend(children);
            at += 1;
        }
        let sessions: Vec<Value> = order
            .iter()
            .filter_map(|id| {
                let (_, info, _) = self.sessions.get(id)?;
                let messages: Vec<Value> = self
                    .by_session
                    .get(id)
                    .into_iter()
                    .flatten()
                    .filter_map(|(_, m)| {
                        let (_, _, info) = self.messages.get(m)?;
                        let parts: Vec<&Value> = self
                            .by_message
                            .get(m)
                            .into_iter()
                            .flatten()
                            .filter_map(|p| self.parts.get(p).map(|(_, data)| data))
                            .collect();
                        Some(json!({"info": info, "parts": parts}))
                    })
                    .collect();
                Some(json!({"info": info, "messages": messages}))
            })
            .collect();
        let title = sessions[0]["info"]["title"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let working = sessions.iter().any(at_work);
        let written_ms = order.iter().filter_map(|id| self.written.get(id)).max();
        Tree {
            id: root.to_string(),
            title,
            sessions,
            working,
            written_ms: written_ms.copied(),
        }
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
