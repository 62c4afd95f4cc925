//! The turn-group row's view-model (docs/behaviour.md §2.3–§2.6).

use super::format::count_label;
use crate::state::layout::GroupRow;

/// What a group row renders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupView {
    /// `4 tool calls`, `1 tool call · 3 thoughts`.
    pub label: String,
    /// Spinner next to the label.
    pub running: bool,
    /// The muted `now: <title>` text while running.
    pub now_text: Option<String>,
}

/// The group label (docs/behaviour.md §2.4): the tool-call count with agreeing plural,
/// then ` · K thought(s)` when the group holds thinking. Never mentions subagents.
pub fn group_label(tool_count: usize, thought_count: usize) -> String {
    let mut label = count_label(tool_count as u64, "tool call", "tool calls");
    if thought_count > 0 {
        label.push_str(" · ");
        label.push_str(&count_label(thought_count as u64, "thought", "thoughts"));
    }
    label
}

/// The view-model of a group row; the label keeps its count while running
/// (docs/behaviour.md §2.4).
pub fn group_view(group: &GroupRow) -> GroupView {
    GroupView {
        label: group_label(group.tool_count, group.thought_count),
        running: group.running,
        now_text: group
            .now_text
            .as_ref()
            .filter(|_| group.running)
            .map(|t| format!("now: {t}")),
    }
}

impl GroupView {
    /// The same group in a source nobody writes any more (docs/behaviour.md §8):
    /// nothing in it is at work, so no spinner and no `now:` line.
    pub fn in_still_source(self) -> GroupView {
        GroupView {
            running: false,
            now_text: None,
            ..self
        }
    }
}

/// Groups start collapsed and stay collapsed while running; a click's choice
/// sticks (docs/behaviour.md §2.6).
pub fn group_expanded(manual: Option<bool>) -> bool {
    manual.unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_label_single_tool_call_reads_1_tool_call() {
        assert_eq!(group_label(1, 0), "1 tool call");
    }

    #[test]
    fn group_label_counts_tool_calls_with_agreeing_plural() {
        assert_eq!(group_label(4, 0), "4 tool calls");
        assert_eq!(group_label(2, 0), "2 tool calls");
    }

    #[test]
    fn group_label_counts_thoughts_separately() {
        assert_eq!(group_label(2, 1), "2 tool calls · 1 thought");
        assert_eq!(group_label(1, 3), "1 tool call · 3 thoughts");
    }

    #[test]
    fn running_group_keeps_its_count_and_adds_now_text() {
        let g = GroupRow {
            member_ids: vec!["a".into(), "b".into()],
            tool_count: 2,
            thought_count: 0,
            running: true,
            now_text: Some("Read src/lib.rs".into()),
        };
        let v = group_view(&g);
        assert_eq!(v.label, "2 tool calls");
        assert!(v.running);
        assert_eq!(v.now_text.as_deref(), Some("now: Read src/lib.rs"));
        let settled = group_view(&GroupRow {
            running: false,
            ..g.clone()
        });
        assert_eq!(settled.now_text, None);
    }

    #[test]
    fn a_group_left_running_in_a_still_file_neither_spins_nor_says_now() {
        let g = GroupRow {
            member_ids: vec!["a".into()],
            tool_count: 1,
            thought_count: 0,
            running: true,
            now_text: Some("Read src/lib.rs".into()),
        };
        let v = group_view(&g).in_still_source();
        assert_eq!(v.label, "1 tool call");
        assert!(!v.running, "no spinner");
        assert_eq!(v.now_text, None);
    }

    #[test]
    fn group_starts_collapsed_and_a_toggle_sticks() {
        assert!(!group_expanded(None));
        assert!(group_expanded(Some(true)));
        assert!(!group_expanded(Some(false)));
    }
}
