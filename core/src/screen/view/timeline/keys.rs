//! The Timeline's keyboard (docs/user-guide.md "The Timeline"): which bar the arrow keys, Home and
//! End move the focus to.

use crate::state::timeline::Timeline;

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
