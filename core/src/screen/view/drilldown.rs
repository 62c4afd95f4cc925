//! The board drill-down (docs/behaviour.md §8): activating a task's subagent chip lists
//! the task's running subagents with type, description, `now:` line and
//! elapsed time, each a link to its card in the transcript.

use super::anchor::anchor_id;
use super::card::card_view;
use super::format::{count_label, format_duration};
use super::lifecycle::LifecycleMark;
use crate::state::activity::Clock;
use crate::state::layout::Layout;
use crate::state::store::Store;

/// One running subagent in the drill-down.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DrillDownItem {
    pub id: String,
    /// Its card's anchor in the transcript: `msg-<id>` (docs/behaviour.md §4).
    pub anchor: String,
    pub type_label: String,
    pub description: Option<String>,
    pub description_title: String,
    /// `now: <title of its latest child>`.
    pub now_text: Option<String>,
    /// Time since it started, as a duration chip reads (`1m 05s`).
    pub elapsed: Option<String>,
    /// `background · running` or `stalled` (docs/behaviour.md §8).
    pub lifecycle: Option<LifecycleMark>,
    /// Its bar on the drill-down's small timeline of elapsed times.
    pub bar: Option<ElapsedBar>,
    /// The accessible name of its link.
    pub label: String,
}

/// A running subagent's bar on the drill-down's small timeline, which ends
/// now and starts when the longest running one started: CSS `left` and
/// `width`, in percent of the track.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ElapsedBar {
    pub left: String,
    pub width: String,
}

/// `permille` of a length as a CSS percentage: `12.5%` (integers only, so
/// the wasm needs no float formatting).
pub fn css_percent(permille: u64) -> String {
    format!("{}.{}%", permille / 10, permille % 10)
}

/// The bar of a run going for `elapsed` when the longest has gone for
/// `longest` (at least 1% wide).
pub fn elapsed_bar(elapsed: u64, longest: u64) -> ElapsedBar {
    let width = (elapsed.saturating_mul(1000) / longest.max(1)).clamp(10, 1000);
    ElapsedBar {
        left: css_percent(1000 - width),
        width: css_percent(width),
    }
}

/// The drill-down of one task.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrillDownView {
    /// `3 subagents running`.
    pub heading: String,
    pub items: Vec<DrillDownItem>,
    /// Shown when nothing runs.
    pub empty_text: Option<String>,
    /// Where the small timeline starts: `4m 30s ago` (it ends now).
    pub scale_start: Option<String>,
}

/// The running subagents of the open transcript, in start order (docs/behaviour.md §8);
/// none in a file nobody writes any more, whose unsettled runs are
/// interrupted, not running.
pub fn drill_down(store: &Store, layout: &Layout, clock: Option<Clock>) -> DrillDownView {
    let still = clock.is_some_and(|c| c.is_still());
    let mut running: Vec<(_, &str)> = layout
        .running_cards()
        .filter(|_| !still)
        .filter_map(|id| store.message_key(id).map(|k| (k, id)))
        .collect();
    running.sort_unstable();
    let elapsed_ms = |id: &str| clock.and_then(|c| c.running_for(id));
    let longest = running.iter().filter_map(|(_, id)| elapsed_ms(id)).max();
    let items: Vec<DrillDownItem> = running
        .into_iter()
        .filter_map(|(_, id)| {
            let card = card_view(store, layout, id, clock)?;
            let ms = elapsed_ms(id);
            let elapsed = ms.map(format_duration);
            // The name holds the visible text, in its order (WCAG 2.5.3).
            let mut label = card.type_label.clone();
            if let Some(d) = &card.description {
                label.push_str(&format!(": {d}"));
            }
            let mark = card.lifecycle.as_ref().map(|m| &m.text);
            for part in [mark, elapsed.as_ref(), card.now_text.as_ref()]
                .into_iter()
                .flatten()
            {
                label.push_str(", ");
                label.push_str(part);
            }
            Some(DrillDownItem {
                id: id.to_string(),
                anchor: anchor_id(id),
                type_label: card.type_label,
                description: card.description,
                description_title: card.description_title,
                now_text: card.now_text,
                elapsed,
                lifecycle: card.lifecycle,
                bar: ms
                    .zip(longest)
                    .map(|(ms, longest)| elapsed_bar(ms, longest)),
                label,
            })
        })
        .collect();
    let n = items.len() as u64;
    DrillDownView {
        heading: format!("{} running", count_label(n, "subagent", "subagents")),
        empty_text: items
            .is_empty()
            .then(|| "No subagent is running now".to_string()),
        scale_start: longest
            .filter(|_| !items.is_empty())
            .map(|ms| format!("{} ago", format_duration(ms))),
        items,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_small_timeline_ends_now_and_the_longest_running_bar_fills_it() {
        assert_eq!(
            elapsed_bar(90_000, 90_000),
            ElapsedBar {
                left: "0.0%".into(),
                width: "100.0%".into()
            }
        );
        assert_eq!(
            elapsed_bar(30_000, 90_000),
            ElapsedBar {
                left: "66.7%".into(),
                width: "33.3%".into()
            }
        );
        assert_eq!(
            elapsed_bar(0, 90_000).width,
            "1.0%",
            "a run just started still shows"
        );
    }
}
