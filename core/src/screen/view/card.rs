//! The subagent card's view-model (docs/behaviour.md §3) and the orphan card's.

use super::chips::{meta_chips, Chip};
use super::conclusion::{result_body, result_summary, ResultBody};
use super::describe::strip_type_prefix;
use super::format::count_label;
use super::lifecycle::{at_work, lifecycle_mark, LifecycleMark};
use super::telemetry::telemetry_chips;
use super::tokens::{isolation_chip, nested_tokens, with_nested_chip};
use crate::model::message::{Message, SubagentTask};
use crate::model::status::{is_background, source_run_state, RunState};
use crate::state::activity::Clock;
use crate::state::layout::{Layout, RowKey};
use crate::state::store::Store;

/// Everything a subagent card renders, in the order of docs/behaviour.md §3.1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CardView {
    pub message_id: String,
    /// The type chip: `subagent_type`, else `fork`, else `subagent` (§3.1).
    pub type_label: String,
    /// The description without a restated type; `None` when nothing is left (§3.3).
    pub description: Option<String>,
    /// The full original description, for the `title` attribute.
    pub description_title: String,
    pub status: RunState,
    /// The status word next to the description: `failed` / `cancelled`
    /// (docs/behaviour.md §3.1 item 4); none while running (a spinner) or when complete.
    pub status_word: Option<&'static str>,
    /// While running: `background · running` or `stalled` (docs/behaviour.md §8).
    pub lifecycle: Option<LifecycleMark>,
    /// While running: `now: <title of the latest child>` (§3.4).
    pub now_text: Option<String>,
    pub child_count: usize,
    /// `1 tool call` / `N tool calls`, when it has children (§3.1 item 5).
    pub child_count_label: Option<String>,
    /// The summary line, only when settled; hide it while expanded (§3.1 item 6).
    pub result_summary: Option<String>,
    /// The first part of the expanded body (§3.5 item 1).
    pub result_body: Option<ResultBody>,
    /// The closed prompt disclosure, when the prompt is known (§3.5 item 2).
    pub prompt: Option<String>,
    /// Meta chips, only when settled (§3.1 item 7).
    pub chips: Vec<Chip>,
    /// Settled, with nested subagents that report tokens: the total with
    /// them, shown apart from the own tokens chip (docs/behaviour.md §8).
    pub tokens_with_nested: Option<Chip>,
    /// Settled, with tokens and an answer: what reached the parent against
    /// what it spent (docs/behaviour.md §8).
    pub isolation: Option<Chip>,
    /// What the parent agent received, when the source records it apart
    /// from the subagent's own record (gadget-style `response`, docs/behaviour.md §8).
    pub received: Option<ReceivedView>,
    /// It has children, a result or a prompt: a chevron and a toggle button.
    pub expandable: bool,
    /// The source had no transcript for this subagent (e.g. a missing Claude
    /// Code child file): the card says so instead of implying zero work.
    pub transcript_not_loaded: bool,
}

/// What reached the parent agent's context from a subagent (docs/behaviour.md §8
/// context isolation): shown apart from the subagent's record (its thinking,
/// tool calls and stats), which never entered that context.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceivedView {
    /// The text the parent received, verbatim.
    pub text: String,
    /// The parent received more than the answer (e.g. the whole subagent
    /// record serialized into its context): the isolation leaked.
    pub more_than_answer: bool,
}

/// The heading of what the parent received (docs/behaviour.md §8).
pub const RECEIVED_HEADING: &str = "what the parent agent received";
/// The heading of the subagent's own record, below it.
pub const RECORD_HEADING: &str = "the subagent's record (never in the parent's context)";
/// Said when the parent received more than the answer.
pub const LEAK_NOTE: &str = "more than the answer reached the parent's context";

/// The received part of a card: `metadata.parent_received` when the source
/// recorded it, compared with the subagent's answer.
pub fn received_view(m: &Message, answer: &str) -> Option<ReceivedView> {
    let text = m.metadata.raw_str("parent_received")?;
    (!text.trim().is_empty()).then(|| ReceivedView {
        text: text.to_string(),
        more_than_answer: text.trim() != answer.trim(),
    })
}

impl CardView {
    /// Whether the card is open, given the user's sticky toggle (docs/behaviour.md §3.4).
    pub fn expanded(&self, manual: Option<bool>) -> bool {
        card_expanded(self.expandable, self.status.is_running(), manual)
    }

    /// What the polite live region says when this card has just settled
    /// (`code-reviewer subagent finished: APPROVE`).
    pub fn settled_announcement(&self) -> String {
        let outcome = match self.status {
            RunState::Failed => "failed",
            RunState::Cancelled => "was cancelled",
            _ => "finished",
        };
        let summary = self
            .result_summary
            .as_ref()
            .map(|s| format!(": {s}"))
            .unwrap_or_default();
        format!("{} subagent {outcome}{summary}", self.type_label)
    }

    /// The meta row in order: the meta chips (§3.1 item 7), with the figures
    /// of docs/behaviour.md §8 right after the tokens chip (`48.2k tokens · 61k with
    /// nested`); each paired with whether it is such a derived figure.
    pub fn meta_row(&self) -> Vec<(Chip, bool)> {
        let at = self
            .chips
            .iter()
            .position(|c| c.id == "tokens")
            .map_or(self.chips.len(), |i| i + 1);
        let (before, after) = self.chips.split_at(at);
        let derived = [&self.tokens_with_nested, &self.isolation]
            .into_iter()
            .flatten()
            .map(|c| (c.clone(), true));
        before
            .iter()
            .map(|c| (c.clone(), false))
            .chain(derived)
            .chain(after.iter().map(|c| (c.clone(), false)))
            .collect()
    }

    /// The summary line to show: settled and collapsed only (docs/behaviour.md §3.1 item 6).
    pub fn visible_summary(&self, expanded: bool) -> Option<&str> {
        self.result_summary.as_deref().filter(|_| !expanded)
    }
}

/// Expansion (docs/behaviour.md §3.4): open while running, closed once settled, unless
/// the user toggled it; never open when there is nothing to expand.
pub fn card_expanded(expandable: bool, running: bool, manual: Option<bool>) -> bool {
    expandable && manual.unwrap_or(running)
}

/// The sticky toggle a click stores: the opposite of what is shown.
pub fn toggled(currently_expanded: bool) -> Option<bool> {
    Some(!currently_expanded)
}

/// The card's status word (docs/behaviour.md §3.1 item 4).
pub fn status_word(status: RunState) -> Option<&'static str> {
    match status {
        RunState::Failed => Some("failed"),
        RunState::Cancelled => Some("cancelled"),
        RunState::Running | RunState::Complete | RunState::Settled => None,
    }
}

/// The type chip text (docs/behaviour.md §3.1 item 2).
pub fn type_label(sa: &SubagentTask) -> String {
    if !sa.subagent_type.trim().is_empty() {
        sa.subagent_type.clone()
    } else if sa.is_fork {
        "fork".into()
    } else {
        "subagent".into()
    }
}

/// The card of subagent message `id`, or `None` when it is not loaded. The
/// `clock`, when given, decides the time-based `stalled` marker (docs/behaviour.md §8).
pub fn card_view(
    store: &Store,
    layout: &Layout,
    id: &str,
    clock: Option<Clock>,
) -> Option<CardView> {
    let m = store.message(id)?;
    let sa = m.metadata.subagent.clone().unwrap_or_default();
    let key = RowKey::Message(id.to_string());
    let still = clock.is_some_and(|c| c.is_still());
    // In a still file a run left pending or in progress never reported back (docs/behaviour.md §8).
    let status = source_run_state(m, store.is_turn_active(m), still);
    let running = status.is_running();
    let child_count = layout.child_count(&key);
    let tool_calls = tool_call_children(store, layout, &key);
    let (type_label, description, description_title) = names(m, &sa);
    let result_body = result_body(sa.answer());
    let prompt = Some(sa.prompt.clone()).filter(|p| !p.trim().is_empty());
    let received = received_view(m, sa.answer());
    let returned = received.as_ref().map_or(sa.answer(), |r| r.text.as_str());
    let lifecycle = lifecycle_mark(
        status,
        is_background(&sa),
        clock.and_then(|c| c.idle_ms(id)),
        still,
    );
    // An interrupted run is at nothing now (docs/behaviour.md §8): no `now:` line.
    let at_work = at_work(status, lifecycle.as_ref());
    let now_text = layout
        .children(&key)
        .last()
        .and_then(|row| row.message_id())
        .and_then(|c| store.message(c))
        .map(Message::title)
        .filter(|t| at_work && !t.is_empty())
        .map(|t| format!("now: {t}"));
    Some(CardView {
        message_id: id.to_string(),
        description,
        description_title,
        type_label,
        status,
        status_word: status_word(status),
        lifecycle,
        now_text,
        child_count,
        child_count_label: (tool_calls > 0)
            .then(|| count_label(tool_calls as u64, "tool call", "tool calls")),
        result_summary: if running {
            None
        } else {
            result_summary(sa.answer())
        },
        expandable: child_count > 0
            || result_body.is_some()
            || prompt.is_some()
            || received.is_some(),
        transcript_not_loaded: child_count == 0
            && m.metadata.raw.get("transcript_not_loaded") == Some(&serde_json::Value::Bool(true)),
        result_body,
        prompt,
        chips: if running {
            Vec::new()
        } else {
            let mut chips = meta_chips(&sa, tool_calls);
            chips.extend(telemetry_chips(sa.telemetry.as_ref()));
            chips
        },
        tokens_with_nested: nested_tokens(store, layout, &key)
            .filter(|_| !running)
            .map(|nested| with_nested_chip(sa.total_tokens, nested)),
        isolation: isolation_chip(returned, sa.total_tokens).filter(|_| !running),
        received,
    })
}

/// How many of a card's children came from a tool call (docs/behaviour.md §3.1 item 5).
fn tool_call_children(store: &Store, layout: &Layout, key: &RowKey) -> usize {
    tool_derived_count(
        layout
            .children(key)
            .filter_map(|row| row.message_id().and_then(|id| store.message(id))),
    )
}

/// The child count rule (docs/behaviour.md §3.1 item 5): every child that came from a
/// tool call counts, whatever row it renders as (a tool card, a nested
/// subagent, a `TodoWrite` shown as a todo list, a permission request), once
/// per tool call: rows sharing a `tool_call_id` count once. Thinking and text
/// rows an importer nests in a card are not tool calls. On a complete child
/// transcript this equals the agent's own `tool_use_count`.
pub fn tool_derived_count<'a>(children: impl Iterator<Item = &'a Message>) -> usize {
    let mut calls = std::collections::HashSet::new();
    let mut anonymous = 0;
    for m in children {
        match m
            .metadata
            .tool_call_id
            .as_deref()
            .filter(|id| !id.is_empty())
        {
            Some(id) => {
                calls.insert(id);
            }
            None if m.kind.is_tool() => anonymous += 1,
            None => {}
        }
    }
    calls.len() + anonymous
}

/// The payload's description, or the tool title for a card without one.
/// A subagent's type chip text, its description without a restated type
/// (docs/behaviour.md §3.3; `None` when nothing is left) and its full description.
pub fn names(m: &Message, sa: &SubagentTask) -> (String, Option<String>, String) {
    let type_label = type_label(sa);
    let full = description_source(m, sa);
    let stripped = strip_type_prefix(&full, &type_label).trim();
    let description = Some(stripped.to_string()).filter(|d| !d.is_empty());
    (type_label, description, full)
}

fn description_source(m: &Message, sa: &SubagentTask) -> String {
    if sa.description.trim().is_empty() {
        m.title()
    } else {
        sa.description.clone()
    }
}

/// The heading of an orphan card (docs/behaviour.md §2.7).
pub const ORPHAN_CARD_TITLE: &str = "subagent (not loaded)";

/// What an orphan card renders: its heading and child count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrphanCardView {
    pub title: &'static str,
    pub parent_tool_call_id: String,
    pub child_count_label: String,
}

/// The orphan card for children of the unloaded `parent_tool_call_id`; its
/// count follows the card's rule (`tool_derived_count`).
pub fn orphan_card_view(
    store: &Store,
    layout: &Layout,
    parent_tool_call_id: &str,
) -> Option<OrphanCardView> {
    let key = RowKey::Orphans(parent_tool_call_id.to_string());
    (layout.child_count(&key) > 0).then(|| OrphanCardView {
        title: ORPHAN_CARD_TITLE,
        parent_tool_call_id: parent_tool_call_id.to_string(),
        child_count_label: count_label(
            tool_call_children(store, layout, &key) as u64,
            "tool call",
            "tool calls",
        ),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn expansion_auto_opens_while_running_and_closes_on_settle() {
        assert!(card_expanded(true, true, None));
        assert!(!card_expanded(true, false, None));
    }

    #[test]
    fn expansion_toggle_sticks_across_settling() {
        let manual = toggled(card_expanded(true, true, None));
        assert_eq!(manual, Some(false));
        assert!(!card_expanded(true, true, manual));
        let manual = toggled(card_expanded(true, false, None));
        assert!(card_expanded(true, false, manual));
        assert!(card_expanded(true, true, manual));
    }

    #[test]
    fn a_card_with_nothing_to_expand_never_opens() {
        assert!(!card_expanded(false, true, None));
        assert!(!card_expanded(false, false, Some(true)));
    }

    /// A settled card of type `code-reviewer` with `summary`: what the
    /// announcement tests word.
    pub(crate) fn card(status: RunState, summary: Option<&str>) -> CardView {
        CardView {
            message_id: "s".into(),
            type_label: "code-reviewer".into(),
            description: None,
            description_title: String::new(),
            status,
            status_word: status_word(status),
            lifecycle: None,
            now_text: None,
            child_count: 0,
            child_count_label: None,
            result_summary: summary.map(str::to_string),
            result_body: None,
            prompt: None,
            chips: Vec::new(),
            tokens_with_nested: None,
            isolation: None,
            received: None,
            expandable: false,
            transcript_not_loaded: false,
        }
    }

    #[test]
    fn settled_announcement_names_type_outcome_and_summary() {
        assert_eq!(
            card(RunState::Complete, Some("APPROVE")).settled_announcement(),
            "code-reviewer subagent finished: APPROVE"
        );
        assert_eq!(
            card(RunState::Failed, None).settled_announcement(),
            "code-reviewer subagent failed"
        );
        assert_eq!(
            card(RunState::Cancelled, None).settled_announcement(),
            "code-reviewer subagent was cancelled"
        );
    }

    #[test]
    fn the_figures_of_spec_8_follow_the_tokens_chip() {
        let chip = |id: &'static str| Chip {
            id,
            text: id.into(),
            title: String::new(),
        };
        let card = CardView {
            chips: vec![chip("duration"), chip("tokens"), chip("model")],
            tokens_with_nested: Some(chip("nested-tokens")),
            isolation: Some(chip("returned")),
            ..CardView::default()
        };
        let row: Vec<(&str, bool)> = card.meta_row().iter().map(|(c, d)| (c.id, *d)).collect();
        assert_eq!(
            row,
            [
                ("duration", false),
                ("tokens", false),
                ("nested-tokens", true),
                ("returned", true),
                ("model", false)
            ]
        );
    }

    #[test]
    fn status_word_is_failed_or_cancelled_and_nothing_otherwise() {
        assert_eq!(status_word(RunState::Failed), Some("failed"));
        assert_eq!(status_word(RunState::Cancelled), Some("cancelled"));
        for s in [RunState::Running, RunState::Complete, RunState::Settled] {
            assert_eq!(status_word(s), None);
        }
    }

    #[test]
    fn type_label_falls_back_to_fork_then_subagent() {
        let mut sa = SubagentTask {
            subagent_type: "code-reviewer".into(),
            ..SubagentTask::default()
        };
        assert_eq!(type_label(&sa), "code-reviewer");
        sa.subagent_type.clear();
        assert_eq!(type_label(&sa), "subagent");
        sa.is_fork = true;
        assert_eq!(type_label(&sa), "fork");
    }

    fn message(v: serde_json::Value) -> Message {
        Message::from_value(&v).unwrap()
    }

    #[test]
    fn every_tool_derived_child_counts_once_whatever_it_renders_as() {
        let children = [
            message(
                serde_json::json!({"id": "r", "type": "tool_read", "metadata": {"tool_call_id": "t1"}}),
            ),
            message(
                serde_json::json!({"id": "todo", "type": "todo", "metadata": {"tool_call_id": "t2"}}),
            ),
            message(
                serde_json::json!({"id": "perm", "type": "permission_request", "metadata": {"tool_call_id": "t3"}}),
            ),
            message(
                serde_json::json!({"id": "sa", "type": "tool_call", "metadata": {"tool_call_id": "t4",
                "normalized": {"kind": "subagent_task", "subagent_task": {}}}}),
            ),
            // A permission request for a call already shown counts with it.
            message(
                serde_json::json!({"id": "perm-r", "type": "permission_request", "metadata": {"tool_call_id": "t1"}}),
            ),
            // A tool row without an id still counts; thinking and text never do.
            message(serde_json::json!({"id": "x", "type": "tool_execute"})),
            message(serde_json::json!({"id": "th", "type": "thinking"})),
            message(serde_json::json!({"id": "txt", "type": "message", "content": "done"})),
            message(serde_json::json!({"id": "plan", "type": "todo"})),
        ];
        assert_eq!(tool_derived_count(children.iter()), 5);
    }
}
