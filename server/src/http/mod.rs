//! HTTP: the kandev API subset taskview reads (docs/protocol.md §5.1), the
//! scenario status, `/ws`, and the built app with an SPA fallback. Where a
//! request goes: the routes here; the app's files (`assets`) under its
//! Content-Security-Policy (`policy`); the WebSocket (`ws`) and its fault
//! injection for tests (`faults`).

pub(crate) mod assets;
pub mod connections;
pub mod faults;
pub mod policy;
mod remote_image;
pub(crate) mod ws;

use crate::app_files::compress::PER_REQUEST_LEVEL;
use crate::app_files::AppFiles;
use crate::backend::Backend;
use assets::{Assets, FirstVisit};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use policy::Policy;
use serde::Deserialize;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use taskview_core::read::client::preload;
use taskview_core::read::protocol::{
    ErrorCode, ErrorPayload, MessagesPage, MessagesQuery, SessionDto, Snapshot, TaskDto, TurnList,
    WorkflowDto, WorkflowList,
};
use taskview_core::read::route::Route;
use taskview_core::screen::markdown::images::FRAME_PATH;
use taskview_core::screen::markdown::RemoteImages;
use taskview_core::screen::view::first_screen::FirstScreen;
use tower_http::compression::{CompressionLayer, CompressionLevel};
use tower_http::trace::TraceLayer;

/// Shared by every HTTP handler and WebSocket connection.
#[derive(Clone)]
pub(crate) struct AppState {
    pub(crate) backend: Arc<Backend>,
    pub(crate) drop_ws_every: Option<u64>,
    pub(crate) inject_malformed_every: Option<u64>,
    pub(crate) frame_per_event: bool,
    pub(crate) shutdown: crate::shutdown::Shutdown,
}

/// An error response: a status and an `{code, message}` body.
struct ApiError(StatusCode, ErrorPayload);

impl ApiError {
    fn not_found(what: &str, id: &str) -> ApiError {
        ApiError(
            StatusCode::NOT_FOUND,
            ErrorPayload::new(ErrorCode::NotFound, format!("{what} {id} not found")),
        )
    }
}

impl From<ErrorPayload> for ApiError {
    fn from(e: ErrorPayload) -> ApiError {
        let status = match e.code() {
            Some(ErrorCode::NotFound) => StatusCode::NOT_FOUND,
            Some(ErrorCode::BadRequest | ErrorCode::ValidationError) => StatusCode::BAD_REQUEST,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError(status, e)
    }
}

impl From<QueryRejection> for ApiError {
    fn from(e: QueryRejection) -> ApiError {
        ApiError(
            StatusCode::BAD_REQUEST,
            ErrorPayload::new(ErrorCode::ValidationError, e.body_text()),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(self.1)).into_response()
    }
}

type ApiResult<T> = Result<Json<T>, ApiError>;

/// The whole app: `/api/…`, `/ws`, and the app's files (when given) with
/// `index.html` for every other path (see [`assets`](crate::http::assets)).
/// With a telemetry store, the OTLP/HTTP receiver too (`/v1/…`, docs/behaviour.md §7 "OpenTelemetry").
/// Who may read any of it is decided in front of it all (`access`), and the
/// request log (`trace_layer`) is in front of that.
pub(crate) fn router(
    state: AppState,
    files: Option<AppFiles>,
    policy: &Policy,
    telemetry: Option<Arc<crate::sources::telemetry::Receiver>>,
) -> Router {
    let ancestors = policy.ancestors();
    let app = Router::new()
        .nest("/api", api_routes())
        .route("/ws", get(ws::upgrade))
        .route(
            FRAME_PATH,
            get(move |query| async move { remote_image::page(query, &ancestors) }),
        )
        .with_state(state.clone());
    let app = match telemetry {
        Some(receiver) => app.merge(crate::sources::telemetry::routes(receiver)),
        None => app,
    };
    let app = match files {
        Some(files) => {
            let assets = Arc::new(Assets::new(files, policy.header(), policy.page_meta()));
            let backend = Arc::clone(&state.backend);
            let images = policy.images();
            app.fallback(move |request: axum::extract::Request| async move {
                let page = first_visit(&backend, request.uri(), images);
                assets.respond(request, page).await
            })
        }
        None => app.fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                "taskview serve runs with --no-dist: only /api and /ws are served\n",
            )
        }),
    };
    app
}

/// How the request log names a request.
type MakeSpan = fn(&axum::http::Request<axum::body::Body>) -> tracing::Span;
/// The request log's layer.
type RequestLog = TraceLayer<
    tower_http::classify::SharedClassifier<tower_http::classify::ServerErrorsAsFailures>,
    MakeSpan,
>;

/// The request log: one span per request, at debug, its URI with any
/// token's value hidden (`access::redacted`).
pub(crate) fn trace_layer() -> RequestLog {
    TraceLayer::new_for_http().make_span_with(request_span as MakeSpan)
}

fn request_span(request: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    tracing::debug_span!(
        "request",
        method = %request.method(),
        uri = %crate::access::redacted(request.uri()),
        version = ?request.version(),
    )
}

/// What the app's page at `uri` gets for a first visit (docs/behaviour.md §10), on a task
/// page of a task this backend has (`core::client::preload`): the reads it
/// makes first, announced (`Link`), so they travel with the app's files, and
/// its first screen, written with the newest messages it will show first.
fn first_visit(backend: &Backend, uri: &Uri, images: RemoteImages) -> FirstVisit {
    let Some(task_id) = preload::task_route(uri.path(), uri.query().unwrap_or_default()) else {
        return FirstVisit::default();
    };
    let Some(task) = backend.task(&task_id) else {
        return FirstVisit::default();
    };
    let session = task.primary_session_id.as_deref().filter(|s| !s.is_empty());
    let reads = preload::task_page_reads(&task_id, session);
    let screen = session.and_then(|session| {
        let page = backend
            .messages_page(session, &preload::preview_query())
            .ok()?;
        let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
        let screen = FirstScreen::of(
            &task_id,
            &task.title,
            Some(task.active_subagent_count),
            session,
            &page,
            i64::try_from(now.as_millis()).ok()?,
        );
        let embed = Route::of(uri.path()).embed;
        (!screen.rows.is_empty()).then(|| taskview_app::first_screen::write(&screen, embed, images))
    });
    FirstVisit {
        preload: HeaderValue::from_str(&preload::link_header(&reads)).ok(),
        screen,
    }
}

fn api_routes() -> Router<AppState> {
    let mut api = Router::new()
        .route("/v1/workspaces", get(workspaces))
        .route("/v1/workflows", get(workflows))
        .route("/v1/workflows/{id}", get(workflow))
        .route("/v1/workflows/{id}/snapshot", get(snapshot))
        .route("/v1/tasks/{id}", get(task))
        .route("/v1/tasks/{id}/sessions", get(task_sessions))
        .route("/v1/scenario", get(scenario));
    for prefix in ["/v1/task-sessions", "/v1/agent-sessions"] {
        api = api
            .route(&format!("{prefix}/{{sid}}"), get(session))
            .route(&format!("{prefix}/{{sid}}/messages"), get(messages))
            .route(&format!("{prefix}/{{sid}}/turns"), get(turns));
    }
    api.fallback(|| async {
        ApiError(
            StatusCode::NOT_FOUND,
            ErrorPayload::new(ErrorCode::NotFound, "no such API endpoint"),
        )
    })
    .layer(compression())
}

/// Brotli or gzip, as `Accept-Encoding` asks (brotli first), for the API's
/// JSON: message pages compress 4-9x. Compressed per response, so at a
/// quick level (the app's own files are compressed once, at build time).
fn compression() -> CompressionLayer {
    CompressionLayer::new()
        .no_deflate()
        .no_zstd()
        .quality(CompressionLevel::Precise(PER_REQUEST_LEVEL as i32))
}

/// kandev's web client lists workspaces before it asks for their boards.
async fn workspaces(
    State(state): State<AppState>,
) -> Json<taskview_core::read::protocol::WorkspaceList> {
    Json(state.backend.workspaces())
}

#[derive(Deserialize)]
struct WorkflowsQuery {
    workspace_id: Option<String>,
}

async fn workflows(
    State(state): State<AppState>,
    query: Result<Query<WorkflowsQuery>, QueryRejection>,
) -> ApiResult<WorkflowList> {
    let Query(q) = query?;
    let workspace = q.workspace_id.filter(|w| !w.is_empty());
    Ok(Json(state.backend.workflows(workspace.as_deref())))
}

async fn workflow(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<WorkflowDto> {
    let workflow = state.backend.workflow(&id);
    workflow
        .map(Json)
        .ok_or_else(|| ApiError::not_found("workflow", &id))
}

async fn snapshot(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Snapshot> {
    let snapshot = state.backend.snapshot(&id);
    snapshot
        .map(Json)
        .ok_or_else(|| ApiError::not_found("workflow", &id))
}

async fn task(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<TaskDto> {
    let task = state.backend.task(&id);
    task.map(Json)
        .ok_or_else(|| ApiError::not_found("task", &id))
}

async fn task_sessions(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<serde_json::Value> {
    let sessions = state
        .backend
        .task_sessions(&id)
        .ok_or_else(|| ApiError::not_found("task", &id))?;
    Ok(Json(
        serde_json::json!({ "total": sessions.len(), "sessions": sessions }),
    ))
}

async fn session(State(state): State<AppState>, Path(sid): Path<String>) -> ApiResult<SessionDto> {
    let session = state.backend.session(&sid);
    session
        .map(Json)
        .ok_or_else(|| ApiError::not_found("session", &sid))
}

async fn messages(
    State(state): State<AppState>,
    Path(sid): Path<String>,
    query: Result<Query<MessagesQuery>, QueryRejection>,
) -> ApiResult<MessagesPage> {
    let Query(q) = query?;
    Ok(Json(state.backend.messages_page(&sid, &q)?))
}

async fn turns(State(state): State<AppState>, Path(sid): Path<String>) -> ApiResult<TurnList> {
    let turns = state.backend.turns(&sid);
    turns
        .map(Json)
        .ok_or_else(|| ApiError::not_found("session", &sid))
}

async fn scenario(State(state): State<AppState>) -> Json<crate::backend::ScenarioStatus> {
    Json(state.backend.scenario())
}
