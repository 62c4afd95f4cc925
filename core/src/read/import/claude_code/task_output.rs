//! Claude Code 2.0.x background agents (docs/formats.md §8.5): a
//! `Task` launched with `run_in_background` answers `async_launched`, and the
//! agent's result is fetched by polling `TaskOutput` (`{task_id, block}`),
//! whose result holds the run's output with its answer after
//! `--- RESULT ---` (`toolUseResult.task.output`, and the result text). A
//! poll with that marker settles the agent's card (status, result); a poll
//! without it (still running, timed out) settles nothing.

use super::super::agent_log::{completion_status, Completion, Fold};
use super::super::build::Stamp;
use crate::model::message::str_at;
use serde_json::Value;

/// The tool that polls a background task.
pub(super) const TASK_OUTPUT_TOOL: &str = "TaskOutput";

/// What precedes a finished task's answer in its output.
const RESULT_MARKER: &str = "--- RESULT ---";

/// Settles the card of the agent a `TaskOutput` call with `input` polled,
/// when its `output` (or its structured result) holds the answer.
pub(super) fn settle(
    fold: &mut Fold,
    input: &Value,
    output: &str,
    structured: Option<&Value>,
    stamp: &Stamp,
) {
    let task = structured
        .and_then(|s| s.get("task"))
        .unwrap_or(&Value::Null);
    let task_id = [str_at(input, "task_id"), str_at(task, "task_id")]
        .into_iter()
        .find(|id| !id.is_empty())
        .unwrap_or_default();
    let texts = [
        str_at(task, "result"),
        str_at(task, "output"),
        output.to_string(),
    ];
    let Some(result) = texts.iter().find_map(|t| answer_of(t)) else {
        return;
    };
    let recorded = str_at(task, "status");
    let status = match completion_status(&recorded) {
        status @ ("failed" | "cancelled") => status,
        _ => "completed",
    };
    let completion = Completion {
        task_id,
        status: status.to_string(),
        result,
        ..Completion::default()
    };
    if fold.card_of(&completion).is_some() {
        fold.background_finished(completion, stamp);
    }
}

/// The answer in a task's output: what follows the last `--- RESULT ---`,
/// without the `</output>` that may close it.
fn answer_of(text: &str) -> Option<String> {
    let (_, after) = text.rsplit_once(RESULT_MARKER)?;
    let answer = after.trim();
    let answer = answer.strip_suffix("</output>").unwrap_or(answer).trim();
    (!answer.is_empty()).then(|| answer.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_what_follows_the_result_marker() {
        let output = "<status>completed</status>\n<output>\n[Tool: Read]\n--- RESULT ---\n## Summary\nDone.\n</output>";
        assert_eq!(answer_of(output).as_deref(), Some("## Summary\nDone."));
        assert_eq!(answer_of("<status>running</status>"), None);
        assert_eq!(answer_of("--- RESULT ---\n  "), None);
    }
}
