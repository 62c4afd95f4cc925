//! The three OTLP export requests, decoded with the protocol's own messages
//! (`opentelemetry-proto`): the records a reader cannot place are refused
//! (a partial success), the rest split by the session they belong to.

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
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::logs::v1::{ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::{Metric, ResourceMetrics, ScopeMetrics};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeMap;

/// The attributes that name a record's session, first found wins: on the
/// record, then on its resource. Claude Code and qwen-code set `session.id`;
/// the GenAI conventions (Copilot CLI) `gen_ai.conversation.id`.
const SESSION_KEYS: [&str; 2] = ["session.id", "gen_ai.conversation.id"];

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

    /// The request split by session (one request per session that has
    /// records in it); a record without a session goes by its trace.
    fn by_session(self) -> BTreeMap<String, Self>;

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

/// The session `attributes` name, if any.
fn session_in(attributes: &[KeyValue]) -> Option<String> {
    SESSION_KEYS.iter().find_map(|key| {
        let value = attributes.iter().find(|kv| kv.key == *key)?;
        match value.value.as_ref()?.value.as_ref()? {
            Value::StringValue(text) if !text.is_empty() => Some(text.clone()),
            Value::IntValue(number) => Some(number.to_string()),
            _ => None,
        }
    })
}

fn resource_session(resource: Option<&Resource>) -> Option<String> {
    resource.and_then(|r| session_in(&r.attributes))
}

/// A record's session: its own, its resource's, else its trace's.
fn session_of(own: &[KeyValue], resource: &Option<String>, trace_id: &[u8]) -> String {
    session_in(own)
        .or_else(|| resource.clone())
        .unwrap_or_else(|| match trace_id {
            [] => "unknown".to_string(),
            id => format!("trace-{}", hex(id)),
        })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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

    fn by_session(self) -> BTreeMap<String, Self> {
        let mut sessions = BTreeMap::<String, Self>::new();
        for resource_spans in self.resource_spans {
            let resource = resource_session(resource_spans.resource.as_ref());
            for scope_spans in resource_spans.scope_spans {
                let mut groups = BTreeMap::<String, Vec<_>>::new();
                for span in scope_spans.spans {
                    let session = session_of(&span.attributes, &resource, &span.trace_id);
                    groups.entry(session).or_default().push(span);
                }
                for (session, spans) in groups {
                    sessions
                        .entry(session)
                        .or_default()
                        .resource_spans
                        .push(ResourceSpans {
                            resource: resource_spans.resource.clone(),
                            scope_spans: vec![ScopeSpans {
                                scope: scope_spans.scope.clone(),
                                spans,
                                schema_url: scope_spans.schema_url.clone(),
                            }],
                            schema_url: resource_spans.schema_url.clone(),
                        });
                }
            }
        }
        sessions
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

    fn by_session(self) -> BTreeMap<String, Self> {
        let mut sessions = BTreeMap::<String, Self>::new();
        for resource_logs in self.resource_logs {
            let resource = resource_session(resource_logs.resource.as_ref());
            for scope_logs in resource_logs.scope_logs {
                let mut groups = BTreeMap::<String, Vec<_>>::new();
                for record in scope_logs.log_records {
                    let session = session_of(&record.attributes, &resource, &record.trace_id);
                    groups.entry(session).or_default().push(record);
                }
                for (session, log_records) in groups {
                    sessions
                        .entry(session)
                        .or_default()
                        .resource_logs
                        .push(ResourceLogs {
                            resource: resource_logs.resource.clone(),
                            scope_logs: vec![ScopeLogs {
                                scope: scope_logs.scope.clone(),
                                log_records,
                                schema_url: scope_logs.schema_url.clone(),
                            }],
                            schema_url: resource_logs.schema_url.clone(),
                        });
                }
            }
        }
        sessions
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

/// A metric's data points' attributes, each point's.
fn point_attributes(metric: &Metric) -> Vec<&[KeyValue]> {
    match &metric.data {
        None => Vec::new(),
        Some(Data::Gauge(g)) => g.data_points.iter().map(|p| &p.attributes[..]).collect(),
        Some(Data::Sum(s)) => s.data_points.iter().map(|p| &p.attributes[..]).collect(),
        Some(Data::Histogram(h)) => h.data_points.iter().map(|p| &p.attributes[..]).collect(),
        Some(Data::ExponentialHistogram(h)) => {
            h.data_points.iter().map(|p| &p.attributes[..]).collect()
        }
        Some(Data::Summary(s)) => s.data_points.iter().map(|p| &p.attributes[..]).collect(),
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
                    count += point_attributes(m).len().max(1) as i64;
                }
                named
            });
        }
        refused(count, "a metric needs a name")
    }

    /// A metric goes with its first data point's session, else its
    /// resource's (Claude Code puts `session.id` on the points), else the
    /// one its resource's other metrics name (qwen-code leaves it off some).
    fn by_session(self) -> BTreeMap<String, Self> {
        let mut sessions = BTreeMap::<String, Self>::new();
        for resource_metrics in self.resource_metrics {
            let resource = resource_session(resource_metrics.resource.as_ref()).or_else(|| {
                resource_metrics
                    .scope_metrics
                    .iter()
                    .flat_map(|scope| &scope.metrics)
                    .find_map(|m| session_in(point_attributes(m).first().copied()?))
            });
            for scope_metrics in resource_metrics.scope_metrics {
                let mut groups = BTreeMap::<String, Vec<_>>::new();
                for metric in scope_metrics.metrics {
                    let points = point_attributes(&metric);
                    let own = points.first().copied().unwrap_or_default();
                    let session = session_of(own, &resource, &[]);
                    groups.entry(session).or_default().push(metric);
                }
                for (session, metrics) in groups {
                    sessions
                        .entry(session)
                        .or_default()
                        .resource_metrics
                        .push(ResourceMetrics {
                            resource: resource_metrics.resource.clone(),
                            scope_metrics: vec![ScopeMetrics {
                                scope: scope_metrics.scope.clone(),
                                metrics,
                                schema_url: scope_metrics.schema_url.clone(),
                            }],
                            schema_url: resource_metrics.schema_url.clone(),
                        });
                }
            }
        }
        sessions
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

/// One line of OTLP JSON (an export request of any of the three kinds, as
/// a Collector's file exporter writes them) split by session, each part a
/// line of its own as the receiver keeps it; `None` for a line that is no
/// export request.
pub fn split_line(line: &str) -> Option<Vec<(String, String)>> {
    fn split<T: Export>(value: serde_json::Value) -> Option<Vec<(String, String)>> {
        let mut request: T = serde_json::from_value(value).ok()?;
        request.vet();
        request
            .by_session()
            .into_iter()
            .map(|(session, part)| Some((session, serde_json::to_string(&part).ok()?)))
            .collect()
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
