//! Telemetry's figures on a session's subagent cards (docs/behaviour.md §7
//! "OpenTelemetry"): set where they changed, announced as one change.

use super::Backend;
use std::collections::BTreeMap;
use taskview_core::model::telemetry::TelemetryFacts;

impl Backend {
    /// Gives each subagent message of `session_id` whose id is in `by_call`
    /// those telemetry figures, announcing the messages that changed.
    pub fn set_subagent_telemetry(
        &self,
        session_id: &str,
        by_call: &BTreeMap<String, TelemetryFacts>,
    ) {
        let mut board = self.board();
        let Some(session) = board.sessions.get_mut(session_id) else {
            return;
        };
        let task_id = session.info.task_id.clone();
        let changed: Vec<_> = by_call
            .iter()
            .filter_map(|(id, facts)| {
                let mut m = session.messages[*session.positions.get(id)?].clone();
                let task = m.metadata.subagent.as_mut()?;
                if task.telemetry.as_ref() == Some(facts) {
                    return None;
                }
                task.telemetry = Some(facts.clone());
                Some(m)
            })
            .collect();
        let events: Vec<_> = changed.into_iter().filter_map(|m| session.put(m)).collect();
        if !events.is_empty() {
            self.announce_change(&mut board, session_id, &task_id, &events);
        }
    }
}
