//! What the reader asked the Timeline to show (docs/user-guide.md "The
//! Timeline"): the window of time and the rows in view, moved by zoom, pan,
//! brush and scroll, and the bounds of a session's axis.

use super::{Scale, TimelineKey, MIN_WINDOW_MS, STEPS_S};
use crate::state::activity::Millis;
use crate::state::timeline::Timeline;

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
pub(super) fn clamp_window(
    from: Millis,
    to: Millis,
    bounds: (Millis, Millis),
) -> Option<(Millis, Millis)> {
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
pub(super) fn axis((from, to): (Millis, Millis)) -> (Millis, Millis) {
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
