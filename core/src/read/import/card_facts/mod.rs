//! A session's card facts (docs/behaviour.md §5) kept as its records come:
//! the follower (`follow::Follower`) hands every record of the session and
//! of its subagents' files to a [`Tally`], and the events it drains, so the
//! facts of a growing session cost its new records, and the whole import is
//! the same tally fed once.
//!
//! - Spend: each request's usage as the agent wrote it (`records`), counted
//!   once (a Claude Code reply repeats its usage on every record of it, a
//!   fork's transcript repeats its parent's), priced from the table
//!   (`model::pricing`) where the agent recorded no cost, its own and by
//!   subagent. A request whose final usage never came (no `stop_reason`, the
//!   agent no longer working on it) is counted as missing; a subagent card
//!   with no usage of its own anywhere as an unknown part: both make the
//!   figures lower bounds, never silently low ones.
//! - Subagents in all: the subagent cards of the drained events.
//! - A wait on the user: an ACP `session/request_permission` not answered,
//!   or a Claude Code `AskUserQuestion` call with no answer yet.
//! - Interrupted: the user stopped the newest turn (Codex `turn_aborted`,
//!   Claude Code `[Request interrupted by user…]`).
//! - Runs: the agent's own bursts of records (a quiet of `BURST_GAP_MS`
//!   ends one) and each subagent's run, ended by the Timeline's rules
//!   (`model::timeline`: its reported duration, else when its card was
//!   updated, else its transcript's last record), for the Activity strip.
//! - The agent: the dialect's, or the one a telemetry resource names
//!   (`otlp`).

mod otlp;
mod records;

use crate::model::card_facts::{Run, SessionFacts, Spend};
use crate::model::event::Event;
use crate::model::pricing::{PriceTable, Request};
use crate::model::status::message_run_state;
use crate::model::time::{format_millis, parse_millis, parse_rfc3339};
use crate::model::timeline::settled_at;
use crate::read::import::detect::{detect, Dialect};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A quiet this long between two of the agent's own records ends a run.
const BURST_GAP_MS: i64 = 5 * 60 * 1000;

/// Runs ending this long before the session's newest record are not kept
/// (the Activity strip looks at the last 24 hours).
const RUNS_KEPT_MS: i64 = 24 * 60 * 60 * 1000;

/// One request as counted: the part (`""`: the agent's own, else a
/// subagent's id) it was first seen in, and what it added there.
struct Counted {
    part: String,
    tokens: u64,
    nanos: u64,
    unpriced: u64,
    estimated: bool,
    seq: u64,
    finished: bool,
}

/// What one agent of the session spent.
#[derive(Default)]
struct Part {
    tokens: u64,
    nanos: u64,
    unpriced: u64,
    estimated: bool,
    /// Requests with no final usage yet, by arrival.
    pending: BTreeSet<u64>,
    /// The newest request's arrival.
    newest: u64,
    /// Codex: the thread's running total, whose steps are its requests.
    running_total: Option<Request>,
    /// Requests known to have been made whose usage no record holds (a
    /// compaction's summary).
    unrecorded: u64,
}

/// A subagent card as the drained events show it.
#[derive(Clone)]
struct Card {
    start: Option<i64>,
    /// When it settled, if its message says (`model::timeline::settled_at`).
    end: Option<i64>,
    running: bool,
    /// Its spawning call, which its transcript's records name as their parent.
    call: Option<String>,
    /// It spent tokens of which no usage can be read.
    spent: bool,
}

/// A request as a dialect reads it from a record.
pub(super) struct Usage<'a> {
    /// What dedupes it (a reply's message id), if the dialect has one.
    pub id: Option<&'a str>,
    pub model: &'a str,
    pub request: Request,
    /// Its final usage is written (a Claude Code `stop_reason`).
    pub finished: bool,
    /// The cost the agent recorded for it, in nano-dollars.
    pub recorded: Option<u64>,
}

/// The facts of one session, kept as records and events come.
#[derive(Default)]
pub struct Tally {
    dialect: Option<Dialect>,
    parts: HashMap<String, Part>,
    requests: HashMap<String, Counted>,
    seq: u64,
    model: Option<String>,
    project: Option<String>,
    newest_ms: Option<i64>,
    /// Subagent cards: id → (start, end) in ms when known, and whether
    /// the card reports tokens spent.
    cards: BTreeMap<String, Card>,
    /// The agent's own runs, oldest first.
    bursts: Vec<Run>,
    /// Unanswered requests to the user (ACP): id → what they wait for.
    waits: BTreeMap<String, &'static str>,
    /// The session's whole cost as the agent recorded it (subagents
    /// included), in nano-dollars, and the tokens it reported.
    recorded_total: Option<u64>,
    /// The model each part runs (Codex says it apart from its usage).
    part_models: HashMap<String, String>,
    /// The agent a telemetry resource names.
    agent: Option<String>,
    /// The newest record of each subagent's transcript, by its spawning call.
    children_last: HashMap<String, i64>,
    /// The user stopped the agent's newest turn (docs/behaviour.md §8).
    aborted: bool,
}

/// The agent's name as a card shows it.
pub fn agent_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Kandev => "kandev",
        Dialect::Acp => "ACP agent",
        Dialect::ClaudeCode => "Claude Code",
        Dialect::QwenCode => "qwen-code",
        Dialect::GeminiCli => "Gemini CLI",
        Dialect::Codex => "Codex",
        Dialect::Gadget => "gadget",
        Dialect::Otlp => "telemetry",
        Dialect::Copilot => "Copilot CLI",
        Dialect::OpenCode => "OpenCode",
        Dialect::Kimi => "Kimi Code",
    }
}

impl Tally {
    /// A tally for a session of `dialect`.
    pub fn new(dialect: Dialect) -> Tally {
        Tally {
            dialect: Some(dialect),
            ..Tally::default()
        }
    }

    /// Reads one record of the session (`agent: None`) or of subagent
    /// `agent`'s file.
    pub fn record(&mut self, value: &Value, agent: Option<&str>) {
        if let Some(dialect) = self.dialect {
            records::read(self, dialect, value, agent);
        }
    }

    /// Takes the events drained from the importer: subagent cards and the
    /// times of their transcripts' records.
    pub fn events(&mut self, events: &[Event]) {
        for event in events {
            let m = match event {
                Event::MessageAdded(m) | Event::MessageReplaced(m) => m,
                _ => continue,
            };
            if let Some(parent) = &m.metadata.parent_tool_call_id {
                let at = [&m.created_at, &m.updated_at].map(|t| parse_millis(t));
                if let Some(last) = at.into_iter().flatten().max() {
                    let newest = self.children_last.entry(parent.clone()).or_insert(last);
                    *newest = (*newest).max(last);
                }
            }
            let Some(card) = &m.metadata.subagent else {
                continue;
            };
            let start = parse_millis(&m.created_at);
            let running = message_run_state(m, false).is_running();
            let end = start
                .filter(|_| !running)
                .and_then(|s| settled_at(m, s))
                .map(|(end, _)| end);
            // A subagent that ran but whose transcript is not there: its
            // usage is nowhere (`metadata.transcript_not_loaded`).
            let unread = m.metadata.raw.get("transcript_not_loaded") == Some(&Value::Bool(true));
            let spent = unread && card.total_tokens.is_some_and(|t| t > 0);
            let call = m.metadata.tool_call_id.clone();
            let card = Card {
                start,
                end,
                running,
                call,
                spent,
            };
            self.cards.insert(m.id.clone(), card);
        }
    }

    /// Whether the user stopped the newest turn.
    pub(super) fn aborted(&mut self, aborted: bool) {
        self.aborted = aborted;
    }

    /// The agent a telemetry resource names (`service.name`).
    pub(super) fn saw_agent(&mut self, agent: String) {
        if self.agent.is_none() {
            self.agent = Some(agent);
        }
    }

    /// The session's newest time, from a record's timestamp (RFC 3339).
    pub(super) fn saw_time(&mut self, timestamp: &str, own: bool) {
        if let Some(ns) = parse_rfc3339(timestamp) {
            self.saw_millis((ns / 1_000_000) as i64, own);
        }
    }

    /// The session's newest time, in ms since the epoch; the agent's own
    /// records also make its runs.
    pub(super) fn saw_millis(&mut self, ms: i64, own: bool) {
        self.newest_ms = Some(self.newest_ms.map_or(ms, |n| n.max(ms)));
        if !own {
            return;
        }
        match self.bursts.last_mut() {
            Some(run) if ms - run.end.unwrap_or(run.start) <= BURST_GAP_MS => {
                run.end = Some(run.end.unwrap_or(run.start).max(ms));
            }
            _ => self.bursts.push(Run {
                start: ms,
                end: Some(ms),
            }),
        }
    }

    pub(super) fn saw_model(&mut self, model: &str) {
        if !model.is_empty() && self.model.as_deref() != Some(model) {
            self.model = Some(model.to_string());
        }
    }

    pub(super) fn saw_project(&mut self, cwd: &str) {
        if self.project.is_none() && !cwd.is_empty() {
            self.project = Some(cwd.to_string());
        }
    }

    pub(super) fn wait(&mut self, id: String, what: &'static str) {
        self.waits.insert(id, what);
    }

    pub(super) fn answered(&mut self, id: &str) {
        self.waits.remove(id);
    }

    /// A request of part `agent` was made whose usage no record holds.
    pub(super) fn unrecorded(&mut self, agent: Option<&str>) {
        let part = self
            .parts
            .entry(agent.unwrap_or("").to_string())
            .or_default();
        part.unrecorded += 1;
    }

    pub(super) fn recorded_total(&mut self, nanos: u64) {
        self.recorded_total = Some(nanos);
    }

    /// The model part `agent` runs, as its records said.
    pub(super) fn part_model(&mut self, agent: Option<&str>, model: &str) {
        if agent.is_none() {
            self.saw_model(model);
        }
        let key = agent.unwrap_or("").to_string();
        self.part_models.insert(key, model.to_string());
    }

    /// The model part `agent` runs (empty when not said).
    pub(super) fn model_of(&self, agent: Option<&str>) -> String {
        let key = agent.unwrap_or("");
        self.part_models.get(key).cloned().unwrap_or_default()
    }

    /// Counts a request of part `agent` (the agent's own for `None`).
    pub(super) fn request(&mut self, agent: Option<&str>, usage: Usage) {
        let part_key = agent.unwrap_or("").to_string();
        if !usage.model.is_empty() && agent.is_none() {
            self.saw_model(usage.model);
        }
        if let Some(id) = usage.id {
            match self.requests.get(id) {
                // A fork's transcript repeats its parent's replies: the
                // first file that had it keeps it.
                Some(c) if c.part != part_key => return,
                Some(_) => self.uncount(id),
                None => {}
            }
        }
        self.seq += 1;
        let counted = self.price(part_key, &usage);
        let part = self.parts.entry(counted.part.clone()).or_default();
        part.tokens += counted.tokens;
        part.nanos += counted.nanos;
        part.unpriced += counted.unpriced;
        part.estimated |= counted.estimated;
        part.newest = counted.seq;
        if !counted.finished {
            part.pending.insert(counted.seq);
        }
        let key = usage
            .id
            .map_or_else(|| format!("#{}", self.seq), str::to_string);
        self.requests.insert(key, counted);
    }

    /// What a request adds, priced from the table unless recorded.
    fn price(&self, part: String, usage: &Usage) -> Counted {
        let tokens = usage.request.tokens();
        let priced = PriceTable::kept().prices(usage.model);
        let (nanos, unpriced, estimated) = match (usage.recorded, priced) {
            (Some(recorded), _) => (recorded, 0, false),
            (None, Some(prices)) => {
                let usd = prices.cost(&usage.request);
                ((usd * 1e9).round() as u64, 0, true)
            }
            (None, None) => (0, tokens, false),
        };
        Counted {
            part,
            tokens,
            nanos,
            unpriced,
            estimated,
            seq: self.seq,
            finished: usage.finished,
        }
    }

    /// Takes a request's earlier count back (its usage was written again).
    fn uncount(&mut self, id: &str) {
        let Some(c) = self.requests.remove(id) else {
            return;
        };
        if let Some(part) = self.parts.get_mut(&c.part) {
            part.tokens -= c.tokens;
            part.nanos -= c.nanos;
            part.unpriced -= c.unpriced;
            part.pending.remove(&c.seq);
        }
    }

    /// A Codex thread's running total: its step since the last one is a request.
    pub(super) fn running_total(&mut self, agent: Option<&str>, model: &str, total: Request) {
        let part = self
            .parts
            .entry(agent.unwrap_or("").to_string())
            .or_default();
        let step = total.since(&part.running_total.unwrap_or_default());
        part.running_total = Some(total);
        if step.tokens() > 0 {
            let usage = Usage {
                id: None,
                model,
                request: step,
                finished: true,
                recorded: None,
            };
            self.request(agent, usage);
        }
    }

    /// The model of the newest request, as read so far.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// What one part spent; its newest request still pending is not missing
    /// while the agent `working`.
    fn spend_of(&self, part: &Part, working: bool) -> Spend {
        let still_coming = working && part.pending.contains(&part.newest);
        Spend {
            tokens: part.tokens,
            nanos: part.nanos,
            estimated: part.estimated,
            missing: part.pending.len() as u64 - u64::from(still_coming),
            unpriced_tokens: part.unpriced,
            unknown_parts: part.unrecorded,
        }
    }

    /// The facts as the records so far give them; `working`: the agent is
    /// at work (its newest request may still be writing its usage).
    pub fn facts(&self, working: bool) -> SessionFacts {
        let (spend, spend_with_subagents) = self.spends(working);
        let estimated = spend_with_subagents.as_ref().is_some_and(|s| s.estimated);
        SessionFacts {
            agent: self
                .agent
                .clone()
                .or_else(|| self.dialect.map(|d| agent_name(d).to_string())),
            model: self.model.clone(),
            project: self.project.clone(),
            last_activity_at: self.newest_ms.map(format_millis),
            subagents_total: Some(self.cards.len() as u64),
            interrupted: self.aborted,
            waiting_for: self.waits.values().next().map(|w| w.to_string()),
            spend,
            spend_with_subagents,
            pricing: estimated.then(|| PriceTable::kept().label()),
            runs: self.runs(),
        }
    }

    /// Own and with subagents, when anything is known of them.
    fn spends(&self, working: bool) -> (Option<Spend>, Option<Spend>) {
        if let Some(nanos) = self.recorded_total {
            // The agent's running cost covers its subagents; the tokens its
            // prompts report do not, so none are said.
            let whole = Spend {
                nanos,
                ..Spend::default()
            };
            return (None, Some(whole));
        }
        if self.parts.is_empty() {
            return (None, None);
        }
        let own = self
            .parts
            .get("")
            .map(|p| self.spend_of(p, working))
            .unwrap_or_default();
        let mut with = own.clone();
        for part in self
            .parts
            .iter()
            .filter(|(k, _)| !k.is_empty())
            .map(|(_, p)| p)
        {
            with = with.plus(&self.spend_of(part, working));
        }
        with.unknown_parts += self.cards.values().filter(|c| c.spent).count() as u64;
        (Some(own), Some(with))
    }

    /// The agent's bursts and its subagents' runs that end within a day of
    /// the newest record. A settled run ends as the Timeline says
    /// (`model::timeline`: reported, else updated, else its transcript's
    /// last record); one nothing dates ends where it began; one running
    /// has no end.
    fn runs(&self) -> Vec<Run> {
        let Some(newest) = self.newest_ms else {
            return Vec::new();
        };
        let cards = self.cards.values().filter_map(|card| {
            let start = card.start?;
            let last_record = || {
                let call = card.call.as_ref()?;
                self.children_last.get(call).copied().filter(|l| *l > start)
            };
            let end = (!card.running).then(|| card.end.or_else(last_record).unwrap_or(start));
            Some(Run { start, end })
        });
        self.bursts
            .iter()
            .copied()
            .chain(cards)
            .filter(|r| r.end.is_none_or(|end| end >= newest - RUNS_KEPT_MS))
            .collect()
    }
}

/// The card facts of a session read whole, not followed (a whole document,
/// or a log that rewrites itself: `Follower::needs_reread`): its records and
/// its files' (each file a part of its own, by its path), and the events
/// its import gave.
pub fn whole(text: &str, files: &[(&str, &str)], events: &[Event], working: bool) -> SessionFacts {
    let Some(dialect) = detect(text) else {
        return SessionFacts::default();
    };
    let mut tally = Tally::new(dialect);
    let mut read = |text: &str, agent: Option<&str>| {
        if dialect == Dialect::OpenCode {
            if let Ok(doc) = serde_json::from_str::<Value>(text) {
                records::opencode(&mut tally, &doc, agent);
            }
            return;
        }
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if let Ok(value) = serde_json::from_str::<Value>(line) {
                tally.record(&value, agent);
            }
        }
    };
    read(text, None);
    for (path, body) in files {
        read(body, Some(path));
    }
    tally.events(events);
    tally.facts(working)
}

/// The card facts of OpenCode sessions in the shape of its export, the
/// first the root and the others its subagents' (as the server builds them
/// from OpenCode's SQLite store), with the events their import gave.
pub fn opencode_sessions(sessions: &[Value], events: &[Event], working: bool) -> SessionFacts {
    let mut tally = Tally::new(Dialect::OpenCode);
    for (at, doc) in sessions.iter().enumerate() {
        let id = doc["info"]["id"].as_str().unwrap_or("subagent");
        records::opencode(&mut tally, doc, (at > 0).then_some(id));
    }
    tally.events(events);
    tally.facts(working)
}
