//! One ACP tool call folded from its frames (docs/formats.md §1.4–1.5).

use super::super::build::Stamp;
use super::super::subagent_fold::{subagent_output, SubagentFold, Trailer};
use super::super::tool::{FileDiff, ToolCall, ToolKind, ToolStatus};
use super::content::{
    claude_meta, diff_of, is_empty_value, output_text, response_output, tool_content_text, unfenced,
};
use crate::model::message::{str_at, Message};
use serde_json::Value;
use std::collections::HashMap;

/// What protocol v2's `terminal_update`s said about one terminal.
#[derive(Clone, Debug, Default)]
pub(super) struct Terminal {
    pub command: String,
    pub output: String,
    pub exit_code: Option<i64>,
}

/// One tool call's frames folded.
pub(super) struct AcpTool {
    pub(super) call: ToolCall,
    stamp: Stamp,
    acp_kind: String,
    /// Terminals the call's `content` shows (`{type: "terminal", terminalId}`).
    terminal_ids: Vec<String>,
    /// Text of `content` on a frame that carried a terminal status.
    final_content_text: Option<String>,
    raw_output_text: Option<String>,
    /// Text of a non-subagent `toolResponse` (last resort for the output).
    response_text: Option<String>,
    terminal_output: String,
    subagent: Option<SubagentFold>,
}

impl AcpTool {
    pub(super) fn new(id: &str, stamp: Stamp) -> AcpTool {
        AcpTool {
            call: ToolCall {
                id: id.to_string(),
                ..ToolCall::default()
            },
            stamp,
            acp_kind: String::new(),
            terminal_ids: Vec::new(),
            final_content_text: None,
            raw_output_text: None,
            response_text: None,
            terminal_output: String::new(),
            subagent: None,
        }
    }

    /// The terminals the call's content shows.
    pub(super) fn terminal_ids(&self) -> &[String] {
        &self.terminal_ids
    }

    pub(super) fn apply(&mut self, u: &Value) {
        let call = &mut self.call;
        if let Some(name) = claude_meta(u, "toolName") {
            call.name = name;
        } else if call.name.is_empty() {
            // Protocol v2 also names the tool at `name`.
            call.name = str_at(u, "name");
        }
        if call.parent.is_none() {
            call.parent = claude_meta(u, "parentToolUseId");
        }
        if self.subagent.is_none() && matches!(call.name.as_str(), "Agent" | "Task") {
            let mut fold = SubagentFold::default();
            fold.apply_input(&call.input);
            if let Some(text) = &self.raw_output_text {
                fold.apply_output(text);
            }
            self.subagent = Some(fold);
        }
        if let Some(title) = u
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            call.title = title.to_string();
        }
        if let Some(kind) = u.get("kind").and_then(Value::as_str) {
            self.acp_kind = kind.to_string();
        }
        let status = u
            .get("status")
            .and_then(Value::as_str)
            .and_then(ToolStatus::parse);
        if let Some(s) = status {
            call.status.advance(s);
        }
        let input = u.get("rawInput").filter(|i| !is_empty_value(i));
        if let Some(input) = input {
            call.input = input.clone();
        }
        let content = u
            .get("content")
            .and_then(Value::as_array)
            .filter(|c| !c.is_empty());
        let mut frame_text = None;
        if let Some(content) = content {
            let diffs: Vec<FileDiff> = content.iter().filter_map(diff_of).collect();
            if !diffs.is_empty() {
                call.diffs = diffs;
            }
            let text = tool_content_text(content);
            if !text.is_empty() {
                frame_text = Some(text);
            }
            for id in content
                .iter()
                .filter(|c| c.get("type").and_then(Value::as_str) == Some("terminal"))
                .map(|c| str_at(c, "terminalId"))
            {
                if !id.is_empty() && !self.terminal_ids.contains(&id) {
                    self.terminal_ids.push(id);
                }
            }
        }
        if status.is_some_and(ToolStatus::is_terminal) && frame_text.is_some() {
            self.final_content_text = frame_text.clone();
        }
        if let Some(path) = u
            .get("locations")
            .and_then(|l| l.get(0))
            .and_then(|l| l.get("path"))
            .and_then(Value::as_str)
        {
            call.path_hint = Some(path.to_string());
        }
        let raw_output = u.get("rawOutput").filter(|o| !o.is_null()).map(output_text);
        if let Some(text) = &raw_output {
            self.raw_output_text = Some(text.clone());
        }
        let meta = u.get("_meta");
        if let Some(data) = meta
            .and_then(|m| m.get("terminal_output"))
            .and_then(|t| t.get("data"))
            .and_then(Value::as_str)
        {
            self.terminal_output.push_str(data);
        }
        if let Some(code) = meta
            .and_then(|m| m.get("terminal_exit"))
            .and_then(|t| t.get("exit_code"))
            .and_then(Value::as_i64)
        {
            call.exit_code = Some(code);
        }
        let response = meta
            .and_then(|m| m.get("claudeCode"))
            .and_then(|c| c.get("toolResponse"))
            .filter(|r| !r.is_null());
        match &mut self.subagent {
            Some(fold) => {
                if let Some(input) = input {
                    fold.apply_input(input);
                }
                if let Some(response) = response {
                    fold.apply_response(response);
                }
                // The displayed content of a failed run is fenced; `rawOutput` is not.
                let result = raw_output.or(frame_text
                    .filter(|_| status.is_some_and(ToolStatus::is_terminal))
                    .map(|t| unfenced(&t).to_string()));
                if let Some(text) = result {
                    fold.apply_output(&text);
                }
                if status == Some(ToolStatus::Error) {
                    fold.mark_failed();
                }
            }
            None => {
                if let Some(text) = response.and_then(response_output) {
                    self.response_text = Some(text);
                }
            }
        }
    }

    /// The turn that launched this call was cancelled (the client's
    /// `session/cancel`, answered `cancelled`): a subagent run that had not
    /// reported ends cancelled, as the agent stopped it (docs/behaviour.md §1: what the
    /// agent recorded wins). Returns whether anything changed.
    pub(super) fn cancel_unsettled_run(&mut self) -> bool {
        let Some(fold) = &mut self.subagent else {
            return false;
        };
        if !fold.is_awaiting_completion() && self.call.status.is_terminal() {
            return false;
        }
        fold.apply_completion("cancelled", "", Trailer::default());
        self.call.status = ToolStatus::Cancelled;
        true
    }

    /// The client's reply to a permission request.
    pub(super) fn settle_permission(&mut self, outcome: Option<&Value>) {
        let Some(Value::Object(permission)) = self.call.extra.get_mut("permission") else {
            return;
        };
        let chosen = outcome.map(|o| str_at(o, "optionId")).unwrap_or_default();
        let status = match outcome.map(|o| str_at(o, "outcome")).as_deref() {
            Some("selected") => {
                let kind = permission
                    .get("options")
                    .and_then(Value::as_array)
                    .and_then(|opts| opts.iter().find(|o| str_at(o, "optionId") == chosen))
                    .map(|o| str_at(o, "kind"))
                    .unwrap_or_default();
                if kind.starts_with("reject") {
                    "rejected"
                } else {
                    "approved"
                }
            }
            Some("cancelled") => "cancelled",
            _ => return,
        };
        permission.insert("status".into(), status.into());
        if !chosen.is_empty() {
            permission.insert("option_id".into(), chosen.into());
        }
    }

    /// The call as a model message; `terminals` are what protocol v2's
    /// `terminal_update`s said, by terminal id.
    pub(super) fn to_message(&self, terminals: &HashMap<String, Terminal>) -> Message {
        let mut call = self.call.clone();
        let terminal = self.terminal_ids.iter().find_map(|id| terminals.get(id));
        if let Some(fold) = &self.subagent {
            call.kind = Some(ToolKind::Subagent);
            call.subagent = Some(fold.finish());
            if fold.is_awaiting_completion() {
                call.status = ToolStatus::InProgress;
            }
            call.output = self
                .raw_output_text
                .as_deref()
                .or(self.final_content_text.as_deref().map(unfenced))
                .and_then(subagent_output);
        } else {
            let by_kind = ToolKind::from_acp_kind(&self.acp_kind);
            call.kind = Some(if by_kind == ToolKind::Generic {
                ToolKind::from_tool_name(&call.name)
            } else {
                by_kind
            });
            call.output = self
                .raw_output_text
                .clone()
                .or_else(|| self.final_content_text.clone())
                .or_else(|| {
                    (!self.terminal_output.is_empty()).then(|| self.terminal_output.clone())
                })
                .or_else(|| terminal.map(|t| t.output.clone()).filter(|o| !o.is_empty()))
                .or_else(|| self.response_text.clone());
            if let Some(t) = terminal {
                call.exit_code = call.exit_code.or(t.exit_code);
                if call.input.get("command").is_none() && !t.command.is_empty() {
                    call.input = serde_json::json!({"command": t.command});
                }
            }
        }
        call.to_message(&self.stamp)
    }
}
