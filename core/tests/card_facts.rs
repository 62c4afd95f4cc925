//! The card facts of every agent's real captures (tests/fixtures/captures),
//! checked against what the agent itself reported (docs/behaviour.md §5):
//! Claude Code's `result.json` cost and usage, Codex's `exec --json` turns,
//! qwen-code's and Gemini CLI's `result.json` stats, the ACP adapter's own
//! running cost, OpenCode's exports; models the table has no price for
//! (the scripted servers' `mock-model`, `qwen3-coder-plus`) leave the cost
//! incomplete.

use serde_json::Value;
use taskview_core::model::card_facts::{SessionFacts, Spend};
use taskview_core::read::import::card_facts;
use taskview_core::read::import::follow::Follower;
use taskview_core::read::import::import_any_with_files;
use taskview_testkit::captures::{capture, captures, otlp_posts, Capture};

/// The facts of a capture read whole (followed where it can be, else read
/// whole as the server does), its agent no longer working.
fn facts(c: &Capture) -> SessionFacts {
    facts_of(&c.session, &c.file_refs())
}

/// The facts of session `text` with its `files`, as [`facts`] reads them.
fn facts_of(text: &str, files: &[(&str, &str)]) -> SessionFacts {
    let mut follower = Follower::new(None);
    follower.push(text.as_bytes());
    for (path, file) in files {
        follower.push_companion(path, file.as_bytes());
    }
    follower.flush();
    if !follower.needs_reread() {
        return follower.card_facts(false);
    }
    let events = import_any_with_files(text, files).unwrap().events;
    card_facts::whole(text, files, &events, false)
}

/// A capture's harness file (`result.json`, `events.jsonl`).
fn harness(c: &Capture, file: &str) -> Option<String> {
    let path = format!(
        "{}/../tests/fixtures/captures/{}/{file}",
        env!("CARGO_MANIFEST_DIR"),
        c.name
    );
    std::fs::read_to_string(path).ok()
}

fn with(f: &SessionFacts) -> &Spend {
    f.spend_with_subagents.as_ref().expect("a spend")
}

fn own(f: &SessionFacts) -> &Spend {
    f.spend.as_ref().expect("an own spend")
}

#[test]
fn claude_code_priced_from_the_table_is_what_claude_code_recorded() {
    let mut compared = 0;
    for c in captures("claude-code-2.1.332") {
        let Some(result) = harness(&c, "result.json") else {
            continue;
        };
        let Ok(result) = serde_json::from_str::<Value>(&result) else {
            continue;
        };
        let Some(recorded) = result["total_cost_usd"].as_f64() else {
            continue;
        };
        let f = facts(&c);
        let spend = with(&f);
        assert!(spend.estimated, "{}: priced from the table", c.name);
        assert!(f.pricing.as_deref().unwrap().starts_with("genai-prices"));
        if c.name.ends_with("/resumed") {
            // Its /compact summary request wrote no usage: a lower bound,
            // said so, never a silently low figure.
            assert_eq!(spend.unknown_parts, 1, "{}", c.name);
            assert!(spend.usd() < recorded, "{}", c.name);
            continue;
        }
        assert!(!spend.is_partial(), "{}: {spend:?}", c.name);
        assert!(
            (spend.usd() - recorded).abs() < 1e-9,
            "{}: {} ≠ {recorded}",
            c.name,
            spend.usd()
        );
        let usage: u64 = result["modelUsage"]
            .as_object()
            .unwrap()
            .values()
            .map(|m| {
                [
                    "inputTokens",
                    "outputTokens",
                    "cacheReadInputTokens",
                    "cacheCreationInputTokens",
                ]
                .iter()
                .map(|k| m[k].as_u64().unwrap())
                .sum::<u64>()
            })
            .sum();
        assert_eq!(spend.tokens, usage, "{}", c.name);
        assert!(own(&f).tokens < spend.tokens || f.subagents_total == Some(0));
        compared += 1;
    }
    assert!(compared >= 14, "{compared}");
}

#[test]
fn claude_code_a_reply_whose_final_usage_never_came_makes_the_cost_a_lower_bound() {
    // The fork scenario's second fork transcript starts with its parent's
    // reply copied before its usage was final (`stop_reason` null,
    // `output_tokens` 1): read alone, that request's usage is missing.
    let c = capture("claude-code-2.1.332/fork");
    let (_, text) = c
        .file_refs()
        .into_iter()
        .find(|(p, _)| p.ends_with("agent-a6c43d81c3d6e59c9.jsonl"))
        .unwrap();
    let mut follower = Follower::new(None);
    follower.push(text.as_bytes());
    follower.flush();
    let ended = follower.card_facts(false);
    assert_eq!(own(&ended).missing, 1);
    assert!(own(&ended).is_partial());
    // While its agent works, its newest request may still be writing.
    let mut live = Follower::new(None);
    let first = text
        .lines()
        .take_while(|l| !l.contains("msg_01Zb0dW06"))
        .collect::<Vec<_>>();
    live.push(format!("{}\n", first.join("\n")).as_bytes());
    assert_eq!(own(&live.card_facts(true)).missing, 0);
    assert_eq!(own(&live.card_facts(false)).missing, 1);
}

#[test]
fn codex_is_estimated_from_the_table_and_its_own_tokens_are_its_turns() {
    for c in captures("codex-0.171.0") {
        let f = facts(&c);
        assert_eq!(f.agent.as_deref(), Some("Codex"));
        assert_eq!(f.model.as_deref(), Some("gpt-5-codex"), "{}", c.name);
        assert!(with(&f).estimated && !with(&f).is_partial(), "{}", c.name);
        let Some(events) = harness(&c, "events.jsonl") else {
            continue;
        };
        let turns: u64 = events
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["type"] == "turn.completed")
            .map(|e| {
                e["usage"]["input_tokens"].as_u64().unwrap()
                    + e["usage"]["output_tokens"].as_u64().unwrap()
            })
            .sum();
        if c.name.ends_with("/parallel-wave") || c.name.ends_with("/foreground") {
            assert_eq!(own(&f).tokens, turns, "{}", c.name);
        }
    }
    // gpt-5-codex is priced as gpt-5: $1.25 in, $10 out per million.
    let wave = facts(&capture("codex-0.171.0/parallel-wave"));
    let expected = 47_033.0 * 1.25e-6 + 514.0 * 10e-6;
    assert!(
        (own(&wave).usd() - expected).abs() < 1e-9,
        "{}",
        own(&wave).usd()
    );
}

/// qwen-code's and Gemini CLI's `result.json` stats: the main agent's
/// tokens and every model's.
fn stats_tokens(c: &Capture) -> (u64, u64) {
    result_stats(&serde_json::from_str(&harness(c, "result.json").unwrap()).unwrap())
}

/// The main agent's tokens and every model's in a `result.json`'s stats.
fn result_stats(result: &Value) -> (u64, u64) {
    let stats = match result {
        Value::Array(events) => events.last().unwrap()["stats"].clone(),
        doc => doc["stats"].clone(),
    };
    let model = stats["models"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    let main = model
        .get("bySource")
        .map(|b| &b["main"])
        .unwrap_or(&model["roles"]["main"]);
    (
        main["tokens"]["total"].as_u64().unwrap(),
        model["tokens"]["total"].as_u64().unwrap(),
    )
}

#[test]
fn qwen_code_tokens_are_its_stats_and_an_unpriced_model_leaves_the_cost_incomplete() {
    let c = capture("qwen-code-0.24.4/parallel-wave");
    let f = facts(&c);
    let (main, all) = stats_tokens(&c);
    assert_eq!((own(&f).tokens, with(&f).tokens), (main, all));
    assert_eq!(f.model.as_deref(), Some("qwen3-coder-plus"));
    assert_eq!(with(&f).nanos, 0);
    assert_eq!(
        with(&f).unpriced_tokens,
        all,
        "no price for qwen3-coder-plus"
    );
    assert!(with(&f).is_partial() && !with(&f).estimated);
}

#[test]
fn gemini_cli_tokens_are_its_stats_priced_with_their_tier() {
    let c = capture("gemini-cli-0.61.0/parallel-wave");
    let f = facts(&c);
    let (main, all) = stats_tokens(&c);
    assert_eq!((own(&f).tokens, with(&f).tokens), (main, all));
    assert!(with(&f).estimated && !with(&f).is_partial());
    assert!(with(&f).usd() > own(&f).usd());
}

#[test]
fn mock_models_of_copilot_kimi_and_opencode_are_unpriced_never_zero_dollars() {
    for name in [
        "copilot-1.0.102/parallel-wave",
        "kimi-code-2.1.0/parallel-wave",
        "opencode-1.18.33/parallel-wave",
    ] {
        let f = facts(&capture(name));
        let spend = with(&f);
        assert!(spend.tokens > own(&f).tokens, "{name}: subagents counted");
        assert_eq!(
            (spend.nanos, spend.unpriced_tokens),
            (0, spend.tokens),
            "{name}"
        );
        assert!(spend.is_partial(), "{name}");
    }
    // OpenCode's tokens are its exports' messages' own counts.
    let c = capture("opencode-1.18.33/parallel-wave");
    let docs = std::iter::once(c.session.as_str()).chain(c.files.iter().map(|(_, t)| t.as_str()));
    let total: u64 = docs
        .flat_map(|d| {
            serde_json::from_str::<Value>(d).unwrap()["messages"]
                .as_array()
                .unwrap()
                .clone()
        })
        .filter_map(|m| m["info"]["tokens"]["total"].as_u64())
        .sum();
    assert_eq!(with(&facts(&c)).tokens, total);
}

#[test]
fn the_acp_adapters_running_cost_is_recorded_and_its_permission_asks_wait_on_you() {
    let c = capture("claude-agent-acp-0.101.0/foreground");
    let f = facts(&c);
    let last_cost = c
        .session
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["params"]["update"]["cost"]["amount"].as_f64())
        .next_back()
        .unwrap();
    let spend = with(&f);
    assert!((spend.usd() - last_cost).abs() < 1e-9);
    assert!(!spend.estimated && !spend.is_partial());
    assert_eq!(f.spend, None, "the running cost is not split");
    assert_eq!(f.waiting_for, None, "every permission was answered");
    // Cut right after the agent asked: it waits on the user.
    let asked = c.session.find("session/request_permission").unwrap();
    let cut = asked + c.session[asked..].find('\n').unwrap() + 1;
    let mut follower = Follower::new(None);
    follower.push(&c.session.as_bytes()[..cut]);
    assert_eq!(
        follower.card_facts(true).waiting_for.as_deref(),
        Some("permission")
    );
}

#[test]
fn subagents_in_all_are_the_scenarios_launches() {
    for cli in [
        "claude-code-2.1.332",
        "codex-0.171.0",
        "copilot-1.0.102",
        "gemini-cli-0.61.0",
    ] {
        // A workflow's run is a card of its own besides its agents.
        for c in captures(cli)
            .into_iter()
            .filter(|c| !c.name.ends_with("/workflow"))
        {
            if forks(&c) {
                // A fork's card counts the runs its own records launch: the
                // run it inherits is its origin's card's (the board counts
                // each run once), though its transcript shows both.
                assert_eq!(facts(&c).subagents_total, Some(1), "{}", c.name);
                continue;
            }
            let launched = c
                .agents()
                .iter()
                .filter(|a| a["outcome"] != "refused")
                .count() as u64;
            let f = facts(&c);
            let refused = c.manifest["holds"]["refused"]
                .as_array()
                .map_or(0, Vec::len) as u64;
            assert!(
                f.subagents_total == Some(launched)
                    || f.subagents_total == Some(launched - refused),
                "{}: {:?} of {launched}",
                c.name,
                f.subagents_total
            );
        }
    }
}

#[test]
fn the_folder_model_and_last_activity_are_the_records() {
    let f = facts(&capture("claude-code-2.1.332/parallel-wave"));
    assert_eq!(
        f.project.as_deref(),
        Some("/tmp/taskview-captures/claude-code/parallel-wave/parser-kit")
    );
    assert_eq!(f.model.as_deref(), Some("claude-opus-5-5"));
    let newest = capture("claude-code-2.1.332/parallel-wave")
        .session
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["timestamp"].as_str().map(str::to_string))
        .max()
        .unwrap();
    assert_eq!(
        f.last_activity_at.as_deref().map(|t| &t[..19]),
        Some(&newest[..19])
    );
}

#[test]
fn a_subagent_whose_transcript_is_missing_makes_the_cost_with_subagents_a_lower_bound() {
    let mut c = capture("claude-code-2.1.332/parallel-wave");
    let whole = facts(&c);
    let dropped = c
        .files
        .iter()
        .position(|(p, _)| p.ends_with(".jsonl"))
        .unwrap();
    c.files.remove(dropped);
    let f = facts(&c);
    assert_eq!(with(&f).unknown_parts, 1);
    assert!(with(&f).is_partial());
    assert!(with(&f).usd() < with(&whole).usd());
    assert_eq!(own(&f), own(&whole), "its own spend is whole");
}

/// The card facts of a telemetry story's posts, one line each, followed as
/// the receiver's file grows (docs/behaviour.md §7 "OpenTelemetry").
fn telemetry_facts(story: &str) -> SessionFacts {
    let mut follower = Follower::new(None);
    for post in otlp_posts(story) {
        follower.push(format!("{post}\n").as_bytes());
    }
    follower.flush();
    follower.card_facts(false)
}

/// The `result.json` of a telemetry story (the CLI's own report of the run).
fn otlp_result(story: &str) -> Value {
    let path = format!(
        "{}/../tests/fixtures/captures-otlp/{story}/result.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn telemetry_names_its_agent_and_claude_codes_recorded_cost_is_its_own_total() {
    for story in ["parallel-wave", "nested"] {
        let name = format!("claude-code-2.1.332/{story}");
        let f = telemetry_facts(&name);
        assert_eq!(f.agent.as_deref(), Some("Claude Code"), "{name}");
        assert_eq!(f.model.as_deref(), Some("claude-opus-5-5"));
        let result = otlp_result(&name);
        let recorded = result["total_cost_usd"].as_f64().unwrap();
        let spend = with(&f);
        assert!(
            !spend.estimated,
            "{name}: the cost Claude Code recorded wins"
        );
        assert!(
            (spend.usd() - recorded).abs() < 1e-9,
            "{name}: {} ≠ {recorded}",
            spend.usd()
        );
        assert!(own(&f).usd() < spend.usd(), "{name}: subagents apart");
        assert!(f.subagents_total.unwrap() > 0);
    }
}

#[test]
fn telemetry_of_qwen_code_and_copilot_names_them_and_counts_their_tokens() {
    let qwen = telemetry_facts("qwen-code-0.24.4/parallel-wave");
    assert_eq!(qwen.agent.as_deref(), Some("qwen-code"));
    assert_eq!(qwen.model.as_deref(), Some("qwen3-coder-plus"));
    let (main, all) = result_stats(&otlp_result("qwen-code-0.24.4/parallel-wave"));
    assert_eq!((own(&qwen).tokens, with(&qwen).tokens), (main, all));
    assert_eq!(
        with(&qwen).unpriced_tokens,
        all,
        "no price for qwen3-coder-plus"
    );
    let copilot = telemetry_facts("copilot-1.0.102/parallel-wave");
    assert_eq!(copilot.agent.as_deref(), Some("Copilot CLI"));
    assert!(with(&copilot).tokens > 0 && with(&copilot).is_partial());
}

#[test]
fn every_settled_subagent_run_ends_by_the_timelines_rules() {
    // Gemini CLI reports no duration: its runs end when their cards were
    // updated or at their transcripts' last records, never left open.
    for cli in [
        "gemini-cli-0.61.0",
        "claude-code-2.1.332",
        "qwen-code-0.24.4",
        "codex-0.171.0",
    ] {
        for c in captures(cli) {
            let f = facts(&c);
            let interrupted = c.manifest["holds"]["interrupted"]
                .as_array()
                .map_or(0, Vec::len);
            let open = f.runs.iter().filter(|r| r.end.is_none()).count();
            assert!(
                open <= interrupted,
                "{}: {open} runs open of {:?}",
                c.name,
                f.runs
            );
            assert!(f.runs.iter().all(|r| r.end.is_none_or(|e| e >= r.start)));
        }
    }
}

#[test]
fn claude_codes_question_to_the_user_waits_until_its_answer() {
    // A real reply's tool call made an AskUserQuestion (Claude Code's
    // interactive question), then answered by a tool result of its id.
    let c = capture("claude-code-2.1.332/parallel-wave");
    let lines: Vec<Value> = c
        .session
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let asked_at = lines
        .iter()
        .position(|r| r["type"] == "assistant" && r["message"]["content"][0]["type"] == "tool_use")
        .unwrap();
    let mut asked = lines[asked_at].clone();
    asked["message"]["content"][0]["name"] = "AskUserQuestion".into();
    let id = asked["message"]["content"][0]["id"].clone();
    let text = |records: &[Value]| records.iter().map(|r| format!("{r}\n")).collect::<String>();
    let mut follower = Follower::new(None);
    let mut before = lines[..asked_at].to_vec();
    before.push(asked);
    follower.push(text(&before).as_bytes());
    assert_eq!(
        follower.card_facts(true).waiting_for.as_deref(),
        Some("answer")
    );
    let answer = serde_json::json!({"type": "user", "timestamp": "2026-12-06T08:00:00Z",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "yes"}]}});
    follower.push(format!("{answer}\n").as_bytes());
    assert_eq!(follower.card_facts(true).waiting_for, None);
}

#[test]
fn opencodes_store_sessions_cost_what_its_exports_do() {
    let c = capture("opencode-1.18.33/parallel-wave");
    let docs: Vec<Value> = std::iter::once(c.session.as_str())
        .chain(c.files.iter().map(|(_, t)| t.as_str()))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    let events = taskview_core::read::import::opencode::import_sessions(&docs).unwrap();
    let from_store = card_facts::opencode_sessions(&docs, &events, false);
    let exported = facts(&c);
    assert_eq!(from_store.spend, exported.spend);
    assert_eq!(
        from_store.spend_with_subagents,
        exported.spend_with_subagents
    );
    assert_eq!(from_store.subagents_total, exported.subagents_total);
    assert_eq!(from_store.agent.as_deref(), Some("OpenCode"));
}

#[test]
fn a_turn_the_user_stopped_is_interrupted_and_a_new_one_is_not() {
    for name in [
        "codex-0.171.0/interrupted",
        "codex-0.171.0/interrupted-foreground",
        "claude-code-2.1.332/interrupted",
    ] {
        let c = capture(name);
        let ends_aborted =
            c.session.lines().rev().any(|l| {
                l.contains("\"turn_aborted\"") || l.contains("[Request interrupted by user")
            });
        assert_eq!(facts(&c).interrupted, ends_aborted, "{name}");
    }
    let codex = facts(&capture("codex-0.171.0/interrupted"));
    assert!(
        codex.interrupted,
        "Codex wrote turn_aborted as its last word"
    );
    for c in captures("codex-0.171.0")
        .into_iter()
        .filter(|c| !c.name.contains("/interrupted"))
    {
        assert!(!facts(&c).interrupted, "{}", c.name);
    }
}

/// Whether capture `c`'s scenario forks a session into a new one.
fn forks(c: &Capture) -> bool {
    c.manifest["needs"]
        .as_array()
        .is_some_and(|needs| needs.iter().any(|n| n == "session-fork"))
}

#[test]
fn a_forks_copies_of_its_origins_records_cost_nothing_on_its_card() {
    // docs/board.md "Cost": the origin's card counts what its requests spent.
    for name in [
        "claude-code-2.1.337/session-fork",
        "qwen-code-0.24.4/session-fork",
    ] {
        let c = capture(name);
        let copy = |line: &&str| {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                return false;
            };
            let from = v["requestSessionId"].as_str().unwrap_or("");
            (!from.is_empty() && Some(from) != v["sessionId"].as_str())
                || v.get("forkedFrom").is_some()
        };
        let copies = c.session.lines().filter(copy).count();
        assert!(copies > 0, "{name}: the fork holds copies");
        let own: String = c
            .session
            .lines()
            .filter(|l| !copy(l))
            .map(|l| format!("{l}\n"))
            .collect();
        let (forked, alone) = (facts(&c), facts_of(&own, &c.file_refs()));
        let tokens = |f: &SessionFacts| f.spend.as_ref().map(|s| s.tokens);
        assert!(
            tokens(&forked).unwrap_or(0) > 0,
            "{name}: the fork's own requests count"
        );
        assert_eq!(tokens(&forked), tokens(&alone), "{name}: its copies do not");
    }
}
