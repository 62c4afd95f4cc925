//! Calls stopped before or while they ran: refused by a hook or a
//! permission rule (docs/behaviour.md §3.4), or cut off by an interrupt.

use super::{Body, Fold, Item};
use crate::read::import::tool::ToolStatus;

impl Fold {
    /// Tool call `id` was refused before it ran (docs/behaviour.md §3.4):
    /// `status` is [`ToolStatus::Blocked`] (a hook) or
    /// [`ToolStatus::Denied`] (a permission rule), `reason` what the CLI
    /// said, kept as its output. Told before the call is read (qwen-code's
    /// telemetry of a subagent's call, in the main file), it waits for it.
    pub(crate) fn refused(&mut self, id: &str, status: ToolStatus, reason: &str) {
        let reason = reason.trim().to_string();
        let Some(Item {
            body: Body::Tool(tool),
            ..
        }) = self.items.get_mut(id)
        else {
            self.pending_refusals
                .insert(id.to_string(), (status, reason));
            return;
        };
        tool.call.status = status;
        tool.call.output = Some(reason);
        if let Some(fold) = &mut tool.subagent {
            fold.mark_refused(status.as_str());
        }
    }

    /// Tool call `id` was stopped while it ran (the user interrupted the
    /// turn): cancelled, and what the CLI wrote for the stop is no result.
    pub(crate) fn cut_off(&mut self, id: &str) {
        if let Some(Item {
            body: Body::Tool(tool),
            ..
        }) = self.items.get_mut(id)
        {
            tool.call.status = ToolStatus::Cancelled;
            tool.call.output = None;
            if let Some(fold) = &mut tool.subagent {
                fold.cut_off();
            }
        }
    }
}
