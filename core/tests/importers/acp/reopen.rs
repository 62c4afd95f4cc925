//! A session opened again over ACP (docs/behaviour.md §4): a client restarted after a
//! run resumes the session (`session/resume`) or loads it (`session/load`,
//! which replays its history as `session/update`s first). The replay is not
//! shown twice; each reopening is one `Resumed` row; a slash command the
//! agent offers is a command row; the Claude adapter's `compact` tool call
//! is one compaction row, expanded by the summary a later replay carries.
//! The captures are the adapter's `resumed` and `continued` stories
//! (`captures/scenarios/resumed.mjs`).

use super::*;
use taskview_core::model::message::{Author, MessageType};
use taskview_core::read::import::{import_any_with_files, Dialect};
use taskview_testkit::captures::capture;

const SESSION: &str = "sess_1";

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn response(id: u64, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn prompt(id: u64, text: &str) -> Value {
    request(
        id,
        "session/prompt",
        json!({"sessionId": SESSION, "prompt": [{"type": "text", "text": text}]}),
    )
}

fn end_turn(id: u64) -> Value {
    response(id, json!({"stopReason": "end_turn"}))
}

fn agent_text(message_id: &str, text: &str) -> Value {
    frame(
        json!({"sessionUpdate": "agent_message_chunk", "messageId": message_id,
                 "content": {"type": "text", "text": text}}),
    )
}

fn user_text(message_id: &str, text: &str) -> Value {
    frame(
        json!({"sessionUpdate": "user_message_chunk", "messageId": message_id,
                 "content": {"type": "text", "text": text}}),
    )
}

fn reopen(id: u64, method: &str) -> Value {
    request(
        id,
        method,
        json!({"sessionId": SESSION, "cwd": "/w", "mcpServers": []}),
    )
}

fn initialize() -> Value {
    request(0, "initialize", json!({"protocolVersion": 1}))
}

fn commands(names: &[&str]) -> Value {
    let offered: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "description": ""}))
        .collect();
    frame(json!({"sessionUpdate": "available_commands_update", "availableCommands": offered}))
}

fn compact_call(update: Value) -> Value {
    let mut u = json!({"toolCallId": "cmp-1", "_meta": {"claudeCode": {"toolName": "compact"}}});
    for (k, v) in update.as_object().unwrap() {
        u[k] = v.clone();
    }
    frame(u)
}

/// The rows whose `metadata.event` is `event`.
fn events<'a>(msgs: &'a [Message], event: &str) -> Vec<&'a Message> {
    msgs.iter()
        .filter(|m| m.metadata.raw_str("event") == Some(event))
        .collect()
}

/// The user's prompts and the agent's texts at the top level, in order.
fn said(msgs: &[Message], author: Author) -> Vec<&str> {
    msgs.iter()
        .filter(|m| m.author == author && m.kind == MessageType::Message)
        .filter(|m| m.metadata.parent_tool_call_id.is_none())
        .map(|m| m.content.as_str())
        .collect()
}

/// Run 1 live: a prompt, a launched subagent, the answer.
fn first_run() -> Vec<Value> {
    vec![
        initialize(),
        response(0, json!({"protocolVersion": 1})),
        prompt(1, "Review the lexer."),
        agent_text("msg_1", "One reviewer"),
        agent_text("msg_1", " for the lexer."),
        agent_start("toolu_A", "Agent"),
        agent_input("toolu_A", explore_input()),
        finished("toolu_A", "completed", json!("Found it.")),
        agent_text("msg_2", "Done."),
        end_turn(1),
    ]
}

/// The history `session/load` replays of run 1: the prompt, each agent
/// message whole with its live id, the subagent's call again.
fn replay_of_first_run() -> Vec<Value> {
    vec![
        user_text("u-1", "Review the lexer."),
        agent_text("msg_1", "One reviewer for the lexer."),
        agent_start("toolu_A", "Agent"),
        finished(
            "toolu_A",
            "completed",
            json!("Async agent launched successfully."),
        ),
        agent_text("msg_2", "Done."),
    ]
}

#[test]
fn a_replayed_history_is_not_shown_twice_messages_tool_calls_or_cards() {
    let mut all = first_run();
    all.extend([initialize(), reopen(1, "session/load")]);
    all.extend(replay_of_first_run());
    all.extend([
        response(1, json!({})),
        prompt(2, "Go on."),
        agent_text("msg_3", "Going on."),
        end_turn(2),
    ]);
    let msgs = import(&all);
    assert_eq!(said(&msgs, Author::User), ["Review the lexer.", "Go on."]);
    assert_eq!(
        said(&msgs, Author::Agent),
        ["One reviewer for the lexer.", "Done.", "Going on."]
    );
    let cards: Vec<_> = msgs
        .iter()
        .filter(|m| m.metadata.subagent.is_some())
        .collect();
    assert_eq!(cards.len(), 1);
    // What the live frames said wins over the replay's launch text.
    assert_eq!(
        cards[0].metadata.subagent.as_ref().unwrap().result_text,
        "Found it."
    );
}

#[test]
fn each_of_two_loads_replaying_the_whole_history_shows_nothing_twice() {
    let mut all = vec![initialize(), reopen(1, "session/load")];
    all.extend(replay_of_first_run());
    all.extend([
        response(1, json!({})),
        prompt(2, "Go on."),
        agent_text("msg_3", "Going on."),
        end_turn(2),
        initialize(),
        reopen(1, "session/load"),
    ]);
    all.extend(replay_of_first_run());
    all.extend([
        user_text("u-2", "Go on."),
        agent_text("msg_3", "Going on."),
        response(1, json!({})),
    ]);
    let msgs = import(&all);
    assert_eq!(said(&msgs, Author::User), ["Review the lexer.", "Go on."]);
    assert_eq!(
        said(&msgs, Author::Agent),
        ["One reviewer for the lexer.", "Done.", "Going on."]
    );
    assert_eq!(events(&msgs, "resume").len(), 2);
}

#[test]
fn a_loaded_session_this_file_never_saw_live_shows_its_replayed_history() {
    let mut all = vec![initialize(), reopen(1, "session/load")];
    all.extend(replay_of_first_run());
    all.push(response(1, json!({})));
    let msgs = import(&all);
    assert_eq!(said(&msgs, Author::User), ["Review the lexer."]);
    assert_eq!(
        said(&msgs, Author::Agent),
        ["One reviewer for the lexer.", "Done."]
    );
    assert_eq!(
        msgs.iter()
            .filter(|m| m.metadata.subagent.is_some())
            .count(),
        1
    );
}

#[test]
fn each_resume_or_load_of_the_session_is_one_resumed_row_after_what_it_replays() {
    let mut all = first_run();
    all.extend([
        initialize(),
        reopen(1, "session/resume"),
        response(1, json!({})),
    ]);
    all.extend([initialize(), reopen(1, "session/load")]);
    all.extend(replay_of_first_run());
    all.push(response(1, json!({})));
    let msgs = import(&all);
    let resumed = events(&msgs, "resume");
    assert_eq!(resumed.len(), 2);
    assert!(resumed.iter().all(|r| r.content == "Resumed"));
    assert_eq!(msgs.last().unwrap().id, resumed[1].id);
    assert_eq!(said(&msgs, Author::User), ["Review the lexer."]);
}

#[test]
fn a_failed_resume_is_an_error_row_not_a_resumed_row() {
    let all = vec![
        initialize(),
        reopen(1, "session/resume"),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32002, "message": "Session not found"}}),
    ];
    let msgs = import(&all);
    assert!(events(&msgs, "resume").is_empty());
    assert!(msgs
        .iter()
        .any(|m| m.content == "Resume failed: Session not found"));
}

#[test]
fn the_adapter_s_compact_tool_call_is_one_compaction_row_expanded_by_the_replayed_summary() {
    let summary = "This session is being continued from a previous conversation that ran out of context.\n\nSummary:\n1. Primary request: Review the lexer.";
    let mut all = first_run();
    all.extend([
        initialize(),
        reopen(1, "session/resume"),
        response(1, json!({})),
        commands(&["compact", "context"]),
        prompt(2, "/compact"),
        compact_call(json!({"sessionUpdate": "tool_call", "title": "Compact conversation",
                            "kind": "think", "status": "in_progress"})),
        compact_call(json!({"sessionUpdate": "tool_call_update", "status": "completed"})),
        compact_call(json!({"sessionUpdate": "tool_call_update",
                            "rawOutput": {"trigger": "manual", "preTokens": 4868, "postTokens": 2677}})),
        end_turn(2),
        initialize(),
        reopen(1, "session/load"),
        user_text("u-9", summary),
        agent_text("msg_2", "Done."),
        response(1, json!({})),
    ]);
    let msgs = import(&all);
    let compaction = events(&msgs, "compaction");
    assert_eq!(compaction.len(), 1);
    assert_eq!(compaction[0].content, "Conversation compacted · manual");
    assert_eq!(compaction[0].metadata.raw_str("detail"), Some(summary));
    let command = events(&msgs, "command");
    assert_eq!(command.len(), 1);
    assert_eq!(command[0].content, "/compact");
    assert_eq!(said(&msgs, Author::User), ["Review the lexer."]);
    assert!(msgs.iter().all(|m| !m.content.contains("being continued")
        || m.metadata.raw_str("event") == Some("compaction")));
    assert!(msgs
        .iter()
        .all(|m| m.metadata.tool_call_id.as_deref() != Some("cmp-1")));
}

fn compaction_update(update: Value) -> Value {
    let mut u = json!({"sessionUpdate": "compaction_update", "compactionId": "c-1"});
    for (k, v) in update.as_object().unwrap() {
        u[k] = v.clone();
    }
    frame(u)
}

fn summary_chunk(text: &str) -> Value {
    frame(
        json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "c-1",
                 "content": {"type": "text", "text": text}}),
    )
}

#[test]
fn the_session_compaction_contract_is_one_compaction_row_expanded_to_its_streamed_summary() {
    let mut all = first_run();
    all.extend([
        commands(&["compact"]),
        prompt(2, "/compact"),
        compaction_update(json!({"status": "in_progress"})),
        summary_chunk("1. Primary request: "),
        summary_chunk("Review the lexer."),
        compaction_update(json!({"status": "completed"})),
        end_turn(2),
        // A later load replays the summary as the agent continues from it.
        initialize(),
        reopen(1, "session/load"),
        user_text("u-9", "This session is being continued from a previous conversation.\n\nSummary:\n1. Primary request: Review the lexer."),
        response(1, json!({})),
    ]);
    let msgs = import(&all);
    let compaction = events(&msgs, "compaction");
    assert_eq!(compaction.len(), 1);
    assert_eq!(compaction[0].content, "Conversation compacted");
    assert_eq!(
        compaction[0].metadata.raw_str("detail"),
        Some("1. Primary request: Review the lexer.")
    );
    assert_eq!(said(&msgs, Author::User), ["Review the lexer."]);
    assert_eq!(events(&msgs, "command").len(), 1);
}

#[test]
fn a_failed_or_cancelled_compaction_says_so_and_expands_to_its_error() {
    let failed = import(&[compaction_update(
        json!({"status": "failed", "error": "Not enough messages to compact."}),
    )]);
    let row = events(&failed, "compaction");
    assert_eq!(row[0].content, "Compaction failed");
    assert_eq!(
        row[0].metadata.raw_str("detail"),
        Some("Not enough messages to compact.")
    );
    let cancelled = import(&[
        compaction_update(json!({"status": "in_progress"})),
        compaction_update(json!({"status": "cancelled"})),
    ]);
    let rows = events(&cancelled, "compaction");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].content, "Compaction cancelled");
}

#[test]
fn a_replayed_summary_of_a_compaction_before_the_file_is_a_compaction_row_of_its_own() {
    let all = vec![
        initialize(),
        reopen(1, "session/load"),
        user_text(
            "u-1",
            "This session is being continued from a previous conversation.\n\nSummary: lexer.",
        ),
        agent_text("msg_9", "Fixed."),
        response(1, json!({})),
    ];
    let msgs = import(&all);
    let compaction = events(&msgs, "compaction");
    assert_eq!(compaction.len(), 1);
    assert!(compaction[0]
        .metadata
        .raw_str("detail")
        .unwrap()
        .ends_with("Summary: lexer."));
    assert!(said(&msgs, Author::User).is_empty());
    assert_eq!(said(&msgs, Author::Agent), ["Fixed."]);
}

#[test]
fn a_slash_prompt_the_agent_does_not_offer_is_the_user_s_prompt() {
    let all = vec![
        commands(&["compact"]),
        prompt(1, "/review the lexer"),
        end_turn(1),
    ];
    let msgs = import(&all);
    assert!(events(&msgs, "command").is_empty());
    assert_eq!(said(&msgs, Author::User), ["/review the lexer"]);
}

#[test]
fn a_new_connection_s_ids_start_again_so_an_earlier_prompt_s_id_answers_nothing_later() {
    // Run 2's agent asks a permission with the id run 1's prompt had: the
    // client's answer settles the permission, not run 1's long-ended turn.
    let all = vec![
        initialize(),
        prompt(3, "First."),
        end_turn(3),
        initialize(),
        reopen(1, "session/resume"),
        response(1, json!({})),
        prompt(2, "Second."),
        request(
            3,
            "session/request_permission",
            json!({"sessionId": SESSION, "toolCall": {"toolCallId": "t1", "title": "Edit"},
                   "options": [{"optionId": "yes", "kind": "allow_once"}]}),
        ),
        response(
            3,
            json!({"outcome": {"outcome": "selected", "optionId": "yes"}}),
        ),
        end_turn(2),
    ];
    let msgs = import(&all);
    assert_eq!(said(&msgs, Author::User), ["First.", "Second."]);
    let call = msgs
        .iter()
        .find(|m| m.metadata.tool_call_id.as_deref() == Some("t1"))
        .unwrap();
    assert_eq!(call.metadata.raw["permission"]["status"], "approved");
}

/// The adapter's `resumed` and `continued` captures: the prompts the user
/// typed and nothing else as prompts, every agent message once (the
/// continuation's `session/load` replays them), one card per wave, a
/// `Resumed` row per later run, and in `resumed` the `/compact` command row
/// and one compaction row with the scripted summary.
#[test]
fn the_adapter_s_resumed_and_continued_captures_read_as_one_session() {
    for (name, compacted, resumes) in [
        ("claude-agent-acp-0.101.0/resumed", true, 3),
        ("claude-agent-acp-0.101.0/continued", false, 2),
    ] {
        let c = capture(name);
        let import = import_any_with_files(&c.session, &c.file_refs()).expect("imports");
        assert_eq!(import.dialect, Dialect::Acp, "{name}");
        assert!(unreadable(&import.events).is_empty(), "{name}");
        let msgs = messages(&import.events);
        assert_eq!(
            said(&msgs, Author::User),
            [
                "Review the parser-kit lexer with one reviewer.",
                "Now review the parser-kit evaluator with a second reviewer.",
                "Which of the two findings should be fixed first?"
            ],
            "{name}"
        );
        // The scripted main agents' texts (resumed.mjs), each once, in order.
        let mut expected = vec![
            "One reviewer for the lexer.",
            "0 of 1 reports are in; waiting for: Review the lexer.",
            "## Summary\n\nThe lexer review is in: it unwraps number parsing.",
            "A second reviewer for the evaluator.",
            "0 of 1 reports are in; waiting for: Review the evaluator.",
            "## Summary\n\nThe evaluator review is in: division by zero returns infinity.",
            "Fix the lexer first: a panic is worse than a surprising value.",
        ];
        expected.dedup();
        assert_eq!(said(&msgs, Author::Agent), expected, "{name}");
        let cards: Vec<_> = msgs
            .iter()
            .filter_map(|m| m.metadata.subagent.as_ref())
            .map(|s| s.description.as_str())
            .collect();
        assert_eq!(
            cards,
            ["Review the lexer", "Review the evaluator"],
            "{name}"
        );
        let resumed = events(&msgs, "resume");
        assert_eq!(resumed.len(), resumes, "{name}");
        let compaction = events(&msgs, "compaction");
        let command = events(&msgs, "command");
        if compacted {
            assert_eq!(compaction.len(), 1, "{name}");
            assert_eq!(compaction[0].content, "Conversation compacted · manual");
            let summary = compaction[0].metadata.raw_str("detail").unwrap_or("");
            assert!(
                summary.contains("Primary request: Review the parser-kit lexer with one reviewer."),
                "{name}: {summary}"
            );
            assert_eq!(command.len(), 1, "{name}");
            assert_eq!(command[0].content, "/compact");
        } else {
            assert!(compaction.is_empty() && command.is_empty(), "{name}");
        }
    }
}
