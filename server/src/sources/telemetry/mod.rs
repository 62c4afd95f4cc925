//! OpenTelemetry in (docs/behaviour.md §7 "OpenTelemetry"): OTLP/HTTP at
//! `/v1/traces`, `/v1/logs` and `/v1/metrics`, protobuf or JSON, gzip or
//! not, any transfer. What is accepted is in the [`Store`] before the
//! sender hears so; the answers are the protocol's own (200 with an
//! `Export*ServiceResponse`, a partial success naming refused records, 400
//! for a body it cannot read, 413 past the size limits, 415 for a type it
//! does not speak, 503 when the store cannot write), in the request's
//! encoding. Who may post is decided in front of it, as for every route
//! (`access`).

mod body;
mod feed;
mod requests;
mod store;

pub use feed::Feed;
pub use store::Store;

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use body::{Encoding, Refusal};
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;
use requests::{Export, Refused};
use serde::Serialize;
use std::sync::Arc;

/// The three OTLP/HTTP routes, keeping what they accept in `store`.
pub fn routes<S>(store: Arc<Store>) -> Router<S> {
    Router::new()
        .route("/v1/traces", post(receive::<ExportTraceServiceRequest>))
        .route("/v1/logs", post(receive::<ExportLogsServiceRequest>))
        .route("/v1/metrics", post(receive::<ExportMetricsServiceRequest>))
        .with_state(store)
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
    State(store): State<Arc<Store>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let encoding = match body::encoding(&headers) {
        Ok(encoding) => encoding,
        Err(refusal) => return failure(Encoding::Json, Failure::Refused(refusal)),
    };
    let bytes = match body::read(&headers, body).await {
        Ok(bytes) => bytes,
        Err(refusal) => return failure(encoding, Failure::Refused(refusal)),
    };
    let accepted = tokio::task::spawn_blocking(move || accept::<T>(&store, encoding, &bytes)).await;
    match accepted {
        Ok(Ok(refused)) => success::<T>(encoding, refused),
        Ok(Err(fail)) => failure(encoding, fail),
        Err(e) => failure(
            encoding,
            Failure::Unstored(format!("the receiver failed: {e}")),
        ),
    }
}

/// Decodes, vets and stores one request; what it refused.
fn accept<T: Export>(store: &Store, encoding: Encoding, bytes: &[u8]) -> Result<Refused, Failure> {
    let mut request: T =
        requests::decode(encoding, bytes).map_err(|e| Failure::Refused(Refusal::Unreadable(e)))?;
    let refused = request.vet();
    let lines = requests::lines_by_session(&request)
        .map_err(|e| Failure::Unstored(format!("cannot write the request as JSON: {e}")))?;
    store.append(&lines).map_err(|e| {
        tracing::error!("cannot keep telemetry in {}: {e}", store.dir().display());
        Failure::Unstored(format!("cannot keep telemetry: {e}"))
    })?;
    Ok(refused)
}

/// A 200: the `Export*ServiceResponse`, with a partial success naming what
/// was refused. In JSON it is written here: the crate's serde mapping
/// writes the count as a number and an absent partial success as `null`,
/// where OTLP JSON has a string and no field.
fn success<T: Export>(encoding: Encoding, refused: Refused) -> Response {
    let bytes = match encoding {
        Encoding::Protobuf => T::answer(refused).encode_to_vec(),
        Encoding::Json if refused.count == 0 => b"{}".to_vec(),
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
