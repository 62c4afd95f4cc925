//! A command Codex refused before it ran (docs/behaviour.md §3.4), told by
//! its output: a PreToolUse hook's block reads `Command blocked by
//! PreToolUse hook: <reason>. Command: <command>` (`Tool call blocked by
//! PreToolUse hook: …` for other tools); an execpolicy rule's `forbidden`
//! reads `exec_command failed: CreateProcess { message: "Rejected(\"`<command>`
//! rejected: <justification>\")" }`.

use super::super::tool::ToolStatus;

/// What a hook's block starts with, by the kind of call.
const HOOK_BLOCKS: [&str; 2] = [
    "Command blocked by PreToolUse hook:",
    "Tool call blocked by PreToolUse hook:",
];

/// How the call was refused and the reason given, or `None` for any other
/// output.
pub(super) fn refusal(output: &str) -> Option<(ToolStatus, String)> {
    let text = output.trim();
    if let Some(rest) = HOOK_BLOCKS.iter().find_map(|p| text.strip_prefix(p)) {
        let reason = rest.rsplit_once(". Command: ").map_or(rest, |(r, _)| r);
        return Some((ToolStatus::Blocked, reason.trim().to_string()));
    }
    let rejected = text.strip_prefix("exec_command failed:")?;
    let at = rejected.find("Rejected(")?;
    let why = &rejected[at..];
    let reason = why.split_once(" rejected: ").map_or(why, |(_, r)| r);
    let reason = reason
        .split("\\\")")
        .next()
        .unwrap_or(reason)
        .trim_end_matches(['"', ')', '}', ' ']);
    Some((
        ToolStatus::Denied,
        reason.replace("\\\"", "\"").trim().to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_block_reads_blocked_with_the_hooks_reason() {
        let output = "Command blocked by PreToolUse hook: Publishing is blocked here.. Command: cargo publish --dry-run";
        assert_eq!(
            refusal(output),
            Some((ToolStatus::Blocked, "Publishing is blocked here.".into()))
        );
    }

    #[test]
    fn an_execpolicy_rejection_reads_denied_with_its_justification() {
        let output = r#"exec_command failed: CreateProcess { message: "Rejected(\"`/bin/bash -lc 'cat .env'` rejected: .env holds secrets and may not be read\")" }"#;
        assert_eq!(
            refusal(output),
            Some((
                ToolStatus::Denied,
                ".env holds secrets and may not be read".into()
            ))
        );
    }

    #[test]
    fn a_command_that_failed_on_its_own_is_no_refusal() {
        assert_eq!(
            refusal("Process exited with code 1\nOutput:\ncat: x: No such file"),
            None
        );
        assert_eq!(refusal("exec_command failed: spawn error"), None);
    }
}
