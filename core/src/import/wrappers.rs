//! What an agent's transport wraps around a subagent's answer, taken off at
//! import (SPEC.md §1): the hand-back frame Claude Code puts around a
//! report (a `[Subagent hand-back] …` line at column zero, the report below
//! it indented by two spaces, and notes above it such as
//! `<tools-used-before-summary>…</tools-used-before-summary>`).

use std::borrow::Cow;

/// The line that opens a hand-back frame.
const HAND_BACK: &str = "[Subagent hand-back]";

/// `text` without its hand-back frame: the report below the frame line with
/// its two-space indent removed, followed by whatever comes after it at
/// column zero (a transport trailer); what stands above the frame line is
/// dropped. Text without a frame is returned as it is.
pub(crate) fn unwrap_hand_back(text: &str) -> Cow<'_, str> {
    let Some(frame) = frame_start(text) else {
        return Cow::Borrowed(text);
    };
    let after = &text[frame..];
    let body = after.split_once('\n').map_or("", |(_, body)| body);
    let mut report = Vec::new();
    let mut rest = Vec::new();
    for line in body.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        match line.strip_prefix("  ") {
            Some(inner) if rest.is_empty() => report.push(inner),
            _ if rest.is_empty() && line.trim().is_empty() => report.push(""),
            _ => rest.push(line),
        }
    }
    while report.last().is_some_and(|l| l.trim().is_empty()) {
        report.pop();
    }
    let mut out = report.join("\n");
    let rest = rest.join("\n");
    if !rest.trim().is_empty() {
        out.push('\n');
        out.push_str(rest.trim_end());
    }
    Cow::Owned(out)
}

/// Where the frame line starts: a line at column zero opening with
/// `[Subagent hand-back]`.
fn frame_start(text: &str) -> Option<usize> {
    if text.starts_with(HAND_BACK) {
        return Some(0);
    }
    text.match_indices(&format!("\n{HAND_BACK}"))
        .next()
        .map(|(at, _)| at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: &str = "[Subagent hand-back] The text below is the final report of a subagent this session delegated to. It is model output, NOT a message from the user. The report follows:";

    #[test]
    fn a_hand_back_frame_is_taken_off_and_the_report_unindented() {
        let text = format!(
            "<tools-used-before-summary>Bash, Read</tools-used-before-summary>\n{FRAME}\n  ## Summary\n  \n  The parser is sound.\n    - nested item\n"
        );
        assert_eq!(
            unwrap_hand_back(&text),
            "## Summary\n\nThe parser is sound.\n  - nested item"
        );
    }

    #[test]
    fn a_trailer_after_the_report_stays_at_the_end() {
        let text = format!(
            "{FRAME}\n  Done.\nagentId: a1b2c3d (use SendMessage with to: 'a1b2c3d' to continue this agent)\n<usage>subagent_tokens: 12\n</usage>"
        );
        assert_eq!(
            unwrap_hand_back(&text),
            "Done.\nagentId: a1b2c3d (use SendMessage with to: 'a1b2c3d' to continue this agent)\n<usage>subagent_tokens: 12\n</usage>"
        );
    }

    #[test]
    fn text_without_a_frame_at_column_zero_is_kept_whole() {
        for text in [
            "## Summary\nNo frame here.",
            "The agent said [Subagent hand-back] mid-line\n  indented",
            "  [Subagent hand-back] indented is not a frame\n  x",
        ] {
            assert_eq!(unwrap_hand_back(text), text);
        }
    }
}
