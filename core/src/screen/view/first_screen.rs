//! A task page's first screen as the server writes it (docs/behaviour.md §10): the
//! task's title and chip, and the rows of the newest messages that the page
//! previews (`client::preload`), laid out by the same viewer the app runs,
//! so the app's first rows are these rows and replace them without a jump.

use super::board::{subagent_chip, SubagentChip};
use super::row::RowView;
use crate::model::event::Event;
use crate::read::client::refetch::{oldest_first, UnreadableSeen};
use crate::read::protocol::MessagesPage;
use crate::screen::viewer::Viewer;
use crate::state::activity::Millis;

/// A task page's first screen.
#[derive(Clone, Debug, PartialEq)]
pub struct FirstScreen {
    /// The page's title ([`task_page_title`]).
    pub title: String,
    /// The "N subagents running" chip.
    pub chip: Option<SubagentChip>,
    /// The roster toggle's words (`Subagents · 3`).
    pub roster_toggle: String,
    /// The top-level rows, in order.
    pub rows: Vec<ScreenRow>,
}

/// One row and, when it is an open card, its children's rows.
#[derive(Clone, Debug, PartialEq)]
pub struct ScreenRow {
    pub view: RowView,
    pub children: Vec<ScreenRow>,
}

/// The title of task `task_id`'s page: its title, else `Task <id>`.
pub fn task_page_title(task_id: &str, title: Option<&str>) -> String {
    title
        .filter(|t| !t.is_empty())
        .map_or_else(|| format!("Task {task_id}"), str::to_string)
}

impl FirstScreen {
    /// The first screen of task `task_id` (its `title` and running-subagent
    /// count) showing `page`, the newest messages of session `session_id`,
    /// on the clock at `now`.
    pub fn of(
        task_id: &str,
        title: &str,
        active_subagent_count: Option<u64>,
        session_id: &str,
        page: &MessagesPage,
        now: Millis,
    ) -> FirstScreen {
        let mut viewer = Viewer::new();
        viewer.tick(now);
        viewer.apply([Event::TranscriptOpened {
            session_id: Some(session_id.to_string()),
        }]);
        viewer.apply(oldest_first(page, &mut UnreadableSeen::default()));
        let rows = viewer
            .layout()
            .top_rows()
            .filter_map(|row| screen_row(&viewer, row.key.clone()))
            .collect();
        FirstScreen {
            title: task_page_title(task_id, Some(title)),
            chip: subagent_chip(active_subagent_count),
            roster_toggle: viewer.roster_toggle_label(),
            rows,
        }
    }
}

fn screen_row(viewer: &Viewer, key: crate::state::layout::RowKey) -> Option<ScreenRow> {
    let view = viewer.row(&key)?;
    let open_children = match (view.card(), view.orphans()) {
        (Some(card), _) if card.expanded => card.children.clone(),
        (_, Some(orphans)) if orphans.expanded => orphans.children.clone(),
        _ => Vec::new(),
    };
    let children = open_children
        .into_iter()
        .filter_map(|child| screen_row(viewer, child))
        .collect();
    Some(ScreenRow { view, children })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::view::row::RowBody;
    use serde_json::{json, Value};

    fn message(id: &str, content: &str, extra: Value) -> Value {
        let mut m = json!({"id": id, "session_id": "s", "author_type": "agent", "type": "message",
            "content": content, "created_at": "2026-08-03T10:00:00Z"});
        m.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        m
    }

    /// A page as the server answers `sort=desc`: newest first.
    fn page(mut oldest_first: Vec<Value>) -> MessagesPage {
        oldest_first.reverse();
        MessagesPage::from_value(&json!({"messages": oldest_first, "has_more": false}))
    }

    fn subagent_call(id: &str) -> Value {
        message(
            id,
            "Review",
            json!({"type": "tool_call", "metadata": {"tool_call_id": format!("tc-{id}"), "status": "complete",
                "normalized": {"kind": "subagent_task", "subagent_task": {"subagent_type": "code-reviewer",
                "description": "review the diff", "status": "completed", "result_text": "APPROVE"}}}}),
        )
    }

    #[test]
    fn the_rows_are_the_viewers_top_level_rows_of_the_page_in_order() {
        let page = page(vec![
            message("m1", "first", json!({"author_type": "user"})),
            subagent_call("m2"),
            message(
                "m3",
                "child",
                json!({"type": "tool_read", "metadata": {"tool_call_id": "tc-m3", "parent_tool_call_id": "tc-m2"}}),
            ),
            message("m4", "done", json!({})),
        ]);
        let screen = FirstScreen::of("t", "Fix it", Some(2), "s", &page, 0);
        let mut viewer = Viewer::new();
        viewer.apply([Event::TranscriptOpened {
            session_id: Some("s".into()),
        }]);
        viewer.apply(oldest_first(&page, &mut UnreadableSeen::default()));
        let expected: Vec<RowView> = viewer
            .layout()
            .top_rows()
            .map(|r| viewer.row(&r.key).unwrap())
            .collect();
        let shown: Vec<RowView> = screen.rows.iter().map(|r| r.view.clone()).collect();
        assert_eq!(shown, expected);
        assert_eq!(screen.rows.len(), 3, "the child sits inside its card");
        assert!(matches!(screen.rows[1].view.body, RowBody::Card(_)));
        assert!(screen.rows[1].children.is_empty(), "a closed card");
        assert_eq!(screen.title, "Fix it");
        assert_eq!(screen.chip.unwrap().count, 2);
        assert_eq!(screen.roster_toggle, viewer.roster_toggle_label());
    }

    #[test]
    fn other_sessions_messages_and_an_empty_page_show_no_rows() {
        let other = page(vec![
            json!({"id": "x", "session_id": "other", "type": "message",
            "author_type": "agent", "content": "elsewhere", "created_at": "2026-08-03T10:00:00Z"}),
        ]);
        assert!(FirstScreen::of("t", "", None, "s", &other, 0)
            .rows
            .is_empty());
        let empty = FirstScreen::of("t", "", None, "s", &page(vec![]), 0);
        assert!(empty.rows.is_empty());
        assert_eq!(empty.chip, None);
    }

    #[test]
    fn a_task_without_a_title_is_named_by_its_id() {
        assert_eq!(task_page_title("t-7", Some("")), "Task t-7");
        assert_eq!(task_page_title("t-7", None), "Task t-7");
        assert_eq!(task_page_title("t-7", Some("Ship")), "Ship");
    }
}
