//! The Timeline view (issue 26): every subagent run as a bar on one time axis
//! shared with the parent's turns, a concurrency curve with its peak, the
//! critical path of each fan-in, where the time went, a minimap to brush a
//! zoom window, and an accessible table of the same runs. Geometry is decided
//! here, in whole pixels; the component only draws it.
//!
//! Only the rows in view are built ([`TimelineQuery::first_row`],
//! [`TimelineQuery::rows`]), so a session of thousands of runs draws a
//! screenful.

use super::card::names;
use super::format::{abbreviate, count_label, format_duration, format_tokens, group_thousands};
use super::row::anchor_id;
use super::tokens::nested_tokens;
use crate::model::message::SubagentTask;
use crate::model::status::RunState;
use crate::state::activity::{Clock, Millis};
use crate::state::layout::{Layout, RowKey};
use crate::state::store::Store;
use crate::state::timeline::breakdown::Breakdown;
use crate::state::timeline::curve::Curve;
use crate::state::timeline::hits::Hits;
use crate::state::timeline::intervals::{gallop, Intervals};
use crate::state::timeline::lanes::Lane;
use crate::state::timeline::run::{End, EndSource};
use crate::state::timeline::{Run, Timeline};
use foldhash::HashMap;
use std::sync::Arc;

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
/// (the page holds at most 400 elements, issue 25): with many packed rows
/// in view, clusters are wider than [`CLUSTER_PX`].
const PACKED_DRAWN: usize = 32;

/// What the reader asked the timeline for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineQuery {
    /// The time shown, `None` for the whole session (which grows live).
    pub window: Option<(Millis, Millis)>,
    /// The width of the bars' area, in pixels.
    pub width: u32,
    /// The first row scrolled into view, and how many rows fit.
    pub first_row: usize,
    pub rows: usize,
    /// Runs that never overlap share a row.
    pub packed: bool,
    /// Runs whose nested runs are hidden, sorted.
    pub collapsed: Vec<String>,
    /// The run the keyboard is on.
    pub focus: Option<String>,
}

impl Default for TimelineQuery {
    fn default() -> TimelineQuery {
        TimelineQuery {
            window: None,
            width: 640,
            first_row: 0,
            rows: 12,
            packed: false,
            collapsed: Vec::new(),
            focus: None,
        }
    }
}

/// `from..to`, at least [`MIN_WINDOW_MS`] wide and inside `bounds`; `None`
/// when it holds all of them.
fn clamp_window(from: Millis, to: Millis, bounds: (Millis, Millis)) -> Option<(Millis, Millis)> {
    let whole = bounds.1 - bounds.0;
    let width = (to - from).max(MIN_WINDOW_MS);
    if width >= whole {
        return None;
    }
    let from = from.clamp(bounds.0, bounds.1 - width);
    Some((from, from + width))
}

/// A move the reader made on the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimelineMove {
    /// Close the panel (its button, Escape).
    Close,
    /// Pack the rows (runs that never overlap share one) or not.
    Pack(bool),
    /// The table instead of the chart, or back.
    Table(bool),
    /// Another page of the table: `-1` or `1`.
    Page(i32),
    /// Zoom in (`true`) or out around pixel `x` of the bars' area (its
    /// middle when `None`).
    Zoom(Option<i32>, bool),
    /// Pan by pixels of the bars' area.
    Pan(i32),
    /// A window brushed on the minimap, from one pixel to another.
    Brush(i32, i32),
    /// The whole session again.
    Whole,
    /// The rows in view: the first and how many.
    Rows(usize, usize),
    /// The bars' area is this wide.
    Width(u32),
    /// A key that moves the focus between bars.
    Key(TimelineKey),
    /// A run was chosen (its message id): open its card.
    Choose(String),
    /// The keyboard's focus reached run `id`'s bar (a click, Tab).
    Focus(String),
    /// A run's nested runs shown or hidden.
    Toggle(String),
    /// Zoom to a span of time (a cluster's runs), with a margin.
    Span(Millis, Millis),
}

impl TimelineQuery {
    /// The query after `mv` on a session spanning `bounds`, for the moves
    /// that only change it (`None` for the others: closing, the table, the
    /// keyboard, choosing a run).
    pub fn moved(&self, bounds: (Millis, Millis), mv: &TimelineMove) -> Option<TimelineQuery> {
        Some(match mv {
            TimelineMove::Pack(packed) => TimelineQuery {
                packed: *packed,
                ..self.clone()
            },
            TimelineMove::Zoom(at, zoom_in) => self.zoomed(bounds, *at, *zoom_in),
            TimelineMove::Pan(by) => self.panned(bounds, *by),
            TimelineMove::Brush(x0, x1) => self.brushed(bounds, *x0, *x1),
            TimelineMove::Whole => self.whole(),
            TimelineMove::Rows(first_row, rows) => TimelineQuery {
                first_row: *first_row,
                rows: *rows,
                ..self.clone()
            },
            TimelineMove::Width(width) => TimelineQuery {
                width: *width,
                ..self.clone()
            },
            TimelineMove::Toggle(id) => self.toggled(id),
            TimelineMove::Span(from, to) => self.spanned(bounds, *from, *to),
            TimelineMove::Focus(id) => TimelineQuery {
                focus: Some(id.clone()),
                ..self.clone()
            },
            TimelineMove::Close
            | TimelineMove::Table(_)
            | TimelineMove::Page(_)
            | TimelineMove::Key(_)
            | TimelineMove::Choose(_) => return None,
        })
    }

    /// The window shown, within `bounds`.
    pub fn shown(&self, bounds: (Millis, Millis)) -> (Millis, Millis) {
        self.window.unwrap_or(bounds)
    }

    /// Zoomed in (to two thirds) or out (by half again) around pixel `at`
    /// of the bars' area (its middle when `None`): the moment under it
    /// stays under it.
    pub(crate) fn zoomed(
        &self,
        bounds: (Millis, Millis),
        at: Option<i32>,
        zoom_in: bool,
    ) -> TimelineQuery {
        let (from, to) = self.shown(bounds);
        let span = i128::from(to - from);
        let at = at.unwrap_or(self.width as i32 / 2);
        let at = i128::from(at.clamp(0, self.width as i32));
        let width = i128::from(self.width.max(1));
        let pivot = from + (span * at / width) as Millis;
        let new_span = if zoom_in { span * 2 / 3 } else { span * 3 / 2 }.max(1);
        let new_from = pivot - (new_span * at / width) as Millis;
        TimelineQuery {
            window: clamp_window(new_from, new_from + new_span as Millis, bounds),
            ..self.clone()
        }
    }

    /// Moved by `by` pixels of the bars' area (later when positive).
    pub(crate) fn panned(&self, bounds: (Millis, Millis), by: i32) -> TimelineQuery {
        let (from, to) = self.shown(bounds);
        let shift =
            (i128::from(to - from) * i128::from(by) / i128::from(self.width.max(1))) as Millis;
        TimelineQuery {
            window: self
                .window
                .and_then(|_| clamp_window(from + shift, to + shift, bounds)),
            ..self.clone()
        }
    }

    /// The window brushed on the minimap, from pixel `x0` to `x1` (the
    /// minimap spans the session over the same width); a click (no width)
    /// centres the window there.
    pub(crate) fn brushed(&self, bounds: (Millis, Millis), x0: i32, x1: i32) -> TimelineQuery {
        let scale = Scale::new(bounds, self.width);
        let (a, b) = (scale.time(x0.min(x1)), scale.time(x0.max(x1)));
        let window = if (x0 - x1).abs() < 3 {
            let (from, to) = self.shown(bounds);
            let half = (to - from) / 2;
            clamp_window(a - half, a + half, bounds)
        } else {
            clamp_window(a, b, bounds)
        };
        TimelineQuery {
            window,
            ..self.clone()
        }
    }

    /// The window on `from..to` with a tenth of it to spare at each side.
    pub(crate) fn spanned(
        &self,
        bounds: (Millis, Millis),
        from: Millis,
        to: Millis,
    ) -> TimelineQuery {
        let margin = (to - from).max(0) / 10;
        TimelineQuery {
            window: clamp_window(from - margin, to + margin, bounds),
            ..self.clone()
        }
    }

    /// The whole session again.
    pub(crate) fn whole(&self) -> TimelineQuery {
        TimelineQuery {
            window: None,
            ..self.clone()
        }
    }

    /// Run `id`'s nested runs shown or hidden.
    pub(crate) fn toggled(&self, id: &str) -> TimelineQuery {
        let mut collapsed = self.collapsed.clone();
        match collapsed.binary_search_by(|c| c.as_str().cmp(id)) {
            Ok(i) => {
                collapsed.remove(i);
            }
            Err(i) => collapsed.insert(i, id.to_string()),
        }
        TimelineQuery {
            collapsed,
            ..self.clone()
        }
    }
}

/// Time to pixels over a window.
#[derive(Clone, Copy, Debug)]
struct Scale {
    from: Millis,
    to: Millis,
    width: i64,
}

impl Scale {
    fn new((from, to): (Millis, Millis), width: u32) -> Scale {
        Scale {
            from,
            to: to.max(from + 1),
            width: i64::from(width.max(1)),
        }
    }

    fn x(&self, t: Millis) -> i64 {
        // In f64: exact for any millisecond time, and no 128-bit division
        // per bar and per turn.
        ((t - self.from) as f64 * self.width as f64 / (self.to - self.from) as f64) as i64
    }

    /// The last moment drawn at pixel `px` or left of it: the largest `t`
    /// with `x(t) <= px`. Found once, it lets a walk over moments compare
    /// times, not work out a pixel per moment.
    fn last_at(&self, px: i64) -> Millis {
        let span = i128::from(self.to - self.from);
        let exact = (i128::from(px) + 1) * span;
        let mut t = self.from + (exact / i128::from(self.width)) as Millis;
        // `x` rounds in f64: step to its own boundary (a step or two; never
        // more than 64, whatever times a hostile file holds).
        for _ in 0..64 {
            if self.x(t) <= px {
                break;
            }
            t -= 1;
        }
        for _ in 0..64 {
            if self.x(t + 1) > px {
                break;
            }
            t += 1;
        }
        t
    }

    fn time(&self, x: i32) -> Millis {
        self.from + ((self.to - self.from) as f64 * f64::from(x) / self.width as f64) as Millis
    }

    /// `from..to` as a pixel start and width inside the area, at least 2 px
    /// wide, and whether it was cut at either edge.
    fn span(&self, from: Millis, to: Millis) -> (i32, i32, bool, bool) {
        let (a, b) = (self.x(from), self.x(to));
        let x = a.clamp(0, self.width - 2);
        let end = b.clamp(x + 2, self.width);
        (x as i32, (end - x) as i32, a < 0, b > self.width)
    }
}

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
    /// Still going: drawn open at its end.
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

/// A tick of the time axis.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tick {
    pub x: i32,
    /// Time since the session's start: `1:30`.
    pub label: String,
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
    /// Now, while a run is going and now is in the window.
    pub now_x: Option<i32>,
    /// The main conversation's turns over the window, and when they
    /// waited on their subagents, as SVG path data (width × [`TURNS_PX`]).
    pub turns_path: String,
    pub waits_path: String,
    /// The focused run: its name and where its time went.
    pub focus_text: Option<String>,
}

/// A time since the session's start: `0:05`, `12:30`, `1:02:03`.
pub fn clock_offset(ms: Millis) -> String {
    let s = ms.max(0) / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// Tick steps, the first that leaves at least 90 px between ticks.
const STEPS_S: [Millis; 19] = [
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
    604_800,
];

fn ticks(scale: Scale, origin: Millis) -> Vec<Tick> {
    let span = scale.to - scale.from;
    let room = (scale.width / 90).max(1);
    let step = STEPS_S
        .iter()
        .map(|s| s * 1000)
        .find(|s| span / s <= room)
        .unwrap_or(span.max(1));
    let first = scale.from - origin;
    let mut t = origin + (first + step - 1).div_euclid(step) * step;
    let mut out = Vec::new();
    while t <= scale.to && out.len() < 64 {
        out.push(Tick {
            x: scale.x(t) as i32,
            label: clock_offset(t - origin),
        });
        t += step;
    }
    out
}

/// The curve drawn over one window as SVG points, a step per change of
/// count (runs of equal slices are one segment), kept so that a change
/// draws it again from the slice it changed on, not from the start (a live
/// session changes its end).
#[derive(Clone, Debug, Default)]
pub struct CurveDrawing {
    /// The window and the slices drawn, and the curve's version then.
    window: (Millis, Millis, usize),
    version: u64,
    peak: u32,
    samples: Vec<u32>,
    /// Where the points of each slice begin in `points` (and, last, the
    /// closing point).
    starts: Vec<usize>,
    points: Vec<u8>,
    /// `points` as text, written once per drawing.
    text: Arc<str>,
    /// The slice the last drawing started from (for tests of what a look
    /// costs).
    #[cfg(test)]
    drawn_from: usize,
}

impl CurveDrawing {
    /// Draws the slices from `first` on as `tail` (those before are as
    /// drawn).
    fn draw(&mut self, tail: &[u32], peak: u32, first: usize) {
        let height = i64::from(CURVE_PX);
        let y = |count: u32| height - 2 - i64::from(count) * (height - 4) / i64::from(peak.max(1));
        let first = first.min(self.samples.len());
        #[cfg(test)]
        {
            self.drawn_from = first;
        }
        self.points
            .truncate(self.starts.get(first).copied().unwrap_or(0));
        self.starts.truncate(first);
        self.samples.truncate(first);
        self.samples.extend_from_slice(tail);
        self.peak = peak;
        let out = &mut self.points;
        let mut last = first.checked_sub(1).map(|k| self.samples[k]);
        for (k, count) in self.samples.iter().enumerate().skip(first) {
            self.starts.push(out.len());
            let x = k as i64 * SLICE_PX;
            if last != Some(*count) {
                if let Some(before) = last {
                    push_point(out, x, y(before));
                    out.push(b' ');
                }
                push_point(out, x, y(*count));
                out.push(b' ');
                last = Some(*count);
            }
        }
        self.starts.push(out.len());
        if let Some(count) = last {
            push_point(out, self.samples.len() as i64 * SLICE_PX, y(count));
        }
        // Digits, commas and spaces: always UTF-8.
        self.text = Arc::from(std::str::from_utf8(&self.points).unwrap_or_default());
    }

    fn text(&self) -> Arc<str> {
        self.text.clone()
    }
}

/// Writes `x,y` (a live curve writes a thousand of them a look: digits
/// pushed, not formatted).
fn push_point(out: &mut Vec<u8>, x: i64, y: i64) {
    push_int(out, x);
    out.push(b',');
    push_int(out, y);
}

fn push_int(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    let mut digits = [0u8; 20];
    let mut rest = n.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// A run's name: `code-reviewer: the closure diff`, or its type alone.
fn run_name(store: &Store, id: &str) -> String {
    let Some(m) = store.message(id) else {
        return String::new();
    };
    let none = SubagentTask::default();
    match names(m, m.metadata.subagent.as_ref().unwrap_or(&none)) {
        (kind, Some(description), _) => format!("{kind}: {description}"),
        (kind, None, _) => kind,
    }
}

/// Runs going, how long and how many tokens: the visible figures of a run.
struct Figures {
    start: Millis,
    end: Option<Millis>,
    duration: Option<String>,
    tokens: Option<u64>,
    nested: Option<u64>,
}

fn figures(
    tl: &Timeline,
    store: &Store,
    layout: &Layout,
    id: &str,
    run: &Run,
    now: Option<Millis>,
) -> Figures {
    let end = tl.end_of(id, now);
    Figures {
        start: run.placed.start,
        end,
        duration: end
            .filter(|_| run.placed.end != End::Unknown)
            .map(|e| format_duration((e - run.placed.start).max(0) as u64)),
        tokens: run.facts.tokens,
        nested: tl
            .launched(id)
            .then(|| nested_tokens(store, layout, &RowKey::Message(id.to_string())))
            .flatten(),
    }
}

/// `48.2k tokens, 61k with nested`.
fn tokens_text(own: Option<u64>, nested: Option<u64>) -> Option<String> {
    let own_text = own.map(format_tokens);
    let with = nested.map(|n| format!("{} with nested", abbreviate(own.unwrap_or(0) + n)));
    let parts: Vec<String> = [own_text, with].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// Where a run's (or all runs') time went, in words.
pub fn breakdown_text(b: &Breakdown) -> String {
    let d = |ms: Millis| format_duration(ms.max(0) as u64);
    let mut parts = match b.split {
        Some((model, tool)) => vec![format!("model {}", d(model)), format!("tools {}", d(tool))],
        None => vec![format!(
            "model and tools {} (this source does not record when tool calls end)",
            d(b.active)
        )],
    };
    if b.waiting > 0 {
        parts.push(format!("waiting on its subagents {}", d(b.waiting)));
    }
    parts.push(format!("idle {}", d(b.idle)));
    parts.join(", ")
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
    let going = tl.is_going();
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
                open: run.placed.end == End::Open,
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

/// What the last look drew that the next may draw the same (see
/// [`timeline_view`]): the words of settled runs' bars, by run, each with
/// what it was worked out from; clusters' labels; the ticks of the last
/// axis; the summary; the curves of the last two windows.
#[derive(Clone, Debug, Default)]
pub struct KeptBars {
    words: HashMap<String, (WordsFrom, BarWords)>,
    /// Clusters' labels, by what they say, sorted.
    cluster_labels: Vec<(ClusterFrom, Arc<str>)>,
    ticks: Option<(TicksFrom, Vec<Tick>)>,
    summary: Option<(SummaryFrom, String)>,
    /// How many bars the last look drew.
    bars_drawn: usize,
    /// The last two windows' curves (the window's and the minimap's).
    curves: Vec<CurveDrawing>,
    /// Packed rows of settled runs as drawn, by row, with what they were
    /// drawn from and the focus then.
    rows: HashMap<usize, (RowFrom, Option<String>, Arc<LaneView>)>,
}

/// What a packed row is drawn from, besides the focus: its version and
/// runs, the window, the width, the width of a cluster, the session's start
/// and the matches' generation.
type RowFrom = (u64, usize, (Millis, Millis), u32, i32, Millis, u64);

/// Rows a look draws, about (kept packed rows are forgotten past four times it).
const ROWS_KEPT_PER_LOOK: usize = 64;

/// What a cluster's label says: its runs, and the seconds of its first
/// start and its last end since the session's start.
type ClusterFrom = (usize, Millis, Millis);

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
    fn curve(&mut self, curve: &Curve, from: Millis, to: Millis, slices: usize) -> Arc<str> {
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
    fn summary(&mut self, from: SummaryFrom) -> String {
        kept_while_same(
            &mut self.summary,
            from,
            |&(total, unknown, runs, waited, fan_ins)| {
                summary_text(&total, unknown, runs, waited, fan_ins)
            },
        )
    }

    /// The ticks of `scale` from `origin`, as last drawn when they are the same.
    fn ticks(&mut self, scale: Scale, origin: Millis) -> Vec<Tick> {
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

/// What a bar's words are worked out from, besides its run's records: the
/// run's [`Run::version`], the session's start, the wait it caused.
type WordsFrom = (u64, Millis, Option<Millis>);

/// What a bar says: its run's name, state and figures, and its full label.
#[derive(Clone, Debug)]
pub struct BarWords {
    anchor: Arc<str>,
    name: String,
    status: &'static str,
    state: &'static str,
    word: Option<Arc<str>>,
    text: Arc<str>,
    label: Arc<str>,
}

/// The words of run `id`'s bar, in a session starting at `origin`, its
/// wait `held` when it is on a critical path.
#[allow(clippy::too_many_arguments)]
fn bar_words(
    tl: &Timeline,
    store: &Store,
    layout: &Layout,
    id: &str,
    run: &Run,
    clock: Option<Clock>,
    origin: Millis,
    held: Option<Millis>,
) -> BarWords {
    let name = run_name(store, id);
    let f = figures(
        tl,
        store,
        layout,
        id,
        run,
        clock.and_then(|c| c.source_now()),
    );
    let (status, state, word) = bar_state(run, clock, id);
    let tokens = tokens_text(f.tokens, f.nested);
    let when = format!(
        "{} to {}",
        clock_offset(f.start - origin),
        f.end
            .filter(|_| run.placed.end != End::Open)
            .map_or("now".into(), |e| clock_offset(e - origin))
    );
    let held = held.map(|ms| {
        format!(
            "on the critical path: held its parent {}",
            format_duration(ms as u64)
        )
    });
    let text = [f.duration, f.tokens.map(abbreviate)]
        .into_iter()
        .flatten()
        .collect::<Vec<String>>()
        .join(" · ");
    // Its name holds the visible text, in its place (WCAG 2.5.3): the
    // name, then what the bar says, then the rest.
    let shown = [Some(text.clone()), word.clone()]
        .into_iter()
        .flatten()
        .filter(|t| !t.is_empty())
        .collect::<Vec<String>>()
        .join(" ");
    let label = [Some(name.clone()), Some(shown), Some(when), tokens, held]
        .into_iter()
        .flatten()
        .filter(|t| !t.is_empty())
        .collect::<Vec<String>>()
        .join(", ");
    BarWords {
        anchor: anchor_id(id).into(),
        name,
        status,
        state,
        word: word.map(Arc::from),
        text: text.into(),
        label: label.into(),
    }
}

/// The main conversation's turns in the window, and their waits, as SVG
/// path data: spans closer than 2 px are drawn as one, so a long session
/// draws no more than its width allows, in two elements.
fn turn_paths(
    tl: &Timeline,
    scale: Scale,
    window: (Millis, Millis),
    now: Millis,
) -> (String, String) {
    let turns = merged_spans(tl.turns(), scale, window, Millis::MAX);
    let waits = merged_spans(tl.turn_waves(), scale, window, now);
    (turns, waits)
}

/// The intervals of `list` that reach into `window`, drawn as [`Spans`]
/// would draw them one by one in start order, each cut at `cap`. It costs
/// a binary search per span drawn and per pixel a span grows by, never a
/// walk over the intervals: a span takes in, at once, every interval that
/// starts within a pixel of it, and ends at the latest end among them.
fn merged_spans(list: &Intervals, scale: Scale, window: (Millis, Millis), cap: Millis) -> String {
    let mut spans = Spans::default();
    let x_of = |t: Millis| scale.x(t).clamp(0, scale.width - 2);
    // The right edge of a span from `x` holding an interval ending at `end`.
    let right = |x: i64, end: Millis| scale.x(end.min(cap)).min(scale.width).max(x + 2);
    // The last start drawn at pixel `px` or left of it.
    let last_start_at = |px: i64| match px >= scale.width - 2 {
        true => Millis::MAX,
        false => scale.last_at(px),
    };
    let shown = list.first_not(0, list.count(), |start| start <= window.1);
    let inside = list.first_not(0, shown, |start| start < window.0);
    // Those starting before the window and ending in it all start at 0.
    let mut open = (inside > 0 && list.reach(inside - 1) >= window.0)
        .then(|| (0, right(0, list.reach(inside - 1))));
    // A gap no wider than this is always drawn merged (a pixel of time, less
    // a millisecond for `x`'s rounding); only starts up to `cap` are sure to.
    let one_pixel = (scale.to - scale.from) / scale.width - 1;
    let before_cap = list.first_not(inside, shown, |start| start <= cap);
    let mut i = inside;
    while i < shown {
        let (x0, mut r) = match open {
            Some((x0, r)) if x_of(list.start(i)) <= r + 1 => (x0, r),
            _ => {
                if let Some((x0, r)) = open {
                    spans.add(x0 as i32, (r - x0) as i32);
                }
                let x = x_of(list.start(i));
                (x, x + 2)
            }
        };
        loop {
            // Those starting within a pixel of an end already taken are
            // taken at once, however many (a long session's turns, packed).
            let jump = list.next_gap(i, before_cap, one_pixel);
            if jump > i {
                r = r.max(right(x_of(list.start(jump - 1)), list.reach(jump - 1)));
                i = jump;
            }
            let last = last_start_at(r + 1);
            let j = list.first_not(i, shown, |start| start <= last);
            if j == i {
                break;
            }
            r = r.max(right(x_of(list.start(j - 1)), list.reach(j - 1)));
            i = j;
        }
        open = Some((x0, r));
    }
    if let Some((x0, r)) = open {
        spans.add(x0 as i32, (r - x0) as i32);
    }
    spans.path()
}

/// Pixel spans, those closer than 2 px merged, as SVG rectangles.
#[derive(Default)]
struct Spans {
    path: Vec<u8>,
    open: Option<(i32, i32)>,
}

impl Spans {
    fn add(&mut self, x: i32, w: i32) {
        match &mut self.open {
            Some((ox, ow)) if x <= *ox + *ow + 1 => *ow = (x + w).max(*ox + *ow) - *ox,
            _ => {
                self.flush();
                self.open = Some((x, w));
            }
        }
    }

    /// Writes `M{x} 0h{w}v{TURNS_PX}h-{w}z` (digits pushed, not formatted).
    fn flush(&mut self) {
        if let Some((x, w)) = self.open.take() {
            let out = &mut self.path;
            out.push(b'M');
            push_int(out, i64::from(x));
            out.extend_from_slice(b" 0h");
            push_int(out, i64::from(w));
            out.push(b'v');
            push_int(out, i64::from(TURNS_PX));
            out.extend_from_slice(b"h-");
            push_int(out, i64::from(w));
            out.push(b'z');
        }
    }

    fn path(mut self) -> String {
        self.flush();
        String::from_utf8(self.path).unwrap_or_default()
    }
}

/// Where the whole fan-out's time went, in words.
fn summary_text(
    total: &Breakdown,
    unknown: usize,
    runs: usize,
    waited: Millis,
    fan_ins: usize,
) -> String {
    let known = runs - unknown.min(runs);
    let mut out = if known == 0 {
        "No run's own records are in this session: where their time went is not known.".to_string()
    } else {
        format!(
            "{} ran {} in all: {}.",
            if unknown == 0 {
                "Subagents".to_string()
            } else {
                format!("{} of {runs} runs", known)
            },
            format_duration(total.total.max(0) as u64),
            breakdown_text(total)
        )
    };
    if unknown > 0 && known > 0 {
        out.push_str(&if unknown == 1 {
            " 1 run has no records of its own here.".to_string()
        } else {
            format!(" {unknown} runs have no records of their own here.")
        });
    }
    if fan_ins > 0 {
        out.push_str(&format!(
            " Parents waited {} on their subagents in {}.",
            format_duration(waited.max(0) as u64),
            count_label(fan_ins as u64, "fan-in", "fan-ins")
        ));
    }
    out
}

/// The focused run's name, figures and where its time went.
fn focus_text(
    tl: &mut Timeline,
    store: &Store,
    layout: &Layout,

    id: &str,
    now: Option<Millis>,
) -> Option<String> {
    let breakdown = tl.breakdown(store, layout, id, now);
    let run = tl.runs().get(id)?;
    let f = figures(tl, store, layout, id, run, now);
    let mut parts = vec![run_name(store, id)];
    parts.extend(f.duration);
    parts.extend(tokens_text(f.tokens, f.nested));
    let mut out = parts.join(" · ");
    out.push_str(&match breakdown {
        Some(b) => format!(" — {}.", breakdown_text(&b)),
        None => " — its own records are not in this session: where its time went is not known."
            .to_string(),
    });
    if run.placed.end == End::Unknown {
        out.push_str(" Its end is not recorded.");
    } else if let End::At(_, EndSource::LastRecord) = run.placed.end {
        out.push_str(" Its end is its last record (the source does not say when it ended).");
    }
    Some(out)
}

/// One run in the table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TableRow {
    pub id: String,
    pub anchor: String,
    pub name: String,
    pub depth: usize,
    pub start: String,
    pub end: String,
    pub duration: String,
    pub status: String,
    pub tokens: String,
    /// `yes, held its parent 12.0s` or `no`.
    pub critical: String,
}

/// A page of the table of runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimelineTable {
    pub rows: Vec<TableRow>,
    /// `Runs 1–20 of 43`.
    pub range_text: String,
    pub has_previous: bool,
    pub has_next: bool,
}

/// Page `page` (from 0) of the table of every run, in the chart's order
/// unpacked, nested runs under their parent.
pub fn timeline_table(
    tl: &mut Timeline,
    store: &Store,
    layout: &Layout,
    clock: Option<Clock>,
    page: usize,
) -> TimelineTable {
    let now = clock.and_then(|c| c.source_now());
    tl.prepare(store, layout, false, &[]);
    let order: Vec<(String, usize)> = tl
        .rows()
        .0
        .iter()
        .flat_map(|l| l.runs.iter().map(move |id| (id.clone(), l.depth)))
        .collect();
    let origin = tl.bounds().map_or(0, |b| b.0);
    let pages = order.len().div_ceil(TABLE_PAGE).max(1);
    let page = page.min(pages - 1);
    let from = page * TABLE_PAGE;
    let to = (from + TABLE_PAGE).min(order.len());
    let runs = tl.runs();

    let rows = order[from..to]
        .iter()
        .filter_map(|(id, depth)| {
            let run = runs.get(id)?;
            let f = figures(tl, store, layout, id, run, now);
            let (_, _, word) = bar_state(run, clock, id);
            Some(TableRow {
                id: id.clone(),
                anchor: anchor_id(id),
                name: run_name(store, id),
                depth: *depth,
                start: clock_offset(f.start - origin),
                end: match run.placed.end {
                    End::Open => "running".into(),
                    End::Unknown => "not recorded".into(),
                    End::At(t, _) => clock_offset(t - origin),
                },
                duration: f.duration.unwrap_or_default(),
                status: word.unwrap_or_else(|| "done".into()),
                tokens: tokens_text(f.tokens, f.nested).unwrap_or_default(),
                critical: match tl.on_path(id) {
                    Some(p) => format!(
                        "yes, held its parent {}",
                        format_duration(p.held(f.end.unwrap_or(f.start)) as u64)
                    ),
                    None => "no".into(),
                },
            })
        })
        .collect();
    TimelineTable {
        rows,
        range_text: if order.is_empty() {
            "No runs".into()
        } else {
            format!(
                "Runs {}–{} of {}",
                from + 1,
                to,
                group_thousands(order.len() as u64)
            )
        },
        has_previous: page > 0,
        has_next: page + 1 < pages,
    }
}

/// About how wide a bar's text is drawn, in pixels (a 7 px average glyph).
fn text_px(text: &str, word: Option<&str>) -> i64 {
    let chars = text.chars().count() + word.map_or(0, |w| w.chars().count() + 1);
    chars as i64 * 7 + 8
}

/// The session's first and last moment: now, while a run is going.
/// While a run is going the session ends now, rounded up to a round step
/// of about an eighth of it: the axis grows in steps, not with every
/// moment, and the bars grow inside it.
pub fn view_bounds(tl: &Timeline, now: Option<Millis>) -> (Millis, Millis) {
    let (first, last) = tl.bounds().unwrap_or((0, 1));
    let last = match now.filter(|_| tl.is_going()) {
        Some(now) => {
            let end = last.max(now);
            let eighth = (end - first) / 8;
            let step = STEPS_S
                .iter()
                .map(|s| s * 1000)
                .find(|s| *s >= eighth)
                .unwrap_or(eighth.max(1));
            first + (end - first).div_euclid(step) * step + step
        }
        None => last,
    };
    (first, last.max(first + 1))
}

/// The axis of the whole session `bounds`: its end rounded up to a round
/// time (1, 2 or 5 times a power of ten ms) of at most a hundredth of the
/// session, so while a live session's last moment creeps on within it, the
/// axis, and the curve, the ticks and the bars drawn on it, stay as they were.
fn axis((from, to): (Millis, Millis)) -> (Millis, Millis) {
    let most = (to - from) / 100;
    let mut step: Millis = 1;
    for next in (0..18).flat_map(|k| [1, 2, 5].map(|m| m * 10i64.pow(k))) {
        if next > most {
            break;
        }
        step = next;
    }
    let span = to - from;
    (from, from + (span + step - 1) / step * step)
}

/// The keys that move the focus between bars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimelineKey {
    /// The row above or below: the bar that starts nearest.
    Up,
    Down,
    /// The bar before or after: in its row, else the row before or after.
    Left,
    Right,
    /// The first or the last bar.
    Home,
    End,
}

impl TimelineKey {
    /// The key named `key` (a `KeyboardEvent.key`), if it moves the focus.
    pub fn parse(key: &str) -> Option<TimelineKey> {
        Some(match key {
            "ArrowUp" => TimelineKey::Up,
            "ArrowDown" => TimelineKey::Down,
            "ArrowLeft" => TimelineKey::Left,
            "ArrowRight" => TimelineKey::Right,
            "Home" => TimelineKey::Home,
            "End" => TimelineKey::End,
            _ => return None,
        })
    }
}

/// Where `key` takes the focus from run `from` (the first bar when none),
/// over the rows as last laid out.
pub fn step_focus(tl: &Timeline, from: Option<&str>, key: TimelineKey) -> Option<String> {
    let (lanes, row_of) = tl.rows();
    let start = |id: &String| tl.runs().get(id).map_or(0, |r| r.placed.start);
    let first = || lanes.first()?.runs.first().cloned();
    let Some((row, at)) = from.and_then(|id| {
        let row = *row_of?.get(id)?;
        Some((row, lanes[row].runs.iter().position(|r| r == id)?))
    }) else {
        return first();
    };
    let lane = &lanes[row].runs;
    let nearest = |row: usize| {
        let t = start(&lane[at]);
        lanes
            .get(row)?
            .runs
            .iter()
            .min_by_key(|id| (start(id) - t).abs())
            .cloned()
    };
    match key {
        TimelineKey::Up => row.checked_sub(1).and_then(nearest),
        TimelineKey::Down => nearest(row + 1),
        TimelineKey::Left => match at.checked_sub(1) {
            Some(before) => lane.get(before).cloned(),
            None => lanes.get(row.checked_sub(1)?)?.runs.last().cloned(),
        },
        TimelineKey::Right => lane
            .get(at + 1)
            .cloned()
            .or_else(|| lanes.get(row + 1)?.runs.first().cloned()),
        TimelineKey::Home => first(),
        TimelineKey::End => lanes.last()?.runs.last().cloned(),
    }
}

impl TimelineQuery {
    /// Scrolled so that row `row` is in view.
    pub fn showing_row(&self, row: usize) -> TimelineQuery {
        let rows = self.rows.max(1);
        let first_row = if row < self.first_row {
            row
        } else if row >= self.first_row + rows {
            row + 1 - rows
        } else {
            self.first_row
        };
        TimelineQuery {
            first_row,
            ..self.clone()
        }
    }

    /// Panned (same width) so that `start` is in the window, unless the
    /// whole session is shown.
    pub fn showing_time(&self, bounds: (Millis, Millis), start: Millis) -> TimelineQuery {
        let Some((from, to)) = self.window else {
            return self.clone();
        };
        if (from..=to).contains(&start) {
            return self.clone();
        }
        // A quarter in, so what it did next is in view too.
        let width = to - from;
        let from = start - width / 4;
        TimelineQuery {
            window: clamp_window(from, from + width, bounds),
            ..self.clone()
        }
    }
}

/// One run as the test hook reports it (`window.__taskview.timeline()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRecord {
    /// Its card's message id.
    pub id: String,
    /// The row it is drawn on (a collapsed run's nested runs: its row).
    pub lane: usize,
    pub depth: usize,
    pub start_ms: Millis,
    /// `None` while it runs; its start when its end is not recorded.
    pub end_ms: Option<Millis>,
    /// `running`, `stalled`, `complete`, `failed`, `cancelled`, `settled`.
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

#[cfg(test)]
mod tests {
    use super::*;

    const B: (Millis, Millis) = (0, 100_000);

    /// The curve's samples drawn afresh.
    fn curve_points(samples: &[u32], peak: u32) -> String {
        let mut drawing = CurveDrawing::default();
        drawing.draw(samples, peak, 0);
        drawing.text().to_string()
    }

    #[test]
    fn a_curve_drawn_again_from_where_it_changed_is_the_curve_drawn_afresh() {
        let mut next = crate::state::timeline::test_numbers(5);
        let mut curve = Curve::default();
        let windows = [(0, 60_000, 450), (10_000, 30_000, 120), (0, 60_000, 7)];
        let mut kept = [(); 3].map(|_| KeptBars::default());
        let mut redrawn = 0;
        for k in 0..400 {
            // Mostly at the end, as a live session changes it; now and then
            // anywhere (a late record, a run that moved).
            let start = match k % 17 {
                0 => next(50_000),
                _ => 100 * k + next(300),
            };
            let end = (k % 5 != 0).then(|| start + 1 + next(2_000));
            curve.change(start, end, 1);
            if k % 7 == 3 {
                curve.change(start, end, -1);
            }
            let peak = curve.peak().0;
            for ((from, to, n), kept) in windows.into_iter().zip(&mut kept) {
                assert_eq!(
                    kept.curve(&curve, from, to, n),
                    curve_points(&curve.sample(from, to, n), peak).into(),
                    "after change {k}, over {from}..{to} in {n}"
                );
                redrawn += usize::from(kept.curves[0].drawn_from > 0);
            }
        }
        assert!(
            redrawn > 600,
            "most drawings were drawn again from a later slice, not afresh: {redrawn}"
        );
    }

    #[test]
    fn curve_points_are_written_as_formatting_would_write_them() {
        let formatted = |samples: &[u32], peak: u32| {
            let height = i64::from(CURVE_PX);
            let y = |c: u32| height - 2 - i64::from(c) * (height - 4) / i64::from(peak.max(1));
            let mut points: Vec<String> = Vec::new();
            let mut last = None;
            for (k, c) in samples.iter().enumerate() {
                let x = k as i64 * SLICE_PX;
                if last != Some(*c) {
                    points.extend(last.map(|b| format!("{x},{}", y(b))));
                    points.push(format!("{x},{}", y(*c)));
                    last = Some(*c);
                }
            }
            points.extend(last.map(|c| format!("{},{}", samples.len() as i64 * SLICE_PX, y(c))));
            points.join(" ")
        };
        for (samples, peak) in [
            (vec![], 0),
            (vec![0, 0, 2, 2, 1, 0], 2),
            (vec![7; 600], 7),
            ((0..900).map(|k| k % 13).collect(), 12),
            (vec![3, 9], 2),
        ] {
            assert_eq!(curve_points(&samples, peak), formatted(&samples, peak));
        }
        for n in [0, 7, -3, 1_234_567, i64::MIN, i64::MAX] {
            let mut out = Vec::new();
            push_int(&mut out, n);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
    }

    #[test]
    fn spans_drawn_by_binary_search_are_those_drawn_one_interval_at_a_time() {
        // Intervals of every kind: apart, touching, nested, overlapping,
        // before, across and after the windows drawn.
        let mut next = crate::state::timeline::test_numbers(7);
        let mut list = Intervals::default();
        for k in 0..400 {
            let start = next(100_000);
            let long = if k % 7 == 0 { 20_000 } else { 600 };
            list.insert(start, start + next(long), &format!("t{k}"));
        }
        let one_by_one = |window: (Millis, Millis), width: u32, cap: Millis| {
            let scale = Scale::new(window, width);
            let mut spans = Spans::default();
            for (_, a, b) in list.iter() {
                if b >= window.0 && a <= window.1 {
                    let (x, w, _, _) = scale.span(a, b.min(cap));
                    spans.add(x, w);
                }
            }
            spans.path()
        };
        for window in [
            (0, 100_000),
            (20_000, 25_000),
            (50_000, 99_000),
            (1_000, 1_500),
        ] {
            for width in [40, 300, 1000, 5000] {
                for cap in [Millis::MAX, 60_000] {
                    let scale = Scale::new(window, width);
                    assert_eq!(
                        merged_spans(&list, scale, window, cap),
                        one_by_one(window, width, cap),
                        "{window:?} at {width} px, cut at {cap}"
                    );
                }
            }
        }
    }

    fn query(window: Option<(Millis, Millis)>) -> TimelineQuery {
        TimelineQuery {
            window,
            width: 1000,
            ..TimelineQuery::default()
        }
    }

    #[test]
    fn zooming_keeps_the_moment_under_the_pointer_in_place() {
        let zoomed = query(None).zoomed(B, Some(250), true);
        let (from, to) = zoomed.window.unwrap();
        assert_eq!(to - from, 66_666);
        let scale = Scale::new((from, to), 1000);
        assert_eq!(scale.time(250), 25_000);
        // Out again past the session: the whole session.
        assert_eq!(
            zoomed
                .zoomed(B, Some(250), false)
                .zoomed(B, None, false)
                .window,
            None
        );
        // Never narrower than two seconds.
        let mut q = query(None);
        for _ in 0..40 {
            q = q.zoomed(B, None, true);
        }
        let (from, to) = q.window.unwrap();
        assert_eq!(to - from, MIN_WINDOW_MS);
    }

    #[test]
    fn brushing_the_minimap_picks_the_window_and_a_click_centres_it() {
        let q = query(None).brushed(B, 600, 200);
        assert_eq!(q.window, Some((20_000, 60_000)));
        let centred = q.brushed(B, 900, 900);
        assert_eq!(
            centred.window,
            Some((60_000, 100_000)),
            "kept inside the session"
        );
        assert_eq!(centred.panned(B, -500).window, Some((40_000, 80_000)));
        assert_eq!(centred.whole().window, None);
    }

    #[test]
    fn ticks_are_round_times_since_the_start_at_least_90_px_apart() {
        let labels: Vec<String> = ticks(Scale::new((0, 300_000), 900), 0)
            .into_iter()
            .map(|t| t.label)
            .collect();
        assert_eq!(
            labels,
            [
                "0:00", "0:30", "1:00", "1:30", "2:00", "2:30", "3:00", "3:30", "4:00", "4:30",
                "5:00"
            ]
        );
        assert_eq!(clock_offset(3_723_000), "1:02:03");
    }

    #[test]
    fn a_bar_cut_by_the_window_says_so_and_keeps_two_pixels() {
        let scale = Scale::new((10_000, 20_000), 100);
        assert_eq!(scale.span(0, 15_000), (0, 50, true, false));
        assert_eq!(scale.span(19_999, 30_000), (98, 2, false, true));
    }

    #[test]
    fn where_the_time_went_is_said_and_a_source_without_tool_ends_says_so() {
        let split = Breakdown {
            total: 100_000,
            split: Some((60_000, 30_000)),
            active: 90_000,
            waiting: 0,
            idle: 10_000,
        };
        assert_eq!(
            breakdown_text(&split),
            "model 1m 00s, tools 30.0s, idle 10.0s"
        );
        let unsplit = Breakdown {
            split: None,
            waiting: 5_000,
            ..split
        };
        assert_eq!(
            breakdown_text(&unsplit),
            "model and tools 1m 30s (this source does not record when tool calls end), waiting on its subagents 5.0s, idle 10.0s"
        );
        assert_eq!(
            summary_text(&split, 1, 3, 0, 0),
            "2 of 3 runs ran 1m 40s in all: model 1m 00s, tools 30.0s, idle 10.0s. 1 run has no records of its own here."
        );
    }
}
