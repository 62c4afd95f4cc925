//! The transcript layout (SPEC.md §2): display rows computed from the store and
//! kept up to date incrementally.
//!
//! Rows are keyed stably ([`RowKey`]): a message row or subagent card by its
//! message id, a turn group by `group:<first member id>`, an orphan card by
//! `orphans:<parent tool_call_id>`. Top-level rows are ordered by display
//! position; a card's children are nested rows (messages or cards, never
//! groups: SPEC.md §3.5 renders each child with its full renderer).
//!
//! [`Layout::update`] applies a store's [`Changes`] and touches only what they
//! reach: a message's own row, the run of activity around it, the chain of
//! cards above it, and the messages whose parent it is. Appending a message
//! costs the size of the rows it affects, not the length of the session.

mod diff;
mod facts;
mod runs;

pub use diff::RowDiff;

use crate::store::{Changes, EntryId, OrderKey, Store};
use diff::Tracker;
use facts::{Facts, Placement};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

/// A row's stable identity.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowKey {
    /// A message row or a subagent card: the message id.
    Message(String),
    /// A turn group: its first member's message id.
    Group(String),
    /// An orphan card: the parent `tool_call_id` that is not loaded.
    Orphans(String),
    /// An unreadable entry: its sequence number in the store.
    Unreadable(u64),
}

impl fmt::Display for RowKey {
    /// The DOM key: `<id>`, `group:<id>`, `orphans:<tool_call_id>`, `unreadable:<n>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowKey::Message(id) => write!(f, "{id}"),
            RowKey::Group(id) => write!(f, "group:{id}"),
            RowKey::Orphans(p) => write!(f, "orphans:{p}"),
            RowKey::Unreadable(n) => write!(f, "unreadable:{n}"),
        }
    }
}

/// A turn group (SPEC.md §2.3–§2.4). Its label comes from
/// [`crate::view::group::group_label`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupRow {
    /// Tool calls and thoughts in display order.
    pub member_ids: Vec<String>,
    pub tool_count: usize,
    pub thought_count: usize,
    /// A tool in the group is running (SPEC.md §3.4 rule).
    pub running: bool,
    /// Title of the latest running tool, for the muted `now:` line.
    pub now_text: Option<String>,
}

/// What a row shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// One message with its own renderer (SPEC.md §4).
    Message,
    /// A subagent card (SPEC.md §3); its children are [`Layout::children`].
    Subagent,
    /// A collapsed turn group.
    Group(GroupRow),
    /// A `subagent (not loaded)` card holding children whose parent is missing.
    Orphans,
    /// An unreadable entry, shown with its raw text.
    Unreadable,
}

/// One display row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub key: RowKey,
    pub kind: RowKind,
    /// 0 at top level, +1 per enclosing card (unbounded; the UI caps indentation).
    pub depth: usize,
    /// The enclosing card's row, for nested rows.
    pub parent: Option<RowKey>,
    start: OrderKey,
}

impl Row {
    fn top(key: RowKey, kind: RowKind, start: OrderKey) -> Row {
        Row {
            key,
            kind,
            depth: 0,
            parent: None,
            start,
        }
    }

    /// The message this row shows, for message rows and subagent cards.
    pub fn message_id(&self) -> Option<&str> {
        match (&self.key, &self.kind) {
            (RowKey::Message(id), RowKind::Message | RowKind::Subagent) => Some(id),
            _ => None,
        }
    }
}

/// A top-level row's span of display positions.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TopRow {
    start: OrderKey,
    end: OrderKey,
    key: RowKey,
}

type Members = Vec<(OrderKey, String)>;

/// The laid-out transcript. See the module docs.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    facts: HashMap<String, Facts>,
    placement: HashMap<String, (Placement, OrderKey)>,
    top_members: Vec<(OrderKey, RowKey)>,
    users: Members,
    cards: HashMap<String, Members>,
    orphans: HashMap<String, Members>,
    top: Vec<TopRow>,
    top_rows: HashMap<RowKey, Row>,
    nested_rows: HashMap<String, Row>,
    row_of: HashMap<String, RowKey>,
    turn_index: HashMap<String, HashSet<String>>,
    cuts: HashSet<String>,
}

/// Bookkeeping of one update.
#[derive(Default)]
struct Work {
    tracker: Tracker,
    replace: Vec<String>,
    dirty_top: BTreeSet<OrderKey>,
    user_spans: Vec<OrderKey>,
    touched: Vec<String>,
    containers: Vec<RowKey>,
    kind_check: Vec<String>,
    moved: Vec<String>,
}

fn sorted_insert<T: Clone>(v: &mut Vec<(OrderKey, T)>, key: OrderKey, item: T) {
    let i = v.partition_point(|(k, _)| *k < key);
    if v.get(i).is_some_and(|(k, _)| *k == key) {
        v[i] = (key, item);
    } else {
        v.insert(i, (key, item));
    }
}

fn sorted_remove<T>(v: &mut Vec<(OrderKey, T)>, key: OrderKey) {
    let i = v.partition_point(|(k, _)| *k < key);
    if v.get(i).is_some_and(|(k, _)| *k == key) {
        v.remove(i);
    }
}

impl Layout {
    /// An empty layout; feed it with [`Layout::update`].
    pub fn new() -> Layout {
        Layout::default()
    }

    /// The whole layout of `store`, computed from scratch in one pass.
    pub fn from_store(store: &Store) -> Layout {
        let mut l = Layout::default();
        let ids: Vec<&str> = store
            .entries()
            .filter_map(|(_, e)| match e {
                EntryId::Message(id) => Some(id.as_str()),
                EntryId::Unreadable(_) => None,
            })
            .collect();
        for id in &ids {
            if let (Some(m), Some(k)) = (store.message(id), store.message_key(id)) {
                let f = Facts::of(k, m);
                l.index_turn(id, &f, true);
                l.facts.insert(id.to_string(), f);
            }
        }
        let placements = facts::all_placements(store, &ids);
        for (key, entry) in store.entries() {
            let id = match entry {
                EntryId::Message(id) => id,
                EntryId::Unreadable(n) => {
                    l.top_members.push((key, RowKey::Unreadable(*n)));
                    continue;
                }
            };
            let Some(p) = placements.get(id) else {
                continue;
            };
            if facts::is_cut(store, id, p) {
                l.cuts.insert(id.clone());
            }
            match p {
                Placement::Top => {
                    l.top_members.push((key, RowKey::Message(id.clone())));
                    if l.facts.get(id).is_some_and(|f| f.is_user) {
                        l.users.push((key, id.clone()));
                    }
                }
                Placement::Card(c) => l
                    .cards
                    .entry(c.clone())
                    .or_default()
                    .push((key, id.clone())),
                Placement::Orphans(q) => {
                    let members = l.orphans.entry(q.clone()).or_default();
                    if members.is_empty() {
                        l.top_members.push((key, RowKey::Orphans(q.clone())));
                    }
                    members.push((key, id.clone()));
                }
            }
            l.placement.insert(id.clone(), (p.clone(), key));
        }
        for (top, row) in l.build_rows(store, &l.top_members) {
            l.set_row_of(&row);
            l.top_rows.insert(top.key.clone(), row);
            l.top.push(top);
        }
        let mut stack: Vec<(RowKey, usize)> = l
            .top
            .iter()
            .filter(|t| matches!(t.key, RowKey::Message(_) | RowKey::Orphans(_)))
            .map(|t| (t.key.clone(), 0))
            .collect();
        while let Some((container, depth)) = stack.pop() {
            let members = l.members_of(&container).cloned().unwrap_or_default();
            for (k, id) in members {
                let row = Row {
                    key: RowKey::Message(id.clone()),
                    kind: l.message_kind(&id),
                    depth: depth + 1,
                    parent: Some(container.clone()),
                    start: k,
                };
                stack.push((row.key.clone(), depth + 1));
                l.nested_rows.insert(id, row);
            }
        }
        l
    }

    /// Applies what the store reported (SPEC.md §2, incrementally) and returns
    /// the rows that changed.
    pub fn update(&mut self, store: &Store, changes: &Changes) -> RowDiff {
        let mut w = Work::default();
        let mut refresh: Vec<String> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for tc in &changes.turns {
            for turn in [&tc.before, &tc.after].into_iter().flatten() {
                for id in self.turn_index.get(turn).into_iter().flatten() {
                    if seen.insert(id.clone()) {
                        refresh.push(id.clone());
                    }
                }
            }
        }
        for entry in &changes.entries {
            match entry {
                EntryId::Message(id) => {
                    if seen.insert(id.clone()) {
                        refresh.push(id.clone());
                    }
                }
                EntryId::Unreadable(n) => {
                    if let Some(k) = store.key_of(entry) {
                        sorted_insert(&mut self.top_members, k, RowKey::Unreadable(*n));
                        w.dirty_top.insert(k);
                    }
                }
            }
        }
        for id in &refresh {
            self.refresh_facts(store, id, &mut w);
        }
        self.place_all(store, &mut w);
        self.check_kinds(&mut w);
        self.mark_user_spans(&mut w);
        self.rebuild_top(store, &mut w);
        self.fix_depths(&mut w);
        self.mark_changed(&mut w);
        let Work { tracker, .. } = w;
        tracker.finish(|k| self.row(k))
    }

    /// Number of top-level rows.
    pub fn top_len(&self) -> usize {
        self.top.len()
    }

    /// The top-level row at `index`.
    pub fn top_row(&self, index: usize) -> Option<&Row> {
        self.top.get(index).and_then(|t| self.top_rows.get(&t.key))
    }

    /// Top-level rows in display order.
    pub fn top_rows(&self) -> impl Iterator<Item = &Row> {
        self.top.iter().filter_map(|t| self.top_rows.get(&t.key))
    }

    /// The index of a top-level row (binary search).
    pub fn top_index_of(&self, key: &RowKey) -> Option<usize> {
        let start = self.top_rows.get(key)?.start;
        let i = self.top.partition_point(|t| t.start < start);
        (self.top.get(i)?.key == *key).then_some(i)
    }

    /// Any row, top-level or nested.
    pub fn row(&self, key: &RowKey) -> Option<&Row> {
        match key {
            RowKey::Message(id) => self.nested_rows.get(id).or_else(|| self.top_rows.get(key)),
            _ => self.top_rows.get(key),
        }
    }

    /// The child rows of a subagent card or orphan card, in display order.
    pub fn children<'a>(&'a self, card: &RowKey) -> impl Iterator<Item = &'a Row> + 'a {
        self.members_of(card)
            .into_iter()
            .flatten()
            .filter_map(|(_, id)| self.nested_rows.get(id))
    }

    /// Number of children shown in a card.
    pub fn child_count(&self, card: &RowKey) -> usize {
        self.members_of(card).map_or(0, Vec::len)
    }

    /// The row that shows a message: its own row, its group, or its nested row.
    pub fn row_of_message(&self, id: &str) -> Option<&RowKey> {
        self.nested_rows
            .get(id)
            .map(|r| &r.key)
            .or_else(|| self.row_of.get(id))
    }

    /// The rows to expand to reveal a message (SPEC.md §4 anchors): from the
    /// top-level row down to the row that shows it.
    pub fn path_to(&self, id: &str) -> Vec<RowKey> {
        let mut path = Vec::new();
        let mut cur = self.row_of_message(id).cloned();
        while let Some(key) = cur {
            if path.len() > self.nested_rows.len() {
                break;
            }
            cur = self.row(&key).and_then(|r| r.parent.clone());
            path.push(key);
        }
        path.reverse();
        path
    }

    /// Every row in display order, each card followed by its children (depth
    /// first). For tests, debugging and "expand all".
    pub fn outline(&self) -> Vec<&Row> {
        let mut out = Vec::new();
        let mut stack: Vec<&Row> = self.top_rows().collect();
        stack.reverse();
        while let Some(row) = stack.pop() {
            out.push(row);
            let mut kids: Vec<&Row> = self.children(&row.key).collect();
            kids.reverse();
            stack.extend(kids);
        }
        out
    }

    fn members_of(&self, container: &RowKey) -> Option<&Members> {
        match container {
            RowKey::Message(id) => self.cards.get(id),
            RowKey::Orphans(p) => self.orphans.get(p),
            _ => None,
        }
    }

    /// A card has children or a subagent payload (SPEC.md §1).
    fn is_subagent(&self, id: &str) -> bool {
        self.facts.get(id).is_some_and(|f| {
            f.is_payload_subagent
                || (f.is_tool && self.cards.get(id).is_some_and(|c| !c.is_empty()))
        })
    }

    fn message_kind(&self, id: &str) -> RowKind {
        if self.is_subagent(id) {
            RowKind::Subagent
        } else {
            RowKind::Message
        }
    }

    fn set_row_of(&mut self, row: &Row) {
        match &row.kind {
            RowKind::Group(g) => {
                for m in &g.member_ids {
                    self.row_of.insert(m.clone(), row.key.clone());
                }
            }
            _ => {
                if let RowKey::Message(id) = &row.key {
                    self.row_of.insert(id.clone(), row.key.clone());
                }
            }
        }
    }

    fn index_turn(&mut self, id: &str, f: &Facts, add: bool) {
        let (true, Some(turn)) = (f.turn_sensitive, &f.turn) else {
            return;
        };
        if add {
            self.turn_index
                .entry(turn.clone())
                .or_default()
                .insert(id.to_string());
        } else if let Some(ids) = self.turn_index.get_mut(turn) {
            ids.remove(id);
            if ids.is_empty() {
                self.turn_index.remove(turn);
            }
        }
    }

    /// Re-reads a message's facts and queues what its change reaches.
    fn refresh_facts(&mut self, store: &Store, id: &str, w: &mut Work) {
        let old = self.facts.get(id).cloned();
        let new = store
            .message(id)
            .zip(store.message_key(id))
            .map(|(m, k)| Facts::of(k, m));
        if old.is_none() && new.is_none() {
            return;
        }
        if let Some(o) = &old {
            self.index_turn(id, o, false);
        }
        if let Some(n) = &new {
            self.index_turn(id, n, true);
        }
        if Facts::links_differ(old.as_ref(), new.as_ref()) {
            w.replace.push(id.to_string());
            let tcids: BTreeSet<&String> = old
                .iter()
                .chain(&new)
                .filter_map(|f| f.tool_call_id.as_ref())
                .collect();
            for t in tcids {
                w.replace.extend(store.children_of(t).iter().cloned());
            }
        }
        let user_turn = |f: &Option<Facts>| f.as_ref().map(|f| (f.key, f.is_user, f.turn.clone()));
        let was_or_is_user = old.iter().chain(&new).any(|f| f.is_user);
        if was_or_is_user && user_turn(&old) != user_turn(&new) {
            w.user_spans.extend(old.iter().chain(&new).map(|f| f.key));
        }
        if let Some((Placement::Top, k)) = self.placement.get(id) {
            w.dirty_top.insert(*k);
        }
        w.kind_check.push(id.to_string());
        w.touched.push(id.to_string());
        match new {
            Some(f) => self.facts.insert(id.to_string(), f),
            None => self.facts.remove(id),
        };
    }

    /// Recomputes the placement of every queued message and moves those whose
    /// placement changed. Placement is a pure function of the store; the queue
    /// holds every message whose placement an event can reach (itself, the
    /// children of its tool_call_ids, the members of a loop through it, and
    /// the current loop cuts).
    fn place_all(&mut self, store: &Store, w: &mut Work) {
        let mut queue = std::mem::take(&mut w.replace);
        if queue.is_empty() {
            return;
        }
        let mut done: HashSet<String> = HashSet::new();
        let mut cuts_checked = false;
        loop {
            while let Some(id) = queue.pop() {
                if !done.insert(id.clone()) {
                    continue;
                }
                let new = match (store.message(&id), self.facts.get(&id)) {
                    (Some(_), Some(f)) => {
                        let key = f.key;
                        let (p, loop_members) = facts::placement(store, &id);
                        queue.extend(loop_members.into_iter().filter(|m| !done.contains(m)));
                        if facts::is_cut(store, &id, &p) {
                            self.cuts.insert(id.clone());
                        } else {
                            self.cuts.remove(&id);
                        }
                        Some((p, key))
                    }
                    _ => {
                        self.cuts.remove(&id);
                        None
                    }
                };
                let old = self.placement.get(&id).cloned();
                if old == new {
                    continue;
                }
                if let Some((p, k)) = old {
                    self.remove_member(&p, k, &id, w);
                }
                match new {
                    Some((p, k)) => {
                        self.insert_member(&p, k, &id, w);
                        self.placement.insert(id.clone(), (p, k));
                    }
                    None => {
                        self.placement.remove(&id);
                    }
                }
                w.moved.push(id);
            }
            if cuts_checked {
                break;
            }
            cuts_checked = true;
            queue.extend(self.cuts.iter().filter(|c| !done.contains(*c)).cloned());
        }
    }

    fn container_key(p: &Placement) -> Option<RowKey> {
        match p {
            Placement::Top => None,
            Placement::Card(c) => Some(RowKey::Message(c.clone())),
            Placement::Orphans(q) => Some(RowKey::Orphans(q.clone())),
        }
    }

    fn insert_member(&mut self, p: &Placement, k: OrderKey, id: &str, w: &mut Work) {
        match p {
            Placement::Top => {
                sorted_insert(&mut self.top_members, k, RowKey::Message(id.to_string()));
                if self.facts.get(id).is_some_and(|f| f.is_user) {
                    sorted_insert(&mut self.users, k, id.to_string());
                }
                w.dirty_top.insert(k);
            }
            Placement::Card(c) => {
                sorted_insert(self.cards.entry(c.clone()).or_default(), k, id.to_string());
                w.kind_check.push(c.clone());
            }
            Placement::Orphans(q) => {
                let members = self.orphans.entry(q.clone()).or_default();
                let old_min = members.first().map(|(k, _)| *k);
                sorted_insert(members, k, id.to_string());
                let new_min = members.first().map(|(k, _)| *k);
                self.move_orphan_card(q, old_min, new_min, w);
            }
        }
        if let Some(container) = Self::container_key(p) {
            let row = Row {
                key: RowKey::Message(id.to_string()),
                kind: self.message_kind(id),
                depth: 0,
                parent: Some(container.clone()),
                start: k,
            };
            w.tracker.touch(&row.key, self.row(&row.key));
            self.nested_rows.insert(id.to_string(), row);
            w.containers.push(container);
        }
    }

    fn remove_member(&mut self, p: &Placement, k: OrderKey, id: &str, w: &mut Work) {
        match p {
            Placement::Top => {
                sorted_remove(&mut self.top_members, k);
                sorted_remove(&mut self.users, k);
                w.dirty_top.insert(k);
            }
            Placement::Card(c) => {
                if let Some(members) = self.cards.get_mut(c) {
                    sorted_remove(members, k);
                    if members.is_empty() {
                        self.cards.remove(c);
                    }
                }
                w.kind_check.push(c.clone());
            }
            Placement::Orphans(q) => {
                if let Some(members) = self.orphans.get_mut(q) {
                    let old_min = members.first().map(|(k, _)| *k);
                    sorted_remove(members, k);
                    let new_min = members.first().map(|(k, _)| *k);
                    if members.is_empty() {
                        self.orphans.remove(q);
                    }
                    self.move_orphan_card(q, old_min, new_min, w);
                }
            }
        }
        if let Some(container) = Self::container_key(p) {
            let key = RowKey::Message(id.to_string());
            w.tracker.touch(&key, self.row(&key));
            self.nested_rows.remove(id);
            w.containers.push(container);
        }
    }

    /// An orphan card sits at its first member's position.
    fn move_orphan_card(
        &mut self,
        q: &str,
        old_min: Option<OrderKey>,
        new_min: Option<OrderKey>,
        w: &mut Work,
    ) {
        if old_min == new_min {
            return;
        }
        if let Some(k) = old_min {
            sorted_remove(&mut self.top_members, k);
            w.dirty_top.insert(k);
        }
        if let Some(k) = new_min {
            sorted_insert(&mut self.top_members, k, RowKey::Orphans(q.to_string()));
            w.dirty_top.insert(k);
        }
    }

    /// A message may have become or stopped being a card (children, payload).
    fn check_kinds(&mut self, w: &mut Work) {
        let ids: BTreeSet<String> = w.kind_check.drain(..).collect();
        for id in ids {
            match self.placement.get(&id) {
                Some((Placement::Top, k)) => {
                    w.dirty_top.insert(*k);
                }
                Some(_) => {
                    let kind = self.message_kind(&id);
                    if self.nested_rows.get(&id).is_some_and(|r| r.kind != kind) {
                        let key = RowKey::Message(id.clone());
                        w.tracker.touch(&key, self.row(&key));
                        if let Some(r) = self.nested_rows.get_mut(&id) {
                            r.kind = kind;
                        }
                    }
                }
                None => {}
            }
        }
    }

    /// A user message sets the implicit turn of the messages after it, up to
    /// the next user message: those runs are re-examined.
    fn mark_user_spans(&mut self, w: &mut Work) {
        for k in std::mem::take(&mut w.user_spans) {
            let next_user = self.users.partition_point(|(u, _)| *u <= k);
            let end = self.users.get(next_user).map(|(u, _)| *u);
            let from = self.top_members.partition_point(|(m, _)| *m <= k);
            for (m, _) in &self.top_members[from..] {
                if end.is_some_and(|e| *m >= e) {
                    break;
                }
                w.dirty_top.insert(*m);
            }
        }
    }

    /// Rebuilds the top-level rows around each dirty position: the runs that
    /// touch it, widened until the old rows in the window are covered whole.
    fn rebuild_top(&mut self, store: &Store, w: &mut Work) {
        let dirty: Vec<OrderKey> = std::mem::take(&mut w.dirty_top).into_iter().collect();
        let mut covered: Option<OrderKey> = None;
        for k in dirty {
            if covered.is_some_and(|c| k <= c) {
                continue;
            }
            let (members, rows, hi) = self.window(k);
            covered = Some(hi);
            let new_rows = self.build_rows(store, &self.top_members[members]);
            let mut tops = Vec::with_capacity(new_rows.len());
            let old: Vec<TopRow> = self.top[rows.clone()].to_vec();
            for t in &old {
                let current = self.top_rows.get(&t.key);
                w.tracker.touch(&t.key, self.row(&t.key));
                if current.is_some_and(|r| r.start == t.start) {
                    if let Some(row) = self.top_rows.remove(&t.key) {
                        self.clear_row_of(&row);
                    }
                }
            }
            for (t, row) in new_rows {
                w.tracker.touch(&t.key, self.row(&t.key));
                self.set_row_of(&row);
                self.top_rows.insert(t.key.clone(), row);
                tops.push(t);
            }
            self.top.splice(rows, tops);
        }
    }

    fn clear_row_of(&mut self, row: &Row) {
        let members: Vec<&String> = match (&row.kind, &row.key) {
            (RowKind::Group(g), _) => g.member_ids.iter().collect(),
            (_, RowKey::Message(id)) => vec![id],
            _ => Vec::new(),
        };
        for m in members {
            if self.row_of.get(m) == Some(&row.key) {
                self.row_of.remove(m);
            }
        }
    }

    /// The member range, the old row range and the last position of the window
    /// around dirty position `k`.
    fn window(&self, k: OrderKey) -> (std::ops::Range<usize>, std::ops::Range<usize>, OrderKey) {
        let m = &self.top_members;
        let (mut lo, mut hi) = (k, k);
        let at = m.partition_point(|(x, _)| *x < k);
        if let Some((x, _)) = at.checked_sub(1).and_then(|i| m.get(i)) {
            lo = *x;
        }
        let next = if m.get(at).is_some_and(|(x, _)| *x == k) {
            at + 1
        } else {
            at
        };
        if let Some((x, _)) = m.get(next) {
            hi = *x;
        }
        loop {
            let mut a = m.partition_point(|(x, _)| *x < lo);
            let mut b = m.partition_point(|(x, _)| *x <= hi);
            while a > 0 && a < m.len() && self.joined(&m[a - 1].1, &m[a].1) {
                a -= 1;
            }
            while b > 0 && b < m.len() && self.joined(&m[b - 1].1, &m[b].1) {
                b += 1;
            }
            let (mut nlo, mut nhi) = (lo, hi);
            if a < b {
                nlo = nlo.min(m[a].0);
                nhi = nhi.max(m[b - 1].0);
            }
            let r0 = self.top.partition_point(|t| t.end < nlo);
            let r1 = self.top.partition_point(|t| t.start <= nhi);
            if r0 < r1 {
                nlo = nlo.min(self.top[r0].start);
                nhi = nhi.max(self.top[r1 - 1].end);
            }
            if (nlo, nhi) == (lo, hi) {
                return (a..b, r0..r1, hi);
            }
            (lo, hi) = (nlo, nhi);
        }
    }

    /// Sets the depth of moved rows and of everything inside them: each
    /// subtree under a topmost moved row is walked once.
    fn fix_depths(&mut self, w: &mut Work) {
        let roots: HashSet<String> = w.moved.drain(..).collect();
        let topmost: Vec<&String> = roots
            .iter()
            .filter(|r| !self.has_ancestor_in(r, &roots))
            .collect();
        let mut stack: Vec<(String, usize)> = topmost
            .into_iter()
            .filter_map(|id| {
                let depth = match self.placement.get(id)? {
                    (Placement::Top, _) => 0,
                    (Placement::Card(c), _) => self.depth_of(c) + 1,
                    (Placement::Orphans(_), _) => 1,
                };
                Some((id.clone(), depth))
            })
            .collect();
        while let Some((id, depth)) = stack.pop() {
            if let Some(r) = self.nested_rows.get(&id) {
                if r.depth != depth {
                    let key = r.key.clone();
                    w.tracker.touch(&key, self.row(&key));
                    if let Some(r) = self.nested_rows.get_mut(&id) {
                        r.depth = depth;
                    }
                }
            }
            for (_, child) in self.cards.get(&id).into_iter().flatten() {
                stack.push((child.clone(), depth + 1));
            }
        }
    }

    /// True when a card above `id` is in `set`.
    fn has_ancestor_in(&self, id: &str, set: &HashSet<String>) -> bool {
        let mut cur = id;
        for _ in 0..=self.nested_rows.len() {
            match self.placement.get(cur) {
                Some((Placement::Card(c), _)) => {
                    if set.contains(c) {
                        return true;
                    }
                    cur = c;
                }
                _ => return false,
            }
        }
        false
    }

    fn depth_of(&self, id: &str) -> usize {
        self.nested_rows.get(id).map_or(0, |r| r.depth)
    }

    /// Reports touched messages' rows and every card above them as changed.
    fn mark_changed(&mut self, w: &mut Work) {
        let mut starts: Vec<RowKey> = std::mem::take(&mut w.containers);
        for id in std::mem::take(&mut w.touched) {
            if let Some(key) = self.row_of_message(&id) {
                starts.push(key.clone());
            }
        }
        let mut marked: HashSet<RowKey> = HashSet::new();
        for start in starts {
            let mut cur = Some(start);
            while let Some(key) = cur {
                if !marked.insert(key.clone()) {
                    break;
                }
                cur = self.row(&key).and_then(|r| r.parent.clone());
                w.tracker.mark(key);
            }
        }
    }
}
