//! The honest lifecycle marker of a running subagent (docs/behaviour.md §8): a
//! background run says `background · running` until something settles it, and
//! a run with no new child or update for five minutes says `stalled`, muted,
//! with its idle time in `title`. In a still source (a file nobody writes any
//! more) a run that never got a result reads `interrupted · no result
//! recorded`, without a spinner.

use super::format::format_duration;
use crate::model::status::RunState;
use crate::state::activity::{is_stalled, Millis};

/// Whether a run in `status` wearing `mark` may still be at work: running,
/// and not interrupted by the end of a file nobody writes any more (docs/behaviour.md
/// §8). The card's `now:` line and the roster's `running` filter ask this.
pub fn at_work(status: RunState, mark: Option<&LifecycleMark>) -> bool {
    status.is_running() && !mark.is_some_and(LifecycleMark::is_interrupted)
}

/// What a run that never reported back reads in a still file (docs/behaviour.md §8).
pub const INTERRUPTED_TEXT: &str = "interrupted · no result recorded";

/// What a running card shows instead of a bare spinner.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LifecycleMark {
    /// `background · running`, `stalled`, `background · stalled` or
    /// `interrupted · no result recorded`.
    pub text: String,
    /// `background`, `stalled` or `interrupted`, for `data-state` and CSS.
    pub state: &'static str,
    /// The marker's `title`: what it means, and the idle time when stalled.
    pub title: String,
}

impl LifecycleMark {
    /// True when the run may still be at work: a spinner goes with it (not
    /// when stalled or interrupted).
    pub fn spins(&self) -> bool {
        !matches!(self.state, "stalled" | "interrupted")
    }

    /// True when a still file ends before the run reported back (docs/behaviour.md
    /// §8): it is no longer at work.
    pub fn is_interrupted(&self) -> bool {
        self.state == "interrupted"
    }
}

/// The marker of a card in `status`, `background` or not, idle for `idle_ms`
/// (when known), in a `still` source or not: none for a settled card or a
/// foreground run that is active.
pub fn lifecycle_mark(
    status: RunState,
    background: bool,
    idle_ms: Option<Millis>,
    still: bool,
) -> Option<LifecycleMark> {
    if !status.is_running() {
        return None;
    }
    if still {
        return Some(LifecycleMark {
            text: INTERRUPTED_TEXT.into(),
            state: "interrupted",
            title: interrupted_title(idle_ms),
        });
    }
    let prefix = if background { "background · " } else { "" };
    match idle_ms.filter(|idle| is_stalled(*idle)) {
        Some(idle) => Some(LifecycleMark {
            text: format!("{prefix}stalled"),
            state: "stalled",
            title: stalled_title(idle),
        }),
        None if background => Some(LifecycleMark {
            text: "background · running".into(),
            state: "background",
            title: "runs in the background until it reports back".into(),
        }),
        None => None,
    }
}

/// The `title` of an `interrupted` marker: the file ends before the run
/// reported back, and how long before its end the run was last heard of.
fn interrupted_title(idle_ms: Option<Millis>) -> String {
    let base = "the file ends before this subagent reported back";
    match idle_ms.filter(|idle| *idle > 0) {
        Some(idle) => format!(
            "{base}; its last sign of life is {} before the file's newest record",
            format_duration(idle as u64)
        ),
        None => base.to_string(),
    }
}

/// The `title` of a `stalled` marker: the idle time (docs/behaviour.md §8).
pub fn stalled_title(idle_ms: Millis) -> String {
    format!(
        "no new child or update for {}",
        format_duration(idle_ms.max(0) as u64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::activity::STALL_AFTER_MS;

    #[test]
    fn a_background_run_says_background_running_until_it_settles() {
        let mark = lifecycle_mark(RunState::Running, true, Some(1_000), false).unwrap();
        assert_eq!(mark.text, "background · running");
        assert_eq!(mark.state, "background");
        assert_eq!(
            lifecycle_mark(RunState::Complete, true, Some(1_000), false),
            None
        );
    }

    #[test]
    fn a_run_idle_for_5_minutes_says_stalled_with_the_idle_time_in_its_title() {
        let mark = lifecycle_mark(
            RunState::Running,
            false,
            Some(STALL_AFTER_MS + 12_000),
            false,
        )
        .unwrap();
        assert_eq!(mark.text, "stalled");
        assert_eq!(mark.state, "stalled");
        assert_eq!(mark.title, "no new child or update for 5m 12s");
        assert_eq!(
            stalled_title(STALL_AFTER_MS),
            "no new child or update for 5m 00s"
        );
        let background =
            lifecycle_mark(RunState::Running, true, Some(STALL_AFTER_MS), false).unwrap();
        assert_eq!(background.text, "background · stalled");
    }

    #[test]
    fn an_active_foreground_run_keeps_its_plain_spinner() {
        assert_eq!(
            lifecycle_mark(RunState::Running, false, Some(STALL_AFTER_MS - 1), false),
            None
        );
        assert_eq!(lifecycle_mark(RunState::Running, false, None, false), None);
        assert_eq!(
            lifecycle_mark(RunState::Failed, false, Some(STALL_AFTER_MS), false),
            None
        );
    }

    #[test]
    fn a_run_in_a_still_file_reads_interrupted_no_result_recorded_without_a_spinner() {
        for background in [true, false] {
            let mark = lifecycle_mark(RunState::Running, background, Some(65_000), true).unwrap();
            assert_eq!(mark.text, "interrupted · no result recorded");
            assert_eq!(mark.state, "interrupted");
            assert!(!mark.spins());
            assert_eq!(
                mark.title,
                "the file ends before this subagent reported back; its last sign of life is 1m 05s before the file's newest record"
            );
        }
        assert_eq!(lifecycle_mark(RunState::Complete, true, None, true), None);
        let live = lifecycle_mark(RunState::Running, true, Some(1_000), false).unwrap();
        assert!(live.spins());
    }
}
