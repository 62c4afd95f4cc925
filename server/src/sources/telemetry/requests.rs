//! The three OTLP export requests, decoded with the protocol's own messages
//! (`opentelemetry-proto`): the records a reader cannot place are refused
//! (a partial success), the rest held to the limits (`limits`) and split by
//! the session they belong to (core's rule, `parts`), each part a line of
//! OTLP JSON written straight from the decoded request.

use super::body::Encoding;
use super::limits::{Limited, Trimmed, SESSIONS};
use super::parts::{by_session, lines, point_count, Layered};
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsPartialSuccess, ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsPartialSuccess, ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Records refused from one request: how many, and why.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Refused {
    pub count: i64,
    pub reason: String,
}

impl Refused {
    /// These and `count` more, for `reason`.
    pub fn add(&mut self, count: i64, reason: &str) {
        if count == 0 {
            return;
        }
        self.count += count;
        if !self.reason.is_empty() {
            self.reason.push_str("; ");
        }
        self.reason.push_str(reason);
    }
}

/// An `Export*ServiceRequest`.
pub trait Export:
    prost::Message + Default + Serialize + DeserializeOwned + Sized + Limited + Layered
{
    /// Its answer, an `Export*ServiceResponse`.
    type Answer: prost::Message;

    /// The answer's count of refused records in OTLP JSON.
    const REJECTED_FIELD: &'static str;

    /// Drops the records no reader could place.
    fn vet(&mut self) -> Refused;

    /// The answer, with a partial success when some were refused.
    fn answer(refused: Refused) -> Self::Answer;
}

/// A request read from `bytes`.
pub fn decode<T: Export>(encoding: Encoding, bytes: &[u8]) -> Result<T, String> {
    match encoding {
        Encoding::Protobuf => T::decode(bytes).map_err(|e| format!("not OTLP protobuf: {e}")),
        Encoding::Json => serde_json::from_slice(bytes).map_err(|e| format!("not OTLP JSON: {e}")),
    }
}

/// A trace id: 16 bytes, not all zero.
fn is_trace_id(id: &[u8]) -> bool {
    id.len() == 16 && id.iter().any(|b| *b != 0)
}

/// A span id: 8 bytes, not all zero.
fn is_span_id(id: &[u8]) -> bool {
    id.len() == 8 && id.iter().any(|b| *b != 0)
}

fn refused(count: i64, reason: &str) -> Refused {
    match count {
        0 => Refused::default(),
        _ => Refused {
            count,
            reason: reason.to_string(),
        },
    }
}

impl Export for ExportTraceServiceRequest {
    type Answer = ExportTraceServiceResponse;
    const REJECTED_FIELD: &'static str = "rejectedSpans";

    fn vet(&mut self) -> Refused {
        let mut count = 0;
        for scope in self
            .resource_spans
            .iter_mut()
            .flat_map(|r| r.scope_spans.iter_mut())
        {
            let before = scope.spans.len();
            scope
                .spans
                .retain(|s| is_trace_id(&s.trace_id) && is_span_id(&s.span_id));
            count += (before - scope.spans.len()) as i64;
        }
        refused(count, "spans need a 16-byte trace id and an 8-byte span id")
    }

    fn answer(refused: Refused) -> Self::Answer {
        ExportTraceServiceResponse {
            partial_success: (!refused.reason.is_empty()).then_some(ExportTracePartialSuccess {
                rejected_spans: refused.count,
                error_message: refused.reason,
            }),
        }
    }
}

impl Export for ExportLogsServiceRequest {
    type Answer = ExportLogsServiceResponse;
    const REJECTED_FIELD: &'static str = "rejectedLogRecords";

    fn vet(&mut self) -> Refused {
        let mut count = 0;
        for scope in self
            .resource_logs
            .iter_mut()
            .flat_map(|r| r.scope_logs.iter_mut())
        {
            let before = scope.log_records.len();
            scope.log_records.retain(|r| {
                (r.trace_id.is_empty() || is_trace_id(&r.trace_id))
                    && (r.span_id.is_empty() || is_span_id(&r.span_id))
            });
            count += (before - scope.log_records.len()) as i64;
        }
        refused(
            count,
            "a log record's trace id is 16 bytes and its span id 8 bytes, or they are absent",
        )
    }

    fn answer(refused: Refused) -> Self::Answer {
        ExportLogsServiceResponse {
            partial_success: (!refused.reason.is_empty()).then_some(ExportLogsPartialSuccess {
                rejected_log_records: refused.count,
                error_message: refused.reason,
            }),
        }
    }
}

impl Export for ExportMetricsServiceRequest {
    type Answer = ExportMetricsServiceResponse;
    const REJECTED_FIELD: &'static str = "rejectedDataPoints";

    fn vet(&mut self) -> Refused {
        let mut count = 0;
        for scope in self
            .resource_metrics
            .iter_mut()
            .flat_map(|r| r.scope_metrics.iter_mut())
        {
            scope.metrics.retain(|m| {
                let named = !m.name.is_empty();
                if !named {
                    count += point_count(m) as i64;
                }
                named
            });
        }
        refused(count, "a metric needs a name")
    }

    fn answer(refused: Refused) -> Self::Answer {
        ExportMetricsServiceResponse {
            partial_success: (!refused.reason.is_empty()).then_some(ExportMetricsPartialSuccess {
                rejected_data_points: refused.count,
                error_message: refused.reason,
            }),
        }
    }
}

/// One session's part of a request: its session, its lines of OTLP JSON and
/// how many records they hold.
pub struct Part {
    pub session: String,
    pub lines: Vec<String>,
    pub records: i64,
}

/// A request ready to keep: its parts, what was refused and what was cut.
pub struct Prepared {
    pub parts: Vec<Part>,
    pub refused: Refused,
    pub trimmed: Trimmed,
}

/// `request` vetted, held to the limits and cut by session (at most
/// [`SESSIONS`]; the records of the others refused), each part written as
/// lines of OTLP JSON.
pub fn prepare<T: Export>(mut request: T) -> serde_json::Result<Prepared> {
    let mut refused = request.vet();
    let trimmed = request.limit();
    let mut parts = by_session(request);
    if parts.len() > SESSIONS {
        let over: i64 = parts.drain(SESSIONS..).map(|(_, p)| p.records()).sum();
        refused.add(
            over,
            &format!("a request may name at most {SESSIONS} sessions"),
        );
    }
    let parts = parts
        .into_iter()
        .map(|(session, part)| {
            Ok(Part {
                records: part.records(),
                lines: lines(part)?,
                session,
            })
        })
        .collect::<serde_json::Result<_>>()?;
    Ok(Prepared {
        parts,
        refused,
        trimmed,
    })
}

/// One line of OTLP JSON (an export request of any of the three kinds, as
/// a Collector's file exporter writes them) prepared as a posted request
/// is; `None` for a line that is no export request.
pub fn prepare_line(line: &str) -> Option<Prepared> {
    fn read<T: Export>(line: &str) -> Option<Prepared> {
        prepare(serde_json::from_str::<T>(line).ok()?).ok()
    }
    let start = line.trim_start().get(..40).unwrap_or(line.trim_start());
    if start.contains("\"resourceSpans\"") {
        read::<ExportTraceServiceRequest>(line)
    } else if start.contains("\"resourceLogs\"") {
        read::<ExportLogsServiceRequest>(line)
    } else if start.contains("\"resourceMetrics\"") {
        read::<ExportMetricsServiceRequest>(line)
    } else {
        None
    }
}
