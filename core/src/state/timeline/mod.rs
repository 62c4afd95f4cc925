//! The Timeline of every subagent run (docs/user-guide.md "The Timeline"): what
//! a page keeps, beside the store and the layout, to draw each run on one time
//! axis.
//!
//! It costs nothing while closed: [`Timeline::record`] returns at once, and
//! opening it reads the session once. Open, a batch costs what it touched: a
//! record widens its run's span, and a run whose card changed is re-read
//! before the next look ([`Timeline::refresh`]). What depends on every run
//! is kept so a look in a live session costs what changed, not a walk over
//! the session: a new run that lands in the last row is added to the rows
//! (they are laid out again when a run goes, moves or lands elsewhere, and
//! when packed);
//! the concurrency curve is counted again from the earliest moment changed;
//! the turns and their waves are kept in time order; where the time went and
//! the waits are tallies a changed run is counted out of and into.

pub mod breakdown;
pub mod critical;
pub mod curve;
pub mod hits;
pub mod intervals;
pub mod lanes;
mod look;
mod reads;
mod rows;
pub mod run;
mod time_went;

use crate::state::activity::Millis;
use crate::state::layout::{Layout, RowDiff, RowKey, RowKind};
use crate::state::store::OrderKey;
use crate::state::store::{Changes, EntryId, Store};
use breakdown::{Breakdown, Tally};
use critical::{FanIn, OnPath, Scope, Waits};
use curve::Curve;
use intervals::Intervals;
use lanes::Lane;
use rows::Rows;
use run::{children_span, message_times, place, run_facts, times_of, End, Placed, RunFacts, Span};
use std::collections::BTreeMap;
// foldhash rather than std's SipHash, as the store and the layout: every
// look hashes message ids.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

/// One run as the timeline holds it.
#[derive(Clone, Debug)]
pub struct Run {
    pub facts: RunFacts,
    /// Its own records, on its clock.
    pub span: Span,
    pub placed: Placed,
    /// Who waited for it.
    pub scope: Scope,
    /// Changes whenever it is read again or moved: what is drawn of a
    /// settled run can be kept while it is the same.
    pub version: u64,
    /// Where its time went, once read (settled runs only; cleared when its
    /// records change).
    settled_breakdown: Option<Option<Breakdown>>,
}

impl Run {
    /// Where it ends: its end, now while it runs, `None` when unknown.
    pub fn end_at(&self, source_now: Option<Millis>) -> Option<Millis> {
        match self.placed.end {
            End::Open => Some(Timeline::open_end(self, source_now)),
            end => end.time(),
        }
    }

    /// When a packed row is free again after it: its end, its start when
    /// its end is not known, never while it runs.
    pub fn free_after(&self) -> Millis {
        match self.placed.end {
            End::Open => Millis::MAX,
            End::At(t, _) => t.max(self.placed.start),
            End::Unknown => self.placed.start,
        }
    }
}

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    open: bool,
    runs: HashMap<String, Run>,
    /// Runs whose card or records changed since the last look.
    stale: HashSet<String>,
    /// A record went away: stale runs read their records whole again.
    rescan: bool,
    /// The main conversation's turns, by id (`""` without one): first and
    /// last record of each.
    turns: HashMap<String, (Millis, Millis)>,
    /// The same, by start.
    turn_list: Intervals,
    /// Each turn's last record that is not a subagent card: when it last
    /// went on (a background run that ended before woke it).
    turn_went_on: HashMap<String, Millis>,
    /// Runs still going (their end is now).
    going: HashSet<String>,
    /// The settled runs' breakdowns added up, each as counted in, and the
    /// runs to count again (out, and in while they are settled).
    settled_sum: Tally,
    settled_counted: HashMap<String, Option<Breakdown>>,
    settled_stale: HashSet<String>,
    curve: Curve,
    /// Every run's start and known end and every turn's first and last
    /// record, counted: the session's bounds are the first and the last.
    moments: BTreeMap<Millis, i64>,
    /// Runs by who waited for them.
    members: HashMap<Scope, HashSet<String>>,
    /// Fan-ins whose runs changed since they were last worked out.
    dirty: HashSet<Scope>,
    /// The fan-ins of the main conversation's turns and of runs, by id.
    turn_fan_ins: HashMap<String, FanIn>,
    run_fan_ins: HashMap<String, FanIn>,
    /// The waves of the turns' fan-ins, keyed by turn, and every fan-in's
    /// waits added up.
    turn_waves: Intervals,
    waits: Waits,
    on_path: HashMap<String, OnPath>,
    rows: Option<Rows>,
    /// How many runs each run launched.
    launched: HashMap<String, u32>,
    /// How many runs name each id as the run that launched them (there or
    /// not yet).
    named_parents: HashMap<String, u32>,
    /// The last [`Run::version`] given.
    versions: u64,
    /// Runs re-read, placed again or put on or off a critical path since
    /// the last [`Timeline::prepare`]: their rows' versions change.
    touched: Vec<String>,
    /// Counts the changes that may move a record to another run: a run gone,
    /// or a run come after records under it (see [`Timeline::regrouped`]).
    regrouped: u64,
    /// How many times the rows were laid out whole (for tests of what a live
    /// session costs).
    #[cfg(test)]
    pub(crate) laid_out: usize,
}

/// Runs noted as changed between two looks, at most; past it every row
/// counts as changed.
const TOUCHED_MAX: usize = 4096;

/// Numbers for tests that look random and are the same on every run:
/// `next(n)` is in `0..n`.
#[cfg(test)]
pub(crate) fn test_numbers(mut seed: i64) -> impl FnMut(i64) -> i64 {
    move |n| {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        seed % n
    }
}

/// When run `run` counts as going (on the curve, and for the rows): from its
/// start to its end, `None` while it runs (a run without a known end: at its
/// start only).
fn going_span(run: &Run) -> (Millis, Option<Millis>) {
    let p = run.placed;
    let end = match p.end {
        End::Open => None,
        End::At(t, _) => Some(t),
        End::Unknown => Some(p.start),
    };
    (p.start, end)
}

/// Counts moment `t` in (`by` 1) or out (`by` -1). (The same map type as
/// the curve's: one copy of its code in the wasm.)
fn count(moments: &mut BTreeMap<Millis, i64>, t: Millis, by: i32) {
    let n = moments.entry(t).or_insert(0);
    *n += i64::from(by);
    if *n <= 0 {
        moments.remove(&t);
    }
}

impl Timeline {
    /// Whether it is open (kept up to date).
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Opens it (reading the whole session once: its subagent `cards` and
    /// its records) or closes it (forgetting everything, so a closed
    /// timeline costs nothing).
    pub fn set_open<'a>(
        &mut self,
        open: bool,
        store: &Store,
        cards: impl IntoIterator<Item = &'a String>,
    ) {
        if open == self.open {
            return;
        }
        // Versions go on across a reset, so a kept drawing never matches a
        // run read afresh.
        *self = Timeline {
            versions: self.versions,
            ..Timeline::default()
        };
        if open {
            self.read_all(store, cards);
        }
    }

    /// Reads every run and every main-conversation record afresh.
    fn read_all<'a>(&mut self, store: &Store, cards: impl IntoIterator<Item = &'a String>) {
        *self = Timeline {
            open: true,
            versions: self.versions,
            ..Timeline::default()
        };
        self.stale.extend(cards.into_iter().cloned());
        for (key, entry) in store.entries() {
            if let EntryId::Message(id) = entry {
                self.note_turn(store, id, key);
            }
        }
    }

    /// Takes in one batch (a no-op while closed): costs what it touched.
    /// `cards` are the session's subagent cards, read when it starts afresh.
    pub fn record<'a>(
        &mut self,
        store: &Store,
        layout: &Layout,
        changes: &Changes,
        diff: &RowDiff,
        cards: impl IntoIterator<Item = &'a String>,
    ) {
        if !self.open {
            return;
        }
        if changes.reset || diff.reset {
            self.read_all(store, cards);
            return;
        }
        for entry in &changes.entries {
            let EntryId::Message(id) = entry else {
                continue;
            };
            let Some(m) = store.message(id) else {
                self.rescan = true;
                continue;
            };
            let owner = m
                .metadata
                .parent_tool_call_id
                .as_deref()
                .filter(|p| !p.is_empty())
                .and_then(|p| store.tool_owner(p));
            match owner {
                Some(owner) => {
                    if let (Some(run), Some((from, to))) =
                        (self.runs.get_mut(owner), times_of(store, id))
                    {
                        run.span.add(from, to);
                        self.stale.insert(owner.to_string());
                    }
                }
                None => {
                    if let Some(key) = store.message_key(id) {
                        self.note_turn(store, id, key);
                    }
                }
            }
        }
        let touched = diff
            .inserted
            .iter()
            .chain(&diff.changed)
            .chain(&diff.removed);
        for key in touched {
            let RowKey::Message(id) = key else { continue };
            let is_card = layout.row(key).map(|r| &r.kind) == Some(&RowKind::Subagent);
            if is_card || self.runs.contains_key(id) {
                self.stale.insert(id.clone());
            }
        }
    }

    /// Widens the span of a main-conversation message's turn.
    fn note_turn(&mut self, store: &Store, id: &str, key: OrderKey) {
        let Some(m) = store.message(id) else { return };
        if m.metadata
            .parent_tool_call_id
            .as_deref()
            .is_some_and(|p| !p.is_empty())
        {
            return;
        }
        let Some((from, to)) = message_times(m, key) else {
            return;
        };
        let turn = m.turn_id.as_deref().unwrap_or("");
        if m.metadata.subagent.is_none() {
            self.went_on(turn, to);
        }
        // Looked up before it is copied: most records join a known turn.
        let old = self.turns.get(turn).copied();
        let new = old.map_or((from, to), |(a, b)| (a.min(from), b.max(to)));
        if old == Some(new) {
            return;
        }
        if let Some((a, b)) = old {
            count(&mut self.moments, a, -1);
            count(&mut self.moments, b, -1);
        }
        count(&mut self.moments, new.0, 1);
        count(&mut self.moments, new.1, 1);
        if let Some((a, _)) = old.filter(|(a, _)| *a != new.0) {
            self.turn_list.remove(a, turn);
        }
        self.turn_list.insert(new.0, new.1, turn);
        match self.turns.get_mut(turn) {
            Some(span) => *span = new,
            None => {
                self.turns.insert(turn.to_string(), new);
            }
        }
    }

    /// Turn `turn` went on at `at`: its background runs that ended before
    /// count as waited for (its fan-in is worked out again).
    fn went_on(&mut self, turn: &str, at: Millis) {
        if self.turn_went_on.get(turn).is_some_and(|t| *t >= at) {
            return;
        }
        self.turn_went_on.insert(turn.to_string(), at);
        let scope = Scope::Turn(turn.to_string());
        if self.members.contains_key(&scope) {
            self.dirty.insert(scope);
        }
    }

    /// Who waited for a run: the run that launched it, else its turn.
    fn scope_of(&self, facts: &RunFacts) -> Scope {
        match facts.parent.as_ref().filter(|p| self.runs.contains_key(*p)) {
            Some(parent) => Scope::Run(parent.clone()),
            None => Scope::Turn(facts.turn.clone().unwrap_or_default()),
        }
    }

    /// Counts run `id` in (`by` 1) or out (`by` -1) of the curve, the
    /// bounds, its fan-in and the runs going.
    fn count_run(&mut self, id: &str, run: &Run, by: i32) {
        let (start, end) = going_span(run);
        self.curve.change(start, end, by.into());
        self.count_rest(id, run, by);
    }

    /// Counts run `id` out as `old` and in as `new`: the curve only when
    /// its span changed (a record inside a running run changes the run, not
    /// when it runs), so the curve and its drawings stay as they were.
    fn recount_run(&mut self, id: &str, old: &Run, new: &Run) {
        let (was, is) = (going_span(old), going_span(new));
        if was != is {
            self.curve.change(was.0, was.1, -1);
            self.curve.change(is.0, is.1, 1);
        }
        self.count_rest(id, old, -1);
        self.count_rest(id, new, 1);
    }

    /// [`Timeline::count_run`] but for the curve: the bounds, the fan-in
    /// and the runs going.
    fn count_rest(&mut self, id: &str, run: &Run, by: i32) {
        let p = run.placed;
        count(&mut self.moments, p.start, by);
        if let End::At(t, _) = p.end {
            count(&mut self.moments, t, by);
        }
        if let Scope::Run(parent) = &run.scope {
            let n = self.launched.entry(parent.clone()).or_insert(0);
            *n = n.saturating_add_signed(by);
            if *n == 0 {
                self.launched.remove(parent);
            }
        }
        let members = self.members.entry(run.scope.clone()).or_default();
        let going = p.end == End::Open;
        if by > 0 {
            members.insert(id.to_string());
            if going {
                self.going.insert(id.to_string());
            }
        } else {
            members.remove(id);
            if members.is_empty() {
                self.members.remove(&run.scope);
            }
            self.going.remove(id);
        }
        self.dirty.insert(run.scope.clone());
    }

    /// Re-reads the runs that changed. A run whose place, fan-in or state
    /// changed is counted out and in again (a few map updates); a record
    /// inside a run changes none of them.
    pub fn refresh(&mut self, store: &Store, layout: &Layout) {
        if self.stale.is_empty() {
            return;
        }
        let rescan = std::mem::take(&mut self.rescan);
        let mut structure = false;
        let mut new_runs = Vec::new();
        let mut skewed = false;
        // Parents first: a run's place and fan-in depend on its parent's.
        let mut stale: Vec<(usize, String)> = self
            .stale
            .drain()
            .map(|id| {
                let depth = layout
                    .row(&RowKey::Message(id.clone()))
                    .map_or(0, |r| r.depth);
                (depth, id)
            })
            .collect();
        stale.sort_unstable();
        for (_, id) in stale {
            self.touch(&id);
            let old = self.runs.remove(&id);
            if let Some(old) = &old {
                self.name_parent(old.facts.parent.as_deref(), -1);
            }
            let Some(facts) = run_facts(store, layout, &id) else {
                if let Some(old) = old {
                    self.regrouped += 1;
                    self.count_run(&id, &old, -1);
                    structure = true;
                    self.settled_stale.insert(id);
                }
                continue;
            };
            let span = match &old {
                Some(old) if !rescan => old.span,
                _ => children_span(store, layout, &id),
            };
            if old.is_none() && span.first.is_some() {
                self.regrouped += 1;
            }
            let run = Run {
                placed: place(&facts, span, self.parent_offset(&facts)),
                scope: self.scope_of(&facts),
                facts,
                span,
                settled_breakdown: None,
                version: self.next_version(),
            };
            let changed = old.as_ref().is_none_or(|o| {
                o.placed != run.placed
                    || o.scope != run.scope
                    || o.facts.background != run.facts.background
                    || o.facts.status != run.facts.status
            });
            if changed {
                match &old {
                    None => new_runs.push((run.facts.key, id.clone())),
                    Some(o) => {
                        structure |=
                            o.facts.parent != run.facts.parent || o.facts.key != run.facts.key;
                    }
                }
                skewed |= old.as_ref().map_or(run.placed.offset != 0, |o| {
                    o.placed.offset != run.placed.offset
                });
                // Packed rows hold while the run keeps its place and an end
                // that moved moves no run after it (see `Rows::end_moved`).
                let holds = |rows: &Rows| match &old {
                    None => true,
                    Some(o) => {
                        let (was, is) = (going_span(o), going_span(&run));
                        o.facts.parent == run.facts.parent
                            && o.facts.key == run.facts.key
                            && was.0 == is.0
                            && (was.1 == is.1
                                || rows.end_moved(
                                    &self.runs,
                                    &id,
                                    (is.0, run.facts.key),
                                    was.1,
                                    is.1,
                                ))
                    }
                };
                if self.rows.as_ref().is_some_and(|r| r.packed && !holds(r)) {
                    self.rows = None;
                }
                match &old {
                    Some(old) => self.recount_run(&id, old, &run),
                    None => self.count_run(&id, &run, 1),
                }
            }
            if old.as_ref().is_none_or(|o| o.placed.end != End::Open) || run.placed.end != End::Open
            {
                self.settled_stale.insert(id.clone());
            }
            self.name_parent(run.facts.parent.as_deref(), 1);
            self.runs.insert(id, run);
        }
        new_runs.sort_unstable();
        for (_, id) in new_runs {
            if structure {
                break;
            }
            let named = self.named_parents.contains_key(&id);
            structure = (self.rows.as_mut()).is_some_and(|r| !r.append(&self.runs, &id, named));
        }
        if structure {
            self.rows = None;
        }
        if skewed {
            self.place_all();
            // Runs under a skewed run start elsewhere: their rows take the new starts.
            if let Some(rows) = &mut self.rows {
                rows.restart(&self.runs);
            }
        }
    }

    fn next_version(&mut self) -> u64 {
        self.versions += 1;
        self.versions
    }

    /// Counts a run naming `parent` as the run that launched it in (`by` 1)
    /// or out (`by` -1).
    fn name_parent(&mut self, parent: Option<&str>, by: i32) {
        let Some(parent) = parent else { return };
        let n = self.named_parents.entry(parent.to_string()).or_insert(0);
        *n = n.saturating_add_signed(by);
        if *n == 0 {
            self.named_parents.remove(parent);
        }
    }

    /// The offset of the transcript `facts`' run was launched from.
    fn parent_offset(&self, facts: &RunFacts) -> Millis {
        facts
            .parent
            .as_deref()
            .and_then(|p| self.runs.get(p))
            .map_or(0, |p| p.placed.offset)
    }

    /// Places every run again, parents first (a transcript's skew carries to
    /// the runs it launched).
    fn place_all(&mut self) {
        let mut kids: HashMap<Option<String>, Vec<String>> = HashMap::new();
        for (id, run) in &self.runs {
            let parent = run
                .facts
                .parent
                .clone()
                .filter(|p| self.runs.contains_key(p));
            kids.entry(parent).or_default().push(id.clone());
        }
        let mut stack: Vec<(String, Millis)> = kids
            .remove(&None)
            .unwrap_or_default()
            .into_iter()
            .map(|id| (id, 0))
            .collect();
        let mut seen = HashSet::new();
        while let Some((id, parent_offset)) = stack.pop() {
            if !seen.insert(id.clone()) {
                continue;
            }
            let Some(mut run) = self.runs.remove(&id) else {
                continue;
            };
            let placed = place(&run.facts, run.span, parent_offset);
            if placed != run.placed {
                self.touch(&id);
                self.count_run(&id, &run, -1);
                run.placed = placed;
                run.settled_breakdown = None;
                run.version = self.next_version();
                self.count_run(&id, &run, 1);
                self.settled_stale.insert(id.clone());
            }
            for kid in kids.remove(&Some(id.clone())).unwrap_or_default() {
                stack.push((kid, placed.offset));
            }
            self.runs.insert(id, run);
        }
    }
}
