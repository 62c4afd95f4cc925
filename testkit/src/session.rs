//! A store with its incrementally maintained layout, the way a page holds a
//! transcript, and short descriptions of its rows for assertions.

use taskview_core::model::event::Event;
use taskview_core::screen::view::card::{card_view, CardView};
use taskview_core::screen::view::group::group_view;
use taskview_core::state::layout::{Layout, Row, RowDiff, RowKey, RowKind};
use taskview_core::state::store::Store;

/// A store and its incrementally maintained layout.
#[derive(Default)]
pub struct Session {
    pub store: Store,
    pub layout: Layout,
}

impl Session {
    /// Applies all `events` to a fresh store, then lays them out once (how
    /// a file or a fetched page is loaded). `Session::default()` is empty.
    pub fn new(events: impl IntoIterator<Item = Event>) -> Session {
        let mut s = Session::default();
        let changes = s.store.apply_all(events);
        s.layout.update(&s.store, &changes);
        s
    }

    /// Applies `events` one by one, updating the layout after each (how a
    /// live source feeds it).
    pub fn with(events: impl IntoIterator<Item = Event>) -> Session {
        let mut s = Session::default();
        for e in events {
            s.apply(e);
        }
        s
    }

    /// Applies one event to the store and the layout.
    pub fn apply(&mut self, e: Event) -> RowDiff {
        let changes = self.store.apply(e);
        self.layout.update(&self.store, &changes)
    }

    /// Top-level rows as short strings: `msg:<id>`, `card:<id>`,
    /// `group:<label>`, `orphans:<p>`, `unreadable`.
    pub fn top(&self) -> Vec<String> {
        self.layout.top_rows().map(describe).collect()
    }

    /// Every row with its depth, cards followed by their children.
    pub fn outline(&self) -> Vec<String> {
        self.layout
            .outline()
            .into_iter()
            .map(|r| format!("{}{}", "  ".repeat(r.depth), describe(r)))
            .collect()
    }

    /// The card of subagent message `id`, as the transcript renders it.
    pub fn card(&self, id: &str) -> CardView {
        card_view(&self.store, &self.layout, id, None).unwrap_or_else(|| panic!("no card {id}"))
    }

    /// The chips of card `id`, as `id:text`.
    pub fn chips(&self, id: &str) -> Vec<String> {
        self.card(id)
            .chips
            .iter()
            .map(|c| format!("{}:{}", c.id, c.text))
            .collect()
    }

    /// The parent tool call ids of the orphan cards (children whose parent
    /// is not loaded).
    pub fn orphan_parents(&self) -> Vec<String> {
        self.layout
            .outline()
            .into_iter()
            .filter_map(|row| match &row.key {
                RowKey::Orphans(parent) => Some(parent.clone()),
                _ => None,
            })
            .collect()
    }

    /// Asserts the incremental layout equals a from-scratch one.
    pub fn assert_matches_full_layout(&self) {
        let full = Layout::from_store(&self.store);
        let inc: Vec<Row> = self.layout.outline().into_iter().cloned().collect();
        let scratch: Vec<Row> = full.outline().into_iter().cloned().collect();
        assert_eq!(
            inc, scratch,
            "incremental layout differs from a full layout"
        );
    }
}

/// A row as a short string: `msg:<id>`, `card:<id>`, `group:<label>`,
/// `orphans:<parent tool call>`, `unreadable`.
pub fn describe(r: &Row) -> String {
    match (&r.kind, &r.key) {
        (RowKind::Message, k) => format!("msg:{k}"),
        (RowKind::Subagent, k) => format!("card:{k}"),
        (RowKind::Group(g), _) => format!("group:{}", group_view(g).label),
        (RowKind::Orphans, RowKey::Orphans(p)) => format!("orphans:{p}"),
        (RowKind::Orphans, k) => format!("orphans?{k}"),
        (RowKind::Unreadable, _) => "unreadable".into(),
    }
}
