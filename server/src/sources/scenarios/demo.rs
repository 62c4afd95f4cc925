//! The demo board: four columns and six tasks. Three tasks loop forever
//! (a prompt, thinking, tool calls, then a review wave of parallel subagents
//! whose children stream in, with now and then a failed, nested or
//! background one), so board chips rise and fall within the first seconds.
//! Three tasks hold finished transcripts (one shows the seeds' patterns:
//! spilled outputs, typed conclusions with provenance, context isolation and
//! forks, one of them still running in the background), one has no session yet.
//!
//! Everything a cycle does is decided by a seeded [`Rng`] before it plays:
//! the same `--seed` gives the same transcripts. Every timestamp is read
//! from the backend's clock, which starts at the wall time and runs
//! `--speed` times as fast: the first live turn starts when the server does.

mod cycle;
mod profiles;

pub use cycle::cycle;
pub use profiles::{Profile, STREAM_PROFILE};

use super::script;
use crate::backend::{Backend, NewSession};
use crate::clock;
use crate::shutdown::Shutdown;
use crate::sources::recordings;
use crate::sources::scenarios::rng::Rng;
use profiles::{LIVE, REVIEW_PROFILE};
use serde_json::Value;
use std::sync::Arc;
use taskview_core::model::time::parse_rfc3339;
use taskview_core::read::protocol::{StepDto, TaskDto, WorkflowDto};
use tokio::task::JoinHandle;

const REVIEW_WAVE: &str = include_str!("../../../../tests/fixtures/session-review-wave.json");
const SEED_PATTERNS: &str = include_str!("../../../../tests/fixtures/session-seed-patterns.json");

const WORKFLOW_ID: &str = "wf-demo";
const WORKSPACE_ID: &str = "ws-demo";

/// How many turns a looping session keeps, so a demo left running for
/// days holds a bounded transcript (older turns are deleted, announced).
const KEPT_TURNS: usize = 30;

/// How long before the demo starts its two finished transcripts began.
const REVIEW_AGO_MS: u64 = 2 * 3_600_000;
const DONE_AGO_MS: u64 = 86_400_000;

/// The task showing the seeds' subagent patterns, second in Review.
const SEEDS: Card<'static> = (
    "task-demo-seeds",
    "step-review",
    "Find the freight-damage policy",
    "REVIEW",
    Some("sess-demo-seeds"),
);

/// How long before the demo starts the seeds' transcript began.
const SEEDS_AGO_MS: u64 = 3_600_000;

/// A task of the demo board: id, column, title, state, and its session (waiting
/// for input) when it has one.
type Card<'a> = (&'a str, &'a str, &'a str, &'a str, Option<&'a str>);

/// The tasks beside the looping ones, each first in its column.
const SETTLED: [Card<'static>; 3] = [
    (
        "task-demo-review",
        "step-review",
        "Harden the sync closure",
        "REVIEW",
        Some("sess-demo-review"),
    ),
    (
        "task-demo-done",
        "step-done",
        "Ship the board subagent chip",
        "COMPLETED",
        Some("sess-demo-done"),
    ),
    (
        "task-demo-todo",
        "step-todo",
        "Write migration notes",
        "TODO",
        None,
    ),
];

/// Adds a task of the demo board at `position` in its column.
fn add_task(backend: &Backend, (id, step, title, state, session): Card, position: i64) {
    let task = TaskDto {
        id: id.to_string(),
        workspace_id: WORKSPACE_ID.into(),
        workflow_id: WORKFLOW_ID.into(),
        workflow_step_id: step.to_string(),
        title: title.to_string(),
        state: state.to_string(),
        priority: "medium".into(),
        position,
        wip_admitted: true,
        ..TaskDto::default()
    };
    backend.add_task(task, session.map(|id| NewSession::waiting(id, true)));
}

/// The demo's workflow and its four steps.
fn add_board(backend: &Backend) {
    let workflow = WorkflowDto {
        id: WORKFLOW_ID.into(),
        workspace_id: WORKSPACE_ID.into(),
        name: "Demo board".into(),
        ..WorkflowDto::default()
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

/// Loads the board and the finished transcripts, dated by the backend's clock.
pub fn load(backend: &Backend, seed: u64) {
    let start = backend.clock().now_ms();
    add_board(backend);
    for (position, p) in (0..).zip(LIVE) {
        let card = (
            p.task_id,
            "step-progress",
            p.title,
            "IN_PROGRESS",
            Some(p.session_id),
        );
        add_task(backend, card, position);
    }
    for card in SETTLED {
        add_task(backend, card, 0);
    }
    add_task(backend, SEEDS, 1);
    let wave = moved_to(REVIEW_WAVE, start.saturating_sub(REVIEW_AGO_MS));
    if let Err(e) =
        recordings::load_transcript(backend, "sess-demo-review", "task-demo-review", &wave)
    {
        tracing::error!("the embedded review-wave transcript did not load: {e}");
    }
    let seeds = moved_to(SEED_PATTERNS, start.saturating_sub(SEEDS_AGO_MS));
    if let Err(e) =
        recordings::load_transcript(backend, "sess-demo-seeds", "task-demo-seeds", &seeds)
    {
        tracing::error!("the embedded seed-patterns transcript did not load: {e}");
    }

    let profile = Profile {
        task_id: "task-demo-done",
        session_id: "sess-demo-done",
        ..REVIEW_PROFILE
    };
    let mut rng = Rng::new(seed, 100);
    let done_at = start.saturating_sub(DONE_AGO_MS);
    for step in cycle(&mut rng, &profile, 0, done_at, false).into_steps() {
        script::apply(backend, profile.session_id, &step);
    }
}

/// A recorded kandev document with every `*_at` timestamp moved by the same
/// amount, so that its earliest one is `start_ms`. Text that is not JSON is
/// returned as it is.
fn moved_to(text: &str, start_ms: u64) -> String {
    let Ok(mut doc) = serde_json::from_str::<Value>(text) else {
        return text.to_string();
    };
    let mut earliest = None;
    visit_times(&mut doc, &mut |ms| {
        earliest = Some(earliest.map_or(ms, |e: i128| e.min(ms)));
        ms
    });
    let Some(earliest) = earliest else {
        return text.to_string();
    };
    let shift = i128::from(start_ms) - earliest;
    visit_times(&mut doc, &mut |ms| ms + shift);
    doc.to_string()
}

/// Calls `f` with every `*_at` timestamp of `v` in Unix milliseconds and
/// writes back what it returns.
fn visit_times(v: &mut Value, f: &mut impl FnMut(i128) -> i128) {
    match v {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                let ms = value
                    .as_str()
                    .and_then(parse_rfc3339)
                    .map(|ns| ns / 1_000_000);
                match ms {
                    Some(ms) if key.ends_with("_at") => {
                        let moved = u64::try_from(f(ms)).unwrap_or(0);
                        *value = clock::rfc3339_ms(moved).into();
                    }
                    _ => visit_times(value, f),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| visit_times(item, f)),
        _ => {}
    }
}

/// The turns of one looping task, each as the steps it plays, from `start`
/// (Unix ms) with a pause of 3 to 7 s between turns. Endless.
pub struct Turns {
    profile: &'static Profile,
    rng: Rng,
    turn: u64,
    start: u64,
}

impl Turns {
    /// The turns of the `index`th looping task, the first starting 700 ms
    /// per index after `origin`.
    pub fn of(index: u64, seed: u64, origin: u64) -> Option<Turns> {
        let profile = LIVE.get(usize::try_from(index).ok()?)?;
        Some(Turns {
            profile,
            rng: Rng::new(seed, index),
            turn: 0,
            start: origin + index * 700,
        })
    }

    /// The looping task's profile.
    pub fn profile(&self) -> &'static Profile {
        self.profile
    }
}

impl Iterator for Turns {
    type Item = Vec<script::Step>;

    fn next(&mut self) -> Option<Self::Item> {
        let first = self.turn == 0;
        let steps = cycle(&mut self.rng, self.profile, self.turn, self.start, first).into_steps();
        let end = steps.last().map_or(self.start, |s| s.at);
        self.turn += 1;
        self.start = end + self.rng.range(3_000, 7_000);
        Some(steps)
    }
}

/// Starts the looping tasks, each turn played on the backend's clock.
pub fn spawn(backend: &Arc<Backend>, seed: u64, shutdown: &Shutdown) -> Vec<JoinHandle<()>> {
    let origin = backend.clock().now_ms();
    (0..)
        .map_while(|index| Turns::of(index, seed, origin))
        .map(|turns| {
            let backend = Arc::clone(backend);
            let mut shutdown = shutdown.clone();
            tokio::spawn(async move {
                let session_id = turns.profile().session_id;
                for steps in turns {
                    if !script::play(&backend, session_id, &steps, &mut shutdown).await {
                        return;
                    }
                    backend.update_scenario(|s| s.iterations += 1);
                    backend.trim_turns(session_id, KEPT_TURNS);
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
