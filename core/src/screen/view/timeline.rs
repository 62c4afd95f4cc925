//! The Timeline view (docs/user-guide.md "The Timeline"): every subagent run as
//! a bar on one time axis shared with the parent's turns, a concurrency curve
//! with its peak, the critical path of each fan-in, where the time went, a
//! minimap to brush a zoom window, and an accessible table of the same runs.
//! Geometry is decided here, in whole pixels; the component only draws it.
//!
//! Only the rows in view are built ([`TimelineQuery::first_row`],
//! [`TimelineQuery::rows`]), so a session of thousands of runs draws a
//! screenful.
//!
//! The view of a look is built here ([`timeline_view`]); beside it: what the
//! reader asked to see (`query`), the pixels (`geometry`), the words
//! (`words`), what the last look drew (`kept`), the table (`table`), the
//! keyboard (`keys`) and the test hook's record (`snapshot`).

use super::format::count_label;
use crate::model::status::RunState;
use crate::state::activity::{Clock, Millis};
use crate::state::layout::Layout;
use crate::state::store::Store;
use crate::state::timeline::hits::Hits;
use crate::state::timeline::intervals::gallop;
use crate::state::timeline::lanes::Lane;
use crate::state::timeline::run::End;
use crate::state::timeline::{Run, Timeline};
use foldhash::HashMap;
use geometry::{clock_offset, ticks, turn_paths, CurveDrawing, Scale, Tick, STEPS_S};
use kept::{ClusterFrom, KeptBars, ROWS_KEPT_PER_LOOK};
use keys::TimelineKey;
use query::{axis, clamp_window, view_bounds, TimelineQuery};
use std::sync::Arc;
use table::text_px;
use words::{
    bar_words, end_text, figures, focus_text, run_name, summary_text, tokens_text, BarWords,
    WordsFrom,
};

pub mod geometry;
pub mod kept;
pub mod keys;
pub mod query;
pub mod snapshot;
pub mod table;
#[cfg(test)]
mod tests;
pub mod words;

/// The height of one row of bars, in pixels.
pub const ROW_PX: u32 = 28;
/// The height of the concurrency curve and of the minimap, in pixels.
pub const CURVE_PX: u32 = 36;
/// Runs per page of the table.
pub const TABLE_PAGE: usize = 20;
/// The narrowest window a zoom reaches.
const MIN_WINDOW_MS: Millis = 2_000;
/// Pixels per slice of the curve.
const SLICE_PX: i64 = 2;
/// In a packed row, runs that start within this many pixels of the start
/// (or the end) of the run before them are drawn as one cluster: a row
/// holds at most its width / `CLUSTER_PX` bars and clusters, however many
/// runs it packs.
const CLUSTER_PX: i32 = 24;
/// At most about this many bars and clusters in the packed rows of a look
/// (the page holds at most 400 elements): with many packed rows
/// in view, clusters are wider than [`CLUSTER_PX`].
const PACKED_DRAWN: usize = 32;

/// One run's bar.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BarView {
    /// The run's message id (`data-id`).
    pub id: String,
    /// Its card's deep link: `msg-<id>`.
    pub anchor: Arc<str>,
    pub x: i32,
    pub w: i32,
    /// `running`, `complete`, `failed`, `cancelled`, `settled` (`data-status`).
    pub status: &'static str,
    /// `stalled`, `background` or empty (`data-state`).
    pub state: &'static str,
    /// The word shown on it, so no state is told by colour alone.
    pub word: Option<Arc<str>>,
    /// Still going: drawn open at its end (never in a still file, where
    /// it ends at the file's newest record).
    pub open: bool,
    /// Cut by the window's start or end.
    pub cut_start: bool,
    pub cut_end: bool,
    /// A background run's launching call, which returned at once: its x.
    pub launch_x: Option<i32>,
    /// On the critical path of its fan-in.
    pub critical: bool,
    /// Duration and tokens, shown on the bar.
    pub text: Arc<str>,
    /// Its accessible name: the run's name, then the text and word the bar
    /// shows, in that order (WCAG 2.5.3), then when, tokens and the wait it held.
    pub label: Arc<str>,
    /// Its `title`: the same, and where its time went.
    pub title: Arc<str>,
    /// It holds a match of the transcript's search.
    pub hit: bool,
    /// The keyboard is on it.
    pub focused: bool,
    /// Tab reaches it (`tabindex` 0): the focused bar, else the first in view.
    pub tab_stop: bool,
    /// Its text does not fit in it: drawn after it.
    pub text_outside: bool,
}

/// One row of bars.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaneView {
    /// Its index among all rows.
    pub row: usize,
    /// Its `top`, in pixels.
    pub top: i32,
    pub depth: usize,
    /// `code-reviewer: the closure diff`, or `3 runs` when packed.
    pub label: String,
    /// The run whose nested runs this row's button shows or hides, and
    /// whether they are shown.
    pub toggle: Option<(String, bool)>,
    pub bars: Vec<BarView>,
    /// Runs of a packed row too close to draw apart.
    pub clusters: Vec<ClusterView>,
}

/// Runs of a packed row drawn as one: `12 runs`, a click zooms in on them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterView {
    pub x: i32,
    pub w: i32,
    /// How many runs it holds.
    pub runs: usize,
    /// The first run's start and the last one's end.
    pub span: (Millis, Millis),
    /// `12 runs, 0:10 to 1:20: zoom in to see each`.
    pub label: Arc<str>,
    /// One of its runs holds a match of the transcript's search.
    pub hit: bool,
}

/// The height of the row of the parent's turns, in pixels.
pub const TURNS_PX: u32 = 10;

/// The whole timeline as shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimelineView {
    /// `43 runs · at most 12 at once`.
    pub heading: String,
    /// Where the time went, for the whole fan-out.
    pub summary: String,
    /// Why there is nothing to draw.
    pub empty_text: Option<String>,
    /// The session's first and last moment, and the window shown.
    pub bounds: (Millis, Millis),
    pub window: (Millis, Millis),
    /// The whole session's axis (see [`axis`]): the window at first, the
    /// minimap's, and the bounds a move is worked out in.
    pub axis: (Millis, Millis),
    /// The width of the bars' area (and of the curves), in pixels.
    pub width: u32,
    /// The window's middle, in percent of the session (the minimap's value).
    pub window_percent: u32,
    /// `+0:00 – +4:30 of 12:05`.
    pub window_text: String,
    pub rows_total: usize,
    /// The rows in view.
    /// Shared: a row drawn as the last look drew it is the same row.
    pub lanes: Vec<Arc<LaneView>>,
    pub ticks: Vec<Tick>,
    /// The concurrency curve over the window, as SVG points (width ×
    /// [`CURVE_PX`]), and the same over the whole session for the minimap.
    pub curve: Arc<str>,
    pub minimap: Arc<str>,
    /// The window on the minimap: `(x, w)`.
    pub brush: (i32, i32),
    /// The peak's label, `peak 12`, and its x when it is in the window.
    pub peak: String,
    pub peak_x: Option<i32>,
    /// Now, while a run is going and now is in the window (never in a
    /// still file, whose time stopped).
    pub now_x: Option<i32>,
    /// The main conversation's turns over the window, and when they
    /// waited on their subagents, as SVG path data (width × [`TURNS_PX`]).
    pub turns_path: String,
    pub waits_path: String,
    /// The focused run: its name and where its time went.
    pub focus_text: Option<String>,
}

/// The bar's status, state and word.
fn bar_state(
    run: &Run,
    clock: Option<Clock>,
    id: &str,
) -> (&'static str, &'static str, Option<String>) {
    let status = run.facts.status;
    let mark = super::lifecycle::lifecycle_mark(
        status,
        run.facts.background,
        clock.and_then(|c| c.idle_ms(id)),
        clock.is_some_and(|c| c.is_still()),
    );
    let word = match (&mark, status, run.placed.end) {
        (Some(m), _, _) => Some(m.text.clone()),
        (None, RunState::Running, _) => Some("running".to_string()),
        (None, RunState::Failed | RunState::Cancelled, _) => Some(status.label().to_string()),
        (None, _, End::Unknown) => Some("end not recorded".to_string()),
        _ => None,
    };
    (status.as_str(), mark.map_or("", |m| m.state), word)
}

/// Builds the view of `tl` for `query` (see the module docs).
pub fn timeline_view(
    tl: &mut Timeline,
    store: &Store,
    layout: &Layout,
    clock: Option<Clock>,
    hits: &Hits,
    query: &TimelineQuery,
    kept: &mut KeptBars,
) -> TimelineView {
    let now = clock.and_then(|c| c.source_now());
    // In a file nobody writes any more no run goes on: time stops at its
    // newest record (docs/behaviour.md §8).
    let still = clock.is_some_and(|c| c.is_still());
    tl.prepare(store, layout, query.packed, &query.collapsed);
    let focus_text = query
        .focus
        .as_deref()
        .and_then(|id| focus_text(tl, store, layout, id, now));
    let (total, unknown) = tl.total_breakdown(store, layout, now);
    if tl.runs().is_empty() {
        return TimelineView {
            heading: "No subagent runs".into(),
            empty_text: Some("No subagent has run in this transcript yet".into()),
            ..TimelineView::default()
        };
    }
    let bounds = view_bounds(tl, now);
    let whole = axis(bounds);
    let window = query
        .window
        .and_then(|(a, b)| clamp_window(a, b, whole))
        .unwrap_or(whole);
    let scale = Scale::new(window, query.width);
    let slices = (scale.width / SLICE_PX) as usize;
    let curve = kept.curve(tl.curve(), window.0, window.1, slices);
    let minimap = kept.curve(tl.curve(), whole.0, whole.1, slices);
    let runs = tl.runs();
    let going = tl.is_going() && !still;
    let (peak, peak_at) = tl.curve().known_peak();
    let (lanes, _) = tl.rows();
    let end_row = (query.first_row + query.rows).min(lanes.len());
    let first_row = query.first_row.min(end_row);
    let mut lane_views = Vec::with_capacity(end_row - first_row);
    // Kept for the runs drawn lately: a look forgets them when they are far
    // more than the last look drew (a reader who scrolled a long way).
    if kept.words.len() > 4 * kept.bars_drawn.max(64) {
        kept.words.clear();
    }
    if kept.cluster_labels.len() > 1024 {
        kept.cluster_labels.clear();
    }
    // Worked out when a cluster is first drawn (a look without one costs
    // nothing per match).
    let mut hit_starts = None;
    let packed_rows = lanes[first_row..end_row]
        .iter()
        .filter(|l| l.runs.len() > 1)
        .count();
    let cluster_px = CLUSTER_PX.max((scale.width as usize * packed_rows / PACKED_DRAWN) as i32);
    if kept.rows.len() > 4 * ROWS_KEPT_PER_LOOK {
        kept.rows.clear();
    }
    for (row, lane) in lanes.iter().enumerate().take(end_row).skip(first_row) {
        // A packed row whose runs, and what they are drawn against, stayed
        // as they were draws as it did.
        let packed_row = lane.runs.len() > 1;
        let from = (
            lane.version,
            lane.runs.len(),
            window,
            query.width,
            cluster_px,
            bounds.0,
            hits.generation(),
        );
        if let Some((was, focus, drawn)) = kept.rows.get(&row).filter(|_| packed_row) {
            if *was == from && focus.as_deref() == query.focus.as_deref() {
                lane_views.push(drawn.clone());
                continue;
            }
        }
        // It drew a run still going (or one whose nested runs may change).
        let mut changing = false;
        let shown_at = shown_runs(lane, runs, window);
        let (shown, starts) = (&lane.runs[shown_at.clone()], &lane.starts[shown_at]);
        let focus_at = query
            .focus
            .as_deref()
            .and_then(|id| position_in_row(shown, starts, runs, id));
        // The row's label when it holds one run: that run's name.
        let mut only_name = String::new();
        let mut bars = Vec::with_capacity(shown.len().min(64));
        let mut clusters = Vec::new();
        let mut at = 0;
        while let Some(id) = shown.get(at) {
            at += 1;
            let Some(run) = runs.get(id) else {
                continue;
            };
            let end = run.end_at(now);
            let (x, w, cut_start, cut_end) =
                scale.span(run.placed.start, end.unwrap_or(run.placed.start));
            if shown.len() > 1 {
                // In a packed row, the runs starting too near this one to be
                // told apart are drawn with it as a cluster: found by a
                // search, not a look at every run in it. The focused run is
                // drawn on its own.
                let crowded_to = scale.last_at(i64::from(x + w.max(cluster_px)) - 1);
                let mut joined = gallop(&starts[at..], |start| *start <= crowded_to);
                if let Some(focused) = focus_at.filter(|f| *f + 1 >= at) {
                    joined = joined.min(focused.saturating_sub(at));
                }
                if joined > 0 {
                    let span = at - 1..at + joined;
                    changing |= (shown[span.clone()].last())
                        .and_then(|id| runs.get(id))
                        .is_none_or(|r| r.placed.end == End::Open);
                    let members = (&shown[span.clone()], &starts[span]);
                    at += joined;
                    let row_hits = &hit_starts
                        .get_or_insert_with(|| hit_starts_by_row(tl, hits, first_row..end_row))
                        [row - first_row];
                    let labels = &mut kept.cluster_labels;
                    clusters.push(cluster_view(
                        tl,
                        members,
                        scale,
                        (bounds.0, now),
                        row_hits,
                        labels,
                    ));
                    continue;
                }
            }
            let on_path = tl.on_path(id);
            let held = on_path.map(|p| p.held(end.unwrap_or(run.placed.start)));
            // A settled run without runs of its own says the same while it,
            // the session's start and the wait it caused stay the same.
            let key = (run.version, bounds.0, held);
            let settled = run.placed.end != End::Open && !tl.launched(id);
            changing |= !settled;
            let words = match kept.words.get(id).filter(|(k, _)| settled && *k == key) {
                Some((_, words)) => words.clone(),
                None => {
                    let words = bar_words(tl, store, layout, id, run, clock, bounds.0, held);
                    match settled {
                        true => kept.words.insert(id.clone(), (key, words.clone())),
                        false => kept.words.remove(id),
                    };
                    words
                }
            };
            let BarWords {
                anchor,
                name,
                status,
                state,
                word,
                text,
                label,
            } = words;
            if lane.runs.len() == 1 {
                only_name = name;
            }
            bars.push(BarView {
                anchor,
                x,
                w,
                status,
                state,
                text_outside: i64::from(w) < text_px(&text, word.as_deref()),
                word,
                open: run.placed.end == End::Open && !still,
                cut_start,
                cut_end,
                launch_x: run
                    .facts
                    .background
                    .then(|| scale.x(run.placed.start))
                    .filter(|x| (0..=scale.width).contains(x))
                    .map(|x| x as i32),
                critical: on_path.is_some(),
                text,
                title: label.clone(),
                label,
                hit: hits.holds(id),
                focused: query.focus.as_deref() == Some(id.as_str()),
                tab_stop: false,
                id: id.clone(),
            });
        }
        let label = match lane.runs.as_slice() {
            [_] => only_name,
            runs => count_label(runs.len() as u64, "run", "runs"),
        };
        let toggle = match lane.runs.as_slice() {
            [id] if lane.nested => Some((id.clone(), query.collapsed.binary_search(id).is_err())),
            _ => None,
        };
        let drawn = Arc::new(LaneView {
            row,
            top: (row as u32 * ROW_PX) as i32,
            depth: lane.depth,
            label,
            toggle,
            bars,
            clusters,
        });
        if packed_row && !changing {
            kept.rows
                .insert(row, (from, query.focus.clone(), drawn.clone()));
        }
        lane_views.push(drawn);
    }
    let (bx, bw, _, _) = Scale::new(whole, query.width).span(window.0, window.1);
    let (turns_path, waits_path) = turn_paths(tl, scale, window, bounds.1);
    let peak_x = Some(scale.x(peak_at))
        .filter(|x| (0..=scale.width).contains(x))
        .map(|x| x as i32);
    let now_x = now
        .filter(|_| going)
        .map(|t| scale.x(t))
        .filter(|x| (0..=scale.width).contains(x))
        .map(|x| x as i32);
    let (fan_ins, waited) = tl.waited(bounds.1);
    kept.bars_drawn = lane_views.iter().map(|l| l.bars.len()).sum();
    // Tab reaches the focused bar when it is in view, else the first.
    let focused = (lane_views.iter().enumerate())
        .find_map(|(n, l)| l.bars.iter().position(|b| b.focused).map(|k| (n, k)));
    let first = lane_views.iter().position(|l| !l.bars.is_empty());
    if let Some((n, k)) = focused.or(first.map(|n| (n, 0))) {
        Arc::make_mut(&mut lane_views[n]).bars[k].tab_stop = true;
    }
    let whole_span = i128::from((bounds.1 - bounds.0).max(1));
    let middle = i128::from((window.0 + window.1) / 2 - bounds.0);
    TimelineView {
        width: query.width,
        window_percent: (middle * 100 / whole_span).clamp(0, 100) as u32,
        heading: format!(
            "{} · at most {} at once",
            count_label(runs.len() as u64, "run", "runs"),
            peak
        ),
        summary: kept.summary((total, unknown, runs.len(), waited, fan_ins)),
        empty_text: None,
        bounds,
        window,
        axis: whole,
        window_text: format!(
            "{} – {} of {}",
            clock_offset(window.0 - bounds.0),
            clock_offset(window.1.min(bounds.1) - bounds.0),
            clock_offset(bounds.1 - bounds.0)
        ),
        rows_total: lanes.len(),
        lanes: lane_views,
        ticks: kept.ticks(scale, bounds.0),
        curve,
        minimap,
        brush: (bx, bw),
        peak: format!("peak {peak}"),
        peak_x,
        now_x,
        turns_path,
        waits_path,
        focus_text,
    }
}

/// Where the runs of `lane` that reach into `window` are in it: all of a
/// row of one run (cut at the window's edge), and in a packed row, whose
/// runs follow each other without overlapping, those found by binary
/// searches over their starts, so a row of thousands of runs costs the ones
/// on screen.
fn shown_runs(
    lane: &Lane,
    runs: &HashMap<String, Run>,
    (from, to): (Millis, Millis),
) -> std::ops::Range<usize> {
    let (ids, starts) = (&lane.runs, &lane.starts);
    let len = ids.len().min(starts.len());
    if len <= 1 {
        return 0..len;
    }
    let end = |at: usize| runs.get(&ids[at]).map_or(Millis::MAX, Run::free_after);
    // The first run still going at `from`: the last one started by then or
    // the next, or one before it that ends just as the next starts.
    let mut first = starts[..len]
        .partition_point(|s| *s <= from)
        .saturating_sub(1);
    if end(first) < from {
        first += 1;
    }
    while first > 0 && end(first - 1) >= from {
        first -= 1;
    }
    let last = starts[..len].partition_point(|s| *s <= to).max(first);
    first..last
}

/// Where `id` is in a packed row's `shown` runs, which start at `starts`.
fn position_in_row(
    shown: &[String],
    starts: &[Millis],
    runs: &HashMap<String, Run>,
    id: &str,
) -> Option<usize> {
    let start = runs.get(id)?.placed.start;
    let first = starts.partition_point(|s| *s < start);
    (shown.iter().zip(starts))
        .skip(first)
        .take_while(|(_, s)| **s == start)
        .position(|(r, _)| r.as_str() == id)
        .map(|k| first + k)
}

/// The starts of the runs holding a search match, sorted, for each row of
/// `rows` (in order): what tells whether a cluster holds a match, at the
/// cost of the matches, not of the runs clustered.
fn hit_starts_by_row(tl: &Timeline, hits: &Hits, rows: std::ops::Range<usize>) -> Vec<Vec<Millis>> {
    let mut out = vec![Vec::new(); rows.len()];
    let (_, Some(row_of)) = tl.rows() else {
        return out;
    };
    for id in hits.runs() {
        let (Some(row), Some(run)) = (row_of.get(id), tl.runs().get(id)) else {
            continue;
        };
        if rows.contains(row) {
            out[row - rows.start].push(run.placed.start);
        }
    }
    for starts in &mut out {
        starts.sort_unstable();
    }
    out
}

/// The cluster of `members`, runs of one packed row in start order (with
/// their starts), in a session starting at `origin`; `row_hits` are the starts of the row's runs
/// holding a match.
fn cluster_view(
    tl: &Timeline,
    (members, starts): (&[String], &[Millis]),
    scale: Scale,
    (origin, now): (Millis, Option<Millis>),
    row_hits: &[Millis],
    labels: &mut Vec<(ClusterFrom, Arc<str>)>,
) -> ClusterView {
    let from = starts.first().copied().unwrap_or(origin);
    let last = starts.last().copied().unwrap_or(from);
    let to = members
        .last()
        .and_then(|id| tl.end_of(id, now))
        .unwrap_or(last)
        .max(last);
    let (x, w, _, _) = scale.span(from, to);
    let first_hit = row_hits.partition_point(|t| *t < from);
    ClusterView {
        x,
        w,
        runs: members.len(),
        span: (from, to),
        label: cluster_label(
            labels,
            (members.len(), (from - origin) / 1000, (to - origin) / 1000),
        ),
        hit: row_hits.get(first_hit).is_some_and(|t| *t <= last),
    }
}

/// `12 runs, 0:10 to 1:20: zoom in to see each`, for what `from` says, as
/// kept in `labels` (sorted) or written and kept.
fn cluster_label(labels: &mut Vec<(ClusterFrom, Arc<str>)>, from: ClusterFrom) -> Arc<str> {
    match labels.binary_search_by_key(&from, |(k, _)| *k) {
        Ok(at) => labels[at].1.clone(),
        Err(at) => {
            let (runs, first_s, last_s) = from;
            let label: Arc<str> = format!(
                "{}, {} to {}: zoom in to see each",
                count_label(runs as u64, "run", "runs"),
                clock_offset(first_s * 1000),
                clock_offset(last_s * 1000)
            )
            .into();
            labels.insert(at, (from, label.clone()));
            label
        }
    }
}
