//! The record rules of the Claude Code importer (docs/formats.md §2).

use super::*;
use serde_json::json;
use taskview_core::model::message::MessageType;
use taskview_core::read::import::claude_code;

#[test]
fn fixture_imports_to_one_explore_card_with_three_children() {
    let msgs = messages(&claude_code::import(&fixture(SESSION)).unwrap());
    assert_fixture_card(&msgs);
    let sa = payload(&msgs, TASK);
    assert_eq!(
        sa.model, "claude-haiku-4-5-20251001",
        "from the child records' message.model"
    );
    let card = by_id(&msgs, TASK);
    assert_eq!(card.metadata.raw.get("transcript_not_loaded"), None);

    let kids = children(&msgs, TASK);
    assert_eq!(
        kinds(&kids),
        ["tool_search", "tool_read", "tool_execute"],
        "the echoed answer is not a child"
    );
    let titles: Vec<&str> = kids.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Grep \"retry|MAX_WEBHOOK_RETRIES\"",
            "Read /home/dev/acme-api/src/billing/webhooks.ts",
            "npm test -- webhooks 2>&1 | tail -n 5"
        ]
    );
    assert_eq!(kids[2].metadata.status.as_deref(), Some("error"));
    assert_eq!(
        kids[2].metadata.kind_payload().unwrap()["output"]["exit_code"],
        1
    );
    assert!(kids.iter().all(|m| m.turn_id.as_deref() == Some("turn-1")));

    let top = top_level(&msgs);
    assert_eq!(
        kinds(&top),
        ["message", "thinking", "message", "tool_call", "message"]
    );
    assert_eq!(top[0].author.as_str(), "user");
    assert!(top.iter().all(|m| m.turn_id.as_deref() == Some("turn-1")));
    assert_eq!(top[2].metadata.raw_str("model"), Some("claude-opus-4-6"));
}

#[test]
fn children_come_from_a_subagent_file_beside_the_session() {
    let (main, side) = split_fixture();
    let name = format!("6f0c1d2e-8a47-4b3e-9c51-2d7e4f90a1b3/subagents/agent-{AGENT}.jsonl");
    let with_file = messages(&claude_code::import_with_files(&main, &[(&name, &side)]).unwrap());
    let inline = messages(&claude_code::import(&fixture(SESSION)).unwrap());
    assert_fixture_card(&with_file);
    assert_eq!(payload(&with_file, TASK), payload(&inline, TASK));
    let ids = |msgs: &[Message]| {
        children(msgs, TASK)
            .iter()
            .map(|m| m.id.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&with_file), ids(&inline));
    assert_eq!(
        by_id(&with_file, TASK)
            .metadata
            .raw
            .get("transcript_not_loaded"),
        None
    );
}

#[test]
fn a_missing_child_file_marks_the_transcript_not_loaded_and_keeps_the_tool_count() {
    let (main, _) = split_fixture();
    let msgs = messages(&claude_code::import_with_files(&main, &[("notes.txt", "hello")]).unwrap());
    assert_fixture_card(&msgs);
    assert!(children(&msgs, TASK).is_empty());
    let card = by_id(&msgs, TASK);
    assert_eq!(card.metadata.raw["transcript_not_loaded"], true);
    assert_eq!(
        payload(&msgs, TASK).tool_use_count,
        Some(3),
        "the real count, never a fabricated 0"
    );
}

#[test]
fn a_concatenated_session_and_child_file_are_not_doubled() {
    let (_, side) = split_fixture();
    let text = format!("{}\n{side}", fixture(SESSION));
    let msgs = messages(
        &claude_code::import_with_files(&text, &[(&format!("agent-{AGENT}.jsonl"), &side)])
            .unwrap(),
    );
    assert_eq!(children(&msgs, TASK).len(), 3);
    assert_eq!(
        msgs.len(),
        messages(&claude_code::import(&fixture(SESSION)).unwrap()).len()
    );
}

#[test]
fn records_are_merged_per_message_id() {
    let msgs = import(&[
        user("u1", json!("go")),
        assistant(
            "a1",
            "msg_1",
            json!({"type": "thinking", "thinking": "plan", "signature": "x"}),
        ),
        assistant(
            "a1-copy",
            "msg_1",
            json!({"type": "thinking", "thinking": "plan", "signature": "x"}),
        ),
        assistant("a2", "msg_1", json!({"type": "text", "text": "Hel"})),
        assistant(
            "a3",
            "msg_1",
            json!({"type": "text", "text": "Hello there"}),
        ),
        assistant(
            "a4",
            "msg_1",
            json!({"type": "thinking", "thinking": "", "signature": "withheld"}),
        ),
        assistant("a5", "msg_1", tool_use("toolu_1", "Bash", json!({}))),
        assistant(
            "a6",
            "msg_1",
            tool_use("toolu_1", "Bash", json!({"command": "ls"})),
        ),
    ]);
    let expect = [
        ("message", "go"),
        ("thinking", "plan"),
        ("message", "Hello there"),
        ("tool_execute", "ls"),
    ];
    assert_eq!(kinds_and_contents(&msgs), expect);
}

#[test]
fn tool_use_pairs_with_tool_result_by_id() {
    let msgs = import(&[
        user("u1", json!("look")),
        assistant(
            "a1",
            "msg_1",
            tool_use("toolu_R", "Read", json!({"file_path": "/a.ts"})),
        ),
        assistant(
            "a2",
            "msg_1",
            tool_use("toolu_G", "Grep", json!({"pattern": "x"})),
        ),
        tool_result("r1", "toolu_G", json!("a.ts:1:x"), false, None),
        tool_result(
            "r2",
            "toolu_R",
            json!([{"type": "text", "text": "const x = 1;"}]),
            false,
            None,
        ),
        tool_result("r3", "toolu_missing", json!("orphan output"), true, None),
    ]);
    assert_eq!(
        by_id(&msgs, "toolu_R").metadata.raw_str("result"),
        Some("const x = 1;")
    );
    assert_eq!(
        by_id(&msgs, "toolu_G").metadata.raw_str("result"),
        Some("a.ts:1:x")
    );
    assert_eq!(by_id(&msgs, "toolu_G").kind, MessageType::ToolSearch);
    let orphan = by_id(&msgs, "toolu_missing");
    assert_eq!(orphan.metadata.status.as_deref(), Some("error"));
    assert_eq!(orphan.kind, MessageType::ToolCall);
}

#[test]
fn task_metrics_fall_back_to_the_usage_trailer() {
    let trailer = "agentId: b7d2e0f1 (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 21007\ntool_uses: 5\nduration_ms: 90278</usage>";
    let msgs = import(&[
        user("u1", json!("review")),
        task_launch("a1", "toolu_T", "Review", "Check it.", "code-reviewer"),
        tool_result(
            "r1",
            "toolu_T",
            json!([{"type": "text", "text": "\nAPPROVE\nAll good."}, {"type": "text", "text": trailer}]),
            false,
            None,
        ),
    ]);
    let sa = payload(&msgs, "toolu_T");
    assert_eq!(
        sa.result_text, "\nAPPROVE\nAll good.",
        "verbatim, untrimmed"
    );
    assert_eq!(summary_line(sa).as_deref(), Some("APPROVE"));
    assert_eq!(sa.agent_id, "b7d2e0f1");
    assert_eq!(
        (sa.total_tokens, sa.tool_use_count, sa.duration_ms),
        (Some(21007), Some(5), Some(90278))
    );
    assert_eq!(
        by_id(&msgs, "toolu_T").metadata.raw["transcript_not_loaded"],
        true
    );
}

fn background_session(notification: &str) -> Vec<Value> {
    vec![
        user("u1", json!("dig in the background")),
        assistant(
            "a1",
            "msg_1",
            tool_use(
                "toolu_bg",
                "Agent",
                json!({
            "description": "Scan the billing code", "prompt": "Scan it.", "subagent_type": "Explore",
            "run_in_background": true}),
            ),
        ),
        tool_result(
            "r1",
            "toolu_bg",
            json!([{"type": "text", "text": "Async agent launched successfully.\nagentId: a90275e96f96c2fa9 (This is an internal ID)"}]),
            false,
            Some(
                json!({"status": "async_launched", "isAsync": true, "agentId": "a90275e96f96c2fa9",
                        "description": "Scan the billing code", "prompt": "Scan it.",
                        "outputFile": "/tmp/a90.output", "canReadOutputFile": true,
                        "resolvedModel": "claude-sonnet-5"}),
            ),
        ),
        assistant(
            "a2",
            "msg_2",
            json!({"type": "text", "text": "Launched; waiting."}),
        ),
        user("u2", json!(notification)),
    ]
}

const NOTIFICATION: &str = "<task-notification>\n<task-id>a90275e96f96c2fa9</task-id>\n<tool-use-id>toolu_bg</tool-use-id>\n<output-file>/tmp/a90.output</output-file>\n<status>completed</status>\n<summary>Agent \"Scan the billing code\" completed</summary>\n<result>\nFound it.\n  Second line\n</result>\n<usage>total_tokens: 5000\ntool_uses: 7\nduration_ms: 61000</usage>\n</task-notification>";

#[test]
fn a_background_run_is_async_until_its_task_notification_arrives() {
    let mut records = background_session(NOTIFICATION);
    records.pop();
    let msgs = import(&records);
    let sa = payload(&msgs, "toolu_bg");
    assert!(sa.is_async);
    assert_eq!(sa.status, "async_launched");
    assert_eq!(sa.result_text, "", "the launch text is not a result");
    assert_eq!(sa.model, "claude-sonnet-5");
    assert_eq!(
        by_id(&msgs, "toolu_bg").metadata.status.as_deref(),
        Some("in_progress")
    );
}

#[test]
fn a_background_run_finishes_through_a_task_notification() {
    let without_tool_use_id = NOTIFICATION.replace("<tool-use-id>toolu_bg</tool-use-id>\n", "");
    for notification in [NOTIFICATION, without_tool_use_id.as_str()] {
        let msgs = import(&background_session(notification));
        let sa = payload(&msgs, "toolu_bg");
        assert_eq!(sa.status, "completed");
        assert_eq!(sa.result_text, "Found it.\n  Second line");
        assert!(sa.is_async);
        assert_eq!(
            (sa.total_tokens, sa.tool_use_count, sa.duration_ms),
            (Some(5000), Some(7), Some(61000))
        );
        assert_eq!(
            by_id(&msgs, "toolu_bg").metadata.status.as_deref(),
            Some("complete")
        );
        assert!(
            !msgs.iter().any(|m| m.content.contains("task-notification")),
            "not user speech"
        );
        assert_eq!(
            msgs.iter().filter(|m| m.author.as_str() == "user").count(),
            1
        );
    }
}

#[test]
fn a_failed_background_run_is_marked_failed() {
    let failed = NOTIFICATION.replace("<status>completed</status>", "<status>failed</status>");
    let msgs = import(&background_session(&failed));
    assert_eq!(payload(&msgs, "toolu_bg").status, "failed");
    assert_eq!(
        by_id(&msgs, "toolu_bg").metadata.status.as_deref(),
        Some("error")
    );
}

/// docs/behaviour.md §3.4: a run its parent stopped (`killed`) reads `cancelled`.
#[test]
fn a_stopped_background_run_reads_cancelled() {
    let killed = NOTIFICATION.replace("<status>completed</status>", "<status>killed</status>");
    let msgs = import(&background_session(&killed));
    assert_eq!(payload(&msgs, "toolu_bg").status, "cancelled");
    let laid = LaidOut::new(claude_code::import(&lines(&background_session(&killed))).unwrap());
    assert_eq!(laid.card("toolu_bg").status_word, Some("cancelled"));
}

/// docs/behaviour.md §1: the same result delivered twice (a queue record, its
/// attachment and the user record) is one result, and never a user row.
#[test]
fn a_notification_delivered_three_ways_is_read_once() {
    let mut records = background_session(NOTIFICATION);
    let user_copy = records.pop().unwrap();
    records.push(json!({"type": "queue-operation", "operation": "enqueue", "sessionId": "s1", "content": NOTIFICATION}));
    records.push(
        json!({"type": "attachment", "uuid": "att1", "sessionId": "s1",
        "attachment": {"type": "queued_command", "prompt": NOTIFICATION}}),
    );
    records.push(user_copy);
    let msgs = import(&records);
    assert_eq!(
        payload(&msgs, "toolu_bg").result_text,
        "Found it.\n  Second line"
    );
    assert_eq!(
        msgs.iter().filter(|m| m.author.as_str() == "user").count(),
        1,
        "only the typed prompt"
    );
}

/// docs/formats.md §8: an assistant reply split over several records (one per content
/// block, the same `message.id`, each repeating the usage) counts its usage
/// once: a nested launch without metrics reads the tokens of its
/// transcript's last API message, not their sum.
#[test]
fn a_reply_split_over_several_records_counts_its_usage_once() {
    let usage = json!({"input_tokens": 900, "output_tokens": 100, "cache_read_input_tokens": 24});
    let child = |uuid: &str, block: Value| {
        let mut record = assistant(uuid, "msg_child", block);
        record["message"]["usage"] = usage.clone();
        record["isSidechain"] = json!(true);
        record["agentId"] = json!("ab12cd3");
        record
    };
    let main = lines(&[
        user("u1", json!("go")),
        task_launch("a1", "toolu_N", "Dig", "Dig.", "Explore"),
        tool_result(
            "r1",
            "toolu_N",
            json!("Dug.\nagentId: ab12cd3"),
            false,
            None,
        ),
    ]);
    let file = lines(&[
        child("c1", json!({"type": "text", "text": "Looking."})),
        child(
            "c2",
            tool_use("toolu_R", "Read", json!({"file_path": "/a"})),
        ),
        child("c3", json!({"type": "text", "text": "Dug."})),
    ]);
    let events =
        claude_code::import_with_files(&main, &[("s1/subagents/agent-ab12cd3.jsonl", &file)])
            .unwrap();
    assert_eq!(
        payload(&messages(&events), "toolu_N").total_tokens,
        Some(1024)
    );
}

/// docs/formats.md §12: a fork's file opens with a copy of its parent's launch call and
/// its placeholder result; that call is its parent's, not one of its
/// children, and its placeholder settles nothing.
#[test]
fn a_forks_copy_of_its_parents_launch_call_is_not_one_of_its_children() {
    let launch = tool_use(
        "toolu_F",
        "Agent",
        json!({"description": "Check", "prompt": "Fork task: check.", "subagent_type": "fork"}),
    );
    let main = lines(&[
        user("u1", json!("fork yourself")),
        assistant("a1", "msg_1", launch.clone()),
        tool_result(
            "r1",
            "toolu_F",
            json!("Async agent launched successfully.\nagentId: af0rk01"),
            false,
            Some(json!({"status": "async_launched", "agentId": "af0rk01"})),
        ),
    ]);
    let sidechain = |mut record: Value| {
        record["isSidechain"] = json!(true);
        record["agentId"] = json!("af0rk01");
        record
    };
    let file = lines(&[
        json!({"type": "fork-context-ref", "agentId": "af0rk01", "parentSessionId": "s1", "contextLength": 3}),
        sidechain(assistant("f1", "msg_1", launch)),
        sidechain(user(
            "f2",
            json!([
            {"type": "tool_result", "tool_use_id": "toolu_F", "content": [{"type": "text", "text": "Fork started — that fork is you."}]},
            {"type": "text", "text": "<fork-boilerplate>\nYou are a worker fork.\n</fork-boilerplate>\nDirective: check."}]),
        )),
        sidechain(assistant(
            "f3",
            "msg_9",
            tool_use("toolu_G", "Grep", json!({"pattern": "x"})),
        )),
    ]);
    let events =
        claude_code::import_with_files(&main, &[("s1/subagents/agent-af0rk01.jsonl", &file)])
            .unwrap();
    let msgs = messages(&events);
    let inside: Vec<&str> = children(&msgs, "toolu_F")
        .iter()
        .map(|m| m.id.as_str())
        .collect();
    assert_eq!(inside, ["toolu_G"]);
    assert_eq!(by_id(&msgs, "toolu_F").metadata.parent_tool_call_id, None);
    assert_eq!(
        by_id(&msgs, "toolu_F").metadata.status.as_deref(),
        Some("in_progress"),
        "still running: the placeholder is no result"
    );
    assert!(msgs.iter().all(|m| !m.content.contains("fork-boilerplate")));
}

#[test]
fn a_notification_for_no_known_task_is_a_status_row() {
    let msgs = import(&[user("u1", json!(
        "<task-notification>\n<task-id>zzz</task-id>\n<status>completed</status>\n<summary>Agent \"x\" completed</summary>\n</task-notification>"
    ))]);
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].kind, MessageType::Status);
    assert_eq!(msgs[0].content, "Agent \"x\" completed");
}

#[test]
fn an_implicit_fork_gets_no_type_and_its_placeholder_is_replaced_by_the_real_result() {
    let launch = vec![
        user("u1", json!("fork it")),
        assistant(
            "a1",
            "msg_1",
            tool_use(
                "toolu_F",
                "Agent",
                json!({"description": "Research A", "prompt": "A?"}),
            ),
        ),
        tool_result(
            "r1",
            "toolu_F",
            json!("Fork started — processing in background"),
            false,
            None,
        ),
    ];
    let msgs = import(&launch);
    let sa = payload(&msgs, "toolu_F");
    assert!(sa.is_fork);
    assert_eq!(sa.subagent_type, "");
    assert_eq!(sa.result_text, "");

    let mut done = launch.clone();
    done.push(user("u2", json!("<task-notification>\n<task-id>f1</task-id>\n<tool-use-id>toolu_F</tool-use-id>\n<status>completed</status>\n<result>A is safe.</result>\n</task-notification>")));
    let msgs = import(&done);
    let sa = payload(&msgs, "toolu_F");
    assert!(sa.is_fork);
    assert_eq!(sa.result_text, "A is safe.");
    assert_eq!(sa.status, "completed");
}

#[test]
fn a_failed_task_keeps_its_error_text_and_claims_no_transcript() {
    let msgs = import(&[
        user("u1", json!("go")),
        task_launch("a1", "toolu_X", "d", "p", "nope"),
        tool_result(
            "r1",
            "toolu_X",
            json!("Error: Agent type 'nope' not found."),
            true,
            Some(json!("Error: Agent type 'nope' not found.")),
        ),
    ]);
    let card = by_id(&msgs, "toolu_X");
    assert_eq!(card.metadata.status.as_deref(), Some("error"));
    let sa = payload(&msgs, "toolu_X");
    assert_eq!(sa.status, "failed");
    assert_eq!(sa.result_text, "Error: Agent type 'nope' not found.");
    assert_eq!(card.metadata.raw.get("transcript_not_loaded"), None);
}

#[test]
fn an_old_inline_sidechain_without_agent_id_is_matched_by_its_prompt() {
    let side = |uuid: &str, parent: Option<&str>, mut record: Value| {
        record["uuid"] = json!(uuid);
        record["parentUuid"] = json!(parent);
        record["isSidechain"] = json!(true);
        record
    };
    let msgs = import(&[
        user("u1", json!("go")),
        task_launch("a1", "toolu_T1", "One", "first brief", "x"),
        task_launch("a2", "toolu_T2", "Two", "second brief", "x"),
        side("s1", None, user("", json!("second brief"))),
        side(
            "s2",
            Some("s1"),
            assistant(
                "",
                "msg_s",
                tool_use("toolu_c", "Glob", json!({"pattern": "*.ts"})),
            ),
        ),
        side(
            "s3",
            Some("s2"),
            tool_result("", "toolu_c", json!("a.ts"), false, None),
        ),
        tool_result("r1", "toolu_T1", json!("one done"), false, None),
        tool_result("r2", "toolu_T2", json!("two done"), false, None),
    ]);
    assert!(children(&msgs, "toolu_T1").is_empty());
    assert_eq!(kinds(&children(&msgs, "toolu_T2")), ["tool_search"]);
    assert_eq!(payload(&msgs, "toolu_T2").result_text, "two done");
}

#[test]
fn progress_records_are_a_child_stream() {
    let progress = json!({"type": "progress", "uuid": "p1", "sessionId": "s1", "parentToolUseID": "toolu_T",
        "toolUseID": "toolu_T", "data": {"type": "agent_progress", "agentId": "ag1", "prompt": "p",
        "message": {"type": "assistant", "uuid": "pm1", "message": {"id": "msg_c", "role": "assistant",
            "model": "claude-haiku-4-5", "content": [{"type": "tool_use", "id": "toolu_c", "name": "Read",
            "input": {"file_path": "/x.ts"}}]}}}});
    let msgs = import(&[
        user("u1", json!("go")),
        task_launch("a1", "toolu_T", "d", "p", "x"),
        progress,
        tool_result(
            "r1",
            "toolu_T",
            json!("done"),
            false,
            Some(json!({"status": "completed", "agentId": "ag1"})),
        ),
    ]);
    assert_eq!(kinds(&children(&msgs, "toolu_T")), ["tool_read"]);
    assert_eq!(payload(&msgs, "toolu_T").model, "claude-haiku-4-5");
    assert_eq!(
        by_id(&msgs, "toolu_T")
            .metadata
            .raw
            .get("transcript_not_loaded"),
        None
    );
}

#[test]
fn injected_and_harness_text_is_not_user_speech() {
    let mut meta = user("m1", json!("Caveat: injected"));
    meta["isMeta"] = json!(true);
    let msgs = import(&[
        meta,
        user("c1", json!("<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>")),
        user("i1", json!([{"type": "text", "text": "[Request interrupted by user]"}])),
        json!({"type": "system", "uuid": "y1", "sessionId": "s1", "subtype": "api_error", "content": "API Error: overloaded"}),
        json!({"type": "system", "uuid": "y2", "sessionId": "s1", "subtype": "turn_duration", "durationMs": 10}),
        json!({"type": "file-history-snapshot", "messageId": "x", "snapshot": {}}),
    ]);
    let expect = [
        ("status", "/model"),
        ("status", "[Request interrupted by user]"),
        ("status", "1 retry · API Error: overloaded"),
    ];
    assert_eq!(kinds_and_contents(&msgs), expect);
    assert!(msgs.iter().all(|m| m.turn_id.is_none()));
}

#[test]
fn todo_write_becomes_a_todo_row() {
    let msgs = import(&[assistant(
        "a1",
        "msg_1",
        tool_use(
            "toolu_todo",
            "TodoWrite",
            json!({"todos": [
        {"content": "Write tests", "status": "completed", "activeForm": "Writing tests"},
        {"content": "Ship", "status": "pending", "activeForm": "Shipping"}]}),
        ),
    )]);
    assert_eq!(msgs[0].kind, MessageType::Todo);
    assert_eq!(msgs[0].metadata.raw["todos"][0]["done"], true);
    assert_eq!(msgs[0].metadata.raw["todos"][1]["text"], "Ship");
}

#[test]
fn unreadable_lines_keep_their_position_and_a_file_without_records_is_refused() {
    let text = format!(
        "{}\nnot json\n{}\n{}",
        user("u1", json!("hi")),
        json!({"type": "mystery", "uuid": "m1", "message": {"role": "user", "content": 3}}),
        json!({"type": "mystery"})
    );
    let events = claude_code::import(&text).unwrap();
    assert_eq!(messages(&events).len(), 1);
    assert_eq!(
        unreadable(&events),
        [
            "not json",
            r#"{"type":"mystery","uuid":"m1","message":{"role":"user","content":3}}"#
        ]
    );
    assert_eq!(not_shown(&events), [("mystery".to_string(), 1)]);
    assert!(claude_code::import("garbage\n[1]").is_err());
}
