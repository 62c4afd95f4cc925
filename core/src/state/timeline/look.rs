//! What a look at the Timeline needs brought up to date (docs/user-guide.md
//! "The Timeline"): the runs that changed, the fan-ins they are in, the curve's
//! peak and the rows.

use super::critical::{fan_in, Scope};
use super::lanes::{lanes, Node};
use super::rows::Rows;
use super::run::End;
use super::Timeline;
use super::{going_span, TOUCHED_MAX};
use crate::state::activity::Millis;
use crate::state::layout::Layout;
use crate::state::store::Store;
use foldhash::{HashMap, HashMapExt, HashSet};

impl Timeline {
    /// Brings everything up to date for a look with rows `packed` or not
    /// and `collapsed` runs: the runs that changed, the fan-ins they are in,
    /// the curve's peak, and the rows (laid out again when runs came, went
    /// or moved, or the choice changed).
    pub fn prepare(&mut self, store: &Store, layout: &Layout, packed: bool, collapsed: &[String]) {
        self.refresh(store, layout);
        for scope in std::mem::take(&mut self.dirty) {
            self.work_out(scope);
        }
        self.curve.peak();
        self.lay_out(packed, collapsed);
        let version = self.next_version();
        let touched = std::mem::take(&mut self.touched);
        if let Some(rows) = &mut self.rows {
            for id in touched {
                if let Some(lane) = rows.row_of.get(&id).and_then(|at| rows.lanes.get_mut(*at)) {
                    lane.version = version;
                }
            }
        }
    }

    /// Notes that run `id` changed; past a bound (no look for a long
    /// while), every row counts as changed.
    pub(super) fn touch(&mut self, id: &str) {
        if self.touched.len() > TOUCHED_MAX {
            self.touched.clear();
            let version = self.next_version();
            if let Some(rows) = &mut self.rows {
                rows.lanes
                    .iter_mut()
                    .for_each(|lane| lane.version = version);
            }
        }
        self.touched.push(id.to_string());
    }

    /// Works out the fan-in of `scope` again from its runs.
    pub(super) fn work_out(&mut self, scope: Scope) {
        let (map, key) = match &scope {
            Scope::Turn(id) => (&mut self.turn_fan_ins, id),
            Scope::Run(id) => (&mut self.run_fan_ins, id),
        };
        if let Some(old) = map.remove(key) {
            self.waits.count(&old, -1);
            if let Scope::Turn(turn) = &scope {
                for (from, _) in &old.waves {
                    self.turn_waves.remove(*from, turn);
                }
            }
            for id in old.path {
                self.on_path.remove(&id);
                self.touch(&id);
            }
        }
        // A turn that went on after a background run ended was woken by
        // its notification: it waited for it.
        let turn_last = match &scope {
            Scope::Turn(turn) => self.turn_went_on(turn),
            Scope::Run(_) => None,
        };
        let members: Vec<(String, Millis, Option<Millis>)> = (self.members.get(&scope))
            .into_iter()
            .flatten()
            .filter_map(|id| {
                let run = self.runs.get(id)?;
                let end = match run.placed.end {
                    End::Open => None,
                    End::At(t, _) if t > run.placed.start => Some(t),
                    End::At(..) | End::Unknown => return None,
                };
                if run.facts.background && !woke(end, turn_last) {
                    return None;
                }
                Some((id.clone(), run.placed.start, end))
            })
            .collect();
        if members.is_empty() {
            return;
        }
        let (found, on_path) = fan_in(members);
        for (id, place) in on_path {
            self.touch(&id);
            self.on_path.insert(id, place);
        }
        self.waits.count(&found, 1);
        if let Scope::Turn(turn) = &scope {
            for (from, to) in &found.waves {
                self.turn_waves.insert(*from, *to, turn);
            }
        }
        match scope {
            Scope::Turn(id) => self.turn_fan_ins.insert(id, found),
            Scope::Run(id) => self.run_fan_ins.insert(id, found),
        };
    }

    /// Lays the rows out for `packed` and `collapsed` unless they are.
    pub(super) fn lay_out(&mut self, packed: bool, collapsed: &[String]) {
        let fresh = self
            .rows
            .as_ref()
            .is_some_and(|r| r.packed == packed && r.collapsed == collapsed);
        if !fresh {
            #[cfg(test)]
            {
                self.laid_out += 1;
            }
            let nodes: Vec<Node> = self
                .runs
                .iter()
                .map(|(id, r)| Node {
                    id,
                    parent: r.facts.parent.as_deref(),
                    key: r.facts.key,
                    start: r.placed.start,
                    end: going_span(r).1,
                })
                .collect();
            let hidden: HashSet<&str> = collapsed.iter().map(String::as_str).collect();
            let mut laid = lanes(&nodes, &hidden, packed);
            let version = self.next_version();
            laid.iter_mut().for_each(|lane| lane.version = version);
            let mut row_of = HashMap::new();
            for (n, lane) in laid.iter().enumerate() {
                for id in &lane.runs {
                    row_of.insert(id.clone(), n);
                }
            }
            self.rows = Some(Rows {
                packed,
                collapsed: collapsed.to_vec(),
                lanes: laid,
                row_of,
            });
        }
    }
}

/// Whether a background run that ends at `end` woke its turn, which last
/// went on at `turn_last`: it ended and the turn went on after that (its
/// notification reached an idle agent, which answered it).
fn woke(end: Option<Millis>, turn_last: Option<Millis>) -> bool {
    matches!((end, turn_last), (Some(end), Some(last)) if end <= last)
}
