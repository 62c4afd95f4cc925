//! OTLP JSON lines (`Export*ServiceRequest` per line, the Collector file
//! exporter's format and `taskview serve`'s telemetry files) read
//! leniently into flat spans and log records: ids as hex, times in
//! nanoseconds whether strings or numbers, attribute values plain JSON
//! (`intValue` as a string or a number, as the agents send it).

use serde_json::{Map, Value};

/// One span, its attributes flattened.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Span {
    pub id: String,
    pub parent: String,
    pub name: String,
    pub start_ns: u64,
    pub end_ns: u64,
    pub error: bool,
    pub attrs: Map<String, Value>,
    /// Its resource's attributes.
    pub resource: Map<String, Value>,
}

/// One log record, its attributes flattened.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LogRecord {
    pub span_id: String,
    pub time_ns: u64,
    /// `event.name`, else the event name field, else the body text.
    pub event: String,
    pub attrs: Map<String, Value>,
    pub resource: Map<String, Value>,
}

/// What a file holds.
#[derive(Debug, Default)]
pub(crate) struct Telemetry {
    pub spans: Vec<Span>,
    pub logs: Vec<LogRecord>,
    /// Metric data, counted (never shown).
    pub metrics: u64,
}

/// Whether `v` is one OTLP export request (or a Collector file line).
pub(crate) fn is_record(v: &Value) -> bool {
    ["resourceSpans", "resourceLogs", "resourceMetrics"]
        .iter()
        .any(|k| v.get(*k).is_some_and(Value::is_array))
}

impl Telemetry {
    /// Adds what one line holds.
    pub(crate) fn add(&mut self, line: &Value) {
        for resource in array(line, "resourceSpans") {
            let resource_attrs = attributes(resource.get("resource"));
            for scope in array(resource, "scopeSpans") {
                for span in array(scope, "spans") {
                    self.spans.push(read_span(span, &resource_attrs));
                }
            }
        }
        for resource in array(line, "resourceLogs") {
            let resource_attrs = attributes(resource.get("resource"));
            for scope in array(resource, "scopeLogs") {
                for record in array(scope, "logRecords") {
                    self.logs.push(read_log(record, &resource_attrs));
                }
            }
        }
        for resource in array(line, "resourceMetrics") {
            for scope in array(resource, "scopeMetrics") {
                self.metrics += array(scope, "metrics").len() as u64;
            }
        }
    }
}

fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// A `*UnixNano` field: a decimal string or a number.
fn nanos(v: &Value, key: &str) -> u64 {
    match v.get(key) {
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        Some(n) => n.as_u64().unwrap_or(0),
        None => 0,
    }
}

fn read_span(span: &Value, resource: &Map<String, Value>) -> Span {
    let status = span.get("status").and_then(|s| s.get("code"));
    Span {
        id: text(span, "spanId"),
        parent: text(span, "parentSpanId"),
        name: span
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        start_ns: nanos(span, "startTimeUnixNano"),
        end_ns: nanos(span, "endTimeUnixNano"),
        error: status.is_some_and(|c| c == 2 || c == "STATUS_CODE_ERROR"),
        attrs: attributes(Some(span)),
        resource: resource.clone(),
    }
}

fn read_log(record: &Value, resource: &Map<String, Value>) -> LogRecord {
    let attrs = attributes(Some(record));
    let body = record.get("body").map(any_value).unwrap_or(Value::Null);
    let event = [
        attrs.get("event.name").cloned(),
        record.get("eventName").cloned(),
        Some(body),
    ]
    .into_iter()
    .flatten()
    .find_map(|v| v.as_str().filter(|s| !s.is_empty()).map(str::to_string))
    .unwrap_or_default();
    LogRecord {
        span_id: text(record, "spanId"),
        time_ns: match nanos(record, "timeUnixNano") {
            0 => nanos(record, "observedTimeUnixNano"),
            t => t,
        },
        event,
        attrs,
        resource: resource.clone(),
    }
}

/// The `attributes` of `holder`, as plain JSON values.
fn attributes(holder: Option<&Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for kv in holder.map(|h| array(h, "attributes")).unwrap_or_default() {
        if let Some(key) = kv.get("key").and_then(Value::as_str) {
            out.insert(
                key.to_string(),
                kv.get("value").map(any_value).unwrap_or(Value::Null),
            );
        }
    }
    out
}

/// An `AnyValue` as plain JSON.
fn any_value(v: &Value) -> Value {
    if let Some(s) = v.get("stringValue") {
        return s.clone();
    }
    if let Some(i) = v.get("intValue") {
        return match i {
            Value::String(s) => s.parse::<i64>().map(Value::from).unwrap_or(Value::Null),
            other => other.clone(),
        };
    }
    for key in ["doubleValue", "boolValue"] {
        if let Some(x) = v.get(key) {
            return x.clone();
        }
    }
    if let Some(values) = v.get("arrayValue").map(|a| array(a, "values")) {
        return Value::Array(values.iter().map(any_value).collect());
    }
    if v.get("kvlistValue").is_some() {
        return Value::Object(attributes_of_list(v.get("kvlistValue")));
    }
    Value::Null
}

fn attributes_of_list(list: Option<&Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for kv in list.map(|l| array(l, "values")).unwrap_or_default() {
        if let Some(key) = kv.get("key").and_then(Value::as_str) {
            out.insert(
                key.to_string(),
                kv.get("value").map(any_value).unwrap_or(Value::Null),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ints_read_as_strings_or_numbers_and_ids_as_lower_case_hex() {
        let line = json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
            "traceId": "AB", "spanId": "CD01", "name": "x",
            "startTimeUnixNano": "1000", "endTimeUnixNano": 2000,
            "status": {"code": 2},
            "attributes": [
                {"key": "a", "value": {"intValue": "12"}},
                {"key": "b", "value": {"intValue": 13}},
                {"key": "c", "value": {"stringValue": "s"}}
            ]
        }]}]}]});
        let mut telemetry = Telemetry::default();
        telemetry.add(&line);
        let span = &telemetry.spans[0];
        assert_eq!(span.id, "cd01");
        assert_eq!((span.start_ns, span.end_ns), (1000, 2000));
        assert!(span.error);
        assert_eq!(span.attrs["a"], 12);
        assert_eq!(span.attrs["b"], 13);
        assert_eq!(span.attrs["c"], "s");
    }
}
