//! The follower's own cases (the fixtures' cuts are in core/tests/importers/follow.rs).

use super::*;
use crate::read::import::import_any;

const CALL: &str = r#"{"type":"assistant","uuid":"a1","sessionId":"s","timestamp":"2026-12-06T10:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"Look","prompt":"Look it up","subagent_type":"general-purpose"}}]}}"#;
const CHILD: &str = r#"{"type":"assistant","uuid":"c1","isSidechain":true,"agentId":"abc","sessionId":"s","timestamp":"2026-12-06T10:00:02Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"The answer."}]}}"#;
const RESULT: &str = r#"{"type":"user","uuid":"u2","sessionId":"s","timestamp":"2026-12-06T10:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"The answer."}]}]},"toolUseResult":{"status":"completed","agentId":"abc","content":[{"type":"text","text":"The answer."}]}}"#;

fn ids(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e {
            Event::MessageAdded(m) => format!("+{}", m.id),
            Event::MessageReplaced(m) => format!("~{}", m.id),
            Event::MessageDeleted { id } => format!("-{id}"),
            Event::Unreadable { .. } => "?".into(),
            other => format!("{other:?}"),
        })
        .collect()
}

#[test]
fn a_record_is_read_once_its_newline_comes() {
    let mut follower = Follower::new(None);
    let (head, tail) = CALL.split_at(40);
    assert!(follower.push(head.as_bytes()).is_empty());
    assert_eq!(follower.dialect(), None);
    assert!(follower.push(tail.as_bytes()).is_empty());
    assert_eq!(ids(&follower.push(b"\n")), ["+toolu_1"]);
    assert_eq!(follower.dialect(), Some(Dialect::ClaudeCode));
    assert!(follower.push(b"not json").is_empty());
    assert_eq!(
        ids(&follower.flush()),
        ["?"],
        "a last line without its newline"
    );
}

#[test]
fn a_result_completes_its_call_and_an_answer_its_child_echoes_drops_that_row() {
    let mut follower = Follower::new(None);
    assert_eq!(
        ids(&follower.push(format!("{CALL}\n").as_bytes())),
        ["+toolu_1"]
    );
    assert_eq!(follower.working(), Some(true));
    assert_eq!(
        ids(&follower.push(format!("{CHILD}\n").as_bytes())),
        ["+c1"]
    );
    let events = follower.push(format!("{RESULT}\n").as_bytes());
    assert_eq!(ids(&events), ["~toolu_1", "-c1"]);
    let whole = import_any(&[CALL, CHILD, RESULT].join("\n"))
        .unwrap()
        .events;
    assert_eq!(ids(&whole), ["+toolu_1"], "the whole import drops it too");
    assert_eq!(follower.title(), None);
}

#[test]
fn whole_documents_are_re_read_whole() {
    for (doc, dialect) in [
        (
            r#"{"messages":[{"id":"m1","content":"hi"}]}"#,
            Dialect::Kandev,
        ),
        (
            r#"{"turns":[{"turnId":"t1","userMessage":"hi"}]}"#,
            Dialect::Gadget,
        ),
    ] {
        assert!(!dialect.follows());
        let mut follower = Follower::new(None);
        assert!(follower.push(format!("{doc}\n").as_bytes()).is_empty());
        assert!(follower.needs_reread(), "{dialect}");
        assert_eq!(follower.dialect(), Some(dialect));
    }
    assert!(Dialect::ALL
        .iter()
        .filter(|d| d.follows())
        .all(|d| !matches!(d, Dialect::Kandev | Dialect::Gadget)));
}

#[test]
fn a_gemini_log_writing_a_message_again_asks_for_a_re_read() {
    let header = r#"{"sessionId":"g","projectHash":"h","startTime":"2026-12-06T10:00:00Z"}"#;
    let first = r#"{"id":"a","timestamp":"2026-12-06T10:00:01Z","type":"gemini","content":"x"}"#;
    let again = r#"{"id":"a","timestamp":"2026-12-06T10:00:01Z","type":"gemini","content":"x","toolCalls":[]}"#;
    let mut follower = Follower::new(None);
    follower.push(format!("{header}\n{first}\n").as_bytes());
    assert_eq!(follower.dialect(), Some(Dialect::GeminiCli));
    assert!(!follower.needs_reread());
    assert!(follower.push(format!("{again}\n").as_bytes()).is_empty());
    assert!(follower.needs_reread());
    let mut fresh = Follower::new(None);
    fresh.push(format!("{header}\n{first}\n{again}\n").as_bytes());
    assert!(
        !fresh.needs_reread(),
        "a new follower resolves the log whole"
    );
}
