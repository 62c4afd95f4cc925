//! Property tests: the incremental layout always equals a from-scratch layout,
//! and the store does not depend on the order events arrive in.

use proptest::prelude::*;
use serde_json::{json, Value};
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::state::layout::Layout;
use taskview_core::state::store::{EntryId, Store};
use taskview_testkit::*;

#[derive(Clone, Debug)]
struct Spec {
    idx: u8,
    kind: u8,
    turn: u8,
    parent: u8,
    tcid: u8,
    status: u8,
}

fn spec() -> impl Strategy<Value = Spec> {
    (0u8..10, 0u8..6, 0u8..3, 0u8..6, 0u8..4, 0u8..3).prop_map(
        |(idx, kind, turn, parent, tcid, status)| Spec {
            idx,
            kind,
            turn,
            parent,
            tcid,
            status,
        },
    )
}

/// Tool call ids: a message's own (`tc<idx>`) or a shared one; parents point
/// at either, so children, orphans, duplicates and loops all occur.
fn metadata(s: &Spec) -> Value {
    let tcid = if s.tcid == 0 {
        format!("tcs{}", s.idx % 3)
    } else {
        format!("tc{}", s.idx)
    };
    let parent = match s.parent {
        0 | 1 => Value::Null,
        p => json!(format!("tc{}", (s.idx as usize + p as usize) % 10)),
    };
    let status = ["complete", "in_progress", "pending"][s.status as usize];
    let mut m = json!({"tool_call_id": tcid, "parent_tool_call_id": parent, "status": status, "title": "t"});
    if s.kind == 5 {
        m["normalized"] = json!({"kind": "subagent_task", "subagent_task": {"result_text": format!("r{}", s.status)}});
    }
    m
}

fn message(s: &Spec, stamp: u64) -> Value {
    let (kind, author) = [
        ("tool_call", "agent"),
        ("tool_read", "agent"),
        ("thinking", "agent"),
        ("message", "user"),
        ("message", "agent"),
        ("tool_call", "agent"),
    ][s.kind as usize];
    let turn = [Value::Null, json!("t1"), json!("t2")][s.turn as usize].clone();
    json!({"id": format!("m{}", s.idx), "session_id": "s", "turn_id": turn, "type": kind,
        "author_type": author, "content": "c", "metadata": metadata(s),
        "created_at": at(u64::from(s.idx) * 10), "updated_at": at(1000 + stamp)})
}

#[derive(Clone, Debug)]
enum Op {
    Add(Spec),
    Update(Spec),
    Delete(u8),
    TurnStart(u8),
    TurnEnd(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => spec().prop_map(Op::Add),
        3 => spec().prop_map(Op::Update),
        1 => (0u8..10).prop_map(Op::Delete),
        1 => (1u8..3).prop_map(Op::TurnStart),
        1 => (1u8..3).prop_map(Op::TurnEnd),
    ]
}

fn event(op: &Op, stamp: u64) -> Event {
    match op {
        Op::Add(s) => added(message(s, stamp)),
        Op::Update(s) => {
            let mut v = message(s, stamp);
            let obj = v.as_object_mut().unwrap();
            obj.remove("type");
            obj.remove("author_type");
            obj.remove("content");
            updated(v)
        }
        Op::Delete(i) => Event::MessageDeleted {
            id: format!("m{i}"),
        },
        Op::TurnStart(t) => Event::TurnStarted {
            session_id: "s".into(),
            turn_id: format!("t{t}"),
        },
        Op::TurnEnd(t) => Event::TurnCompleted {
            session_id: "s".into(),
            turn_id: format!("t{t}"),
        },
    }
}

fn dump(store: &Store) -> Vec<Message> {
    store
        .entries()
        .filter_map(|(_, e)| match e {
            EntryId::Message(id) => store.message(id).cloned(),
            EntryId::Unreadable(_) => None,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(200), ..ProptestConfig::default() })]

    #[test]
    fn incremental_layout_equals_a_full_layout_after_any_event_sequence(ops in prop::collection::vec(op(), 0..40)) {
        let mut s = Session::default();
        for (i, op) in ops.iter().enumerate() {
            s.apply(event(op, i as u64));
        }
        s.assert_matches_full_layout();
        let batched = Session::new(ops.iter().enumerate().map(|(i, op)| event(op, i as u64)));
        let full = Layout::from_store(&batched.store);
        let a: Vec<_> = batched.layout.outline().into_iter().cloned().collect();
        let b: Vec<_> = full.outline().into_iter().cloned().collect();
        prop_assert_eq!(a, b);
        for id in (0..10).map(|i| format!("m{i}")) {
            prop_assert_eq!(s.layout.row_of_message(&id), full.row_of_message(&id));
        }
    }

    /// Pages and file chunks reach the layout as batches of any size and at
    /// any position (older pages land before everything laid out).
    #[test]
    fn incremental_layout_equals_a_full_layout_for_any_batching(
        ops in prop::collection::vec(op(), 0..40),
        sizes in prop::collection::vec(1usize..8, 1..10),
    ) {
        let events: Vec<Event> = ops.iter().enumerate().map(|(i, op)| event(op, i as u64)).collect();
        let mut s = Session::new(std::iter::empty());
        let mut rest = &events[..];
        for size in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (batch, after) = rest.split_at((*size).min(rest.len()));
            let changes = s.store.apply_all(batch.to_vec());
            s.layout.update(&s.store, &changes);
            rest = after;
        }
        s.assert_matches_full_layout();
    }

    #[test]
    fn store_is_the_same_for_any_arrival_order_of_stamped_events(
        (ops, shuffled) in prop::collection::vec(op(), 0..30)
            .prop_map(|ops| ops.into_iter().filter(|o| !matches!(o, Op::TurnStart(_) | Op::TurnEnd(_)))
                .enumerate().collect::<Vec<_>>())
            .prop_flat_map(|ops| (Just(ops.clone()), Just(ops).prop_shuffle()))
    ) {
        let mut in_order = Store::new();
        let mut reordered = Store::new();
        for (i, op) in &ops {
            in_order.apply(event(op, *i as u64));
        }
        for (i, op) in &shuffled {
            reordered.apply(event(op, *i as u64));
        }
        prop_assert_eq!(dump(&in_order), dump(&reordered));
        let shape = |store: &Store| -> Vec<_> {
            Layout::from_store(store).outline().into_iter().map(|r| (r.depth, r.key.clone(), r.kind.clone())).collect()
        };
        prop_assert_eq!(shape(&in_order), shape(&reordered));
    }
}
