//! Bounded fuzzing of every importer: mutated fixture bytes (truncation, byte
//! flips, deleted, duplicated and spliced lines, JSON values swapped for
//! values of the wrong type) must import without a panic and within a time
//! limit. Case counts are fixed so the whole file runs in seconds.

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::time::Duration;
use taskview_core::read::import::{
    acp, claude_code, copilot, gadget, import_any, import_any_with_files, kandev, kimi, opencode,
    qwen_code,
};
use taskview_testkit::captures::capture;
use taskview_testkit::fixture;

/// Cases per importer; with the per-case limit this bounds the run. Set
/// `IMPORT_FUZZ_CASES` for a longer run.
const CASES: u32 = 192;
/// A case that takes longer than this counts as a hang.
const LIMIT: Duration = Duration::from_secs(10);

const FIXTURES: [&str; 5] = [
    "dialects/acp-frames.jsonl",
    "dialects/claude-code-session.jsonl",
    "dialects/gadget-turns.json",
    "session-review-wave.json",
    "ws-subagent-lifecycle-events.json",
];

/// One change to the input bytes.
#[derive(Clone, Debug)]
enum Mutation {
    Truncate(Index),
    FlipByte(Index, u8),
    InsertBytes(Index, Vec<u8>),
    DeleteLine(Index),
    DuplicateLine(Index),
    SpliceLines { from: Index, to: Index },
    SwapJsonValue { line: Index, path: u64, junk: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => any::<Index>().prop_map(Mutation::Truncate),
        1 => (any::<Index>(), 1..=255u8).prop_map(|(at, bits)| Mutation::FlipByte(at, bits)),
        1 => (any::<Index>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(at, b)| Mutation::InsertBytes(at, b)),
        1 => any::<Index>().prop_map(Mutation::DeleteLine),
        1 => any::<Index>().prop_map(Mutation::DuplicateLine),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(from, to)| Mutation::SpliceLines { from, to }),
        // Type swaps keep the JSON readable, so they reach the folding logic: weigh them up.
        3 => (any::<Index>(), any::<u64>(), any::<usize>())
            .prop_map(|(line, path, junk)| Mutation::SwapJsonValue { line, path, junk }),
    ]
}

/// Values of every JSON type, including shapes the importers look for.
fn junk(n: usize) -> Value {
    let all = [
        Value::Null,
        json!(true),
        json!(0),
        json!(-1),
        json!(1e300),
        json!(18446744073709551615u64),
        json!(""),
        json!("Fork started — processing in background"),
        json!("agentId: x\n<usage>tool_uses: 9</usage>"),
        json!("<task-notification><task-id>a3f9c2e1b7d40c5e8</task-id><result>r</result></task-notification>"),
        json!([]),
        json!({}),
        json!([{"type": "text", "text": "t"}, {"type": "image"}, 3]),
        json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_01Hq3VbAgentTask9x"}),
        json!({"type": "tool_result", "tool_use_id": "toolu_01Kx7TaskBilling3qZ", "content": null}),
        json!({"name": "subagent", "subagent": {"toolCalls": [{"name": "subagent"}]}}),
    ];
    all[n % all.len()].clone()
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match m {
        Mutation::Truncate(at) => bytes.truncate(at.index(bytes.len() + 1)),
        Mutation::FlipByte(at, bits) if !bytes.is_empty() => {
            let i = at.index(bytes.len());
            bytes[i] ^= bits;
        }
        Mutation::InsertBytes(at, extra) => {
            let i = at.index(bytes.len() + 1);
            bytes.splice(i..i, extra.iter().copied());
        }
        Mutation::DeleteLine(at) if !lines.is_empty() => {
            lines.remove(at.index(lines.len()));
            return lines.join("\n");
        }
        Mutation::DuplicateLine(at) if !lines.is_empty() => {
            let i = at.index(lines.len());
            lines.insert(i, lines[i].clone());
            return lines.join("\n");
        }
        Mutation::SpliceLines { from, to } if !lines.is_empty() => {
            let line = lines[from.index(lines.len())].clone();
            let i = to.index(lines.len() + 1);
            lines.insert(i, line);
            return lines.join("\n");
        }
        Mutation::SwapJsonValue {
            line,
            path,
            junk: n,
        } => return swap_json_value(text, *line, *path, junk(*n)),
        _ => {}
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Replaces one value somewhere inside the document (or inside one line of a
/// JSON Lines text) with `replacement`, walking down by `path`.
fn swap_json_value(text: &str, line: Index, mut path: u64, replacement: Value) -> String {
    let walk = |mut v: Value| {
        let mut at = &mut v;
        loop {
            let n = match &*at {
                Value::Array(a) => a.len(),
                Value::Object(o) => o.len(),
                _ => 0,
            };
            let stop = path.is_multiple_of(5);
            path /= 5;
            if n == 0 || stop {
                *at = replacement;
                return v.to_string();
            }
            let i = (path % n as u64) as usize;
            path = path.rotate_right(7);
            at = match at {
                Value::Array(a) => &mut a[i],
                Value::Object(o) => o.values_mut().nth(i).expect("index below len"),
                _ => unreachable!("n > 0 only for containers"),
            };
        }
    };
    if let Ok(doc) = serde_json::from_str::<Value>(text) {
        return walk(doc);
    }
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return text.to_string();
    }
    let i = line.index(lines.len());
    if let Ok(v) = serde_json::from_str::<Value>(&lines[i]) {
        lines[i] = walk(v);
    }
    lines.join("\n")
}

/// Runs `f` on another thread: Err when it panics or outlives `LIMIT`.
fn finishes(f: impl FnOnce() + Send + 'static) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let ok = catch_unwind(AssertUnwindSafe(f)).is_ok();
        let _ = tx.send(ok);
    });
    match rx.recv_timeout(LIMIT) {
        Ok(true) => Ok(()),
        Ok(false) => Err("the importer panicked".into()),
        Err(_) => Err(format!("the importer did not finish within {LIMIT:?}")),
    }
}

fn mutated(fixture_index: Index, mutations: &[Mutation]) -> String {
    let mut text = fixture(FIXTURES[fixture_index.index(FIXTURES.len())]);
    for m in mutations {
        text = apply(&text, m);
    }
    text
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("IMPORT_FUZZ_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(CASES),
        max_shrink_iters: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn acp_import_survives_mutated_input(which in any::<Index>(), ms in prop::collection::vec(mutation(), 1..6)) {
        let text = mutated(which, &ms);
        prop_assert_eq!(finishes(move || { let _ = acp::import(&text); }), Ok(()));
    }

    #[test]
    fn claude_code_import_survives_mutated_input(
        which in any::<Index>(),
        ms in prop::collection::vec(mutation(), 1..6),
        child_ms in prop::collection::vec(mutation(), 0..3),
    ) {
        let text = mutated(which, &ms);
        let child = {
            let mut c = fixture("dialects/claude-code-session.jsonl");
            for m in &child_ms {
                c = apply(&c, m);
            }
            c
        };
        prop_assert_eq!(finishes(move || {
            let _ = claude_code::import_with_files(&text, &[("subagents/agent-a3f9c2e1b7d40c5e8.jsonl", &child)]);
        }), Ok(()));
    }

    #[test]
    fn qwen_code_import_survives_mutated_input(
        ms in prop::collection::vec(mutation(), 1..6),
        child_ms in prop::collection::vec(mutation(), 0..3),
    ) {
        // A real chat with its subagents' transcripts and sidecars.
        let chat = capture("qwen-code-0.24.4/parallel-wave");
        let mut text = chat.session.clone();
        for m in &ms {
            text = apply(&text, m);
        }
        let files: Vec<(String, String)> = chat
            .files
            .iter()
            .map(|(name, file)| (name.clone(), child_ms.iter().fold(file.clone(), |f, m| apply(&f, m))))
            .collect();
        prop_assert_eq!(finishes(move || {
            let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
            let _ = qwen_code::import_with_files(&text, &refs);
        }), Ok(()));
    }

    #[test]
    fn copilot_import_survives_mutated_input(ms in prop::collection::vec(mutation(), 1..6)) {
        // A real session: a background lead, sync workers, a depth-3 checker.
        let mut text = capture("copilot-1.0.102/nested").session;
        for m in &ms {
            text = apply(&text, m);
        }
        prop_assert_eq!(finishes(move || { let _ = copilot::import(&text); }), Ok(()));
    }

    #[test]
    fn kimi_import_survives_mutated_input(ms in prop::collection::vec(mutation(), 1..6), in_child in any::<bool>()) {
        // A real session folder: a failing wave, its agents' wires beside the main one.
        let c = capture("kimi-code-2.1.0/failures");
        let (mut main, mut files) = (c.session.clone(), c.files.clone());
        for m in &ms {
            if in_child {
                files[0].1 = apply(&files[0].1, m);
            } else {
                main = apply(&main, m);
            }
        }
        prop_assert_eq!(finishes(move || {
            let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
            let _ = kimi::import_with_files(&main, &refs);
        }), Ok(()));
    }

    #[test]
    fn opencode_import_survives_mutated_input(
        ms in prop::collection::vec(mutation(), 1..6),
        child_ms in prop::collection::vec(mutation(), 0..3),
    ) {
        // A real three-deep tree: the root session's export and its descendants'.
        let exports: Vec<&str> = taskview_testkit::fixtures::fixtures_under("captures/opencode-1.18.33/nested/exports/")
            .map(|(_, text)| text)
            .collect();
        let root = exports
            .iter()
            .position(|t| serde_json::from_str::<Value>(t).is_ok_and(|d| d["info"]["parentID"].is_null()))
            .expect("a root session");
        let text = ms.iter().fold(exports[root].to_string(), |t, m| apply(&t, m));
        let files: Vec<(String, String)> = exports
            .iter()
            .enumerate()
            .filter(|(at, _)| *at != root)
            .map(|(at, file)| (format!("{at}.json"), child_ms.iter().fold(file.to_string(), |f, m| apply(&f, m))))
            .collect();
        prop_assert_eq!(finishes(move || {
            let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
            let _ = opencode::import_with_files(&text, &refs);
            let _ = opencode::companion_paths(&text, &refs);
        }), Ok(()));
    }

    #[test]
    fn gadget_import_survives_mutated_input(which in any::<Index>(), ms in prop::collection::vec(mutation(), 1..6)) {
        let text = mutated(which, &ms);
        prop_assert_eq!(finishes(move || { let _ = gadget::import(&text); }), Ok(()));
    }

    #[test]
    fn kandev_import_survives_mutated_input(which in any::<Index>(), ms in prop::collection::vec(mutation(), 1..6)) {
        let text = mutated(which, &ms);
        prop_assert_eq!(finishes(move || { let _ = kandev::import(&text); }), Ok(()));
    }

    #[test]
    fn import_any_survives_mutated_input(which in any::<Index>(), ms in prop::collection::vec(mutation(), 1..6)) {
        let text = mutated(which, &ms);
        prop_assert_eq!(finishes(move || {
            let _ = import_any(&text);
            let _ = import_any_with_files(&text, &[("agent-x.jsonl", &text)]);
        }), Ok(()));
    }
}

#[test]
fn adversarial_shapes_import_quickly_and_safely() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_object = format!("{}1{}", "{\"a\":".repeat(50_000), "}".repeat(50_000));
    let chunk = json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s",
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}}})
    .to_string();
    let many_chunks = vec![chunk; 50_000].join("\n");
    let huge_text = json!({"type": "user", "uuid": "u", "sessionId": "s",
        "message": {"role": "user", "content": "y".repeat(4 << 20)}})
    .to_string();
    let mut nested = json!({"callId": "leaf", "name": "grep", "response": "r"});
    for depth in 0..40 {
        nested = json!({"callId": format!("c{depth}"), "name": "subagent", "response": "",
                        "subagent": {"response": "r", "toolCalls": [nested]}});
    }
    let nested_turns = json!({"turns": [{"turnId": "t", "toolCalls": [nested]}]}).to_string();
    let same_prompt_tasks_and_chains = (0..10_000)
        .flat_map(|i| {
            [
                json!({"type": "assistant", "uuid": format!("a{i}"), "sessionId": "s",
                       "message": {"id": format!("m{i}"), "content": [{"type": "tool_use", "id": format!("t{i}"),
                           "name": "Task", "input": {"prompt": "p", "description": "d"}}]}}),
                json!({"type": "user", "uuid": format!("s{i}"), "isSidechain": true, "sessionId": "s",
                       "message": {"role": "user", "content": "p"}}),
            ]
        })
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let one_message_many_blocks = (0..10_000)
        .map(|i| {
            json!({"type": "assistant", "uuid": format!("a{i}"), "sessionId": "s",
                   "message": {"id": "msg_same", "content": [{"type": "text", "text": format!("block {i}")}]}})
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n");
    let same_call_ids = json!({"turns": [{"turnId": "t",
        "toolCalls": vec![json!({"callId": "dup", "name": "grep", "response": "r"}); 10_000]}]})
    .to_string();
    for text in [
        deep,
        deep_object,
        many_chunks,
        huge_text,
        nested_turns,
        same_prompt_tasks_and_chains,
        one_message_many_blocks,
        same_call_ids,
    ] {
        let len = text.len();
        assert_eq!(
            finishes(move || {
                let _ = import_any(&text);
            }),
            Ok(()),
            "input of {len} bytes"
        );
    }
}
