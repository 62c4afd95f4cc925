//! A plain-text summary of the laid-out transcript: one line per row, in
//! display order, cards followed by their children. End-to-end tests compare
//! it across runs (streamed vs loaded at once, with and without faults)
//! without scrolling a virtualized list; it is not shown to users.

use crate::screen::view::group::group_label;
use crate::state::layout::{Layout, Row, RowKey, RowKind};
use crate::state::store::Store;

/// Every row as `<indent><key> <kind>: <what it shows>`, where a message row
/// shows its content and tool status, a card its payload status and result,
/// a group its label and members. Unreadable rows are keyed by their text,
/// not by their arrival number, so two runs compare equal.
pub fn row_summary(store: &Store, layout: &Layout) -> Vec<String> {
    layout
        .outline()
        .into_iter()
        .map(|row| {
            let indent = "  ".repeat(row.depth);
            format!("{indent}{}", describe(store, row))
        })
        .collect()
}

fn describe(store: &Store, row: &Row) -> String {
    match (&row.key, &row.kind) {
        (RowKey::Unreadable(seq), _) => {
            let raw = store.unreadable(*seq).map_or("", |u| u.raw.as_str());
            format!("unreadable: {raw}")
        }
        (key, RowKind::Group(group)) => format!(
            "{key} group: {} [{}]{}",
            group_label(group.tool_count, group.thought_count),
            group.member_ids.join(","),
            if group.running { " running" } else { "" }
        ),
        (key, RowKind::Orphans) => format!("{key} orphans"),
        (RowKey::Message(id), kind) => {
            let Some(m) = store.message(id) else {
                return format!("{id} missing");
            };
            let mut line = format!(
                "{id} {}: {}",
                if *kind == RowKind::Subagent {
                    "subagent"
                } else {
                    m.kind.as_str()
                },
                m.content
            );
            if let Some(status) = &m.metadata.status {
                line.push_str(&format!(" status={status}"));
            }
            if let Some(sa) = &m.metadata.subagent {
                line.push_str(&format!(
                    " subagent={} result={}",
                    sa.status, sa.result_text
                ));
            }
            line
        }
        (key, kind) => format!("{key} {kind:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::Event;
    use crate::model::message::Message;
    use serde_json::json;

    fn added(v: serde_json::Value) -> Event {
        Event::MessageAdded(Message::from_value(&v).unwrap())
    }

    #[test]
    fn one_line_per_row_with_children_under_their_card() {
        let mut store = Store::new();
        let changes = store.apply_all([
            added(json!({"id": "u", "author_type": "user", "content": "go", "turn_id": "t"})),
            added(json!({"id": "sa", "type": "tool_call", "turn_id": "t", "metadata": {
                "tool_call_id": "tc", "status": "complete",
                "normalized": {"kind": "subagent_task", "subagent_task": {
                    "subagent_type": "code-reviewer", "status": "completed", "result_text": "ok"}}}})),
            added(json!({"id": "c1", "type": "tool_read", "turn_id": "t",
                "metadata": {"parent_tool_call_id": "tc", "status": "complete"}})),
            added(json!({"id": "r1", "type": "tool_read", "turn_id": "t", "metadata": {"status": "complete"}})),
            Event::Unreadable { raw: "17".into(), error: "e".into() },
        ]);
        let mut layout = Layout::new();
        layout.update(&store, &changes);
        assert_eq!(
            row_summary(&store, &layout),
            [
                "u message: go",
                "sa subagent:  status=complete subagent=completed result=ok",
                "  c1 tool_read:  status=complete",
                "group:r1 group: 1 tool call [r1]",
                "unreadable: 17",
            ]
        );
    }
}
