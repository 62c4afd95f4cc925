//! qwen-code's records of what happens to a session besides conversation
//! (SPEC.md §4, reference/agents-more.md part A): on each resume the CLI
//! writes a user record (`provenance: "real_user"`) whose text is
//! `<system-reminder>N background agents were restored…`. The user did not
//! type it: it is a `Resumed` row with the time, not a prompt.

use super::super::agent_log::Fold;
use super::super::build::Stamp;

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
