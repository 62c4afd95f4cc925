//! One OTLP export request (traces, logs or metrics, in OTLP JSON) split by
//! the session each record belongs to: the one rule the receiver keeps its
//! files by, a Collector's file is fed to the board by, and the file view
//! lists a Collector's file by (`super::sessions`).

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The attributes that name a record's session, first found wins: on the
/// record, then on its resource. Claude Code and qwen-code set `session.id`;
/// the GenAI conventions (Copilot CLI) `gen_ai.conversation.id`.
const SESSION_KEYS: [&str; 2] = ["session.id", "gen_ai.conversation.id"];

/// The session of records that name none and belong to no trace.
pub const NO_SESSION: &str = "unknown";

/// The three kinds of request, by their fields.
struct Kind {
    resources: &'static str,
    scopes: &'static str,
    records: &'static str,
}

const SPANS: Kind = Kind {
    resources: "resourceSpans",
    scopes: "scopeSpans",
    records: "spans",
};
const LOGS: Kind = Kind {
    resources: "resourceLogs",
    scopes: "scopeLogs",
    records: "logRecords",
};
const METRICS: Kind = Kind {
    resources: "resourceMetrics",
    scopes: "scopeMetrics",
    records: "metrics",
};

/// `request` split by session: per session, the request with only that
/// session's records (each resource and scope kept with them). A span or
/// log record goes by its own session, else its resource's, else its trace
/// (`trace-<id>`), else [`NO_SESSION`]; a metric by its first data point's
/// session, else its resource's, else the one its resource's other metrics
/// name (qwen-code leaves it off some). Empty for no export request.
pub fn by_session(request: &Value) -> BTreeMap<String, Value> {
    let mut sessions = BTreeMap::<String, Map<String, Value>>::new();
    for kind in [SPANS, LOGS, METRICS] {
        let is_metrics = kind.records == METRICS.records;
        for resource in array(request, kind.resources) {
            let mut resource_session = session_in(resource.get("resource"));
            if is_metrics && resource_session.is_none() {
                resource_session = array(resource, kind.scopes)
                    .iter()
                    .flat_map(|scope| array(scope, kind.records))
                    .find_map(|metric| session_in(first_point(metric)));
            }
            for scope in array(resource, kind.scopes) {
                let mut groups = BTreeMap::<String, Vec<Value>>::new();
                for record in array(scope, kind.records) {
                    let session = if is_metrics {
                        session_in(first_point(record))
                            .or_else(|| resource_session.clone())
                            .unwrap_or_else(|| NO_SESSION.to_string())
                    } else {
                        record_session(record, &resource_session)
                    };
                    groups.entry(session).or_default().push(record.clone());
                }
                for (session, records) in groups {
                    let part = without(scope, kind.records, Value::Array(records));
                    let part = without(resource, kind.scopes, Value::Array(vec![part]));
                    let request = sessions.entry(session).or_default();
                    let resources = request
                        .entry(kind.resources)
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(resources) = resources {
                        resources.push(part);
                    }
                }
            }
        }
    }
    sessions
        .into_iter()
        .map(|(session, request)| (session, Value::Object(request)))
        .collect()
}

/// A span's or log record's session: its own, its resource's, else its trace's.
fn record_session(record: &Value, resource: &Option<String>) -> String {
    session_in(Some(record))
        .or_else(|| resource.clone())
        .unwrap_or_else(|| {
            trace_session(
                record
                    .get("traceId")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            )
        })
}

/// The session of a record that names none, by its trace id (hex):
/// `trace-<id>`, else [`NO_SESSION`].
pub fn trace_session(trace_id: &str) -> String {
    match trace_id {
        "" => NO_SESSION.to_string(),
        id => format!("trace-{}", id.to_ascii_lowercase()),
    }
}

/// Whether an attribute of this key may name a session.
pub fn is_session_key(key: &str) -> bool {
    SESSION_KEYS.contains(&key)
}

/// The session the `attributes` of `holder` name, if any.
fn session_in(holder: Option<&Value>) -> Option<String> {
    named_session(holder.map(|h| array(h, "attributes")).unwrap_or_default())
}

/// The session OTLP JSON `attributes` name, if any: the first attribute of
/// each key, in [`SESSION_KEYS`] order, with a text or a whole number.
pub fn named_session(attributes: &[Value]) -> Option<String> {
    SESSION_KEYS.iter().find_map(|key| {
        let value = attributes
            .iter()
            .find(|kv| kv.get("key").and_then(Value::as_str) == Some(key))?
            .get("value")?;
        if let Some(text) = value.get("stringValue").and_then(Value::as_str) {
            return (!text.is_empty()).then(|| text.to_string());
        }
        match value.get("intValue")? {
            Value::String(text) => text.parse::<i64>().ok().map(|n| n.to_string()),
            number => number.as_i64().map(|n| n.to_string()),
        }
    })
}

/// A metric's first data point, whatever its kind of data.
fn first_point(metric: &Value) -> Option<&Value> {
    [
        "gauge",
        "sum",
        "histogram",
        "exponentialHistogram",
        "summary",
    ]
    .iter()
    .find_map(|kind| array(metric.get(kind)?, "dataPoints").first())
}

/// `holder` with its field `key` set to `value` (its other fields kept).
fn without(holder: &Value, key: &str, value: Value) -> Value {
    let mut copy: Map<String, Value> = holder
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(k, _)| *k != key)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    copy.insert(key.to_string(), value);
    Value::Object(copy)
}

fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn attribute(key: &str, value: Value) -> Value {
        json!({"key": key, "value": value})
    }

    #[test]
    fn spans_go_by_their_session_else_their_resources_else_their_trace() {
        let request = json!({"resourceSpans": [{
            "resource": {"attributes": [attribute("service.name", json!({"stringValue": "x"}))]},
            "scopeSpans": [{"scope": {"name": "s"}, "spans": [
                {"traceId": "AB01", "spanId": "1",
                 "attributes": [attribute("session.id", json!({"stringValue": "s-a"}))]},
                {"traceId": "AB01", "spanId": "2",
                 "attributes": [attribute("gen_ai.conversation.id", json!({"intValue": "42"}))]},
                {"traceId": "AB01", "spanId": "3"},
                {"spanId": "4"},
                {"traceId": "cd", "spanId": "5",
                 "attributes": [attribute("session.id", json!({"stringValue": "s-a"}))]}
            ]}]
        }]});
        let parts = by_session(&request);
        let spans = |session: &str| -> Vec<&str> {
            parts[session]["resourceSpans"][0]["scopeSpans"][0]["spans"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["spanId"].as_str().unwrap())
                .collect()
        };
        assert_eq!(
            parts.keys().collect::<Vec<_>>(),
            ["42", "s-a", "trace-ab01", "unknown"]
        );
        assert_eq!(spans("s-a"), ["1", "5"]);
        assert_eq!(spans("trace-ab01"), ["3"]);
        let part = &parts["s-a"]["resourceSpans"][0];
        assert_eq!(part["resource"], request["resourceSpans"][0]["resource"]);
        assert_eq!(
            part["scopeSpans"][0]["scope"]["name"], "s",
            "its scope kept"
        );
    }

    #[test]
    fn a_resource_names_the_session_of_records_that_name_none() {
        let request = json!({"resourceLogs": [{
            "resource": {"attributes": [attribute("session.id", json!({"stringValue": "s-r"}))]},
            "scopeLogs": [{"logRecords": [
                {"body": {"stringValue": "a"}},
                {"body": {"stringValue": "b"},
                 "attributes": [attribute("session.id", json!({"stringValue": "s-own"}))]}
            ]}]
        }]});
        let parts = by_session(&request);
        assert_eq!(parts.keys().collect::<Vec<_>>(), ["s-own", "s-r"]);
    }

    #[test]
    fn a_metric_goes_by_its_first_point_else_by_what_its_resources_metrics_name() {
        let point = |session: Option<&str>| {
            let attributes: Vec<Value> = session
                .map(|s| attribute("session.id", json!({"stringValue": s})))
                .into_iter()
                .collect();
            json!({"sum": {"dataPoints": [{"attributes": attributes}]}})
        };
        let named = |session, name: &str| {
            let mut metric = point(session);
            metric["name"] = json!(name);
            metric
        };
        let request = json!({"resourceMetrics": [
            {"scopeMetrics": [{"metrics": [named(None, "m1"), named(Some("s-m"), "m2")]}]},
            {"scopeMetrics": [{"metrics": [named(None, "m3")]}]}
        ]});
        let parts = by_session(&request);
        let names = |session: &str| -> Vec<String> {
            parts[session]["resourceMetrics"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|r| r["scopeMetrics"][0]["metrics"].as_array().unwrap())
                .map(|m| m["name"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(names("s-m"), ["m1", "m2"]);
        assert_eq!(names(NO_SESSION), ["m3"]);
    }

    #[test]
    fn what_is_no_export_request_has_no_sessions() {
        assert!(by_session(&json!({"type": "user"})).is_empty());
        assert!(by_session(&json!([1, 2])).is_empty());
        assert!(by_session(&json!({"resourceSpans": "x"})).is_empty());
    }
}
