//! The long synthetic session of the layout benchmark (docs/behaviour.md §10): turns
//! with a prompt, thinking, tool calls and a wave of two subagents whose
//! children interleave, as the events a live source sends.

use crate::messages::{
    added, child, subagent, text, thought, tool, turn_completed, turn_started, updated, MessageJson,
};
use serde_json::{json, Value};
use taskview_core::model::event::Event;

/// Numbers messages in creation order, one second apart.
#[derive(Default)]
struct Stream {
    events: Vec<Event>,
    seconds: u64,
    messages: usize,
}

impl Stream {
    /// The next message id and its time.
    fn next(&mut self) -> (String, u64) {
        self.seconds += 1;
        self.messages += 1;
        (format!("m{}", self.seconds), self.seconds)
    }

    fn add(&mut self, message: Value) {
        self.events.push(added(message));
    }

    /// The subagent `id` completes with `result`.
    fn settle(&mut self, id: &str, result: &str) {
        self.seconds += 1;
        let sa = json!({"status": "completed", "result_text": result,
            "duration_ms": 90278, "total_tokens": 48213});
        let done = subagent(id, self.seconds, "", sa);
        self.events.push(updated(json!({"message_id": id,
            "updated_at": done["updated_at"], "metadata": done["metadata"]})));
    }
}

/// At least `messages` messages of a live session, turn by turn: a prompt,
/// thinking, three tool calls, text, a wave of two subagents with five
/// interleaved children, their completions, and a reply.
pub fn live_session(messages: usize) -> Vec<Event> {
    let mut s = Stream::default();
    let mut t = 0;
    while s.messages < messages {
        t += 1;
        let turn = format!("turn-{t}");
        s.events.push(turn_started(&turn));
        let (id, n) = s.next();
        s.add(text(&id, n, Some(&turn), "user"));
        let (id, n) = s.next();
        s.add(thought(&id, n, &turn));
        for _ in 0..3 {
            let (id, n) = s.next();
            s.add(tool(&id, n, &turn, "tool_execute"));
        }
        let (id, n) = s.next();
        s.add(text(&id, n, Some(&turn), "agent"));
        let mut wave = Vec::new();
        for kind in ["code-reviewer", "test-supervisor"] {
            let (id, n) = s.next();
            let running = subagent(&id, n, &turn, json!({"subagent_type": kind}));
            s.add(running.status("in_progress"));
            wave.push(id);
        }
        let (a, b) = (wave[0].clone(), wave[1].clone());
        for parent in [&a, &b, &a, &b, &a] {
            let (id, n) = s.next();
            s.add(child(&id, n, &turn, parent));
        }
        s.settle(&b, "APPROVE\nfine");
        s.settle(&a, "VERDICT: REQUEST_CHANGES\nsee line 88");
        let (id, n) = s.next();
        s.add(text(&id, n, Some(&turn), "agent"));
        s.events.push(turn_completed(&turn));
    }
    s.events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;

    #[test]
    fn a_turn_lays_out_as_a_group_two_cards_with_their_children_and_text() {
        let events = live_session(1);
        let messages = events
            .iter()
            .filter(|e| matches!(e, Event::MessageAdded(_)))
            .count();
        assert_eq!(messages, 14);
        let s = Session::with(events);
        assert_eq!(
            s.outline(),
            [
                "msg:m1",
                "group:3 tool calls · 1 thought",
                "msg:m6",
                "card:m7",
                "  msg:m9",
                "  msg:m11",
                "  msg:m13",
                "card:m8",
                "  msg:m10",
                "  msg:m12",
                "msg:m16",
            ]
        );
        assert!(!s.card("m7").status.is_running());
    }
}
