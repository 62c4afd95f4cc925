//! The Timeline as the `?debug` test hook reports it
//! (`window.__taskview.timeline()`).

use super::bar_state;
use crate::state::activity::{Clock, Millis};
use crate::state::layout::Layout;
use crate::state::store::Store;
use crate::state::timeline::run::End;
use crate::state::timeline::Timeline;

/// One run as the test hook reports it (`window.__taskview.timeline()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRecord {
    /// Its card's message id.
    pub id: String,
    /// The row it is drawn on (a collapsed run's nested runs: its row).
    pub lane: usize,
    pub depth: usize,
    pub start_ms: Millis,
    /// How long it waited in its CLI's queue before it began, when it did
    /// (docs/behaviour.md §3.4).
    pub waited_ms: Option<Millis>,
    /// `None` while it runs; its start when its end is not recorded.
    pub end_ms: Option<Millis>,
    /// `running`, `stalled`, `queued`, `complete`, `failed`, `cancelled`,
    /// `blocked`, `denied`, `settled`.
    pub status: &'static str,
    pub critical: bool,
}

/// Every run and the concurrency peak, for the test hook.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimelineSnapshot {
    pub runs: Vec<RunRecord>,
    pub peak: u32,
}

/// The test hook's view of `tl`, with the rows as last laid out.
pub fn timeline_snapshot(
    tl: &mut Timeline,
    store: &Store,
    layout: &Layout,
    clock: Option<Clock>,
) -> TimelineSnapshot {
    let (packed, collapsed) = tl.layout_choice();
    let collapsed = collapsed.to_vec();
    tl.prepare(store, layout, packed, &collapsed);
    let runs = tl.runs();
    let (_, row_of) = tl.rows();

    let mut out: Vec<RunRecord> = runs
        .iter()
        .map(|(id, run)| {
            let mut depth = 0;
            let mut lane = None;
            let mut cur = Some(id);
            while let Some(c) = cur.filter(|_| depth < 4096) {
                lane = lane.or_else(|| row_of.and_then(|r| r.get(c)).copied());
                cur = runs.get(c).and_then(|r| r.facts.parent.as_ref());
                depth += usize::from(cur.is_some_and(|p| runs.contains_key(p)));
                if cur.is_some_and(|p| !runs.contains_key(p)) {
                    break;
                }
            }
            let (status, state, _) = bar_state(run, clock, id);
            RunRecord {
                id: id.clone(),
                lane: lane.unwrap_or(0),
                depth,
                start_ms: run.placed.start,
                waited_ms: run.placed.waited(),
                end_ms: match run.placed.end {
                    End::Open => None,
                    End::Unknown => Some(run.placed.start),
                    End::At(t, _) => Some(t),
                },
                status: if state == "stalled" { state } else { status },
                critical: tl.on_path(id).is_some(),
            }
        })
        .collect();
    out.sort_by(|a, b| (a.lane, a.start_ms, &a.id).cmp(&(b.lane, b.start_ms, &b.id)));
    TimelineSnapshot {
        runs: out,
        peak: tl.curve().known_peak().0,
    }
}
