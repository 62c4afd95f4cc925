//! The rows laid out for one choice of packing and collapsed runs (issue 26),
//! and how a new run joins them without laying every row out again: unpacked,
//! a run launched after every run before it lands in the last row, which is
//! what a live session does with nearly every new run.

use super::lanes::Lane;
use super::Run;
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
        if self.packed || named_as_parent || !runs.contains_key(id) {
            return false;
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
            depth,
            nested: false,
        });
        true
    }
}
