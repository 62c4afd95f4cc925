//! The board's cards of the recordings (docs/behaviour.md §5): each
//! session's card facts, computed by core from its records
//! (`Follower::card_facts`, or `card_facts::whole` for a session read
//! whole), told to the app by `task.updated` when they change; and a pass
//! after the index that reads once, whole, the sessions nobody opened, so
//! every card says what it cost without its session staying in memory.

use super::{newest, Reading, Sessions, Whole};
use crate::backend::Backend;
use crate::sources::recordings::tasks;
use std::time::SystemTime;
use taskview_core::model::card_facts::SessionFacts;
use taskview_core::model::time::format_millis;

/// `modified` as RFC 3339.
fn rfc3339(modified: SystemTime) -> Option<String> {
    let ms = modified
        .duration_since(SystemTime::UNIX_EPOCH)
        .ok()?
        .as_millis();
    Some(format_millis(ms as i64))
}

impl Sessions {
    /// The card facts of session `i` as its records give them (interrupted
    /// when the user stopped its newest turn), with what the server knows
    /// besides: it was interrupted (docs/behaviour.md §8: its records say its
    /// agent works, or a subagent of it never settled, and nobody has
    /// written them for the idle threshold), and its files' newest write
    /// when no record is dated.
    fn card_of(&self, i: usize, facts: SessionFacts) -> SessionFacts {
        let file = &self.files[i];
        let mut facts = facts;
        let unsettled = facts.runs.iter().any(|r| r.end.is_none());
        let still = file.still == Some(true);
        facts.interrupted |=
            (file.said == Some(true) && file.working == Some(false)) || (still && unsettled);
        if facts.last_activity_at.is_none() {
            facts.last_activity_at = file.seen.as_ref().and_then(newest).and_then(rfc3339);
        }
        facts
    }

    /// Tells the board session `i`'s card facts, when they changed (a
    /// session not imported keeps what its last read gave, judged again).
    pub(in crate::sources::recordings) fn tell_card(&mut self, backend: &Backend, i: usize) {
        let file = &self.files[i];
        let facts = match (&file.fold, &file.card_told) {
            (Some(fold), _) => fold.card_facts(file.working == Some(true)),
            (None, Some(told)) => told.clone(),
            (None, None) => return,
        };
        let facts = self.card_of(i, facts);
        self.tell(backend, i, facts);
    }

    fn tell(&mut self, backend: &Backend, i: usize, facts: SessionFacts) {
        let file = &mut self.files[i];
        if !file.listed || file.card_told.as_ref() == Some(&facts) {
            return;
        }
        tasks::tell_card(backend, &file.task_id, facts.clone());
        file.card_told = Some(facts);
    }

    /// The next listed session whose card was never told and that is not
    /// imported: its id and what reading it whole takes.
    pub(in crate::sources::recordings) fn next_card(&self) -> Option<(String, Reading)> {
        let i = self
            .files
            .iter()
            .position(|f| f.listed && !f.fed && f.fold.is_none() && f.card_told.is_none())?;
        Some((self.files[i].session_id.clone(), self.reading(i)))
    }

    /// Tells the card of session `session_id` from its whole read, dropped
    /// then (it is not imported); a session that cannot be read gets an
    /// empty card, so it is not read again until it changes.
    pub(in crate::sources::recordings) fn take_card(
        &mut self,
        backend: &Backend,
        session_id: &str,
        whole: Result<Whole, String>,
    ) {
        let Some(i) = self.files.iter().position(|f| f.session_id == session_id) else {
            return;
        };
        let facts = match whole {
            Ok(whole) if self.files[i].fold.is_none() => {
                let working = self.files[i].working == Some(true);
                whole.fold.card_facts(working)
            }
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(
                    "cannot read recording {}: {e}",
                    self.files[i].path.display()
                );
                SessionFacts::default()
            }
        };
        let facts = self.card_of(i, facts);
        self.tell(backend, i, facts);
    }
}
