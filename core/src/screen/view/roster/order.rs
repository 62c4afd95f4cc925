//! The roster's order (docs/behaviour.md §8), kept up to date one subagent at a time:
//! nested subagents under their parent, siblings in the chosen order, and
//! with a filter the subagents that pass plus, as context, those that
//! contain them.
//!
//! Each subagent is a node under its parent (or at the top) in a sorted list
//! of siblings that remembers how many rows each sibling's subtree lists. A
//! change re-sorts one node among its siblings and corrects the counts up its
//! ancestor chain, so a live update costs the depth of the tree and a binary
//! search, never a pass over every subagent; reading the rows on screen skips
//! whole subtrees by their counts ([`RosterOrder::rows`]).

use super::{sort_key, RosterEntry, RosterFilter, RosterSort, SortKey};
use std::collections::HashMap;

/// Ancestor chains longer than this are treated as loops and cut.
const MAX_CHAIN: usize = 4096;

/// One subagent in the order.
#[derive(Clone, Debug)]
struct Node {
    /// The parent its entry names (its nearest enclosing subagent).
    wanted: Option<String>,
    /// Where it is placed: that parent when it is in the order and placing
    /// it there makes no loop, else the top level.
    parent: Option<String>,
    key: SortKey,
    /// It passes the filter (else it is listed only as context).
    passes: bool,
    /// Rows its descendants list.
    below: usize,
    /// Its children, in sort order.
    kids: Vec<Kid>,
}

impl Node {
    /// Rows its subtree lists: itself when it passes or holds one that
    /// does, and its listed descendants.
    fn listed(&self) -> usize {
        self.below + usize::from(self.passes || self.below > 0)
    }
}

/// A node as its parent's list of children holds it, in sort order.
#[derive(Clone, Debug)]
struct Kid {
    key: SortKey,
    id: String,
    /// Rows its subtree lists (its node's [`Node::listed`]).
    listed: usize,
}

/// One listed row: a subagent, its depth, and whether it is there only as
/// context for a descendant that passes the filter.
pub type ListedRow = (String, usize, bool);

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub struct RosterOrder {
    pub filter: RosterFilter,
    pub sort: RosterSort,
    nodes: HashMap<String, Node>,
    top: Vec<Kid>,
    /// Nodes placed at the top because the parent they name is missing (not
    /// loaded yet), as `(parent, node)`: placed under it when it comes. Few:
    /// a batch may bring a child before its parent.
    waiting: Vec<(String, String)>,
    /// Nodes placed at the top because under their parent they would make
    /// a loop: tried again after every change.
    looped: Vec<String>,
    /// Rows listed in all.
    total_listed: usize,
    /// How many subagents each of [`RosterFilter::ALL`] admits.
    counts: [usize; 3],
}

impl RosterOrder {
    /// The order of `entries` for `filter` and `sort`.
    pub fn build<'a>(
        entries: impl IntoIterator<Item = &'a RosterEntry>,
        filter: RosterFilter,
        sort: RosterSort,
    ) -> RosterOrder {
        let mut order = RosterOrder {
            filter,
            sort,
            ..RosterOrder::default()
        };
        // In order, each insertion lands at the end of its siblings.
        let mut sorted: Vec<&RosterEntry> = entries.into_iter().collect();
        sorted.sort_unstable_by(|a, b| (sort_key(a, sort), &a.id).cmp(&(sort_key(b, sort), &b.id)));
        for entry in sorted {
            order.update(None, Some(entry));
        }
        order
    }

    /// Subagents in the order, whatever the filter.
    pub fn total(&self) -> usize {
        self.nodes.len()
    }

    /// Rows the roster lists.
    pub fn listed(&self) -> usize {
        self.total_listed
    }

    /// How many subagents each of [`RosterFilter::ALL`] admits.
    pub fn counts(&self) -> [usize; 3] {
        self.counts
    }

    /// Entry `old` became `new` (either may be absent: it came or went).
    pub fn update(&mut self, old: Option<&RosterEntry>, new: Option<&RosterEntry>) {
        for (entry, step) in [(old, -1), (new, 1)] {
            if let Some(e) = entry {
                for (count, filter) in self.counts.iter_mut().zip(RosterFilter::ALL) {
                    if filter.admits(e) {
                        *count = count.saturating_add_signed(step);
                    }
                }
            }
        }
        match new {
            None => {
                if let Some(old) = old {
                    self.remove(&old.id);
                }
            }
            Some(new) => self.upsert(new),
        }
    }

    fn upsert(&mut self, entry: &RosterEntry) {
        let key = sort_key(entry, self.sort);
        let passes = self.filter.admits(entry);
        let id = entry.id.as_str();
        match self.nodes.get(id) {
            Some(n) if n.key == key && n.passes == passes && n.wanted == entry.parent => return,
            Some(_) => self.detach(id),
            None => {}
        }
        let node = self.nodes.entry(entry.id.clone()).or_insert(Node {
            wanted: None,
            parent: None,
            key,
            passes,
            below: 0,
            kids: Vec::new(),
        });
        node.wanted.clone_from(&entry.parent);
        node.key = key;
        node.passes = passes;
        self.attach(id);
        // Children that came first move under it.
        if !self.waiting.iter().any(|(p, _)| p == id) {
            self.retry_loops();
            return;
        }
        let (came, waits): (Vec<_>, Vec<_>) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|(p, _)| p == id);
        self.waiting = waits;
        for (_, child) in came {
            let waits = self
                .nodes
                .get(&child)
                .is_some_and(|c| c.parent.is_none() && c.wanted.as_deref() == Some(id));
            if waits {
                self.detach(&child);
                self.attach(&child);
            }
        }
        self.retry_loops();
    }

    /// Places again each node that was kept at the top to cut a loop, if
    /// its parent no longer makes one.
    fn retry_loops(&mut self) {
        if self.looped.is_empty() {
            return;
        }
        for id in self.looped.clone() {
            let free = self.nodes.get(&id).is_some_and(|n| {
                n.parent.is_none()
                    && n.wanted
                        .as_deref()
                        .is_some_and(|w| self.nodes.contains_key(w) && !self.is_within(w, &id))
            });
            if free {
                self.detach(&id);
                self.attach(&id);
            }
        }
    }

    /// Takes subagent `id` out; its children move to the top level until
    /// it comes back.
    fn remove(&mut self, id: &str) {
        if !self.nodes.contains_key(id) {
            return;
        }
        self.detach(id);
        let kids = self.nodes.remove(id).map(|n| n.kids).unwrap_or_default();
        self.looped.retain(|l| l != id);
        for kid in kids {
            if let Some(node) = self.nodes.get_mut(&kid.id) {
                node.parent = None;
            }
            self.total_listed += kid.listed;
            self.wait(id, &kid.id);
            self.insert_kid(None, kid);
        }
        self.retry_loops();
    }

    /// Takes node `id` (with its subtree) out of its parent's children.
    fn detach(&mut self, id: &str) {
        let Some(node) = self.nodes.get(id) else {
            return;
        };
        let (parent, key, listed) = (node.parent.clone(), node.key, node.listed());
        if let Some(siblings) = self.siblings_mut(parent.as_deref()) {
            if let Ok(at) = siblings.binary_search_by(|k| (k.key, k.id.as_str()).cmp(&(key, id))) {
                siblings.remove(at);
            }
        }
        self.propagate(parent, -(listed as isize));
    }

    /// Places node `id` (with its subtree) under the parent it names, or at
    /// the top when that parent is missing or would make a loop.
    fn attach(&mut self, id: &str) {
        let Some(node) = self.nodes.get(id) else {
            return;
        };
        let wanted = node.wanted.clone();
        let known = wanted.clone().filter(|p| self.nodes.contains_key(p));
        let looped = known.as_deref().is_some_and(|p| self.is_within(p, id));
        let parent = known.clone().filter(|_| !looped);
        self.looped.retain(|l| l != id);
        if looped {
            self.looped.push(id.to_string());
        }
        if let (Some(w), None) = (wanted, &known) {
            self.wait(&w, id);
        }
        let Some(node) = self.nodes.get_mut(id) else {
            return;
        };
        node.parent.clone_from(&parent);
        let kid = Kid {
            key: node.key,
            id: id.to_string(),
            listed: node.listed(),
        };
        let listed = kid.listed;
        self.insert_kid(parent.as_deref(), kid);
        self.propagate(parent, listed as isize);
    }

    /// Node `id` waits at the top for `parent` to come.
    fn wait(&mut self, parent: &str, id: &str) {
        if !self.waiting.iter().any(|(p, c)| p == parent && c == id) {
            self.waiting.push((parent.to_string(), id.to_string()));
        }
    }

    /// Whether `node` is `ancestor` or placed somewhere below it.
    fn is_within(&self, node: &str, ancestor: &str) -> bool {
        let mut cur = Some(node);
        for _ in 0..MAX_CHAIN {
            match cur {
                None => return false,
                Some(c) if c == ancestor => return true,
                Some(c) => cur = self.nodes.get(c).and_then(|n| n.parent.as_deref()),
            }
        }
        true
    }

    /// The children of `parent` (the top level for `None`), when it is there.
    fn siblings_mut(&mut self, parent: Option<&str>) -> Option<&mut Vec<Kid>> {
        match parent {
            None => Some(&mut self.top),
            Some(p) => self.nodes.get_mut(p).map(|n| &mut n.kids),
        }
    }

    fn insert_kid(&mut self, parent: Option<&str>, kid: Kid) {
        let Some(siblings) = self.siblings_mut(parent) else {
            return;
        };
        let at = siblings.partition_point(|k| (k.key, k.id.as_str()) < (kid.key, kid.id.as_str()));
        siblings.insert(at, kid);
    }

    /// The subtree under `parent` lists `delta` rows more (or fewer):
    /// corrects the counts up the ancestor chain, as far as they change.
    fn propagate(&mut self, mut parent: Option<String>, mut delta: isize) {
        for _ in 0..MAX_CHAIN {
            if delta == 0 {
                return;
            }
            let Some(p) = parent else {
                self.total_listed = self.total_listed.saturating_add_signed(delta);
                return;
            };
            let Some(node) = self.nodes.get_mut(&p) else {
                return;
            };
            let before = node.listed();
            node.below = node.below.saturating_add_signed(delta);
            let after = node.listed();
            let (grand, key) = (node.parent.clone(), node.key);
            if let Some(siblings) = self.siblings_mut(grand.as_deref()) {
                let found = siblings.binary_search_by(|k| (k.key, k.id.as_str()).cmp(&(key, &p)));
                if let Ok(at) = found {
                    siblings[at].listed = after;
                }
            }
            delta = after as isize - before as isize;
            parent = grand;
        }
    }

    /// Up to `count` listed rows from row `first`, in order.
    pub fn rows(&self, first: usize, count: usize) -> Vec<ListedRow> {
        let mut out = Vec::with_capacity(count.min(self.total_listed));
        let mut skip = first;
        let mut stack: Vec<(&[Kid], usize)> = vec![(&self.top, 0)];
        while out.len() < count {
            let depth = stack.len().saturating_sub(1);
            let Some((siblings, next)) = stack.last_mut() else {
                break;
            };
            let Some(kid) = siblings.get(*next) else {
                stack.pop();
                continue;
            };
            *next += 1;
            if kid.listed == 0 {
                continue;
            }
            if skip >= kid.listed {
                skip -= kid.listed;
                continue;
            }
            if skip == 0 {
                let context = self.nodes.get(&kid.id).is_some_and(|n| !n.passes);
                out.push((kid.id.clone(), depth, context));
            } else {
                skip -= 1;
            }
            if let Some(node) = self.nodes.get(&kid.id) {
                stack.push((&node.kids, 0));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::status::RunState;
    use std::collections::HashSet;

    fn entry(id: &str, seq: u64, parent: Option<&str>, status: RunState) -> RosterEntry {
        RosterEntry {
            type_label: "explorer".into(),
            description: None,
            description_title: String::new(),
            duration_ms: Some(seq % 7 * 1000),
            tokens: (!seq.is_multiple_of(3)).then_some(seq * 10),
            cost_micro_usd: seq.is_multiple_of(4).then_some(seq * 7),
            ..RosterEntry::sample(id, seq, parent, status)
        }
    }

    /// The order from scratch, the plain way: the rule the incremental
    /// order must agree with after any sequence of changes.
    fn from_scratch(
        entries: &HashMap<String, RosterEntry>,
        filter: RosterFilter,
        sort: RosterSort,
    ) -> Vec<ListedRow> {
        let has = |id: &str| entries.contains_key(id);
        let passes = |e: &RosterEntry| filter.admits(e);
        let mut listed: HashSet<&str> = HashSet::new();
        for e in entries.values().filter(|e| passes(e)) {
            let mut cur = Some(e);
            while let Some(c) = cur {
                if !listed.insert(c.id.as_str()) {
                    break;
                }
                cur = c.parent.as_deref().and_then(|p| entries.get(p));
            }
        }
        let mut kids: HashMap<Option<&str>, Vec<&RosterEntry>> = HashMap::new();
        for e in entries.values().filter(|e| listed.contains(e.id.as_str())) {
            kids.entry(e.parent.as_deref().filter(|p| has(p)))
                .or_default()
                .push(e);
        }
        for list in kids.values_mut() {
            list.sort_by(|a, b| (sort_key(a, sort), &a.id).cmp(&(sort_key(b, sort), &b.id)));
        }
        let mut out = Vec::new();
        let mut stack: Vec<(&RosterEntry, usize)> = kids
            .get(&None)
            .into_iter()
            .flatten()
            .rev()
            .map(|e| (*e, 0))
            .collect();
        while let Some((e, depth)) = stack.pop() {
            out.push((e.id.clone(), depth, !passes(e)));
            let children = kids.get(&Some(e.id.as_str())).into_iter().flatten();
            stack.extend(children.rev().map(|c| (*c, depth + 1)));
        }
        out
    }

    /// A small deterministic generator (no dependency for one test).
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    #[test]
    fn the_incremental_order_always_equals_the_order_from_scratch() {
        let statuses = [RunState::Running, RunState::Complete, RunState::Failed];
        let mut compared = 0;
        for seed in 0..40 {
            let mut rng = Lcg(seed);
            let filter = RosterFilter::ALL[(seed % 3) as usize];
            let sort = RosterSort::ALL[(seed / 3 % 4) as usize];
            let mut entries: HashMap<String, RosterEntry> = HashMap::new();
            let mut order = RosterOrder::build(entries.values(), filter, sort);
            for step in 0..120 {
                let id = format!("s{}", rng.below(30));
                let old = entries.get(&id).cloned();
                if rng.below(6) == 0 {
                    entries.remove(&id);
                    order.update(old.as_ref(), None);
                } else {
                    // Parents are any subagent, even one not there yet.
                    let parent = (rng.below(3) > 0).then(|| format!("s{}", rng.below(30)));
                    let parent = parent.filter(|p| *p != id);
                    let status = statuses[rng.below(3) as usize];
                    let new = entry(&id, rng.below(50), parent.as_deref(), status);
                    order.update(old.as_ref(), Some(&new));
                    entries.insert(id, new);
                }
                // Loops are cut differently: compare only loop-free states.
                let loops = entries.values().any(|e| {
                    let mut seen = HashSet::new();
                    let mut cur = Some(e);
                    while let Some(c) = cur {
                        if !seen.insert(c.id.as_str()) {
                            return true;
                        }
                        cur = c.parent.as_deref().and_then(|p| entries.get(p));
                    }
                    false
                });
                if loops {
                    continue;
                }
                compared += 1;
                let expected = from_scratch(&entries, filter, sort);
                assert_eq!(
                    order.rows(0, usize::MAX),
                    expected,
                    "seed {seed} step {step}"
                );
                assert_eq!(order.listed(), expected.len());
                let at = rng.below(expected.len() as u64 + 1) as usize;
                assert_eq!(
                    order.rows(at, 5),
                    expected[at..(at + 5).min(expected.len())]
                );
                let count = |f: RosterFilter| entries.values().filter(|e| f.admits(e)).count();
                assert_eq!(order.counts(), RosterFilter::ALL.map(count));
                assert_eq!(order.total(), entries.len());
            }
        }
        assert!(compared > 2000, "most states are loop-free: {compared}");
    }

    #[test]
    fn a_parent_loop_lists_each_subagent_once_and_terminates() {
        let x = entry("x", 1, Some("y"), RunState::Failed);
        let y = entry("y", 2, Some("x"), RunState::Failed);
        let order = RosterOrder::build([&x, &y], RosterFilter::All, RosterSort::Start);
        let ids: Vec<String> = order.rows(0, 10).into_iter().map(|r| r.0).collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1]);
    }

    #[test]
    fn a_child_that_comes_before_its_parent_moves_under_it() {
        let mut order = RosterOrder::build([], RosterFilter::All, RosterSort::Start);
        order.update(None, Some(&entry("kid", 5, Some("p"), RunState::Complete)));
        assert_eq!(order.rows(0, 10), [("kid".to_string(), 0, false)]);
        order.update(None, Some(&entry("p", 1, None, RunState::Complete)));
        assert_eq!(
            order.rows(0, 10),
            [("p".to_string(), 0, false), ("kid".to_string(), 1, false)]
        );
        order.update(Some(&entry("p", 1, None, RunState::Complete)), None);
        assert_eq!(order.rows(0, 10), [("kid".to_string(), 0, false)]);
    }
}
