//! The rows laid out for one choice of packing and collapsed runs
//! (docs/user-guide.md "The Timeline"), and how a new run joins them without
//! laying every row out again: unpacked, a run launched after every run before
//! it lands in the last row, which is what a live session does with nearly
//! every new run; packed, such a run at the top takes the first row free when
//! it starts, as laying out would, and a run that ends changes no row while
//! every run after it started before.

use super::lanes::Lane;
use super::Run;
use crate::state::activity::Millis;
use crate::state::store::OrderKey;
use foldhash::HashMap;

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub struct Rows {
    pub packed: bool,
    pub collapsed: Vec<String>,
    pub lanes: Vec<Lane>,
    /// Run id → its row.
    pub row_of: HashMap<String, usize>,
}

/// The run that launched `id`, as the rows nest it: a run that is there and
/// not `id` itself.
fn parent_of<'a>(runs: &'a HashMap<String, Run>, id: &str) -> Option<&'a str> {
    let parent = runs.get(id)?.facts.parent.as_deref()?;
    (parent != id && runs.contains_key(parent)).then_some(parent)
}

impl Rows {
    /// Adds new run `id` (already in `runs`) as the last row when that is
    /// where [`lanes`](super::lanes::lanes) would put it; false when it is
    /// not (the rows are then to be laid out again). `named_as_parent` says
    /// whether a run names `id` as the run that launched it.
    pub fn append(&mut self, runs: &HashMap<String, Run>, id: &str, named_as_parent: bool) -> bool {
        if named_as_parent || !runs.contains_key(id) {
            return false;
        }
        if self.packed {
            return self.append_packed(runs, id);
        }
        let order = |id: &str| runs.get(id).map(|r| (r.facts.key, id.to_string()));
        let mine = order(id);
        let parent = parent_of(runs, id);
        // The last row's run and the runs above it, bottom up: each the
        // last of its siblings.
        let mut spine: Vec<&str> = Vec::new();
        let mut cur = self
            .lanes
            .last()
            .and_then(|l| l.runs.first().map(String::as_str));
        while let Some(above) = cur {
            if spine.len() > 4096 || spine.contains(&above) {
                return false;
            }
            spine.push(above);
            cur = parent_of(runs, above);
        }
        let (depth, after) = match parent {
            None => (0, spine.last().copied()),
            Some(parent) => {
                if self.collapsed.iter().any(|c| c == parent) {
                    return false;
                }
                let Some(at) = spine.iter().position(|s| *s == parent) else {
                    return false;
                };
                let Some(&row) = self.row_of.get(parent) else {
                    return false;
                };
                let after = at.checked_sub(1).map(|below| spine[below]);
                (self.lanes[row].depth + 1, after)
            }
        };
        if after.is_some_and(|sibling| order(sibling) >= mine) {
            return false;
        }
        if let Some(row) = parent.and_then(|p| self.row_of.get(p)) {
            self.lanes[*row].nested = true;
        }
        self.row_of.insert(id.to_string(), self.lanes.len());
        self.lanes.push(Lane {
            runs: vec![id.to_string()],
            starts: runs.get(id).map(|r| r.placed.start).into_iter().collect(),
            version: 0,
            depth,
            nested: false,
        });
        true
    }

    /// Packed: new run `id` at the top, launched and started after every run
    /// there, joins the first row (in the order rows were opened) free when
    /// it starts, or opens a row of its own, last; false when laying out
    /// would put it elsewhere.
    fn append_packed(&mut self, runs: &HashMap<String, Run>, id: &str) -> bool {
        let Some(run) = runs.get(id).filter(|_| parent_of(runs, id).is_none()) else {
            return false;
        };
        let mine = (run.placed.start, run.facts.key);
        // Each packed row at the top: when its first run started (the order
        // rows were opened in), its lane, and when it is free again.
        let mut rows: Vec<((Millis, OrderKey), usize, Millis)> = Vec::new();
        for (lane_at, lane) in self.lanes.iter().enumerate().filter(|(_, l)| l.depth == 0) {
            let (Some(first), Some(last)) = (
                lane.runs.first().and_then(|f| runs.get(f)),
                lane.runs.last().and_then(|l| runs.get(l)),
            ) else {
                return false;
            };
            if first.facts.key >= run.facts.key {
                return false;
            }
            if !self.is_packed_row(lane) {
                continue;
            }
            if (last.placed.start, last.facts.key) >= mine {
                return false;
            }
            let opened = (first.placed.start, first.facts.key);
            rows.push((opened, lane_at, last.free_after()));
        }
        rows.sort_unstable_by_key(|(opened, _, _)| *opened);
        let lane_at = match rows.iter().find(|(_, _, free)| *free <= run.placed.start) {
            Some((_, lane_at, _)) => {
                let lane = &mut self.lanes[*lane_at];
                lane.runs.push(id.to_string());
                lane.starts.push(run.placed.start);
                *lane_at
            }
            None => {
                self.lanes.push(Lane {
                    runs: vec![id.to_string()],
                    starts: vec![run.placed.start],
                    version: 0,
                    depth: 0,
                    nested: false,
                });
                self.lanes.len() - 1
            }
        };
        self.row_of.insert(id.to_string(), lane_at);
        true
    }

    /// Packed: whether the rows stay as laid out when run `id` (at `start`,
    /// launched at `key`) ends at `new_end` instead of `old_end` (`None`:
    /// still going): every run packed after it, at the top, started before
    /// either end, so none would take another row.
    pub fn end_moved(
        &self,
        runs: &HashMap<String, Run>,
        id: &str,
        (start, key): (Millis, OrderKey),
        old_end: Option<Millis>,
        new_end: Option<Millis>,
    ) -> bool {
        let Some(lane) = self.row_of.get(id).and_then(|at| self.lanes.get(*at)) else {
            return false;
        };
        if lane.depth != 0 {
            return false;
        }
        if !self.is_packed_row(lane) {
            return true;
        }
        let free = |end: Option<Millis>| end.unwrap_or(Millis::MAX).max(start);
        let sooner = free(old_end).min(free(new_end));
        for lane in self
            .lanes
            .iter()
            .filter(|l| l.depth == 0 && self.is_packed_row(l))
        {
            for later in lane.runs.iter().rev().filter_map(|r| runs.get(r)) {
                if (later.placed.start, later.facts.key) <= (start, key) {
                    break;
                }
                if later.placed.start >= sooner {
                    return false;
                }
            }
        }
        true
    }

    /// Takes every run's start again (the runs were placed again).
    pub fn restart(&mut self, runs: &HashMap<String, Run>) {
        for lane in &mut self.lanes {
            lane.starts = (lane.runs.iter())
                .map(|id| runs.get(id).map_or(0, |r| r.placed.start))
                .collect();
        }
    }

    /// Whether `lane` is a row runs are packed into: not a run whose nested
    /// runs show under it.
    fn is_packed_row(&self, lane: &Lane) -> bool {
        !(lane.nested && lane.runs.len() == 1 && !self.collapsed.contains(&lane.runs[0]))
    }
}
