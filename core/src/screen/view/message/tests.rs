use super::*;
use serde_json::json;

fn msg(v: Value) -> Message {
    Message::from_value(&v).unwrap()
}

#[test]
fn a_tool_call_running_when_a_still_file_ends_reads_interrupted_without_a_spinner() {
    let tool = |status: &str| {
        msg(
            json!({"id": "t", "type": "tool_execute", "metadata": {"status": status,
            "title": "cargo test"}}),
        )
    };
    let head = |view: MessageView| match view {
        MessageView::Execute { tool, .. } => tool,
        other => panic!("not a shell row: {other:?}"),
    };
    let live = head(MessageView::of(&tool("running"), false));
    assert!(live.spins() && !live.interrupted);
    assert_eq!(
        (live.state_name(), live.state_text()),
        ("running", "running")
    );
    let still = head(MessageView::of(&tool("running"), false).in_still_source());
    assert!(!still.spins());
    assert_eq!(
        (still.state_name(), still.state_text()),
        ("interrupted", "interrupted · no result recorded")
    );
    assert_eq!(still.state, RunState::Running, "what the file says is kept");
    // A call that ended says so, still or not; a text row is untouched.
    let done = head(MessageView::of(&tool("complete"), false).in_still_source());
    assert!(!done.interrupted);
    assert_eq!(done.state_text(), "done");
    let text = msg(json!({"id": "m", "type": "message", "content": "hi"}));
    assert_eq!(
        MessageView::of(&text, false).in_still_source(),
        MessageView::of(&text, false)
    );
}

#[test]
fn a_tool_call_left_pending_or_in_progress_reads_interrupted_in_a_still_file_and_settled_live() {
    for status in ["pending", "in_progress"] {
        let call = msg(
            json!({"id": "t", "type": "tool_execute", "metadata": {"status": status,
            "title": "cargo test"}}),
        );
        let head = |view: MessageView| match view {
            MessageView::Execute { tool, .. } => tool,
            other => panic!("not a shell row: {other:?}"),
        };
        let active = head(MessageView::of(&call, true));
        assert!(
            active.spins(),
            "{status}: live, in its active turn, it runs"
        );
        assert_eq!(active.state_text(), "running");
        let ended = head(MessageView::of(&call, false));
        assert!(
            !ended.spins() && !ended.interrupted,
            "{status}: live, its turn over"
        );
        assert_eq!(ended.state_name(), "settled");
        let still = head(MessageView::of(&call, false).in_still_source());
        assert!(!still.spins(), "{status}");
        assert_eq!(
            (still.state_name(), still.state_text()),
            ("interrupted", "interrupted · no result recorded"),
            "{status}"
        );
    }
}

#[test]
fn a_tool_call_left_pending_with_a_result_is_settled_in_a_still_file() {
    for status in ["pending", "in_progress"] {
        let call = msg(
            json!({"id": "t", "type": "tool_execute", "metadata": {"status": status,
            "title": "cargo test", "normalized": {"kind": "shell_exec", "shell_exec": {
            "command": "cargo test", "output": {"exit_code": 0, "stdout": "ok"}}}}}),
        );
        let MessageView::Execute { tool, output, .. } =
            MessageView::of(&call, false).in_still_source()
        else {
            panic!("not a shell row");
        };
        assert_eq!(output.as_deref(), Some("ok"), "{status}");
        assert!(!tool.spins() && !tool.interrupted, "{status}");
        assert_eq!(tool.state_name(), "settled", "{status}");
    }
}

#[test]
fn read_rows_show_path_and_range() {
    let v = MessageView::of(
        &msg(
            json!({"id": "r", "type": "tool_read", "metadata": {"status": "complete",
            "normalized": {"kind": "read_file", "read_file": {"file_path": "src/a.rs", "offset": 10, "limit": 21}}}}),
        ),
        false,
    );
    let MessageView::Read {
        path, range, tool, ..
    } = v
    else {
        panic!("{v:?}")
    };
    assert_eq!(
        (path.as_str(), range.as_deref()),
        ("src/a.rs", Some("lines 10–30"))
    );
    assert_eq!(tool.state, RunState::Complete);
}

#[test]
fn execute_rows_show_command_exit_code_and_output() {
    let v = MessageView::of(
        &msg(
            json!({"id": "x", "type": "tool_execute", "content": "ls", "metadata": {"status": "error",
            "normalized": {"kind": "shell_exec", "shell_exec": {"command": "pnpm test",
                "output": {"exit_code": 1, "stdout": "1 failing"}}}}}),
        ),
        false,
    );
    let MessageView::Execute {
        command,
        exit_code,
        output,
        tool,
    } = v
    else {
        panic!("{v:?}")
    };
    assert_eq!(command, "pnpm test");
    assert_eq!(exit_code, Some(1));
    assert_eq!(output.as_deref(), Some("1 failing"));
    assert_eq!(tool.state, RunState::Failed);
}

#[test]
fn a_tool_head_uses_the_message_title_else_tool_call() {
    assert_eq!(
        tool_head_title(&msg(json!({"id": "a", "content": "c"}))),
        "c"
    );
    assert_eq!(tool_head_title(&msg(json!({"id": "a"}))), UNTITLED_TOOL);
    let titled = msg(json!({"id": "a", "content": "c", "metadata": {"title": "T"}}));
    assert_eq!(tool_head_title(&titled), "T");
    // The same one-line rule as the group's and the card's `now:` line.
    let two_lines = msg(json!({"id": "a", "content": "\n  npm test\n  --watch"}));
    assert_eq!(tool_head_title(&two_lines), two_lines.title());
    assert_eq!(tool_head_title(&two_lines), "npm test");
}

#[test]
fn thinking_text_prefers_metadata_and_long_text_starts_collapsed() {
    let short = MessageView::of(
        &msg(json!({"id": "t", "type": "thinking", "metadata": {"thinking": "look first"}})),
        false,
    );
    assert_eq!(
        short,
        MessageView::Thinking {
            text: "look first".into(),
            collapsed: false
        }
    );
    let long = MessageView::of(
        &msg(json!({"id": "t", "type": "thinking", "content": "a\nb"})),
        false,
    );
    assert!(matches!(
        long,
        MessageView::Thinking {
            collapsed: true,
            ..
        }
    ));
}

#[test]
fn malformed_todos_never_throw_and_strings_are_accepted() {
    let v = MessageView::of(
        &msg(
            json!({"id": "t", "type": "todo", "metadata": {"todos": [null, 42, "Write tests",
            {"text": "Implement", "done": true}, {"text": "  "}]}}),
        ),
        false,
    );
    let MessageView::Todo { items } = v else {
        panic!()
    };
    assert_eq!(
        items
            .iter()
            .map(|i| (i.text.as_str(), i.done))
            .collect::<Vec<_>>(),
        [("Write tests", false), ("Implement", true)]
    );
    let odd = MessageView::of(
        &msg(json!({"id": "t", "type": "todo", "metadata": {"todos": "x"}})),
        false,
    );
    assert_eq!(odd, MessageView::Todo { items: vec![] });
}

#[test]
fn output_labels_agree_in_number_and_authors_read_you_or_agent() {
    assert_eq!(output_label("one"), "output · 1 line");
    assert_eq!(output_label("a\nb"), "output · 2 lines");
    assert_eq!(author_label(Author::User), "You");
    assert_eq!(author_label(Author::Agent), "Agent");
    assert_eq!(RequestKind::Permission.label(), "Permission requested");
    assert!(exit_code_failed(1) && !exit_code_failed(0));
}

#[test]
fn a_session_event_row_is_quiet_and_expands_to_its_detail_when_it_has_one() {
    let v = MessageView::of(
        &msg(
            json!({"id": "c", "type": "status", "content": "Conversation compacted · manual",
            "metadata": {"event": "compaction", "detail": "Summary: done."}}),
        ),
        false,
    );
    assert_eq!(
        v,
        MessageView::SessionEvent {
            event: "compaction".into(),
            text: "Conversation compacted · manual".into(),
            detail: Some("Summary: done.".into())
        }
    );
    let bare = MessageView::of(
        &msg(json!({"id": "r", "type": "status", "content": "Resumed",
            "metadata": {"event": "resume", "detail": "  "}})),
        false,
    );
    assert!(matches!(
        bare,
        MessageView::SessionEvent { detail: None, .. }
    ));
    let plain = MessageView::of(
        &msg(json!({"id": "s", "type": "status", "content": "x"})),
        false,
    );
    assert!(matches!(plain, MessageView::Status { .. }));
}

#[test]
fn unknown_types_render_as_a_generic_row_with_their_type() {
    let v = MessageView::of(
        &msg(json!({"id": "u", "type": "hologram", "content": "hi"})),
        false,
    );
    assert_eq!(
        v,
        MessageView::Unknown {
            type_name: "hologram".into(),
            text: "hi".into()
        }
    );
}
