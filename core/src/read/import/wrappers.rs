//! What an agent's transport wraps around a subagent's answer, taken off at
//! import (docs/behaviour.md §1): the hand-back frame Claude Code puts around a
//! report (a `[Subagent hand-back] …` line at column zero, the report below
//! it indented by two spaces) and the harness notes before a report
//! (`<tools-used-before-summary>Bash</tools-used-before-summary>`).

use std::borrow::Cow;

/// The line that opens a hand-back frame.
const HAND_BACK: &str = "[Subagent hand-back]";

/// The report in `text`: without its hand-back frame (see `unframe`) and
/// without the harness notes that open it (see `without_notes`). Text with
/// neither is returned as it is.
pub(crate) fn unwrap_report(text: &str) -> Cow<'_, str> {
    match frame_start(text) {
        Some(frame) => Cow::Owned(without_notes(&unframe(&text[frame..])).to_string()),
        None => match without_notes(text) {
            rest if rest.len() == text.len() => Cow::Borrowed(text),
            rest => Cow::Borrowed(rest),
        },
    }
}

/// Harness notes at the start of a report taken off: elements whose tag
/// name has a `-` (`<tools-used-before-summary>…</tools-used-before-summary>`),
/// each closed by its own end tag, and the blank lines after them.
fn without_notes(text: &str) -> &str {
    let mut rest = text;
    loop {
        let t = rest.trim_start();
        let Some(name) = t
            .strip_prefix('<')
            .and_then(|after| after.split_once('>'))
            .map(|(name, _)| name)
            .filter(|name| {
                name.contains('-') && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            })
        else {
            return if rest.len() == text.len() { text } else { t };
        };
        let close = format!("</{name}>");
        match t.find(&close) {
            Some(at) => rest = &t[at + close.len()..],
            None => return if rest.len() == text.len() { text } else { t },
        }
    }
}

/// The text from a frame line on, unframed: the report below the frame line
/// with its two-space indent removed, followed by whatever comes after it
/// at column zero (a transport trailer).
fn unframe(after: &str) -> String {
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
    out
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
            unwrap_report(&text),
            "## Summary\n\nThe parser is sound.\n  - nested item"
        );
    }

    #[test]
    fn a_trailer_after_the_report_stays_at_the_end() {
        let text = format!(
            "{FRAME}\n  Done.\nagentId: a1b2c3d (use SendMessage with to: 'a1b2c3d' to continue this agent)\n<usage>subagent_tokens: 12\n</usage>"
        );
        assert_eq!(
            unwrap_report(&text),
            "Done.\nagentId: a1b2c3d (use SendMessage with to: 'a1b2c3d' to continue this agent)\n<usage>subagent_tokens: 12\n</usage>"
        );
    }

    #[test]
    fn harness_notes_before_a_report_are_taken_off() {
        assert_eq!(
            unwrap_report(
                "<tools-used-before-summary>Bash</tools-used-before-summary>\n\n## Summary\nDone."
            ),
            "## Summary\nDone."
        );
        for kept in [
            "<b>bold</b> start",
            "<tools-used>never closed\nreport",
            "a <tools-used-before-summary>x</tools-used-before-summary> mid-text",
        ] {
            assert_eq!(unwrap_report(kept), kept);
        }
    }

    #[test]
    fn text_without_a_frame_at_column_zero_is_kept_whole() {
        for text in [
            "## Summary\nNo frame here.",
            "The agent said [Subagent hand-back] mid-line\n  indented",
            "  [Subagent hand-back] indented is not a frame\n  x",
        ] {
            assert_eq!(unwrap_report(text), text);
        }
    }
}
