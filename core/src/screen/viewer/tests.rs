use super::*;
use crate::model::message::Message;
use crate::screen::view::row::RowBody;
use serde_json::{json, Value};

fn at(n: u64) -> String {
    format!("2026-08-03T10:{:02}:{:02}Z", n / 60, n % 60)
}

fn added(v: Value) -> Event {
    Event::MessageAdded(Message::from_value(&v).unwrap())
}

fn user(id: &str, n: u64) -> Event {
    added(
        json!({"id": id, "session_id": "s", "turn_id": "t1", "author_type": "user",
        "content": "go", "created_at": at(n)}),
    )
}

fn tool(id: &str, n: u64, parent: Option<&str>) -> Event {
    let mut v = json!({"id": id, "session_id": "s", "turn_id": "t1", "type": "tool_read",
        "content": format!("Read {id}"), "created_at": at(n),
        "metadata": {"tool_call_id": format!("tc-{id}"), "status": "complete"}});
    if let Some(p) = parent {
        v["metadata"]["parent_tool_call_id"] = json!(format!("tc-{p}"));
    }
    added(v)
}

fn card(id: &str, n: u64, status: &str) -> Event {
    added(
        json!({"id": id, "session_id": "s", "turn_id": "t1", "type": "tool_call",
        "created_at": at(n), "updated_at": at(n),
        "metadata": {"tool_call_id": format!("tc-{id}"), "status": status,
            "normalized": {"kind": "subagent_task", "subagent_task": {
                "subagent_type": "code-reviewer", "description": "pass", "result_text": "Done"}}}}),
    )
}

fn turn(started: bool) -> Event {
    Event::turn(started, "s", "t1")
}

fn key(id: &str) -> RowKey {
    RowKey::Message(id.into())
}

fn card_row(v: &Viewer, id: &str) -> crate::screen::view::row::CardRowView {
    v.row(&key(id)).and_then(|r| r.card().cloned()).unwrap()
}

#[test]
fn a_card_that_stops_running_is_reported_settled_once_and_announced() {
    let mut v = Viewer::new();
    v.apply([turn(true), user("u", 0), card("sa", 1, "in_progress")]);
    assert!(card_row(&v, "sa").card.status.is_running());
    let update = v.apply([turn(false)]);
    assert_eq!(update.settled, [key("sa")]);
    assert!(card_row(&v, "sa").just_settled, "the settled-just-now flag");
    assert_eq!(
        v.settled_cards(&update.settled)[0].settled_announcement(),
        "code-reviewer subagent finished: Done"
    );
    let later = v.apply([user("u2", 5)]);
    assert!(later.settled.is_empty());
    assert!(!card_row(&v, "sa").just_settled);
}

#[test]
fn heights_follow_the_top_level_list_and_keep_measurements() {
    let mut v = Viewer::new();
    let update = v.apply([user("u", 0), card("sa", 1, "complete")]);
    assert!(update.list);
    assert_eq!(v.heights().len(), v.layout().top_len());
    assert!(v.set_height(&key("sa"), 120.0));
    assert!(!v.set_height(&key("sa"), 120.0), "unchanged height");
    v.apply([user("u0", 0)]);
    let index = v.layout().top_index_of(&key("sa")).unwrap();
    assert_eq!(v.heights().height(index), Some(120.0));
    assert_eq!(v.heights().len(), 3);
    let update = v.apply([tool("c1", 2, Some("sa"))]);
    assert!(
        !update.list,
        "a child inside a card leaves the top level as it is"
    );
}

#[test]
fn a_deep_link_to_a_child_that_arrives_later_opens_its_card_when_it_arrives() {
    let mut v = Viewer::new();
    v.apply([user("u", 0), card("sa", 1, "complete")]);
    assert_eq!(v.follow_anchor("c1"), (None, Vec::new()));
    let update = v.apply([tool("c1", 2, Some("sa"))]);
    let reveal = update.reveal.expect("revealed when it arrives");
    assert_eq!(reveal.anchor, "msg-c1");
    assert_eq!(reveal.top_index, 1);
    assert!(update.rows.contains(&key("sa")));
    assert!(card_row(&v, "sa").expanded);
    let again = v.apply([tool("c2", 3, Some("sa"))]);
    assert_eq!(again.reveal, None, "revealed once while it stays put");
}

#[test]
fn a_deep_link_to_a_group_member_opens_the_group() {
    let mut v = Viewer::new();
    v.apply([user("u", 0), tool("r1", 1, None), tool("r2", 2, None)]);
    let (reveal, opened) = v.follow_anchor("r2");
    assert_eq!(reveal.unwrap().top_index, 1);
    let group = RowKey::Group("r1".into());
    assert_eq!(opened, std::slice::from_ref(&group));
    let Some(RowBody::Group(g)) = v.row(&group).map(|r| r.body) else {
        panic!("no group")
    };
    assert!(g.expanded);
    assert_eq!(g.members.len(), 2);
    assert_eq!(g.members[1].anchor, "msg-r2");
}

#[test]
fn a_deep_link_follows_a_child_into_its_card_when_the_parent_arrives_late() {
    let mut v = Viewer::new();
    v.apply([user("u", 0), tool("c1", 2, Some("sa"))]);
    let (reveal, _) = v.follow_anchor("c1");
    assert!(reveal.is_some(), "inside the orphan card first");
    let update = v.apply([card("sa", 1, "complete")]);
    assert!(update.reveal.is_some(), "revealed again in its real card");
    assert!(card_row(&v, "sa").expanded);
}

#[test]
fn toggles_stick_and_opening_another_transcript_forgets_them() {
    let mut v = Viewer::new();
    v.apply([user("u", 0), card("sa", 1, "complete")]);
    assert!(!card_row(&v, "sa").expanded);
    assert_eq!(v.toggle(&key("sa")), [key("sa")]);
    assert!(card_row(&v, "sa").expanded);
    v.apply([tool("c1", 2, Some("sa"))]);
    assert!(card_row(&v, "sa").expanded, "the choice sticks");
    let update = v.apply([
        Event::TranscriptOpened { session_id: None },
        card("sa", 1, "complete"),
    ]);
    assert!(update.reset && update.list);
    assert!(!card_row(&v, "sa").expanded);
    assert_eq!(v.heights().len(), 1);
}

#[test]
fn a_deep_link_given_before_a_file_loads_is_followed_into_it() {
    let mut v = Viewer::new();
    assert_eq!(v.follow_anchor("c1").0, None);
    let update = v.apply([
        Event::TranscriptOpened { session_id: None },
        user("u", 0),
        card("sa", 1, "complete"),
        tool("c1", 2, Some("sa")),
    ]);
    assert_eq!(update.reveal.map(|r| r.anchor).as_deref(), Some("msg-c1"));
    assert!(card_row(&v, "sa").expanded);
}
