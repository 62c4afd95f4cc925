//! A reader's pages of another machine's transcript, read from the store
//! when asked (docs/protocol.md §5.1 paging: `before`/`after` exclusive
//! message ids, `limit` from the oldest or the newest end, `has_more`):
//! an index range scan by position, so the newest page of a session of any
//! size costs its own rows. Nothing of it is kept afterwards.

use super::link::Link;
use super::names::Names;
use super::{wait_for, StoreError};
use crate::backend::pagination::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::backend::remote::Pager;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use taskview_core::read::protocol::{
    ErrorCode, ErrorPayload, MessagesPage, MessagesQuery, SortOrder, TurnDto,
};
use tokio::runtime::Handle;
use tokio_postgres::Client;

/// How long a page may take before the reader answers that the store is unreachable.
const PAGE_TIMEOUT: Duration = Duration::from_secs(10);

/// Pages remote sessions from the store.
pub(super) struct StorePager {
    handle: Handle,
    link: Arc<Link>,
    names: Arc<Names>,
}

impl StorePager {
    pub(super) fn new(handle: Handle, link: Arc<Link>, names: Arc<Names>) -> StorePager {
        StorePager {
            handle,
            link,
            names,
        }
    }

    /// The machine and id there of session `session_id`, or a 404.
    fn there(&self, session_id: &str) -> Result<(String, String), ErrorPayload> {
        self.names.session(session_id).ok_or_else(|| {
            ErrorPayload::new(
                ErrorCode::NotFound,
                format!("session {session_id} not found"),
            )
        })
    }

    /// Runs `work` against the store and waits for it.
    fn ask<T: Send + 'static>(
        &self,
        work: impl std::future::Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> Result<T, ErrorPayload> {
        let answer = wait_for(&self.handle, work, PAGE_TIMEOUT)
            .unwrap_or(Err(StoreError::Timeout(PAGE_TIMEOUT)));
        answer.map_err(|e| match e {
            StoreError::UnknownCursor(_) => ErrorPayload::new(ErrorCode::NotFound, e.to_string()),
            _ => ErrorPayload::new(ErrorCode::InternalError, e.to_string()),
        })
    }
}

impl Pager for StorePager {
    fn page(&self, session_id: &str, query: &MessagesQuery) -> Result<MessagesPage, ErrorPayload> {
        let (machine, there) = self.there(session_id)?;
        let link = Arc::clone(&self.link);
        let query = query.clone();
        let (rows, has_more) = {
            let machine = machine.clone();
            self.ask(async move {
                let client = link.client().await?;
                read_page(&client, &machine, &there, &query).await
            })?
        };
        let messages: Vec<Value> = rows
            .into_iter()
            .map(|body| self.rehome(body, &machine, session_id))
            .collect();
        let cursor = messages
            .last()
            .and_then(|m| m.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string);
        Ok(MessagesPage {
            total: messages.len() as u64,
            messages,
            has_more,
            cursor,
        })
    }

    fn turns(&self, session_id: &str) -> Result<Vec<TurnDto>, ErrorPayload> {
        let (machine, there) = self.there(session_id)?;
        let link = Arc::clone(&self.link);
        let bodies = {
            let machine = machine.clone();
            self.ask(async move {
                let client = link.client().await?;
                let rows = client
                    .query(
                        "SELECT body FROM taskview_turns WHERE machine = $1 AND session_id = $2
                         ORDER BY body->>'started_at', turn_id",
                        &[&machine, &there],
                    )
                    .await?;
                Ok(rows
                    .iter()
                    .map(|r| r.get::<_, Value>(0))
                    .collect::<Vec<_>>())
            })?
        };
        let turns = bodies
            .into_iter()
            .filter_map(|body| serde_json::from_value::<TurnDto>(body).ok())
            .map(|mut turn| {
                turn.task_id = self.names.task(&machine, &turn.task_id);
                turn.session_id = session_id.to_string();
                turn
            })
            .collect();
        Ok(turns)
    }
}

impl StorePager {
    /// A message as written by `machine`, in session `session_id` here.
    fn rehome(&self, mut body: Value, machine: &str, session_id: &str) -> Value {
        if let Some(fields) = body.as_object_mut() {
            let task = fields
                .get("task_id")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let task = self.names.task(machine, task);
            fields.insert("task_id".into(), task.into());
            fields.insert("session_id".into(), session_id.into());
        }
        body
    }
}

/// The bodies of a page of `machine`'s session `session`, and whether its
/// range holds more.
async fn read_page(
    client: &Client,
    machine: &str,
    session: &str,
    query: &MessagesQuery,
) -> Result<(Vec<Value>, bool), StoreError> {
    let after = cursor(client, machine, session, query.after.as_deref()).await?;
    let before = cursor(client, machine, session, query.before.as_deref()).await?;
    let (lo_pos, lo_id) = after.unwrap_or((-1, String::new()));
    let (hi_pos, hi_id) = before.unwrap_or((i64::MAX, String::new()));
    let limit = match query.limit.map(|l| l as usize) {
        None | Some(0) => DEFAULT_LIMIT,
        Some(l) => l.min(MAX_LIMIT),
    };
    let order = match query.sort.unwrap_or_default() {
        SortOrder::Asc => "pos, message_id",
        SortOrder::Desc => "pos DESC, message_id DESC",
    };
    let sql = format!(
        "SELECT body FROM taskview_messages
         WHERE machine = $1 AND session_id = $2 AND NOT deleted
           AND (pos, message_id) > ($3, $4) AND (pos, message_id) < ($5, $6)
         ORDER BY {order} LIMIT $7"
    );
    let fetch = (limit + 1) as i64;
    let rows = client
        .query(
            &sql,
            &[&machine, &session, &lo_pos, &lo_id, &hi_pos, &hi_id, &fetch],
        )
        .await?;
    let has_more = rows.len() > limit;
    let bodies = rows
        .iter()
        .take(limit)
        .map(|r| r.get::<_, Value>(0))
        .collect();
    Ok((bodies, has_more))
}

/// Where message `id` sits in the session: its position and id; `None`
/// without a cursor; an error for an id the session does not hold.
async fn cursor(
    client: &Client,
    machine: &str,
    session: &str,
    id: Option<&str>,
) -> Result<Option<(i64, String)>, StoreError> {
    let Some(id) = id.filter(|id| !id.is_empty()) else {
        return Ok(None);
    };
    let row = client
        .query_opt(
            "SELECT pos FROM taskview_messages
             WHERE machine = $1 AND session_id = $2 AND message_id = $3",
            &[&machine, &session, &id],
        )
        .await?;
    match row {
        Some(row) => Ok(Some((row.get(0), id.to_string()))),
        None => Err(StoreError::UnknownCursor(id.to_string())),
    }
}
