//! The one row view-model (ARCHITECTURE: "rules live in core, once"): for
//! every row of the layout, everything its component renders, decided here:
//! texts, plurals, chips, states, anchors, depth, expansion and the "settled
//! just now" flag. Components receive a [`RowView`] (or one of its parts) and
//! decide nothing.

use super::anchor::anchor_id;
use super::card::{card_view, orphan_card_view, CardView, OrphanCardView};
use super::group::{group_expanded, group_view, GroupView};
use super::spill::{is_truncated, spill_source_view, spill_view, SpillSourceView, SpillView};
use crate::screen::view::message::MessageView;
use crate::state::activity::Clock;
use crate::state::layout::{Layout, RowKey, RowKind};
use crate::state::store::Store;
use std::collections::{HashMap, HashSet};

/// Indentation stops growing at this depth (docs/behaviour.md §2.8): the children of a
/// card at this depth or deeper are not indented further, and a row deeper
/// than it shows a depth badge.
pub const MAX_INDENT_DEPTH: usize = 4;

/// An element id for a row's body (for `aria-controls`), from its key: `:`
/// is awkward in selectors, and whitespace would split the id list
/// `aria-controls` holds.
pub fn body_id(key: &RowKey) -> String {
    let key: String = key
        .to_string()
        .chars()
        .map(|c| {
            if c == ':' || c.is_whitespace() {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("body-{key}")
}

/// The user's sticky expand/collapse choices, by row (docs/behaviour.md §2.6, §3.4).
pub type Toggles = HashMap<RowKey, bool>;

/// One row, ready to render.
#[derive(Clone, Debug, PartialEq)]
pub struct RowView {
    pub key: RowKey,
    pub frame: RowFrame,
    pub body: RowBody,
}

/// Where a row sits in the nesting (docs/behaviour.md §2.8).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowFrame {
    /// 0 at top level, +1 per enclosing card.
    pub depth: usize,
    /// `depth 5` on rows deeper than [`MAX_INDENT_DEPTH`].
    pub depth_badge: Option<String>,
    /// This card's children are indented one more step (not from
    /// [`MAX_INDENT_DEPTH`] on).
    pub indents_children: bool,
}

impl RowFrame {
    /// The frame of a row at `depth`.
    pub fn at(depth: usize) -> RowFrame {
        RowFrame {
            depth,
            depth_badge: (depth > MAX_INDENT_DEPTH).then(|| format!("depth {depth}")),
            indents_children: depth < MAX_INDENT_DEPTH,
        }
    }
}

/// What kind of row it is, with that kind's view-model.
#[derive(Clone, Debug, PartialEq)]
pub enum RowBody {
    Message(MessageRowView),
    Card(Box<CardRowView>),
    Group(GroupRowView),
    Orphans(OrphanRowView),
    Unreadable(UnreadableRowView),
}

/// The kinds of row, for components that switch on the kind only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowShape {
    Message,
    Card,
    Group,
    Orphans,
    Unreadable,
}

/// A message shown with its own renderer (docs/behaviour.md §4).
#[derive(Clone, Debug, PartialEq)]
pub struct MessageRowView {
    pub anchor: String,
    /// The wire `type`, for CSS and test ids.
    pub type_name: String,
    pub view: MessageView,
    /// It is the current search match (docs/behaviour.md §8).
    pub highlighted: bool,
    /// Its output is a spill placeholder: the `spilled` chip (docs/behaviour.md §4).
    pub spill: Option<SpillView>,
    /// It holds a spill's stored text: links back to the spilled rows.
    pub spill_source: Option<SpillSourceView>,
    /// Its output carries a lossy cut marker: `truncated` (docs/behaviour.md §4).
    pub truncated: bool,
}

/// A subagent card (docs/behaviour.md §3).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CardRowView {
    pub anchor: String,
    pub body_id: String,
    pub card: CardView,
    pub expanded: bool,
    /// The summary line as shown: settled and collapsed only (§3.1 item 6).
    pub summary: Option<String>,
    /// The card stopped running in the latest update.
    pub just_settled: bool,
    /// Its children's rows, in order.
    pub children: Vec<RowKey>,
    /// It is the current search match (docs/behaviour.md §8).
    pub highlighted: bool,
}

/// A turn group (docs/behaviour.md §2.3–§2.6).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupRowView {
    /// The first member's id (`data-first`).
    pub first: String,
    pub body_id: String,
    pub tool_count: usize,
    pub view: GroupView,
    pub expanded: bool,
    /// The members with their full renderers, only while expanded.
    pub members: Vec<MessageRowView>,
}

/// Children whose parent is not loaded (docs/behaviour.md §2.7).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OrphanRowView {
    pub body_id: String,
    pub view: OrphanCardView,
    pub expanded: bool,
    pub children: Vec<RowKey>,
}

/// Input that could not be read as a message, shown with its raw text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnreadableRowView {
    pub anchor: String,
    pub raw: String,
    pub error: String,
}

impl RowView {
    /// The kind of row.
    pub fn shape(&self) -> RowShape {
        match self.body {
            RowBody::Message(_) => RowShape::Message,
            RowBody::Card(_) => RowShape::Card,
            RowBody::Group(_) => RowShape::Group,
            RowBody::Orphans(_) => RowShape::Orphans,
            RowBody::Unreadable(_) => RowShape::Unreadable,
        }
    }

    /// The card part of a card row.
    pub fn card(&self) -> Option<&CardRowView> {
        match &self.body {
            RowBody::Card(c) => Some(c),
            _ => None,
        }
    }

    /// The orphan part of an orphan row.
    pub fn orphans(&self) -> Option<&OrphanRowView> {
        match &self.body {
            RowBody::Orphans(o) => Some(o),
            _ => None,
        }
    }
}

/// An orphan card starts collapsed; a toggle sticks.
pub fn orphans_expanded(manual: Option<bool>) -> bool {
    manual.unwrap_or(false)
}

/// What a [`RowView`] is built from.
pub struct RowContext<'a> {
    pub store: &'a Store,
    pub layout: &'a Layout,
    pub toggles: &'a Toggles,
    /// Cards that settled in the latest update.
    pub settled: &'a HashSet<RowKey>,
    /// The activity and the viewer's time, for time-based rules (docs/behaviour.md §8).
    pub clock: Option<Clock<'a>>,
    /// The message of the current search match (docs/behaviour.md §8).
    pub highlight: Option<&'a str>,
}

/// A plain message row for message `id`, or `None` when it is not loaded;
/// `highlight` names the current search match.
pub fn message_row(store: &Store, id: &str, highlight: Option<&str>) -> Option<MessageRowView> {
    let m = store.message(id)?;
    Some(MessageRowView {
        anchor: anchor_id(id),
        type_name: m.kind.as_str().to_string(),
        view: MessageView::of(m, store.is_turn_active(m)),
        highlighted: highlight == Some(id),
        spill: spill_view(store, m),
        spill_source: spill_source_view(store, m),
        truncated: is_truncated(m),
    })
}

fn child_keys(layout: &Layout, key: &RowKey) -> Vec<RowKey> {
    layout.children(key).map(|r| r.key.clone()).collect()
}

impl RowContext<'_> {
    /// Whether nobody writes the source any more (docs/behaviour.md §8).
    fn still(&self) -> bool {
        self.clock.is_some_and(|c| c.is_still())
    }

    /// [`message_row`], where a tool call left running in a still source
    /// reads interrupted (docs/behaviour.md §8).
    fn message_row(&self, id: &str) -> Option<MessageRowView> {
        let row = message_row(self.store, id, self.highlight)?;
        Some(if self.still() {
            MessageRowView {
                view: row.view.in_still_source(),
                ..row
            }
        } else {
            row
        })
    }

    /// The view of row `key`, or `None` when the layout has no such row.
    pub fn row(&self, key: &RowKey) -> Option<RowView> {
        let row = self.layout.row(key)?;
        let manual = self.toggles.get(key).copied();
        let body = match (&row.kind, key) {
            (RowKind::Message, RowKey::Message(id)) => RowBody::Message(self.message_row(id)?),
            (RowKind::Subagent, RowKey::Message(id)) => {
                let card = card_view(self.store, self.layout, id, self.clock)?;
                let expanded = card.expanded(manual);
                RowBody::Card(Box::new(CardRowView {
                    anchor: anchor_id(id),
                    body_id: body_id(key),
                    summary: card.visible_summary(expanded).map(str::to_string),
                    expanded,
                    just_settled: self.settled.contains(key),
                    children: child_keys(self.layout, key),
                    highlighted: self.highlight == Some(id.as_str()),
                    card,
                }))
            }
            (RowKind::Group(g), _) => {
                let expanded = group_expanded(manual);
                let members = if expanded {
                    g.member_ids
                        .iter()
                        .filter_map(|id| self.message_row(id))
                        .collect()
                } else {
                    Vec::new()
                };
                RowBody::Group(GroupRowView {
                    first: g.member_ids.first().cloned().unwrap_or_default(),
                    body_id: body_id(key),
                    tool_count: g.tool_count,
                    view: if self.still() {
                        group_view(g).in_still_source()
                    } else {
                        group_view(g)
                    },
                    expanded,
                    members,
                })
            }
            (RowKind::Orphans, RowKey::Orphans(parent)) => RowBody::Orphans(OrphanRowView {
                body_id: body_id(key),
                view: orphan_card_view(self.store, self.layout, parent)?,
                expanded: orphans_expanded(manual),
                children: child_keys(self.layout, key),
            }),
            (_, RowKey::Unreadable(seq)) => {
                let u = self.store.unreadable(*seq)?;
                RowBody::Unreadable(UnreadableRowView {
                    anchor: anchor_id(&format!("unreadable-{seq}")),
                    raw: u.raw.clone(),
                    error: u.error.clone(),
                })
            }
            _ => return None,
        };
        Some(RowView {
            key: key.clone(),
            frame: RowFrame::at(row.depth),
            body,
        })
    }

    /// Whether row `key` shows expanded now.
    pub fn is_expanded(&self, key: &RowKey) -> bool {
        self.row(key).is_some_and(|r| match r.body {
            RowBody::Card(c) => c.expanded,
            RowBody::Group(g) => g.expanded,
            RowBody::Orphans(o) => o.expanded,
            RowBody::Message(_) | RowBody::Unreadable(_) => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indentation_stops_growing_at_depth_4_and_a_badge_shows_deeper_rows() {
        let frames: Vec<(bool, Option<String>)> = (3..=6)
            .map(RowFrame::at)
            .map(|f| (f.indents_children, f.depth_badge))
            .collect();
        assert_eq!(
            frames,
            [
                (true, None),
                (false, None),
                (false, Some("depth 5".into())),
                (false, Some("depth 6".into())),
            ]
        );
    }

    #[test]
    fn body_ids_are_one_id_without_colons() {
        assert_eq!(body_id(&RowKey::Group("a".into())), "body-group-a");
        assert_eq!(body_id(&RowKey::Orphans("tc".into())), "body-orphans-tc");
        assert_eq!(
            body_id(&RowKey::Orphans("x0-gone-plain text".into())),
            "body-orphans-x0-gone-plain-text",
            "one id, not a list"
        );
    }

    #[test]
    fn orphan_cards_start_collapsed_and_a_toggle_sticks() {
        assert!(!orphans_expanded(None));
        assert!(orphans_expanded(Some(true)));
    }
}
