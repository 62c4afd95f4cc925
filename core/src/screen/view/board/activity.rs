//! The Activity strip above a board taskview makes (docs/behaviour.md §5):
//! how many agents and subagents ran at once over the last 24 hours, from
//! the runs each task's facts carry (its agent's bursts of records and its
//! subagent cards' spans: the runs the Timeline draws), in 15-minute
//! slots: now, the peak, and each slot's runs by agent and by project.

use super::filter::project_name;
use crate::model::board::Task;
use crate::screen::view::format::count_label;
use std::collections::BTreeMap;

/// The span the strip covers.
pub const SPAN_MS: i64 = 24 * 60 * 60 * 1000;
/// One slot of it.
pub const SLOT_MS: i64 = 15 * 60 * 1000;
/// Slots in the span.
pub const SLOTS: usize = (SPAN_MS / SLOT_MS) as usize;

/// One slot: the most runs at once in it, and their split.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Slot {
    pub running: u64,
    /// `14:00: 6 running · Claude Code 4, Codex 2 · parser-kit 5, web 1`.
    pub title: String,
}

/// The strip.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ActivityView {
    /// Oldest first; the last is now's.
    pub slots: Vec<Slot>,
    pub now: u64,
    pub peak: u64,
    /// `3 running now · peak 9 in 24 h`.
    pub summary: String,
}

/// Runs of `tasks` at once over the 24 hours before `now_ms`.
pub fn activity(
    tasks: impl Iterator<Item = impl std::ops::Deref<Target = Task>>,
    now_ms: i64,
) -> ActivityView {
    let start = now_ms - SPAN_MS;
    let mut counts = vec![0u64; SLOTS];
    let mut by: Vec<BTreeMap<(u8, String), u64>> = vec![BTreeMap::new(); SLOTS];
    for task in tasks {
        let Some(facts) = task.facts.as_ref() else {
            continue;
        };
        let agent = facts.agent.clone().unwrap_or_else(|| "agent".into());
        let project = facts
            .project
            .as_deref()
            .map(project_name)
            .unwrap_or("no project")
            .to_string();
        for run in &facts.runs {
            let end = run.end.unwrap_or(now_ms).min(now_ms);
            if end < start || run.start > now_ms {
                continue;
            }
            let from = ((run.start.max(start) - start) / SLOT_MS) as usize;
            let to = (((end - start) / SLOT_MS) as usize).min(SLOTS - 1);
            for slot in from..=to {
                counts[slot] += 1;
                *by[slot].entry((0, agent.clone())).or_default() += 1;
                *by[slot].entry((1, project.clone())).or_default() += 1;
            }
        }
    }
    let slots: Vec<Slot> = counts
        .iter()
        .zip(&by)
        .enumerate()
        .map(|(i, (&running, split))| Slot {
            running,
            title: slot_title(start + i as i64 * SLOT_MS, running, split),
        })
        .collect();
    let now = counts.last().copied().unwrap_or(0);
    let peak = counts.iter().copied().max().unwrap_or(0);
    ActivityView {
        summary: format!("{now} running now · peak {peak} in 24 h"),
        slots,
        now,
        peak,
    }
}

/// `14:00 UTC: 6 running · Claude Code 4, Codex 2 · parser-kit 5, web 1`.
fn slot_title(at_ms: i64, running: u64, split: &BTreeMap<(u8, String), u64>) -> String {
    let time = crate::model::time::format_millis(at_ms);
    let mut title = format!(
        "{} UTC: {}",
        &time[11..16],
        count_label(running, "run", "runs")
    );
    for kind in [0u8, 1] {
        let mut parts: Vec<(&String, &u64)> = split
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
    use crate::model::card_facts::{Run, SessionFacts};

    const NOW: i64 = 1_796_532_900_000;

    fn task(agent: &str, project: &str, runs: Vec<Run>) -> Task {
        Task {
            facts: Some(SessionFacts {
                agent: Some(agent.into()),
                project: Some(project.into()),
                runs,
                ..SessionFacts::default()
            }),
            ..Task::default()
        }
    }

    #[test]
    fn runs_at_once_now_and_at_their_peak_split_by_agent_and_project() {
        let hour = 3_600_000;
        let tasks = [
            task(
                "Codex",
                "/w/parser-kit",
                vec![
                    Run {
                        start: NOW - 2 * hour,
                        end: Some(NOW - hour),
                    },
                    Run {
                        start: NOW - 2 * hour,
                        end: Some(NOW - hour),
                    },
                    Run {
                        start: NOW - 60_000,
                        end: None,
                    },
                ],
            ),
            task(
                "Claude Code",
                "/w/web",
                vec![Run {
                    start: NOW - 2 * hour,
                    end: Some(NOW - hour),
                }],
            ),
            task(
                "Claude Code",
                "/w/web",
                vec![Run {
                    start: NOW - 3 * SPAN_MS,
                    end: Some(NOW - 2 * SPAN_MS),
                }],
            ),
        ];
        let view = activity(tasks.iter(), NOW);
        assert_eq!(view.slots.len(), SLOTS);
        assert_eq!((view.now, view.peak), (1, 3));
        assert_eq!(view.summary, "1 running now · peak 3 in 24 h");
        let peak = view.slots.iter().find(|s| s.running == 3).unwrap();
        assert!(
            peak.title
                .ends_with("3 runs · Codex 2, Claude Code 1 · parser-kit 2, web 1"),
            "{}",
            peak.title
        );
        assert_eq!(activity(std::iter::empty::<&Task>(), NOW).peak, 0);
    }
}
