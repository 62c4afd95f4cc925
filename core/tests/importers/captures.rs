//! The captures the harness wrote with the real CLIs (docs/formats.md §8): each
//! scenario imports with no unreadable row and no transport wrapper on
//! screen, every subagent it scripted is a card whose face agrees with the
//! manifest, and record kinds a later release might add change nothing but
//! the count of records not shown (docs/behaviour.md §1, §3.1).

use crate::common::*;
use serde_json::{json, Value};
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::model::status::RunState;
use taskview_core::read::import::companions::agent_file_id;
use taskview_core::read::import::folder::session_name;
use taskview_core::read::import::{
    claude_code, import_any_with_files, qwen_code, wanted_companions, Dialect,
};
use taskview_core::screen::view::card::CardView;
use taskview_core::screen::view::format::count_label;
use taskview_testkit::captures::{captures, Capture};

/// The Claude Code releases the harness captured: the one before the pin
/// moved, and the pinned one.
const CLAUDE_CODE: &str = "claude-code-2.1.332";
const CLAUDE_CODE_PINNED: &str = "claude-code-2.1.337";
/// The qwen-code release the harness captured.
const QWEN_CODE: &str = "qwen-code-0.24.4";

/// The Gemini CLI release the harness captured.
const GEMINI_CLI: &str = "gemini-cli-0.61.0";

/// The Codex CLI release the harness captured.
const CODEX: &str = "codex-0.171.0";

/// The Copilot CLI release the harness captured.
const COPILOT: &str = "copilot-1.0.102";

/// The OpenCode release the harness captured (its `opencode export` files).
const OPENCODE: &str = "opencode-1.18.33";

/// The Kimi Code release the harness captured.
const KIMI: &str = "kimi-code-2.1.0";

/// Every captured CLI release with the dialect its sessions are.
const CLIS: [(&str, Dialect); 8] = [
    (CLAUDE_CODE, Dialect::ClaudeCode),
    (CLAUDE_CODE_PINNED, Dialect::ClaudeCode),
    (QWEN_CODE, Dialect::QwenCode),
    (GEMINI_CLI, Dialect::GeminiCli),
    (CODEX, Dialect::Codex),
    (COPILOT, Dialect::Copilot),
    (OPENCODE, Dialect::OpenCode),
    (KIMI, Dialect::Kimi),
];

/// Every capture of every CLI.
fn all_captures() -> impl Iterator<Item = Capture> {
    CLIS.into_iter().flat_map(|(cli, _)| captures(cli))
}

/// Text a transport wraps around an answer, never shown (docs/behaviour.md §1).
const WRAPPERS: [&str; 16] = [
    "[Subagent hand-back]",
    "<tools-used-before-summary>",
    "<task-notification>",
    "<subagent_notification>",
    "<environment_context>",
    "<session_context>",
    "Async agent launched successfully",
    "Background agent launched successfully",
    "<fork-boilerplate>",
    "Fork started",
    "<task id=",
    "<task_result>",
    "<task_error>",
    "Background task started",
    "<notification id=",
    "resume_hint:",
];

fn import(c: &Capture) -> Vec<Event> {
    import_any_with_files(&c.session, &c.file_refs())
        .unwrap_or_else(|e| panic!("{}: {e}", c.name))
        .events
}

/// Every text a message puts on screen: its content, its tool output and
/// its subagent's result.
fn shown_texts(m: &Message) -> Vec<&str> {
    let mut texts = vec![m.content.as_str()];
    texts.extend(m.metadata.raw_str("result"));
    if let Some(sa) = &m.metadata.subagent {
        texts.push(sa.result_text.as_str());
    }
    texts
}

/// The card of the scripted subagent at `at` in the manifest: the one with
/// its description, or, for a CLI whose launch carries no description
/// (Gemini CLI, Codex: the card is described by its prompt), the card at
/// the same place in launch order among its parent's; and whether it was
/// found by its description.
fn card_of_agent<'a>(c: &Capture, msgs: &'a [Message], at: usize) -> (&'a Message, bool) {
    let agents = c.agents();
    let description = agents[at]["description"].as_str().unwrap_or("");
    let described = cards(msgs)
        .into_iter()
        .any(|m| m.metadata.subagent.as_ref().unwrap().description == description);
    if described {
        return (card_for(c, msgs, description), true);
    }
    let parent = &agents[at]["parent"];
    let parent_call = agents
        .iter()
        .position(|a| a["key"] == *parent)
        .and_then(|p| card_of_agent(c, msgs, p).0.metadata.tool_call_id.clone());
    let nth = agents[..at]
        .iter()
        .filter(|a| a["parent"] == *parent)
        .count();
    let siblings: Vec<&Message> = cards_of_agents(msgs)
        .into_iter()
        .filter(|m| m.metadata.parent_tool_call_id == parent_call)
        .collect();
    (siblings[nth], false)
}

/// The card whose description the manifest gave.
fn card_for<'a>(c: &Capture, msgs: &'a [Message], description: &str) -> &'a Message {
    let found: Vec<&Message> = cards(msgs)
        .into_iter()
        .filter(|m| m.metadata.subagent.as_ref().unwrap().description == description)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{}: one card described {description:?}",
        c.name
    );
    found[0]
}

fn run_state(status: &str) -> RunState {
    match status {
        "completed" => RunState::Complete,
        "failed" => RunState::Failed,
        "cancelled" => RunState::Cancelled,
        other => panic!("a manifest status {other:?}"),
    }
}

fn chip<'a>(card: &'a CardView, id: &str) -> Option<&'a str> {
    card.chips
        .iter()
        .find(|c| c.id == id)
        .map(|c| c.text.as_str())
}

/// Capture `c` imported: read as `dialect`, with no unreadable row.
pub fn read_as(c: &Capture, dialect: Dialect) -> Vec<Event> {
    let import = import_any_with_files(&c.session, &c.file_refs()).expect("imports");
    assert_eq!(import.dialect, dialect, "{}", c.name);
    assert_eq!(
        unreadable(&import.events),
        Vec::<String>::new(),
        "{}",
        c.name
    );
    import.events
}

#[test]
fn every_capture_is_read_as_its_cli_s_dialect_with_no_unreadable_row() {
    for (cli, dialect) in CLIS {
        let all = captures(cli);
        assert!(
            all.len() >= 6,
            "the harness captured the scenarios {cli} supports"
        );
        for c in &all {
            read_as(c, dialect);
        }
    }
}

#[test]
fn no_transport_wrapper_of_a_capture_is_text_on_screen() {
    for c in all_captures() {
        for m in messages(&import(&c)) {
            for text in shown_texts(&m) {
                for wrapper in WRAPPERS {
                    assert!(
                        !text.contains(wrapper),
                        "{}: {} shows {wrapper:?}",
                        c.name,
                        m.id
                    );
                }
            }
        }
    }
}

/// docs/formats.md §8: every subagent is a card with its type, description, summary,
/// status, child count, duration, tokens and model, as the scenario
/// scripted them; nested ones under their parent's card.
#[test]
fn every_scripted_subagent_of_a_capture_is_a_card_with_its_face() {
    for c in all_captures() {
        let events = import(&c);
        let msgs = messages(&events);
        let laid = LaidOut::new(events);
        let agents = c.agents();
        assert_eq!(
            cards_of_agents(&msgs).len(),
            agents.len(),
            "{}: one card per subagent",
            c.name
        );
        for (at, agent) in agents.iter().enumerate() {
            let description = agent["description"].as_str().unwrap();
            let what = format!("{}: {description}", c.name);
            let (m, by_description) = card_of_agent(&c, &msgs, at);
            let card = laid.card(&m.id);
            match agent["type"].as_str() {
                Some(kind) => assert_eq!(card.type_label, kind, "{what}"),
                // Codex has no agent types: the card names the agent as the
                // CLI did (its nickname).
                None => assert!(
                    !card.type_label.is_empty() && card.type_label != "fork",
                    "{what}: {:?}",
                    card.type_label
                ),
            }
            if by_description {
                assert_eq!(card.description_title, description, "{what}");
            } else {
                assert_eq!(
                    card.description_title,
                    payload(&msgs, &m.id).prompt,
                    "{what}"
                );
            }
            let status = agent["status"].as_str().unwrap();
            if status == "interrupted" {
                // Nothing settled it: it runs until a still view says
                // `interrupted` (capture_stories), unless the CLI itself
                // recorded the abort (Codex's `turn_aborted`).
                // A foreground call left pending settles with its turn in a
                // live view and reads interrupted in a still one.
                let unfinished = card.status == RunState::Settled
                    && taskview_core::model::status::left_unfinished(m);
                assert!(
                    matches!(card.status, RunState::Running | RunState::Cancelled) || unfinished,
                    "{what}: {:?}",
                    card.status
                );
                continue;
            }
            assert_eq!(card.status, run_state(status), "{what}");
            let tool_calls: u64 = agent["actions"]
                .as_object()
                .map(|a| a.values().filter_map(Value::as_u64).sum())
                .unwrap_or(0);
            let expected_count =
                (tool_calls > 0).then(|| count_label(tool_calls, "tool call", "tool calls"));
            assert_eq!(card.child_count_label, expected_count, "{what}");
            // A launch its CLI refused may not have run long enough to time.
            let refused = agent["how"]
                .as_str()
                .is_some_and(|h| h.starts_with("refused at launch"));
            assert!(
                refused || chip(&card, "duration").is_some(),
                "{what}: duration"
            );
            if status == "completed" {
                // A run that failed before its first reply may name no model.
                assert!(chip(&card, "model").is_some(), "{what}: model");
                assert!(chip(&card, "tokens").is_some(), "{what}: tokens");
                let summary = card.result_summary.as_deref().unwrap_or("");
                assert!(
                    !summary.is_empty() && summary != "Summary",
                    "{what}: summary {summary:?}"
                );
            }
            if status == "failed" {
                assert!(
                    card.result_summary.is_some(),
                    "{what}: the failure's reason"
                );
            }
            let background = agent["launch"].as_str().unwrap().starts_with("background");
            assert_eq!(
                chip(&card, "background").is_some(),
                background,
                "{what}: background"
            );
            let parent = m.metadata.parent_tool_call_id.as_deref();
            match agent["parent"].as_str().unwrap() {
                "main" if agent["launch"] == "workflow" => {
                    let workflow = parent.map(|p| payload(&msgs, p).subagent_type.as_str());
                    assert_eq!(workflow, Some("workflow"), "{what}: in its workflow's card");
                }
                "main" => assert_eq!(parent, None, "{what}: a top-level card"),
                key => {
                    let parent_at = agents.iter().position(|a| a["key"] == key).unwrap();
                    let (parent_card, _) = card_of_agent(&c, &msgs, parent_at);
                    assert_eq!(
                        parent,
                        parent_card.metadata.tool_call_id.as_deref(),
                        "{what}: nested"
                    );
                }
            }
        }
    }
}

/// The cards of subagents (a workflow's own card is the workflow, not one of
/// its agents).
fn cards_of_agents(msgs: &[Message]) -> Vec<&Message> {
    cards(msgs)
        .into_iter()
        .filter(|m| m.metadata.subagent.as_ref().unwrap().subagent_type != "workflow")
        .collect()
}

/// docs/formats.md §7 Claude Code 6: a background shell command is no subagent;
/// its notification (Claude Code writes one, qwen-code's agent polls a
/// status file instead) is at most one status line.
#[test]
fn a_background_shell_command_of_a_capture_is_no_card_and_at_most_one_status_row() {
    let mut seen = 0;
    for c in all_captures() {
        let shells = c.manifest["holds"]["backgroundShells"]
            .as_array()
            .map_or(0, Vec::len);
        if shells == 0 {
            continue;
        }
        seen += 1;
        let msgs = messages(&import(&c));
        assert!(
            cards(&msgs).is_empty(),
            "{}: a shell command is no subagent",
            c.name
        );
        let statuses: Vec<&str> = msgs
            .iter()
            .filter(|m| m.kind.as_str() == "status")
            .map(|m| m.content.as_str())
            .collect();
        assert!(statuses.len() <= shells, "{}: {statuses:?}", c.name);
        assert!(
            statuses.iter().all(|s| s.starts_with("Background command")),
            "{statuses:?}"
        );
        if c.name.starts_with(CLAUDE_CODE) {
            assert_eq!(statuses.len(), shells, "{}: its notification, once", c.name);
        }
    }
    // OpenCode's bash has no background mode (its manifest says so).
    assert_eq!(
        seen,
        CLIS.len() - 1,
        "each other CLI ran a background shell"
    );
}

#[test]
fn a_message_sent_to_a_running_subagent_of_a_capture_shows_in_its_card() {
    let mut seen = 0;
    for c in all_captures() {
        let msgs = messages(&import(&c));
        for sent in c.manifest["holds"]["messagesSent"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let to = c
                .agents()
                .iter()
                .position(|a| a["key"] == sent["to"])
                .unwrap();
            let (card, _) = card_of_agent(&c, &msgs, to);
            let inside = children(&msgs, card.metadata.tool_call_id.as_deref().unwrap());
            let text = sent["message"].as_str().unwrap();
            assert!(
                inside
                    .iter()
                    .any(|m| m.content == text && m.author.as_str() == "user"),
                "{}: {text:?} in its card",
                c.name
            );
            seen += 1;
        }
    }
    assert!(seen >= 3, "Claude Code, qwen-code and Codex sent a message");
}

/// docs/behaviour.md §1: record kinds a later release adds (request snapshots,
/// telemetry, latches, attachments of kinds never seen) are skipped and
/// counted: the transcript stays the same but for the count.
#[test]
fn unknown_record_kinds_injected_into_a_capture_change_only_the_count() {
    let tomorrow = |file: usize, line: usize| match line % 5 {
        0 => {
            json!({"type": "api-request-v2", "sessionId": "s", "id": format!("r{file}-{line}"), "params": {"model": "m"}})
        }
        1 => {
            json!({"type": "api-request-blob", "hash": format!("h{file}-{line}"), "message": {"role": "user", "content": [{"type": "text", "text": "copied"}]}})
        }
        2 => {
            json!({"type": "telemetry-span", "sessionId": "s", "span": {"name": "turn", "ms": line}})
        }
        3 => {
            json!({"type": "attachment", "uuid": format!("att-{file}-{line}"), "sessionId": "s", "attachment": {"type": "hologram_delta", "added": ["x"]}})
        }
        _ => json!({"type": "cost-state-v3", "totals": [file, line]}),
    };
    // An OpenCode export is one JSON document, not lines to inject between.
    let jsonl = CLIS.into_iter().filter(|(_, d)| *d != Dialect::OpenCode);
    for c in jsonl.flat_map(|(cli, _)| captures(cli)) {
        let inject = |file: usize, text: &str| {
            let mut out = Vec::new();
            for (n, line) in text.lines().enumerate() {
                out.push(line.to_string());
                out.push(tomorrow(file, n).to_string());
            }
            (out.join("\n"), text.lines().count() as u64)
        };
        let (session, mut injected) = inject(0, &c.session);
        let files: Vec<(String, String)> = c
            .files
            .iter()
            .enumerate()
            .map(|(file, (name, text))| {
                let rollout = name
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .starts_with("rollout-");
                if agent_file_id(name).is_some() || rollout {
                    let (text, n) = inject(file + 1, text);
                    injected += n;
                    (name.clone(), text)
                } else {
                    (name.clone(), text.clone())
                }
            })
            .collect();
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let before = import(&c);
        let after = import_any_with_files(&session, &refs)
            .expect("imports")
            .events;
        let rows = |events: &[Event]| -> Vec<Event> {
            events
                .iter()
                .filter(|e| !matches!(e, Event::NotShown { .. }))
                .cloned()
                .collect()
        };
        assert_eq!(
            rows(&after),
            rows(&before),
            "{}: the transcript is unchanged",
            c.name
        );
        let total = |events: &[Event]| -> u64 { not_shown(events).iter().map(|(_, n)| n).sum() };
        assert_eq!(
            total(&after),
            total(&before) + injected,
            "{}: every injected record counted",
            c.name
        );
    }
}

/// What opening `c`'s session by URL fetches, as the file view does
/// (`src/sources/file.rs`): round after round, the files
/// `wanted_companions` names, among those the capture holds.
pub(crate) fn fetched_by_url(c: &Capture) -> Vec<(&str, &str)> {
    let stem = session_name(&c.session_path);
    let mut found: Vec<(&str, &str)> = Vec::new();
    for _ in 0..6 {
        let wanted = wanted_companions(&c.session, stem, &found);
        let fetched: Vec<(&str, &str)> = c
            .file_refs()
            .into_iter()
            .filter(|(name, _)| wanted.iter().any(|w| w == name))
            .collect();
        if fetched.is_empty() {
            break;
        }
        found.extend(fetched);
    }
    found.sort();
    found
}

/// Opening a Claude Code session by URL fetches, round after round, what
/// the files found so far name: its subagents' transcripts, their sidecars,
/// and the transcripts of the subagents they launched (docs/user-guide.md "Opening
/// transcript files"). A depth-3 agent whose id no file but its own names
/// is found only in a folder.
#[test]
fn a_nested_claude_code_capture_by_url_fetches_its_subagents_and_sidecars_in_rounds() {
    let c = taskview_testkit::captures::capture(&format!("{CLAUDE_CODE}/nested"));
    let found = fetched_by_url(&c);
    let checker = c
        .files
        .iter()
        .find(|(name, text)| {
            name.ends_with(".meta.json") && text.contains("Confirm the lexer panic")
        })
        .map(|(name, _)| name.trim_end_matches(".meta.json"))
        .unwrap();
    let names: Vec<&str> = found.iter().map(|(n, _)| *n).collect();
    let mut expected: Vec<&str> = c
        .files
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !name.starts_with(checker))
        .collect();
    expected.sort();
    assert_eq!(names, expected);
    let msgs = messages(&claude_code::import_with_files(&c.session, &found).unwrap());
    let worker = card_for(&c, &msgs, "Audit the lexer");
    assert_eq!(
        children(&msgs, worker.metadata.tool_call_id.as_deref().unwrap()).len(),
        3
    );
}

/// A qwen-code chat by URL: its subagents' transcripts and sidecars lie in
/// `../subagents/<chat>/`, named by the agent ids its launches give (or
/// qwen's `<type>-<call id>` for a foreground one), found in rounds down to
/// the depth-3 agent; what was fetched reads like the folder.
#[test]
fn a_nested_qwen_code_capture_by_url_fetches_every_subagent_file_in_rounds() {
    let c = taskview_testkit::captures::capture(&format!("{QWEN_CODE}/nested"));
    let found = fetched_by_url(&c);
    let names: Vec<&str> = found.iter().map(|(n, _)| *n).collect();
    let mut expected: Vec<&str> = c.files.iter().map(|(n, _)| n.as_str()).collect();
    expected.sort();
    assert_eq!(names, expected);
    let by_url = LaidOut::new(qwen_code::import_with_files(&c.session, &found).unwrap());
    assert_eq!(by_url.outline(), LaidOut::new(import(&c)).outline());
}

/// A Kimi Code main wire by URL (`…/agents/main/wire.jsonl`): the wires of
/// the subagents its `subagent.spawned` records name lie in
/// `../<agent id>/`; what was fetched reads like the dropped session folder.
#[test]
fn a_kimi_capture_by_url_fetches_every_subagents_wire() {
    let c = taskview_testkit::captures::capture(&format!("{KIMI}/parallel-wave"));
    let found = fetched_by_url(&c);
    let names: Vec<&str> = found.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "../agent-0/wire.jsonl",
            "../agent-1/wire.jsonl",
            "../agent-2/wire.jsonl",
            "../agent-3/wire.jsonl"
        ]
    );
    let by_url = LaidOut::new(import_any_with_files(&c.session, &found).unwrap().events);
    assert_eq!(by_url.outline(), LaidOut::new(import(&c)).outline());
}

/// The Claude ACP adapter's frames (docs/formats.md §7 ACP: what it puts in `_meta` still
/// reads right): every capture reads as ACP with no unreadable row and no
/// wrapper text; each card it carries is a scripted subagent with its type
/// and description, and one that ran in the foreground and completed shows
/// its summary, duration, tokens and model. (The adapter forwards neither a
/// background run's result nor a depth-3 agent: those cards stay as
/// launched, or absent.)
#[test]
fn an_acp_capture_of_the_current_adapter_reads_every_card_it_carries_as_scripted() {
    let all = captures("claude-agent-acp-0.101.0");
    assert!(all.len() >= 10);
    for c in &all {
        let events = read_as(c, Dialect::Acp);
        let msgs = messages(&events);
        for m in &msgs {
            for text in shown_texts(m) {
                assert!(
                    WRAPPERS.iter().all(|w| !text.contains(w)),
                    "{}: {}",
                    c.name,
                    m.id
                );
            }
        }
        let laid = LaidOut::new(events);
        let agents = c.agents();
        for m in cards_of_agents(&msgs) {
            let sa = m.metadata.subagent.as_ref().unwrap();
            let what = format!("{}: {}", c.name, sa.description);
            let agent = agents
                .iter()
                .find(|a| a["description"] == sa.description.as_str())
                .unwrap_or_else(|| panic!("{what}: no such scripted subagent"));
            let card = laid.card(&m.id);
            assert_eq!(card.type_label, agent["type"].as_str().unwrap(), "{what}");
            let foreground = agent["launch"].as_str().unwrap().starts_with("foreground");
            if foreground && agent["status"] == "completed" {
                for id in ["duration", "tokens", "model"] {
                    assert!(chip(&card, id).is_some(), "{what}: {id}");
                }
                let summary = card.result_summary.as_deref().unwrap_or("");
                assert!(
                    !summary.is_empty() && summary != "Summary",
                    "{what}: {summary:?}"
                );
            }
        }
    }
}

/// docs/behaviour.md §7 ("Watching agents at work"): a finished capture's agent is
/// not working, and the same session cut after its first prompt is; for
/// every dialect whose records say so (`import::working`).
#[test]
fn a_captured_session_reads_working_mid_turn_and_done_once_its_turn_ended() {
    use taskview_core::read::import::working::agent_working;
    let mut judged = std::collections::BTreeSet::new();
    for (cli, dialect) in CLIS {
        for c in captures(cli) {
            // An interrupted CLI's files stop mid-turn: nothing ended it.
            if c.manifest.get("interruptedAt").is_some() {
                continue;
            }
            let Some(done) = agent_working(dialect, &c.session) else {
                continue;
            };
            judged.insert(cli);
            assert!(!done, "{}: its last turn ended", c.name);
            let first_line = c.session.lines().next().unwrap_or_default();
            assert_eq!(
                agent_working(dialect, first_line),
                Some(true),
                "{}: a session just begun is working",
                c.name
            );
        }
    }
    assert_eq!(
        judged.into_iter().collect::<Vec<_>>(),
        [
            CLAUDE_CODE,
            CLAUDE_CODE_PINNED,
            CODEX,
            COPILOT,
            KIMI,
            QWEN_CODE
        ]
    );
}
