//! The subagent card's meta chips (docs/behaviour.md §3.1 item 7, §3.2).

use super::format::{
    count_label, ellipsize, format_duration, format_tokens, format_tokens_exact, group_thousands,
};
use crate::model::message::SubagentTask;
use crate::model::status::is_background;

/// One chip: a stable `id` (`background`, `duration`, `tokens`, `tools`,
/// `model`, `session`, and telemetry's `ttft`, `waits`, `retries`, `cost`),
/// its text and its `title`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chip {
    pub id: &'static str,
    pub text: String,
    pub title: String,
}

fn chip(id: &'static str, text: String, title: String) -> Chip {
    Chip { id, text, title }
}

/// The meta chips in the order of docs/behaviour.md §3.1, each only when its data is present:
/// background, duration, tokens, tools, model, session (the card adds
/// what only telemetry knows after them, `telemetry::telemetry_chips`). `child_count` is the
/// number of children the card shows: the tools chip is hidden when the card has
/// children and the reported count equals it.
pub fn meta_chips(sa: &SubagentTask, child_count: usize) -> Vec<Chip> {
    let mut chips = Vec::new();
    if is_background(sa) {
        chips.push(chip(
            "background",
            "background".into(),
            "ran in the background".into(),
        ));
    }
    if let Some(ms) = sa.duration_ms.filter(|d| *d > 0) {
        chips.push(chip(
            "duration",
            format_duration(ms),
            format!("{} ms", group_thousands(ms)),
        ));
    }
    if let Some(n) = sa.total_tokens.filter(|t| *t > 0) {
        chips.push(chip("tokens", format_tokens(n), format_tokens_exact(n)));
    }
    if let Some(n) = sa.tool_use_count {
        if !tools_chip_hidden(n, child_count) {
            let text = count_label(n, "tool", "tools");
            chips.push(chip(
                "tools",
                text,
                format!("{} reported", count_label(n, "tool use", "tool uses")),
            ));
        }
    }
    if !sa.model.trim().is_empty() {
        chips.push(chip("model", sa.model.clone(), sa.model.clone()));
    }
    if !sa.child_session_id.trim().is_empty() {
        let id = &sa.child_session_id;
        chips.push(chip("session", ellipsize(id, 12), id.clone()));
    }
    chips
}

/// The tools chip repeats the header's child count when they agree (docs/behaviour.md §3.2).
pub fn tools_chip_hidden(tool_use_count: u64, child_count: usize) -> bool {
    child_count > 0 && tool_use_count == child_count as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(chips: &[Chip]) -> Vec<&str> {
        chips.iter().map(|c| c.id).collect()
    }

    fn text<'a>(chips: &'a [Chip], id: &str) -> Option<&'a str> {
        chips.iter().find(|c| c.id == id).map(|c| c.text.as_str())
    }

    #[test]
    fn chips_come_in_spec_order_background_duration_tokens_tools_model_session() {
        let sa = SubagentTask {
            is_async: true,
            duration_ms: Some(90278),
            total_tokens: Some(48213),
            tool_use_count: Some(27),
            model: "claude-opus-4-8[1m]".into(),
            child_session_id: "sess_abcdef0123456789".into(),
            ..SubagentTask::default()
        };
        let chips = meta_chips(&sa, 20);
        assert_eq!(
            ids(&chips),
            [
                "background",
                "duration",
                "tokens",
                "tools",
                "model",
                "session"
            ]
        );
        assert_eq!(text(&chips, "duration"), Some("1m 30s"));
        assert_eq!(text(&chips, "tokens"), Some("48.2k tokens"));
        assert_eq!(chips[2].title, "48,213 tokens");
        assert_eq!(text(&chips, "tools"), Some("27 tools"));
        assert_eq!(text(&chips, "model"), Some("claude-opus-4-8[1m]"));
        assert_eq!(text(&chips, "session"), Some("sess_abcdef0…"));
        assert_eq!(chips[5].title, "sess_abcdef0123456789");
    }

    #[test]
    fn no_data_gives_no_chips() {
        let sa = SubagentTask {
            description: "do work".into(),
            subagent_type: "general".into(),
            ..SubagentTask::default()
        };
        assert!(meta_chips(&sa, 0).is_empty());
    }

    #[test]
    fn zero_duration_and_tokens_are_hidden_but_zero_tools_shows() {
        let sa = SubagentTask {
            duration_ms: Some(0),
            total_tokens: Some(0),
            tool_use_count: Some(0),
            ..SubagentTask::default()
        };
        let chips = meta_chips(&sa, 0);
        assert_eq!(ids(&chips), ["tools"]);
        assert_eq!(text(&chips, "tools"), Some("0 tools"));
    }

    #[test]
    fn tools_chip_reads_1_tool_in_the_singular() {
        let sa = SubagentTask {
            tool_use_count: Some(1),
            ..SubagentTask::default()
        };
        assert_eq!(text(&meta_chips(&sa, 0), "tools"), Some("1 tool"));
    }

    #[test]
    fn tools_chip_hidden_when_count_equals_children_10_of_10() {
        let sa = SubagentTask {
            tool_use_count: Some(10),
            duration_ms: Some(90278),
            ..SubagentTask::default()
        };
        assert_eq!(ids(&meta_chips(&sa, 10)), ["duration"]);
    }

    #[test]
    fn tools_chip_shown_when_count_differs_from_children_27_of_20() {
        let sa = SubagentTask {
            tool_use_count: Some(27),
            ..SubagentTask::default()
        };
        assert_eq!(text(&meta_chips(&sa, 20), "tools"), Some("27 tools"));
    }

    #[test]
    fn absent_tool_use_count_gives_no_tools_chip() {
        assert!(meta_chips(&SubagentTask::default(), 3).is_empty());
    }

    #[test]
    fn background_chip_from_is_async_or_async_launched_status() {
        let by_flag = SubagentTask {
            is_async: true,
            ..SubagentTask::default()
        };
        let by_status = SubagentTask {
            status: "async_launched".into(),
            ..SubagentTask::default()
        };
        assert_eq!(ids(&meta_chips(&by_flag, 0)), ["background"]);
        assert_eq!(ids(&meta_chips(&by_status, 0)), ["background"]);
    }

    #[test]
    fn short_session_id_is_shown_whole() {
        let sa = SubagentTask {
            child_session_id: "short".into(),
            ..SubagentTask::default()
        };
        assert_eq!(text(&meta_chips(&sa, 0), "session"), Some("short"));
    }
}
