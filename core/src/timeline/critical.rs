//! Fan-ins and their critical paths (issue 26). A fan-in is a turn of the
//! main conversation, or a run, that waited for its subagents: its
//! foreground runs, in waves of runs that overlap (background runs never held
//! it). A wave ends when its last run ends, so that run set the wave's end:
//! it is on the critical path, and the wait it caused is how much longer the
//! parent waited for it than for the others. The chain of those runs, with
//! the parent's own work between the waves, set the end of the fan-in.

use crate::activity::Millis;
use foldhash::{HashMap, HashMapExt};

/// Who waited.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// A turn of the main conversation (its id, when the source has one).
    Turn(Option<String>),
    /// A run, for the subagents it launched.
    Run(String),
}

/// One fan-in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FanIn {
    pub scope: Scope,
    /// From its first wave's start to its last wave's end.
    pub start: Millis,
    pub end: Millis,
    /// Each wave: when the parent waited on its subagents.
    pub waves: Vec<(Millis, Millis)>,
    /// The critical path: each wave's last run, in order.
    pub path: Vec<String>,
}

impl FanIn {
    /// How long the parent waited on its subagents, all waves together.
    pub fn waited(&self) -> Millis {
        self.waves.iter().map(|(from, to)| to - from).sum()
    }
}

/// A run on a critical path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnPath {
    /// How much longer the parent waited for it than for the rest of its wave
    /// (all of its wave, when it ran alone).
    pub held: Millis,
    /// Its wave's length: how long the parent waited then.
    pub wave: Millis,
}

/// A foreground run waited for: its scope, id and extent (an open run's end
/// is now).
pub type Member = (Scope, String, Millis, Millis);

/// The fan-ins of `members`, in scope order, and the runs on their critical
/// paths.
pub fn fan_ins(members: Vec<Member>) -> (Vec<FanIn>, HashMap<String, OnPath>) {
    let mut by_scope: HashMap<&Scope, Vec<&Member>> = HashMap::new();
    for m in &members {
        by_scope.entry(&m.0).or_default().push(m);
    }
    let mut scopes: Vec<(&Scope, Vec<&Member>)> = by_scope.into_iter().collect();
    scopes.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut fan_ins: Vec<FanIn> = Vec::new();
    let mut on_path = HashMap::new();
    for (scope, mut group) in scopes {
        group.sort_unstable_by(|a, b| (a.2, &a.1).cmp(&(b.2, &b.1)));
        let mut fan_in = FanIn {
            scope: scope.clone(),
            start: group[0].2,
            end: group[0].3,
            waves: Vec::new(),
            path: Vec::new(),
        };
        let mut i = 0;
        while i < group.len() {
            // One wave: runs that overlap the wave so far.
            let (wave_start, mut wave_end) = (group[i].2, group[i].3);
            let mut j = i + 1;
            while group.get(j).is_some_and(|m| m.2 < wave_end) {
                wave_end = wave_end.max(group[j].3);
                j += 1;
            }
            let wave = &group[i..j];
            // The last to end (the first launched of those that tie).
            let last = wave
                .iter()
                .enumerate()
                .max_by_key(|(n, m)| (m.3, std::cmp::Reverse(*n)))
                .map_or(0, |(n, _)| n);
            let others = wave
                .iter()
                .enumerate()
                .filter(|(n, _)| *n != last)
                .map(|(_, m)| m.3)
                .max();
            let critical = wave[last];
            let held = wave_end - others.unwrap_or(critical.2).max(critical.2);
            on_path.insert(
                critical.1.clone(),
                OnPath {
                    held,
                    wave: wave_end - wave_start,
                },
            );
            fan_in.end = fan_in.end.max(wave_end);
            fan_in.waves.push((wave_start, wave_end));
            fan_in.path.push(critical.1.clone());
            i = j;
        }
        fan_ins.push(fan_in);
    }
    (fan_ins, on_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(t: &str) -> Scope {
        Scope::Turn(Some(t.into()))
    }

    fn member(scope: Scope, id: &str, start: Millis, end: Millis) -> Member {
        (scope, id.into(), start, end)
    }

    #[test]
    fn critical_path_of_two_parallel_runs_and_one_serial_is_the_longer_then_the_serial() {
        let (fan_ins, on_path) = fan_ins(vec![
            member(turn("t"), "a", 0, 100),
            member(turn("t"), "b", 10, 60),
            member(turn("t"), "c", 120, 150),
        ]);
        assert_eq!(fan_ins.len(), 1);
        let f = &fan_ins[0];
        assert_eq!(f.path, ["a", "c"]);
        assert_eq!((f.start, f.end), (0, 150));
        assert_eq!(f.waves, [(0, 100), (120, 150)]);
        assert_eq!(
            f.waited(),
            130,
            "the parent's own work between waves is not waiting"
        );
        assert_eq!(
            on_path["a"],
            OnPath {
                held: 40,
                wave: 100
            }
        );
        assert_eq!(
            on_path["c"],
            OnPath { held: 30, wave: 30 },
            "alone: its whole wave"
        );
        assert!(!on_path.contains_key("b"));
    }

    #[test]
    fn nested_runs_are_a_fan_in_of_their_parent_run_apart_from_the_turn() {
        let (fan_ins, on_path) = fan_ins(vec![
            member(turn("t"), "a", 0, 100),
            member(Scope::Run("a".into()), "a1", 10, 40),
            member(Scope::Run("a".into()), "a2", 20, 90),
        ]);
        assert_eq!(fan_ins.len(), 2);
        assert_eq!(fan_ins[0].scope, turn("t"));
        assert_eq!(fan_ins[1].path, ["a2"]);
        assert_eq!(on_path["a2"].held, 50);
        assert!(on_path.contains_key("a"));
    }

    #[test]
    fn runs_that_end_together_put_the_first_launched_on_the_path_holding_nothing() {
        let (fan_ins, on_path) = fan_ins(vec![
            member(turn("t"), "x", 0, 50),
            member(turn("t"), "y", 5, 50),
        ]);
        assert_eq!(fan_ins[0].path, ["x"]);
        assert_eq!(on_path["x"].held, 0);
    }
}
