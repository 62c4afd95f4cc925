//! Browser tests of what real sessions render differently (docs/behaviour.md §1,
//! §3.1, docs/formats.md §7): the captures in tests/fixtures/real/ and
//! records of the same shapes are imported by core, put in the app's store,
//! and the mounted transcript is read as a user sees it.
#![cfg(target_arch = "wasm32")]

use taskview_core::model::event::Event;
use taskview_core::read::import::import_any_with_files;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

mod support;

use support::transcript::{text_in, Mounted};

wasm_bindgen_test_configure!(run_in_browser);

const SHOWCASE: &str = include_str!(
    "fixtures/real/claude-code-log/minimal_showcase/55550000-0000-4000-8000-000000000001.jsonl"
);
const SHOWCOL1: &str = include_str!(
    "fixtures/real/claude-code-log/minimal_showcase/55550000-0000-4000-8000-000000000001/subagents/agent-showcol1.jsonl"
);
const SHOWCOL2: &str = include_str!(
    "fixtures/real/claude-code-log/minimal_showcase/55550000-0000-4000-8000-000000000001/subagents/agent-showcol2.jsonl"
);
const ACP_NESTED: &str =
    include_str!("fixtures/real/claude-agent-acp/__snapshots__/v2/subagent-nested.jsonl");

/// A transcript mounted with the events of one import, as the file view
/// pushes them.
async fn imported(text: &str, files: &[(&str, &str)]) -> Mounted {
    let events = import_any_with_files(text, files).expect("import").events;
    Mounted::with(
        std::iter::once(Event::TranscriptOpened { session_id: None })
            .chain(events)
            .collect(),
    )
    .await
}

/// The meta chips of a card as `id:text`.
fn chips(card: &Element) -> Vec<String> {
    let list = card
        .query_selector_all("[data-testid^=subagent-meta-]")
        .unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|n| {
            let e: Element = n.unchecked_into();
            let id = e.get_attribute("data-testid").unwrap_or_default();
            format!(
                "{}:{}",
                id.trim_start_matches("subagent-meta-"),
                e.text_content().unwrap_or_default()
            )
        })
        .collect()
}

fn record(kind: &str, uuid: &str, extra: &str) -> String {
    format!(
        r#"{{"type":"{kind}","uuid":"{uuid}","sessionId":"s1","timestamp":"2026-03-12T14:00:00Z",{extra}}}"#
    )
}

/// A Task whose child transcript has a TodoWrite, a Read and a nested Task,
/// and whose result is markdown led by a heading.
fn todo_session() -> String {
    let child = |uuid: &str, block: &str| {
        record(
            "assistant",
            uuid,
            &format!(
                r#""isSidechain":true,"agentId":"c0ffee1","message":{{"id":"m-{uuid}","role":"assistant","content":[{block}]}}"#
            ),
        )
    };
    [
        record("user", "u1", r#""message":{"role":"user","content":"plan it"}"#),
        record(
            "assistant",
            "a1",
            r#""message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_T","name":"Task","input":{"description":"Plan","prompt":"Plan it","subagent_type":"Plan"}}]}"#,
        ),
        child("c1", r#"{"type":"tool_use","id":"toolu_todo","name":"TodoWrite","input":{"todos":[{"content":"read","status":"pending"}]}}"#),
        child("c2", r#"{"type":"tool_use","id":"toolu_read","name":"Read","input":{"file_path":"/a"}}"#),
        child("c3", r#"{"type":"tool_use","id":"toolu_inner","name":"Task","input":{"description":"Dig","prompt":"Dig","subagent_type":"Explore"}}"#),
        record(
            "user",
            "u2",
            r###""message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_T","content":"## Summary\n\n- **Done**: see `plan.md`"}]},"toolUseResult":{"status":"completed","agentId":"c0ffee1","totalToolUseCount":3,"totalDurationMs":2500}"###,
        ),
    ]
    .join("\n")
}

/// docs/behaviour.md §3.1 item 6: the collapsed card's summary line is the plain text
/// of the first line that is not only a heading (`## Summary` is passed
/// over); expanded, the result renders as markdown.
#[wasm_bindgen_test]
async fn the_summary_line_passes_over_headings_is_plain_text_and_the_body_is_markdown() {
    let m = imported(&todo_session(), &[]).await;
    let card = m.card("toolu_T");
    assert_eq!(
        text_in(&card, "[data-testid=subagent-result-summary]").as_deref(),
        Some("Done: see plan.md")
    );
    m.toggle("toolu_T").await;
    let card = m.card("toolu_T");
    assert!(text_in(&card, "[data-testid=subagent-result-summary]").is_none());
    let body = card
        .query_selector("[data-testid=subagent-result-text]")
        .unwrap()
        .expect("the full result");
    assert_eq!(text_in(&body, "h2").as_deref(), Some("Summary"));
    assert_eq!(text_in(&body, "li strong").as_deref(), Some("Done"));
    assert_eq!(text_in(&body, "li code").as_deref(), Some("plan.md"));
}

/// docs/behaviour.md §3.1 item 5 and §3.2: a TodoWrite shown as a todo list and a
/// nested subagent count as tool calls, so the count equals the reported
/// tool uses and the tools chip is gone.
#[wasm_bindgen_test]
async fn every_tool_derived_child_counts_and_the_tools_chip_disappears() {
    let m = imported(&todo_session(), &[]).await;
    let card = m.card("toolu_T");
    assert_eq!(
        text_in(&card, "[data-testid=subagent-child-count]").as_deref(),
        Some("3 tool calls")
    );
    assert_eq!(chips(&card), ["duration:2.5s"]);
    m.toggle("toolu_T").await;
    let card = m.card("toolu_T");
    assert!(card
        .query_selector("[data-testid=message-todo]")
        .unwrap()
        .is_some());
    assert!(card
        .query_selector("[data-testid=subagent-card]#msg-toolu_inner")
        .unwrap()
        .is_some());
}

/// docs/formats.md §7 Claude Code 6: a background command's
/// notification, written twice, is one status line and no user speech.
#[wasm_bindgen_test]
async fn a_background_command_notification_is_one_status_line() {
    let note = r#"<task-notification>\n<task-id>b7x2k9</task-id>\n<status>completed</status>\n<summary>Background command \"npm test\" completed (exit code 0)</summary>\n</task-notification>"#;
    let text = [
        record(
            "user",
            "u1",
            r#""message":{"role":"user","content":"run the tests"}"#,
        ),
        record(
            "queue-operation",
            "q1",
            &format!(r#""operation":"enqueue","content":"{note}""#),
        ),
        record(
            "user",
            "u2",
            &format!(r#""message":{{"role":"user","content":"{note}"}}"#),
        ),
    ]
    .join("\n");
    let m = imported(&text, &[]).await;
    let status: Vec<String> = m
        .all("[data-testid=message-status]")
        .iter()
        .map(|e| e.text_content().unwrap_or_default())
        .collect();
    assert_eq!(status.len(), 1, "{status:?}");
    assert!(status[0].contains("Background command \"npm test\" completed (exit code 0)"));
    let users: Vec<String> = m
        .all(".bubble-user")
        .iter()
        .map(|e| e.text_content().unwrap_or_default())
        .collect();
    assert_eq!(users.len(), 1, "only the prompt is user speech: {users:?}");
    assert!(users[0].contains("run the tests"));
}

/// A real 2.1.x session with its subagents folder: faces as the captures
/// say, the trailer cut, the tools chip hidden where the count agrees, and
/// no orphan card.
#[wasm_bindgen_test]
async fn a_real_session_with_its_subagent_files_renders_full_cards() {
    let stem = "55550000-0000-4000-8000-000000000001";
    let one = format!("{stem}/subagents/agent-showcol1.jsonl");
    let two = format!("{stem}/subagents/agent-showcol2.jsonl");
    let m = imported(SHOWCASE, &[(&one, SHOWCOL1), (&two, SHOWCOL2)]).await;
    assert!(m.all("[data-testid=orphan-card]").is_empty());
    let jobs = m.card("toolu_sc_showcol2");
    assert_eq!(
        text_in(&jobs, "[data-testid=subagent-child-count]").as_deref(),
        Some("1 tool call")
    );
    assert_eq!(
        chips(&jobs),
        [
            "duration:4.2s",
            "tokens:1.2k tokens",
            // docs/behaviour.md §8 context isolation: what reached the parent of what it spent.
            "returned:~18 tokens returned of 1.2k",
            "model:claude-haiku-4-5-20251001"
        ]
    );
    let web = m.card("toolu_sc_showcol1");
    let summary = text_in(&web, "[data-testid=subagent-result-summary]").unwrap();
    assert_eq!(
        summary,
        "The web module renders its pages in a column layout (screenshot attached)."
    );
    assert!(!web.text_content().unwrap_or_default().contains("agentId"));
    assert!(web
        .query_selector("[data-testid=subagent-not-loaded]")
        .unwrap()
        .is_none());
}

/// The same session without its subagent files: each card says its
/// transcript is not loaded, and keeps its reported tools chip.
#[wasm_bindgen_test]
async fn a_real_session_without_its_subagent_files_says_not_loaded() {
    let m = imported(SHOWCASE, &[]).await;
    for id in ["toolu_sc_showcol1", "toolu_sc_showcol2"] {
        let card = m.card(id);
        assert_eq!(
            text_in(&card, "[data-testid=subagent-not-loaded]").as_deref(),
            Some("transcript not loaded"),
            "{id}"
        );
        assert!(chips(&card).contains(&"tools:1 tool".to_string()), "{id}");
    }
    assert!(m.all("[data-testid=orphan-card]").is_empty());
}

/// The ACP adapter's v2 snapshot: the envelope unwrapped, the nested Agent
/// a card inside its parent, counted as its one tool call.
#[wasm_bindgen_test]
async fn an_acp_v2_snapshot_renders_its_nested_cards() {
    let m = imported(ACP_NESTED, &[]).await;
    let outer = m.card("toolu_outer");
    assert_eq!(
        text_in(&outer, "[data-testid=subagent-child-count]").as_deref(),
        Some("1 tool call")
    );
    assert_eq!(
        text_in(&outer, "[data-testid=subagent-result-summary]").as_deref(),
        Some("Plan: do X.")
    );
    m.toggle("toolu_outer").await;
    let inner = m.card("toolu_inner");
    assert_eq!(
        text_in(&inner, "[data-testid=subagent-type]").as_deref(),
        Some("Explore")
    );
}
