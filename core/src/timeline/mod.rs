//! The Timeline of every subagent run (issue 26): what a page keeps, beside
//! the store and the layout, to draw each run on one time axis.
//!
//! It costs nothing while closed: [`Timeline::record`] returns at once, and
//! opening it reads the session once. Open, a batch costs what it touched: a
//! record widens its run's span, and a run whose card changed is re-read
//! before the next look ([`Timeline::refresh`]). What depends on every run
//! (the concurrency curve, the fan-ins, the rows) is redone only when a run
//! starts, ends or moves, never for a record inside a run.

pub mod breakdown;
pub mod critical;
pub mod curve;
pub mod lanes;
pub mod run;

use crate::activity::Millis;
use crate::layout::{Layout, RowDiff, RowKey, RowKind};
use crate::store::OrderKey;
use crate::store::{Changes, EntryId, Store};
use breakdown::{breakdown, step_of, Breakdown, Step};
use critical::{fan_ins, FanIn, Member, OnPath, Scope};
use curve::{curve, Curve};
use lanes::{lanes, Lane, Node};
use run::{children_span, message_times, place, run_facts, times_of, End, Placed, RunFacts, Span};
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
    /// Where its time went, once read (settled runs only; cleared when its
    /// records change).
    settled_breakdown: Option<Option<Breakdown>>,
}

/// What depends on every run's place: redone when a run starts, ends or moves.
#[derive(Clone, Debug, Default)]
pub struct Shape {
    pub curve: Curve,
    pub fan_ins: Vec<FanIn>,
    /// The fan-in of each turn of the main conversation, by turn.
    /// (A turn without an id is `""`.)
    pub turn_fan_in: HashMap<String, usize>,
    pub on_path: HashMap<String, OnPath>,
    /// The earliest and latest moment known (runs and the main turns).
    pub bounds: Option<(Millis, Millis)>,
    /// The source's time the open runs' ends were taken at.
    now: Option<Millis>,
}

/// The rows laid out for one choice of packing and collapsed runs.
#[derive(Clone, Debug, Default)]
struct Rows {
    packed: bool,
    collapsed: Vec<String>,
    lanes: Vec<Lane>,
    /// Run id → its row.
    row_of: HashMap<String, usize>,
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
    /// The turns by start, while no turn came or moved its start.
    turn_order: Option<Vec<String>>,
    shape: Option<Shape>,
    rows: Option<Rows>,
    /// Runs still going (their end is now).
    going: HashSet<String>,
    /// The settled runs' breakdowns added up, and how many say nothing,
    /// while none of them changed.
    settled_sum: Option<(Breakdown, usize)>,
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
        *self = Timeline::default();
        if open {
            self.read_all(store, cards);
        }
    }

    /// Reads every run and every main-conversation record afresh.
    fn read_all<'a>(&mut self, store: &Store, cards: impl IntoIterator<Item = &'a String>) {
        *self = Timeline {
            open: true,
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
        if let Some((from, to)) = message_times(m, key) {
            let turn = m.turn_id.as_deref().unwrap_or("");
            // Looked up before it is copied: most records join a known turn.
            let span = match self.turns.get_mut(turn) {
                Some(span) => span,
                None => self
                    .turns
                    .entry(turn.to_string())
                    .or_insert((Millis::MAX, to)),
            };
            if from < span.0 {
                self.turn_order = None;
            }
            *span = (span.0.min(from), span.1.max(to));
            if let Some(shape) = &mut self.shape {
                shape.bounds = Some(
                    shape
                        .bounds
                        .map_or((from, to), |(a, b)| (a.min(from), b.max(to))),
                );
            }
        }
    }

    /// Re-reads the runs that changed; redoes what depends on every run when
    /// one started, ended or moved.
    pub fn refresh(&mut self, store: &Store, layout: &Layout) {
        if self.stale.is_empty() {
            return;
        }
        let mut moved = false;
        let mut restructured = false;
        let rescan = std::mem::take(&mut self.rescan);
        let stale: Vec<String> = self.stale.drain().collect();
        for id in &stale {
            let Some(facts) = run_facts(store, layout, id) else {
                self.going.remove(id);
                if self.runs.remove(id).is_some() {
                    restructured = true;
                    self.settled_sum = None;
                }
                continue;
            };
            let (new, parent_changed) = match self.runs.get(id) {
                Some(run) => (false, run.facts.parent != facts.parent),
                None => (true, true),
            };
            restructured |= parent_changed;
            let span = if new || rescan {
                children_span(store, layout, id)
            } else {
                self.runs[id].span
            };
            let parent_offset = self.parent_offset(&facts);
            let placed = place(&facts, span, parent_offset);
            let run = self.runs.entry(id.clone()).or_insert_with(|| Run {
                facts: facts.clone(),
                span,
                placed,
                settled_breakdown: None,
            });
            moved |= new || run.placed != placed || run.facts.status != facts.status;
            restructured |= run.placed.offset != placed.offset;
            if new || run.placed.end != End::Open || placed.end != End::Open {
                self.settled_sum = None;
            }
            if placed.end == End::Open {
                self.going.insert(id.clone());
            } else {
                self.going.remove(id);
            }
            *run = Run {
                facts,
                span,
                placed,
                settled_breakdown: None,
            };
        }
        if restructured {
            self.place_all();
        }
        if moved || restructured {
            self.shape = None;
            self.rows = None;
            self.settled_sum = None;
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
            let Some(run) = self.runs.get_mut(&id) else {
                continue;
            };
            run.placed = place(&run.facts, run.span, parent_offset);
            let offset = run.placed.offset;
            for kid in kids.remove(&Some(id)).unwrap_or_default() {
                stack.push((kid, offset));
            }
        }
    }

    /// Whether a run is still going.
    pub fn is_going(&self) -> bool {
        !self.going.is_empty()
    }

    /// Every run, by message id.
    pub fn runs(&self) -> &HashMap<String, Run> {
        &self.runs
    }

    /// The main conversation's turns, `(turn id, first, last)`, in time
    /// order as of the last [`Timeline::prepare`].
    pub fn turns(&self) -> impl Iterator<Item = (&String, Millis, Millis)> {
        self.turn_order.iter().flatten().filter_map(|t| {
            let (a, b) = self.turns.get(t)?;
            Some((t, *a, *b))
        })
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
        let run = self.runs.get(id)?;
        match run.placed.end {
            End::Open => Some(Timeline::open_end(run, source_now)),
            end => end.time(),
        }
    }

    /// Brings everything up to date for a look at the source's time
    /// `source_now` with rows `packed` or not and `collapsed` runs: the runs
    /// that changed, then the curve, fan-ins and bounds (redone when a run
    /// moved, or while a foreground run is open and the time moved on), then
    /// the rows (laid out again when a run moved or the choice changed).
    pub fn prepare(
        &mut self,
        store: &Store,
        layout: &Layout,
        source_now: Option<Millis>,
        packed: bool,
        collapsed: &[String],
    ) {
        self.refresh(store, layout);
        if self.turn_order.is_none() {
            let mut order: Vec<(Millis, &String)> = self
                .turns
                .iter()
                .map(|(t, (start, _))| (*start, t))
                .collect();
            order.sort_unstable();
            self.turn_order = Some(order.into_iter().map(|(_, t)| t.clone()).collect());
        }
        let open_waited = self
            .shape
            .as_ref()
            .is_some_and(|s| s.now != source_now && self.has_open_foreground());
        if self.shape.is_none() || open_waited {
            self.shape = Some(self.build_shape(source_now));
        }
        self.lay_out(packed, collapsed);
    }

    /// The curve, fan-ins and bounds as of the last [`Timeline::prepare`].
    pub fn shape(&self) -> Option<&Shape> {
        self.shape.as_ref()
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

    fn has_open_foreground(&self) -> bool {
        self.going
            .iter()
            .any(|id| self.runs.get(id).is_some_and(|r| !r.facts.background))
    }

    fn build_shape(&self, source_now: Option<Millis>) -> Shape {
        let curve = curve(self.runs.values().map(|r| match r.placed.end {
            End::Open => (r.placed.start, None),
            End::At(t, _) => (r.placed.start, Some(t)),
            End::Unknown => (r.placed.start, Some(r.placed.start)),
        }));
        let members: Vec<Member> = self
            .runs
            .iter()
            .filter(|(_, r)| !r.facts.background)
            .filter_map(|(id, r)| {
                let end = self.end_of(id, source_now)?;
                let scope = match r
                    .facts
                    .parent
                    .as_ref()
                    .filter(|p| self.runs.contains_key(*p))
                {
                    Some(p) => Scope::Run(p.clone()),
                    None => Scope::Turn(r.facts.turn.clone()),
                };
                (end > r.placed.start).then(|| (scope, id.clone(), r.placed.start, end))
            })
            .collect();
        let (fan_ins, on_path) = fan_ins(members);
        let turn_fan_in = fan_ins
            .iter()
            .enumerate()
            .filter_map(|(n, f)| match &f.scope {
                Scope::Turn(turn) => Some((turn.clone().unwrap_or_default(), n)),
                Scope::Run(_) => None,
            })
            .collect();
        let times = self
            .runs
            .iter()
            .flat_map(|(id, r)| [Some(r.placed.start), self.end_of(id, None)])
            .flatten()
            .chain(self.turns.values().flat_map(|(a, b)| [*a, *b]));
        let bounds = times.fold(None, |b: Option<(Millis, Millis)>, t| {
            Some(b.map_or((t, t), |(a, z)| (a.min(t), z.max(t))))
        });
        Shape {
            curve,
            fan_ins,
            turn_fan_in,
            on_path,
            bounds,
            now: source_now,
        }
    }

    /// Lays the rows out for `packed` and `collapsed` unless they are.
    fn lay_out(&mut self, packed: bool, collapsed: &[String]) {
        let fresh = self
            .rows
            .as_ref()
            .is_some_and(|r| r.packed == packed && r.collapsed == collapsed);
        if !fresh {
            let nodes: Vec<Node> = self
                .runs
                .iter()
                .map(|(id, r)| Node {
                    id,
                    parent: r.facts.parent.as_deref(),
                    key: r.facts.key,
                    start: r.placed.start,
                    end: match r.placed.end {
                        End::Open => None,
                        End::At(t, _) => Some(t),
                        End::Unknown => Some(r.placed.start),
                    },
                })
                .collect();
            let hidden: HashSet<&str> = collapsed.iter().map(String::as_str).collect();
            let laid = lanes(&nodes, &hidden, packed);
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

    fn read_breakdown(
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
    /// records say nothing of it. The settled runs' sum is kept while none
    /// of them changes, so a record inside a running run costs that run.
    pub fn total_breakdown(
        &mut self,
        store: &Store,
        layout: &Layout,
        source_now: Option<Millis>,
    ) -> (Breakdown, usize) {
        let (mut sum, mut unknown) = match self.settled_sum {
            Some(kept) => kept,
            None => {
                let settled: Vec<String> = (self.runs.keys())
                    .filter(|id| !self.going.contains(*id))
                    .cloned()
                    .collect();
                let kept = self.add_up(store, layout, &settled, source_now);
                self.settled_sum = Some(kept);
                kept
            }
        };
        let going: Vec<String> = self.going.iter().cloned().collect();
        let (open, open_unknown) = self.add_up(store, layout, &going, source_now);
        sum.add(&open);
        unknown += open_unknown;
        (sum, unknown)
    }

    /// The breakdowns of `ids` added up, and how many have none.
    fn add_up(
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
