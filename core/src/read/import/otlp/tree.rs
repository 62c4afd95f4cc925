//! The subagent cards of telemetry kept as its records come (docs/behaviour.md §7
//! "All day, any size"): what each card is made of is folded in once, so a
//! new post costs its own records and the cards they touch, never a pass
//! over everything read. The cards are the same whatever order the records
//! came in (the rules are [`super::cards`]'s).
//!
//! - Claude Code: an agent's spans and `subagent_completed` logs are summed
//!   per `agent_id`; its call is resolved from the `tool.execution` spans
//!   when the card is built, and an agent waits for a spawning span that has
//!   not arrived (spans leave when they end, so children come first).
//! - qwen-code: a run's tokens are its `llm_request` spans' whose nearest
//!   run ancestor it is: each such span walks up the spans known, and waits
//!   where one is missing.
//! - GenAI conventions: an `invoke_agent` card is built from its parent
//!   `execute_tool` span and its nearest carded ancestor, waiting likewise.

use super::cards::{claude_type, is_gen_ai, str_attr, tokens, u64_attr, Card, QWEN_SUBAGENT};
use super::records::{LogRecord, Span};
use crate::model::message::SubagentTask;
use crate::read::import::tool::ToolStatus;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// What a card is built from (also its order among cards of one id).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Source {
    Claude(String),
    Qwen(String),
    GenAi(String),
}

/// One span as the walks up the tree need it.
#[derive(Default)]
struct Node {
    parent: String,
    /// A Claude Code `tool.execution` span's `tool_use_id`.
    claude_call: Option<String>,
    qwen_run: bool,
    gen_ai_invoke: bool,
    /// A GenAI `execute_tool` span's `gen_ai.tool.call.id`.
    gen_ai_call: Option<String>,
}

/// A Claude Code agent's records, summed (split by source, so spans and
/// logs may come in any order).
#[derive(Default)]
struct ClaudeAgent {
    /// The earliest span start, and the parents of the spans that set it, in order.
    span_start: u64,
    chain: Vec<String>,
    end_ns: u64,
    tokens: u64,
    tools: u64,
    failed: bool,
    span_type: String,
    span_model: String,
    span_parent: Option<String>,
    completion: Option<Completion>,
    /// The start the first completion with a duration implies.
    log_start: u64,
    log_type: String,
    log_model: String,
    log_parent: Option<String>,
    /// The spans the completion logs name, in order.
    log_spans: Vec<String>,
}

/// What the last `subagent_completed` log said.
struct Completion {
    duration_ms: Option<u64>,
    total_tokens: Option<u64>,
    tool_use_count: Option<u64>,
    is_async: bool,
}

/// A qwen-code `llm_request` span's tokens on their way up to a run.
struct Walk {
    tokens: u64,
    lookups: u32,
}

/// How many spans a walk up the tree looks at.
const MAX_LOOKUPS: u32 = 256;

/// Estimated bytes of memory per span known, per span kept whole (a run or
/// an `invoke_agent` span with its attributes), per Claude Code agent and
/// per card or waiting walk (`Tree::bytes`).
const NODE_BYTES: u64 = 160;
const SPAN_BYTES: u64 = 1024;
const AGENT_BYTES: u64 = 512;
const ENTRY_BYTES: u64 = 96;

/// The cards of the records added so far; see the module docs.
#[derive(Default)]
pub(crate) struct Tree {
    nodes: HashMap<String, Node>,
    claude: BTreeMap<String, ClaudeAgent>,
    claude_children: HashMap<String, HashSet<String>>,
    qwen_runs: HashMap<String, Span>,
    /// A run's span by its `qwen-code.subagent.id`.
    qwen_by_key: HashMap<String, String>,
    qwen_children: HashMap<String, HashSet<String>>,
    qwen_tokens: HashMap<String, u64>,
    qwen_started: HashMap<String, u64>,
    qwen_results: HashMap<String, (u64, String)>,
    gen_ai: HashMap<String, Span>,
    /// Sources (and qwen-code token walks) waiting for a span to arrive.
    waiting: HashMap<String, HashSet<Source>>,
    walks: HashMap<String, Vec<Walk>>,
    dirty: HashSet<Source>,
    built: HashMap<Source, Card>,
    /// The sources of each card id, by start (then Claude Code, qwen-code,
    /// GenAI): the last one's card is the card.
    by_card: HashMap<String, BTreeSet<(u64, Source)>>,
    /// Card ids whose winning card may have changed since the last drain.
    touched: HashSet<String>,
    ended: bool,
}

impl Tree {
    /// Folds one span in.
    pub(crate) fn add_span(&mut self, span: &Span) {
        if !span.id.is_empty() {
            self.add_node(span);
        }
        let agent_id = str_attr(&span.attrs, "agent_id");
        if !agent_id.is_empty() && span.name.starts_with("claude_code.") {
            self.claude_span(agent_id.to_string(), span);
        }
        if span.name == QWEN_SUBAGENT {
            self.qwen_run(span);
        }
        if span.name == "qwen-code.llm_request" {
            let walk = Walk {
                tokens: tokens(span),
                lookups: 0,
            };
            self.walk(span.parent.clone(), walk);
        }
        if is_gen_ai(span, "invoke_agent") {
            self.gen_ai.insert(span.id.clone(), span.clone());
            self.dirty.insert(Source::GenAi(span.id.clone()));
        }
    }

    /// Folds one log record in.
    pub(crate) fn add_log(&mut self, log: &LogRecord) {
        if log.event.ends_with("subagent_completed") {
            let agent_id = str_attr(&log.attrs, "agent_id");
            if !agent_id.is_empty() {
                self.claude_completion(agent_id.to_string(), log);
            }
        }
        if log.event.ends_with("subagent_execution") {
            if str_attr(&log.attrs, "status") == "started" {
                self.qwen_started.insert(log.span_id.clone(), log.time_ns);
            } else {
                let result = str_attr(&log.attrs, "result").to_string();
                self.qwen_results
                    .insert(log.span_id.clone(), (log.time_ns, result));
            }
            if self.qwen_runs.contains_key(&log.span_id) {
                self.dirty.insert(Source::Qwen(log.span_id.clone()));
            }
        }
    }

    fn add_node(&mut self, span: &Span) {
        let claude_call = str_attr(&span.attrs, "tool_use_id");
        let gen_ai_call = str_attr(&span.attrs, "gen_ai.tool.call.id");
        let node = Node {
            parent: span.parent.clone(),
            claude_call: (span.name == "claude_code.tool.execution" && !claude_call.is_empty())
                .then(|| claude_call.to_string()),
            qwen_run: span.name == QWEN_SUBAGENT,
            gen_ai_invoke: is_gen_ai(span, "invoke_agent"),
            gen_ai_call: (is_gen_ai(span, "execute_tool") && !gen_ai_call.is_empty())
                .then(|| gen_ai_call.to_string()),
        };
        self.nodes.insert(span.id.clone(), node);
        if let Some(sources) = self.waiting.remove(&span.id) {
            self.dirty.extend(sources);
        }
        for walk in self.walks.remove(&span.id).unwrap_or_default() {
            self.walk(span.id.clone(), walk);
        }
    }

    fn claude_span(&mut self, agent_id: String, span: &Span) {
        let agent = self.claude.entry(agent_id.clone()).or_default();
        let earliest = agent.span_start == 0 || span.start_ns < agent.span_start;
        if earliest {
            agent.span_start = span.start_ns;
            agent.chain.push(span.parent.clone());
        }
        agent.end_ns = agent.end_ns.max(span.end_ns);
        let parent = str_attr(&span.attrs, "parent_agent_id");
        if !parent.is_empty() {
            agent.span_parent = Some(parent.to_string());
            self.claude_children
                .entry(parent.to_string())
                .or_default()
                .insert(agent_id.clone());
        }
        if span.name == "claude_code.llm_request" {
            agent.tokens = agent.tokens.saturating_add(tokens(span));
            agent.failed |= span.error;
            if let Some(ty) = claude_type(span) {
                agent.span_type = ty.to_string();
            }
            let model = str_attr(&span.attrs, "model");
            if !model.is_empty() {
                agent.span_model = model.to_string();
            }
        }
        if span.name == "claude_code.tool" {
            agent.tools += 1;
        }
        if earliest && !self.nodes.contains_key(&span.parent) {
            self.wait_for(span.parent.clone(), Source::Claude(agent_id.clone()));
        }
        self.dirty.insert(Source::Claude(agent_id));
    }

    fn claude_completion(&mut self, agent_id: String, log: &LogRecord) {
        let agent = self.claude.entry(agent_id.clone()).or_default();
        let duration = u64_attr(&log.attrs, "duration_ms");
        agent.completion = Some(Completion {
            duration_ms: duration,
            total_tokens: u64_attr(&log.attrs, "total_tokens"),
            tool_use_count: u64_attr(&log.attrs, "total_tool_uses"),
            is_async: log.attrs.get("is_async").is_some_and(|v| v == true),
        });
        for (field, key) in [
            (&mut agent.log_type, "agent_type"),
            (&mut agent.log_model, "final_model"),
        ] {
            let value = str_attr(&log.attrs, key);
            if !value.is_empty() {
                *field = value.to_string();
            }
        }
        if let (Some(d), 0) = (duration, agent.log_start) {
            agent.log_start = log.time_ns.saturating_sub(d * 1_000_000);
        }
        let parent = str_attr(&log.attrs, "parent_agent_id");
        if !parent.is_empty() {
            agent.log_parent = Some(parent.to_string());
            self.claude_children
                .entry(parent.to_string())
                .or_default()
                .insert(agent_id.clone());
        }
        agent.log_spans.push(log.span_id.clone());
        if !self.nodes.contains_key(&log.span_id) {
            self.wait_for(log.span_id.clone(), Source::Claude(agent_id.clone()));
        }
        self.dirty.insert(Source::Claude(agent_id));
    }

    fn qwen_run(&mut self, span: &Span) {
        let key =
            |name: &str| str_attr(&span.attrs, &format!("{QWEN_SUBAGENT}.{name}")).to_string();
        let (own, parent) = (key("id"), key("parent_agent_id"));
        if !parent.is_empty() {
            self.qwen_children
                .entry(parent)
                .or_default()
                .insert(span.id.clone());
        }
        for child in self.qwen_children.get(&own).into_iter().flatten() {
            self.dirty.insert(Source::Qwen(child.clone()));
        }
        self.qwen_by_key.insert(own, span.id.clone());
        self.qwen_runs.insert(span.id.clone(), span.clone());
        self.dirty.insert(Source::Qwen(span.id.clone()));
    }

    /// Carries a qwen-code `llm_request` span's tokens up from `at` to the
    /// nearest run, or leaves them waiting for a span not arrived.
    fn walk(&mut self, mut at: String, mut walk: Walk) {
        while walk.lookups < MAX_LOOKUPS {
            let Some(node) = self.nodes.get(&at) else {
                if !at.is_empty() {
                    self.walks.entry(at).or_default().push(walk);
                }
                return;
            };
            walk.lookups += 1;
            if node.qwen_run {
                let sum = self.qwen_tokens.entry(at.clone()).or_default();
                *sum = sum.saturating_add(walk.tokens);
                self.dirty.insert(Source::Qwen(at));
                return;
            }
            at = node.parent.clone();
        }
    }

    /// The memory the tree takes, estimated from how many things it holds.
    pub(crate) fn bytes(&self) -> u64 {
        let count = |n: usize| n as u64;
        count(self.nodes.len()) * NODE_BYTES
            + count(self.qwen_runs.len() + self.gen_ai.len()) * SPAN_BYTES
            + count(self.claude.len()) * AGENT_BYTES
            + count(self.walks.len() + self.waiting.len() + self.built.len()) * ENTRY_BYTES
    }

    /// Forgets the spans no card is made of (what a session nobody views
    /// needs is its cards): only runs, `invoke_agent` spans and the spawning
    /// spans an agent or card names stay. The cards stay as they are;
    /// records that come later and hang under a forgotten span add to the
    /// cards what they can without it (a qwen-code run's tokens, a GenAI
    /// card's parent may be missed) until the session is read whole again.
    pub(crate) fn fold(&mut self) {
        let agents = self.claude.values();
        let mut named: HashSet<&str> = agents
            .flat_map(|a| a.chain.iter().chain(&a.log_spans))
            .map(String::as_str)
            .collect();
        named.extend(self.gen_ai.values().map(|s| s.parent.as_str()));
        let keep: HashSet<String> = self
            .nodes
            .iter()
            .filter(|(id, n)| n.qwen_run || n.gen_ai_invoke || named.contains(id.as_str()))
            .map(|(id, _)| id.clone())
            .collect();
        self.nodes.retain(|id, _| keep.contains(id));
        self.nodes.shrink_to_fit();
    }

    /// Tells whether the session has ended (a Claude Code subagent with no
    /// completion record then never completed).
    pub(crate) fn set_ended(&mut self, ended: bool) {
        if ended != self.ended {
            self.ended = ended;
            let open = self.claude.iter().filter(|(_, a)| a.completion.is_none());
            let sources: Vec<Source> = open.map(|(id, _)| Source::Claude(id.clone())).collect();
            self.dirty.extend(sources);
        }
    }

    /// Every card now, by start (then id).
    pub(crate) fn cards(&self) -> Vec<Card> {
        let mut cards: Vec<Card> = self
            .by_card
            .values()
            .filter_map(|sources| sources.last())
            .filter_map(|(_, source)| self.built.get(source).cloned())
            .collect();
        cards.sort_by(|a, b| (a.start_ns, &a.id).cmp(&(b.start_ns, &b.id)));
        cards
    }

    /// Rebuilds the cards records changed since the last call; returns, by
    /// start, each card id's card as it is now (`None`: it is gone).
    pub(crate) fn drain(&mut self) -> Vec<(String, Option<Card>)> {
        while !self.dirty.is_empty() {
            let dirty = std::mem::take(&mut self.dirty);
            for source in dirty {
                self.rebuild(source);
            }
        }
        let mut changed: Vec<(String, Option<Card>)> = std::mem::take(&mut self.touched)
            .into_iter()
            .map(|id| {
                let card = self
                    .by_card
                    .get(&id)
                    .and_then(|sources| sources.last())
                    .and_then(|(_, source)| self.built.get(source).cloned());
                (id, card)
            })
            .collect();
        changed.sort_by(|(a, x), (b, y)| {
            let start = |c: &Option<Card>| c.as_ref().map_or(0, |c| c.start_ns);
            (start(x), a).cmp(&(start(y), b))
        });
        changed
    }

    fn rebuild(&mut self, source: Source) {
        let card = match &source {
            Source::Claude(agent) => self.claude_card(agent),
            Source::Qwen(span) => self.qwen_card(span),
            Source::GenAi(span) => self.gen_ai_card(span),
        };
        let before = self.built.get(&source);
        if before == card.as_ref() {
            return;
        }
        let call_changed = before.map(|c| &c.id) != card.as_ref().map(|c| &c.id);
        if let Some(old) = self.built.remove(&source) {
            if let Some(sources) = self.by_card.get_mut(&old.id) {
                sources.remove(&(old.start_ns, source.clone()));
                if sources.is_empty() {
                    self.by_card.remove(&old.id);
                }
            }
            self.touched.insert(old.id);
        }
        if let Some(card) = card {
            self.by_card
                .entry(card.id.clone())
                .or_default()
                .insert((card.start_ns, source.clone()));
            self.touched.insert(card.id.clone());
            self.built.insert(source.clone(), card);
        }
        if let (Source::Claude(agent), true) = (&source, call_changed) {
            let children = self.claude_children.get(agent).into_iter().flatten();
            let children: Vec<Source> = children.map(|c| Source::Claude(c.clone())).collect();
            self.dirty.extend(children);
        }
    }

    /// The call a span runs when it is a Claude Code `tool.execution` span.
    fn claude_call_of_span(&self, span_id: &str) -> Option<String> {
        self.nodes.get(span_id)?.claude_call.clone()
    }

    /// The call that spawned Claude Code agent `agent_id`.
    fn claude_call(&self, agent: &ClaudeAgent) -> Option<String> {
        let mut from_spans = agent.chain.iter().rev();
        from_spans
            .find_map(|parent| self.claude_call_of_span(parent))
            .or_else(|| {
                agent
                    .log_spans
                    .iter()
                    .find_map(|span| self.claude_call_of_span(span))
            })
    }

    fn claude_card(&self, agent_id: &str) -> Option<Card> {
        let agent = self.claude.get(agent_id)?;
        let id = self.claude_call(agent)?;
        let parent = agent
            .log_parent
            .as_ref()
            .or(agent.span_parent.as_ref())
            .and_then(|p| self.claude.get(p))
            .and_then(|p| self.claude_call(p));
        let start_ns = match agent.span_start {
            0 => agent.log_start,
            start => start,
        };
        let pick = |log: &String, span: &String| if log.is_empty() { span } else { log }.clone();
        let mut task = SubagentTask {
            agent_id: agent_id.to_string(),
            subagent_type: pick(&agent.log_type, &agent.span_type),
            model: pick(&agent.log_model, &agent.span_model),
            ..SubagentTask::default()
        };
        if let Some(done) = &agent.completion {
            task.status = "completed".into();
            task.duration_ms = done.duration_ms;
            task.total_tokens = done.total_tokens;
            task.tool_use_count = done.tool_use_count;
            task.is_async = done.is_async;
        }
        task.duration_ms = task
            .duration_ms
            .or(Some(agent.end_ns.saturating_sub(start_ns) / 1_000_000));
        task.total_tokens = task.total_tokens.or(Some(agent.tokens));
        task.tool_use_count = task.tool_use_count.or(Some(agent.tools));
        let status = if agent.completion.is_some() {
            ToolStatus::Complete
        } else if self.ended || agent.failed {
            task.status = "no completion reported".into();
            ToolStatus::Error
        } else {
            task.status = "running".into();
            ToolStatus::InProgress
        };
        Some(Card {
            id,
            parent,
            start_ns,
            status,
            task,
        })
    }

    fn qwen_card(&self, span_id: &str) -> Option<Card> {
        let span = self.qwen_runs.get(span_id)?;
        let key = |span: &Span, name: &str| {
            str_attr(&span.attrs, &format!("{QWEN_SUBAGENT}.{name}")).to_string()
        };
        let call_of = |span: &Span| match key(span, "invoking_request_id") {
            call if call.is_empty() => key(span, "id"),
            call => call,
        };
        let status_word = key(span, "status");
        let parent = Some(key(span, "parent_agent_id"))
            .filter(|p| !p.is_empty())
            .map(|p| {
                let run = self.qwen_by_key.get(&p).and_then(|s| self.qwen_runs.get(s));
                run.map(call_of).unwrap_or(p)
            });
        let mut task = SubagentTask {
            subagent_type: str_attr(&span.attrs, "gen_ai.agent.name").to_string(),
            agent_id: key(span, "id"),
            duration_ms: u64_attr(&span.attrs, &format!("{QWEN_SUBAGENT}.duration_ms"))
                .or(Some(span.end_ns.saturating_sub(span.start_ns) / 1_000_000)),
            total_tokens: self.qwen_tokens.get(span_id).copied(),
            is_async: key(span, "invocation_kind") == "background",
            status: status_word.clone(),
            ..SubagentTask::default()
        };
        if let Some((end, result)) = self.qwen_results.get(span_id) {
            task.result_text = result.clone();
            let start = self.qwen_started.get(span_id).filter(|_| task.is_async);
            if let Some(start) = start {
                task.duration_ms = Some(end.saturating_sub(*start) / 1_000_000);
            }
        }
        let status = ToolStatus::parse(&status_word).unwrap_or(if span.error {
            ToolStatus::Error
        } else if status_word == "aborted" {
            ToolStatus::Cancelled
        } else {
            ToolStatus::Complete
        });
        Some(Card {
            id: call_of(span),
            parent,
            start_ns: span.start_ns,
            status,
            task,
        })
    }

    fn gen_ai_card(&mut self, span_id: &str) -> Option<Card> {
        let span = self.gen_ai.get(span_id)?;
        let (card, missing) = self.gen_ai_tree(span);
        if let Some(missing) = missing {
            self.wait_for(missing, Source::GenAi(span_id.to_string()));
        }
        card
    }

    /// A GenAI card: its call (its parent `execute_tool` span's) and its
    /// nearest carded ancestor's; and a span not arrived yet that would
    /// tell more.
    fn gen_ai_tree(&self, span: &Span) -> (Option<Card>, Option<String>) {
        let call_of = |parent: &str| match self.nodes.get(parent) {
            Some(up) => (up.gen_ai_call.clone(), None),
            None => (None, Some(parent.to_string())),
        };
        let (Some(id), None) = call_of(&span.parent) else {
            return (None, Some(span.parent.clone()));
        };
        let mut parent = None;
        let mut missing = None;
        let mut at = span.parent.as_str();
        for _ in 0..MAX_LOOKUPS {
            let Some(up) = self.nodes.get(at) else {
                missing = Some(at.to_string());
                break;
            };
            if up.gen_ai_invoke {
                let (call, not_yet) = call_of(&up.parent);
                if call.is_some() {
                    parent = call;
                    break;
                }
                missing = missing.or(not_yet);
            }
            at = up.parent.as_str();
        }
        let task = SubagentTask {
            subagent_type: str_attr(&span.attrs, "gen_ai.agent.name").to_string(),
            model: str_attr(&span.attrs, "gen_ai.request.model").to_string(),
            duration_ms: Some(span.end_ns.saturating_sub(span.start_ns) / 1_000_000),
            total_tokens: Some(tokens(span)),
            status: if span.error { "failed" } else { "completed" }.into(),
            ..SubagentTask::default()
        };
        let card = Card {
            id,
            parent,
            start_ns: span.start_ns,
            status: if span.error {
                ToolStatus::Error
            } else {
                ToolStatus::Complete
            },
            task,
        };
        (Some(card), missing)
    }

    /// Builds `source` again when span `id` arrives (never for no span).
    fn wait_for(&mut self, id: String, source: Source) {
        if !id.is_empty() {
            self.waiting.entry(id).or_default().insert(source);
        }
    }
}
