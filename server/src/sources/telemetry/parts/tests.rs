//! The receiver's cut by session against core's rule on the same requests'
//! JSON (`otlp::split::by_session`): the real posts of every telemetry
//! capture and a Collector's file of several sessions.

use super::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use taskview_core::read::import::otlp::split::by_session as cores_cut;
use taskview_testkit::captures::otlp_posts;
use taskview_testkit::fixtures::fixture;

const STORIES: [&str; 6] = [
    "claude-code-2.1.332/nested",
    "claude-code-2.1.332/parallel-wave",
    "copilot-1.0.102/nested",
    "copilot-1.0.102/parallel-wave",
    "qwen-code-0.24.4/nested",
    "qwen-code-0.24.4/parallel-wave",
];

/// The typed parts of `line` as JSON, by session.
fn typed<T: Layered + DeserializeOwned>(line: &str) -> BTreeMap<String, Value> {
    let request: T = serde_json::from_str(line).expect("an export request");
    let as_json = |part: &T| serde_json::to_value(part).expect("JSON");
    by_session(request)
        .into_iter()
        .map(|(session, part)| (session, as_json(&part)))
        .collect()
}

/// Core's parts of the same request, as the typed request writes it.
fn core<T: Serialize + DeserializeOwned>(line: &str) -> BTreeMap<String, Value> {
    let request: T = serde_json::from_str(line).expect("an export request");
    cores_cut(&serde_json::to_value(&request).expect("JSON"))
}

fn both(line: &str) -> (BTreeMap<String, Value>, BTreeMap<String, Value>) {
    if line.contains("\"resourceSpans\"") {
        (
            typed::<ExportTraceServiceRequest>(line),
            core::<ExportTraceServiceRequest>(line),
        )
    } else if line.contains("\"resourceLogs\"") {
        (
            typed::<ExportLogsServiceRequest>(line),
            core::<ExportLogsServiceRequest>(line),
        )
    } else {
        (
            typed::<ExportMetricsServiceRequest>(line),
            core::<ExportMetricsServiceRequest>(line),
        )
    }
}

#[test]
fn every_real_post_is_cut_as_cores_rule_cuts_its_json() {
    let mut posts = 0;
    for story in STORIES {
        for post in otlp_posts(story) {
            let (typed, core) = both(&post);
            assert!(!typed.is_empty(), "{story}: a post with records");
            assert_eq!(typed, core, "{story}: {post:.200}");
            posts += 1;
        }
    }
    assert!(posts > 50, "{posts} posts");
}

#[test]
fn a_collector_file_of_several_sessions_is_cut_as_cores_rule_cuts_it() {
    let text = fixture("captures-otlp/collector-file.jsonl");
    let mut sessions = std::collections::BTreeSet::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (typed, core) = both(line);
        assert_eq!(typed, core, "{line:.200}");
        sessions.extend(typed.into_keys());
    }
    assert!(sessions.len() >= 3, "{sessions:?}");
}

#[test]
fn sessions_come_in_the_order_they_first_appear_and_records_are_counted() {
    let span = |id: u8, session: &str| {
        serde_json::json!({"traceId": "5b8efff798038103d269b633813fc60c",
            "spanId": format!("00000000000000{id:02x}"), "name": "s",
            "attributes": [{"key": "session.id", "value": {"stringValue": session}}]})
    };
    let line = serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": [
        span(1, "z"), span(2, "a"), span(3, "z")]}]}]})
    .to_string();
    let request: ExportTraceServiceRequest = serde_json::from_str(&line).unwrap();
    assert_eq!(request.records(), 3);
    let parts = by_session(request);
    let order: Vec<(&str, i64)> = parts
        .iter()
        .map(|(s, p)| (s.as_str(), p.records()))
        .collect();
    assert_eq!(order, [("z", 2), ("a", 1)]);
}

#[test]
fn a_large_part_is_written_as_lines_of_about_line_bytes_each_none_lost() {
    let span = |n: usize| {
        serde_json::json!({"traceId": "5b8efff798038103d269b633813fc60c",
            "spanId": format!("{:016x}", n + 1), "name": "s",
            "attributes": [{"key": "text", "value": {"stringValue": "x".repeat(1000)}}]})
    };
    let spans: Vec<Value> = (0..1000).map(span).collect();
    let line = serde_json::json!({"resourceSpans": [
        {"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "r"}}]},
         "scopeSpans": [{"scope": {"name": "sc"}, "spans": spans}]}]})
    .to_string();
    let request: ExportTraceServiceRequest = serde_json::from_str(&line).unwrap();
    let written = lines(request).unwrap();
    assert!(written.len() >= 3, "{} lines", written.len());
    let mut ids = Vec::new();
    for line in &written {
        assert!(line.len() < 3 * LINE_BYTES, "{} bytes", line.len());
        let back: ExportTraceServiceRequest = serde_json::from_str(line).unwrap();
        let resource = &back.resource_spans[0];
        assert_eq!(
            resource.resource.as_ref().unwrap().attributes[0].key,
            "service.name"
        );
        assert_eq!(resource.scope_spans[0].scope.as_ref().unwrap().name, "sc");
        ids.extend(
            resource.scope_spans[0]
                .spans
                .iter()
                .map(|s| s.span_id.clone()),
        );
    }
    assert_eq!(ids.len(), 1000);
    assert_eq!(ids[999], 1000u64.to_be_bytes());
}
