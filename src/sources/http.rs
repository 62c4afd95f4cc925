//! HTTP reads from the kandev-compatible backend (kandev-wire.md §5.1): the
//! workflow list, a board snapshot, a task, message pages and turns. Every
//! body is read leniently; a failure says what went wrong, for display.

use crate::api::ApiBase;
use serde_json::Value;
use taskview_core::board::{BoardSnapshot, TaskPatch};
use taskview_core::protocol::{
    MessagesPage, MessagesQuery, TurnDto, TurnList, WorkflowDto, WorkflowList,
};

/// Why a read failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HttpError {
    /// No answer (network error, server down, CORS).
    Unreachable(String),
    /// An answer with an error status.
    Status { url: String, status: u16 },
    /// An answer that is not the expected JSON.
    Invalid(String),
}

impl HttpError {
    /// The server said 404 (an unknown task, session, workflow or cursor).
    pub fn is_not_found(&self) -> bool {
        matches!(self, HttpError::Status { status: 404, .. })
    }
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HttpError::Unreachable(reason) | HttpError::Invalid(reason) => f.write_str(reason),
            HttpError::Status { url, status } => write!(f, "{url} answered HTTP {status}"),
        }
    }
}

/// A path segment, percent-encoded.
fn segment(id: &str) -> String {
    js_sys::encode_uri_component(id).into()
}

/// GETs `url` and reads the body as text.
pub async fn get_text(url: &str) -> Result<String, HttpError> {
    let response = gloo_net::http::Request::get(url)
        .send()
        .await
        .map_err(|e| HttpError::Unreachable(format!("could not reach {url}: {e}")))?;
    if !response.ok() {
        return Err(HttpError::Status {
            url: url.to_string(),
            status: response.status(),
        });
    }
    response
        .text()
        .await
        .map_err(|e| HttpError::Unreachable(format!("could not read {url}: {e}")))
}

/// GETs `path` under the API base and reads the body as JSON.
async fn get(api: &ApiBase, path: &str) -> Result<Value, HttpError> {
    let url = api.url(path);
    let text = get_text(&url).await?;
    serde_json::from_str(&text).map_err(|e| HttpError::Invalid(format!("{url} is not JSON: {e}")))
}

/// Reads each element of the array at `key` as `T`, skipping unreadable ones.
fn lenient_list<T: serde::de::DeserializeOwned>(body: &Value, key: &str) -> Vec<T> {
    body.get(key)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| serde_json::from_value(item.clone()).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// `GET /api/v1/workflows`.
pub async fn workflows(api: &ApiBase) -> Result<WorkflowList, HttpError> {
    let body = get(api, "/api/v1/workflows").await?;
    let workflows: Vec<WorkflowDto> = lenient_list(&body, "workflows");
    Ok(WorkflowList {
        total: workflows.len() as u64,
        workflows,
    })
}

/// `GET /api/v1/workflows/{id}/snapshot`.
pub async fn snapshot(api: &ApiBase, workflow_id: &str) -> Result<BoardSnapshot, HttpError> {
    let path = format!("/api/v1/workflows/{}/snapshot", segment(workflow_id));
    let body = get(api, &path).await?;
    BoardSnapshot::from_snapshot(&body)
        .ok_or_else(|| HttpError::Invalid(format!("{path} holds no workflow")))
}

/// `GET /api/v1/tasks/{id}`, as a task patch (title, step, primary session…).
pub async fn task(api: &ApiBase, task_id: &str) -> Result<TaskPatch, HttpError> {
    let path = format!("/api/v1/tasks/{}", segment(task_id));
    let body = get(api, &path).await?;
    TaskPatch::from_value(&body).ok_or_else(|| HttpError::Invalid(format!("{path} holds no task")))
}

/// `GET /api/v1/task-sessions/{sid}/messages?…`.
pub async fn messages(
    api: &ApiBase,
    session_id: &str,
    query: &MessagesQuery,
) -> Result<MessagesPage, HttpError> {
    let path = format!(
        "/api/v1/task-sessions/{}/messages?{}",
        segment(session_id),
        query.to_query_string()
    );
    Ok(MessagesPage::from_value(&get(api, &path).await?))
}

/// `GET /api/v1/task-sessions/{sid}/turns`.
pub async fn turns(api: &ApiBase, session_id: &str) -> Result<TurnList, HttpError> {
    let path = format!("/api/v1/task-sessions/{}/turns", segment(session_id));
    let body = get(api, &path).await?;
    let turns: Vec<TurnDto> = lenient_list(&body, "turns");
    Ok(TurnList {
        total: turns.len() as u64,
        turns,
    })
}
