//! The demo board: four columns and six tasks. Three tasks loop forever
//! (a prompt, thinking, tool calls, then a review wave of parallel subagents
//! whose children stream in, with now and then a failed, nested or
//! background one), so board chips rise and fall within the first seconds.
//! Two tasks hold finished transcripts, one has no session yet.
//!
//! Everything a cycle does is decided by a seeded [`Rng`] before it plays:
//! the same `--seed` gives the same transcripts; `--speed` only scales time.

use super::script::{self, revised, Change, Timeline, Writer};
use crate::clock;
use crate::recordings;
use crate::rng::Rng;
use crate::shutdown::Shutdown;
use crate::state::{session_state, Backend, NewSession};
use serde_json::{json, Value};
use std::sync::Arc;
use taskview_core::model::Author;
use taskview_core::protocol::{StepDto, TaskDto, WorkflowDto};
use tokio::task::JoinHandle;

/// Virtual time of the demo's first live turn: 2026-08-03T10:00:00Z.
pub const EPOCH: u64 = 1_785_751_200_000;

const REVIEW_WAVE: &str = include_str!("../../../tests/fixtures/session-review-wave.json");

const WORKFLOW_ID: &str = "wf-demo";
const WORKSPACE_ID: &str = "ws-demo";

/// Who takes part in a wave, and what they may conclude.
pub struct Reviewer {
    pub kind: &'static str,
    pub description: &'static str,
    pub prompt: &'static str,
    pub verdicts: &'static [&'static str],
}

/// What a looping task does in each cycle.
pub struct Profile {
    pub task_id: &'static str,
    pub session_id: &'static str,
    pub title: &'static str,
    pub prompts: &'static [&'static str],
    /// Smallest and largest wave.
    pub wave: (u64, u64),
    pub reviewers: &'static [Reviewer],
    pub nested_percent: u64,
    pub async_percent: u64,
    pub fail_percent: u64,
}

const REVIEW_PROFILE: Profile = Profile {
    task_id: "task-demo-wave",
    session_id: "sess-demo-wave",
    title: "Review wave on the closure diff",
    prompts: &[
        "Review the closure diff before we merge.",
        "Run the review wave again on the latest push.",
        "Check the retry path once more, then review.",
    ],
    wave: (2, 3),
    reviewers: &[
        Reviewer {
            kind: "code-reviewer",
            description: "Code-reviewer pass over the closure diff",
            prompt: "Review the diff of src/sync for correctness and leaks.",
            verdicts: &[
                "VERDICT: APPROVE\nThe closure now captures the cursor by value.\nNo blocking findings.",
                "VERDICT: REQUEST_CHANGES\nTwo blocking findings in SyncRunner.ts:\n- the retry loop ignores cancellation\n- the cursor is read after the await",
            ],
        },
        Reviewer {
            kind: "test-supervisor",
            description: "Test-supervisor review of new invariant tests",
            prompt: "Check that the new invariant tests fail without the fix.",
            verdicts: &[
                "APPROVE\nAll three tests fail on main and pass on the branch.",
                "REQUEST_CHANGES\nOne test passes on main too: it does not pin the bug.",
            ],
        },
        Reviewer {
            kind: "security-auditor",
            description: "security-auditor: token handling in the sync client",
            prompt: "Look for secrets written to logs or error messages.",
            verdicts: &[
                "VERDICT: APPROVE\nTokens never reach the logger.\n\nChecked: SyncClient.ts, errors.ts.",
            ],
        },
    ],
    nested_percent: 25,
    async_percent: 15,
    fail_percent: 15,
};

const RESEARCH_PROFILE: Profile = Profile {
    task_id: "task-demo-research",
    session_id: "sess-demo-research",
    title: "Research fan-out for the cache layer",
    prompts: &[
        "Find out how the cache is invalidated today.",
        "Survey eviction policies we could use.",
    ],
    wave: (2, 3),
    reviewers: &[
        Reviewer {
            kind: "Explore",
            description: "Explore cache invalidation call sites",
            prompt: "List every place that writes to or clears the cache.",
            verdicts: &["Found 7 call sites.\nThree clear the whole cache on any write."],
        },
        Reviewer {
            kind: "general-purpose",
            description: "Compare LRU and TTL eviction for our access pattern",
            prompt: "Read the access logs summary and compare eviction policies.",
            verdicts: &["LRU wins for the board view.\nTTL is simpler for transcripts."],
        },
        Reviewer {
            kind: "researcher",
            description: "Benchmarks of the current cache",
            prompt: "Run the cache benchmarks and summarise the hit rates.",
            verdicts: &[
                "Hit rate 61% on boards, 93% on transcripts.\nMisses cluster after reconnects.",
            ],
        },
    ],
    nested_percent: 60,
    async_percent: 40,
    fail_percent: 10,
};

const MIGRATION_PROFILE: Profile = Profile {
    task_id: "task-demo-migration",
    session_id: "sess-demo-migration",
    title: "Parallel migration (4 shards)",
    prompts: &["Migrate the message tables, one subagent per shard."],
    wave: (3, 4),
    reviewers: &[
        Reviewer {
            kind: "migration-shard",
            description: "Shard 1: messages 0-250k",
            prompt: "Migrate shard 1 and verify the row counts.",
            verdicts: &["DONE\n250,000 rows migrated, counts match."],
        },
        Reviewer {
            kind: "migration-shard",
            description: "Shard 2: messages 250k-500k",
            prompt: "Migrate shard 2 and verify the row counts.",
            verdicts: &["DONE\n250,000 rows migrated, counts match."],
        },
        Reviewer {
            kind: "migration-shard",
            description: "Shard 3: messages 500k-750k",
            prompt: "Migrate shard 3 and verify the row counts.",
            verdicts: &["DONE\n248,113 rows migrated; 1,887 duplicates skipped."],
        },
        Reviewer {
            kind: "migration-shard",
            description: "Shard 4: messages 750k-1M",
            prompt: "Migrate shard 4 and verify the row counts.",
            verdicts: &["DONE\n250,000 rows migrated, counts match."],
        },
    ],
    nested_percent: 0,
    async_percent: 0,
    fail_percent: 35,
};

/// How many turns a looping session keeps, so a demo left running for
/// days holds a bounded transcript (older turns are deleted, announced).
const KEPT_TURNS: usize = 30;

/// The looping tasks, in the order they start.
pub const LIVE: [&Profile; 3] = [&REVIEW_PROFILE, &RESEARCH_PROFILE, &MIGRATION_PROFILE];

/// The stream scenario's content comes from the same cycles.
pub const STREAM_PROFILE: &Profile = &REVIEW_PROFILE;

const NESTED: Reviewer = Reviewer {
    kind: "general-purpose",
    description: "Trace the callers of the changed function",
    prompt: "Find every caller of runSync and say which ones await it.",
    verdicts: &["4 callers found.\n1 does not await runSync (scheduler.ts:88)."],
};

const FAILURES: [&str; 2] = [
    "ERROR: the test runner was killed (exit 137)\nOut of memory while building the fixture graph.",
    "ERROR: tool budget exhausted after 40 calls\nPartial notes were not saved.",
];

const MODELS: [&str; 3] = [
    "claude-sonnet-4-7",
    "claude-opus-4-8[1m]",
    "claude-haiku-4-5",
];

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

/// One turn of a looping task, starting at virtual time `start`.
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

fn task(id: &str, step: &str, title: &str, state: &str, position: i64) -> TaskDto {
    let now = clock::now();
    TaskDto {
        id: id.to_string(),
        workspace_id: WORKSPACE_ID.into(),
        workflow_id: WORKFLOW_ID.into(),
        workflow_step_id: step.to_string(),
        title: title.to_string(),
        state: state.to_string(),
        priority: "medium".into(),
        position,
        wip_admitted: true,
        created_at: now.clone(),
        updated_at: now,
        ..TaskDto::default()
    }
}

fn session(id: &str, state: &str) -> Option<NewSession> {
    Some(NewSession {
        id: id.to_string(),
        state: state.to_string(),
        derive_activity: true,
    })
}

/// The demo's workflow and its four steps.
fn add_board(backend: &Backend) {
    let now = clock::now();
    let workflow = WorkflowDto {
        id: WORKFLOW_ID.into(),
        workspace_id: WORKSPACE_ID.into(),
        name: "Demo board".into(),
        sort_order: 0,
        created_at: now.clone(),
        updated_at: now,
    };
    let columns = [
        ("step-todo", "Todo", "bg-neutral-400"),
        ("step-progress", "In Progress", "bg-blue-500"),
        ("step-review", "Review", "bg-amber-500"),
        ("step-done", "Done", "bg-green-500"),
    ];
    let steps = columns
        .iter()
        .zip(0..)
        .map(|(&(id, name, color), position)| StepDto {
            id: id.into(),
            workflow_id: WORKFLOW_ID.into(),
            name: name.into(),
            position,
            color: color.into(),
            allow_manual_move: true,
            is_start_step: position == 0,
        })
        .collect();
    backend.add_workflow(workflow, steps);
}

/// Loads the board and the finished transcripts.
pub fn load(backend: &Backend, seed: u64) {
    add_board(backend);
    for (position, profile) in (0..).zip(LIVE) {
        let t = task(
            profile.task_id,
            "step-progress",
            profile.title,
            "IN_PROGRESS",
            position,
        );
        backend.add_task(
            t,
            session(profile.session_id, session_state::WAITING_FOR_INPUT),
        );
    }

    let review = task(
        "task-demo-review",
        "step-review",
        "Harden the sync closure",
        "REVIEW",
        0,
    );
    backend.add_task(
        review,
        session("sess-demo-review", session_state::WAITING_FOR_INPUT),
    );
    if let Err(e) =
        recordings::load_transcript(backend, "sess-demo-review", "task-demo-review", REVIEW_WAVE)
    {
        tracing::error!("the embedded review-wave transcript did not load: {e}");
    }

    let done = task(
        "task-demo-done",
        "step-done",
        "Ship the board subagent chip",
        "COMPLETED",
        0,
    );
    backend.add_task(
        done,
        session("sess-demo-done", session_state::WAITING_FOR_INPUT),
    );
    let profile = Profile {
        task_id: "task-demo-done",
        session_id: "sess-demo-done",
        ..REVIEW_PROFILE
    };
    let mut rng = Rng::new(seed, 100);
    for step in cycle(&mut rng, &profile, 0, EPOCH - 86_400_000, false).into_steps() {
        script::apply(backend, profile.session_id, &step);
    }

    let todo = task(
        "task-demo-todo",
        "step-todo",
        "Write migration notes",
        "TODO",
        0,
    );
    backend.add_task(todo, None);
}

/// Starts the looping tasks, staggered by 700 ms of virtual time.
pub fn spawn(
    backend: &Arc<Backend>,
    seed: u64,
    speed: f64,
    shutdown: &Shutdown,
) -> Vec<JoinHandle<()>> {
    (0..)
        .zip(LIVE)
        .map(|(index, profile)| {
            let backend = Arc::clone(backend);
            let mut shutdown = shutdown.clone();
            tokio::spawn(async move {
                let mut rng = Rng::new(seed, index);
                let mut now = EPOCH + index * 700;
                if !shutdown.sleep(script::scaled(index * 700, speed)).await {
                    return;
                }
                for turn in 0.. {
                    let steps = cycle(&mut rng, profile, turn, now, turn == 0).into_steps();
                    let end = steps.last().map_or(now, |s| s.at);
                    if !script::play(
                        &backend,
                        profile.session_id,
                        &steps,
                        now,
                        speed,
                        &mut shutdown,
                    )
                    .await
                    {
                        return;
                    }
                    backend.update_scenario(|s| s.iterations += 1);
                    backend.trim_turns(profile.session_id, KEPT_TURNS);
                    let pause = rng.range(3_000, 7_000);
                    now = end + pause;
                    if !shutdown.sleep(script::scaled(pause, speed)).await {
                        return;
                    }
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
