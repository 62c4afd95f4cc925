//! A tool call Claude Code refused before it ran (docs/behaviour.md §3.4):
//! its result record's `permissionDecision` says `reject` with
//! `reasonType: "hook"` (a PreToolUse hook blocked it: the result reads
//! `PreToolUse:<tool> hook error: [<hook command>]: <reason>`) or
//! `reasonType: "rule"` (a `permissions.deny` rule: the result is the CLI's
//! sentence, in `<tool_use_error>` tags). Anything else is not a refusal;
//! a user's rejection is not a rule's.

use super::super::tool::ToolStatus;
use crate::model::message::str_at;
use serde_json::Value;

/// How the call was refused and the CLI's reason, or `None` when the
/// record's `decision` is not a refusal by a hook or a rule.
pub(super) fn refusal(decision: Option<&Value>, output: &str) -> Option<(ToolStatus, String)> {
    let decision = decision?;
    if str_at(decision, "decision") != "reject" {
        return None;
    }
    match str_at(decision, "reasonType").as_str() {
        "hook" => Some((ToolStatus::Blocked, hook_reason(output).to_string())),
        "rule" => Some((ToolStatus::Denied, without_error_tags(output).to_string())),
        _ => None,
    }
}

/// True for the result of a call the user stopped (`toolDenialKind:
/// "user-rejected"`, `toolUseResult: "User rejected tool use"`): an
/// interrupt while it ran (measured: `claude -p` on SIGINT during a
/// foreground subagent, interrupted-foreground), or a prompt the user
/// declined. It was cancelled, not refused by a rule nor failed.
pub(super) fn stopped_by_user(record: &Value) -> bool {
    str_at(record, "toolDenialKind") == "user-rejected"
}

/// A tool error's sentence without its `<tool_use_error>` tags.
fn without_error_tags(output: &str) -> &str {
    let text = output.trim();
    text.strip_prefix("<tool_use_error>")
        .and_then(|t| t.strip_suffix("</tool_use_error>"))
        .unwrap_or(text)
        .trim()
}

/// The hook's own words in a blocked call's result: what follows the hook
/// command (`…hook error: [<command>]: <reason>`); the whole text when it
/// is not in that shape.
fn hook_reason(output: &str) -> &str {
    let text = output.trim();
    let after_error = text.find("hook error: ").map(|at| &text[at..]);
    after_error
        .and_then(|rest| rest.find("]: ").map(|at| rest[at + 3..].trim()))
        .filter(|reason| !reason.is_empty())
        .unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_hook_block_keeps_the_hooks_own_words() {
        let output = "PreToolUse:Bash hook error: ['/usr/bin/node' '/h/guard.mjs' 'cargo publish' 'No publishing here.']: No publishing here.\n";
        let decision = json!({"decision": "reject", "source": "hook", "reasonType": "hook"});
        assert_eq!(
            refusal(Some(&decision), output),
            Some((ToolStatus::Blocked, "No publishing here.".into()))
        );
        assert_eq!(hook_reason("a hook said no"), "a hook said no");
    }

    #[test]
    fn a_deny_rule_reads_denied_with_the_clis_sentence() {
        let output = "<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>";
        let decision =
            json!({"decision": "reject", "reasonType": "rule", "ruleSource": "userSettings"});
        assert_eq!(
            refusal(Some(&decision), output),
            Some((
                ToolStatus::Denied,
                "File is in a directory that is denied by your permission settings.".into()
            ))
        );
    }

    #[test]
    fn an_accepted_call_or_a_users_rejection_is_no_refusal() {
        let accepted = json!({"decision": "accept", "source": "config", "reasonType": "mode"});
        let user = json!({"decision": "reject", "reasonType": "user"});
        assert_eq!(refusal(Some(&accepted), "Exit code 1"), None);
        assert_eq!(refusal(Some(&user), "no"), None);
        assert_eq!(refusal(None, "no"), None);
    }
}
