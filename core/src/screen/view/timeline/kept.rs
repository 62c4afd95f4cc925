//! What the Timeline's settled bars said when last drawn (docs/user-guide.md "The Timeline"), kept
//! between looks so that a redraw rebuilds only the rows that changed.

use super::{summary_text, ticks, BarWords, CurveDrawing, LaneView, Scale, Tick, WordsFrom};
use crate::state::activity::Millis;
use crate::state::timeline::breakdown::Breakdown;
use crate::state::timeline::curve::Curve;
use foldhash::HashMap;
use std::sync::Arc;

/// What the last look drew that the next may draw the same (see
/// [`timeline_view`]): the words of settled runs' bars, by run, each with
/// what it was worked out from; clusters' labels; the ticks of the last
/// axis; the summary; the curves of the last two windows.
#[derive(Clone, Debug, Default)]
pub struct KeptBars {
    pub(super) words: HashMap<String, (WordsFrom, BarWords)>,
    /// Clusters' labels, by what they say, sorted.
    pub(super) cluster_labels: Vec<(ClusterFrom, Arc<str>)>,
    ticks: Option<(TicksFrom, Vec<Tick>)>,
    summary: Option<(SummaryFrom, String)>,
    /// How many bars the last look drew.
    pub(super) bars_drawn: usize,
    /// The last two windows' curves (the window's and the minimap's).
    pub(super) curves: Vec<CurveDrawing>,
    /// Packed rows of settled runs as drawn, by row, with what they were
    /// drawn from and the focus then.
    pub(super) rows: HashMap<usize, (RowFrom, Option<String>, Arc<LaneView>)>,
}

/// What a packed row is drawn from, besides the focus: its version and
/// runs, the window, the width, the width of a cluster, the session's start
/// and the matches' generation.
type RowFrom = (u64, usize, (Millis, Millis), u32, i32, Millis, u64);

/// Rows a look draws, about (kept packed rows are forgotten past four times it).
pub(super) const ROWS_KEPT_PER_LOOK: usize = 64;

/// What a cluster's label says: its runs, and the seconds of its first
/// start and its last end since the session's start.
pub(super) type ClusterFrom = (usize, Millis, Millis);

/// What the ticks are worked out from: the axis's window, its width, the
/// session's start.
type TicksFrom = (Millis, Millis, i64, Millis);

/// What the summary of where the time went is worked out from: the sum,
/// the runs without records, the runs, the wait and the fan-ins.
type SummaryFrom = (Breakdown, usize, usize, Millis, usize);

impl KeptBars {
    /// `curve` over `from..to` in `slices` slices: as last drawn when
    /// neither changed, drawn again from the slice it changed on when only
    /// its end did, else drawn afresh. (Its peak was asked for since it
    /// last changed: its counts are up to date.)
    pub(super) fn curve(
        &mut self,
        curve: &Curve,
        from: Millis,
        to: Millis,
        slices: usize,
    ) -> Arc<str> {
        let (peak, version) = (curve.known_peak().0, curve.version());
        let window = (from, to, slices);
        let at = self.curves.iter().position(|d| d.window == window);
        let mut drawing = match at {
            Some(at) => self.curves.remove(at),
            None => CurveDrawing {
                window,
                ..CurveDrawing::default()
            },
        };
        let fresh = at.is_none() || drawing.peak != peak;
        let first = match curve.changed_since(drawing.version).filter(|_| !fresh) {
            Some(None) => None,
            // A change at `t` changes its slice and those after it (and a
            // slice's end is rounded: one more before it, to be sure).
            Some(Some(t)) => {
                let span = i128::from((to - from).max(1));
                let k = i128::from((t - from).max(0)) * slices as i128 / span;
                Some((k.max(1) as usize - 1).min(slices))
            }
            None => Some(0),
        };
        if let Some(first) = first.map(|f| f.min(drawing.samples.len())) {
            let tail = curve.sample_from(from, to, slices, first);
            drawing.draw(&tail, peak, first);
        }
        drawing.version = version;
        let text = drawing.text();
        if self.curves.len() >= 2 {
            self.curves.remove(0);
        }
        self.curves.push(drawing);
        text
    }

    /// The summary of where the time went, as last written when it is the same.
    pub(super) fn summary(&mut self, from: SummaryFrom) -> String {
        kept_while_same(
            &mut self.summary,
            from,
            |&(total, unknown, runs, waited, fan_ins)| {
                summary_text(&total, unknown, runs, waited, fan_ins)
            },
        )
    }

    /// The ticks of `scale` from `origin`, as last drawn when they are the same.
    pub(super) fn ticks(&mut self, scale: Scale, origin: Millis) -> Vec<Tick> {
        let from = (scale.from, scale.to, scale.width, origin);
        kept_while_same(&mut self.ticks, from, |_| ticks(scale, origin))
    }
}

/// What `make` makes from `from`: as kept in `slot` when it was made from
/// the same, else made and kept.
fn kept_while_same<K: PartialEq, V: Clone>(
    slot: &mut Option<(K, V)>,
    from: K,
    make: impl FnOnce(&K) -> V,
) -> V {
    match slot {
        Some((kept, value)) if *kept == from => value.clone(),
        _ => {
            let value = make(&from);
            *slot = Some((from, value.clone()));
            value
        }
    }
}
