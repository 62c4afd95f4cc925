//! One cycle (one turn) of a looping task: a prompt, thinking, tool calls,
//! then a wave of parallel subagents whose children interleave, all decided
//! by the seeded generator before it plays.

use super::profiles::{Profile, Reviewer, FAILURES, MODELS, NESTED};
use crate::sources::scenarios::rng::Rng;
use crate::sources::scenarios::script::{revised, Change, Timeline, Writer};
use serde_json::{json, Value};
use taskview_core::model::message::Author;

/// A tool a step or a subagent child calls.
#[derive(Clone, Copy)]
enum Tool {
    Read(&'static str),
    Exec(&'static str),
    Search(&'static str),
}

const TOOLS: [Tool; 8] = [
    Tool::Read("src/sync/SyncRunner.ts"),
    Tool::Read("src/sync/cursor.ts"),
    Tool::Read("tests/sync/invariants.test.ts"),
    Tool::Exec("npm test -- sync"),
    Tool::Exec("git diff --stat main...HEAD"),
    Tool::Exec("rg -n 'await runSync'"),
    Tool::Search("cursor capture"),
    Tool::Search("invalidateCache("),
];

impl Tool {
    fn message_type(self) -> &'static str {
        match self {
            Tool::Read(_) => "tool_read",
            Tool::Exec(_) => "tool_execute",
            Tool::Search(_) => "tool_search",
        }
    }

    fn title(self) -> String {
        match self {
            Tool::Read(path) => format!("Read {path}"),
            Tool::Exec(command) => command.to_string(),
            Tool::Search(query) => format!("Search {query}"),
        }
    }

    /// `normalized` for this tool, with its output once `done`.
    fn normalized(self, done: bool) -> Value {
        let (kind, mut payload) = match self {
            Tool::Read(path) => ("read_file", json!({ "file_path": path })),
            Tool::Exec(command) => (
                "shell_exec",
                json!({ "command": command, "work_dir": "/home/dev/repo" }),
            ),
            Tool::Search(query) => ("code_search", json!({ "query": query, "path": "src" })),
        };
        if done {
            payload["output"] = match self {
                Tool::Read(_) => {
                    json!({"content": "export function runSync() {\n  …\n}", "line_count": 2, "truncated": false, "language": "typescript"})
                }
                Tool::Exec(_) => {
                    json!({"exit_code": 0, "has_output": true, "stdout_bytes": 412, "stderr_bytes": 0})
                }
                Tool::Search(_) => {
                    json!({"files": ["src/sync/SyncRunner.ts", "src/cache/index.ts"], "file_count": 2, "truncated": false})
                }
            };
        }
        json!({ "kind": kind, kind: payload })
    }
}

/// How a subagent ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Complete,
    Failed,
}

/// Builds one cycle (one turn) of a looping task.
struct Cycle<'a> {
    rng: &'a mut Rng,
    writer: Writer,
    prefix: String,
    serial: usize,
    timeline: Timeline,
}

impl Cycle<'_> {
    fn next_id(&mut self) -> String {
        self.serial += 1;
        format!("{}-{:03}", self.prefix, self.serial)
    }

    fn say(&mut self, at: u64, author: Author, kind: &str, content: &str, metadata: Value) {
        let id = self.next_id();
        let m = self
            .writer
            .message(&id, at, author, kind, content, metadata);
        self.timeline.push(at, Change::Put(Box::new(m)));
    }

    /// A tool call (a child when `parent` is set): pending, then complete.
    /// Returns when it completed.
    fn tool(&mut self, at: u64, parent: Option<&str>) -> u64 {
        let tool = *self.rng.pick(&TOOLS);
        let id = self.next_id();
        let tool_call_id = format!("toolu_{id}");
        let metadata = |status: &str, done: bool| {
            let mut md = json!({
                "tool_call_id": tool_call_id,
                "title": tool.title(),
                "status": status,
                "normalized": tool.normalized(done),
            });
            if let Some(p) = parent {
                md["parent_tool_call_id"] = p.into();
            }
            md
        };
        let title = tool.title();
        let started = self.writer.message(
            &id,
            at,
            Author::Agent,
            tool.message_type(),
            &title,
            metadata("pending", false),
        );
        let done_at = at + self.rng.range(250, 800);
        let done = revised(&started, done_at, &title, metadata("complete", true));
        self.timeline.push(at, Change::Put(Box::new(started)));
        self.timeline.push(done_at, Change::Put(Box::new(done)));
        done_at
    }

    /// A subagent started at `at`: a bare pending frame, then `in_progress`
    /// with its type and prompt, children streaming, then its result.
    /// Returns when it settled.
    fn subagent(
        &mut self,
        at: u64,
        who: &Reviewer,
        parent: Option<&str>,
        outcome: Outcome,
        background: bool,
        may_nest: bool,
    ) -> u64 {
        let id = self.next_id();
        let tool_call_id = format!("toolu_{id}");
        let metadata = |status: &str, title: &str, payload: Value| {
            let mut md = json!({
                "tool_call_id": tool_call_id,
                "title": title,
                "status": status,
                "normalized": { "kind": "subagent_task", "subagent_task": payload },
            });
            if let Some(p) = parent {
                md["parent_tool_call_id"] = p.into();
            }
            md
        };
        let empty = json!({ "description": "", "prompt": "", "subagent_type": "" });
        let pending = self.writer.message(
            &id,
            at,
            Author::Agent,
            "tool_call",
            "Task",
            metadata("pending", "Task", empty),
        );
        let mut described = json!({
            "description": who.description,
            "prompt": who.prompt,
            "subagent_type": who.kind,
            "status": if background { "async_launched" } else { "started" },
        });
        if background {
            described["is_async"] = true.into();
        }
        let running_at = at + self.rng.range(250, 450);
        let running = revised(
            &pending,
            running_at,
            who.description,
            metadata("in_progress", who.description, described.clone()),
        );
        self.timeline.push(at, Change::Put(Box::new(pending)));
        self.timeline
            .push(running_at, Change::Put(Box::new(running.clone())));

        let children = if parent.is_some() {
            self.rng.range(1, 2)
        } else {
            self.rng.range(2, 4)
        };
        let mut cursor = running_at + 300;
        let mut settled = cursor;
        for child in 0..children {
            let done = if may_nest && child == 0 {
                self.subagent(
                    cursor,
                    &NESTED,
                    Some(&tool_call_id),
                    Outcome::Complete,
                    false,
                    false,
                )
            } else {
                self.tool(cursor, Some(&tool_call_id))
            };
            settled = settled.max(done);
            cursor += self.rng.range(500, 1400);
        }
        let end = settled.max(cursor) + self.rng.range(300, 900);
        let (status, payload_status, result) = match outcome {
            Outcome::Complete => ("complete", "completed", *self.rng.pick(who.verdicts)),
            Outcome::Failed => ("error", "failed", *self.rng.pick(&FAILURES)),
        };
        let mut finished = described;
        finished["status"] = payload_status.into();
        finished["agent_id"] = format!("{:012x}", self.rng.next_u64() >> 16).into();
        finished["model"] = (*self.rng.pick(&MODELS)).into();
        finished["duration_ms"] = (end - at).into();
        finished["total_tokens"] = self.rng.range(4_000, 64_000).into();
        finished["tool_use_count"] = (children + self.rng.range(0, 1) * 2).into();
        finished["result_text"] = result.into();
        let done = revised(
            &running,
            end,
            who.description,
            metadata(status, who.description, finished),
        );
        self.timeline.push(end, Change::Put(Box::new(done)));
        end
    }
}

/// One turn of a looping task, starting at time `start` (Unix ms).
/// `quick` keeps the preamble to one tool call (the first cycle, so the
/// first wave starts within about a second).
pub fn cycle(rng: &mut Rng, profile: &Profile, index: u64, start: u64, quick: bool) -> Timeline {
    let turn_id = format!("turn-{}", index + 1);
    let mut c = Cycle {
        writer: Writer {
            session_id: profile.session_id.to_string(),
            task_id: profile.task_id.to_string(),
            turn_id: turn_id.clone(),
        },
        prefix: format!("{}-c{}", profile.session_id, index + 1),
        serial: 0,
        timeline: Timeline::default(),
        rng,
    };
    c.timeline.push(start, Change::StartTurn(turn_id));
    let prompt = *c.rng.pick(profile.prompts);
    c.say(start, Author::User, "message", prompt, json!({}));
    let thinking = "Let me look at the change before asking for reviews.";
    c.say(
        start + 300,
        Author::Agent,
        "thinking",
        "",
        json!({ "thinking": thinking }),
    );
    let tools = if quick { 1 } else { c.rng.range(1, 3) };
    let mut t = start + 600;
    for _ in 0..tools {
        t = c.tool(t, None) + 200;
    }

    let size = c.rng.range(profile.wave.0, profile.wave.1) as usize;
    let size = size.min(profile.reviewers.len());
    let mut order: Vec<usize> = (0..profile.reviewers.len()).collect();
    for i in (1..order.len()).rev() {
        let j = c.rng.range(0, i as u64) as usize;
        order.swap(i, j);
    }
    let last_slot = (size as u64).saturating_sub(1);
    let failing = c
        .rng
        .percent(profile.fail_percent)
        .then(|| c.rng.range(0, last_slot));
    let background = c
        .rng
        .percent(profile.async_percent)
        .then(|| c.rng.range(0, last_slot));
    let nesting = c
        .rng
        .percent(profile.nested_percent)
        .then(|| c.rng.range(0, last_slot));
    let wave_text = format!("Starting a review wave: {size} subagents in parallel.");
    c.say(t, Author::Agent, "message", &wave_text, json!({}));
    let wave_start = t + 200;
    let mut summary = vec!["Review wave finished:".to_string()];
    let mut end = wave_start;
    for (slot, &reviewer) in order.iter().take(size).enumerate() {
        let slot = slot as u64;
        let who = &profile.reviewers[reviewer];
        let outcome = if failing == Some(slot) {
            Outcome::Failed
        } else {
            Outcome::Complete
        };
        let settled = c.subagent(
            wave_start + slot * 300,
            who,
            None,
            outcome,
            background == Some(slot),
            nesting == Some(slot),
        );
        end = end.max(settled);
        let verdict = match outcome {
            Outcome::Complete => "done",
            Outcome::Failed => "failed",
        };
        summary.push(format!("- {}: {verdict}", who.kind));
    }
    c.say(
        end + 500,
        Author::Agent,
        "message",
        &summary.join("\n"),
        json!({}),
    );
    c.timeline.push(end + 800, Change::CompleteTurn(None));
    c.timeline
}
