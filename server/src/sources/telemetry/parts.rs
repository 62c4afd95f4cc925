//! A decoded request cut into one part per session, records moved (never
//! copied) and no JSON tree built, so its cost stays that of the request:
//! the same parts core's rule makes of the request's JSON
//! (`otlp::split::by_session`, whose session rules it calls: a record's own
//! session, else its resource's, else its trace's; a metric's first data
//! point's), in the order sessions first appear. A part is written as lines
//! of at most about [`LINE_BYTES`] (a larger part is cut between records),
//! so whoever reads a kept file back reads it a bounded line at a time.

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::{Metric, ResourceMetrics, ScopeMetrics};
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use serde::Serialize;
use std::collections::HashMap;
use taskview_core::read::import::otlp::split::{
    is_session_key, named_session, trace_session, NO_SESSION,
};

/// About the most bytes of protobuf one kept line holds (its JSON is a few
/// times that); a record larger than this is a line of its own.
pub const LINE_BYTES: usize = 256 << 10;

/// One resource's scope with its records, taken out of a request.
pub struct Group<T: Layered> {
    resource: T::Resource,
    scope: T::Scope,
    records: Vec<T::Record>,
    /// The session the resource names (or, for metrics, its metrics name).
    session: Option<String>,
}

/// A request as resources holding scopes holding records.
pub trait Layered: Default + Serialize + Sized {
    type Resource: Clone;
    type Scope: Clone;
    type Record: Message;

    /// Its groups, in order.
    fn groups(self) -> Vec<Group<Self>>;

    /// Adds a group with `records` back.
    fn push(&mut self, resource: Self::Resource, scope: Self::Scope, records: Vec<Self::Record>);

    /// A record's session, given its resource's.
    fn session_of(record: &Self::Record, resource: &Option<String>) -> String;

    /// How many records it holds (spans, log records, data points).
    fn records(&self) -> i64;
}

/// Writes `Layered` for a request of resources (`$resources` of
/// `$resource`) holding scopes (`$scopes` of `$scope`) holding records
/// (`$records` of `$record`).
macro_rules! layered {
    ($request:ty, $resources:ident: $resource:ty, $scopes:ident: $scope:ty, $records:ident: $record:ty,
     $resource_session:expr, $record_session:expr, $count:expr) => {
        impl Layered for $request {
            type Resource = $resource;
            type Scope = $scope;
            type Record = $record;

            fn groups(self) -> Vec<Group<Self>> {
                let mut groups = Vec::new();
                for mut resource in self.$resources {
                    let session = $resource_session(&resource);
                    for mut scope in std::mem::take(&mut resource.$scopes) {
                        groups.push(Group {
                            records: std::mem::take(&mut scope.$records),
                            resource: resource.clone(),
                            scope,
                            session: session.clone(),
                        });
                    }
                }
                groups
            }

            fn push(&mut self, mut resource: $resource, mut scope: $scope, records: Vec<$record>) {
                scope.$records = records;
                resource.$scopes = vec![scope];
                self.$resources.push(resource);
            }

            fn session_of(record: &$record, resource: &Option<String>) -> String {
                $record_session(record, resource)
            }

            fn records(&self) -> i64 {
                let scopes = self.$resources.iter().flat_map(|r| &r.$scopes);
                scopes.flat_map(|s| &s.$records).map($count).sum()
            }
        }
    };
}

layered!(ExportTraceServiceRequest, resource_spans: ResourceSpans, scope_spans: ScopeSpans,
    spans: Span,
    |r: &ResourceSpans| r.resource.as_ref().and_then(|r| named(&r.attributes)),
    |s: &Span, resource: &Option<String>| record_session(&s.attributes, &s.trace_id, resource),
    |_: &Span| 1);

layered!(ExportLogsServiceRequest, resource_logs: ResourceLogs, scope_logs: ScopeLogs,
    log_records: LogRecord,
    |r: &ResourceLogs| r.resource.as_ref().and_then(|r| named(&r.attributes)),
    |l: &LogRecord, resource: &Option<String>| record_session(&l.attributes, &l.trace_id, resource),
    |_: &LogRecord| 1);

layered!(ExportMetricsServiceRequest, resource_metrics: ResourceMetrics,
    scope_metrics: ScopeMetrics, metrics: Metric,
    metrics_resource_session,
    |m: &Metric, resource: &Option<String>| {
        first_point(m)
            .and_then(named)
            .or_else(|| resource.clone())
            .unwrap_or_else(|| NO_SESSION.to_string())
    },
    |m: &Metric| point_count(m) as i64);

/// The session `attributes` name (core's rule on their JSON; only the
/// attributes that may name one are written).
fn named(attributes: &[KeyValue]) -> Option<String> {
    let naming: Vec<&KeyValue> = attributes
        .iter()
        .filter(|a| is_session_key(&a.key))
        .collect();
    if naming.is_empty() {
        return None;
    }
    let json = serde_json::to_value(&naming).ok()?;
    named_session(json.as_array()?)
}

/// A span's or log record's session: its own, its resource's, else its trace's.
fn record_session(attributes: &[KeyValue], trace_id: &[u8], resource: &Option<String>) -> String {
    named(attributes)
        .or_else(|| resource.clone())
        .unwrap_or_else(|| {
            let hex: String = trace_id.iter().map(|b| format!("{b:02x}")).collect();
            trace_session(&hex)
        })
}

/// A metrics resource's session: its own, else the first its metrics name
/// (qwen-code leaves it off some).
fn metrics_resource_session(resource: &ResourceMetrics) -> Option<String> {
    resource
        .resource
        .as_ref()
        .and_then(|r| named(&r.attributes))
        .or_else(|| {
            let metrics = resource.scope_metrics.iter().flat_map(|s| &s.metrics);
            metrics.filter_map(first_point).find_map(named)
        })
}

/// The attributes of a metric's first data point, whatever its kind of data.
fn first_point(metric: &Metric) -> Option<&[KeyValue]> {
    match metric.data.as_ref()? {
        Data::Gauge(g) => g.data_points.first().map(|p| p.attributes.as_slice()),
        Data::Sum(s) => s.data_points.first().map(|p| p.attributes.as_slice()),
        Data::Histogram(h) => h.data_points.first().map(|p| p.attributes.as_slice()),
        Data::ExponentialHistogram(h) => h.data_points.first().map(|p| p.attributes.as_slice()),
        Data::Summary(s) => s.data_points.first().map(|p| p.attributes.as_slice()),
    }
}

/// How many data points a metric has (one for a metric without any).
pub fn point_count(metric: &Metric) -> usize {
    let points = match &metric.data {
        None => 0,
        Some(Data::Gauge(g)) => g.data_points.len(),
        Some(Data::Sum(s)) => s.data_points.len(),
        Some(Data::Histogram(h)) => h.data_points.len(),
        Some(Data::ExponentialHistogram(h)) => h.data_points.len(),
        Some(Data::Summary(s)) => s.data_points.len(),
    };
    points.max(1)
}

/// The parts being gathered, by session, in the order sessions first appear.
struct Parts<T> {
    order: Vec<(String, T)>,
    at: HashMap<String, usize>,
}

impl<T: Default> Parts<T> {
    fn new() -> Self {
        Parts {
            order: Vec::new(),
            at: HashMap::new(),
        }
    }

    fn of(&mut self, session: String) -> &mut T {
        let next = self.order.len();
        let at = *self.at.entry(session.clone()).or_insert(next);
        if at == next {
            self.order.push((session, T::default()));
        }
        &mut self.order[at].1
    }
}

/// `request` cut by session: per session, the request with only that
/// session's records (each resource and scope kept with them).
pub fn by_session<T: Layered>(request: T) -> Vec<(String, T)> {
    let mut parts: Parts<T> = Parts::new();
    for group in request.groups() {
        let mut by_session: Parts<Vec<T::Record>> = Parts::new();
        for record in group.records {
            by_session
                .of(T::session_of(&record, &group.session))
                .push(record);
        }
        for (session, records) in by_session.order {
            let (resource, scope) = (group.resource.clone(), group.scope.clone());
            parts.of(session).push(resource, scope, records);
        }
    }
    parts.order
}

/// `part` as lines of OTLP JSON of at most about [`LINE_BYTES`] of records
/// each (a record larger than that is a line of its own).
pub fn lines<T: Layered>(part: T) -> serde_json::Result<Vec<String>> {
    let mut lines = Vec::new();
    let mut line = T::default();
    let (mut size, mut held) = (0, false);
    for group in part.groups() {
        let mut records = Vec::new();
        for record in group.records {
            let len = record.encoded_len();
            if held && size + len > LINE_BYTES {
                if !records.is_empty() {
                    let (resource, scope) = (group.resource.clone(), group.scope.clone());
                    line.push(resource, scope, std::mem::take(&mut records));
                }
                lines.push(serde_json::to_string(&std::mem::take(&mut line))?);
                size = 0;
            }
            size += len;
            held = true;
            records.push(record);
        }
        if !records.is_empty() {
            line.push(group.resource, group.scope, records);
        }
    }
    if held {
        lines.push(serde_json::to_string(&line)?);
    }
    Ok(lines)
}

#[cfg(test)]
mod tests;
