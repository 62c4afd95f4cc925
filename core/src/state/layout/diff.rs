//! Which rows one layout update inserted, removed or changed.

use super::{Row, RowKey};
use foldhash::{HashMap, HashSet};

/// Rows an update touched, so the UI patches only those. Keys are unique across
/// top-level and nested rows; a row's place is read from the layout
/// ([`super::Layout::top_index_of`], [`Row::parent`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowDiff {
    /// Rows that did not exist before.
    pub inserted: Vec<RowKey>,
    /// Rows that no longer exist.
    pub removed: Vec<RowKey>,
    /// Rows that still exist and changed: their content, their data, their
    /// position, or something inside them (a card whose child changed, and that
    /// card's ancestors).
    pub changed: Vec<RowKey>,
    /// Subagent cards that stopped running in this update (their spinner
    /// went away: complete, failed, cancelled, or their turn ended).
    pub settled: Vec<RowKey>,
    /// The first top-level index from which the list of top-level rows (keys
    /// in order) differs from before; `None` when it did not change.
    pub top_from: Option<usize>,
    /// Everything was laid out afresh (another transcript was opened).
    pub reset: bool,
}

impl RowDiff {
    /// True when no row changed.
    pub fn is_empty(&self) -> bool {
        self.inserted.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && !self.reset
    }
}

/// Records each touched row's state before its first modification.
#[derive(Debug, Default)]
pub(super) struct Tracker {
    before: HashMap<RowKey, Option<Row>>,
    marked: HashSet<RowKey>,
}

impl Tracker {
    /// Call before modifying the row `key`, with its current state.
    pub fn touch(&mut self, key: &RowKey, current: Option<&Row>) {
        if !self.before.contains_key(key) {
            self.before.insert(key.clone(), current.cloned());
        }
    }

    /// Reports `key` as changed even when its row value is equal.
    pub fn mark(&mut self, key: RowKey) {
        self.marked.insert(key);
    }

    /// The diff between the recorded states and `now`.
    pub fn finish<'a>(self, now: impl Fn(&RowKey) -> Option<&'a Row>) -> RowDiff {
        let mut diff = RowDiff::default();
        for (key, before) in self.before {
            match (before, now(&key)) {
                (None, Some(_)) => diff.inserted.push(key),
                (Some(_), None) => diff.removed.push(key),
                (Some(b), Some(a)) if b != *a || self.marked.contains(&key) => {
                    diff.changed.push(key)
                }
                _ => {}
            }
        }
        let recorded = diff
            .inserted
            .iter()
            .chain(&diff.removed)
            .chain(&diff.changed)
            .cloned()
            .collect::<HashSet<_>>();
        for key in self.marked {
            if !recorded.contains(&key) && now(&key).is_some() {
                diff.changed.push(key);
            }
        }
        diff.inserted.sort();
        diff.removed.sort();
        diff.changed.sort();
        diff
    }
}
