//! The subagent roster (SPEC.md §8): every subagent of the transcript, nested
//! ones under their parent, with type, description, status, duration, tokens,
//! model and the one-line summary; filterable (running / failed / all) and
//! sortable (start, duration, tokens). Choosing one follows the deep link of
//! SPEC.md §4 to its card.
//!
//! [`roster_entry`] reads one subagent (through the card's own rules, so the
//! roster and the card never disagree); [`roster_view`] orders and filters
//! entries, which a caller may keep between updates and refresh one by one.

use super::card::card_view;
use super::format::{
    count_label, format_duration, format_tokens, format_tokens_exact, group_thousands,
};
use super::lifecycle::LifecycleMark;
use super::row::{anchor_id, MAX_INDENT_DEPTH};
use crate::activity::Clock;
use crate::layout::{Layout, RowKey, RowKind};
use crate::status::RunState;
use crate::store::{OrderKey, Store};
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

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

    /// Whether a subagent in `status` passes.
    pub fn admits(self, status: RunState) -> bool {
        match self {
            RosterFilter::All => true,
            RosterFilter::Running => status.is_running(),
            RosterFilter::Failed => status == RunState::Failed,
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
}

impl RosterSort {
    /// Every order, in the order the roster offers them.
    pub const ALL: [RosterSort; 3] = [RosterSort::Start, RosterSort::Duration, RosterSort::Tokens];

    /// The order's name, for labels and option values.
    pub fn as_str(self) -> &'static str {
        match self {
            RosterSort::Start => "start",
            RosterSort::Duration => "duration",
            RosterSort::Tokens => "tokens",
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
    /// Reported duration; while running, the time since it started.
    pub duration_ms: Option<u64>,
    pub tokens: Option<u64>,
    pub model: Option<String>,
    pub summary: Option<String>,
}

/// One row of the roster, ready to render.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RosterItem {
    /// The subagent's message id (`data-id`).
    pub id: String,
    /// The deep link to its card: `msg-<id>` (SPEC.md §4).
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
    /// Listed only because a subagent inside it passes the filter.
    pub context_only: bool,
    /// The accessible name of its link.
    pub label: String,
}

/// One filter button: `running · 3`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FilterOption {
    pub filter: RosterFilter,
    pub label: String,
    pub count: usize,
    pub selected: bool,
}

/// How many subagents the roster lists at first, and how many more each
/// "show more" adds: a session with thousands of subagents keeps a short list
/// (and a short DOM) until the reader asks for more.
pub const ROSTER_PAGE: usize = 100;

/// What the reader asked the roster for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RosterQuery {
    pub filter: RosterFilter,
    pub sort: RosterSort,
    /// How many items to list at most (a multiple of [`ROSTER_PAGE`]).
    pub shown: usize,
}

impl RosterQuery {
    /// The first page of the roster with `filter` and `sort`.
    pub fn new(filter: RosterFilter, sort: RosterSort) -> RosterQuery {
        RosterQuery {
            filter,
            sort,
            shown: ROSTER_PAGE,
        }
    }

    /// Another filter: a new list, so its first page.
    pub fn with_filter(self, filter: RosterFilter) -> RosterQuery {
        RosterQuery::new(filter, self.sort)
    }

    /// Another order: a new list, so its first page.
    pub fn with_sort(self, sort: RosterSort) -> RosterQuery {
        RosterQuery::new(self.filter, sort)
    }

    /// "Show more": one more page of the same list.
    pub fn more(self) -> RosterQuery {
        RosterQuery {
            shown: self.shown + ROSTER_PAGE,
            ..self
        }
    }
}

impl Default for RosterQuery {
    fn default() -> RosterQuery {
        RosterQuery::new(RosterFilter::All, RosterSort::Start)
    }
}

/// The whole roster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RosterView {
    /// `12 subagents`.
    pub heading: String,
    pub filters: Vec<FilterOption>,
    pub sort: RosterSort,
    /// The first [`RosterQuery::shown`] items.
    pub items: Vec<RosterItem>,
    /// The button that lists more, when some are not listed:
    /// `Show 100 more (4,977 not listed)`.
    pub more: Option<String>,
    /// Why the list is empty, when it is.
    pub empty_text: Option<String>,
}

/// The nearest subagent card above row `key`.
pub(crate) fn enclosing_subagent(layout: &Layout, key: &RowKey) -> Option<String> {
    let mut cur = layout.row(key)?.parent.clone();
    let mut steps = 0;
    while let Some(k) = cur {
        steps += 1;
        let row = layout.row(&k)?;
        if row.kind == RowKind::Subagent || steps > 4096 {
            return row.message_id().map(str::to_string);
        }
        cur = row.parent.clone();
    }
    None
}

/// What the roster shows of subagent `id`, or `None` when it is not a
/// subagent card (SPEC.md §8).
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
    let elapsed = clock
        .and_then(|c| c.elapsed_ms(id))
        .map(|ms| ms.max(0) as u64);
    Some(RosterEntry {
        id: id.to_string(),
        parent: enclosing_subagent(layout, &key),
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

fn item(entry: &RosterEntry, depth: usize, context_only: bool) -> RosterItem {
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
    let figures: Vec<&str> = [&duration, &tokens, &entry.model]
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
        context_only,
        label,
    }
}

/// Orders siblings by `sort` (ties by start).
fn sort_key(entry: &RosterEntry, sort: RosterSort) -> (Reverse<Option<u64>>, OrderKey) {
    let figure = match sort {
        RosterSort::Start => None,
        RosterSort::Duration => entry.duration_ms,
        RosterSort::Tokens => entry.tokens,
    };
    (Reverse(figure), entry.start)
}

/// The order of the roster for one filter and sort: the ids listed, each
/// with its depth and whether it is there only as context, and how many
/// subagents each filter admits. It changes only when a subagent starts,
/// ends, moves or changes what it is sorted by, so a caller keeps it between
/// updates and re-reads only the page it shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RosterOrder {
    pub filter: RosterFilter,
    pub sort: RosterSort,
    /// `(id, depth, context_only)` in the order listed.
    pub listed: Vec<(String, usize, bool)>,
    /// How many subagents each of [`RosterFilter::ALL`] admits.
    pub counts: [usize; 3],
    /// Every subagent, whatever the filter.
    pub total: usize,
}

impl RosterOrder {
    /// Whether `new` replacing `old` (either may be absent) can change this
    /// order: a subagent came or went, or changed its parent, start, status
    /// or the figure the order sorts by.
    pub fn affected_by(&self, old: Option<&RosterEntry>, new: Option<&RosterEntry>) -> bool {
        match (old, new) {
            (Some(o), Some(n)) => {
                o.parent != n.parent
                    || o.start != n.start
                    || o.status != n.status
                    || sort_key(o, self.sort) != sort_key(n, self.sort)
            }
            (None, None) => false,
            _ => true,
        }
    }
}

/// Orders `entries` (SPEC.md §8): nested subagents under their parent,
/// siblings in `sort` order; with a filter, the subagents that pass and, as
/// context, the subagents that contain them.
pub fn roster_order<'a>(
    entries: impl IntoIterator<Item = &'a RosterEntry>,
    filter: RosterFilter,
    sort: RosterSort,
) -> RosterOrder {
    let by_id: HashMap<&str, &RosterEntry> =
        entries.into_iter().map(|e| (e.id.as_str(), e)).collect();
    let mut shown: HashSet<&str> = HashSet::new();
    let mut context: HashSet<&str> = HashSet::new();
    for e in by_id.values().filter(|e| filter.admits(e.status)) {
        shown.insert(e.id.as_str());
        let mut parent = e.parent.as_deref();
        while let Some(p) = parent.and_then(|p| by_id.get(p)) {
            if !context.insert(p.id.as_str()) {
                break;
            }
            parent = p.parent.as_deref();
        }
    }
    let mut children: HashMap<Option<&str>, Vec<&RosterEntry>> = HashMap::new();
    for e in by_id.values() {
        if shown.contains(e.id.as_str()) || context.contains(e.id.as_str()) {
            let parent = e.parent.as_deref().filter(|p| by_id.contains_key(p));
            children.entry(parent).or_default().push(e);
        }
    }
    for siblings in children.values_mut() {
        siblings.sort_unstable_by_key(|e| sort_key(e, sort));
    }
    let mut listed = Vec::new();
    let mut stack: Vec<(&RosterEntry, usize)> = children
        .get(&None)
        .into_iter()
        .flatten()
        .rev()
        .map(|e| (*e, 0))
        .collect();
    let mut emitted = HashSet::new();
    while let Some((e, depth)) = stack.pop() {
        if !emitted.insert(e.id.as_str()) {
            continue;
        }
        listed.push((e.id.clone(), depth, !shown.contains(e.id.as_str())));
        let kids = children.get(&Some(e.id.as_str())).into_iter().flatten();
        stack.extend(kids.rev().map(|k| (*k, depth + 1)));
    }
    let count = |f: RosterFilter| by_id.values().filter(|e| f.admits(e.status)).count();
    RosterOrder {
        filter,
        sort,
        listed,
        counts: RosterFilter::ALL.map(count),
        total: by_id.len(),
    }
}

/// The button that opens the roster, for a transcript of `subagents`
/// subagents: `Subagents · 12`.
pub fn roster_toggle_label(subagents: usize) -> String {
    format!("Subagents · {subagents}")
}

/// The roster as shown: the first `query.shown` subagents of `order`, read
/// from `entries`, with the heading, the filters and the "show more" button.
pub fn roster_page(
    order: &RosterOrder,
    entries: &HashMap<String, RosterEntry>,
    query: RosterQuery,
) -> RosterView {
    let items: Vec<RosterItem> = order
        .listed
        .iter()
        .take(query.shown)
        .filter_map(|(id, depth, context)| Some(item(entries.get(id)?, *depth, *context)))
        .collect();
    let unlisted = order.listed.len().saturating_sub(query.shown);
    let more = (unlisted > 0).then(|| {
        format!(
            "Show {} more ({} not listed)",
            unlisted.min(ROSTER_PAGE),
            group_thousands(unlisted as u64)
        )
    });
    let empty_text = items.is_empty().then(|| {
        match order.filter {
            RosterFilter::All => "No subagents in this transcript yet",
            RosterFilter::Running => "No subagent is running",
            RosterFilter::Failed => "No subagent failed",
        }
        .to_string()
    });
    RosterView {
        heading: count_label(order.total as u64, "subagent", "subagents"),
        filters: RosterFilter::ALL
            .into_iter()
            .zip(order.counts)
            .map(|(f, count)| FilterOption {
                filter: f,
                label: format!("{} · {count}", f.as_str()),
                count,
                selected: f == order.filter,
            })
            .collect(),
        sort: order.sort,
        items,
        more,
        empty_text,
    }
}

/// The roster of `entries` for `query`, ordered afresh.
pub fn roster_view<'a>(
    entries: impl IntoIterator<Item = &'a RosterEntry>,
    query: RosterQuery,
) -> RosterView {
    let entries: HashMap<String, RosterEntry> = entries
        .into_iter()
        .map(|e| (e.id.clone(), e.clone()))
        .collect();
    let order = roster_order(entries.values(), query.filter, query.sort);
    roster_page(&order, &entries, query)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, seq: u64, parent: Option<&str>, status: RunState) -> RosterEntry {
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
        }
    }

    fn ids(view: &RosterView) -> Vec<(String, usize, bool)> {
        view.items
            .iter()
            .map(|i| (i.id.clone(), i.depth, i.context_only))
            .collect()
    }

    fn wave() -> Vec<RosterEntry> {
        vec![
            entry("a", 1, None, RunState::Complete),
            entry("a1", 2, Some("a"), RunState::Failed),
            entry("b", 3, None, RunState::Running),
            entry("c", 4, None, RunState::Failed),
            entry("a2", 5, Some("a"), RunState::Running),
        ]
    }

    #[test]
    fn nested_subagents_follow_their_parent_in_start_order() {
        let view = roster_view(
            &wave(),
            RosterQuery::new(RosterFilter::All, RosterSort::Start),
        );
        assert_eq!(
            ids(&view),
            [
                ("a".into(), 0, false),
                ("a1".into(), 1, false),
                ("a2".into(), 1, false),
                ("b".into(), 0, false),
                ("c".into(), 0, false)
            ]
        );
        assert_eq!(view.heading, "5 subagents");
        assert_eq!(roster_toggle_label(5), "Subagents · 5");
    }

    #[test]
    fn sorting_by_duration_or_tokens_orders_siblings_largest_first() {
        let by_duration = roster_view(
            &wave(),
            RosterQuery::new(RosterFilter::All, RosterSort::Duration),
        );
        let order: Vec<String> = by_duration.items.iter().map(|i| i.id.clone()).collect();
        assert_eq!(order, ["c", "b", "a", "a2", "a1"]);
        let by_tokens = roster_view(
            &wave(),
            RosterQuery::new(RosterFilter::All, RosterSort::Tokens),
        );
        let order: Vec<String> = by_tokens.items.iter().map(|i| i.id.clone()).collect();
        assert_eq!(order, ["a", "a1", "a2", "b", "c"]);
    }

    #[test]
    fn a_filter_keeps_the_parents_of_what_passes_as_context() {
        let view = roster_view(
            &wave(),
            RosterQuery::new(RosterFilter::Failed, RosterSort::Start),
        );
        assert_eq!(
            ids(&view),
            [
                ("a".into(), 0, true),
                ("a1".into(), 1, false),
                ("c".into(), 0, false)
            ]
        );
        let labels: Vec<&str> = view.filters.iter().map(|f| f.label.as_str()).collect();
        assert_eq!(labels, ["all · 5", "running · 2", "failed · 2"]);
        assert!(view.filters[2].selected);
    }

    #[test]
    fn a_long_roster_lists_a_page_at_a_time_and_offers_the_rest() {
        let many: Vec<RosterEntry> = (0..250)
            .map(|n| entry(&format!("s{n:03}"), n, None, RunState::Complete))
            .collect();
        let first = roster_view(&many, RosterQuery::default());
        assert_eq!(first.items.len(), ROSTER_PAGE);
        assert_eq!(first.items[0].id, "s000");
        assert_eq!(first.heading, "250 subagents");
        assert_eq!(
            first.more.as_deref(),
            Some("Show 100 more (150 not listed)")
        );
        let query = RosterQuery::default().more();
        let second = roster_view(&many, query);
        assert_eq!(second.items.len(), 200);
        assert_eq!(second.more.as_deref(), Some("Show 50 more (50 not listed)"));
        let all = roster_view(
            &many,
            RosterQuery {
                shown: 300,
                ..query
            },
        );
        assert_eq!(all.items.last().map(|i| i.id.as_str()), Some("s249"));
        assert_eq!(all.more, None);
    }

    #[test]
    fn another_filter_or_order_starts_again_at_the_first_page_and_more_keeps_both() {
        let deep = RosterQuery::default().more().more();
        assert_eq!(deep.shown, 3 * ROSTER_PAGE);
        let failed = deep.with_filter(RosterFilter::Failed);
        assert_eq!(
            (failed.filter, failed.sort, failed.shown),
            (RosterFilter::Failed, RosterSort::Start, ROSTER_PAGE)
        );
        let by_tokens = deep.with_sort(RosterSort::Tokens);
        assert_eq!(
            (by_tokens.filter, by_tokens.sort, by_tokens.shown),
            (RosterFilter::All, RosterSort::Tokens, ROSTER_PAGE)
        );
        let more = by_tokens.more();
        assert_eq!(
            (more.sort, more.shown),
            (RosterSort::Tokens, 2 * ROSTER_PAGE)
        );
    }

    #[test]
    fn an_empty_filter_says_so() {
        let view = roster_view(
            &[entry("a", 1, None, RunState::Complete)],
            RosterQuery::new(RosterFilter::Running, RosterSort::Start),
        );
        assert_eq!(view.more, None);
        assert!(view.items.is_empty());
        assert_eq!(view.empty_text.as_deref(), Some("No subagent is running"));
    }

    #[test]
    fn items_link_to_the_card_anchor_and_their_name_holds_the_visible_text_in_order() {
        let view = roster_view(
            &wave(),
            RosterQuery::new(RosterFilter::All, RosterSort::Start),
        );
        let b = &view.items[3];
        assert_eq!(b.anchor, "msg-b");
        assert_eq!(b.label, "code-reviewer: pass b, running, 3.0s · 10k tokens");
        let mut done = entry("d", 4, None, RunState::Complete);
        done.model = Some("claude-opus-4-8".into());
        done.summary = Some("APPROVE".into());
        let d = &roster_view(
            &[done],
            RosterQuery::new(RosterFilter::All, RosterSort::Start),
        )
        .items[0];
        assert_eq!(
            d.label,
            "code-reviewer: pass d, done, 4.0s · 10k tokens · claude-opus-4-8, APPROVE"
        );
        assert_eq!(b.duration.as_deref(), Some("3.0s"));
        assert_eq!(b.tokens.as_deref(), Some("10k tokens"));
        assert_eq!(view.items[0].status_text, "done");
    }

    #[test]
    fn a_parent_loop_terminates() {
        let looped = vec![
            entry("x", 1, Some("y"), RunState::Failed),
            entry("y", 2, Some("x"), RunState::Failed),
        ];
        let view = roster_view(
            &looped,
            RosterQuery::new(RosterFilter::Failed, RosterSort::Start),
        );
        assert!(view.items.len() <= 2);
    }
}
