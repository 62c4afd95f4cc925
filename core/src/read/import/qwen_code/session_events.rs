//! qwen-code's records of what happens to a session besides conversation
//! (docs/behaviour.md §4, docs/formats.md §9):
//! - on each resume the CLI puts `<system-reminder>N background agent(s)
//!   was/were restored…</system-reminder>` before the user's new prompt, in
//!   the prompt's own record (`provenance: "real_user"`). The user did not
//!   type it: it is a `Resumed` row with the time, and the prompt after it
//!   is the prompt;
//! - `/compress` writes a `system:chat_compression` record
//!   (`systemPayload.info.triggerReason`, and the `compressedHistory` the
//!   agent continues from): one compaction row, expandable to that summary;
//! - a failed model request is recorded only as telemetry
//!   (`system:ui_telemetry`, `uiEvent."event.name": "qwen-code.api_error"`
//!   with `status_code` and, for a subagent's, `subagent_id`): one per retry
//!   burst, counted by the retry marker of the main agent's turn or of the
//!   subagent's card.

use super::super::agent_log::{status_reason, Fold, Owner};
use super::super::build::Stamp;
use crate::model::message::{str_at, u64_at};
use serde_json::Value;

/// The end of the reminder that opens a resumed run's first prompt.
const REMINDER_END: &str = "</system-reminder>";

/// A user text that says the session was resumed: a `Resumed` row, then the
/// prompt after the reminder, if any (true); false for other text.
pub(super) fn resume_text(fold: &mut Fold, text: &str, owner: &Owner, stamp: &Stamp) -> bool {
    let t = text.trim_start();
    let Some(reminder) = t
        .strip_prefix("<system-reminder>")
        .and_then(|rest| rest.split_once(REMINDER_END))
    else {
        return false;
    };
    let (notice, prompt) = reminder;
    if !(notice.contains("background agent") && notice.contains("restored")) {
        return false;
    }
    fold.resumed(stamp);
    if !prompt.trim().is_empty() {
        fold.user_text(prompt.trim(), owner, stamp);
    }
    true
}

/// A `chat_compression` record: one compaction row, its detail the history
/// the agent continues from.
pub(super) fn compression(fold: &mut Fold, payload: &Value, stamp: &Stamp) {
    let trigger = payload
        .get("info")
        .map(|info| str_at(info, "triggerReason"))
        .unwrap_or_default();
    fold.compaction(&trigger, stamp);
    let summary: Vec<&str> = payload
        .get("compressedHistory")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|turn| str_at(turn, "role") == "user")
        .filter_map(|turn| turn.get("parts")?.as_array())
        .flatten()
        .filter_map(|part| part.get("text")?.as_str())
        .collect();
    if !summary.is_empty() {
        fold.compaction_summary(&summary.join("\n\n"), stamp);
    }
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
