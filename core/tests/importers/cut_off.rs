//! A foreground subagent stopped by an interrupt while it ran (docs/behaviour.md §3.4,
//! captures/scenarios/interrupted-foreground.mjs): its CLI records the stop
//! in the launch's result (Claude Code: `toolDenialKind: "user-rejected"`
//! with its interrupt sentence; Kimi Code: `stop_reason: stopped`); the card
//! reads `cancelled`, with no summary, never `failed` with that text. (The
//! ACP adapter's is in `acp::cancel`.)

use crate::common::*;
use taskview_core::model::status::RunState;
use taskview_core::read::import::import_any_with_files;
use taskview_testkit::captures::capture;

#[test]
fn a_foreground_run_an_interrupt_stopped_reads_cancelled_without_the_stop_text() {
    for (name, stop_text) in [
        (
            "claude-code-2.1.337/interrupted-foreground",
            "User rejected tool use",
        ),
        (
            "kimi-code-2.1.0/interrupted-foreground",
            "stop_reason: stopped",
        ),
    ] {
        let c = capture(name);
        assert!(
            c.session.contains(stop_text),
            "{name}: the CLI recorded the stop"
        );
        let events = import_any_with_files(&c.session, &c.file_refs())
            .unwrap()
            .events;
        let msgs = messages(&events);
        let all = cards(&msgs);
        assert_eq!(all.len(), 1, "{name}");
        let sa = all[0].metadata.subagent.as_ref().unwrap();
        assert_eq!(sa.status, "cancelled", "{name}");
        assert!(sa.result_text.is_empty(), "{name}: {:?}", sa.result_text);
        let face = LaidOut::new(events).card(&all[0].id);
        assert_eq!(
            (face.status, face.status_word, face.result_summary),
            (RunState::Cancelled, Some("cancelled"), None),
            "{name}"
        );
    }
}
