//! What one OTLP request may hold once decoded (docs/security.md
//! "Telemetry"): the OpenTelemetry SDKs' default limits on what a record
//! carries (128 attributes, events and links), a cap on a value's length, and
//! no more than [`SESSIONS`] sessions per request. What is past a limit is
//! cut as the SDKs cut it (attributes dropped and counted in the record's
//! `dropped_*_count`, values shortened); the receiver's answer says so in its
//! partial success. Kept files read again at start obey the same limits
//! (`store::vet`).

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::Metric;
use opentelemetry_proto::tonic::resource::v1::Resource;

/// Attributes per record, resource, scope, event, link or data point, and
/// entries of an array or key-value list value (the SDKs' default).
pub const ATTRIBUTES: usize = 128;
/// Events and links per span (the SDKs' default).
pub const EVENTS: usize = 128;
/// Bytes of a string or bytes value; longer ones are cut there.
pub const VALUE_BYTES: usize = 64 << 10;
/// Nesting of array and key-value list values; deeper ones are emptied.
const DEPTH: usize = 8;
/// Sessions one request may name; records of the others are refused.
pub const SESSIONS: usize = 64;

/// What limiting a request cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Trimmed {
    /// Attributes, events, links and list entries dropped.
    pub dropped: u64,
    /// Values cut to [`VALUE_BYTES`] (or emptied past the nesting depth).
    pub cut: u64,
}

impl Trimmed {
    /// The warning a partial success carries, when anything was cut.
    pub fn warning(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.dropped > 0 {
            parts.push(format!(
                "{} attributes, events, links or list entries dropped past {ATTRIBUTES} per record",
                self.dropped
            ));
        }
        if self.cut > 0 {
            parts.push(format!(
                "{} values cut to {} KiB",
                self.cut,
                VALUE_BYTES >> 10
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// A request held to the limits.
pub trait Limited {
    /// Cuts what is past the limits; what was cut.
    fn limit(&mut self) -> Trimmed;
}

impl Limited for ExportTraceServiceRequest {
    fn limit(&mut self) -> Trimmed {
        let mut trimmed = Trimmed::default();
        for resource in &mut self.resource_spans {
            limit_resource(resource.resource.as_mut(), &mut trimmed);
            for scope in &mut resource.scope_spans {
                limit_scope(scope.scope.as_mut(), &mut trimmed);
                for span in &mut scope.spans {
                    let t = &mut trimmed;
                    limit_attributes(&mut span.attributes, &mut span.dropped_attributes_count, t);
                    span.dropped_events_count += cut_list(&mut span.events, EVENTS, t);
                    span.dropped_links_count += cut_list(&mut span.links, EVENTS, t);
                    for event in &mut span.events {
                        let dropped = &mut event.dropped_attributes_count;
                        limit_attributes(&mut event.attributes, dropped, t);
                        limit_text(&mut event.name, t);
                    }
                    for link in &mut span.links {
                        let dropped = &mut link.dropped_attributes_count;
                        limit_attributes(&mut link.attributes, dropped, t);
                    }
                    limit_text(&mut span.name, t);
                    if let Some(status) = &mut span.status {
                        limit_text(&mut status.message, t);
                    }
                }
            }
        }
        trimmed
    }
}

impl Limited for ExportLogsServiceRequest {
    fn limit(&mut self) -> Trimmed {
        let mut trimmed = Trimmed::default();
        for resource in &mut self.resource_logs {
            limit_resource(resource.resource.as_mut(), &mut trimmed);
            for scope in &mut resource.scope_logs {
                limit_scope(scope.scope.as_mut(), &mut trimmed);
                for record in &mut scope.log_records {
                    let t = &mut trimmed;
                    limit_attributes(
                        &mut record.attributes,
                        &mut record.dropped_attributes_count,
                        t,
                    );
                    if let Some(body) = &mut record.body {
                        limit_value(body, 0, t);
                    }
                    limit_text(&mut record.event_name, t);
                    limit_text(&mut record.severity_text, t);
                }
            }
        }
        trimmed
    }
}

impl Limited for ExportMetricsServiceRequest {
    fn limit(&mut self) -> Trimmed {
        let mut trimmed = Trimmed::default();
        for resource in &mut self.resource_metrics {
            limit_resource(resource.resource.as_mut(), &mut trimmed);
            for scope in &mut resource.scope_metrics {
                limit_scope(scope.scope.as_mut(), &mut trimmed);
                for metric in &mut scope.metrics {
                    limit_metric(metric, &mut trimmed);
                }
            }
        }
        trimmed
    }
}

/// A metric's texts, metadata and its data points' attributes.
fn limit_metric(metric: &mut Metric, trimmed: &mut Trimmed) {
    let mut unrecorded = 0;
    limit_attributes(&mut metric.metadata, &mut unrecorded, trimmed);
    for text in [&mut metric.name, &mut metric.description, &mut metric.unit] {
        limit_text(text, trimmed);
    }
    let mut point = |attributes: &mut Vec<KeyValue>| {
        limit_attributes(attributes, &mut unrecorded, trimmed);
    };
    match &mut metric.data {
        None => {}
        Some(Data::Gauge(g)) => g
            .data_points
            .iter_mut()
            .for_each(|p| point(&mut p.attributes)),
        Some(Data::Sum(s)) => s
            .data_points
            .iter_mut()
            .for_each(|p| point(&mut p.attributes)),
        Some(Data::Histogram(h)) => h
            .data_points
            .iter_mut()
            .for_each(|p| point(&mut p.attributes)),
        Some(Data::ExponentialHistogram(h)) => h
            .data_points
            .iter_mut()
            .for_each(|p| point(&mut p.attributes)),
        Some(Data::Summary(s)) => s
            .data_points
            .iter_mut()
            .for_each(|p| point(&mut p.attributes)),
    }
}

fn limit_resource(resource: Option<&mut Resource>, trimmed: &mut Trimmed) {
    if let Some(resource) = resource {
        let dropped = &mut resource.dropped_attributes_count;
        limit_attributes(&mut resource.attributes, dropped, trimmed);
    }
}

fn limit_scope(scope: Option<&mut InstrumentationScope>, trimmed: &mut Trimmed) {
    if let Some(scope) = scope {
        let dropped = &mut scope.dropped_attributes_count;
        limit_attributes(&mut scope.attributes, dropped, trimmed);
        limit_text(&mut scope.name, trimmed);
        limit_text(&mut scope.version, trimmed);
    }
}

/// The first [`ATTRIBUTES`] attributes, their keys and values limited; the
/// rest dropped and added to `dropped`.
fn limit_attributes(attributes: &mut Vec<KeyValue>, dropped: &mut u32, trimmed: &mut Trimmed) {
    let gone = cut_list(attributes, ATTRIBUTES, trimmed);
    *dropped = dropped.saturating_add(gone);
    for attribute in attributes {
        limit_text(&mut attribute.key, trimmed);
        if let Some(value) = &mut attribute.value {
            limit_value(value, 0, trimmed);
        }
    }
}

/// `list` cut to `most` entries; how many went.
fn cut_list<T>(list: &mut Vec<T>, most: usize, trimmed: &mut Trimmed) -> u32 {
    let gone = list.len().saturating_sub(most);
    if gone > 0 {
        list.truncate(most);
        list.shrink_to_fit();
        trimmed.dropped += gone as u64;
    }
    u32::try_from(gone).unwrap_or(u32::MAX)
}

/// A value held to the limits, at nesting `depth`.
fn limit_value(value: &mut AnyValue, depth: usize, trimmed: &mut Trimmed) {
    let Some(inner) = &mut value.value else {
        return;
    };
    match inner {
        any_value::Value::StringValue(text) => limit_text(text, trimmed),
        any_value::Value::BytesValue(bytes) if bytes.len() > VALUE_BYTES => {
            bytes.truncate(VALUE_BYTES);
            bytes.shrink_to_fit();
            trimmed.cut += 1;
        }
        any_value::Value::ArrayValue(_) | any_value::Value::KvlistValue(_) if depth >= DEPTH => {
            value.value = None;
            trimmed.cut += 1;
        }
        any_value::Value::ArrayValue(array) => {
            cut_list(&mut array.values, ATTRIBUTES, trimmed);
            for item in &mut array.values {
                limit_value(item, depth + 1, trimmed);
            }
        }
        any_value::Value::KvlistValue(list) => {
            cut_list(&mut list.values, ATTRIBUTES, trimmed);
            for entry in &mut list.values {
                limit_text(&mut entry.key, trimmed);
                if let Some(item) = &mut entry.value {
                    limit_value(item, depth + 1, trimmed);
                }
            }
        }
        _ => {}
    }
}

/// `text` cut to [`VALUE_BYTES`] at a character boundary.
fn limit_text(text: &mut String, trimmed: &mut Trimmed) {
    if text.len() <= VALUE_BYTES {
        return;
    }
    let mut end = VALUE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.shrink_to_fit();
    trimmed.cut += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::common::v1::ArrayValue;
    use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};

    fn text(key: &str, value: &str) -> KeyValue {
        KeyValue {
            key: key.into(),
            value: Some(AnyValue {
                value: Some(any_value::Value::StringValue(value.into())),
            }),
            ..Default::default()
        }
    }

    fn one_span(span: Span) -> ExportTraceServiceRequest {
        ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                scope_spans: vec![ScopeSpans {
                    spans: vec![span],
                    ..Default::default()
                }],
                ..Default::default()
            }],
        }
    }

    fn the_span(request: &ExportTraceServiceRequest) -> &Span {
        &request.resource_spans[0].scope_spans[0].spans[0]
    }

    #[test]
    fn a_record_keeps_its_first_128_attributes_and_counts_the_rest_dropped() {
        let attributes = (0..1000).map(|n| text(&format!("a{n}"), "")).collect();
        let mut request = one_span(Span {
            attributes,
            dropped_attributes_count: 5,
            ..Default::default()
        });
        let trimmed = request.limit();
        let span = the_span(&request);
        assert_eq!(span.attributes.len(), ATTRIBUTES);
        assert_eq!(span.attributes[127].key, "a127");
        assert_eq!(span.dropped_attributes_count, 5 + 872);
        assert_eq!(trimmed.dropped, 872);
        assert!(trimmed.warning().unwrap().contains("872 attributes"));
    }

    #[test]
    fn long_values_are_cut_at_a_character_boundary_nested_ones_too() {
        let long = "é".repeat(VALUE_BYTES);
        let nested = KeyValue {
            key: "list".into(),
            value: Some(AnyValue {
                value: Some(any_value::Value::ArrayValue(ArrayValue {
                    values: vec![AnyValue {
                        value: Some(any_value::Value::StringValue(long.clone())),
                    }],
                })),
            }),
            ..Default::default()
        };
        let mut request = one_span(Span {
            attributes: vec![text("x", &long), nested],
            name: long,
            ..Default::default()
        });
        let trimmed = request.limit();
        let span = the_span(&request);
        assert_eq!(trimmed.cut, 3);
        assert!(span.name.len() <= VALUE_BYTES && span.name.len() > VALUE_BYTES - 2);
        let Some(any_value::Value::ArrayValue(list)) =
            &span.attributes[1].value.as_ref().unwrap().value
        else {
            panic!("still a list")
        };
        let Some(any_value::Value::StringValue(inner)) = &list.values[0].value else {
            panic!("still a text")
        };
        assert!(inner.len() <= VALUE_BYTES);
        assert!(trimmed
            .warning()
            .unwrap()
            .contains("3 values cut to 64 KiB"));
    }

    #[test]
    fn a_request_within_the_limits_is_left_as_it_is() {
        let mut request = one_span(Span {
            attributes: vec![text("session.id", "s-1")],
            name: "claude_code.interaction".into(),
            ..Default::default()
        });
        let before = request.clone();
        assert_eq!(request.limit(), Trimmed::default());
        assert_eq!(request, before);
        assert_eq!(Trimmed::default().warning(), None);
    }
}
