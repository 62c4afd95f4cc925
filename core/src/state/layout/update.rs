//! The incremental update (docs/behaviour.md §2): what one batch of store changes
//! reaches, and nothing more.

use super::diff::{RowDiff, Tracker};
use super::facts::{self, Facts, Placement};
use super::{
    apply_member_ops, sorted_insert, sorted_remove, Layout, MemberOps, Row, RowKey, RowKind,
};
use crate::state::store::{Changes, EntryId, OrderKey, Store};
use foldhash::{HashSet, HashSetExt};
use std::collections::BTreeSet;

/// Bookkeeping of one update.
#[derive(Default)]
pub(super) struct Work {
    pub(super) tracker: Tracker,
    pub(super) replace: Vec<String>,
    pub(super) dirty_top: BTreeSet<OrderKey>,
    /// Changes to the top-level members, applied together after placement.
    pub(super) top_ops: MemberOps<RowKey>,
    pub(super) user_spans: Vec<OrderKey>,
    pub(super) touched: Vec<String>,
    pub(super) containers: Vec<RowKey>,
    pub(super) kind_check: Vec<String>,
    pub(super) moved: Vec<String>,
    /// The first top-level index whose row (key) changed, if any did.
    pub(super) top_from: Option<usize>,
}

impl Layout {
    /// Applies what the store reported (docs/behaviour.md §2, incrementally) and returns
    /// the rows that changed.
    pub fn update(&mut self, store: &Store, changes: &Changes) -> RowDiff {
        if changes.reset {
            *self = Layout::from_store(store);
            return RowDiff {
                reset: true,
                top_from: Some(0),
                ..RowDiff::default()
            };
        }
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
                        w.top_ops.insert(k, Some(RowKey::Unreadable(*n)));
                        w.dirty_top.insert(k);
                    }
                }
            }
        }
        for id in &refresh {
            self.refresh_facts(store, id, &mut w);
        }
        self.place_all(store, &mut w);
        apply_member_ops(&mut self.top_members, std::mem::take(&mut w.top_ops));
        self.check_kinds(&mut w);
        self.mark_user_spans(&mut w);
        self.rebuild_top(store, &mut w);
        self.fix_depths(&mut w);
        self.mark_changed(&mut w);
        let Work {
            tracker, top_from, ..
        } = w;
        let mut diff = tracker.finish(|k| self.row(k));
        diff.top_from = top_from;
        diff.settled = self.track_running(store, &diff);
        diff
    }

    /// Cards that stopped running in this update (docs/behaviour.md §3.4), keeping the
    /// set of running cards current. Only the rows the update touched are
    /// looked at.
    fn track_running(&mut self, store: &Store, diff: &RowDiff) -> Vec<RowKey> {
        let mut settled = Vec::new();
        for key in diff.changed.iter().chain(&diff.inserted) {
            let RowKey::Message(id) = key else { continue };
            if self.row(key).map(|r| &r.kind) != Some(&RowKind::Subagent) {
                if self.running.remove(id) {
                    settled.push(key.clone());
                }
                continue;
            }
            if self.is_running(store, id) {
                self.running.insert(id.clone());
            } else if self.running.remove(id) {
                settled.push(key.clone());
            }
        }
        for key in &diff.removed {
            if let RowKey::Message(id) = key {
                self.running.remove(id);
            }
        }
        settled
    }

    /// Re-reads a message's facts and queues what its change reaches.
    pub(super) fn refresh_facts(&mut self, store: &Store, id: &str, w: &mut Work) {
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
        self.sync_user_index(id, new.as_ref());
        match new {
            Some(f) => self.facts.insert(id.to_string(), f),
            None => self.facts.remove(id),
        };
    }

    /// A top-level message that became or stopped being a user message keeps
    /// its place, so [`Layout::place_all`] does not move it: the index of user
    /// messages (which bounds implicit turns) is corrected here.
    fn sync_user_index(&mut self, id: &str, new: Option<&Facts>) {
        let Some((Placement::Top, k)) = self.placement.get(id).cloned() else {
            return;
        };
        match new {
            Some(f) if f.key == k && f.is_user => sorted_insert(&mut self.users, k, id.to_string()),
            Some(f) if f.key == k => {
                sorted_remove(&mut self.users, k);
            }
            _ => {}
        }
    }

    /// Recomputes the placement of every queued message and moves those whose
    /// placement changed. Placement is a pure function of the store; the queue
    /// holds every message whose placement an event can reach (itself, the
    /// children of its tool_call_ids, the members of a loop through it, and
    /// the current loop cuts).
    pub(super) fn place_all(&mut self, store: &Store, w: &mut Work) {
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

    pub(super) fn container_key(p: &Placement) -> Option<RowKey> {
        match p {
            Placement::Top => None,
            Placement::Card(c) => Some(RowKey::Message(c.clone())),
            Placement::Orphans(q) => Some(RowKey::Orphans(q.clone())),
        }
    }

    pub(super) fn insert_member(&mut self, p: &Placement, k: OrderKey, id: &str, w: &mut Work) {
        match p {
            Placement::Top => {
                w.top_ops.insert(k, Some(RowKey::Message(id.to_string())));
                if self.facts.get(id).is_some_and(|f| f.is_user) {
                    // A user message arriving at the top starts an implicit turn.
                    sorted_insert(&mut self.users, k, id.to_string());
                    w.user_spans.push(k);
                }
                w.dirty_top.insert(k);
            }
            Placement::Card(c) => {
                sorted_insert(
                    self.cards.get_or_insert_with(c.clone(), Vec::new),
                    k,
                    id.to_string(),
                );
                w.kind_check.push(c.clone());
            }
            Placement::Orphans(q) => {
                let members = self.orphans.get_or_insert_with(q.clone(), Vec::new);
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

    pub(super) fn remove_member(&mut self, p: &Placement, k: OrderKey, id: &str, w: &mut Work) {
        match p {
            Placement::Top => {
                w.top_ops.insert(k, None);
                if sorted_remove(&mut self.users, k) {
                    w.user_spans.push(k);
                }
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
    pub(super) fn move_orphan_card(
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
            w.top_ops.insert(k, None);
            w.dirty_top.insert(k);
        }
        if let Some(k) = new_min {
            w.top_ops.insert(k, Some(RowKey::Orphans(q.to_string())));
            w.dirty_top.insert(k);
        }
    }

    /// A message may have become or stopped being a card (children, payload).
    pub(super) fn check_kinds(&mut self, w: &mut Work) {
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
    pub(super) fn mark_user_spans(&mut self, w: &mut Work) {
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

    /// Sets the depth of moved rows and of everything inside them: each
    /// subtree under a topmost moved row is walked once.
    pub(super) fn fix_depths(&mut self, w: &mut Work) {
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
    pub(super) fn has_ancestor_in(&self, id: &str, set: &HashSet<String>) -> bool {
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

    /// Reports touched messages' rows and every card above them as changed.
    pub(super) fn mark_changed(&mut self, w: &mut Work) {
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
