//! The honest lifecycle marker of a running subagent (SPEC.md §8): a
//! background run says `background · running` until something settles it, and
//! a run with no new child or update for five minutes says `stalled`, muted,
//! with its idle time in `title`.

use crate::model::status::RunState;
use crate::state::activity::{is_stalled, stalled_title, Millis};

/// What a running card shows instead of a bare spinner.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LifecycleMark {
    /// `background · running`, `stalled` or `background · stalled`.
    pub text: String,
    /// `background` or `stalled`, for `data-state` and CSS.
    pub state: &'static str,
    /// The marker's `title`: what it means, and the idle time when stalled.
    pub title: String,
}

impl LifecycleMark {
    /// True for the muted `stalled` marker.
    pub fn is_stalled(&self) -> bool {
        self.state == "stalled"
    }
}

/// The marker of a card in `status`, `background` or not, idle for `idle_ms`
/// (when known): none for a settled card or a foreground run that is active.
pub fn lifecycle_mark(
    status: RunState,
    background: bool,
    idle_ms: Option<Millis>,
) -> Option<LifecycleMark> {
    if !status.is_running() {
        return None;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::activity::STALL_AFTER_MS;

    #[test]
    fn a_background_run_says_background_running_until_it_settles() {
        let mark = lifecycle_mark(RunState::Running, true, Some(1_000)).unwrap();
        assert_eq!(mark.text, "background · running");
        assert_eq!(mark.state, "background");
        assert_eq!(lifecycle_mark(RunState::Complete, true, Some(1_000)), None);
    }

    #[test]
    fn a_run_idle_for_5_minutes_says_stalled_with_the_idle_time_in_its_title() {
        let mark = lifecycle_mark(RunState::Running, false, Some(STALL_AFTER_MS + 12_000)).unwrap();
        assert_eq!(mark.text, "stalled");
        assert!(mark.is_stalled());
        assert_eq!(mark.title, "no new child or update for 5m 12s");
        let background = lifecycle_mark(RunState::Running, true, Some(STALL_AFTER_MS)).unwrap();
        assert_eq!(background.text, "background · stalled");
    }

    #[test]
    fn an_active_foreground_run_keeps_its_plain_spinner() {
        assert_eq!(
            lifecycle_mark(RunState::Running, false, Some(STALL_AFTER_MS - 1)),
            None
        );
        assert_eq!(lifecycle_mark(RunState::Running, false, None), None);
        assert_eq!(
            lifecycle_mark(RunState::Failed, false, Some(STALL_AFTER_MS)),
            None
        );
    }
}
