//! HTTP reads from the kandev-compatible backend (docs/protocol.md §5.1): the
//! workflow list, a board snapshot, a task, message pages and turns. Every
//! body is read leniently; a failure says what went wrong, for display.

use crate::api::ApiBase;
use serde_json::Value;
use taskview_core::model::board::{BoardSnapshot, TaskPatch};
use taskview_core::read::protocol::{
    messages_path, snapshot_path, task_path, turns_path, MessagesPage, MessagesQuery, TurnDto,
    TurnList, WorkflowDto, WorkflowList, WORKFLOWS_PATH,
};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

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

/// GETs `url`: the response when it came with a success status.
async fn fetch(url: &str) -> Result<web_sys::Response, HttpError> {
    let unreachable =
        |e| HttpError::Unreachable(format!("could not reach {url}: {}", js_error(&e)));
    let promise = web_sys::window()
        .ok_or_else(|| HttpError::Unreachable("no window to fetch from".into()))?
        .fetch_with_str(url);
    let response: web_sys::Response = JsFuture::from(promise)
        .await
        .map_err(unreachable)?
        .unchecked_into();
    if !response.ok() {
        return Err(HttpError::Status {
            url: url.to_string(),
            status: response.status(),
        });
    }
    Ok(response)
}

/// Reads a response's body through `read` (`text()`, `arrayBuffer()`).
async fn body(url: &str, read: Result<js_sys::Promise, JsValue>) -> Result<JsValue, HttpError> {
    let unreadable = |e| HttpError::Unreachable(format!("could not read {url}: {}", js_error(&e)));
    JsFuture::from(read.map_err(unreadable)?)
        .await
        .map_err(unreadable)
}

/// A thrown JS value as text (`TypeError: Failed to fetch`).
fn js_error(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.to_string()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// GETs `url` and reads the body as text.
pub async fn get_text(url: &str) -> Result<String, HttpError> {
    let response = fetch(url).await?;
    let text = body(url, response.text()).await?;
    Ok(text.as_string().unwrap_or_default())
}

/// GETs `url` and reads the body as bytes.
pub async fn get_bytes(url: &str) -> Result<Vec<u8>, HttpError> {
    let response = fetch(url).await?;
    let buffer = body(url, response.array_buffer()).await?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
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
    let body = get(api, WORKFLOWS_PATH).await?;
    let workflows: Vec<WorkflowDto> = lenient_list(&body, "workflows");
    Ok(WorkflowList {
        total: workflows.len() as u64,
        workflows,
    })
}

/// `GET /api/v1/workflows/{id}/snapshot`.
pub async fn snapshot(api: &ApiBase, workflow_id: &str) -> Result<BoardSnapshot, HttpError> {
    let path = snapshot_path(workflow_id);
    let body = get(api, &path).await?;
    BoardSnapshot::from_snapshot(&body)
        .ok_or_else(|| HttpError::Invalid(format!("{path} holds no workflow")))
}

/// `GET /api/v1/tasks/{id}`, as a task patch (title, step, primary session…).
pub async fn task(api: &ApiBase, task_id: &str) -> Result<TaskPatch, HttpError> {
    let path = task_path(task_id);
    let body = get(api, &path).await?;
    TaskPatch::from_value(&body).ok_or_else(|| HttpError::Invalid(format!("{path} holds no task")))
}

/// `GET /api/v1/task-sessions/{sid}/messages?…`.
pub async fn messages(
    api: &ApiBase,
    session_id: &str,
    query: &MessagesQuery,
) -> Result<MessagesPage, HttpError> {
    let path = messages_path(session_id, query);
    Ok(MessagesPage::from_value(&get(api, &path).await?))
}

/// `GET /api/v1/task-sessions/{sid}/turns`.
pub async fn turns(api: &ApiBase, session_id: &str) -> Result<TurnList, HttpError> {
    let path = turns_path(session_id);
    let body = get(api, &path).await?;
    let turns: Vec<TurnDto> = lenient_list(&body, "turns");
    Ok(TurnList {
        total: turns.len() as u64,
        turns,
    })
}
