//! The transcript layout (docs/behaviour.md §2): display rows computed from the store and
//! kept up to date incrementally.
//!
//! Rows are keyed stably ([`RowKey`]): a message row or subagent card by its
//! message id, a turn group by `group:<first member id>`, an orphan card by
//! `orphans:<parent tool_call_id>`. Top-level rows are ordered by display
//! position; a card's children are nested rows (messages or cards, never
//! groups: docs/behaviour.md §3.5 renders each child with its full renderer).
//!
//! [`Layout::update`] applies a store's [`Changes`] and touches only what they
//! reach: a message's own row, the run of activity around it, the chain of
//! cards above it, and the messages whose parent it is. Appending a message
//! costs the size of the rows it affects, not the length of the session.

mod build;
mod diff;
mod facts;
mod runs;
mod top;
mod update;

pub use diff::RowDiff;

use crate::model::status::message_run_state;
use crate::state::store::{OrderKey, Store};
use facts::{Facts, Placement};
// foldhash rather than std's SipHash: every live event hashes message ids
// several times, and the hasher was a tenth of the per-event cost.
use crate::state::sharded::{ShardedMap, ShardedSet};
use foldhash::{HashMap, HashSet};
use std::collections::BTreeMap;
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

/// A turn group (docs/behaviour.md §2.3–§2.4). Its label comes from
/// [`crate::screen::view::group::group_label`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupRow {
    /// Tool calls and thoughts in display order.
    pub member_ids: Vec<String>,
    pub tool_count: usize,
    pub thought_count: usize,
    /// A tool in the group is running (docs/behaviour.md §3.4 rule).
    pub running: bool,
    /// Title of the latest running tool, for the muted `now:` line.
    pub now_text: Option<String>,
}

/// What a row shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// One message with its own renderer (docs/behaviour.md §4).
    Message,
    /// A subagent card (docs/behaviour.md §3); its children are [`Layout::children`].
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
    facts: ShardedMap<String, Facts>,
    placement: ShardedMap<String, (Placement, OrderKey)>,
    top_members: Vec<(OrderKey, RowKey)>,
    users: Members,
    cards: ShardedMap<String, Members>,
    orphans: ShardedMap<String, Members>,
    top: Vec<TopRow>,
    top_rows: ShardedMap<RowKey, Row>,
    nested_rows: ShardedMap<String, Row>,
    row_of: ShardedMap<String, RowKey>,
    turn_index: HashMap<String, HashSet<String>>,
    cuts: ShardedSet<String>,
    /// Subagent cards whose spinner shows, to tell when one settles.
    running: HashSet<String>,
}

pub(super) fn sorted_insert<T: Clone>(v: &mut Vec<(OrderKey, T)>, key: OrderKey, item: T) {
    let i = v.partition_point(|(k, _)| *k < key);
    if v.get(i).is_some_and(|(k, _)| *k == key) {
        v[i] = (key, item);
    } else {
        v.insert(i, (key, item));
    }
}

/// Insertions (`Some`) and removals (`None`) of sorted members by position,
/// the last one per position winning, as [`apply_member_ops`] takes them.
pub(super) type MemberOps<T> = BTreeMap<OrderKey, Option<T>>;

/// Applies `ops` to the sorted list `v` in one merge from the first position
/// they touch: a page of older messages inserted at the front moves the list
/// once, not once per message, and an append touches only the end.
pub(super) fn apply_member_ops<T>(v: &mut Vec<(OrderKey, T)>, ops: MemberOps<T>) {
    let Some(first) = ops.keys().next().copied() else {
        return;
    };
    let tail = v.split_off(v.partition_point(|(k, _)| *k < first));
    v.reserve(tail.len() + ops.len());
    let mut ops = ops.into_iter().peekable();
    for (key, item) in tail {
        while let Some((k, op)) = ops.next_if(|(k, _)| *k < key) {
            v.extend(op.map(|op| (k, op)));
        }
        match ops.next_if(|(k, _)| *k == key) {
            Some((k, op)) => v.extend(op.map(|op| (k, op))),
            None => v.push((key, item)),
        }
    }
    v.extend(ops.filter_map(|(k, op)| op.map(|op| (k, op))));
}

/// Removes the item at `key`; true when there was one.
pub(super) fn sorted_remove<T>(v: &mut Vec<(OrderKey, T)>, key: OrderKey) -> bool {
    let i = v.partition_point(|(k, _)| *k < key);
    let found = v.get(i).is_some_and(|(k, _)| *k == key);
    if found {
        v.remove(i);
    }
    found
}

impl Layout {
    /// An empty layout; feed it with [`Layout::update`].
    pub fn new() -> Layout {
        Layout::default()
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

    /// The subagent cards whose spinner shows (docs/behaviour.md §3.4), in no order.
    pub fn running_cards(&self) -> impl Iterator<Item = &str> {
        self.running.iter().map(String::as_str)
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

    /// The nearest subagent card above row `key`.
    pub(crate) fn enclosing_subagent(&self, key: &RowKey) -> Option<String> {
        let mut cur = self.row(key)?.parent.clone();
        let mut steps = 0;
        while let Some(k) = cur {
            steps += 1;
            let row = self.row(&k)?;
            if row.kind == RowKind::Subagent || steps > 4096 {
                return row.message_id().map(str::to_string);
            }
            cur = row.parent.clone();
        }
        None
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

    /// The rows to expand to reveal a message (docs/behaviour.md §4 anchors): from the
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

    /// A card has children or a subagent payload (docs/behaviour.md §1).
    fn is_subagent(&self, id: &str) -> bool {
        self.facts.get(id).is_some_and(|f| {
            f.is_payload_subagent
                || (f.is_tool && self.cards.get(id).is_some_and(|c| !c.is_empty()))
        })
    }

    /// A message's spinner shows (docs/behaviour.md §3.4 running rule).
    fn is_running(&self, store: &Store, id: &str) -> bool {
        store
            .message(id)
            .is_some_and(|m| message_run_state(m, store.is_turn_active(m)).is_running())
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

    fn depth_of(&self, id: &str) -> usize {
        self.nested_rows.get(id).map_or(0, |r| r.depth)
    }
}
