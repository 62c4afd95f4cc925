//! The Timeline's geometry in whole pixels (docs/user-guide.md "The Timeline"): the time scale, the
//! axis ticks, the concurrency curve's path and the parent's turns as merged
//! spans.

use super::{CURVE_PX, SLICE_PX, TURNS_PX};
use crate::state::activity::Millis;
use crate::state::timeline::intervals::Intervals;
use crate::state::timeline::Timeline;
use std::sync::Arc;

/// Time to pixels over a window.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scale {
    pub(super) from: Millis,
    pub(super) to: Millis,
    pub(super) width: i64,
}

impl Scale {
    pub(super) fn new((from, to): (Millis, Millis), width: u32) -> Scale {
        Scale {
            from,
            to: to.max(from + 1),
            width: i64::from(width.max(1)),
        }
    }

    pub(super) fn x(&self, t: Millis) -> i64 {
        // In f64: exact for any millisecond time, and no 128-bit division
        // per bar and per turn.
        ((t - self.from) as f64 * self.width as f64 / (self.to - self.from) as f64) as i64
    }

    /// The last moment drawn at pixel `px` or left of it: the largest `t`
    /// with `x(t) <= px`. Found once, it lets a walk over moments compare
    /// times, not work out a pixel per moment.
    pub(super) fn last_at(&self, px: i64) -> Millis {
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

    pub(super) fn time(&self, x: i32) -> Millis {
        self.from + ((self.to - self.from) as f64 * f64::from(x) / self.width as f64) as Millis
    }

    /// `from..to` as a pixel start and width inside the area, at least 2 px
    /// wide, and whether it was cut at either edge.
    pub(super) fn span(&self, from: Millis, to: Millis) -> (i32, i32, bool, bool) {
        let (a, b) = (self.x(from), self.x(to));
        let x = a.clamp(0, self.width - 2);
        let end = b.clamp(x + 2, self.width);
        (x as i32, (end - x) as i32, a < 0, b > self.width)
    }
}

/// A tick of the time axis.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tick {
    pub x: i32,
    /// Time since the session's start: `1:30`.
    pub label: String,
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
pub(super) const STEPS_S: [Millis; 19] = [
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
    604_800,
];

pub(super) fn ticks(scale: Scale, origin: Millis) -> Vec<Tick> {
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
    pub(super) window: (Millis, Millis, usize),
    pub(super) version: u64,
    pub(super) peak: u32,
    pub(super) samples: Vec<u32>,
    /// Where the points of each slice begin in `points` (and, last, the
    /// closing point).
    pub(super) starts: Vec<usize>,
    pub(super) points: Vec<u8>,
    /// `points` as text, written once per drawing.
    pub(super) text: Arc<str>,
    /// The slice the last drawing started from (for tests of what a look
    /// costs).
    #[cfg(test)]
    pub(super) drawn_from: usize,
}

impl CurveDrawing {
    /// Draws the slices from `first` on as `tail` (those before are as
    /// drawn).
    pub(super) fn draw(&mut self, tail: &[u32], peak: u32, first: usize) {
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

    pub(super) fn text(&self) -> Arc<str> {
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

pub(super) fn push_int(out: &mut Vec<u8>, n: i64) {
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

/// The main conversation's turns in the window, and their waits, as SVG
/// path data: spans closer than 2 px are drawn as one, so a long session
/// draws no more than its width allows, in two elements.
pub(super) fn turn_paths(
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
pub(super) fn merged_spans(
    list: &Intervals,
    scale: Scale,
    window: (Millis, Millis),
    cap: Millis,
) -> String {
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
pub(super) struct Spans {
    path: Vec<u8>,
    open: Option<(i32, i32)>,
}

impl Spans {
    pub(super) fn add(&mut self, x: i32, w: i32) {
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

    pub(super) fn path(mut self) -> String {
        self.flush();
        String::from_utf8(self.path).unwrap_or_default()
    }
}
