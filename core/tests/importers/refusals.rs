//! Calls refused before they ran (docs/behaviour.md §3.4): the
//! `hooks` captures, where a PreToolUse hook blocks `cargo publish` and a
//! permission rule (Codex: an execpolicy rule) refuses reading `.env`
//! (captures/scenarios/hooks.mjs). A blocked call reads `blocked by hook`
//! and a refused one `denied`, each with the CLI's reason, apart from a
//! command that failed on its own (`cat CHANGELOG.md`); a subagent's
//! blocked call reads the same inside its card.

use crate::common::*;
use taskview_core::model::message::Message;
use taskview_core::model::status::{message_run_state, RunState};
use taskview_core::read::import::import_any_with_files;
use taskview_core::screen::view::message::MessageView;
use taskview_testkit::captures::capture;

/// The hook's words in the scenario's script.
const HOOK_REASON: &str = "Publishing is blocked in this workspace: releases go through CI.";

const CAPTURES: [&str; 3] = [
    "claude-code-2.1.337/hooks",
    "qwen-code-0.24.4/hooks",
    "codex-0.171.0/hooks",
];

/// The tool row whose title (or command) holds `needle`, under `parent`.
fn row<'a>(msgs: &'a [Message], needle: &str, nested: bool) -> &'a Message {
    msgs.iter()
        .filter(|m| !m.is_subagent_payload())
        .filter(|m| m.metadata.parent_tool_call_id.is_some() == nested)
        .find(|m| m.title().contains(needle) || m.content.contains(needle))
        .unwrap_or_else(|| panic!("no row {needle:?} (nested: {nested})"))
}

/// A row's head: its state, the word it shows and the reason under it.
fn head(m: &Message) -> (RunState, &'static str, Option<String>) {
    let tool = MessageView::of(m, false)
        .into_tool_head()
        .expect("a tool row");
    (tool.state, tool.state_text(), tool.reason)
}

#[test]
fn a_hook_block_and_a_deny_rule_read_as_such_with_the_clis_reason_not_as_failures() {
    for name in CAPTURES {
        let c = capture(name);
        let events = import_any_with_files(&c.session, &c.file_refs())
            .unwrap()
            .events;
        let msgs = messages(&events);
        let (state, word, reason) = head(row(&msgs, "cargo publish --dry-run", false));
        assert_eq!(
            (state, word),
            (RunState::Blocked, "blocked by hook"),
            "{name}"
        );
        assert_eq!(
            reason.as_deref(),
            Some(HOOK_REASON),
            "{name}: the hook's own words"
        );
        let (state, word, reason) = head(row(&msgs, ".env", false));
        assert_eq!((state, word), (RunState::Denied, "denied"), "{name}");
        let reason = reason.unwrap_or_default();
        assert!(
            reason.contains("denied") || reason.contains(".env"),
            "{name}: the CLI's reason, got {reason:?}"
        );
        let (state, word, reason) = head(row(&msgs, "CHANGELOG.md", false));
        assert_eq!(
            (state, word, reason),
            (RunState::Failed, "failed", None),
            "{name}: failed on its own"
        );
        // The subagent's own publish is blocked too, inside its card.
        let nested = row(&msgs, "cargo publish --dry-run --allow-dirty", true);
        assert_eq!(
            message_run_state(nested, false),
            RunState::Blocked,
            "{name}"
        );
        let card = cards(&msgs)[0];
        assert_eq!(
            nested.metadata.parent_tool_call_id, card.metadata.tool_call_id,
            "{name}: in its card"
        );
        assert_eq!(
            LaidOut::new(events).card(&card.id).status,
            RunState::Complete,
            "{name}: its run still completed"
        );
    }
}
