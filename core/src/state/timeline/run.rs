//! What the timeline reads of one subagent run (docs/user-guide.md "The
//! Timeline"), and where it sits on the session's one time axis.
//!
//! A run's message (its launch) was written to its parent's transcript, so its
//! launch and its settle are on the parent's clock; its own records (its
//! children) are on its transcript's clock, which may be skewed (another file,
//! another machine). [`place`] leaves a transcript's records where they are
//! when they fall inside its run's window on the parent's clock, else shifts
//! them so its first record meets the launch; the shift carries down to the
//! runs it launched.

use crate::model::message::Message;
use crate::model::status::{is_background, message_run_state, RunState};
use crate::model::time::parse_millis;
use crate::model::timeline::settled_at;
use crate::state::activity::Millis;
use crate::state::layout::{Layout, RowKey, RowKind};
use crate::state::store::{OrderKey, Store};

pub use crate::model::timeline::EndSource;

/// What the timeline knows of one run from its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunFacts {
    /// The run that launched it (its enclosing subagent card).
    pub parent: Option<String>,
    /// Its place in the store: siblings are drawn in this order.
    pub key: OrderKey,
    pub turn: Option<String>,
    /// Its launch, on its parent's clock.
    pub launch: Millis,
    /// When it settled, on its parent's clock, when its source says.
    pub settled: Option<(Millis, EndSource)>,
    pub status: RunState,
    pub background: bool,
    /// Its own reported tokens.
    pub tokens: Option<u64>,
    /// When its own records began, on its parent's clock, when that is
    /// later than its launch: it waited in its CLI's queue until then
    /// (docs/behaviour.md §3.4).
    pub started: Option<Millis>,
}

/// The first and last record of a run's own transcript, on its clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub first: Option<Millis>,
    pub last: Option<Millis>,
}

impl Span {
    /// Widens the span to hold `from..=to`.
    pub fn add(&mut self, from: Millis, to: Millis) {
        self.first = Some(self.first.map_or(from, |f| f.min(from)));
        self.last = Some(self.last.map_or(to, |l| l.max(to)));
    }
}

/// Message `id`'s moment: `created_at`, and the later of it and
/// `updated_at`; `None` when it has no time. Its `created_at` is the one
/// the store ordered it by (`key`), so it is not read again.
pub fn message_times(m: &Message, key: OrderKey) -> Option<(Millis, Millis)> {
    if m.created_at.is_empty() {
        return None;
    }
    let created = (key.time / 1_000_000) as Millis;
    let updated = if m.updated_at == m.created_at {
        created
    } else {
        parse_millis(&m.updated_at).unwrap_or(created)
    };
    Some((created, updated.max(created)))
}

/// [`message_times`] of message `id` in `store`.
pub fn times_of(store: &Store, id: &str) -> Option<(Millis, Millis)> {
    message_times(store.message(id)?, store.message_key(id)?)
}

/// What the timeline reads of run `id`, or `None` when it is not a subagent card.
pub fn run_facts(store: &Store, layout: &Layout, id: &str) -> Option<RunFacts> {
    let row = RowKey::Message(id.to_string());
    if layout.row(&row)?.kind != RowKind::Subagent {
        return None;
    }
    let m = store.message(id)?;
    let key = store.message_key(id)?;
    // A message without a readable time stays where it arrived (the store's rule).
    let launch = parse_millis(&m.created_at).unwrap_or((key.time / 1_000_000) as Millis);
    let status = message_run_state(m, store.is_turn_active(m));
    let sa = m.metadata.subagent.as_ref();
    let started = sa
        .and_then(|s| parse_millis(&s.started_at))
        .filter(|t| *t > launch);
    let settled = if status.is_running() || status == RunState::Queued {
        None
    } else {
        settled_at(m, launch)
    };
    Some(RunFacts {
        parent: layout.enclosing_subagent(&row),
        key,
        turn: m.turn_id.clone().filter(|t| !t.is_empty()),
        launch,
        settled,
        status,
        background: sa.is_some_and(is_background),
        tokens: sa.and_then(|s| s.total_tokens).filter(|t| *t > 0),
        started,
    })
}

/// The span of run `id`'s own records, read whole.
pub fn children_span(store: &Store, layout: &Layout, id: &str) -> Span {
    let mut span = Span::default();
    for row in layout.children(&RowKey::Message(id.to_string())) {
        if let Some((from, to)) = row.message_id().and_then(|c| times_of(store, c)) {
            span.add(from, to);
        }
    }
    span
}

/// How a run ends on the shared axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Still running: it ends now, and grows.
    Open,
    At(Millis, EndSource),
    /// Settled, but nothing says when.
    Unknown,
}

impl End {
    /// The end's time, when it is known.
    pub fn time(self) -> Option<Millis> {
        match self {
            End::At(t, _) => Some(t),
            End::Open | End::Unknown => None,
        }
    }
}

/// A run on the shared axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Its launch.
    pub start: Millis,
    /// When it began to run: its launch, or later when it waited in a
    /// queue; `None` while it still waits (docs/behaviour.md §3.4).
    pub began: Option<Millis>,
    pub end: End,
    /// What is added to a time of its own transcript to put it on the axis.
    pub offset: Millis,
}

impl Placed {
    /// How long it waited to begin, when it did wait and has begun.
    pub fn waited(&self) -> Option<Millis> {
        self.began.map(|b| b - self.start).filter(|w| *w > 0)
    }
}

/// The shift of a transcript's records (`span`, on its clock) onto its
/// parent's clock: none when they fit in its run's window (`launch` to
/// `settled`, on the parent's clock); else its first record (the prompt it
/// was launched with) meets the launch.
pub fn skew(span: Span, launch: Millis, settled: Option<Millis>) -> Millis {
    let (Some(first), Some(last)) = (span.first, span.last) else {
        return 0;
    };
    let fits = first >= launch && settled.is_none_or(|end| last <= end);
    if fits {
        0
    } else {
        launch - first
    }
}

/// How long a CLI may take to start a run it launched without the run
/// having waited in a queue (qwen-code starts one in about half a second).
const STARTING: Millis = 1_000;

/// Where a run sits, given its parent's offset.
pub fn place(facts: &RunFacts, span: Span, parent_offset: Millis) -> Placed {
    let own = skew(span, facts.launch, facts.settled.map(|(t, _)| t));
    let end = if facts.status.is_running() || facts.status == RunState::Queued {
        End::Open
    } else {
        match (facts.settled, span.last) {
            (Some((t, source)), _) => End::At(t + parent_offset, source),
            (None, Some(last)) if last + own > facts.launch => {
                End::At(last + own + parent_offset, EndSource::LastRecord)
            }
            (None, _) => End::Unknown,
        }
    };
    let start = facts.launch + parent_offset;
    // A run its CLI took less than a second to start did not wait in a
    // queue: that is the start itself, not drawn apart.
    let began = match facts.status {
        RunState::Queued => None,
        _ => Some(
            facts
                .started
                .map(|t| t + parent_offset)
                .filter(|t| *t >= start + STARTING)
                .unwrap_or(start),
        ),
    };
    Placed {
        start,
        began,
        end,
        offset: parent_offset + own,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Millis = 60_000;

    fn facts(launch: Millis, settled: Option<Millis>, status: RunState) -> RunFacts {
        RunFacts {
            parent: None,
            key: OrderKey { time: 0, seq: 0 },
            turn: None,
            launch,
            settled: settled.map(|t| (t, EndSource::Reported)),
            status,
            background: false,
            tokens: None,
            started: None,
        }
    }

    fn span(first: Millis, last: Millis) -> Span {
        Span {
            first: Some(first),
            last: Some(last),
        }
    }

    #[test]
    fn records_inside_their_run_s_window_are_not_shifted() {
        assert_eq!(skew(span(5, 50), 0, Some(60)), 0);
        assert_eq!(skew(Span::default(), 0, Some(60)), 0);
        assert_eq!(skew(span(5, 500), 0, None), 0, "no settle: no upper bound");
    }

    #[test]
    fn clock_skew_of_a_child_file_behind_or_ahead_is_shifted_into_its_run() {
        // The child's file is two hours ahead of its parent's.
        let ahead = span(120 * MIN + 5_000, 120 * MIN + 50_000);
        assert_eq!(skew(ahead, 0, Some(MIN)), -(120 * MIN + 5_000));
        // Two hours behind.
        let behind = span(-120 * MIN + 5_000, -120 * MIN + 50_000);
        assert_eq!(skew(behind, 0, Some(MIN)), 120 * MIN - 5_000);
        // Longer than its window: its start meets the launch.
        assert_eq!(skew(span(10, 200), 100, Some(150)), 90);
    }

    #[test]
    fn a_run_ends_at_its_report_else_its_last_record_else_not_known() {
        let done = place(&facts(0, Some(MIN), RunState::Complete), span(5, 50), 1_000);
        assert_eq!(done.start, 1_000);
        assert_eq!(done.end, End::At(MIN + 1_000, EndSource::Reported));
        let silent = place(&facts(0, None, RunState::Complete), span(5, 50), 0);
        assert_eq!(silent.end, End::At(50, EndSource::LastRecord));
        let nothing = place(&facts(0, None, RunState::Settled), Span::default(), 0);
        assert_eq!(nothing.end, End::Unknown);
        let running = place(&facts(0, None, RunState::Running), span(5, 50), 0);
        assert_eq!(running.end, End::Open);
    }

    #[test]
    fn a_queued_run_is_drawn_open_and_waiting_and_one_that_started_late_waited() {
        let queued = place(&facts(0, None, RunState::Queued), Span::default(), 0);
        assert_eq!(
            (queued.end, queued.began, queued.waited()),
            (End::Open, None, None)
        );
        let mut late = facts(1_000, Some(9_000), RunState::Complete);
        late.started = Some(7_000);
        let placed = place(&late, span(7_000, 8_000), 0);
        assert_eq!(placed.began, Some(7_000));
        assert_eq!(placed.waited(), Some(6_000));
        let prompt = place(
            &facts(1_000, Some(2_000), RunState::Complete),
            span(1_010, 1_900),
            0,
        );
        assert_eq!((prompt.began, prompt.waited()), (Some(1_000), None));
        // Half a second to start is the start, not a wait.
        let mut quick = facts(1_000, Some(9_000), RunState::Complete);
        quick.started = Some(1_500);
        let placed = place(&quick, span(1_500, 8_000), 0);
        assert_eq!((placed.began, placed.waited()), (Some(1_000), None));
    }

    #[test]
    fn a_skewed_transcript_s_offset_carries_to_the_runs_it_launched() {
        let parent = place(
            &facts(0, Some(MIN), RunState::Complete),
            span(120 * MIN, 120 * MIN + 30_000),
            0,
        );
        assert_eq!(parent.offset, -120 * MIN);
        // Launched 10 s into the parent's transcript, on that skewed clock.
        let child = place(
            &facts(
                120 * MIN + 10_000,
                Some(120 * MIN + 20_000),
                RunState::Complete,
            ),
            Span::default(),
            parent.offset,
        );
        assert_eq!(child.start, 10_000);
        assert_eq!(child.end.time(), Some(20_000));
    }
}
