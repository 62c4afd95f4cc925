//! docs/behaviour.md §2 layout rules and §3 card scenarios, one test per rule.

use serde_json::json;
use taskview_core::model::event::Event;
use taskview_core::model::status::RunState;
use taskview_core::screen::view::conclusion::ResultBody;
use taskview_core::state::layout::RowKey;
use taskview_testkit::*;

fn done(sa: serde_json::Value) -> serde_json::Value {
    let mut sa = sa;
    sa["status"] = json!("completed");
    sa
}

#[test]
fn two_subagents_and_four_tool_calls_in_one_turn_give_two_cards_and_a_4_tool_calls_group() {
    let s = Session::with([
        added(text("u", 1, Some("t"), "user")),
        added(tool("a", 2, "t", "tool_execute")),
        added(tool("b", 3, "t", "tool_read")),
        added(tool("c", 4, "t", "tool_search")),
        added(tool("d", 5, "t", "tool_call")),
        added(subagent(
            "s1",
            6,
            "t",
            json!({"subagent_type": "code-reviewer"}),
        )),
        added(subagent(
            "s2",
            7,
            "t",
            json!({"subagent_type": "test-supervisor"}),
        )),
    ]);
    assert_eq!(
        s.top(),
        ["msg:u", "group:4 tool calls", "card:s1", "card:s2"]
    );
    s.assert_matches_full_layout();
}

#[test]
fn a_single_tool_call_is_a_group_reading_1_tool_call() {
    let s = Session::with([
        added(text("u", 1, Some("t"), "user")),
        added(tool("a", 2, "t", "tool_read")),
        added(text("r", 3, Some("t"), "agent")),
    ]);
    assert_eq!(s.top(), ["msg:u", "group:1 tool call", "msg:r"]);
}

#[test]
fn a_turn_with_only_subagents_has_cards_and_no_group() {
    let s = Session::with([
        added(subagent("s1", 1, "t", json!({}))),
        added(subagent("s2", 2, "t", json!({}))),
    ]);
    assert_eq!(s.top(), ["card:s1", "card:s2"]);
}

#[test]
fn a_subagent_splits_the_tool_calls_around_it_into_two_groups() {
    let s = Session::with([
        added(tool("a", 1, "t", "tool_execute")),
        added(tool("b", 2, "t", "tool_execute")),
        added(subagent("s", 3, "t", json!({}))),
        added(tool("c", 4, "t", "tool_execute")),
        added(tool("d", 5, "t", "tool_execute")),
    ]);
    assert_eq!(
        s.top(),
        ["group:2 tool calls", "card:s", "group:2 tool calls"]
    );
}

#[test]
fn thinking_is_counted_separately_in_the_group_label() {
    let s = Session::with([
        added(thought("h", 1, "t")),
        added(tool("a", 2, "t", "tool_execute")),
        added(tool("b", 3, "t", "tool_read")),
    ]);
    assert_eq!(s.top(), ["group:2 tool calls · 1 thought"]);
}

#[test]
fn a_run_of_thinking_only_renders_plain_thinking_rows() {
    let s = Session::with([
        added(thought("h1", 1, "t")),
        added(thought("h2", 2, "t")),
        added(text("r", 3, Some("t"), "agent")),
    ]);
    assert_eq!(s.top(), ["msg:h1", "msg:h2", "msg:r"]);
}

#[test]
fn a_turn_change_or_agent_text_breaks_a_run() {
    let s = Session::with([
        added(tool("a", 1, "t1", "tool_read")),
        added(tool("b", 2, "t2", "tool_read")),
        added(text("r", 3, Some("t2"), "agent")),
        added(tool("c", 4, "t2", "tool_read")),
    ]);
    assert_eq!(
        s.top(),
        [
            "group:1 tool call",
            "group:1 tool call",
            "msg:r",
            "group:1 tool call"
        ]
    );
}

#[test]
fn messages_without_turn_id_group_by_the_implicit_turn_of_the_latest_user_message() {
    let mut a = tool("a", 2, "x", "tool_read");
    let mut b = tool("b", 3, "x", "tool_read");
    let mut c = tool("c", 5, "x", "tool_read");
    for v in [&mut a, &mut b, &mut c] {
        v.as_object_mut().unwrap().remove("turn_id");
    }
    let mut s = Session::with([
        added(text("u1", 1, None, "user")),
        added(a),
        added(b),
        added(text("u2", 4, None, "user")),
        added(c),
    ]);
    assert_eq!(
        s.top(),
        [
            "msg:u1",
            "group:2 tool calls",
            "msg:u2",
            "group:1 tool call"
        ]
    );
    // A user message arriving late in the middle starts a new implicit turn there.
    s.apply(added(text("u15", 2, None, "user")));
    let mut late = tool("z", 2, "x", "tool_read");
    late["created_at"] = json!("2026-08-03T00:00:02.5Z");
    late.as_object_mut().unwrap().remove("turn_id");
    s.apply(added(late));
    s.assert_matches_full_layout();
}

#[test]
fn a_turnless_tool_after_a_user_message_with_a_turn_joins_that_turn() {
    let mut b = tool("b", 3, "x", "tool_read");
    b.as_object_mut().unwrap().remove("turn_id");
    let s = Session::with([
        added(text("u", 1, Some("t"), "user")),
        added(tool("a", 2, "t", "tool_read")),
        added(b),
    ]);
    assert_eq!(s.top(), ["msg:u", "group:2 tool calls"]);
}

#[test]
fn a_user_message_that_becomes_a_tool_call_no_longer_splits_implicit_turns() {
    let turnless = |v: serde_json::Value| {
        let mut v = v;
        v.as_object_mut().unwrap().remove("turn_id");
        v
    };
    let mut s = Session::with([
        added(turnless(tool("a", 2, "x", "tool_read"))),
        added(text("u", 1, None, "user")),
        added(turnless(tool("b", 3, "x", "tool_read"))),
    ]);
    assert_eq!(s.top(), ["msg:u", "group:2 tool calls"]);
    let mut now_a_tool = turnless(tool("u", 1, "x", "tool_read"));
    now_a_tool["updated_at"] = json!(at(9));
    s.apply(added(now_a_tool));
    assert_eq!(s.top(), ["group:3 tool calls"]);
    s.assert_matches_full_layout();
}

#[test]
fn a_user_message_moving_out_of_a_card_starts_its_implicit_turn_at_the_top() {
    let nested_user = text("u", 1, Some("t"), "user").under("missing");
    let mut turnless = tool("b", 3, "x", "tool_read");
    turnless.as_object_mut().unwrap().remove("turn_id");
    let mut s = Session::with([
        added(nested_user),
        added(child("o", 2, "t", "other")),
        added(turnless),
        added(tool("c", 4, "t", "tool_read")),
    ]);
    assert_eq!(
        s.top(),
        [
            "orphans:tcmissing",
            "orphans:tcother",
            "group:1 tool call",
            "group:1 tool call"
        ]
    );
    s.apply(updated(
        json!({"id": "u", "metadata": {}, "updated_at": at(9)}),
    ));
    assert_eq!(s.top(), ["msg:u", "orphans:tcother", "group:2 tool calls"]);
    s.assert_matches_full_layout();
}

#[test]
fn a_generic_tool_call_with_children_is_a_subagent_card() {
    let mut s = Session::with([
        added(tool("g", 1, "t", "tool_call")),
        added(tool("x", 2, "t", "tool_read")),
    ]);
    assert_eq!(s.top(), ["group:2 tool calls"]);
    let d = s.apply(added(child("c", 3, "t", "g")));
    assert_eq!(s.top(), ["card:g", "group:1 tool call"]);
    assert!(d.inserted.contains(&RowKey::Message("c".into())));
    assert_eq!(s.outline(), ["card:g", "  msg:c", "group:1 tool call"]);
    s.assert_matches_full_layout();
}

#[test]
fn children_are_hoisted_into_their_card_in_order_even_when_interleaved() {
    let s = Session::with([
        added(subagent("a", 1, "t", json!({}))),
        added(subagent("b", 2, "t", json!({}))),
        added(child("a1", 3, "t", "a")),
        added(child("b1", 4, "t", "b")),
        added(child("a2", 5, "t", "a")),
    ]);
    assert_eq!(
        s.outline(),
        ["card:a", "  msg:a1", "  msg:a2", "card:b", "  msg:b1"]
    );
}

#[test]
fn orphans_render_in_a_not_loaded_card_at_the_first_orphans_position() {
    let mut s = Session::with([
        added(text("u", 1, Some("t"), "user")),
        added(child("o1", 2, "t", "p")),
        added(text("r", 3, Some("t"), "agent")),
        added(child("o2", 4, "t", "p")),
    ]);
    assert_eq!(
        s.outline(),
        ["msg:u", "orphans:tcp", "  msg:o1", "  msg:o2", "msg:r"]
    );
    let view =
        taskview_core::screen::view::card::orphan_card_view(&s.store, &s.layout, "tcp").unwrap();
    assert_eq!(view.title, "subagent (not loaded)");
    assert_eq!(view.child_count_label, "2 tool calls");
    // The count is of tool calls only (docs/behaviour.md §3.1 item 5), like a card's.
    s.apply(added(text("o3", 5, Some("t"), "agent").under("p")));
    let view =
        taskview_core::screen::view::card::orphan_card_view(&s.store, &s.layout, "tcp").unwrap();
    assert_eq!(view.child_count_label, "2 tool calls");
    // When the parent arrives, the orphans move into its card.
    let d = s.apply(added(subagent("p", 0, "t", json!({}))));
    assert_eq!(
        s.outline(),
        ["card:p", "  msg:o1", "  msg:o2", "  msg:o3", "msg:u", "msg:r"]
    );
    assert!(d.removed.contains(&RowKey::Orphans("tcp".into())));
    s.assert_matches_full_layout();
}

#[test]
fn a_subagent_inside_a_subagent_is_a_full_card_with_depth() {
    let s = Session::with([
        added(subagent("a", 1, "t", json!({}))),
        added(subagent("b", 2, "t", json!({})).under("a")),
        added(child("c", 3, "t", "b")),
    ]);
    assert_eq!(s.outline(), ["card:a", "  card:b", "    msg:c"]);
    assert_eq!(
        s.layout.path_to("c"),
        [
            RowKey::Message("a".into()),
            RowKey::Message("b".into()),
            RowKey::Message("c".into())
        ]
    );
}

#[test]
fn a_parent_loop_is_cut_at_its_earliest_member() {
    let a = subagent("a", 1, "t", json!({})).under("b");
    let b = child("b", 2, "t", "a");
    let s = Session::with([added(b), added(a)]);
    assert_eq!(s.outline(), ["card:a", "  msg:b"]);
    s.assert_matches_full_layout();
}

#[test]
fn a_message_that_is_its_own_parent_stays_top_level() {
    let s = Session::with([added(child("a", 1, "t", "a"))]);
    assert_eq!(s.top(), ["group:1 tool call"]);
}

#[test]
fn a_running_group_shows_now_text_while_its_turn_is_active_and_settles_when_it_completes() {
    let start = turn_started("t");
    let mut s = Session::with([start, added(tool("a", 1, "t", "tool_read"))]);
    let d = s.apply(updated(
        json!({"id": "b", "session_id": "s", "turn_id": "t", "type": "tool_execute",
        "created_at": at(2), "updated_at": at(2),
        "metadata": {"tool_call_id": "tcb", "title": "cargo test", "status": "in_progress"}}),
    ));
    assert!(!d.is_empty());
    let group = s.layout.top_row(0).unwrap().clone();
    let taskview_core::state::layout::RowKind::Group(g) = &group.kind else {
        panic!("not a group")
    };
    assert!(g.running);
    assert_eq!(
        taskview_core::screen::view::group::group_view(g).label,
        "2 tool calls"
    );
    assert_eq!(
        taskview_core::screen::view::group::group_view(g)
            .now_text
            .as_deref(),
        Some("now: cargo test")
    );
    let d = s.apply(turn_completed("t"));
    assert_eq!(d.changed, [RowKey::Group("a".into())]);
    let taskview_core::state::layout::RowKind::Group(g) = &s.layout.top_row(0).unwrap().kind else {
        panic!()
    };
    assert!(!g.running);
    s.assert_matches_full_layout();
}

#[test]
fn a_child_arriving_marks_only_its_card_and_the_cards_above_changed() {
    let mut s = Session::with([
        added(text("u", 1, Some("t"), "user")),
        added(subagent("a", 2, "t", json!({}))),
        added(subagent("b", 3, "t", json!({})).under("a")),
        added(subagent("z", 4, "t", json!({}))),
    ]);
    let d = s.apply(added(child("c", 5, "t", "b")));
    assert_eq!(d.inserted, [RowKey::Message("c".into())]);
    assert_eq!(
        d.changed,
        [RowKey::Message("a".into()), RowKey::Message("b".into())]
    );
    assert!(d.removed.is_empty());
}

#[test]
fn appending_a_message_touches_only_its_own_row() {
    let mut s =
        Session::with((0..50).map(|i| added(text(&format!("m{i}"), i, Some("t"), "agent"))));
    let d = s.apply(added(text("last", 100, Some("t"), "agent")));
    assert_eq!(d.inserted, [RowKey::Message("last".into())]);
    assert!(d.changed.is_empty() && d.removed.is_empty());
    assert_eq!(
        s.layout.top_index_of(&RowKey::Message("last".into())),
        Some(50)
    );
}

#[test]
fn updating_a_message_changes_only_its_row() {
    let mut s = Session::with([
        added(text("a", 1, Some("t"), "agent")),
        added(text("b", 2, Some("t"), "agent")),
    ]);
    let d = s.apply(updated(
        json!({"id": "a", "content": "edited", "updated_at": at(9)}),
    ));
    assert_eq!(d.changed, [RowKey::Message("a".into())]);
}

#[test]
fn multi_line_result_gives_first_nonempty_line_as_summary_and_full_text_first_in_the_body() {
    let text_ = "\n  VERDICT: REQUEST_CHANGES  \nTwo blocking findings.";
    let s = Session::with([
        added(subagent(
            "s",
            1,
            "t",
            done(json!({"subagent_type": "code-reviewer", "result_text": text_})),
        )),
        added(child("c", 2, "t", "s")),
    ]);
    let card = s.card("s");
    assert_eq!(
        card.result_summary.as_deref(),
        Some("VERDICT: REQUEST_CHANGES")
    );
    assert_eq!(card.result_body, Some(ResultBody::Markdown(text_.into())));
    assert_eq!(card.child_count_label.as_deref(), Some("1 tool call"));
    assert!(card.expandable && !card.expanded(None));
    assert_eq!(card.visible_summary(true), None);
}

#[test]
fn no_result_text_gives_no_summary_line() {
    let s = Session::with([
        added(subagent("s", 1, "t", done(json!({})))),
        added(child("c", 2, "t", "s")),
    ]);
    let card = s.card("s");
    assert_eq!(card.result_summary, None);
    assert_eq!(card.result_body, None);
    assert_eq!(card.status, RunState::Complete);
}

#[test]
fn tool_use_count_10_with_10_children_hides_the_tools_chip() {
    let mut events = vec![added(subagent(
        "s",
        0,
        "t",
        done(json!({"tool_use_count": 10})),
    ))];
    events.extend((1..=10).map(|i| added(child(&format!("c{i}"), i, "t", "s"))));
    let card = Session::with(events).card("s");
    assert_eq!(card.child_count_label.as_deref(), Some("10 tool calls"));
    assert!(card.chips.iter().all(|c| c.id != "tools"));
}

#[test]
fn tool_use_count_27_with_20_children_shows_count_and_chip() {
    let mut events = vec![added(subagent(
        "s",
        0,
        "t",
        done(json!({"tool_use_count": 27})),
    ))];
    events.extend((1..=20).map(|i| added(child(&format!("c{i}"), i, "t", "s"))));
    let card = Session::with(events).card("s");
    assert_eq!(card.child_count_label.as_deref(), Some("20 tool calls"));
    assert_eq!(
        card.chips
            .iter()
            .find(|c| c.id == "tools")
            .map(|c| c.text.as_str()),
        Some("27 tools")
    );
}

#[test]
fn card_child_count_counts_tool_calls_not_nested_thinking_or_text() {
    let thinking = thought("th", 1, "t").under("s");
    let note = text("tx", 2, Some("t"), "agent").under("s");
    let card = Session::with([
        added(subagent("s", 0, "t", done(json!({"tool_use_count": 2})))),
        added(thinking),
        added(child("c1", 3, "t", "s")),
        added(note),
        added(child("c2", 4, "t", "s")),
    ])
    .card("s");
    assert_eq!(card.child_count, 4);
    assert_eq!(card.child_count_label.as_deref(), Some("2 tool calls"));
    assert!(
        card.chips.iter().all(|c| c.id != "tools"),
        "{:?}",
        card.chips
    );
}

#[test]
fn card_without_its_transcript_says_not_loaded_and_keeps_the_reported_tool_count() {
    let mut sa = subagent("s", 0, "t", done(json!({"tool_use_count": 5})));
    sa["metadata"]["transcript_not_loaded"] = json!(true);
    let card = Session::with([added(sa)]).card("s");
    assert!(card.transcript_not_loaded);
    assert_eq!(card.child_count_label, None);
    let tools: Vec<&str> = card
        .chips
        .iter()
        .filter(|c| c.id == "tools")
        .map(|c| c.text.as_str())
        .collect();
    assert_eq!(tools, ["5 tools"]);
}

#[test]
fn running_card_shows_now_text_of_latest_child_and_no_chips_or_summary() {
    let start = turn_started("t");
    let mut sa = subagent(
        "s",
        1,
        "t",
        json!({"duration_ms": 5, "result_text": "partial"}),
    );
    sa["metadata"]["status"] = json!("in_progress");
    let s = Session::with([
        start,
        added(sa),
        added(child("c1", 2, "t", "s")),
        added(child("c2", 3, "t", "s")),
    ]);
    let card = s.card("s");
    assert_eq!(card.status, RunState::Running);
    assert_eq!(card.now_text.as_deref(), Some("now: Tool c2"));
    assert!(card.chips.is_empty() && card.result_summary.is_none());
    assert!(card.expanded(None));
}

#[test]
fn card_description_is_stripped_with_the_original_as_title() {
    let s = Session::with([added(subagent(
        "s",
        1,
        "t",
        done(json!({"subagent_type": "test-supervisor",
        "description": "Test-supervisor review of new invariant tests"})),
    ))]);
    let card = s.card("s");
    assert_eq!(card.type_label, "test-supervisor");
    assert_eq!(
        card.description.as_deref(),
        Some("review of new invariant tests")
    );
    assert_eq!(
        card.description_title,
        "Test-supervisor review of new invariant tests"
    );
}

#[test]
fn failed_and_cancelled_subagents_show_their_state() {
    let mut failed = subagent("f", 1, "t", json!({}));
    failed["metadata"]["status"] = json!("error");
    let mut cancelled = subagent("c", 2, "t", json!({}));
    cancelled["metadata"]["status"] = json!("cancelled");
    let s = Session::with([added(failed), added(cancelled)]);
    assert_eq!(s.card("f").status, RunState::Failed);
    assert_eq!(s.card("c").status, RunState::Cancelled);
}

#[test]
fn prompt_only_card_is_expandable_with_the_prompt_disclosure() {
    let s = Session::with([added(subagent(
        "s",
        1,
        "t",
        done(json!({"prompt": "Inspect the lifecycle"})),
    ))]);
    let card = s.card("s");
    assert!(card.expandable);
    assert_eq!(card.prompt.as_deref(), Some("Inspect the lifecycle"));
    let bare = Session::with([added(subagent(
        "s",
        1,
        "t",
        done(json!({"duration_ms": 2500})),
    ))])
    .card("s");
    assert!(!bare.expandable);
    assert_eq!(bare.chips[0].text, "2.5s");
}

#[test]
fn subagent_count_2_then_0_then_missing_key_gives_chip_2_none_none() {
    use taskview_core::screen::view::board::board_view;
    let task = |v: serde_json::Value| {
        Event::TaskUpdated(taskview_core::model::board::TaskPatch::from_value(&v).unwrap())
    };
    let chip = |s: &Session| {
        board_view(&s.store, "wf")
            .unwrap()
            .columns
            .iter()
            .flat_map(|c| &c.cards)
            .find(|c| c.task_id == "t")
            .and_then(|c| c.subagent_chip.clone())
    };
    let mut s = Session::default();
    s.apply(task(
        json!({"task_id": "t", "workflow_id": "wf", "active_subagent_count": 2}),
    ));
    let c = chip(&s).unwrap();
    assert_eq!((c.count, c.label.as_str()), (2, "2 subagents running"));
    s.apply(task(json!({"task_id": "t", "active_subagent_count": 0})));
    assert_eq!(chip(&s), None);
    s.apply(task(json!({"task_id": "t", "title": "renamed"})));
    assert_eq!(chip(&s), None);
}
