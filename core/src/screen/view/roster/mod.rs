//! The subagent roster (docs/behaviour.md §8): every subagent of the transcript, nested
//! ones under their parent, with type, description, status, duration, tokens,
//! model and the one-line summary; filterable (running / failed / all) and
//! sortable (start, duration, tokens). Choosing one follows the deep link of
//! docs/behaviour.md §4 to its card.
//!
//! [`roster_entry`] reads one subagent (through the card's own rules, so the
//! roster and the card never disagree); [`RosterOrder`] orders and filters
//! entries, kept between updates and changed one entry at a time; and
//! [`roster_page`] reads the rows on screen of it (the list is virtualized:
//! every row is [`ROSTER_ROW_PX`] tall).

mod order;
pub use order::{ListedRow, RosterOrder};

use super::anchor::anchor_id;
use super::card::card_view;
use super::format::{count_label, format_duration, format_tokens, format_tokens_exact};
use super::lifecycle::{at_work, LifecycleMark};
use super::row::MAX_INDENT_DEPTH;
use super::telemetry::telemetry_text;
use crate::model::status::RunState;
use crate::state::activity::Clock;
use crate::state::layout::{Layout, RowKey, RowKind};
use crate::state::store::{OrderKey, Store};
use std::cmp::Reverse;
use std::collections::HashMap;

/// Which subagents the roster lists, in the order [`RosterView::filters`]
/// offers them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RosterFilter {
    #[default]
    All,
    Running,
    Failed,
}

impl RosterFilter {
    /// Every filter, in the order the roster offers them.
    pub const ALL: [RosterFilter; 3] = [
        RosterFilter::All,
        RosterFilter::Running,
        RosterFilter::Failed,
    ];

    /// The filter's name, for labels and `data-filter`.
    pub fn as_str(self) -> &'static str {
        match self {
            RosterFilter::All => "all",
            RosterFilter::Running => "running",
            RosterFilter::Failed => "failed",
        }
    }

    /// Whether subagent `entry` passes: `running` admits a run that may
    /// still be at work, not one a still file cut off (`interrupted`,
    /// docs/behaviour.md §8), which only `all` lists.
    pub fn admits(self, entry: &RosterEntry) -> bool {
        match self {
            RosterFilter::All => true,
            RosterFilter::Running => entry.is_running(),
            RosterFilter::Failed => entry.status == RunState::Failed,
        }
    }
}

/// How siblings are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RosterSort {
    /// By start, earliest first.
    #[default]
    Start,
    /// Longest first; unknown durations last.
    Duration,
    /// Most tokens first; unknown counts last.
    Tokens,
    /// Costliest first (telemetry's `cost_usd`); unknown costs last.
    Cost,
}

impl RosterSort {
    /// Every order, in the order the roster offers them.
    pub const ALL: [RosterSort; 4] = [
        RosterSort::Start,
        RosterSort::Duration,
        RosterSort::Tokens,
        RosterSort::Cost,
    ];

    /// The order's name, for labels and option values.
    pub fn as_str(self) -> &'static str {
        match self {
            RosterSort::Start => "start",
            RosterSort::Duration => "duration",
            RosterSort::Tokens => "tokens",
            RosterSort::Cost => "cost",
        }
    }

    /// The order named `name` (an option value), else by start.
    pub fn parse(name: &str) -> RosterSort {
        RosterSort::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .unwrap_or_default()
    }
}

/// What the roster knows of one subagent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RosterEntry {
    pub id: String,
    /// The nearest subagent that contains it.
    pub parent: Option<String>,
    pub start: OrderKey,
    pub type_label: String,
    pub description: Option<String>,
    pub description_title: String,
    pub status: RunState,
    pub lifecycle: Option<LifecycleMark>,
    /// Reported duration; while running, the time since it started when
    /// that is known (`Clock::running_for`).
    pub duration_ms: Option<u64>,
    pub tokens: Option<u64>,
    pub model: Option<String>,
    pub summary: Option<String>,
    /// What only telemetry knows (`telemetry::telemetry_text`), and its cost.
    pub telemetry: Option<String>,
    pub cost_micro_usd: Option<u64>,
}

#[cfg(test)]
impl RosterEntry {
    /// A test entry: `id`, started `seq`-th, under `parent`, in `status`,
    /// its duration growing and its tokens shrinking with `seq`.
    pub(crate) fn sample(
        id: &str,
        seq: u64,
        parent: Option<&str>,
        status: RunState,
    ) -> RosterEntry {
        RosterEntry {
            id: id.into(),
            parent: parent.map(str::to_string),
            start: OrderKey { time: 0, seq },
            type_label: "code-reviewer".into(),
            description: Some(format!("pass {id}")),
            description_title: format!("pass {id}"),
            status,
            lifecycle: None,
            duration_ms: Some(seq * 1000),
            tokens: Some(10_000 - seq),
            model: None,
            summary: None,
            telemetry: None,
            cost_micro_usd: None,
        }
    }
}

impl RosterEntry {
    /// Whether it may still be at work: running, and not interrupted by the
    /// end of a file nobody writes any more (docs/behaviour.md §8).
    pub fn is_running(&self) -> bool {
        at_work(self.status, self.lifecycle.as_ref())
    }
}

/// One row of the roster, ready to render.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RosterItem {
    /// The subagent's message id (`data-id`).
    pub id: String,
    /// The deep link to its card: `msg-<id>` (docs/behaviour.md §4).
    pub anchor: String,
    /// Subagents above it in the roster (indentation stops at 4).
    pub depth: usize,
    pub type_label: String,
    pub description: Option<String>,
    pub description_title: String,
    /// `running`, `complete`, … for `data-status`.
    pub status: &'static str,
    /// `running`, `background · running`, `stalled`, `done`, `failed`, …
    pub status_text: String,
    /// The status's `title` (the idle time when stalled).
    pub status_title: Option<String>,
    pub duration: Option<String>,
    pub tokens: Option<String>,
    pub tokens_title: Option<String>,
    pub model: Option<String>,
    pub summary: Option<String>,
    /// Time to first token, permission waits, retries and cost, when telemetry told.
    pub telemetry: Option<String>,
    /// Listed only because a subagent inside it passes the filter.
    pub context_only: bool,
    /// The accessible name of its link.
    pub label: String,
    /// Its place in the whole list, from 1 (`aria-posinset`).
    pub position: usize,
}

/// One filter button: `running · 3`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FilterOption {
    pub filter: RosterFilter,
    pub label: String,
    pub count: usize,
    pub selected: bool,
}

/// The height of one roster row, in CSS pixels: every row has it (its three
/// lines are cut to fit; at least 44 px, a touch target), so the list is
/// virtualized by index and holds only the rows on screen, however many
/// subagents there are.
pub const ROSTER_ROW_PX: f64 = 64.0;

/// Rows rendered beyond each edge of the roster's viewport.
const ROSTER_OVERSCAN_ROWS: usize = 2;

/// What the reader asked the roster for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RosterQuery {
    pub filter: RosterFilter,
    pub sort: RosterSort,
}

impl RosterQuery {
    /// The roster with `filter` and `sort`.
    pub fn new(filter: RosterFilter, sort: RosterSort) -> RosterQuery {
        RosterQuery { filter, sort }
    }

    /// Another filter, the same order.
    pub fn with_filter(self, filter: RosterFilter) -> RosterQuery {
        RosterQuery { filter, ..self }
    }

    /// Another order, the same filter.
    pub fn with_sort(self, sort: RosterSort) -> RosterQuery {
        RosterQuery { sort, ..self }
    }
}

/// The rows of the roster list to render: `count` from row `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RosterRows {
    pub first: usize,
    pub count: usize,
}

impl RosterRows {
    /// Every row (tests, and what a list without a viewport shows).
    pub const ALL: RosterRows = RosterRows {
        first: 0,
        count: usize::MAX,
    };
}

impl Default for RosterRows {
    /// The first screen of a list not measured yet.
    fn default() -> RosterRows {
        roster_rows(0.0, 800.0)
    }
}

/// The rows of a roster list scrolled to `scroll_top` with a viewport of
/// `height` pixels, and a few beyond each edge.
pub fn roster_rows(scroll_top: f64, height: f64) -> RosterRows {
    let row = |px: f64| (px.max(0.0) / ROSTER_ROW_PX) as usize;
    let first = row(scroll_top).saturating_sub(ROSTER_OVERSCAN_ROWS);
    let end = row(scroll_top + height.max(0.0)) + 1 + ROSTER_OVERSCAN_ROWS;
    RosterRows {
        first,
        count: end - first,
    }
}

/// Where a key moves the focus in a roster list of `listed` rows, from row
/// `current` (0-based), with `page` rows on screen: the arrows one row, Page
/// Up / Page Down a screen, Home / End the ends. `None` for any other key, or
/// an empty list.
pub fn roster_key_target(key: &str, current: usize, listed: usize, page: usize) -> Option<usize> {
    let last = listed.checked_sub(1)?;
    let page = page.max(1);
    let target = match key {
        "ArrowDown" => current + 1,
        "ArrowUp" => current.saturating_sub(1),
        "PageDown" => current + page,
        "PageUp" => current.saturating_sub(page),
        "Home" => 0,
        "End" => last,
        _ => return None,
    };
    Some(target.min(last))
}

/// The whole roster, with the rows on screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RosterView {
    /// `12 subagents`.
    pub heading: String,
    pub filters: Vec<FilterOption>,
    pub sort: RosterSort,
    /// The rows asked for ([`RosterRows`]), in order.
    pub items: Vec<RosterItem>,
    /// Rows the list holds in all (its height, and `aria-setsize`).
    pub listed: usize,
    /// The space above and below the rendered rows, in pixels.
    pub before_px: u32,
    pub after_px: u32,
    /// Why the list is empty, when it is.
    pub empty_text: Option<String>,
}

/// What the roster shows of subagent `id`, or `None` when it is not a
/// subagent card (docs/behaviour.md §8).
pub fn roster_entry(
    store: &Store,
    layout: &Layout,
    id: &str,
    clock: Option<Clock>,
) -> Option<RosterEntry> {
    let key = RowKey::Message(id.to_string());
    if layout.row(&key)?.kind != RowKind::Subagent {
        return None;
    }
    let card = card_view(store, layout, id, clock)?;
    let sa = store
        .message(id)?
        .metadata
        .subagent
        .clone()
        .unwrap_or_default();
    let running = card.status.is_running();
    let elapsed = clock.and_then(|c| c.running_for(id));
    Some(RosterEntry {
        id: id.to_string(),
        parent: layout.enclosing_subagent(&key),
        start: store.message_key(id)?,
        type_label: card.type_label,
        description: card.description,
        description_title: card.description_title,
        status: card.status,
        lifecycle: card.lifecycle,
        duration_ms: if running {
            elapsed
        } else {
            sa.duration_ms.filter(|d| *d > 0)
        },
        tokens: sa.total_tokens.filter(|t| *t > 0),
        model: Some(sa.model).filter(|m| !m.trim().is_empty()),
        summary: card.result_summary,
        telemetry: telemetry_text(sa.telemetry.as_ref()),
        cost_micro_usd: sa.telemetry.and_then(|t| t.cost_micro_usd),
    })
}

/// The status words of a roster row: the lifecycle marker while running,
/// else the state's word.
fn status_text(entry: &RosterEntry) -> (String, Option<String>) {
    match &entry.lifecycle {
        Some(mark) => (mark.text.clone(), Some(mark.title.clone())),
        None => (entry.status.label().to_string(), None),
    }
}

fn item(entry: &RosterEntry, depth: usize, context_only: bool, position: usize) -> RosterItem {
    let (status_text, status_title) = status_text(entry);
    let what = entry
        .description
        .as_deref()
        .map_or(entry.type_label.clone(), |d| {
            format!("{}: {d}", entry.type_label)
        });
    let mut label = if status_text.is_empty() {
        what
    } else {
        // Not in parentheses: a checker takes those for extra words (WCAG 2.5.3).
        format!("{what}, {status_text}")
    };
    let duration = entry.duration_ms.map(format_duration);
    let tokens = entry.tokens.map(format_tokens);
    // The name holds the visible text, in its order (WCAG 2.5.3, "label in name").
    let figures: Vec<&str> = [&duration, &tokens, &entry.model, &entry.telemetry]
        .into_iter()
        .filter_map(|f| f.as_deref())
        .collect();
    for part in [Some(figures.join(" · ")), entry.summary.clone()]
        .into_iter()
        .flatten()
        .filter(|p| !p.is_empty())
    {
        label.push_str(", ");
        label.push_str(&part);
    }
    RosterItem {
        id: entry.id.clone(),
        anchor: anchor_id(&entry.id),
        depth: depth.min(MAX_INDENT_DEPTH),
        type_label: entry.type_label.clone(),
        description: entry.description.clone(),
        description_title: entry.description_title.clone(),
        status: entry.status.as_str(),
        status_text,
        status_title,
        duration,
        tokens,
        tokens_title: entry.tokens.map(format_tokens_exact),
        model: entry.model.clone(),
        summary: entry.summary.clone(),
        telemetry: entry.telemetry.clone(),
        context_only,
        label,
        position,
    }
}

/// How siblings sort: by the figure the order is by (largest first, unknown
/// last), then by start.
pub(crate) type SortKey = (Reverse<Option<u64>>, OrderKey);

/// Orders siblings by `sort` (ties by start).
fn sort_key(entry: &RosterEntry, sort: RosterSort) -> SortKey {
    let figure = match sort {
        RosterSort::Start => None,
        RosterSort::Duration => entry.duration_ms,
        RosterSort::Tokens => entry.tokens,
        RosterSort::Cost => entry.cost_micro_usd,
    };
    (Reverse(figure), entry.start)
}

/// The button that opens the roster, for a transcript of `subagents`
/// subagents: `Subagents · 12`.
pub fn roster_toggle_label(subagents: usize) -> String {
    format!("Subagents · {subagents}")
}

/// The roster as shown: `rows` of `order`, read from `entries`, with the
/// heading, the filters and the space around the rows.
pub fn roster_page(
    order: &RosterOrder,
    entries: &HashMap<String, RosterEntry>,
    rows: RosterRows,
) -> RosterView {
    let listed = order.listed();
    let first = rows.first.min(listed);
    let items: Vec<RosterItem> = order
        .rows(first, rows.count)
        .into_iter()
        .zip(first + 1..)
        .filter_map(|((id, depth, context), position)| {
            Some(item(entries.get(&id)?, depth, context, position))
        })
        .collect();
    let px = |n: usize| (n as f64 * ROSTER_ROW_PX) as u32;
    let empty_text = (listed == 0).then(|| {
        match order.filter {
            RosterFilter::All => "No subagents in this transcript yet",
            RosterFilter::Running => "No subagent is running",
            RosterFilter::Failed => "No subagent failed",
        }
        .to_string()
    });
    RosterView {
        heading: count_label(order.total() as u64, "subagent", "subagents"),
        filters: RosterFilter::ALL
            .into_iter()
            .zip(order.counts())
            .map(|(f, count)| FilterOption {
                filter: f,
                label: format!("{} · {count}", f.as_str()),
                count,
                selected: f == order.filter,
            })
            .collect(),
        sort: order.sort,
        before_px: px(first),
        after_px: px(listed - first - items.len()),
        items,
        listed,
        empty_text,
    }
}

/// The roster of `entries` for `query`, ordered afresh, with `rows`.
pub fn roster_view<'a>(
    entries: impl IntoIterator<Item = &'a RosterEntry>,
    query: RosterQuery,
    rows: RosterRows,
) -> RosterView {
    let entries: HashMap<String, RosterEntry> = entries
        .into_iter()
        .map(|e| (e.id.clone(), e.clone()))
        .collect();
    let order = RosterOrder::build(entries.values(), query.filter, query.sort);
    roster_page(&order, &entries, rows)
}

#[cfg(test)]
mod tests;
