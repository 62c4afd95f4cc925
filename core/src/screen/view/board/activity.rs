//! The Activity strip above a board taskview makes (docs/behaviour.md §5):
//! how many agents and subagents ran over the last 24 hours, from the runs
//! each task's facts carry (its agent's bursts of records and its subagents'
//! runs, ended by the Timeline's rules), in quarter hours of the clock:
//! running now, the busiest quarter hour, and each one's runs by agent and
//! by project. The quarter hours are kept as tasks come and change
//! ([`ActivitySlots::add`], [`ActivitySlots::remove`]): a change costs its
//! task's runs, never the board's.

use super::filter::project_name;
use crate::model::board::Task;
use crate::model::card_facts::Run;
use crate::model::time::format_millis;
use crate::screen::view::format::count_label;
use std::collections::BTreeMap;

/// The span the strip covers.
pub const SPAN_MS: i64 = 24 * 60 * 60 * 1000;
/// One slot of it: a quarter hour of the clock.
pub const SLOT_MS: i64 = 15 * 60 * 1000;
/// Slots in the span (the last one is the quarter hour under way).
pub const SLOTS: usize = (SPAN_MS / SLOT_MS) as usize;

/// One slot: the runs in it, and their split.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Slot {
    pub running: u64,
    /// `14:00–14:15 UTC: 6 runs · Claude Code 4, Codex 2 · parser-kit 5, web 1`.
    pub title: String,
}

/// The strip.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ActivityView {
    /// Oldest first; the last is the quarter hour under way.
    pub slots: Vec<Slot>,
    pub now: u64,
    pub peak: u64,
    /// `3 running now · peak 9 runs in a quarter hour`.
    pub summary: String,
}

/// What one task adds to the strip: its runs, by agent and project.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskRuns {
    agent: String,
    project: String,
    /// Runs that ended (or whose end is known).
    closed: Vec<(i64, i64)>,
    /// Starts of the runs still going (its agent is at work).
    open: Vec<i64>,
}

impl TaskRuns {
    /// The runs of `task`; `at_work`: its agent works, so the runs that
    /// reach its newest record (its current burst, its subagents not settled)
    /// go on; otherwise a run with no end ended at its newest record.
    pub fn of(task: &Task, at_work: bool) -> TaskRuns {
        let Some(facts) = task.facts.as_ref() else {
            return TaskRuns::default();
        };
        let newest = facts
            .runs
            .iter()
            .map(|r| r.end.unwrap_or(r.start))
            .max()
            .unwrap_or(i64::MIN);
        let mut runs = TaskRuns {
            agent: facts.agent.clone().unwrap_or_else(|| "agent".into()),
            project: facts
                .project
                .as_deref()
                .map(project_name)
                .unwrap_or("no project")
                .to_string(),
            ..TaskRuns::default()
        };
        for &Run { start, end } in &facts.runs {
            match end {
                _ if at_work && end.is_none_or(|e| e >= newest) => runs.open.push(start),
                end => runs.closed.push((start, end.unwrap_or(newest).max(start))),
            }
        }
        runs
    }
}

/// Runs in one quarter hour, and their split by agent (0) and project (1).
#[derive(Clone, Debug, Default)]
struct Count {
    runs: u64,
    by: BTreeMap<(u8, String), u64>,
}

/// The runs of a board's tasks by quarter hour of the clock.
#[derive(Clone, Debug, Default)]
pub struct ActivitySlots {
    /// Quarter hour (ms / [`SLOT_MS`]) → the closed runs in it.
    closed: BTreeMap<i64, Count>,
    /// The open runs, each counted from its start to now.
    open: Vec<(i64, String, String)>,
}

/// The quarter hours a run from `start` to `end` is in, at most a span's.
fn quarters(start: i64, end: i64) -> std::ops::RangeInclusive<i64> {
    let last = end.div_euclid(SLOT_MS);
    let first = start.div_euclid(SLOT_MS).max(last - SLOTS as i64);
    first..=last
}

impl ActivitySlots {
    /// Counts `runs` in (`sign` 1) or out (-1).
    fn count(&mut self, runs: &TaskRuns, sign: i64) {
        for &(start, end) in &runs.closed {
            for q in quarters(start, end) {
                let count = self.closed.entry(q).or_default();
                count.runs = count.runs.saturating_add_signed(sign);
                for key in [(0, runs.agent.clone()), (1, runs.project.clone())] {
                    let n = count.by.entry(key.clone()).or_default();
                    *n = n.saturating_add_signed(sign);
                    if *n == 0 {
                        count.by.remove(&key);
                    }
                }
                if count.runs == 0 {
                    self.closed.remove(&q);
                }
            }
        }
    }

    /// Adds a task's runs.
    pub fn add(&mut self, runs: &TaskRuns) {
        self.count(runs, 1);
        for &start in &runs.open {
            self.open
                .push((start, runs.agent.clone(), runs.project.clone()));
        }
    }

    /// Takes back what [`ActivitySlots::add`] added for `runs`.
    pub fn remove(&mut self, runs: &TaskRuns) {
        self.count(runs, -1);
        for &start in &runs.open {
            let same = |o: &(i64, String, String)| {
                o.0 == start && o.1 == runs.agent && o.2 == runs.project
            };
            if let Some(at) = self.open.iter().position(same) {
                self.open.swap_remove(at);
            }
        }
    }

    /// The strip of the 24 hours up to `now_ms`.
    pub fn view(&self, now_ms: i64) -> ActivityView {
        let last = now_ms.div_euclid(SLOT_MS);
        let first = last - SLOTS as i64 + 1;
        let mut counts: Vec<Count> = (first..=last)
            .map(|q| self.closed.get(&q).cloned().unwrap_or_default())
            .collect();
        for (start, agent, project) in &self.open {
            for q in quarters(*start, now_ms).filter(|q| *q >= first) {
                let count = &mut counts[(q - first) as usize];
                count.runs += 1;
                *count.by.entry((0, agent.clone())).or_default() += 1;
                *count.by.entry((1, project.clone())).or_default() += 1;
            }
        }
        let slots: Vec<Slot> = counts
            .iter()
            .zip(first..)
            .map(|(count, q)| Slot {
                running: count.runs,
                title: slot_title(q * SLOT_MS, count),
            })
            .collect();
        let now = self.open.iter().filter(|(s, ..)| *s <= now_ms).count() as u64;
        let peak = counts.iter().map(|c| c.runs).max().unwrap_or(0);
        ActivityView {
            summary: format!(
                "{now} running now · peak {} in a quarter hour",
                count_label(peak, "run", "runs")
            ),
            slots,
            now,
            peak,
        }
    }
}

/// `14:00–14:15 UTC: 6 runs · Claude Code 4, Codex 2 · parser-kit 5, web 1`.
fn slot_title(at_ms: i64, count: &Count) -> String {
    let (from, to) = (format_millis(at_ms), format_millis(at_ms + SLOT_MS));
    let mut title = format!(
        "{}–{} UTC: {}",
        &from[11..16],
        &to[11..16],
        count_label(count.runs, "run", "runs")
    );
    for kind in [0u8, 1] {
        let mut parts: Vec<(&String, &u64)> = count
            .by
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|((_, n), c)| (n, c))
            .collect();
        parts.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        if !parts.is_empty() {
            let words: Vec<String> = parts.iter().map(|(n, c)| format!("{n} {c}")).collect();
            title.push_str(&format!(" · {}", words.join(", ")));
        }
    }
    title
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::card_facts::SessionFacts;

    /// A quarter hour's start, so the runs below fall in known slots.
    const NOW: i64 = 1_796_532_300_000 + 7 * 60_000;
    const HOUR: i64 = 3_600_000;

    fn task(agent: &str, project: &str, runs: Vec<(i64, Option<i64>)>) -> Task {
        Task {
            facts: Some(SessionFacts {
                agent: Some(agent.into()),
                project: Some(project.into()),
                runs: runs
                    .into_iter()
                    .map(|(start, end)| Run { start, end })
                    .collect(),
                ..SessionFacts::default()
            }),
            ..Task::default()
        }
    }

    #[test]
    fn runs_now_and_at_their_peak_split_by_agent_and_project() {
        let codex = task(
            "Codex",
            "/w/parser-kit",
            vec![
                (NOW - 2 * HOUR, Some(NOW - HOUR)),
                (NOW - 2 * HOUR, Some(NOW - HOUR)),
                (NOW - 60_000, None),
            ],
        );
        let claude = task(
            "Claude Code",
            "/w/web",
            vec![(NOW - 2 * HOUR, Some(NOW - HOUR))],
        );
        let old = task(
            "Claude Code",
            "/w/web",
            vec![(NOW - 3 * SPAN_MS, Some(NOW - 2 * SPAN_MS))],
        );
        let mut slots = ActivitySlots::default();
        for (t, at_work) in [(&codex, true), (&claude, false), (&old, false)] {
            slots.add(&TaskRuns::of(t, at_work));
        }
        let view = slots.view(NOW);
        assert_eq!(view.slots.len(), SLOTS);
        assert_eq!((view.now, view.peak), (1, 3));
        assert_eq!(
            view.summary,
            "1 running now · peak 3 runs in a quarter hour"
        );
        let peak = view.slots.iter().find(|s| s.running == 3).unwrap();
        assert!(
            peak.title
                .ends_with("UTC: 3 runs · Codex 2, Claude Code 1 · parser-kit 2, web 1"),
            "{}",
            peak.title
        );
        assert_eq!(view.slots.last().unwrap().running, 1, "the run under way");
        assert_eq!(ActivitySlots::default().view(NOW).peak, 0);
    }

    #[test]
    fn a_task_taken_back_leaves_nothing_and_an_idle_ones_runs_end() {
        let busy = task(
            "Codex",
            "/w/a",
            vec![(NOW - HOUR, Some(NOW - 100)), (NOW - 50_000, None)],
        );
        let mut slots = ActivitySlots::default();
        let runs = TaskRuns::of(&busy, true);
        slots.add(&runs);
        assert_eq!(slots.view(NOW).now, 2, "both reach its newest record");
        slots.remove(&runs);
        assert!(slots.closed.is_empty() && slots.open.is_empty());
        // Not at work: an unsettled run ended with its newest record.
        let idle = TaskRuns::of(&busy, false);
        slots.add(&idle);
        let view = slots.view(NOW + HOUR);
        assert_eq!(view.now, 0);
        assert!(view.peak >= 1);
        assert!(view.slots[0].title.contains("–"), "{}", view.slots[0].title);
    }
}
