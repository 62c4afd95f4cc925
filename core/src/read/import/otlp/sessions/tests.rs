//! On `captures-otlp/collector-file.jsonl`: the telemetry of three captured
//! runs (Claude Code 2.1.332, qwen-code 0.24.4 and Copilot CLI 1.0.102, each
//! the `nested` story) as a Collector's file exporter writes it, one post a
//! line, the runs' posts interleaved.

use super::*;
use crate::model::message::Message;
use crate::read::import::otlp::import;
use taskview_testkit::captures::otlp_posts;
use taskview_testkit::fixture;

const FILE: &str = "captures-otlp/collector-file.jsonl";
const RUNS: [&str; 3] = [
    "claude-code-2.1.332/nested",
    "qwen-code-0.24.4/nested",
    "copilot-1.0.102/nested",
];
const CLAUDE: &str = "2a407dcc-3325-4e19-a288-c62ab8fd64de";
const COPILOT: &str = "ec361445-0277-443e-b712-b269082f4212";

#[test]
fn the_collector_file_fixture_is_the_three_runs_posts_interleaved() {
    let mut runs: Vec<std::collections::VecDeque<Value>> = RUNS
        .iter()
        .map(|run| {
            let posts = otlp_posts(run).into_iter();
            posts.map(|p| serde_json::from_str(&p).unwrap()).collect()
        })
        .collect();
    for line in fixture(FILE).lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        let run = runs.iter_mut().find(|r| r.front() == Some(&line));
        run.expect("each line is the next post of one run")
            .pop_front();
    }
    assert!(runs.iter().all(|r| r.is_empty()), "every post is in it");
}

#[test]
fn a_collector_file_lists_each_session_with_its_title_agent_and_counts() {
    let found = sessions(&fixture(FILE));
    let shown: Vec<(&str, Option<&str>, u64)> = found
        .iter()
        .map(|s| (s.agent.as_deref().unwrap(), s.title.as_deref(), s.subagents))
        .collect();
    assert_eq!(
        found.len(),
        3,
        "qwen-code's metrics naming no session are no session: {found:?}"
    );
    let agents: Vec<&str> = shown.iter().map(|s| s.0).collect();
    for agent in ["Claude Code", "qwen-code", "Copilot CLI"] {
        assert!(agents.contains(&agent), "{agents:?}");
    }
    let by_agent = |agent: &str| {
        found
            .iter()
            .find(|s| s.agent.as_deref() == Some(agent))
            .unwrap()
    };
    let claude = by_agent("Claude Code");
    assert_eq!(claude.id, CLAUDE);
    assert_eq!(claude.title, None, "its prompt is redacted: no title");
    assert_eq!(claude.subagents, 4);
    assert!(
        claude.spans > 0 && claude.logs > 0 && claude.metrics > 0,
        "{claude:?}"
    );
    let qwen = by_agent("qwen-code");
    assert!(
        qwen.title
            .as_deref()
            .unwrap()
            .starts_with("Audit parser-kit for panics"),
        "its first prompt: {qwen:?}"
    );
    assert_eq!(qwen.subagents, 4);
    let copilot = by_agent("Copilot CLI");
    assert_eq!(copilot.id, COPILOT, "by gen_ai.conversation.id");
    assert!(copilot.subagents > 0);
    let newest: Vec<u64> = found.iter().map(|s| s.newest_ms).collect();
    assert!(
        newest.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {newest:?}"
    );
}

#[test]
fn one_session_of_a_collector_file_imports_as_that_run_alone() {
    let text = fixture(FILE);
    for (run, session) in found_runs(&text) {
        let alone = import(&session_text(&text, &session.id)).unwrap();
        let run_alone = import(&otlp_posts(run).join("\n")).unwrap();
        let (mine, theirs) = (cards(&alone), cards(&run_alone));
        let ids = |m: &[Message]| -> Vec<String> { m.iter().map(|c| c.id.clone()).collect() };
        assert_eq!(ids(&mine), ids(&theirs), "{run}: its cards, no other's");
        assert_eq!(mine.len() as u64, session.subagents, "{run}");
        assert!(mine.iter().all(|m| m.session_id == session.id), "{run}");
    }
}

/// The subagent cards `events` add.
fn cards(events: &[Event]) -> Vec<Message> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::MessageAdded(m) if m.is_subagent_payload() => Some(m.clone()),
            _ => None,
        })
        .collect()
}

/// Each run with the session of it the file lists (by its agent).
fn found_runs(text: &str) -> Vec<(&'static str, TelemetrySession)> {
    let found = sessions(text);
    RUNS.iter()
        .zip(["Claude Code", "qwen-code", "Copilot CLI"])
        .map(|(run, agent)| {
            let session = found
                .iter()
                .find(|s| s.agent.as_deref() == Some(agent))
                .unwrap();
            (*run, session.clone())
        })
        .collect()
}

#[test]
fn a_file_of_one_session_and_what_is_no_telemetry_list_as_they_are() {
    let one = otlp_posts(RUNS[0]).join("\n");
    assert!(is_telemetry(&one));
    let found = sessions(&one);
    assert_eq!(found.len(), 1);
    assert_eq!(
        session_text(&one, CLAUDE).lines().count(),
        one.lines().count()
    );
    let transcript = r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}"#;
    assert!(!is_telemetry(transcript));
    assert!(sessions(transcript).is_empty());
    assert!(!is_telemetry(""));
    assert!(
        !is_telemetry(r#"{"messages": [], "resourceSpans": []}"#),
        "another document"
    );
    assert!(is_telemetry("\n { \"resourceLogs\": [] }\n"));
    assert_eq!(session_text(&one, "no-such-session"), "");
}
