//! The recordings board: its workflow, one task per session, and each
//! task's state kept in step with its agent (docs/behaviour.md §7, "Watching agents
//! at work").

use crate::backend::{session_state, task_state, Backend, NewSession};
use crate::clock;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};
use taskview_core::model::card_facts::SessionFacts;
use taskview_core::read::protocol::{StepDto, TaskDto, WorkflowDto};

/// The recordings board.
const WORKFLOW_ID: &str = "wf-recordings";
const STEP_ID: &str = "step-recordings";

/// The folders, for people: `a, b`.
fn shown(roots: &[PathBuf]) -> String {
    let names: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    names.join(", ")
}

/// Creates the board of the recordings in `roots`, with no task yet.
pub(super) fn add_board(backend: &Backend, roots: &[PathBuf]) {
    let now = clock::now();
    backend.add_workflow(
        WorkflowDto {
            id: WORKFLOW_ID.into(),
            workspace_id: "ws-recordings".into(),
            name: format!("Recordings in {}", shown(roots)),
            sort_order: 0,
            created_at: now.clone(),
            updated_at: now,
            notice: None,
            // A board taskview makes: columns by state (docs/behaviour.md §5).
            columns_by: Some("state".into()),
        },
        vec![StepDto {
            id: STEP_ID.into(),
            workflow_id: WORKFLOW_ID.into(),
            name: "Recorded".into(),
            is_start_step: true,
            ..StepDto::default()
        }],
    );
}

/// Lists a session's task (at board `position`), its session not loaded:
/// in progress when its agent is `working`.
pub(super) fn add_task(
    backend: &Backend,
    (task_id, session_id): (&str, &str),
    title: String,
    path: &Path,
    working: bool,
    position: i64,
) {
    let now = clock::now();
    let task = TaskDto {
        id: task_id.into(),
        workspace_id: "ws-recordings".into(),
        workflow_id: WORKFLOW_ID.into(),
        workflow_step_id: STEP_ID.into(),
        title,
        description: path.display().to_string(),
        state: if working {
            task_state::IN_PROGRESS
        } else {
            task_state::COMPLETED
        }
        .into(),
        priority: "medium".into(),
        position,
        wip_admitted: true,
        created_at: now.clone(),
        updated_at: now,
        ..TaskDto::default()
    };
    let session = NewSession {
        id: session_id.into(),
        state: session_state::WAITING_FOR_INPUT.into(),
        derive_activity: true,
    };
    backend.add_task(task, Some(session));
    backend.unload_session(session_id);
}

/// Lists a session on the task another file of it had on the board (its
/// telemetry's, `sessions::join`), updated in place: one `task.updated`,
/// never a deletion and a creation a board would show as a flicker.
pub(super) fn relist_task(
    backend: &Backend,
    task_id: &str,
    title: String,
    description: String,
    working: bool,
) {
    backend.update_task(task_id, |task| {
        task.title = title;
        task.description = description;
        task.state = if working {
            task_state::IN_PROGRESS
        } else {
            task_state::COMPLETED
        }
        .into();
    });
}

/// Retitles a task when its session named itself (a rename, a summary) or
/// got its first prompt.
pub(super) fn retitle(backend: &Backend, task_id: &str, title: String) {
    if backend.task(task_id).is_some_and(|t| t.title != title) {
        backend.update_task(task_id, |t| t.title = title);
    }
}

/// Keeps a session's active turn in step with its agent: while `working`, the
/// turn of its newest message (`turn`, else the active one, else a fresh
/// `live-…`) is active; otherwise no turn is. The backend derives the task's
/// state and chip from that and the running subagents.
pub(super) fn follow_work(
    backend: &Backend,
    session_id: &str,
    working: bool,
    turn: Option<String>,
) {
    let active = backend.active_turn(session_id);
    if !working {
        if active.is_some() {
            backend.complete_turn(session_id, &clock::now(), None);
        }
        return;
    }
    let wanted = turn
        .or_else(|| active.clone())
        .unwrap_or_else(|| format!("live-{}", clock::now()));
    if active.as_deref() != Some(wanted.as_str()) {
        backend.start_turn(session_id, &wanted, &clock::now());
    }
}

/// A session whose files nobody has written for this long is not worked on,
/// whatever its last record says: its agent stopped without ending the turn
/// (killed, crashed). A model reply or a long command writes sooner than this.
const ABANDONED_AFTER: Duration = Duration::from_secs(10 * 60);

/// Whether the agent of a session is working: what its dialect says
/// (`said`), unless its files (last written at `newest`) have not been
/// written for `ABANDONED_AFTER` by `now`.
pub(super) fn still_working(
    said: Option<bool>,
    newest: Option<SystemTime>,
    now: SystemTime,
) -> Option<bool> {
    said.map(|working| working && !is_still(newest, now))
}

/// Whether nobody writes a session's files any more: last written at
/// `newest`, not for `ABANDONED_AFTER` by `now` (docs/behaviour.md §8, a recording
/// idle past the server's threshold).
pub(super) fn is_still(newest: Option<SystemTime>, now: SystemTime) -> bool {
    newest
        .and_then(|t| now.duration_since(t).ok())
        .is_some_and(|quiet| quiet >= ABANDONED_AFTER)
}

/// Tells the app whether task `task_id`'s session is `still` (the task's
/// `primary_session_still`, announced by `task.updated`), when that changed.
pub(super) fn tell_still(backend: &Backend, task_id: &str, still: bool) {
    if backend
        .task(task_id)
        .is_some_and(|t| t.primary_session_still != Some(still))
    {
        backend.update_task(task_id, |t| t.primary_session_still = Some(still));
    }
}

/// Tells the app task `task_id`'s card facts (`session_facts`, announced by
/// `task.updated`).
pub(super) fn tell_card(backend: &Backend, task_id: &str, facts: SessionFacts) {
    backend.update_task(task_id, |t| t.session_facts = Some(facts));
}

/// How long a growing file whose dialect does not say when its agent works
/// must be quiet before its turn completes.
pub(super) fn quiet_after(tick: Duration) -> Duration {
    (tick * 6).max(Duration::from_millis(500))
}

/// `<slug of the file name>`: lower-case letters and digits, `-` between.
pub(super) fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "file".into()
    } else {
        out.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_nobody_writes_for_ten_minutes_is_not_worked_on() {
        let now = SystemTime::now();
        let ago = |s: u64| Some(now - Duration::from_secs(s));
        assert_eq!(still_working(Some(true), ago(5), now), Some(true));
        assert_eq!(still_working(Some(true), ago(599), now), Some(true));
        assert_eq!(still_working(Some(true), ago(600), now), Some(false));
        assert_eq!(still_working(Some(false), ago(5), now), Some(false));
        assert_eq!(still_working(None, ago(900), now), None);
    }

    #[test]
    fn files_unwritten_for_the_idle_threshold_are_still() {
        let now = SystemTime::now();
        let ago = |s: u64| Some(now - Duration::from_secs(s));
        assert!(!is_still(ago(599), now));
        assert!(is_still(ago(600), now));
        assert!(!is_still(None, now), "never written: not known to be still");
    }

    #[test]
    fn slugs_are_readable_and_safe() {
        assert_eq!(slug("Session Review-Wave.json"), "session-review-wave-json");
        assert_eq!(slug("__.json"), "json");
        assert_eq!(slug("***"), "file");
    }
}
