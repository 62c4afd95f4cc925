//! The layout computed from scratch in one pass over the store.

use super::facts::{self, Facts, Placement};
use super::{Layout, Row, RowKey, RowKind};
use crate::state::store::{EntryId, Store};

impl Layout {
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
                    .get_or_insert_with(c.clone(), Vec::new)
                    .push((key, id.clone())),
                Placement::Orphans(q) => {
                    let members = l.orphans.get_or_insert_with(q.clone(), Vec::new);
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
        l.running = l
            .outline()
            .into_iter()
            .filter(|r| r.kind == RowKind::Subagent)
            .filter_map(|r| r.message_id())
            .filter(|id| l.is_running(store, id))
            .map(str::to_string)
            .collect();
        l
    }
}
