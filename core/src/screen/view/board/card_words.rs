//! The words of a card on a board taskview makes itself (docs/behaviour.md
//! §5): agent and model, project, machine and person, the age of its last
//! activity, subagents running of the total, tokens, and an honest cost
//! (its own and with its subagents; `≈` an estimate from the price table,
//! `≥` a lower bound, `cost incomplete` when nothing could be priced), with
//! the table's source and date in the cost's title.

use super::by_state::{column_of, last_activity_ms, stop_reason, waits_for, StateColumn};
use super::filter::project_name;
use crate::model::board::Task;
use crate::model::card_facts::Spend;
use crate::screen::view::format::{
    abbreviate, age, count_label, format_tokens, format_tokens_exact, group_thousands,
};

/// Subagents running of the total.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SubagentWords {
    /// `2 of 14`, or `14` when none runs.
    pub text: String,
    /// `2 of 14 subagents running` / `14 subagents, none running`.
    pub label: String,
    pub running: u64,
}

/// A text with its longer title.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Titled {
    pub text: String,
    pub title: String,
}

/// The cost words: the figures, and how they are known.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CostWords {
    /// `≈ $0.11 · ≈ $0.25 with subagents`.
    pub text: String,
    /// Each figure's basis, what is missing, and the price table's source and date.
    pub title: String,
    /// Some figure is a lower bound or could not be priced.
    pub partial: bool,
    /// Some figure is an estimate from the price table.
    pub estimated: bool,
}

/// One card, as words.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StateCard {
    pub task_id: String,
    pub title: String,
    pub column: StateColumn,
    /// What holds it back: `waits for permission`, `stalled`, `interrupted`, `failed`.
    pub status: Option<String>,
    /// `Claude Code · claude-opus-5-5`.
    pub agent: Option<String>,
    /// The folder's name, its path in the title.
    pub project: Option<Titled>,
    /// `m1 · ada`: the machine and person, where known.
    pub who: Option<String>,
    /// `2 min ago`, the time itself in the title.
    pub age: Option<Titled>,
    pub subagents: Option<SubagentWords>,
    /// `25.6k tokens · 57.9k with subagents`, exact in the title.
    pub tokens: Option<Titled>,
    pub cost: Option<CostWords>,
}

/// `$0.25`, `$12.40`; below a cent, three decimals (`$0.004`).
pub fn dollars(nanos: u64) -> String {
    let usd = nanos as f64 / 1e9;
    if usd > 0.0 && usd < 0.01 {
        format!("${usd:.3}")
    } else {
        format!("${usd:.2}")
    }
}

/// One spend's figure: `$0.25` recorded, `≈ $0.25` estimated, `≥ $0.25`
/// a lower bound, `cost incomplete` when some usage is missing or unpriced
/// and nothing was priced; `None` when nothing is known of it.
pub fn cost_figure(spend: &Spend) -> Option<String> {
    if spend.is_empty() {
        return None;
    }
    Some(match (spend.is_partial(), spend.estimated) {
        (true, _) if spend.nanos == 0 => "cost incomplete".to_string(),
        (true, _) => format!("≥ {}", dollars(spend.nanos)),
        (false, true) => format!("≈ {}", dollars(spend.nanos)),
        (false, false) => dollars(spend.nanos),
    })
}

/// What a spend's title says of it: how it is known and what it misses.
fn spend_note(what: &str, spend: &Spend, pricing: Option<&str>) -> String {
    let mut note = format!("{what}: {}", dollars(spend.nanos));
    note.push_str(match (spend.estimated, spend.nanos) {
        (_, 0) => "",
        (true, _) => match pricing {
            Some(_) => " estimated from the price table",
            None => " estimated",
        },
        (false, _) => " as the agent recorded it",
    });
    let mut missing = Vec::new();
    if spend.missing > 0 {
        let requests = count_label(spend.missing, "request", "requests");
        missing.push(format!("{requests} never wrote their final usage"));
    }
    if spend.unknown_parts > 0 {
        let parts = count_label(spend.unknown_parts, "part", "parts");
        missing.push(format!("{parts} ran with no usage recorded"));
    }
    if spend.unpriced_tokens > 0 {
        let tokens = group_thousands(spend.unpriced_tokens);
        missing.push(format!("{tokens} tokens of models with no price"));
    }
    if !missing.is_empty() {
        note.push_str(&format!(" (at least: {})", missing.join("; ")));
    }
    note
}

/// The cost words of a task's facts.
fn cost_words(task: &Task) -> Option<CostWords> {
    let facts = task.facts.as_ref()?;
    let own = facts.spend.as_ref().filter(|s| !s.is_empty());
    let with = facts
        .spend_with_subagents
        .as_ref()
        .filter(|s| !s.is_empty());
    let has_subagents = facts.subagents_total.is_some_and(|n| n > 0) || own.is_none();
    let with = with.filter(|w| has_subagents && Some(*w) != own);
    let mut parts = Vec::new();
    let mut notes = Vec::new();
    let pricing = facts.pricing.as_deref();
    if let Some(own) = own {
        parts.push(cost_figure(own)?);
        notes.push(spend_note("Own", own, pricing));
    }
    if let Some(with) = with {
        parts.push(format!("{} with subagents", cost_figure(with)?));
        notes.push(spend_note("With subagents", with, pricing));
    }
    if parts.is_empty() {
        return None;
    }
    let spends = [own, with];
    let spends = spends.iter().flatten();
    let estimated = spends.clone().any(|s| s.estimated);
    if let Some(pricing) = pricing.filter(|_| estimated) {
        notes.push(format!("Prices: {pricing} (USD per million tokens)"));
    }
    Some(CostWords {
        text: parts.join(" · "),
        title: notes.join("\n"),
        partial: spends.clone().any(|s| s.is_partial()),
        estimated,
    })
}

/// The tokens words: own, and with subagents where they differ.
fn tokens_words(task: &Task) -> Option<Titled> {
    let facts = task.facts.as_ref()?;
    let own = facts.spend.as_ref().map(|s| s.tokens).filter(|t| *t > 0);
    let with = facts
        .spend_with_subagents
        .as_ref()
        .map(|s| s.tokens)
        .filter(|t| *t > 0 && Some(*t) != own);
    let (text, title) = match (own, with) {
        (Some(o), Some(w)) => (
            format!("{} · {} with subagents", format_tokens(o), abbreviate(w)),
            format!(
                "{} · {} with subagents",
                format_tokens_exact(o),
                group_thousands(w)
            ),
        ),
        (Some(o), None) => (format_tokens(o), format_tokens_exact(o)),
        (None, Some(w)) => (
            format!("{} with subagents", format_tokens(w)),
            format!("{} with subagents", format_tokens_exact(w)),
        ),
        (None, None) => return None,
    };
    Some(Titled { text, title })
}

/// Subagents running of the total (`active_subagent_count` of `subagents_total`).
fn subagent_words(task: &Task) -> Option<SubagentWords> {
    let running = task.active_subagent_count.unwrap_or(0);
    let total = task
        .facts
        .as_ref()
        .and_then(|f| f.subagents_total)
        .unwrap_or(0)
        .max(running);
    if total == 0 {
        return None;
    }
    let all = count_label(total, "subagent", "subagents");
    Some(if running == 0 {
        SubagentWords {
            text: total.to_string(),
            label: format!("{all}, none running"),
            running,
        }
    } else {
        SubagentWords {
            text: format!("{running} of {total}"),
            label: format!("{running} of {all} running"),
            running,
        }
    })
}

/// The words of `task`'s card at `now_ms`.
pub fn state_card(task: &Task, now_ms: i64) -> StateCard {
    let facts = task.facts.as_ref();
    let agent = facts.and_then(|f| match (&f.agent, &f.model) {
        (Some(a), Some(m)) => Some(format!("{a} · {m}")),
        (a, m) => a.clone().or_else(|| m.clone()),
    });
    let project = facts.and_then(|f| f.project.as_deref()).map(|p| Titled {
        text: project_name(p).to_string(),
        title: p.to_string(),
    });
    let who = [task.machine.as_deref(), task.person.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
    let age = last_activity_ms(task).map(|ms| Titled {
        text: age(now_ms.saturating_sub(ms) as f64),
        title: format!(
            "Last activity {}",
            facts
                .and_then(|f| f.last_activity_at.clone())
                .unwrap_or_default()
        ),
    });
    let status = waits_for(task)
        .map(|w| format!("waits for {}", w.replace('_', " ")))
        .or_else(|| stop_reason(task, now_ms).map(str::to_string));
    StateCard {
        task_id: task.id.clone(),
        title: task.title.clone(),
        column: column_of(task, now_ms),
        status,
        agent,
        project,
        who: (!who.is_empty()).then_some(who),
        age,
        subagents: subagent_words(task),
        tokens: tokens_words(task),
        cost: cost_words(task),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::TaskPatch;
    use serde_json::json;

    fn card(v: serde_json::Value) -> StateCard {
        let task = TaskPatch::from_value(&v).unwrap().to_task();
        state_card(&task, 1_796_532_900_000)
    }

    #[test]
    fn a_card_reads_agent_model_project_who_age_and_subagents() {
        let c = card(json!({"id": "t", "title": "Review", "state": "IN_PROGRESS",
            "active_subagent_count": 2, "machine": "m1", "person": "ada",
            "session_facts": {"agent": "Claude Code", "model": "claude-opus-5-5",
                "project": "/tmp/w/parser-kit", "subagents_total": 14,
                "last_activity_at": "2026-12-06T04:53:00Z"}}));
        assert_eq!(c.agent.as_deref(), Some("Claude Code · claude-opus-5-5"));
        assert_eq!(c.project.as_ref().unwrap().text, "parser-kit");
        assert_eq!(c.project.unwrap().title, "/tmp/w/parser-kit");
        assert_eq!(c.who.as_deref(), Some("m1 · ada"));
        assert_eq!(c.age.unwrap().text, "2 min ago");
        let subagents = c.subagents.unwrap();
        assert_eq!(
            (subagents.text.as_str(), subagents.label.as_str()),
            ("2 of 14", "2 of 14 subagents running")
        );
        let idle = card(json!({"id": "t", "session_facts": {"subagents_total": 1}}));
        assert_eq!(idle.subagents.unwrap().label, "1 subagent, none running");
        assert!(card(json!({"id": "t"})).subagents.is_none());
    }

    #[test]
    fn a_cost_says_how_it_is_known() {
        let spend = |v: serde_json::Value| serde_json::from_value::<Spend>(v).unwrap();
        let figure = |v| cost_figure(&spend(v));
        assert_eq!(
            figure(json!({"tokens": 10, "usd": 0.24544})),
            Some("$0.25".into())
        );
        assert_eq!(
            figure(json!({"tokens": 10, "usd": 0.24544, "estimated": true})),
            Some("≈ $0.25".into())
        );
        assert_eq!(
            figure(json!({"tokens": 10, "usd": 1.2, "estimated": true, "missing": 1})),
            Some("≥ $1.20".into())
        );
        assert_eq!(
            figure(json!({"tokens": 10, "unpriced_tokens": 10})),
            Some("cost incomplete".into())
        );
        assert_eq!(
            figure(json!({"tokens": 10, "usd": 0.004})),
            Some("$0.004".into())
        );
        assert_eq!(figure(json!({})), None);
    }

    #[test]
    fn own_and_with_subagents_with_the_price_tables_source_in_the_title() {
        let c = card(json!({"id": "t", "session_facts": {"subagents_total": 4,
            "pricing": "genai-prices 0.2.5, 2026-12-07",
            "spend": {"tokens": 25572, "usd": 0.10808, "estimated": true},
            "spend_with_subagents": {"tokens": 57884, "usd": 0.24544, "estimated": true,
                "unknown_parts": 1}}}));
        let cost = c.cost.unwrap();
        assert_eq!(cost.text, "≈ $0.11 · ≥ $0.25 with subagents");
        assert!(cost.partial && cost.estimated);
        assert!(
            cost.title
                .contains("Prices: genai-prices 0.2.5, 2026-12-07"),
            "{}",
            cost.title
        );
        assert!(
            cost.title.contains("1 part ran with no usage recorded"),
            "{}",
            cost.title
        );
        assert_eq!(
            c.tokens.unwrap().text,
            "25.6k tokens · 57.9k with subagents"
        );
        // A recorded running cost that is not split: with subagents alone.
        let acp = card(json!({"id": "t", "session_facts": {"subagents_total": 3,
            "spend_with_subagents": {"usd": 0.159472}}}));
        assert_eq!(acp.cost.unwrap().text, "$0.16 with subagents");
        assert!(acp.tokens.is_none());
    }

    #[test]
    fn what_holds_a_card_back_is_said_in_words() {
        let waiting = card(json!({"id": "t", "session_facts": {"waiting_for": "permission"}}));
        assert_eq!(
            (waiting.column, waiting.status.as_deref()),
            (StateColumn::NeedsYou, Some("waits for permission"))
        );
        let interrupted = card(json!({"id": "t", "session_facts": {"interrupted": true}}));
        assert_eq!(interrupted.status.as_deref(), Some("interrupted"));
    }
}
