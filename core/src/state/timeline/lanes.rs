//! The chart's rows (docs/user-guide.md "The Timeline"): one lane per run, nested runs under their
//! parent unless it is collapsed, siblings in launch order, so a run that is
//! still going grows in its lane and a new one never moves the others. Packed,
//! siblings that never overlap share a row (first fit, in launch order); a run
//! whose nested runs are shown keeps a row of its own above them.

use crate::state::activity::Millis;
use crate::state::store::OrderKey;
// foldhash rather than std's SipHash, as the store and the layout: every
// look hashes message ids.
use foldhash::{HashMap, HashMapExt, HashSet};

/// A run as the rows need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node<'a> {
    pub id: &'a str,
    pub parent: Option<&'a str>,
    pub key: OrderKey,
    pub start: Millis,
    /// `None` while it runs (it holds its row from then on).
    pub end: Option<Millis>,
}

/// One row of the chart.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lane {
    /// The runs drawn on it: one, unless packed; in launch order.
    pub runs: Vec<String>,
    /// When each of `runs` starts, in step with it: what a look searches a
    /// packed row by, without looking every run up.
    pub starts: Vec<Millis>,
    /// Changes whenever its runs do (see [`Timeline::prepare`](super::Timeline::prepare)):
    /// a row whose version stayed draws as it did.
    pub version: u64,
    /// How deep its runs are nested.
    pub depth: usize,
    /// Its one run launched runs of its own (shown or collapsed).
    pub nested: bool,
}

enum Item<'a> {
    /// The children of a run (or the top level), to lay out.
    Group(Option<&'a str>, usize),
    Lane(Vec<&'a Node<'a>>, usize),
}

/// The rows of `nodes`, top down.
pub fn lanes(nodes: &[Node], collapsed: &HashSet<&str>, packed: bool) -> Vec<Lane> {
    let ids: HashSet<&str> = nodes.iter().map(|n| n.id).collect();
    let mut kids: HashMap<Option<&str>, Vec<&Node>> = HashMap::new();
    for n in nodes {
        let parent = n.parent.filter(|p| ids.contains(p) && *p != n.id);
        kids.entry(parent).or_default().push(n);
    }
    let opens = |n: &Node| !collapsed.contains(n.id) && kids.contains_key(&Some(n.id));
    let mut out = Vec::new();
    let mut stack = vec![Item::Group(None, 0)];
    while let Some(item) = stack.pop() {
        match item {
            Item::Group(parent, depth) => {
                let mut units: Vec<(OrderKey, Vec<&Node>)> = Vec::new();
                let mut siblings = kids.get(&parent).cloned().unwrap_or_default();
                siblings.sort_unstable_by_key(|n| (n.key, n.id));
                let (mut shared, alone): (Vec<&Node>, Vec<&Node>) =
                    siblings.into_iter().partition(|n| packed && !opens(n));
                units.extend(alone.into_iter().map(|n| (n.key, vec![n])));
                shared.sort_unstable_by_key(|n| (n.start, n.key));
                let mut rows: Vec<(Millis, Vec<&Node>)> = Vec::new();
                for n in shared {
                    let end = n.end.unwrap_or(Millis::MAX).max(n.start);
                    match rows.iter_mut().find(|(free, _)| *free <= n.start) {
                        Some((free, row)) => {
                            *free = end;
                            row.push(n);
                        }
                        None => rows.push((end, vec![n])),
                    }
                }
                units.extend(rows.into_iter().map(|(_, row)| (row[0].key, row)));
                units.sort_unstable_by_key(|(key, _)| *key);
                stack.extend(
                    units
                        .into_iter()
                        .rev()
                        .map(|(_, row)| Item::Lane(row, depth)),
                );
            }
            Item::Lane(row, depth) => {
                let mut nested = false;
                if let [n] = row.as_slice() {
                    nested = kids.contains_key(&Some(n.id));
                    if opens(n) {
                        stack.push(Item::Group(Some(n.id), depth + 1));
                    }
                }
                out.push(Lane {
                    runs: row.iter().map(|n| n.id.to_string()).collect(),
                    starts: row.iter().map(|n| n.start).collect(),
                    version: 0,
                    depth,
                    nested,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node<'a>(
        id: &'a str,
        parent: Option<&'a str>,
        seq: u64,
        start: Millis,
        end: Option<Millis>,
    ) -> Node<'a> {
        Node {
            id,
            parent,
            key: OrderKey { time: 0, seq },
            start,
            end,
        }
    }

    fn rows(lanes: &[Lane]) -> Vec<(String, usize)> {
        lanes.iter().map(|l| (l.runs.join("+"), l.depth)).collect()
    }

    fn wave() -> Vec<Node<'static>> {
        vec![
            node("a", None, 1, 0, Some(100)),
            node("a1", Some("a"), 2, 10, Some(40)),
            node("a2", Some("a"), 3, 50, Some(90)),
            node("b", None, 4, 5, Some(60)),
            node("c", None, 5, 120, None),
        ]
    }

    #[test]
    fn one_lane_per_run_with_nested_runs_under_their_parent() {
        let lanes = lanes_of(&wave(), &[], false);
        let expect = [("a", 0), ("a1", 1), ("a2", 1), ("b", 0), ("c", 0)];
        assert_eq!(rows(&lanes), expect.map(|(id, d)| (id.to_string(), d)));
    }

    #[test]
    fn a_collapsed_run_hides_its_nested_runs() {
        let lanes = lanes_of(&wave(), &["a"], false);
        let expect = [("a", 0), ("b", 0), ("c", 0)];
        assert_eq!(rows(&lanes), expect.map(|(id, d)| (id.to_string(), d)));
    }

    #[test]
    fn packed_runs_that_never_overlap_share_a_row_and_a_shown_parent_keeps_its_own() {
        let lanes = lanes_of(&wave(), &[], true);
        let expect = [("a", 0), ("a1+a2", 1), ("b+c", 0)];
        assert_eq!(rows(&lanes), expect.map(|(id, d)| (id.to_string(), d)));
        // Collapsed, the parent packs with its siblings: b overlaps it.
        let lanes = lanes_of(&wave(), &["a"], true);
        let expect = [("a+c", 0), ("b", 0)];
        assert_eq!(rows(&lanes), expect.map(|(id, d)| (id.to_string(), d)));
    }

    fn lanes_of(nodes: &[Node], collapsed: &[&str], packed: bool) -> Vec<Lane> {
        lanes(nodes, &collapsed.iter().copied().collect(), packed)
    }

    #[test]
    fn a_run_still_going_holds_its_row_and_a_new_run_takes_the_next() {
        let nodes = vec![
            node("open", None, 1, 0, None),
            node("late", None, 2, 500, Some(600)),
        ];
        let lanes = lanes_of(&nodes, &[], true);
        assert_eq!(lanes.len(), 2);
    }
}
