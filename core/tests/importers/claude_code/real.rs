//! Claude Code sessions other tools recorded (tests/fixtures/real/:
//! claude-code-log, chitragupt) and synthetic records of the same shapes:
//! what docs/formats.md §7 "Claude Code JSONL" says real files do, and
//! how their cards read (docs/behaviour.md §1, §3.1).

use super::*;
use taskview_core::model::event::Event;
use taskview_core::model::message::MessageType;
use taskview_core::read::import::claude_code::{companion_paths, import_with_files};
use taskview_core::read::import::{import_any_with_files, Dialect};

const SHOWCASE: &str = "claude-code-log/minimal_showcase/55550000-0000-4000-8000-000000000001";
const WORKFLOW: &str = "claude-code-log/workflow_scriptpath/22220000-0000-4000-8000-000000000002";

/// Every file of a real session folder, as `(path relative to the session
/// file's folder, text)`.
fn session_files(session: &str, files: &[&str]) -> Vec<(String, String)> {
    let stem = session.rsplit('/').next().unwrap();
    files
        .iter()
        .map(|f| (format!("{stem}/{f}"), real(&format!("{session}/{f}"))))
        .collect()
}

fn import_session(session: &str, files: &[(String, String)]) -> Vec<Event> {
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let import = import_any_with_files(&real(&format!("{session}.jsonl")), &files).unwrap();
    assert_eq!(import.dialect, Dialect::ClaudeCode);
    assert!(unreadable(&import.events).is_empty());
    import.events
}

fn showcase_files() -> Vec<(String, String)> {
    session_files(
        SHOWCASE,
        &[
            "subagents/agent-showcol1.jsonl",
            "subagents/agent-showcol1.meta.json",
            "subagents/agent-showcol2.jsonl",
            "subagents/agent-showcol2.meta.json",
        ],
    )
}

fn workflow_files() -> Vec<(String, String)> {
    session_files(
        WORKFLOW,
        &[
            "subagents/workflows/wf_sp01/agent-agsp0001.jsonl",
            "subagents/workflows/wf_sp01/agent-agsp0001.meta.json",
            "subagents/workflows/wf_sp01/journal.jsonl",
            "workflows/wf_sp01.json",
        ],
    )
}

/// A 2.1.x session with its `subagents/` folder: each Agent card gets its
/// transcript, its trailer (`(use SendMessage …)`, `subagent_tokens`) is cut
/// and read, and no child is an orphan.
#[test]
fn a_session_with_its_subagents_folder_has_full_cards_and_no_orphans() {
    let events = import_session(SHOWCASE, &showcase_files());
    let msgs = messages(&events);
    let web = payload(&msgs, "toolu_sc_showcol1");
    assert_eq!(
        web.result_text,
        "The web module renders its pages in a column layout (screenshot attached)."
    );
    assert_eq!(
        (web.agent_id.as_str(), web.total_tokens, web.tool_use_count),
        ("showcol1", Some(1200), Some(1))
    );
    assert_eq!(
        kinds(&children(&msgs, "toolu_sc_showcol2")),
        ["tool_search", "message"]
    );
    let laid = LaidOut::new(events);
    assert!(laid.orphan_parents().is_empty());
    let jobs = laid.card("toolu_sc_showcol2");
    assert_eq!(jobs.child_count_label.as_deref(), Some("1 tool call"));
    // 1 reported tool use = 1 child tool call: the tools chip is hidden.
    assert_eq!(
        laid.chips("toolu_sc_showcol2"),
        [
            "duration:4.2s",
            "tokens:1.2k tokens",
            "model:claude-haiku-4-5-20251001"
        ]
    );
    assert!(!jobs.transcript_not_loaded);
    assert_eq!(
        jobs.result_summary.as_deref(),
        Some("The jobs module defines three scheduled jobs: cleanup, reindex, report.")
    );
}

/// Without the subagent files the cards keep their metrics and say the
/// transcript is not loaded; nothing is an orphan and nothing fails.
#[test]
fn a_session_without_its_subagent_files_says_transcript_not_loaded() {
    let laid = LaidOut::new(import_session(SHOWCASE, &[]));
    for id in ["toolu_sc_showcol1", "toolu_sc_showcol2"] {
        let card = laid.card(id);
        assert!(card.transcript_not_loaded, "{id}");
        assert!(laid.chips(id).contains(&"tools:1 tool".to_string()), "{id}");
    }
    assert!(laid.orphan_parents().is_empty());
}

/// docs/formats.md §7 Claude Code 7: a `Workflow` run is a workflow card with
/// one subagent card per workflow agent (type from the `.meta.json`
/// sidecar, label, state and metrics from `workflows/<run>.json`, result
/// from the journal), the agent's transcript inside it; the launch text
/// is never a result.
#[test]
fn a_workflow_run_is_a_card_per_agent_inside_the_workflow_card() {
    let events = import_session(WORKFLOW, &workflow_files());
    let msgs = messages(&events);
    let run = payload(&msgs, "toolu_wfsp01");
    assert_eq!(run.subagent_type, "workflow");
    assert_eq!(run.description, "Sweep the team's docs tree in batches");
    assert_eq!(run.status, "completed");
    assert_eq!(run.result_text, "");
    assert_eq!((run.duration_ms, run.total_tokens), (Some(2000), Some(101)));
    let agent = by_id(&msgs, "workflow-agent-agsp0001");
    assert_eq!(
        agent.metadata.parent_tool_call_id.as_deref(),
        Some("toolu_wfsp01")
    );
    let sa = payload(&msgs, "workflow-agent-agsp0001");
    assert_eq!(
        (
            sa.subagent_type.as_str(),
            sa.description.as_str(),
            sa.status.as_str()
        ),
        ("workflow-subagent", "sweep:a", "completed")
    );
    assert_eq!(
        sa.result_text,
        "Batch a and b swept; 2 stale pages flagged."
    );
    assert_eq!(sa.prompt, "Sweep docs batches a and b.");
    assert_eq!(
        (sa.tool_use_count, sa.model.as_str()),
        (Some(2), "claude-sonnet-4-6")
    );
    // The run that died before launching agents: a card, no placeholder.
    let broken = payload(&msgs, "toolu_wffail01");
    assert_eq!(
        broken.description,
        "Sweep variant that dies before launching agents"
    );
    assert_eq!(broken.result_text, "");
    assert_eq!(
        by_id(&msgs, "toolu_wffail01").metadata.raw_str("result"),
        None
    );
    let laid = LaidOut::new(events);
    assert!(laid.orphan_parents().is_empty());
    let card = laid.card("toolu_wfsp01");
    assert_eq!(card.type_label, "workflow");
    assert_eq!(card.child_count_label.as_deref(), Some("1 tool call"));
    assert_eq!(
        laid.card("workflow-agent-agsp0001")
            .result_summary
            .as_deref(),
        Some("Batch a and b swept; 2 stale pages flagged.")
    );
}

/// Opening by URL fetches what the session names, in rounds: its subagents'
/// transcripts, then its workflow runs' files, then the run's agents.
#[test]
fn companion_paths_name_what_a_session_refers_to() {
    let stem = "55550000-0000-4000-8000-000000000001";
    assert_eq!(
        companion_paths(stem, &real(&format!("{SHOWCASE}.jsonl")), &[]),
        [
            format!("{stem}/subagents/agent-showcol1.jsonl"),
            format!("{stem}/subagents/agent-showcol2.jsonl"),
        ]
    );
    let stem = "22220000-0000-4000-8000-000000000002";
    let session = real(&format!("{WORKFLOW}.jsonl"));
    assert_eq!(
        companion_paths(stem, &session, &[]),
        [
            format!("{stem}/workflows/wf_sp01.json"),
            format!("{stem}/workflows/wf_fail01.json"),
        ]
    );
    let run = real(&format!("{WORKFLOW}/workflows/wf_sp01.json"));
    let run_path = format!("{stem}/workflows/wf_sp01.json");
    assert_eq!(
        companion_paths(stem, &session, &[(run_path.as_str(), run.as_str())]),
        [
            format!("{stem}/subagents/workflows/wf_sp01/journal.jsonl"),
            format!("{stem}/subagents/workflows/wf_sp01/agent-agsp0001.jsonl"),
            format!("{stem}/subagents/workflows/wf_sp01/agent-agsp0001.meta.json"),
            format!("{stem}/workflows/wf_fail01.json"),
        ]
    );
    // A session that holds its subagents' records inline wants nothing.
    assert!(companion_paths("s", &fixture(SESSION), &[]).is_empty());
}

/// docs/formats.md §7 Claude Code 3: 2.0.x names the agent on the main record
/// carrying the Task's result; a trimmed sidechain whose first record lost
/// its prompt belongs to the one Task running when it started. Its result
/// reports no metrics: the duration is its call-to-result time and the
/// tokens those of its transcript's last API message (what Claude Code
/// reports for a subagent).
#[test]
fn an_inline_2_0_sidechain_joins_its_task_without_orphans() {
    let events = import_session("claude-code-log/sidechain_integrated", &[]);
    let msgs = messages(&events);
    let task = "toolu_01JA2mLseQCAW3MdwPE4qWEk";
    assert_eq!(payload(&msgs, task).agent_id, "e1c84ba5");
    assert_eq!(
        kinds(&children(&msgs, task)),
        ["message", "tool_search", "tool_call"]
    );
    let laid = LaidOut::new(events);
    assert!(laid.orphan_parents().is_empty());
    assert_eq!(
        laid.card(task).child_count_label.as_deref(),
        Some("2 tool calls")
    );
    assert_eq!(
        laid.chips(task),
        [
            "duration:2m 00s",
            "tokens:20k tokens",
            "model:claude-sonnet-4-5-20250929"
        ]
    );
}

/// chitragupt: a Task whose result ends in `agentId:` after a blank line,
/// its child file named by the agent id or not at all (its records name
/// their agent and the session).
#[test]
fn a_child_file_is_found_by_name_or_by_its_records() {
    let main = real("chitragupt/subagent_main.jsonl");
    let child = real("chitragupt/subagent_child.jsonl");
    for name in [
        "sess-main-1/subagents/agent-ae267a1.jsonl",
        "subagent_child.jsonl",
    ] {
        let events = import_with_files(&main, &[(name, child.as_str())]).unwrap();
        let msgs = messages(&events);
        let sa = payload(&msgs, "toolu_task1");
        assert_eq!(sa.result_text, "Here are the results...", "{name}");
        assert_eq!(sa.agent_id, "ae267a1");
        assert_eq!(
            kinds(&children(&msgs, "toolu_task1")),
            ["tool_search", "message"]
        );
        assert!(LaidOut::new(events).orphan_parents().is_empty());
    }
    // A transcript of another session is not this one's.
    let other = child.replace("sess-main-1", "sess-other");
    let events = import_with_files(&main, &[("subagent_child.jsonl", other.as_str())]).unwrap();
    assert!(children(&messages(&events), "toolu_task1").is_empty());
}

/// docs/formats.md §7 Claude Code 4: a team agent (`name`, `team_name`, no
/// description) shows its name; its `agent_id: name@team` trailer is cut.
#[test]
fn a_team_agent_shows_its_name() {
    let events =
        messages(&claude_code::import(&real("chitragupt/subagent_team_main.jsonl")).unwrap());
    let sa = payload(&events, "toolu_team1");
    assert_eq!(sa.description, "researcher");
    assert_eq!(sa.result_text, "Research complete.");
    assert_eq!(sa.agent_id, "researcher@auth-team");
    let laid =
        LaidOut::new(claude_code::import(&real("chitragupt/subagent_team_main.jsonl")).unwrap());
    let card = laid.card("toolu_team1");
    assert_eq!(
        (card.type_label.as_str(), card.description.as_deref()),
        ("deep-researcher", Some("researcher"))
    );
}

fn progress(uuid: &str, data: Value) -> Value {
    json!({"type": "progress", "uuid": uuid, "sessionId": "s1", "timestamp": "2026-03-12T14:00:02Z",
           "parentToolUseID": "toolu_T", "toolUseID": format!("agent_msg_{uuid}"), "data": data})
}

fn child_record(uuid: &str, kind: &str, message: Value) -> Value {
    json!({"type": kind, "uuid": uuid, "sessionId": "s1", "isSidechain": true, "agentId": "a1b2c3d",
           "timestamp": "2026-03-12T14:00:02Z", "message": message})
}

/// docs/formats.md §7 Claude Code 1: 2.1.3x mirrors the child's messages into
/// the main file as `agent_progress` records carrying the child file's
/// uuids; the child file holds the same messages. Merged by uuid, each
/// shows once; other progress kinds are no rows at all.
#[test]
fn agent_progress_mirrors_and_the_child_file_show_each_message_once() {
    let prompt_array = json!({"role": "user", "content": [{"type": "text", "text": "Map it"}]});
    let prompt_string = json!({"role": "user", "content": "Map it"});
    let read = json!({"id": "msg_c1", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{"type": "tool_use", "id": "toolu_R", "name": "Read", "input": {"file_path": "/a"}}]});
    let result = json!({"role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_R", "content": "text"}]});
    let mirror = |uuid: &str, kind: &str, message: &Value| {
        progress(
            &format!("p-{uuid}"),
            json!({"type": "agent_progress", "agentId": "a1b2c3d", "prompt": "Map it",
                   "message": {"type": kind, "uuid": uuid, "timestamp": "2026-03-12T14:00:02Z", "message": message}}),
        )
    };
    let main = lines(&[
        user("u1", json!("go")),
        task_launch("a1", "toolu_T", "Map", "Map it", "Explore"),
        mirror("c-u1", "user", &prompt_array),
        mirror("c-a1", "assistant", &read),
        mirror("c-u2", "user", &result),
        progress("h1", json!({"type": "hook_progress", "hookEvent": "PostToolUse"})),
        progress("b1", json!({"type": "bash_progress", "output": "…"})),
        progress("w1", json!({"type": "waiting_for_task", "taskDescription": "Map"})),
        tool_result("u2", "toolu_T", json!("Mapped.\nagentId: a1b2c3d (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 10\ntool_uses: 1\nduration_ms: 5</usage>"), false,
            Some(json!({"status": "completed", "agentId": "a1b2c3d", "totalToolUseCount": 1,
                "content": [{"type": "text", "text": "Mapped."}]}))),
    ]);
    let child = lines(&[
        child_record("c-u1", "user", prompt_string),
        child_record("c-a1", "assistant", read),
        child_record("c-u2", "user", result),
    ]);
    for files in [
        vec![],
        vec![("s1/subagents/agent-a1b2c3d.jsonl", child.as_str())],
    ] {
        let events = import_with_files(&main, &files).unwrap();
        assert!(unreadable(&events).is_empty());
        let msgs = messages(&events);
        assert_eq!(msgs.iter().filter(|m| m.id == "toolu_R").count(), 1);
        assert_eq!(kinds(&children(&msgs, "toolu_T")), ["tool_read"]);
        assert_eq!(
            msgs.iter().map(|m| m.kind.as_str()).collect::<Vec<_>>(),
            ["message", "tool_call", "tool_read"],
            "no row for hook, bash or waiting progress"
        );
        let laid = LaidOut::new(events);
        // 1 reported tool use = 1 child: no tools chip; the model is the child's.
        assert_eq!(
            laid.chips("toolu_T"),
            ["duration:5ms", "tokens:10 tokens", "model:claude-haiku-4-5"]
        );
    }
}

/// docs/formats.md §7 Claude Code 6: a `<task-notification>` about a background
/// command (no `<tool-use-id>`, no `<result>`), written as a user record and
/// again as its `queue-operation` twin, is one status line, not user speech.
#[test]
fn a_background_command_notification_is_one_status_line() {
    let note = "<task-notification>\n<task-id>b7x2k9</task-id>\n<output-file>/tmp/b7x2k9.output</output-file>\n<status>completed</status>\n<summary>Background command \"npm test\" completed (exit code 0)</summary>\n</task-notification>\nRead the output file to retrieve the result: /tmp/b7x2k9.output";
    let msgs = import(&[
        user("u1", json!("run the tests in the background")),
        json!({"type": "queue-operation", "operation": "enqueue", "sessionId": "s1",
               "timestamp": "2026-03-12T14:00:05Z", "content": note}),
        user("u2", json!(note)),
        user("u3", json!([{"type": "text", "text": note}])),
    ]);
    assert_eq!(
        kinds_and_contents(&msgs),
        [
            ("message", "run the tests in the background"),
            (
                "status",
                "Background command \"npm test\" completed (exit code 0)"
            ),
        ]
    );
    assert_eq!(msgs[1].author, taskview_core::model::message::Author::Agent);
}

/// docs/formats.md §7 Claude Code 5 and docs/behaviour.md §3.1 item 5: a `TodoWrite`, a
/// nested Task and ordinary tools inside a subagent all count, so the child
/// count equals `totalToolUseCount` and the tools chip disappears.
#[test]
fn every_tool_use_of_a_child_transcript_counts() {
    let child = |uuid: &str, block: Value| {
        json!({"type": "assistant", "uuid": uuid, "sessionId": "s1", "isSidechain": true,
               "agentId": "c0ffee1", "timestamp": "2026-03-12T14:00:02Z",
               "message": {"id": format!("m-{uuid}"), "role": "assistant", "content": [block]}})
    };
    let main = lines(&[
        user("u1", json!("go")),
        task_launch("a1", "toolu_T", "Plan", "Plan it", "Plan"),
        child(
            "c1",
            tool_use(
                "toolu_todo",
                "TodoWrite",
                json!({"todos": [{"content": "read", "status": "pending"}]}),
            ),
        ),
        child(
            "c2",
            tool_use("toolu_read", "Read", json!({"file_path": "/a"})),
        ),
        child(
            "c3",
            tool_use(
                "toolu_inner",
                "Task",
                json!({"description": "Dig", "prompt": "Dig", "subagent_type": "Explore"}),
            ),
        ),
        tool_result(
            "u2",
            "toolu_T",
            json!("## Summary\n\n- **Done**: see `plan.md`"),
            false,
            Some(json!({"status": "completed", "agentId": "c0ffee1", "totalToolUseCount": 3})),
        ),
    ]);
    let events = claude_code::import(&main).unwrap();
    let msgs = messages(&events);
    assert_eq!(
        kinds(&children(&msgs, "toolu_T")),
        ["todo", "tool_read", "tool_call"]
    );
    let laid = LaidOut::new(events);
    let card = laid.card("toolu_T");
    assert_eq!(card.child_count_label.as_deref(), Some("3 tool calls"));
    assert!(laid
        .chips("toolu_T")
        .iter()
        .all(|c| !c.starts_with("tools:")));
    // docs/formats.md §7 Claude Code 9 and docs/behaviour.md §3.1 item 6: the heading is
    // passed over.
    assert_eq!(card.result_summary.as_deref(), Some("Done: see plan.md"));
}

/// docs/formats.md §7 Claude Code 4: a failed Task's result starts with
/// `<tool_use_error>`; its summary line is the plain error.
#[test]
fn a_failed_task_summary_has_no_error_tags() {
    let events = claude_code::import(&lines(&[
        user("u1", json!("go")),
        task_launch("a1", "toolu_F", "x", "x", "nope"),
        tool_result("u2", "toolu_F",
            json!("<tool_use_error>Agent type 'nope' not found. Available agents: general-purpose</tool_use_error>"),
            true, Some(json!("Error: Agent type 'nope' not found. Available agents: general-purpose"))),
    ]))
    .unwrap();
    let laid = LaidOut::new(events);
    let card = laid.card("toolu_F");
    assert_eq!(card.status_word, Some("failed"));
    assert_eq!(
        card.result_summary.as_deref(),
        Some("Agent type 'nope' not found. Available agents: general-purpose")
    );
    let msgs = messages(
        &claude_code::import(&lines(&[assistant(
            "a1",
            "msg_1",
            tool_use("toolu_F", "Task", json!({"prompt": "x"})),
        )]))
        .unwrap(),
    );
    assert_eq!(msgs[0].kind, MessageType::ToolCall);
}
