//! When a subagent run started and ended, by the Timeline's rules
//! (docs/user-guide.md "The Timeline"), shared by the Timeline
//! (`state::timeline::run`) and the board's Activity strip, whose runs the
//! card facts carry (`read::import::card_facts`, docs/board.md "Activity"):
//! a run starts at its launch (its message's `created_at`) and, once
//! settled, ends at its reported duration after its start (its `started_at`
//! when that is after the launch: a queued run's duration is its own), else at its
//! message's `updated_at` (the source updated it when it settled), else at
//! the last record of its own transcript.

use crate::model::message::Message;
use crate::model::time::parse_millis;

/// How the end of a settled run is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndSource {
    /// Its own `duration_ms` after its launch (a background run's comes with
    /// the notification that settled it).
    Reported,
    /// Its message's `updated_at`: the source updated it when it settled.
    Updated,
    /// The last record of its own transcript: the source says nothing more.
    LastRecord,
}

/// When run `m`, launched at `launch` (ms since the epoch) and settled,
/// ended as its message says: its reported duration after its start (its
/// `started_at` when later than the launch, else the launch), else its
/// `updated_at`; `None` when it says neither (its transcript's last record
/// may: [`EndSource::LastRecord`]).
pub fn settled_at(m: &Message, launch: i64) -> Option<(i64, EndSource)> {
    let subagent = m.metadata.subagent.as_ref();
    let start = subagent
        .and_then(|s| parse_millis(&s.started_at))
        .filter(|t| *t > launch)
        .unwrap_or(launch);
    subagent
        .and_then(|s| s.duration_ms)
        .filter(|d| *d > 0)
        .map(|d| (start + d as i64, EndSource::Reported))
        .or_else(|| {
            parse_millis(&m.updated_at)
                .filter(|u| *u > launch)
                .map(|u| (u, EndSource::Updated))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card(v: serde_json::Value) -> Message {
        Message::from_value(&v).unwrap()
    }

    #[test]
    fn a_run_ends_at_its_reported_duration_else_when_its_message_was_updated() {
        let launched = "2026-12-06T08:00:00Z";
        let launch = parse_millis(launched).unwrap();
        let reported = card(
            json!({"id": "a", "created_at": launched, "updated_at": "2026-12-06T08:05:00Z",
            "metadata": {"normalized": {"subagent_task": {"duration_ms": 60_000}}}}),
        );
        assert_eq!(
            settled_at(&reported, launch),
            Some((launch + 60_000, EndSource::Reported))
        );
        let updated = card(
            json!({"id": "b", "created_at": launched, "updated_at": "2026-12-06T08:05:00Z",
            "metadata": {"normalized": {"subagent_task": {}}}}),
        );
        assert_eq!(
            settled_at(&updated, launch),
            Some((launch + 300_000, EndSource::Updated))
        );
        let silent = card(
            json!({"id": "c", "created_at": launched, "updated_at": launched,
            "metadata": {"normalized": {"subagent_task": {}}}}),
        );
        assert_eq!(settled_at(&silent, launch), None);
    }
}
