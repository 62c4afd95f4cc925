//! Turn groups (docs/behaviour.md §2.2–§2.5): consecutive activity of one turn becomes
//! one group row when it holds at least one tool call.

use super::{GroupRow, Layout, Row, RowKey, RowKind, TopRow};
use crate::model::status::message_run_state;
use crate::state::store::{OrderKey, Store};

/// What a top-level member contributes to a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Activity {
    Tool,
    Thought,
}

/// The turn a message belongs to for grouping (docs/behaviour.md §2.2): its own
/// `turn_id`, or else the turn that starts at the latest user message before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GroupTurn<'a> {
    Explicit(&'a str),
    /// The implicit turn started by this user message (or by the session start).
    Implicit(Option<&'a str>),
}

impl Layout {
    /// Activity = a tool call that is not a subagent, or thinking (docs/behaviour.md §2.2).
    pub(super) fn activity(&self, member: &RowKey) -> Option<Activity> {
        let RowKey::Message(id) = member else {
            return None;
        };
        let f = self.facts.get(id)?;
        if f.is_thinking {
            Some(Activity::Thought)
        } else if f.is_tool && !self.is_subagent(id) {
            Some(Activity::Tool)
        } else {
            None
        }
    }

    fn group_turn(&self, id: &str) -> Option<GroupTurn<'_>> {
        let f = self.facts.get(id)?;
        if let Some(t) = &f.turn {
            return Some(GroupTurn::Explicit(t));
        }
        let before = self.users.partition_point(|(k, _)| *k < f.key);
        let Some((_, user)) = before.checked_sub(1).and_then(|i| self.users.get(i)) else {
            return Some(GroupTurn::Implicit(None));
        };
        Some(match self.facts.get(user).and_then(|u| u.turn.as_deref()) {
            Some(t) => GroupTurn::Explicit(t),
            None => GroupTurn::Implicit(Some(user)),
        })
    }

    /// True when two adjacent top-level members belong to the same run.
    pub(super) fn joined(&self, a: &RowKey, b: &RowKey) -> bool {
        let (RowKey::Message(x), RowKey::Message(y)) = (a, b) else {
            return false;
        };
        self.activity(a).is_some()
            && self.activity(b).is_some()
            && self.group_turn(x).is_some()
            && self.group_turn(x) == self.group_turn(y)
    }

    /// The rows of a slice of top-level members that starts and ends on run
    /// boundaries.
    pub(super) fn build_rows(
        &self,
        store: &Store,
        members: &[(OrderKey, RowKey)],
    ) -> Vec<(TopRow, Row)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < members.len() {
            let (start, key) = &members[i];
            if self.activity(key).is_none() {
                out.push(self.single_row(*start, key));
                i += 1;
                continue;
            }
            let mut j = i;
            while j + 1 < members.len() && self.joined(&members[j].1, &members[j + 1].1) {
                j += 1;
            }
            let run = &members[i..=j];
            if run
                .iter()
                .any(|(_, k)| self.activity(k) == Some(Activity::Tool))
            {
                out.push(self.group_row(store, run));
            } else {
                out.extend(run.iter().map(|(s, k)| self.single_row(*s, k)));
            }
            i = j + 1;
        }
        out
    }

    fn single_row(&self, start: OrderKey, key: &RowKey) -> (TopRow, Row) {
        let kind = match key {
            RowKey::Message(id) => self.message_kind(id),
            RowKey::Orphans(_) => RowKind::Orphans,
            RowKey::Unreadable(_) | RowKey::Group(_) => RowKind::Unreadable,
        };
        let top = TopRow {
            start,
            end: start,
            key: key.clone(),
        };
        (top, Row::top(key.clone(), kind, start))
    }

    fn group_row(&self, store: &Store, run: &[(OrderKey, RowKey)]) -> (TopRow, Row) {
        let mut g = GroupRow::default();
        for (_, key) in run {
            let RowKey::Message(id) = key else { continue };
            g.member_ids.push(id.clone());
            if self.activity(key) != Some(Activity::Tool) {
                g.thought_count += 1;
                continue;
            }
            g.tool_count += 1;
            let Some(m) = store.message(id) else { continue };
            if message_run_state(m, store.is_turn_active(m)).is_running() {
                g.running = true;
                let title = m.title();
                if !title.is_empty() {
                    g.now_text = Some(title);
                }
            }
        }
        let (start, end) = (run[0].0, run[run.len() - 1].0);
        let key = RowKey::Group(g.member_ids.first().cloned().unwrap_or_default());
        let top = TopRow {
            start,
            end,
            key: key.clone(),
        };
        (top, Row::top(key, RowKind::Group(g), start))
    }
}
