//! Fault injection for end-to-end tests of the client's tolerance
//! (docs/behaviour.md §8): `--inject-malformed-every N` sends one bad frame after every
//! N good ones on each WebSocket, cycling through [`MALFORMED_FRAMES`].
//! (`--drop-ws-every N`, the other fault, lives in `ws.rs`.)

/// Frames a client must survive: not JSON, not an envelope, an unknown
/// action, and known actions whose payloads have the wrong types. None of
/// them carries a `session_id`, so every client reads them whatever it
/// subscribed to.
pub const MALFORMED_FRAMES: [&str; 7] = [
    r#"{"type":"notification","action":"task.updated","payload":{"task_id":"#,
    r#""a JSON string, not an envelope""#,
    r#"{"type":"notification","action":"taskview.bogus","payload":{}}"#,
    r#"{"type":"notification","action":"task.updated","payload":{"task_id":42,"active_subagent_count":"two"}}"#,
    r#"{"type":"notification","action":"task.deleted","payload":"task-7c1e"}"#,
    r#"{"type":"notification","action":"session.turn.started","payload":{"id":7,"session_id":["s"]}}"#,
    r#"{"type":"notification","action":"session.message.updated","payload":{"message_id":{"nested":true}}}"#,
];

/// Decides when a socket gets a malformed frame.
#[derive(Clone, Debug)]
pub struct Injector {
    every: u64,
    good: u64,
    sent: usize,
}

impl Injector {
    /// One malformed frame after every `every` good ones (`every` ≥ 1).
    pub fn new(every: u64) -> Injector {
        Injector {
            every: every.max(1),
            good: 0,
            sent: 0,
        }
    }

    /// Counts one good frame sent; returns the malformed frame to send next,
    /// when it is time for one.
    pub fn after_frame(&mut self) -> Option<&'static str> {
        self.good += 1;
        if !self.good.is_multiple_of(self.every) {
            return None;
        }
        let frame = MALFORMED_FRAMES[self.sent % MALFORMED_FRAMES.len()];
        self.sent += 1;
        Some(frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use taskview_core::read::client::inbox::{read_frame, Incoming};

    #[test]
    fn every_nth_good_frame_is_followed_by_the_next_bad_one() {
        let mut injector = Injector::new(2);
        let sent: Vec<Option<&str>> = (0..6).map(|_| injector.after_frame()).collect();
        assert_eq!(
            sent,
            [
                None,
                Some(MALFORMED_FRAMES[0]),
                None,
                Some(MALFORMED_FRAMES[1]),
                None,
                Some(MALFORMED_FRAMES[2])
            ]
        );
    }

    #[test]
    fn the_client_reads_each_frame_as_an_issue_of_its_own_kind() {
        let kinds: BTreeSet<String> = MALFORMED_FRAMES
            .iter()
            .map(|frame| match read_frame(frame).as_slice() {
                [Incoming::Issue(issue)] => issue.kind(),
                other => panic!("{frame} read as {other:?}"),
            })
            .collect();
        let expected = [
            "invalid frame",
            "unknown action \"taskview.bogus\"",
            "malformed task.updated payload",
            "malformed task.deleted payload",
            "malformed session.turn.started payload",
            "malformed session.message.updated payload",
        ];
        assert_eq!(kinds, expected.into_iter().map(String::from).collect());
    }
}
