//! Browser tests of the rules of refused calls, MCP calls, worktree runs,
//! forks and queued runs (docs/behaviour.md §3.4, §4), on captures the
//! harness wrote with the real CLIs (`tests/fixtures/captures/`), imported
//! by core and mounted as the file view shows them: a call blocked by a
//! hook and one denied by a rule (their state word and the CLI's reason),
//! an MCP call read `server · tool` and its server named in the card's
//! tools chip, where a worktree run ran, the row where a fork's copies end,
//! a queued run's card, its wait drawn on the Timeline and counted apart in
//! the roster.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use serde_json::Value;
use taskview_app::components::roster::Roster;
use taskview_app::components::timeline::Timeline;
use taskview_core::model::event::Event;
use taskview_core::read::import::{import_any_with_files, Follower};
use taskview_core::screen::view::roster::{RosterQuery, RosterRows};
use taskview_core::screen::view::timeline::query::TimelineQuery;
use taskview_core::screen::viewer::Viewer;
use taskview_testkit::captures::{capture, Capture};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

mod support;

use support::mount;
use support::transcript::{settle, text_in, Mounted};

wasm_bindgen_test_configure!(run_in_browser);

/// Capture `name` imported, as the file view opens it.
fn imported(c: &Capture) -> Vec<Event> {
    let events = import_any_with_files(&c.session, &c.file_refs())
        .unwrap()
        .events;
    std::iter::once(Event::TranscriptOpened { session_id: None })
        .chain(events)
        .collect()
}

/// Opens every turn group of `t`.
async fn open_groups(t: &Mounted) {
    for head in t.all(".group-head") {
        t.click(&head).await;
    }
}

/// The tool row whose title holds `needle`.
fn tool_row(t: &Mounted, needle: &str) -> web_sys::Element {
    t.all(".tool")
        .into_iter()
        .find(|e| text_in(e, ".tool-title").is_some_and(|s| s.contains(needle)))
        .unwrap_or_else(|| panic!("no row {needle:?}: {}", t.host.inner_html()))
}

#[wasm_bindgen_test]
async fn a_hook_block_and_a_deny_rule_read_as_such_with_the_clis_reason() {
    let c = capture("claude-code-2.1.337/hooks");
    let t = Mounted::with(imported(&c)).await;
    open_groups(&t).await;
    let blocked = tool_row(&t, "cargo publish --dry-run");
    assert_eq!(
        blocked.get_attribute("data-state").as_deref(),
        Some("blocked")
    );
    assert_eq!(
        text_in(&blocked, ".tool-state").as_deref(),
        Some("blocked by hook")
    );
    assert_eq!(
        text_in(&blocked, ".tool-reason").as_deref(),
        Some("Publishing is blocked in this workspace: releases go through CI.")
    );
    let denied = tool_row(&t, ".env");
    assert_eq!(
        denied.get_attribute("data-state").as_deref(),
        Some("denied")
    );
    assert_eq!(text_in(&denied, ".tool-state").as_deref(), Some("denied"));
    assert!(text_in(&denied, ".tool-reason")
        .is_some_and(|r| r.contains("denied by your permission settings")));
    let failed = tool_row(&t, "cat CHANGELOG.md");
    assert_eq!(
        failed.get_attribute("data-state").as_deref(),
        Some("failed")
    );
    assert_eq!(
        text_in(&failed, ".tool-reason"),
        None,
        "a failure has no refusal's reason"
    );
}

#[wasm_bindgen_test]
async fn an_mcp_call_reads_server_dot_tool_and_its_card_names_the_server() {
    let c = capture("claude-code-2.1.337/mcp");
    let t = Mounted::with(imported(&c)).await;
    open_groups(&t).await;
    tool_row(&t, "notes · lookup_note");
    assert!(
        !t.host
            .text_content()
            .unwrap_or_default()
            .contains("mcp__notes"),
        "no wire name on screen"
    );
    let card = t.one("[data-testid=subagent-card]").unwrap();
    assert_eq!(
        text_in(&card, "[data-testid=subagent-meta-tools]").as_deref(),
        Some("2 tools · notes")
    );
}

#[wasm_bindgen_test]
async fn a_worktree_runs_card_says_where_it_ran() {
    let c = capture("claude-code-2.1.337/worktree");
    let t = Mounted::with(imported(&c)).await;
    let chip = t
        .one("[data-testid=subagent-meta-worktree]")
        .unwrap_or_else(|| panic!("{}", t.host.inner_html()));
    assert!(chip
        .text_content()
        .unwrap_or_default()
        .starts_with("worktree agent-"));
    let title = chip.get_attribute("title").unwrap_or_default();
    assert!(
        title.contains("/.claude/worktrees/agent-") && title.contains("(branch worktree-agent-"),
        "{title}"
    );
}

#[wasm_bindgen_test]
async fn a_fork_shows_one_quiet_row_where_its_copies_end() {
    for name in [
        "claude-code-2.1.337/session-fork",
        "qwen-code-0.24.4/session-fork",
    ] {
        let c = capture(name);
        let t = Mounted::with(imported(&c)).await;
        let rows = t.texts("[data-event=fork]");
        assert_eq!(rows.len(), 1, "{name}: {}", t.host.inner_html());
        assert!(
            rows[0].starts_with(
                "Forked from Review the parser-kit lexer with one background reviewer. · "
            ),
            "{name}: {rows:?}"
        );
    }
}

/// The qwen-code wide fan-out as its files stood when ten ran and two
/// waited (before the eleventh's first record), followed as written
/// (sidecars, rewritten as runs go, left out).
fn fan_out_waiting() -> Vec<Event> {
    let c = capture("qwen-code-0.24.4/wide-fan-out");
    let time = |line: &str| -> Option<String> {
        serde_json::from_str::<Value>(line)
            .ok()?
            .get("timestamp")?
            .as_str()
            .map(str::to_string)
    };
    let mut lines: Vec<(String, Option<String>, String)> = Vec::new();
    let sources = std::iter::once((None, c.session.as_str())).chain(
        c.files
            .iter()
            .filter(|(p, _)| p.ends_with(".jsonl"))
            .map(|(p, t)| (Some(p.clone()), t.as_str())),
    );
    for (path, text) in sources {
        let mut at = String::new();
        for line in text.split_inclusive('\n') {
            at = time(line).unwrap_or(at);
            lines.push((at.clone(), path.clone(), line.to_string()));
        }
    }
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    let mut starts: Vec<String> = c
        .files
        .iter()
        .filter(|(p, _)| p.ends_with(".jsonl"))
        .filter_map(|(_, t)| time(t.lines().next()?))
        .collect();
    starts.sort();
    let cut = &starts[10];
    let mut follower = Follower::new(None);
    let mut events = vec![Event::TranscriptOpened { session_id: None }];
    for (_, path, line) in lines.iter().filter(|(t, _, _)| t < cut) {
        events.extend(match path {
            None => follower.push(line.as_bytes()),
            Some(p) => follower.push_companion(p, line.as_bytes()),
        });
    }
    events
}

#[wasm_bindgen_test]
async fn a_queued_runs_card_reads_queued_without_a_spinner_and_the_roster_counts_it_apart() {
    let events = fan_out_waiting();
    let t = Mounted::with(events.clone()).await;
    let queued: Vec<String> = t
        .all("[data-testid=subagent-status].status-word.queued")
        .iter()
        .map(|e| e.text_content().unwrap_or_default())
        .collect();
    assert_eq!(queued, ["queued", "queued"]);
    let mut viewer = Viewer::new();
    viewer.apply(events);
    let roster = viewer.roster(
        RosterQuery::default(),
        RosterRows {
            first: 0,
            count: 20,
        },
    );
    let (host, _handle) = mount(move || {
        view! {
            <Roster roster=Signal::stored(roster) on_filter=Callback::new(|_| ()) on_sort=Callback::new(|_| ())
                on_rows=Callback::new(|_| ()) on_choose=Callback::new(|_| ()) on_close=Callback::new(|()| ()) />
        }
        .into_any()
    });
    settle().await;
    let labels: Vec<String> = {
        let list = host.query_selector_all("[data-filter]").unwrap();
        (0..list.length())
            .filter_map(|i| list.item(i))
            .map(|n| {
                n.unchecked_into::<web_sys::Element>()
                    .text_content()
                    .unwrap_or_default()
            })
            .collect()
    };
    assert!(
        labels.iter().any(|l| l.trim() == "queued · 2"),
        "{labels:?}"
    );
    assert!(
        labels.iter().any(|l| l.trim() == "running · 10"),
        "{labels:?}"
    );
}

#[wasm_bindgen_test]
async fn a_run_that_waited_is_drawn_launch_wait_run_on_the_timeline() {
    let c = capture("qwen-code-0.24.4/wide-fan-out");
    let mut viewer = Viewer::new();
    viewer.set_still(true);
    viewer.apply(imported(&c));
    let view = viewer.timeline(&TimelineQuery {
        width: 800,
        ..TimelineQuery::default()
    });
    let (host, _handle) = mount(move || {
        view! {
            <Timeline view=Signal::stored(view) table=Signal::stored(None) packed=Signal::stored(false)
                on_move=Callback::new(|_| ()) />
        }
        .into_any()
    });
    settle().await;
    let list = host
        .query_selector_all("[data-testid=timeline-wait]")
        .unwrap();
    // Only the two the queue held are drawn with a wait, each a good part
    // of its bar (the others' half a second to start is no wait). The
    // tests load no stylesheet: the width is read as drawn, from its style.
    let widths: Vec<f64> = (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|n| {
            let style = n
                .unchecked_into::<web_sys::Element>()
                .get_attribute("style")
                .unwrap_or_default();
            let px = style
                .trim_start_matches("width:")
                .trim()
                .trim_end_matches(';');
            px.trim_end_matches("px").parse().unwrap_or(0.0)
        })
        .collect();
    assert_eq!(
        widths.len(),
        2,
        "the two that waited: {}",
        host.inner_html()
    );
    assert!(widths.iter().all(|w| *w >= 100.0), "{widths:?}");
    let labels: Vec<String> = {
        let bars = host
            .query_selector_all("[data-testid=timeline-bar]")
            .unwrap();
        (0..bars.length())
            .filter_map(|i| bars.item(i))
            .map(|n| {
                n.unchecked_into::<web_sys::Element>()
                    .get_attribute("aria-label")
                    .unwrap_or_default()
            })
            .collect()
    };
    let waited = labels
        .iter()
        .filter(|l| l.contains("waited") && l.contains("to start"))
        .count();
    assert!(waited >= 2, "{labels:?}");
}
