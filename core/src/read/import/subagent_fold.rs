//! Folding a Claude `Agent`/`Task` subagent's frames into one `SubagentTask`
//! (shared by the ACP and Claude Code importers; docs/formats.md §1.5,
//! §2.4–2.5, docs/behaviour.md §1.1).
//!
//! Capture rules:
//! - type, description and prompt come from the tool input; `agentType` and
//!   the response's `prompt`/`description` only fill what the input left empty;
//! - an input without `subagent_type` is an implicit fork: `is_fork`, and the
//!   type stays empty (the card shows `fork`), unless the response or a
//!   sidecar recorded another type (`agentType`), which wins;
//! - `result_text` is the text blocks of the structured result's `content`
//!   joined by `\n`, in order, blank and non-text blocks skipped, with the
//!   `agentId: … <usage>…</usage>` trailer stripped; absent, empty or
//!   all-non-text content leaves it empty (no placeholder); a later empty value
//!   never blanks an earlier one;
//! - otherwise the tool result's own text (trailer stripped) is the result;
//! - either text loses its hand-back frame first (`wrappers`): the report
//!   inside it, unindented, is the text;
//! - a launch placeholder (a background launch's text, `Fork started…`) is not
//!   a result: it is held back and replaced by the completion's text;
//! - `model` from `resolvedModel`; duration, tokens and tool count from
//!   `totalDurationMs`, `totalTokens`, `totalToolUseCount` (present-with-0 kept),
//!   falling back to the trailer's `duration_ms`, `total_tokens`, `tool_uses`.

use super::wrappers::unwrap_report;
use crate::model::message::{bool_at, is_launch_placeholder, str_at, u64_at, SubagentTask};
use serde_json::Value;

/// A subagent being folded from its frames.
#[derive(Clone, Debug, Default)]
pub(crate) struct SubagentFold {
    /// Identity and metrics, merged never-blank; `result_text` is kept apart.
    task: SubagentTask,
    input_seen: bool,
    typed_input: bool,
    /// `agentType` of the structured result.
    response_type: String,
    /// From the structured result's `content`.
    answer: String,
    /// From the tool result's text.
    output: String,
    /// From a background completion (task notification).
    completion: String,
    trailer: Trailer,
    /// Launched in the background and not finished yet.
    awaiting_completion: bool,
    /// The tool answered with a launch placeholder (a fork's `Fork started…`).
    placeholder_seen: bool,
    failed: bool,
    /// Its sidecar says it finished (Claude Code `finished: true`).
    finished: bool,
}

impl SubagentFold {
    /// The tool input (`rawInput` / `tool_use.input`); an empty object is "not yet known".
    pub(crate) fn apply_input(&mut self, input: &Value) {
        let Some(obj) = input.as_object().filter(|o| !o.is_empty()) else {
            return;
        };
        self.input_seen = true;
        let subagent_type = str_at(input, "subagent_type");
        self.typed_input |= !subagent_type.trim().is_empty();
        let description = match str_at(input, "description") {
            d if d.trim().is_empty() => str_at(input, "name"),
            d => d,
        };
        self.task.merge_from(&SubagentTask {
            subagent_type,
            description,
            prompt: str_at(input, "prompt"),
            is_async: obj.get("run_in_background").and_then(Value::as_bool) == Some(true),
            ..SubagentTask::default()
        });
    }

    /// A subagent known whole from a summary (a workflow, a workflow run's
    /// agent) rather than folded from its frames.
    pub(crate) fn from_task(task: SubagentTask) -> SubagentFold {
        SubagentFold {
            answer: task.result_text.clone(),
            task: SubagentTask {
                result_text: String::new(),
                ..task
            },
            input_seen: true,
            typed_input: true,
            ..SubagentFold::default()
        }
    }

    /// The structured result (ACP `_meta.claudeCode.toolResponse`, Claude Code
    /// `toolUseResult`); anything but an object is ignored.
    pub(crate) fn apply_response(&mut self, response: &Value) {
        if !response.is_object() || is_progress_tick(response) {
            return;
        }
        let status = str_at(response, "status");
        let launched = status == "async_launched" || bool_at(response, "isAsync");
        if launched && self.completion.is_empty() {
            // Whatever text the tool returned so far was the launch message.
            self.awaiting_completion = true;
            self.output.clear();
        }
        self.response_type = non_empty_or(str_at(response, "agentType"), &self.response_type);
        let mut patch = SubagentTask {
            status,
            agent_id: str_at(response, "agentId"),
            model: str_at(response, "resolvedModel"),
            duration_ms: number_at(response, "totalDurationMs"),
            total_tokens: number_at(response, "totalTokens"),
            tool_use_count: number_at(response, "totalToolUseCount"),
            is_async: launched,
            ..SubagentTask::default()
        };
        if self.task.prompt.is_empty() {
            patch.prompt = str_at(response, "prompt");
        }
        if self.task.description.is_empty() {
            patch.description = str_at(response, "description");
        }
        self.task.merge_from(&patch);
        let content = response
            .get("content")
            .map(join_text_blocks)
            .unwrap_or_default();
        let content = unwrap_report(&content);
        let (text, trailer) = split_trailer(&content);
        self.trailer.fill_from(trailer);
        if !text.trim().is_empty() && !self.is_placeholder(text) {
            self.answer = text.to_string();
        }
    }

    /// What a subagent's `.meta.json` sidecar says (Claude Code, qwen-code):
    /// its agent id (`agentId`, else the sidecar's file name), type,
    /// description, model (`inherit` is none) and status fill what the call
    /// left empty, and a final status settles a background run whose
    /// notification never came; a background run (`requestShape:
    /// background`, `isBackgrounded`), a fork and `finished` are kept.
    pub(crate) fn apply_sidecar(&mut self, agent: &str, meta: &Value) {
        self.response_type = non_empty_or(str_at(meta, "agentType"), &self.response_type);
        let fill = |have: &str, value: String| {
            if have.is_empty() {
                value
            } else {
                String::new()
            }
        };
        let status = str_at(meta, "status");
        let terminal = ["completed", "failed", "cancelled"].contains(&status.as_str());
        if self.awaiting_completion && terminal {
            // Its notification never came (the session ended first).
            self.apply_completion(&status, "", Trailer::default());
        }
        // qwen-code names the model of nested agents only in the flags the
        // session was started with.
        let model = non_empty_or(
            str_at(meta, "model"),
            &str_at(
                meta.get("persistedCliFlags").unwrap_or(&Value::Null),
                "model",
            ),
        );
        let patch = SubagentTask {
            agent_id: fill(
                self.agent_id(),
                non_empty_or(str_at(meta, "agentId"), agent),
            ),
            description: fill(&self.task.description, str_at(meta, "description")),
            model: fill(
                &self.task.model,
                if model == "inherit" {
                    String::new()
                } else {
                    model
                },
            ),
            status: fill(&self.task.status, status),
            is_async: str_at(meta, "requestShape") == "background"
                || bool_at(meta, "isBackgrounded"),
            is_fork: bool_at(meta, "isFork"),
            ..SubagentTask::default()
        };
        self.task.merge_from(&patch);
        self.finished |= bool_at(meta, "finished");
    }

    /// Its type, once known (a workflow agent's transcript names it).
    pub(crate) fn retype(&mut self, subagent_type: &str) {
        if !subagent_type.trim().is_empty() {
            self.task.subagent_type = subagent_type.to_string();
        }
    }

    /// The tool result's text (ACP `rawOutput`/`content`, Claude Code
    /// `tool_result.content`), trailer and all.
    pub(crate) fn apply_output(&mut self, text: &str) {
        let text = unwrap_report(text);
        let (text, trailer) = split_trailer(&text);
        self.trailer.fill_from(trailer);
        if is_launch_placeholder(text) && self.trailer.agent_id.is_empty() {
            // A launch acknowledged in a subagent's transcript (no structured
            // result there) names the agent on a line of its own, mid-text.
            self.trailer.agent_id = placeholder_agent_id(text).unwrap_or_default().to_string();
        }
        self.placeholder_seen |= is_launch_placeholder(text);
        if !text.trim().is_empty() && !self.is_placeholder(text) {
            self.output = text.to_string();
        }
    }

    /// The tool call failed (`is_error`, ACP `failed`).
    pub(crate) fn mark_failed(&mut self) {
        self.failed = true;
    }

    /// A background run finished (task notification): its status, its result
    /// (which replaces any launch placeholder) and its usage.
    pub(crate) fn apply_completion(&mut self, status: &str, result: &str, usage: Trailer) {
        self.awaiting_completion = false;
        self.task.merge_from(&SubagentTask {
            status: status.to_string(),
            duration_ms: usage.duration_ms,
            total_tokens: usage.total_tokens,
            tool_use_count: usage.tool_uses,
            ..SubagentTask::default()
        });
        if !result.trim().is_empty() {
            self.completion = result.to_string();
        }
    }

    /// The agent id known so far (from the result or the trailer).
    pub(crate) fn agent_id(&self) -> &str {
        if self.task.agent_id.is_empty() {
            &self.trailer.agent_id
        } else {
            &self.task.agent_id
        }
    }

    /// True while the run was launched in the background and has not finished.
    pub(crate) fn is_awaiting_completion(&self) -> bool {
        self.awaiting_completion
    }

    /// The folded payload.
    pub(crate) fn finish(&self) -> SubagentTask {
        let mut task = self.task.clone();
        // An untyped launch is a fork only where nothing recorded its type
        // (docs/behaviour.md §1: qwen-code runs it as `general-purpose` and says so).
        let recorded_type = !self.response_type.is_empty() && self.response_type != "fork";
        task.is_fork |= self.input_seen && !self.typed_input && !recorded_type;
        if task.subagent_type.is_empty() && !task.is_fork {
            task.subagent_type = self.response_type.clone();
        }
        task.agent_id = self.agent_id().to_string();
        task.duration_ms = task.duration_ms.or(self.trailer.duration_ms);
        task.total_tokens = task.total_tokens.or(self.trailer.total_tokens);
        task.tool_use_count = task.tool_use_count.or(self.trailer.tool_uses);
        if self.failed && task.status.is_empty() {
            task.status = "failed".into();
        }
        if self.finished && task.status.is_empty() {
            task.status = "completed".into();
        }
        // Still running in the background: whatever text arrived is the launch's.
        if !self.awaiting_completion {
            task.result_text = [&self.completion, &self.answer, &self.output]
                .into_iter()
                .find(|t| !t.is_empty())
                .cloned()
                .unwrap_or_default();
        }
        // Launched with a placeholder and no answer since: it runs in the
        // background until something settles it (docs/behaviour.md §8).
        task.is_async |= self.placeholder_seen && task.result_text.is_empty();
        task
    }

    fn is_placeholder(&self, text: &str) -> bool {
        self.awaiting_completion || is_launch_placeholder(text)
    }
}

/// A progress tick the ACP adapter sends while a subagent runs
/// (`{elapsedTimeSeconds, subagentType}`, docs/formats.md §7 ACP 2): not a result.
fn is_progress_tick(response: &Value) -> bool {
    response.get("elapsedTimeSeconds").is_some()
        && ["status", "content", "agentId"]
            .iter()
            .all(|k| response.get(*k).is_none())
}

/// A count or duration: a number, or a string of digits (the ACP adapter
/// sends some numbers as strings, docs/formats.md §7 ACP 4); anything else is
/// unknown.
fn number_at(v: &Value, key: &str) -> Option<u64> {
    u64_at(v, key).or_else(|| v.get(key)?.as_str()?.trim().parse().ok())
}

fn non_empty_or(s: String, fallback: &str) -> String {
    if s.is_empty() {
        fallback.to_string()
    } else {
        s
    }
}

/// The text blocks of a content value joined by `\n`, in order: a string is
/// itself; an array keeps its non-blank `text` blocks (plain strings too) and
/// skips every other block; anything else is empty.
pub(crate) fn join_text_blocks(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                Value::String(s) => Some(s.as_str()),
                _ if b.get("type").and_then(Value::as_str) == Some("text") => {
                    b.get("text").and_then(Value::as_str)
                }
                _ => None,
            })
            .filter(|t| !t.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// What the `agentId: … <usage>…</usage>` trailer of a Task result says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Trailer {
    pub agent_id: String,
    pub total_tokens: Option<u64>,
    pub tool_uses: Option<u64>,
    pub duration_ms: Option<u64>,
}

impl Trailer {
    fn fill_from(&mut self, other: Option<Trailer>) {
        let Some(o) = other else { return };
        if self.agent_id.is_empty() {
            self.agent_id = o.agent_id;
        }
        self.total_tokens = self.total_tokens.or(o.total_tokens);
        self.tool_uses = self.tool_uses.or(o.tool_uses);
        self.duration_ms = self.duration_ms.or(o.duration_ms);
    }

    /// Reads usage as `key: value` lines or as `<key>value</key>` elements
    /// (a task notification's): `total_tokens` or the newer
    /// `subagent_tokens`, `tool_uses`, `duration_ms`.
    pub(crate) fn parse_usage(body: &str) -> Trailer {
        let mut t = Trailer::default();
        let mut put = |key: &str, value: &str| {
            let n = value.trim().parse::<u64>().ok();
            match key.trim() {
                "total_tokens" | "subagent_tokens" => t.total_tokens = n,
                "tool_uses" => t.tool_uses = n,
                "duration_ms" => t.duration_ms = n,
                _ => {}
            }
        };
        for line in body.lines() {
            if let Some((key, value)) = line.split_once(':') {
                put(key, value);
            }
        }
        let mut rest = body;
        while let Some(open) = rest.find('<') {
            let after = &rest[open + 1..];
            let Some((key, tail)) = after.split_once('>') else {
                break;
            };
            match tail.split_once(&format!("</{key}>")) {
                Some((value, next)) => {
                    put(key, value);
                    rest = next;
                }
                None => rest = tail,
            }
        }
        t
    }
}

/// A subagent tool call's own output (`metadata.result`): the tool result
/// without its trailer; nothing when that is only a launch placeholder,
/// which is never shown as a result (docs/behaviour.md §1).
pub(crate) fn subagent_output(text: &str) -> Option<String> {
    let text = unwrap_report(text);
    let (head, _) = split_trailer(&text);
    (!is_launch_placeholder(head)).then(|| head.to_string())
}

/// Splits the transport trailer off a Task result (docs/behaviour.md §1, docs/formats.md
/// §7 Claude Code 2): a last line `agentId: <id> …` (any wording after the
/// id: `(for resuming …)`, `(use SendMessage …)`) or `agent_id: name@team`,
/// and/or a last `<usage>…</usage>` block that reads as usage
/// (`total_tokens` / `subagent_tokens`, `tool_uses`, `duration_ms`). Only
/// trailing lines are a trailer: the same words mid-text are kept. Returns
/// the text before it (line breaks right before the trailer removed) and
/// what it says; text without a trailer is returned whole.
pub(crate) fn split_trailer(text: &str) -> (&str, Option<Trailer>) {
    let body = text.trim_end();
    let mut cut = body.len();
    let mut trailer = None;
    if let Some(open) = body
        .strip_suffix("</usage>")
        .and_then(|b| b.rfind("<usage>"))
        .filter(|&open| open == 0 || body[..open].ends_with('\n'))
    {
        let usage =
            Trailer::parse_usage(&body[open + "<usage>".len()..body.len() - "</usage>".len()]);
        if usage != Trailer::default() {
            cut = open;
            trailer = Some(usage);
        }
    }
    let before = body[..cut].trim_end();
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let agent_id = ["agentId:", "agent_id:"]
        .iter()
        .find_map(|key| before[line_start..].strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next());
    if let Some(id) = agent_id {
        cut = line_start;
        trailer.get_or_insert_with(Trailer::default).agent_id = id.to_string();
    }
    match trailer {
        Some(trailer) => (text[..cut].trim_end_matches(['\n', '\r']), Some(trailer)),
        None => (text, None),
    }
}

/// The agent id a launch acknowledgement names (`agentId: a1b2 (internal
/// …)`, Claude Code), on any of its lines.
fn placeholder_agent_id(text: &str) -> Option<&str> {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix("agentId:"))
        .and_then(|rest| rest.split_whitespace().next())
        .filter(|id| super::companions::is_agent_id(id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_launch_acknowledgement_names_its_agent_mid_text() {
        let mut fold = SubagentFold::default();
        fold.apply_input(
            &json!({"description": "Check", "prompt": "go", "subagent_type": "Explore"}),
        );
        fold.apply_output("Async agent launched successfully. (internal metadata)\nagentId: acf82f78e97f1dbdf (internal ID)\nThe agent is working in the background.");
        assert_eq!(fold.agent_id(), "acf82f78e97f1dbdf");
        assert_eq!(
            fold.finish().result_text,
            "",
            "still a placeholder, not a result"
        );
    }

    const TRAILER: &str = "agentId: a3f9 (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 24781\ntool_uses: 3\nduration_ms: 52344</usage>";

    #[test]
    fn an_untyped_launch_takes_the_type_its_cli_recorded_and_is_a_fork_only_where_none_is() {
        let untyped = json!({"description": "Audit the lexer", "prompt": "go"});
        let mut recorded = SubagentFold::default();
        recorded.apply_input(&untyped);
        recorded.apply_sidecar(
            "general-purpose-call_1",
            &json!({"agentType": "general-purpose"}),
        );
        let task = recorded.finish();
        assert!(!task.is_fork);
        assert_eq!(task.subagent_type, "general-purpose");

        let mut silent = SubagentFold::default();
        silent.apply_input(&untyped);
        assert!(
            silent.finish().is_fork,
            "nothing recorded: the guess applies"
        );

        let mut fork = SubagentFold::default();
        fork.apply_input(&untyped);
        fork.apply_sidecar("a1", &json!({"agentType": "fork", "isFork": true}));
        let task = fork.finish();
        assert!(task.is_fork && task.subagent_type.is_empty());
    }

    #[test]
    fn a_fork_answered_with_its_placeholder_runs_in_the_background_until_its_completion() {
        let mut fold = SubagentFold::default();
        fold.apply_input(&serde_json::json!({"description": "Research A", "prompt": "go"}));
        fold.apply_output("Fork started — processing in background");
        let task = fold.finish();
        assert!(task.is_fork && task.is_async);
        assert_eq!(task.result_text, "");
        fold.apply_completion(
            "completed",
            "Research A found two call sites.",
            Trailer::default(),
        );
        let task = fold.finish();
        assert_eq!(task.result_text, "Research A found two call sites.");
        assert_eq!(task.status, "completed");
    }

    #[test]
    fn usage_reads_as_lines_or_as_elements() {
        let lines = Trailer::parse_usage("subagent_tokens: 1609\ntool_uses: 2\nduration_ms: 3243");
        let elements = Trailer::parse_usage(
            "<subagent_tokens>1609</subagent_tokens><tool_uses>2</tool_uses><duration_ms>3243</duration_ms>",
        );
        let expected = Trailer {
            agent_id: String::new(),
            total_tokens: Some(1609),
            tool_uses: Some(2),
            duration_ms: Some(3243),
        };
        assert_eq!((lines, elements), (expected.clone(), expected));
    }

    #[test]
    fn the_trailer_is_split_off_with_its_metrics() {
        let text = format!("Answer\n  indented\n{TRAILER}");
        let (head, trailer) = split_trailer(&text);
        assert_eq!(head, "Answer\n  indented");
        assert_eq!(
            trailer,
            Some(Trailer {
                agent_id: "a3f9".into(),
                total_tokens: Some(24781),
                tool_uses: Some(3),
                duration_ms: Some(52344)
            })
        );
    }

    #[test]
    fn an_older_trailer_is_only_the_agent_id_line() {
        let (head, trailer) = split_trailer("Done.\nagentId: 1a2b3c4");
        assert_eq!(head, "Done.");
        assert_eq!(trailer.unwrap().agent_id, "1a2b3c4");
        let (head, trailer) = split_trailer("Done.\nagent_id: reviewer@team");
        assert_eq!(head, "Done.");
        assert_eq!(trailer.unwrap().agent_id, "reviewer@team");
    }

    #[test]
    fn text_that_merely_mentions_agent_id_is_kept_whole() {
        for text in [
            "The field agentId: is documented",
            "agentId: x\nthen more prose",
            "agentId: x\n<usage>a: 1</usage>\ntrailing prose",
            "agentId:\n<usage>not usage</usage>",
            "Mentions agentId: x (for resuming)\nthen the answer",
        ] {
            assert_eq!(split_trailer(text), (text, None), "{text:?}");
        }
    }

    #[test]
    fn text_blocks_are_joined_in_order_skipping_blank_and_non_text_blocks() {
        let content = json!([
            {"type": "text", "text": "    indented finding"},
            {"type": "image", "data": "…"},
            {"type": "text", "text": "  "},
            {"type": "text", "text": "\tsecond line"},
            {"type": "text"},
            7
        ]);
        assert_eq!(
            join_text_blocks(&content),
            "    indented finding\n\tsecond line"
        );
        assert_eq!(join_text_blocks(&json!({"text": "x"})), "");
    }

    #[test]
    fn a_background_launch_text_is_held_back_until_the_completion() {
        let mut fold = SubagentFold::default();
        fold.apply_input(&json!({"description": "d", "prompt": "p", "subagent_type": "Explore"}));
        fold.apply_output("Async agent launched successfully.\nagentId: a90 (…)");
        fold.apply_response(
            &json!({"status": "async_launched", "isAsync": true, "agentId": "a90"}),
        );
        let launched = fold.finish();
        assert_eq!(launched.result_text, "");
        assert!(launched.is_async);
        assert_eq!(launched.status, "async_launched");
        fold.apply_completion("completed", "Real answer", Trailer::default());
        let done = fold.finish();
        assert_eq!(done.result_text, "Real answer");
        assert_eq!(done.status, "completed");
        assert!(done.is_async);
    }

    #[test]
    fn every_trailer_variant_is_cut_only_when_trailing() {
        for (text, head, agent, tokens) in [
            // 2.1.39: a separate block, joined by a newline.
            ("## Summary\nDone.\nagentId: a1b2c3d (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 24781\ntool_uses: 3\nduration_ms: 52344</usage>",
             "## Summary\nDone.", "a1b2c3d", Some(24781)),
            // Newer: SendMessage wording and subagent_tokens.
            ("The web module renders pages.\nagentId: showcol1 (use SendMessage with to: 'showcol1' to continue this agent)\n<usage>subagent_tokens: 1200\ntool_uses: 1\nduration_ms: 4200</usage>",
             "The web module renders pages.", "showcol1", Some(1200)),
            // The ACP adapter: inside the same text.
            ("The parser is in x.ts.\nagentId: a1 (use SendMessage to continue)", "The parser is in x.ts.", "a1", None),
            // Team agents; a blank line before the trailer.
            ("Research complete.\n\nagent_id: researcher@auth-team", "Research complete.", "researcher@auth-team", None),
            // A usage block alone, trailing whitespace after it.
            ("Answer.\n<usage>subagent_tokens: 9\n</usage>\n  ", "Answer.", "", Some(9)),
        ] {
            let (h, t) = split_trailer(text);
            let t = t.unwrap_or_else(|| panic!("no trailer in {text:?}"));
            assert_eq!((h, t.agent_id.as_str(), t.total_tokens), (head, agent, tokens), "{text:?}");
        }
    }
}
