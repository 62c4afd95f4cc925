//! The status vocabulary and the turn-aware running rule (docs/behaviour.md §3.4), shared
//! by tool rows, groups, subagent cards and the layout, and the background rule
//! of the honest lifecycle (docs/behaviour.md §8).

use crate::model::message::{is_launch_placeholder, Message, SubagentTask};

/// Where a tool call or subagent stands, as the viewer shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RunState {
    /// Spinner: `running`, or `pending`/`in_progress`/`started` during its active turn.
    Running,
    /// `complete`/`completed`/`success`: no marker.
    Complete,
    /// `error`/`failed`: a `failed` marker.
    Failed,
    /// `cancelled`/`canceled`: a muted `cancelled` marker.
    Cancelled,
    /// Not terminal, but its turn is over (or the source is static): no marker.
    #[default]
    Settled,
}

impl RunState {
    /// True while the spinner shows.
    pub fn is_running(self) -> bool {
        self == RunState::Running
    }

    /// A stable name for CSS and `data-state`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Complete => "complete",
            RunState::Failed => "failed",
            RunState::Cancelled => "cancelled",
            RunState::Settled => "settled",
        }
    }

    /// The word shown next to a tool row's icon, so no state is told by colour
    /// alone; empty when there is nothing to say.
    pub fn label(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Complete => "done",
            RunState::Failed => "failed",
            RunState::Cancelled => "cancelled",
            RunState::Settled => "",
        }
    }
}

/// A status word that decides the state on its own, or `None` for one that
/// depends on the turn (`pending`, `in_progress`, `started`, unknown, absent).
fn definite(status: &str) -> Option<RunState> {
    match status.trim().to_ascii_lowercase().as_str() {
        "complete" | "completed" | "success" => Some(RunState::Complete),
        "error" | "failed" => Some(RunState::Failed),
        "cancelled" | "canceled" => Some(RunState::Cancelled),
        // A background run keeps running until something settles it (docs/behaviour.md §8).
        "running" | "async_launched" => Some(RunState::Running),
        _ => None,
    }
}

/// The running rule (docs/behaviour.md §3.4). The message status decides when it is
/// definite, then the payload status; otherwise the call runs only while its
/// turn is the session's active turn. A turn's end therefore settles every
/// call it left open without rewriting stored data (kandev's completion sweep,
/// minus its `cancelled` → `complete` rewrite).
pub fn run_state(
    metadata_status: Option<&str>,
    payload_status: Option<&str>,
    turn_active: bool,
) -> RunState {
    metadata_status
        .and_then(definite)
        .or_else(|| payload_status.and_then(definite))
        .unwrap_or(if turn_active {
            RunState::Running
        } else {
            RunState::Settled
        })
}

/// A background subagent (docs/behaviour.md §8): `is_async`, payload status
/// `async_launched` or `background` (qwen-code), or a fork whose result is
/// still its launch placeholder (`Fork started — processing in background`):
/// a fork runs in the background, so it never looks finished until its
/// final result or a terminal status arrives.
pub fn is_background(sa: &SubagentTask) -> bool {
    let status = sa.status.trim();
    sa.is_async
        || status.eq_ignore_ascii_case("async_launched")
        || status.eq_ignore_ascii_case("background")
        || (sa.is_fork && is_launch_placeholder(&sa.result_text))
}

/// The running rule of a background subagent (docs/behaviour.md §8, honest lifecycle):
/// the launch returning (`metadata.status` complete) does not end the run. A
/// terminal payload status settles it, so does a failed or cancelled launch;
/// otherwise it stays running, whatever its turn.
pub fn background_run_state(metadata_status: Option<&str>, payload_status: &str) -> RunState {
    let launch = metadata_status
        .and_then(definite)
        .filter(|s| matches!(s, RunState::Failed | RunState::Cancelled));
    definite(payload_status)
        .filter(|s| !s.is_running())
        .or(launch)
        .unwrap_or(RunState::Running)
}

/// [`run_state`] of a message: its `metadata.status` and, for a subagent, the
/// payload's own `status`; a background subagent follows
/// [`background_run_state`].
pub fn message_run_state(message: &Message, turn_active: bool) -> RunState {
    let metadata_status = message.metadata.status.as_deref();
    match message.metadata.subagent.as_ref() {
        Some(sa) if is_background(sa) => background_run_state(metadata_status, &sa.status),
        Some(sa) => run_state(metadata_status, Some(&sa.status), turn_active),
        None => run_state(metadata_status, None, turn_active),
    }
}

/// True when `message` said it was under way and nothing settled it: its
/// status is `pending` or `in_progress` (or its payload's `started`), words
/// that decide nothing on their own (docs/behaviour.md §3.4), and no status of it is
/// terminal.
pub fn left_unfinished(message: &Message) -> bool {
    let metadata_status = message.metadata.status.as_deref();
    let payload_status = message
        .metadata
        .subagent
        .as_ref()
        .map(|sa| sa.status.as_str());
    let statuses = || metadata_status.into_iter().chain(payload_status);
    statuses().all(|s| definite(s).is_none())
        && statuses().any(|s| {
            matches!(
                s.trim().to_ascii_lowercase().as_str(),
                "pending" | "in_progress" | "started"
            )
        })
}

/// [`message_run_state`] in a source nobody writes any more (docs/behaviour.md §8):
/// a run [`left_unfinished`] that never got a result never reported back,
/// so it is not settled by the end of its turn as in a live source: it
/// stays running, and the view reads it `interrupted · no result recorded`.
/// One with a result is settled, as docs/behaviour.md §3.4 says of a static file.
pub fn still_run_state(message: &Message, turn_active: bool) -> RunState {
    let has_result = message
        .metadata
        .subagent
        .as_ref()
        .is_some_and(|sa| !sa.result_text.trim().is_empty());
    match message_run_state(message, turn_active) {
        RunState::Settled if left_unfinished(message) && !has_result => RunState::Running,
        state => state,
    }
}

/// The run state of `message` as every view reads it: [`still_run_state`]
/// in a source nobody writes any more, else [`message_run_state`].
pub fn source_run_state(message: &Message, turn_active: bool, still: bool) -> RunState {
    if still {
        still_run_state(message, turn_active)
    } else {
        message_run_state(message, turn_active)
    }
}

/// True when `message` belongs to `active_turn`, its session's active turn
/// (docs/behaviour.md §3.4). A message without a turn never does, and a static source
/// has no active turn.
pub fn in_active_turn(message: &Message, active_turn: Option<&str>) -> bool {
    message
        .turn_id
        .as_deref()
        .is_some_and(|turn| active_turn == Some(turn))
}

/// True when `message` is a subagent whose card shows a spinner, given its
/// session's active turn: what the board's `active_subagent_count` counts, so
/// the chip and the transcript's spinners never disagree (docs/behaviour.md §1.1, §5).
/// Like kandev (docs/protocol.md §4.1) it counts attested subagents, those with
/// a subagent payload, nested ones included.
pub fn is_running_subagent(message: &Message, active_turn: Option<&str>) -> bool {
    message.is_subagent_payload()
        && message_run_state(message, in_active_turn(message, active_turn)).is_running()
}

/// True when the state of `message` depends on whether its turn is active, so
/// a turn start or end must refresh it.
pub fn depends_on_turn(message: &Message) -> bool {
    message_run_state(message, true) != message_run_state(message, false)
}

#[cfg(test)]
mod tests {
    use super::RunState::*;
    use super::*;

    #[test]
    fn status_vocabulary_maps_terminal_words_regardless_of_turn() {
        for (word, state) in [
            ("complete", Complete),
            ("completed", Complete),
            ("success", Complete),
            ("error", Failed),
            ("failed", Failed),
            ("cancelled", Cancelled),
            ("canceled", Cancelled),
        ] {
            assert_eq!(run_state(Some(word), None, true), state, "{word}");
            assert_eq!(run_state(Some(word), None, false), state, "{word}");
        }
    }

    #[test]
    fn running_status_runs_even_without_an_active_turn() {
        assert_eq!(run_state(Some("running"), Some("queued"), false), Running);
    }

    #[test]
    fn pending_in_progress_and_started_run_only_while_their_turn_is_active() {
        assert_eq!(
            run_state(Some("in_progress"), Some("queued"), true),
            Running
        );
        assert_eq!(
            run_state(Some("in_progress"), Some("queued"), false),
            Settled
        );
        assert_eq!(run_state(Some("pending"), Some("started"), true), Running);
        assert_eq!(run_state(Some("pending"), Some("started"), false), Settled);
        assert_eq!(run_state(None, Some("started"), true), Running);
        assert_eq!(run_state(None, Some("started"), false), Settled);
    }

    fn call(status: Option<&str>, payload: Option<&str>) -> Message {
        let mut m = Message::default();
        m.metadata.status = status.map(str::to_string);
        m.metadata.subagent = payload.map(|p| SubagentTask {
            status: p.to_string(),
            ..SubagentTask::default()
        });
        m
    }

    #[test]
    fn a_call_left_pending_in_progress_or_started_in_a_still_source_runs_where_a_live_one_settles()
    {
        for (status, payload) in [
            (Some("pending"), None),
            (Some("in_progress"), None),
            (Some("IN_PROGRESS "), Some("queued")),
            (None, Some("started")),
        ] {
            let m = call(status, payload);
            assert!(left_unfinished(&m), "{status:?} {payload:?}");
            assert_eq!(
                message_run_state(&m, false),
                Settled,
                "live, its turn ended"
            );
            assert_eq!(
                still_run_state(&m, false),
                Running,
                "{status:?} {payload:?}"
            );
            assert_eq!(still_run_state(&m, true), Running);
        }
        // What settles a call settles it still or not; no status says nothing.
        for (status, payload) in [
            (Some("completed"), None),
            (Some("in_progress"), Some("completed")),
            (Some("failed"), Some("started")),
            (None, None),
            (Some("queued"), None),
        ] {
            let m = call(status, payload);
            assert!(!left_unfinished(&m), "{status:?} {payload:?}");
            assert_eq!(
                still_run_state(&m, false),
                message_run_state(&m, false),
                "{status:?} {payload:?}"
            );
        }
        // A run left in progress that got its result reported back (docs/behaviour.md §3.4).
        let mut answered = call(Some("in_progress"), Some("started"));
        answered.metadata.subagent.as_mut().unwrap().result_text = "## Summary\n\nok".into();
        assert!(left_unfinished(&answered));
        assert_eq!(still_run_state(&answered, false), Settled);
    }

    #[test]
    fn message_status_wins_over_payload_status() {
        assert_eq!(run_state(Some("complete"), Some("started"), true), Complete);
        assert_eq!(
            run_state(Some("in_progress"), Some("completed"), true),
            Complete
        );
    }

    fn subagent(status: &str, payload: serde_json::Value) -> Message {
        Message::from_value(&serde_json::json!({"id": "s", "type": "tool_call",
            "metadata": {"tool_call_id": "tc", "status": status,
            "normalized": {"kind": "subagent_task", "subagent_task": payload}}}))
        .expect("test message")
    }

    #[test]
    fn a_background_subagent_runs_after_its_launch_returned_and_its_turn_ended() {
        // docs/behaviour.md §8: `background · running` until something settles it.
        let launched = serde_json::json!({"status": "async_launched", "is_async": true});
        for status in ["complete", "in_progress", ""] {
            let m = subagent(status, launched.clone());
            assert_eq!(message_run_state(&m, false), Running, "{status}");
            assert_eq!(message_run_state(&m, true), Running, "{status}");
        }
        let flagged = subagent("complete", serde_json::json!({"is_async": true}));
        assert_eq!(message_run_state(&flagged, false), Running);
    }

    #[test]
    fn a_terminal_payload_status_or_a_failed_launch_settles_a_background_subagent() {
        let done = subagent(
            "complete",
            serde_json::json!({"status": "completed", "is_async": true}),
        );
        assert_eq!(message_run_state(&done, false), Complete);
        let failed = subagent(
            "complete",
            serde_json::json!({"status": "failed", "is_async": true}),
        );
        assert_eq!(message_run_state(&failed, false), Failed);
        let launch_failed = subagent("error", serde_json::json!({"status": "async_launched"}));
        assert_eq!(message_run_state(&launch_failed, true), Failed);
        let cancelled = subagent("cancelled", serde_json::json!({"is_async": true}));
        assert_eq!(message_run_state(&cancelled, true), Cancelled);
    }

    fn message(v: serde_json::Value) -> Message {
        Message::from_value(&v).expect("test message")
    }

    fn turn_subagent(turn: Option<&str>, status: &str, payload_status: &str) -> Message {
        message(
            serde_json::json!({"id": "a", "type": "tool_call", "turn_id": turn,
            "metadata": {"tool_call_id": "tc-a", "status": status, "normalized": {
                "kind": "subagent_task", "subagent_task": {"status": payload_status}}}}),
        )
    }

    #[test]
    fn only_a_message_of_the_active_turn_is_in_it() {
        let m = turn_subagent(Some("t1"), "pending", "");
        assert!(in_active_turn(&m, Some("t1")));
        assert!(!in_active_turn(&m, Some("t2")));
        assert!(!in_active_turn(&m, None));
        assert!(!in_active_turn(
            &turn_subagent(None, "pending", ""),
            Some("t1")
        ));
    }

    #[test]
    fn a_running_subagent_follows_the_running_rule_of_its_card() {
        // (turn, message status, payload status, running while turn t1 is active)
        let cases = [
            (Some("t1"), "in_progress", "started", true),
            (Some("t0"), "running", "", true),
            // Its turn is over, or it has none: settled.
            (Some("t0"), "in_progress", "", false),
            (None, "in_progress", "", false),
            // A background launch runs until settled, whatever its turn (docs/behaviour.md §8).
            (Some("t0"), "complete", "async_launched", true),
            // The payload status decides when the message status does not.
            (Some("t1"), "pending", "completed", false),
            (Some("t1"), "error", "started", false),
        ];
        for (turn, status, payload, running) in cases {
            let m = turn_subagent(turn, status, payload);
            assert_eq!(
                is_running_subagent(&m, Some("t1")),
                running,
                "{turn:?} {status} {payload}"
            );
        }
        // A tool call without a subagent payload is not counted.
        let tool = message(
            serde_json::json!({"id": "b", "type": "tool_read", "turn_id": "t1",
            "metadata": {"tool_call_id": "tc-b", "status": "running"}}),
        );
        assert!(!is_running_subagent(&tool, Some("t1")));
    }

    #[test]
    fn status_words_are_case_insensitive() {
        assert_eq!(run_state(Some("Completed"), None, false), Complete);
        assert_eq!(run_state(Some(" FAILED "), None, false), Failed);
    }
}
