//! qwen-code's records of what happens to a session besides conversation
//! (SPEC.md §4, reference/agents-more.md part A): on each resume the CLI
//! writes a user record (`provenance: "real_user"`) whose text is
//! `<system-reminder>N background agents were restored…`. The user did not
//! type it: it is a `Resumed` row with the time, not a prompt. A failed
//! model request is recorded only as telemetry (`system:ui_telemetry`,
//! `uiEvent."event.name": "qwen-code.api_error"` with `status_code` and, for
//! a subagent's, `subagent_id`): one per retry burst, counted by the retry
//! marker of the main agent's turn or of the subagent's card.

use super::super::agent_log::{status_reason, Fold, Owner};
use super::super::build::Stamp;
use crate::model::message::{str_at, u64_at};
use serde_json::Value;

/// A user text that says the session was resumed: read as a `Resumed` row
/// (true); false for other text.
pub(super) fn resume_text(fold: &mut Fold, text: &str, stamp: &Stamp) -> bool {
    let t = text.trim_start();
    let resumed = t.starts_with("<system-reminder>")
        && t.contains("background agent")
        && t.contains("restored");
    if resumed {
        fold.resumed(stamp);
    }
    resumed
}

/// A telemetry event that is a failed model request: read as a retry
/// (true); false for other events.
pub(super) fn api_error(fold: &mut Fold, event: &Value, stamp: &Stamp) -> bool {
    if str_at(event, "event.name") != "qwen-code.api_error" {
        return false;
    }
    let reason = u64_at(event, "status_code")
        .and_then(status_reason)
        .unwrap_or_else(|| str_at(event, "error_message"));
    let owner = match str_at(event, "subagent_id") {
        agent if agent.is_empty() => Owner::Main,
        agent => Owner::Sidechain(agent),
    };
    fold.api_retry(&owner, &reason, stamp);
    true
}
