//! The accessible table of the Timeline's runs (docs/user-guide.md "The
//! Timeline"), a page at a time.

use super::{bar_state, clock_offset, end_text, figures, run_name, tokens_text, TABLE_PAGE};
use crate::screen::view::anchor::anchor_id;
use crate::screen::view::format::{format_duration, group_thousands};
use crate::state::activity::Clock;
use crate::state::layout::Layout;
use crate::state::store::Store;
use crate::state::timeline::run::End;
use crate::state::timeline::Timeline;

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
    let still = clock.is_some_and(|c| c.is_still());
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
                    End::Open if still => end_text(run, f.end, origin, still),
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
pub(super) fn text_px(text: &str, word: Option<&str>) -> i64 {
    let chars = text.chars().count() + word.map_or(0, |w| w.chars().count() + 1);
    chars as i64 * 7 + 8
}
