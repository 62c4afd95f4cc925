//! The spill parts of a tool row (docs/behaviour.md §4): the `spilled` chip of an
//! output replaced by a `spill_<id>` placeholder, with the stored text inline
//! when the session holds it; the back link from where the stored text was
//! read; and the `truncated` mark of a lossy cut.

use super::anchor::anchor_id;
use crate::model::message::Message;
use crate::model::spill::{self, SpillLink};
use crate::state::store::Store;

/// The spill chip's `title` when the session does not hold the stored text.
pub const SPILL_NOT_HELD: &str =
    "moved out of the agent's context; its stored text is not in this session";
/// The link from an opened spill chip to the row holding its text.
pub const SPILL_READ_BACK: &str = "where it was read back";
/// Before the spill's id on a row holding its stored text.
pub const SPILL_SOURCE_LEAD: &str = "stored text of ";
/// The link from a row holding a stored text back to an output it replaced.
pub const SPILL_OUTPUT_LINK: &str = "spilled output";
/// The mark of a lossy cut.
pub const TRUNCATED_LABEL: &str = "truncated";
/// The `title` of the `truncated` mark.
pub const TRUNCATED_TITLE: &str = "cut by a lossy step: the rest of this output is gone";

/// The chip of a spilled output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpillView {
    /// The `spill_<id>`, as `data-spill-id`.
    pub id: String,
    /// The chip's text: `spilled · spill_<id>`.
    pub label: String,
    /// The stored text, when the session holds it: opened inline.
    pub stored: Option<StoredSpill>,
}

/// Stored text found elsewhere in the session, and the row it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSpill {
    pub text: String,
    /// `msg-<id>` of the row holding it (a `read_run` result, a spill row).
    pub anchor: String,
}

/// On a row holding a spill's stored text: the spill and the rows whose
/// output it replaced (links back to their chips).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpillSourceView {
    pub id: String,
    pub placeholder_anchors: Vec<String>,
}

/// The chip of message `m` when its output is a spill placeholder. The
/// stored text is the first holder's that has any.
pub fn spill_view(store: &Store, m: &Message) -> Option<SpillView> {
    let Some(SpillLink::Placeholder(id)) = spill::link_of(m) else {
        return None;
    };
    let stored = store.spill(&id).and_then(|index| {
        index.stored.iter().find_map(|holder| {
            let text = spill::stored_text(store.message(holder)?)?;
            Some(StoredSpill {
                text: text.to_string(),
                anchor: anchor_id(holder),
            })
        })
    });
    Some(SpillView {
        label: format!("spilled · {id}"),
        id,
        stored,
    })
}

/// The back link of message `m` when it holds a spill's stored text.
pub fn spill_source_view(store: &Store, m: &Message) -> Option<SpillSourceView> {
    let Some(SpillLink::Stored(id)) = spill::link_of(m) else {
        return None;
    };
    let placeholder_anchors = store
        .spill(&id)
        .map(|index| index.placeholders.iter().map(|p| anchor_id(p)).collect())
        .unwrap_or_default();
    Some(SpillSourceView {
        id,
        placeholder_anchors,
    })
}

/// A tool output cut by a lossy admission step carries a marker (docs/behaviour.md §4).
pub fn is_truncated(m: &Message) -> bool {
    m.kind.is_tool() && spill::tool_output(m).is_some_and(spill::has_truncation_marker)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::Event;
    use serde_json::json;

    fn added(v: serde_json::Value) -> Event {
        Event::MessageAdded(Message::from_value(&v).unwrap())
    }

    fn placeholder() -> Event {
        added(json!({"id": "crawl", "type": "tool_call", "metadata": {
            "tool_name": "web_crawler", "status": "complete", "result": "spill_5e1d7aa0"}}))
    }

    fn reader() -> Event {
        added(json!({"id": "read", "type": "tool_call", "metadata": {
            "tool_name": "read_run", "status": "complete",
            "args": {"spill_id": "spill_5e1d7aa0"}, "result": "# The article\nfull text"}}))
    }

    #[test]
    fn spilled_output_shows_a_chip_with_its_id_and_no_stored_text_when_the_session_lacks_it() {
        let mut store = Store::new();
        store.apply(placeholder());
        let view = spill_view(&store, store.message("crawl").unwrap()).unwrap();
        assert_eq!(
            view,
            SpillView {
                id: "spill_5e1d7aa0".into(),
                label: "spilled · spill_5e1d7aa0".into(),
                stored: None
            }
        );
    }

    #[test]
    fn spilled_output_opens_the_stored_text_of_a_later_read_run_and_both_rows_link() {
        let mut store = Store::new();
        store.apply(placeholder());
        let changes = store.apply(reader());
        // The placeholder's row changes when its stored text arrives.
        assert!(changes
            .entries
            .contains(&crate::state::store::EntryId::Message("crawl".into())));
        assert_read_back_by_read(&store);
        // Deleting the reader takes the stored text away again.
        let changes = store.apply(Event::MessageDeleted { id: "read".into() });
        assert!(changes
            .entries
            .contains(&crate::state::store::EntryId::Message("crawl".into())));
        let view = spill_view(&store, store.message("crawl").unwrap()).unwrap();
        assert_eq!(view.stored, None);
    }

    /// The placeholder `crawl` holds the article reader `read` brought
    /// back, and `read` links back to it.
    fn assert_read_back_by_read(store: &Store) {
        let view = spill_view(store, store.message("crawl").unwrap()).unwrap();
        assert_eq!(
            view.stored,
            Some(StoredSpill {
                text: "# The article\nfull text".into(),
                anchor: "msg-read".into()
            })
        );
        let back = spill_source_view(store, store.message("read").unwrap()).unwrap();
        assert_eq!(back.placeholder_anchors, ["msg-crawl"]);
    }

    #[test]
    fn spilled_output_read_back_by_a_reader_titled_like_a_kandev_generic_tool_call_is_held() {
        // `read_run spill_…` as the title, no structured input, the stored
        // text in the generic output: the placeholder's chip opens it.
        let mut store = Store::new();
        store.apply(placeholder());
        store.apply(added(
            json!({"id": "read", "type": "tool_call", "metadata": {
            "title": "read_run spill_5e1d7aa0", "status": "complete",
            "normalized": {"kind": "generic", "generic": {"output": "# The article\nfull text"}}}}),
        ));
        assert_read_back_by_read(&store);
    }

    #[test]
    fn spilled_output_stored_text_may_arrive_before_the_placeholder() {
        let mut store = Store::new();
        store.apply(reader());
        store.apply(placeholder());
        let view = spill_view(&store, store.message("crawl").unwrap()).unwrap();
        assert_eq!(view.stored.unwrap().anchor, "msg-read");
    }

    #[test]
    fn lossy_truncated_tool_output_is_marked_and_text_rows_are_not() {
        let cut = Message::from_value(&json!({"id": "t", "type": "tool_call",
            "metadata": {"result": "first part of the page…[truncated]"}}))
        .unwrap();
        assert!(is_truncated(&cut));
        let text = Message::from_value(&json!({"id": "u", "type": "message",
            "content": "…[truncated]"}))
        .unwrap();
        assert!(!is_truncated(&text));
    }
}
