//! OpenTelemetry in (docs/behaviour.md §7 "OpenTelemetry"): OTLP/HTTP at
//! `/v1/traces`, `/v1/logs` and `/v1/metrics`, protobuf or JSON, gzip or
//! not, any transfer. What is accepted is in the [`Store`] before the
//! sender hears so; the answers are the protocol's own (200 with an
//! `Export*ServiceResponse`, a partial success naming refused records and
//! what the limits cut, 400 for a body it cannot read, 408 for one too slow
//! to arrive, 413 past the size limits, 415 for a type it does not speak, 503
//! when the store cannot write), in the request's encoding. Who may post is
//! decided in front of it, as for every route (`access`).
//!
//! What a request costs is bounded by what it unpacks to, whatever it
//! writes to (docs/security.md "Telemetry"): its body is read within a time
//! and within the room all bodies share (`body`), one request is decoded at
//! a time, what it holds is cut to the SDKs' limits (`limits`), and it is cut
//! by session without a JSON tree (`parts`).

mod body;
mod feed;
mod limits;
mod parts;
mod requests;
mod store;

pub use feed::Feed;
pub use store::{Keeping, Store};

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use body::{Bodies, Encoding, Refusal};
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;
use requests::{Export, Refused};
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

/// The receiver: where it keeps what it accepts, and what it may hold at once.
pub struct Receiver {
    store: Arc<Store>,
    bodies: Bodies,
    /// One request decoded at a time: what decoding holds is a multiple of
    /// one request's unpacked size.
    decoding: Arc<Semaphore>,
}

impl Receiver {
    /// A receiver keeping what it accepts in `store`, reading each body
    /// within `body_timeout`.
    pub fn new(store: Arc<Store>, body_timeout: Duration) -> Arc<Receiver> {
        Arc::new(Receiver {
            store,
            bodies: Bodies::new(body_timeout),
            decoding: Arc::new(Semaphore::new(1)),
        })
    }
}

/// Removes the sessions of `store` past their age every hour, until shutdown.
pub fn sweep_hourly(store: Arc<Store>, mut shutdown: crate::shutdown::Shutdown) -> JoinHandle<()> {
    tokio::spawn(async move {
        while shutdown.sleep(Duration::from_secs(3600)).await {
            let store = Arc::clone(&store);
            if let Err(e) = tokio::task::spawn_blocking(move || store.sweep()).await {
                tracing::warn!("telemetry: the hourly sweep failed: {e}");
            }
        }
    })
}

/// The three OTLP/HTTP routes of `receiver`.
pub fn routes<S>(receiver: Arc<Receiver>) -> Router<S> {
    Router::new()
        .route("/v1/traces", post(receive::<ExportTraceServiceRequest>))
        .route("/v1/logs", post(receive::<ExportLogsServiceRequest>))
        .route("/v1/metrics", post(receive::<ExportMetricsServiceRequest>))
        .with_state(receiver)
}

/// `google.rpc.Status`, the body of every OTLP/HTTP error answer.
#[derive(Clone, PartialEq, prost::Message, Serialize)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
}

/// `google.rpc.Code` values the answers use.
const INVALID_ARGUMENT: i32 = 3;
const RESOURCE_EXHAUSTED: i32 = 8;
const UNAVAILABLE: i32 = 14;

/// Why a request was not accepted.
enum Failure {
    Refused(Refusal),
    /// The store could not write (the sender may retry).
    Unstored(String),
}

async fn receive<T: Export + Send + 'static>(
    State(receiver): State<Arc<Receiver>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let encoding = match body::encoding(&headers) {
        Ok(encoding) => encoding,
        Err(refusal) => return failure(Encoding::Json, Failure::Refused(refusal)),
    };
    let read = async {
        let gzip = body::gzipped(&headers)?;
        Ok::<_, Refusal>((body::read(&headers, body, &receiver.bodies).await?, gzip))
    };
    let (sent, gzip) = match read.await {
        Ok(read) => read,
        Err(refusal) => return failure(encoding, Failure::Refused(refusal)),
    };
    let Ok(turn) = Arc::clone(&receiver.decoding).acquire_owned().await else {
        return failure(
            encoding,
            Failure::Unstored("the receiver is stopping".into()),
        );
    };
    let store = Arc::clone(&receiver.store);
    let accepted = tokio::task::spawn_blocking(move || {
        let _turn = turn;
        let bytes = body::unpack(sent.bytes, gzip).map_err(Failure::Refused)?;
        let large = bytes.len() >= RETURNED_AFTER;
        let kept = accept::<T>(&store, encoding, &bytes);
        drop(bytes);
        if large {
            return_freed_memory();
        }
        kept
    })
    .await;
    match accepted {
        Ok(Ok(kept)) => success::<T>(encoding, kept),
        Ok(Err(fail)) => failure(encoding, fail),
        Err(e) => failure(
            encoding,
            Failure::Unstored(format!("the receiver failed: {e}")),
        ),
    }
}

/// Requests that unpack to this much or more give the memory they freed
/// back to the operating system once kept.
const RETURNED_AFTER: usize = 1 << 20;

/// Gives freed heap memory back to the operating system: glibc keeps what a
/// large request freed in its arenas, so the server's resident memory would
/// stay at its peak after one.
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator's arenas.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// What was refused of a request and what the limits cut.
struct Kept {
    refused: Refused,
    warning: Option<String>,
}

/// Decodes, vets, limits and stores one request; what it refused and cut.
fn accept<T: Export>(store: &Store, encoding: Encoding, bytes: &[u8]) -> Result<Kept, Failure> {
    let request: T =
        requests::decode(encoding, bytes).map_err(|e| Failure::Refused(Refusal::Unreadable(e)))?;
    let mut prepared = requests::prepare(request)
        .map_err(|e| Failure::Unstored(format!("cannot write the request as JSON: {e}")))?;
    let batch: Vec<(&str, &[String])> = prepared
        .parts
        .iter()
        .map(|p| (p.session.as_str(), p.lines.as_slice()))
        .collect();
    let unstored = store.append(&batch).map_err(|e| {
        tracing::error!("cannot keep telemetry in {}: {e}", store.dir().display());
        Failure::Unstored(format!("cannot keep telemetry: {e}"))
    })?;
    let over: i64 = unstored.iter().map(|&at| prepared.parts[at].records).sum();
    prepared.refused.add(
        over,
        "the telemetry folder is at its quota (--otlp-max-mb) with sessions being written",
    );
    Ok(Kept {
        refused: prepared.refused,
        warning: prepared.trimmed.warning(),
    })
}

/// A 200: the `Export*ServiceResponse`, with a partial success naming what
/// was refused, or, with nothing refused, warning of what the limits cut
/// (OTLP's partial success with a zero count). In JSON it is written here:
/// the crate's serde mapping writes the count as a number and an absent
/// partial success as `null`, where OTLP JSON has a string and no field.
fn success<T: Export>(encoding: Encoding, kept: Kept) -> Response {
    let Kept {
        mut refused,
        warning,
    } = kept;
    if let Some(warning) = warning {
        let joined = [refused.reason.as_str(), warning.as_str()];
        refused.reason = joined
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("; ");
    }
    let bytes = match encoding {
        Encoding::Protobuf => T::answer(refused).encode_to_vec(),
        Encoding::Json if refused.reason.is_empty() => b"{}".to_vec(),
        Encoding::Json => serde_json::json!({ "partialSuccess": {
            T::REJECTED_FIELD: refused.count.to_string(),
            "errorMessage": refused.reason,
        }})
        .to_string()
        .into_bytes(),
    };
    with_type(StatusCode::OK, encoding, bytes)
}

/// An error answer: its status and a `google.rpc.Status` body.
fn failure(encoding: Encoding, fail: Failure) -> Response {
    let (status, code, message) = match fail {
        Failure::Refused(Refusal::Unsupported(m)) => {
            (StatusCode::UNSUPPORTED_MEDIA_TYPE, INVALID_ARGUMENT, m)
        }
        Failure::Refused(Refusal::TooLarge) => (
            StatusCode::PAYLOAD_TOO_LARGE,
            RESOURCE_EXHAUSTED,
            format!(
                "a request is at most {} MB as sent and {} MB unpacked",
                body::MAX_SENT >> 20,
                body::MAX_UNPACKED >> 20
            ),
        ),
        Failure::Refused(Refusal::Unreadable(m)) => (StatusCode::BAD_REQUEST, INVALID_ARGUMENT, m),
        Failure::Refused(Refusal::TooSlow) => (
            StatusCode::REQUEST_TIMEOUT,
            UNAVAILABLE,
            "the body did not arrive in time (--body-timeout-secs)".to_string(),
        ),
        Failure::Unstored(m) => (StatusCode::SERVICE_UNAVAILABLE, UNAVAILABLE, m),
    };
    let status_body = RpcStatus { code, message };
    let bytes = match encoding {
        Encoding::Protobuf => status_body.encode_to_vec(),
        Encoding::Json => serde_json::to_vec(&status_body).unwrap_or_default(),
    };
    with_type(status, encoding, bytes)
}

/// `bytes` as a response in `encoding`, with `status`.
fn with_type(status: StatusCode, encoding: Encoding, bytes: Vec<u8>) -> Response {
    let content_type = match encoding {
        Encoding::Protobuf => "application/x-protobuf",
        Encoding::Json => "application/json",
    };
    let mut response = (status, bytes).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}
