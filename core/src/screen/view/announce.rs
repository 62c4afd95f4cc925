//! The polite live region's words for subagents that settled (docs/behaviour.md §3.4),
//! rate-limited so a wave settling over many frames is not read out card by
//! card: the first settle after a quiet spell is said at once, and whatever
//! settles during the following window is said as one line when it ends.

use super::card::CardView;
use crate::model::status::RunState;

/// How long after an announcement later settles are gathered into one.
pub const ANNOUNCE_WINDOW_MS: u32 = 2000;

/// Settled cards not yet announced: counts by outcome, and the words of the
/// only one while there is a single one (constant size, however many settle).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Tally {
    finished: usize,
    failed: usize,
    cancelled: usize,
    single: Option<String>,
}

impl Tally {
    fn add(&mut self, card: &CardView) {
        let alone = self.total() == 0;
        match card.status {
            RunState::Failed => self.failed += 1,
            RunState::Cancelled => self.cancelled += 1,
            _ => self.finished += 1,
        }
        self.single = alone.then(|| card.settled_announcement());
    }

    fn total(&self) -> usize {
        self.finished + self.failed + self.cancelled
    }

    /// `code-reviewer subagent finished: APPROVE` for one card,
    /// `3 subagents settled: 2 finished, 1 failed` for more.
    fn text(&self) -> Option<String> {
        match self.total() {
            0 => None,
            1 => self.single.clone(),
            n => {
                let parts: Vec<String> = [
                    (self.finished, "finished"),
                    (self.failed, "failed"),
                    (self.cancelled, "cancelled"),
                ]
                .into_iter()
                .filter(|(count, _)| *count > 0)
                .map(|(count, word)| format!("{count} {word}"))
                .collect();
                Some(format!("{n} subagents settled: {}", parts.join(", ")))
            }
        }
    }
}

/// Decides when and what the live region says about settled subagents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SettledAnnouncer {
    /// An announcement was made less than a window ago.
    window_open: bool,
    pending: Tally,
}

/// What to do after cards settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Announcement {
    /// Say this now.
    pub text: Option<String>,
    /// Call [`SettledAnnouncer::window_ended`] in [`ANNOUNCE_WINDOW_MS`].
    pub schedule: bool,
}

impl SettledAnnouncer {
    /// Cards that just settled, all of one update.
    pub fn settled(&mut self, cards: &[CardView]) -> Announcement {
        for card in cards {
            self.pending.add(card);
        }
        if self.window_open || self.pending.total() == 0 {
            return Announcement {
                text: None,
                schedule: false,
            };
        }
        self.window_open = true;
        Announcement {
            text: std::mem::take(&mut self.pending).text(),
            schedule: true,
        }
    }

    /// The window ended: what settled during it, as one line (then another
    /// window starts, and this is due again), or nothing (the window closes).
    pub fn window_ended(&mut self) -> Announcement {
        let text = std::mem::take(&mut self.pending).text();
        self.window_open = text.is_some();
        Announcement {
            schedule: text.is_some(),
            text,
        }
    }

    /// Another transcript opened: nothing is pending.
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::view::card::tests::card;

    fn said(text: &str, schedule: bool) -> Announcement {
        Announcement {
            text: Some(text.into()),
            schedule,
        }
    }

    const NOTHING: Announcement = Announcement {
        text: None,
        schedule: false,
    };

    #[test]
    fn the_first_settle_after_a_quiet_spell_is_announced_at_once_by_name() {
        let mut a = SettledAnnouncer::default();
        assert_eq!(
            a.settled(&[card(RunState::Complete, Some("APPROVE"))]),
            said("code-reviewer subagent finished: APPROVE", true)
        );
        assert_eq!(a.window_ended(), NOTHING, "nothing more settled");
        assert_eq!(
            a.settled(&[card(RunState::Failed, None)]),
            said("code-reviewer subagent failed", true),
            "a new quiet spell: said at once again"
        );
    }

    #[test]
    fn a_wave_settling_in_one_update_is_one_announcement_with_counts() {
        let mut a = SettledAnnouncer::default();
        let wave = [
            card(RunState::Complete, Some("APPROVE")),
            card(RunState::Failed, None),
            card(RunState::Complete, None),
        ];
        assert_eq!(
            a.settled(&wave),
            said("3 subagents settled: 2 finished, 1 failed", true)
        );
    }

    #[test]
    fn settles_during_the_window_are_gathered_into_one_line_when_it_ends() {
        let mut a = SettledAnnouncer::default();
        assert!(a.settled(&[card(RunState::Complete, None)]).text.is_some());
        for _ in 0..40 {
            assert_eq!(a.settled(&[card(RunState::Complete, None)]), NOTHING);
        }
        assert_eq!(a.settled(&[card(RunState::Cancelled, None)]), NOTHING);
        assert_eq!(
            a.window_ended(),
            said("41 subagents settled: 40 finished, 1 cancelled", true),
            "said once, and another window starts"
        );
        assert_eq!(a.settled(&[card(RunState::Failed, Some("boom"))]), NOTHING);
        assert_eq!(
            a.window_ended(),
            said("code-reviewer subagent failed: boom", true)
        );
        assert_eq!(a.window_ended(), NOTHING);
    }

    #[test]
    fn reset_forgets_what_is_pending() {
        let mut a = SettledAnnouncer::default();
        a.settled(&[card(RunState::Complete, None)]);
        a.settled(&[card(RunState::Complete, None)]);
        a.reset();
        assert_eq!(a.window_ended(), NOTHING);
        assert!(a.settled(&[card(RunState::Complete, None)]).schedule);
    }
}
