//! Scripts: changes to one session at times of the backend's clock, built
//! ahead (so parallel subagents interleave by construction) and played as
//! that clock reaches them.

use crate::backend::Backend;
use crate::clock;
use crate::shutdown::Shutdown;
use serde_json::Value;
use std::collections::HashSet;
use taskview_core::model::message::{Author, Message, MessageType, Metadata};

/// One scripted change to a session.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// Add a message, or replace it whole when its id exists.
    Put(Box<Message>),
    /// Start a turn with this id.
    StartTurn(String),
    /// Complete the active turn; the session then takes this state
    /// (`WAITING_FOR_INPUT` when `None`).
    CompleteTurn(Option<&'static str>),
}

/// A change at a time on the backend's clock (Unix milliseconds).
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub at: u64,
    pub change: Change,
}

/// Steps collected in any order and played sorted by time, ties in the
/// order they were added.
#[derive(Debug, Default)]
pub struct Timeline {
    steps: Vec<(u64, usize, Change)>,
}

impl Timeline {
    /// Schedules `change` at time `at`.
    pub fn push(&mut self, at: u64, change: Change) {
        let seq = self.steps.len();
        self.steps.push((at, seq, change));
    }

    /// The time of the last step (0 when empty).
    pub fn end(&self) -> u64 {
        self.steps.iter().map(|s| s.0).max().unwrap_or(0)
    }

    /// How many distinct messages the timeline puts.
    pub fn message_count(&self) -> usize {
        let ids: HashSet<&str> = self
            .steps
            .iter()
            .filter_map(|(_, _, c)| match c {
                Change::Put(m) => Some(m.id.as_str()),
                _ => None,
            })
            .collect();
        ids.len()
    }

    /// The steps in playing order.
    pub fn into_steps(mut self) -> Vec<Step> {
        self.steps.sort_by_key(|s| (s.0, s.1));
        self.steps
            .into_iter()
            .map(|(at, _, change)| Step { at, change })
            .collect()
    }
}

/// Applies one step to a session.
pub fn apply(backend: &Backend, session_id: &str, step: &Step) {
    let at = clock::rfc3339_ms(step.at);
    match &step.change {
        Change::Put(m) => {
            backend.put_message(session_id, (**m).clone());
        }
        Change::StartTurn(turn_id) => backend.start_turn(session_id, turn_id, &at),
        Change::CompleteTurn(state) => backend.complete_turn(session_id, &at, *state),
    }
    backend.update_scenario(|s| s.frames += 1);
}

/// Plays steps at their times on the backend's clock. False when shutdown
/// interrupted it.
pub async fn play(
    backend: &Backend,
    session_id: &str,
    steps: &[Step],
    shutdown: &mut Shutdown,
) -> bool {
    for step in steps {
        let wait = backend.clock().until(step.at);
        if !wait.is_zero() && !shutdown.sleep(wait).await {
            return false;
        }
        apply(backend, session_id, step);
    }
    true
}

/// Builds the messages of one turn of one session.
#[derive(Clone, Debug)]
pub struct Writer {
    pub session_id: String,
    pub task_id: String,
    pub turn_id: String,
}

impl Writer {
    /// A message of this turn created at time `at`.
    pub fn message(
        &self,
        id: &str,
        at: u64,
        author: Author,
        kind: &str,
        content: &str,
        metadata: Value,
    ) -> Message {
        let time = clock::rfc3339_ms(at);
        Message {
            id: id.to_string(),
            session_id: self.session_id.clone(),
            task_id: self.task_id.clone(),
            turn_id: Some(self.turn_id.clone()),
            author,
            kind: MessageType::parse(kind),
            content: content.to_string(),
            metadata: Metadata::from_value(&metadata),
            created_at: time.clone(),
            updated_at: time,
        }
    }
}

/// The same message with new metadata (and content), updated at `at`.
pub fn revised(m: &Message, at: u64, content: &str, metadata: Value) -> Message {
    Message {
        content: content.to_string(),
        metadata: Metadata::from_value(&metadata),
        updated_at: clock::rfc3339_ms(at),
        ..m.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_play_in_time_order_ties_in_insertion_order() {
        let mut t = Timeline::default();
        t.push(30, Change::StartTurn("c".into()));
        t.push(10, Change::StartTurn("a".into()));
        t.push(10, Change::StartTurn("b".into()));
        assert_eq!(t.end(), 30);
        let order: Vec<_> = t
            .into_steps()
            .into_iter()
            .map(|s| match s.change {
                Change::StartTurn(id) => id,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, ["a", "b", "c"]);
    }

    #[test]
    fn message_count_counts_distinct_ids() {
        let w = Writer {
            session_id: "s".into(),
            task_id: "t".into(),
            turn_id: "turn-1".into(),
        };
        let m = w.message("m1", 0, Author::Agent, "tool_call", "x", json!({}));
        let mut t = Timeline::default();
        t.push(0, Change::Put(Box::new(m.clone())));
        t.push(
            5,
            Change::Put(Box::new(revised(&m, 5, "y", json!({"status": "complete"})))),
        );
        t.push(6, Change::CompleteTurn(None));
        assert_eq!(t.message_count(), 1);
    }
}
