//! The viewer's side of a board taskview makes (docs/behaviour.md §5): the
//! board the page shows, with its filters, kept sorted as its tasks change,
//! so a change costs its own task (O(log n)) and never a walk or a sort of
//! every task, whatever the board's size. Each task the filters let through
//! sits, by its [`Standing`], in a set ordered newest activity first; a
//! column is one set (`Working` and `Stopped` take the tasks at work that
//! the clock made stalled, a range of their set), read a window at a time.
//! The filters' options and the Activity strip's quarter hours are kept the
//! same way, over every task of the board.

use super::Viewer;
use crate::model::board::Task;
use crate::screen::view::board::activity::{ActivitySlots, ActivityView, TaskRuns};
use crate::screen::view::board::by_state::{
    column_view, last_activity_ms, standing, Standing, StateBoard, StateColumn, Strip,
};
use crate::screen::view::board::filter::{filter_values, BoardFilter, FilterOptions};
use crate::state::activity::STALL_AFTER_MS;
use crate::state::store::{Changes, Store};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::iter::Peekable;

/// A task's place in its set: newest activity first (none last), then by id.
type Key = (Reverse<i64>, String);

/// The key of `task`.
fn key(task: &Task) -> Key {
    (
        Reverse(last_activity_ms(task).unwrap_or(i64::MIN)),
        task.id.clone(),
    )
}

/// What a task added to the kept board, to take back when it changes.
#[derive(Clone, Debug)]
struct Placed {
    /// Its set and key, when the filters let it through.
    shown: Option<(Standing, Key)>,
    /// Its values of the filters' keys.
    values: [Option<String>; 4],
    runs: TaskRuns,
}

/// The board by state a page shows, kept as its tasks change.
#[derive(Clone, Debug, Default)]
pub struct KeptStateBoard {
    workflow_id: String,
    filter: BoardFilter,
    placed: HashMap<String, Placed>,
    /// The tasks shown, by standing ([`Standing::ALL`]'s order).
    sets: [BTreeSet<Key>; 4],
    /// Each filter key's values, with how many tasks have each.
    options: [BTreeMap<String, usize>; 4],
    activity: ActivitySlots,
    version: u64,
}

impl KeptStateBoard {
    /// Places `task` (not placed yet).
    fn place(&mut self, task: &Task) {
        let values = filter_values(task);
        for (counts, value) in self.options.iter_mut().zip(&values) {
            if let Some(v) = value {
                *counts.entry(v.clone()).or_default() += 1;
            }
        }
        let standing = standing(task);
        let shown = self.filter.admits(task).then(|| (standing, key(task)));
        if let Some((standing, key)) = &shown {
            self.sets[*standing as usize].insert(key.clone());
        }
        let runs = TaskRuns::of(task, standing == Standing::AtWork);
        self.activity.add(&runs);
        let placed = Placed {
            shown,
            values,
            runs,
        };
        self.placed.insert(task.id.clone(), placed);
    }

    /// Takes back what task `id` added.
    fn unplace(&mut self, id: &str) {
        let Some(placed) = self.placed.remove(id) else {
            return;
        };
        for (counts, value) in self.options.iter_mut().zip(&placed.values) {
            let Some(v) = value else { continue };
            if let Some(n) = counts.get_mut(v) {
                *n -= 1;
                if *n == 0 {
                    counts.remove(v);
                }
            }
        }
        if let Some((standing, key)) = placed.shown {
            self.sets[standing as usize].remove(&key);
        }
        self.activity.remove(&placed.runs);
    }

    /// Places every task of `workflow_id` as `filter` shows it.
    fn rebuild(&mut self, store: &Store, workflow_id: &str, filter: &BoardFilter) {
        *self = KeptStateBoard {
            workflow_id: workflow_id.to_string(),
            filter: filter.clone(),
            version: self.version + 1,
            ..KeptStateBoard::default()
        };
        if let Some(wf) = store.boards().workflow(workflow_id) {
            for task in wf.tasks.values() {
                self.place(task);
            }
        }
    }

    /// Brings the board up to date with a batch's `changes`.
    fn update(&mut self, store: &Store, changes: &Changes) {
        if self.workflow_id.is_empty() {
            return;
        }
        if changes.workflows.contains(&self.workflow_id) {
            let (workflow_id, filter) = (self.workflow_id.clone(), self.filter.clone());
            return self.rebuild(store, &workflow_id, &filter);
        }
        let mut changed = false;
        for id in &changes.tasks {
            let was = self.placed.contains_key(id);
            self.unplace(id);
            let task = store.boards().task(id);
            if let Some(task) = task.filter(|t| t.workflow_id == self.workflow_id) {
                self.place(task);
                changed = true;
            }
            changed |= was;
        }
        self.version += u64::from(changed);
    }

    /// The tasks at work shown, split at `now_ms`: those stalled and the others.
    fn at_work(&self, now_ms: i64) -> (impl Iterator<Item = &Key>, impl Iterator<Item = &Key>) {
        let set = &self.sets[Standing::AtWork as usize];
        let stalled_from = (Reverse(now_ms - STALL_AFTER_MS), String::new());
        let undated = (Reverse(i64::MIN), String::new());
        let recent = set.range(..stalled_from.clone());
        let stalled = set.range(stalled_from..undated.clone());
        (stalled, recent.chain(set.range(undated..)))
    }

    /// The ids of `column` at `now_ms`, newest activity first.
    fn column(&self, column: StateColumn, now_ms: i64) -> Box<dyn Iterator<Item = &Key> + '_> {
        let (stalled, working) = self.at_work(now_ms);
        match column {
            StateColumn::NeedsYou => Box::new(self.sets[Standing::NeedsYou as usize].iter()),
            StateColumn::Working => Box::new(working),
            StateColumn::Stopped => Box::new(Merged {
                a: self.sets[Standing::Stopped as usize].iter().peekable(),
                b: stalled.peekable(),
            }),
            StateColumn::Done => Box::new(self.sets[Standing::Done as usize].iter()),
        }
    }

    /// How many tasks `column` holds at `now_ms`.
    fn count(&self, column: StateColumn, now_ms: i64) -> usize {
        let (stalled, working) = self.at_work(now_ms);
        match column {
            StateColumn::NeedsYou => self.sets[Standing::NeedsYou as usize].len(),
            StateColumn::Working => working.count(),
            StateColumn::Stopped => self.sets[Standing::Stopped as usize].len() + stalled.count(),
            StateColumn::Done => self.sets[Standing::Done as usize].len(),
        }
    }

    /// The filters' options: every value some task has.
    fn options(&self) -> FilterOptions {
        let [agents, projects, machines, persons] =
            self.options.clone().map(|m| m.into_keys().collect());
        FilterOptions {
            agents,
            projects,
            machines,
            persons,
        }
    }
}

/// Two sets' keys in order.
struct Merged<'a, A: Iterator<Item = &'a Key>, B: Iterator<Item = &'a Key>> {
    a: Peekable<A>,
    b: Peekable<B>,
}

impl<'a, A: Iterator<Item = &'a Key>, B: Iterator<Item = &'a Key>> Iterator for Merged<'a, A, B> {
    type Item = &'a Key;

    fn next(&mut self) -> Option<&'a Key> {
        match (self.a.peek(), self.b.peek()) {
            (Some(a), Some(b)) if b < a => self.b.next(),
            (Some(_), _) => self.a.next(),
            (None, _) => self.b.next(),
        }
    }
}

impl Viewer {
    /// Brings the kept board up to date with a batch.
    pub(super) fn keep_state_board(&mut self, changes: &Changes) {
        self.state_board.update(&self.store, changes);
    }

    /// Shows `workflow_id` by state as `filter` lets through (placing every
    /// task again only when either differs from what is shown).
    fn show_state_board(&mut self, workflow_id: &str, filter: &BoardFilter) {
        let kept = &self.state_board;
        if kept.workflow_id != workflow_id || kept.filter != *filter {
            self.state_board.rebuild(&self.store, workflow_id, filter);
        }
    }

    /// The board by state of `workflow_id` as `filter` shows it at
    /// `now_ms`; `None` while the workflow is not loaded.
    pub fn state_board(
        &mut self,
        workflow_id: &str,
        filter: &BoardFilter,
        now_ms: i64,
    ) -> Option<StateBoard> {
        self.show_state_board(workflow_id, filter);
        let wf = self.store.boards().workflow(workflow_id)?;
        let kept = &self.state_board;
        let count = |c| kept.count(c, now_ms);
        let columns: Vec<_> = StateColumn::ALL
            .into_iter()
            .map(|c| column_view(c, count(c)))
            .collect();
        Some(StateBoard {
            workflow_id: wf.id.clone(),
            name: wf.name.clone(),
            strip: Strip::new(count(StateColumn::NeedsYou), count(StateColumn::Working)),
            shown: columns.iter().map(|c| c.count).sum(),
            columns: columns
                .into_iter()
                .filter(|c| filter.state.is_none_or(|s| s == c.column))
                .collect(),
            options: kept.options(),
            total: wf.tasks.len(),
            version: kept.version,
        })
    }

    /// The ids of the tasks `first..end` of `column` of the board shown
    /// (by [`Viewer::state_board`]) at `now_ms`.
    pub fn state_column(
        &self,
        column: StateColumn,
        first: usize,
        end: usize,
        now_ms: i64,
    ) -> Vec<String> {
        self.state_board
            .column(column, now_ms)
            .skip(first)
            .take(end.saturating_sub(first))
            .map(|(_, id)| id.clone())
            .collect()
    }

    /// The Activity strip of the board shown, at `now_ms`.
    pub fn state_board_activity(&self, now_ms: i64) -> ActivityView {
        self.state_board.activity.view(now_ms)
    }
}

#[cfg(test)]
#[path = "board_tests.rs"]
mod tests;
