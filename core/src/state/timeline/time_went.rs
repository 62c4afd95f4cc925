//! Where each run's time went (docs/user-guide.md "The Timeline"), read from its records through
//! [`breakdown`](super::breakdown::breakdown), kept for a settled run, and
//! added up for the session.

use super::breakdown::{breakdown, step_of, Breakdown, Step};
use super::run::{message_times, End};
use super::Timeline;
use crate::state::activity::Millis;
use crate::state::layout::{Layout, RowKey};
use crate::state::store::Store;

impl Timeline {
    /// Where the time of run `id` went, when its records say (see
    /// [`breakdown`]); kept for a settled run.
    pub fn breakdown(
        &mut self,
        store: &Store,
        layout: &Layout,
        id: &str,
        source_now: Option<Millis>,
    ) -> Option<Breakdown> {
        let run = self.runs.get(id)?;
        if let Some(kept) = run.settled_breakdown {
            return kept;
        }
        let found = self.read_breakdown(store, layout, id, source_now);
        if let Some(run) = self.runs.get_mut(id).filter(|r| r.placed.end != End::Open) {
            run.settled_breakdown = Some(found);
        }
        found
    }

    pub(super) fn read_breakdown(
        &self,
        store: &Store,
        layout: &Layout,
        id: &str,
        source_now: Option<Millis>,
    ) -> Option<Breakdown> {
        let run = self.runs.get(id)?;
        let offset = run.placed.offset;
        let to = self.end_of(id, source_now)? - offset;
        let mut steps = Vec::new();
        for row in layout.children(&RowKey::Message(id.to_string())) {
            let Some(child) = row.message_id() else {
                continue;
            };
            let Some(m) = store.message(child) else {
                continue;
            };
            let times = store.message_key(child).and_then(|k| message_times(m, k));
            let Some((created, updated)) = times else {
                continue;
            };
            let step = match self.runs.get(child) {
                Some(nested) if nested.facts.background => Step::Model,
                Some(nested) => Step::Wait(match nested.placed.end {
                    End::Open => None,
                    end => Some(end.time().unwrap_or(nested.placed.start) - offset),
                }),
                None => step_of(m, created, updated),
            };
            steps.push((created, step));
        }
        (!steps.is_empty()).then(|| breakdown(run.placed.start - offset, to, steps))
    }

    /// Where the time of every run went, added up, and how many runs'
    /// records say nothing of it. The settled runs' sum is kept, and a run
    /// that changed is counted out and in again, so a look costs the runs
    /// that changed and those still going.
    pub fn total_breakdown(
        &mut self,
        store: &Store,
        layout: &Layout,
        source_now: Option<Millis>,
    ) -> (Breakdown, usize) {
        for id in std::mem::take(&mut self.settled_stale) {
            if let Some(old) = self.settled_counted.remove(&id) {
                self.settled_sum.count(old.as_ref(), -1);
            }
            if self.runs.contains_key(&id) && !self.going.contains(&id) {
                let found = self.breakdown(store, layout, &id, source_now);
                self.settled_sum.count(found.as_ref(), 1);
                self.settled_counted.insert(id, found);
            }
        }
        let (mut sum, mut unknown) = self.settled_sum.sum();
        let going: Vec<String> = self.going.iter().cloned().collect();
        let (open, open_unknown) = self.add_up(store, layout, &going, source_now);
        sum.add(&open);
        unknown += open_unknown;
        (sum, unknown)
    }

    /// The breakdowns of `ids` added up, and how many have none.
    pub(super) fn add_up(
        &mut self,
        store: &Store,
        layout: &Layout,
        ids: &[String],
        source_now: Option<Millis>,
    ) -> (Breakdown, usize) {
        let mut sum = Breakdown {
            split: Some((0, 0)),
            ..Breakdown::default()
        };
        let mut unknown = 0;
        for id in ids {
            match self.breakdown(store, layout, id, source_now) {
                Some(b) => sum.add(&b),
                None => unknown += 1,
            }
        }
        (sum, unknown)
    }
}
