//! What a [`Timeline`] answers about what it holds: its runs, turns,
//! curve, bounds, fan-ins, critical path and rows, as of its last update.

use super::*;

impl Timeline {
    /// Whether a run is still going.
    pub fn is_going(&self) -> bool {
        !self.going.is_empty()
    }

    /// Every run, by message id.
    pub fn runs(&self) -> &HashMap<String, Run> {
        &self.runs
    }

    /// When turn `turn` last went on: its last record that is not a
    /// subagent card.
    pub(super) fn turn_went_on(&self, turn: &str) -> Option<Millis> {
        self.turn_went_on.get(turn).copied()
    }

    /// The main conversation's turns, `(turn id, first, last)`, in time order.
    pub fn turns(&self) -> &Intervals {
        &self.turn_list
    }

    /// When the main conversation's turns waited on their subagents, as of
    /// the last [`Timeline::prepare`], keyed by turn.
    pub fn turn_waves(&self) -> &Intervals {
        &self.turn_waves
    }

    /// Where an open run ends now: the source's time now (`source_now`), but
    /// never before its start or its last record.
    pub fn open_end(run: &Run, source_now: Option<Millis>) -> Millis {
        let last = run.span.last.map(|l| l + run.placed.offset);
        [Some(run.placed.start), last, source_now]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(run.placed.start)
    }

    /// Where run `id` ends: its end, now while it runs, `None` when unknown.
    pub fn end_of(&self, id: &str, source_now: Option<Millis>) -> Option<Millis> {
        self.runs.get(id)?.end_at(source_now)
    }

    /// The concurrency curve, its peak found as of the last [`Timeline::prepare`].
    pub fn curve(&self) -> &Curve {
        &self.curve
    }

    /// The session's first and last moment known (runs and turns).
    pub fn bounds(&self) -> Option<(Millis, Millis)> {
        Some((
            *self.moments.first_key_value()?.0,
            *self.moments.last_key_value()?.0,
        ))
    }

    /// Whether run `id` launched runs of its own.
    pub fn launched(&self, id: &str) -> bool {
        self.launched.contains_key(id)
    }

    /// The fan-in of the main conversation's turn `turn` (`""` without an id).
    pub fn turn_fan_in(&self, turn: &str) -> Option<&FanIn> {
        self.turn_fan_ins.get(turn)
    }

    /// Run `id`'s place on a critical path, when it is on one.
    pub fn on_path(&self, id: &str) -> Option<&OnPath> {
        self.on_path.get(id)
    }

    /// How many fan-ins there are, and how long parents waited on their
    /// subagents in all, as of `now`: the session's last moment or later.
    pub fn waited(&self, now: Millis) -> (usize, Millis) {
        let fan_ins = self.turn_fan_ins.len() + self.run_fan_ins.len();
        (fan_ins, self.waits.waited(now))
    }

    /// The rows as of the last [`Timeline::prepare`], and each run's row.
    pub fn rows(&self) -> (&[Lane], Option<&HashMap<String, usize>>) {
        match &self.rows {
            Some(r) => (&r.lanes, Some(&r.row_of)),
            None => (&[], None),
        }
    }

    /// Whether the last rows were laid out packed, and which runs were collapsed.
    pub fn layout_choice(&self) -> (bool, &[String]) {
        self.rows
            .as_ref()
            .map_or((false, &[]), |r| (r.packed, &r.collapsed))
    }

    /// Changes since which [`Timeline::run_of`] may answer otherwise for a
    /// record it answered before (it answers the same while this stays).
    pub fn regrouped(&self) -> u64 {
        self.regrouped
    }

    /// The run that shows message `id`: itself when it is a run, else the
    /// nearest run above it.
    pub fn run_of(&self, store: &Store, id: &str) -> Option<String> {
        let mut cur = id.to_string();
        for _ in 0..256 {
            if self.runs.contains_key(&cur) {
                return Some(cur);
            }
            let parent = store.message(&cur)?.metadata.parent_tool_call_id.clone()?;
            cur = store.tool_owner(&parent)?.to_string();
        }
        None
    }
}
