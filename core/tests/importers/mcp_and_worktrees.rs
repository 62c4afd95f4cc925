//! MCP tools and worktree runs (docs/behaviour.md §3.4): the
//! `mcp` captures, where the main agent and a subagent call the harness's
//! `notes` server (captures/scenarios/mcp.mjs), and the `worktree`
//! captures, where a subagent runs isolated in a git worktree and leaves a
//! note there (captures/scenarios/worktree.mjs).

use crate::common::*;
use taskview_core::model::message::Message;
use taskview_core::read::import::import_any_with_files;
use taskview_testkit::captures::capture;
use taskview_testkit::fixture_json;

const MCP: [&str; 3] = [
    "claude-code-2.1.337/mcp",
    "qwen-code-0.24.4/mcp",
    "codex-0.171.0/mcp",
];

/// An MCP call reads `server · tool` where it is a row and in its card's
/// `now:`-able title, never the wire name; the card whose calls used it
/// names the server in its tools chip.
#[test]
fn an_mcp_call_reads_server_dot_tool_and_its_card_names_the_server() {
    for name in MCP {
        let c = capture(name);
        let events = import_any_with_files(&c.session, &c.file_refs())
            .unwrap()
            .events;
        let msgs = messages(&events);
        let calls: Vec<&Message> = msgs
            .iter()
            .filter(|m| {
                m.metadata
                    .raw_str("tool_name")
                    .is_some_and(|n| n.contains("lookup_note"))
            })
            .collect();
        assert_eq!(
            calls.len(),
            2,
            "{name}: the main agent's and the subagent's"
        );
        for m in &calls {
            assert_eq!(m.title(), "notes · lookup_note", "{name}");
            assert!(!m.title().contains("mcp__"), "{name}: no wire name");
        }
        let top = calls
            .iter()
            .filter(|m| m.metadata.parent_tool_call_id.is_none())
            .count();
        assert_eq!(top, 1, "{name}: one of the main agent's");
        let card = cards(&msgs)[0];
        let laid = LaidOut::new(events);
        let chips = laid.chips(&card.id);
        assert!(
            chips
                .iter()
                .any(|c| c.starts_with("tools:") && c.ends_with(" · notes")),
            "{name}: {chips:?}"
        );
    }
}

/// A worktree run's card says where it ran: its worktree's folder on the
/// chip, its path and branch in the title (Claude Code: the sidecar and the
/// notification's `<worktree>`; qwen-code: the sidecar's `isolation` and the
/// result's `[worktree preserved: …]`, which is no part of the answer).
/// Codex cannot isolate a subagent: its manifest says why.
#[test]
fn a_worktree_runs_card_says_where_it_ran() {
    for (name, folder) in [
        ("claude-code-2.1.337/worktree", "/.claude/worktrees/agent-"),
        ("qwen-code-0.24.4/worktree", "/.qwen/worktrees/agent-"),
    ] {
        let c = capture(name);
        let events = import_any_with_files(&c.session, &c.file_refs())
            .unwrap()
            .events;
        let msgs = messages(&events);
        let card = cards(&msgs)[0];
        let sa = card.metadata.subagent.as_ref().unwrap();
        assert_eq!(sa.isolation, "worktree", "{name}");
        assert!(
            sa.worktree_path.contains(folder),
            "{name}: {:?}",
            sa.worktree_path
        );
        assert!(sa.worktree_branch.starts_with("worktree-agent-"), "{name}");
        assert!(
            !sa.result_text.contains("worktree preserved"),
            "{name}: {:?}",
            sa.result_text
        );
        let face = LaidOut::new(events).card(&card.id);
        let chip = face
            .chips
            .iter()
            .find(|c| c.id == "worktree")
            .expect("a worktree chip");
        assert!(
            chip.text.starts_with("worktree agent-"),
            "{name}: {:?}",
            chip.text
        );
        assert!(
            chip.title.contains(folder) && chip.title.contains("branch worktree-agent-"),
            "{name}: {:?}",
            chip.title
        );
    }
    let codex = fixture_json("captures/codex-0.171.0/manifest.json");
    let entry = &codex["scenarios"]["worktree"];
    assert_eq!(entry["status"], "unsupported");
    assert!(entry["unsupported"]["reason"]
        .as_str()
        .unwrap()
        .contains("no isolation"));
}
