//! The three OTLP export requests, decoded with the protocol's own messages
//! (`opentelemetry-proto`): the records a reader cannot place are refused
//! (a partial success), the rest split by the session they belong to
//! (core's rule, `otlp::split`).

use super::body::Encoding;
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsPartialSuccess, ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsPartialSuccess, ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::Metric;
use serde::de::DeserializeOwned;
use serde::Serialize;
use taskview_core::read::import::otlp::split;

/// Records refused from one request: how many, and why.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Refused {
    pub count: i64,
    pub reason: String,
}

/// An `Export*ServiceRequest`.
pub trait Export: prost::Message + Default + Serialize + DeserializeOwned + Sized {
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
            partial_success: (refused.count > 0).then_some(ExportTracePartialSuccess {
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
            partial_success: (refused.count > 0).then_some(ExportLogsPartialSuccess {
                rejected_log_records: refused.count,
                error_message: refused.reason,
            }),
        }
    }
}

/// How many data points a metric has.
fn point_count(metric: &Metric) -> usize {
    match &metric.data {
        None => 0,
        Some(Data::Gauge(g)) => g.data_points.len(),
        Some(Data::Sum(s)) => s.data_points.len(),
        Some(Data::Histogram(h)) => h.data_points.len(),
        Some(Data::ExponentialHistogram(h)) => h.data_points.len(),
        Some(Data::Summary(s)) => s.data_points.len(),
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
                    count += point_count(m).max(1) as i64;
                }
                named
            });
        }
        refused(count, "a metric needs a name")
    }

    fn answer(refused: Refused) -> Self::Answer {
        ExportMetricsServiceResponse {
            partial_success: (refused.count > 0).then_some(ExportMetricsPartialSuccess {
                rejected_data_points: refused.count,
                error_message: refused.reason,
            }),
        }
    }
}

/// `request` split by session (core's rule, `otlp::split`), each part a
/// line of OTLP JSON as the receiver keeps it.
pub fn lines_by_session<T: Export>(request: &T) -> serde_json::Result<Vec<(String, String)>> {
    let value = serde_json::to_value(request)?;
    Ok(split::by_session(&value)
        .into_iter()
        .map(|(session, part)| (session, part.to_string()))
        .collect())
}

/// One line of OTLP JSON (an export request of any of the three kinds, as
/// a Collector's file exporter writes them) split by session, each part a
/// line of its own as the receiver keeps it; `None` for a line that is no
/// export request.
pub fn split_line(line: &str) -> Option<Vec<(String, String)>> {
    fn split<T: Export>(value: serde_json::Value) -> Option<Vec<(String, String)>> {
        let mut request: T = serde_json::from_value(value).ok()?;
        request.vet();
        lines_by_session(&request).ok()
    }
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let object = value.as_object()?;
    if object.contains_key("resourceSpans") {
        split::<ExportTraceServiceRequest>(value)
    } else if object.contains_key("resourceLogs") {
        split::<ExportLogsServiceRequest>(value)
    } else if object.contains_key("resourceMetrics") {
        split::<ExportMetricsServiceRequest>(value)
    } else {
        None
    }
}
