//! What only telemetry knows ([`super::metrics`]), kept as records come
//! (`Follow`): each model request, permission wait and cost is counted once
//! to the agent it runs in, and moved when a span that decides whose it is
//! arrives later (spans are sent when they end, children before parents).
//! Once every record is read, each count is the agent's it runs in, whatever
//! order the records came in.

use super::cards::str_attr;
use super::metrics::{number, waited_on_user, Tally};
use super::records::{LogRecord, Span};
use crate::model::telemetry::TelemetryFacts;
use std::collections::{HashMap, HashSet};

/// How deep a chain of parents is followed.
const MAX_DEPTH: usize = 256;

/// What a span tells about the agents of the spans under it.
struct Link {
    parent: String,
    agent_id: String,
    /// The run's id when the span is a `qwen-code.subagent` run.
    qwen_run: Option<String>,
}

/// A request or a wait, counted to `agent` (`None`: the main agent).
struct Counted {
    own_agent: String,
    parent: String,
    agent: Option<String>,
    tally: Tally,
}

/// The figures of a telemetry file followed so far.
#[derive(Default)]
pub(crate) struct FactsFollow {
    links: HashMap<String, Link>,
    counted: Vec<Counted>,
    /// Indexes into `counted` whose chain of parents is not whole yet.
    unsettled: Vec<usize>,
    tallies: HashMap<Option<String>, Tally>,
    /// Agents whose figures changed since the last `take_changed`.
    changed: HashSet<String>,
}

impl FactsFollow {
    /// Reads one span: what it says of the spans under it, and its request
    /// or wait if it is one; counts waiting for it are settled again.
    pub(crate) fn add_span(&mut self, span: &Span) {
        if !span.id.is_empty() {
            let qwen_run = (span.name == "qwen-code.subagent")
                .then(|| str_attr(&span.attrs, "qwen-code.subagent.id").to_string());
            let link = Link {
                parent: span.parent.clone(),
                agent_id: str_attr(&span.attrs, "agent_id").to_string(),
                qwen_run,
            };
            self.links.insert(span.id.clone(), link);
        }
        let mut tally = Tally::default();
        if span.name.ends_with(".llm_request") {
            tally.request(span);
        } else if span.name == "claude_code.tool.blocked_on_user" && waited_on_user(span) {
            tally.wait(span);
        } else {
            self.settle_again();
            return;
        }
        self.counted.push(Counted {
            own_agent: str_attr(&span.attrs, "agent_id").to_string(),
            parent: span.parent.clone(),
            agent: None,
            tally,
        });
        self.tallies.entry(None).or_default().add(&tally);
        self.unsettled.push(self.counted.len() - 1);
        self.settle_again();
    }

    /// Reads one log record: a cost, counted to the agent it names.
    pub(crate) fn add_log(&mut self, log: &LogRecord) {
        if let Some(usd) = number(&log.attrs, "cost_usd") {
            let agent = Some(str_attr(&log.attrs, "agent_id"))
                .filter(|a| !a.is_empty())
                .map(str::to_string);
            self.note_change(&agent);
            self.tallies.entry(agent).or_default().cost(usd);
        }
    }

    /// The figures of the agent `agent_id` (a card's), when it has any.
    pub(crate) fn of(&self, agent_id: &str) -> Option<TelemetryFacts> {
        if agent_id.is_empty() {
            return None;
        }
        let facts = self.tallies.get(&Some(agent_id.to_string()))?.facts();
        (!facts.is_empty()).then_some(facts)
    }

    /// The whole session's figures: the main agent's and every subagent's.
    pub(crate) fn session(&self) -> TelemetryFacts {
        let mut session = Tally::default();
        for tally in self.tallies.values() {
            session.add(tally);
        }
        session.facts()
    }

    /// The agents whose figures changed since the last call.
    pub(crate) fn take_changed(&mut self) -> HashSet<String> {
        std::mem::take(&mut self.changed)
    }

    /// The memory the figures take, estimated.
    pub(crate) fn bytes(&self) -> u64 {
        (self.links.len() * 160 + self.counted.len() * 96) as u64
    }

    /// Forgets what decided the settled counts (a session nobody views:
    /// `Follow::fold`); the figures stay, and a count still waiting for a
    /// parent is settled by what arrives from now on.
    pub(crate) fn fold(&mut self) {
        let waiting: HashSet<usize> = self.unsettled.drain(..).collect();
        let counted = std::mem::take(&mut self.counted).into_iter().enumerate();
        self.counted = counted
            .filter(|(at, _)| waiting.contains(at))
            .map(|(_, c)| c)
            .collect();
        self.unsettled = (0..self.counted.len()).collect();
        self.links = HashMap::new();
    }

    /// Works out again whose each unsettled count is, moving it where its
    /// agent changed; a count whose chain reached its root is settled.
    fn settle_again(&mut self) {
        let mut still = Vec::with_capacity(self.unsettled.len());
        for at in std::mem::take(&mut self.unsettled) {
            let counted = &self.counted[at];
            let (agent, settled) = self.agent_of(&counted.own_agent, &counted.parent);
            if agent != counted.agent {
                let (from, tally) = (counted.agent.clone(), counted.tally);
                self.tallies.entry(from.clone()).or_default().sub(&tally);
                self.tallies.entry(agent.clone()).or_default().add(&tally);
                self.note_change(&from);
                self.note_change(&agent);
                self.counted[at].agent = agent;
            }
            if !settled {
                still.push(at);
            }
        }
        self.unsettled = still;
    }

    /// The agent a record runs in (see [`super::metrics`]), and whether that
    /// is final: false while a parent on its chain has not arrived.
    fn agent_of(&self, own: &str, parent: &str) -> (Option<String>, bool) {
        if !own.is_empty() {
            return (Some(own.to_string()), true);
        }
        let mut at = parent;
        for depth in 0..MAX_DEPTH {
            let Some(up) = self.links.get(at) else {
                return (None, at.is_empty());
            };
            if depth == 0 && !up.agent_id.is_empty() {
                return (Some(up.agent_id.clone()), true);
            }
            if let Some(run) = &up.qwen_run {
                return (Some(run.clone()), true);
            }
            at = up.parent.as_str();
        }
        (None, true)
    }

    fn note_change(&mut self, agent: &Option<String>) {
        if let Some(agent) = agent {
            self.changed.insert(agent.clone());
        }
    }
}
