//! Fan-ins and their critical paths (docs/user-guide.md "The Timeline"). A fan-in is a turn of the
//! main conversation, or a run, that waited for its subagents: its
//! foreground runs and, for a turn, the background runs whose notification
//! woke it (it went on after they ended), in waves of runs that
//! overlap. A wave ends when its last run ends, so that run set the wave's end:
//! it is on the critical path, and the wait it caused is how much longer the
//! parent waited for it than for the others. The chain of those runs, with
//! the parent's own work between the waves, set the end of the fan-in.

use crate::state::activity::Millis;

/// Who waited.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// A turn of the main conversation, by id (`""` when it has none).
    Turn(String),
    /// A run, for the subagents it launched.
    Run(String),
}

/// One fan-in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FanIn {
    /// Each wave: when the parent waited on its subagents. A wave with a
    /// run still going ends at [`Millis::MAX`] (now, when drawn).
    pub waves: Vec<(Millis, Millis)>,
    /// The critical path: each wave's last run, in order.
    pub path: Vec<String>,
}

impl FanIn {
    /// How long the parent waited on its subagents, all waves together, as
    /// of `now`.
    pub fn waited(&self, now: Millis) -> Millis {
        self.waves
            .iter()
            .map(|(from, to)| ((*to).min(now) - from).max(0))
            .sum()
    }
}

/// The waits of fan-ins added up so that one can be taken out again, for
/// [`FanIn::waited`] of them all without reading each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Waits {
    /// The waves that ended, their lengths added up.
    ended: Millis,
    /// The waves still going: how many, and their starts added up.
    going: i64,
    going_since: Millis,
}

impl Waits {
    /// Counts the waves of `f` in (`by` 1) or out (`by` -1).
    pub fn count(&mut self, f: &FanIn, by: i64) {
        for (from, to) in &f.waves {
            if *to == Millis::MAX {
                self.going += by;
                self.going_since += by * from;
            } else {
                self.ended += by * (to - from).max(0);
            }
        }
    }

    /// How long parents waited in all as of `now`, which is no earlier than
    /// any wave's start or end (the session's last moment).
    pub fn waited(&self, now: Millis) -> Millis {
        self.ended + self.going * now - self.going_since
    }
}

/// A run on a critical path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnPath {
    /// When the rest of its wave had ended (its own start when it ran
    /// alone): the parent waited for it alone from then until its end.
    pub since: Millis,
}

impl OnPath {
    /// The wait it caused, for a run ending at `end`.
    pub fn held(&self, end: Millis) -> Millis {
        (end - self.since).max(0)
    }
}

/// The fan-in of the foreground runs one parent waited for (`(id, start,
/// end)`, `end` `None` while it runs), and the runs on its critical path.
pub fn fan_in(
    mut members: Vec<(String, Millis, Option<Millis>)>,
) -> (FanIn, Vec<(String, OnPath)>) {
    members.sort_unstable_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    let end = |m: &(String, Millis, Option<Millis>)| m.2.unwrap_or(Millis::MAX);
    let mut fan_in = FanIn {
        waves: Vec::new(),
        path: Vec::new(),
    };
    let mut on_path = Vec::new();
    let mut i = 0;
    while i < members.len() {
        // One wave: runs that start before the wave so far has ended.
        let (wave_start, mut wave_end) = (members[i].1, end(&members[i]));
        let mut j = i + 1;
        while members.get(j).is_some_and(|m| m.1 < wave_end) {
            wave_end = wave_end.max(end(&members[j]));
            j += 1;
        }
        let wave = &members[i..j];
        // The last to end (the first launched of those that tie).
        let last = wave
            .iter()
            .enumerate()
            .max_by_key(|(n, m)| (end(m), std::cmp::Reverse(*n)))
            .map_or(0, |(n, _)| n);
        let others = wave
            .iter()
            .enumerate()
            .filter(|(n, _)| *n != last)
            .map(|(_, m)| end(m))
            .max();
        let critical = &wave[last];
        let since = others.unwrap_or(critical.1).max(critical.1);
        on_path.push((critical.0.clone(), OnPath { since }));
        fan_in.waves.push((wave_start, wave_end));
        fan_in.path.push(critical.0.clone());
        i = j;
    }
    (fan_in, on_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, start: Millis, end: Millis) -> (String, Millis, Option<Millis>) {
        (id.into(), start, Some(end))
    }

    #[test]
    fn critical_path_of_two_parallel_runs_and_one_serial_is_the_longer_then_the_serial() {
        let (f, on_path) = fan_in(vec![run("a", 0, 100), run("b", 10, 60), run("c", 120, 150)]);
        assert_eq!(f.path, ["a", "c"]);
        assert_eq!(f.waves, [(0, 100), (120, 150)]);
        assert_eq!(
            f.waited(Millis::MAX),
            130,
            "the parent's own work between waves is not waiting"
        );
        let held: Vec<(&str, Millis)> = on_path
            .iter()
            .map(|(id, p)| (id.as_str(), p.held(if id == "a" { 100 } else { 150 })))
            .collect();
        assert_eq!(
            held,
            [("a", 40), ("c", 30)],
            "alone, a run holds its whole wave"
        );
    }

    #[test]
    fn runs_that_end_together_put_the_first_launched_on_the_path_holding_nothing() {
        let (f, on_path) = fan_in(vec![run("x", 0, 50), run("y", 5, 50)]);
        assert_eq!(f.path, ["x"]);
        assert_eq!(on_path[0].1.held(50), 0);
    }

    #[test]
    fn a_run_still_going_sets_its_wave_s_end_until_it_ends() {
        let (f, on_path) = fan_in(vec![run("a", 0, 30), ("b".into(), 10, None)]);
        assert_eq!(f.path, ["b"]);
        assert_eq!(f.waves, [(0, Millis::MAX)]);
        assert_eq!(f.waited(70), 70);
        assert_eq!(on_path[0].1.held(70), 40);
    }
}
