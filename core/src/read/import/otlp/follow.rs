//! A telemetry file followed by its new lines (docs/behaviour.md §7 "All day, any
//! size"): each line is read once into the card tree ([`super::tree`]) and
//! the counts, and a drain gives the events that bring a store fed with
//! every earlier event up to date: the cards added, changed or gone, the
//! lines that are no telemetry, and the records not shown since. The whole
//! import ([`super::import`]) is this fold drained once, so events of the
//! same bytes fold to the same store however they were cut.

use super::cards::{is_noise, Card};
use super::facts_follow::FactsFollow;
use super::metrics::SessionFacts;
use super::records::{is_record, LogRecord, Span, Telemetry};
use super::tree::Tree;
use super::{card_message, ENDED_AFTER_QUIET_MS};
use crate::model::event::Event;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// The record kinds counted and never shown, as `import` names them.
const NOT_SHOWN: [&str; 4] = [
    "OpenTelemetry spans",
    "OpenTelemetry hook and HTTP client spans",
    "OpenTelemetry log records",
    "OpenTelemetry metrics",
];

/// A telemetry file read so far; see the module docs.
#[derive(Default)]
pub struct Follow {
    tree: Tree,
    /// What only telemetry knows, per agent (`super::metrics`).
    facts: FactsFollow,
    session: SessionOf,
    /// The newest span end or log time, in nanoseconds.
    newest_ns: u64,
    /// Records of each `NOT_SHOWN` kind read, and reported.
    counted: [u64; 4],
    reported: [u64; 4],
    unreadable: Vec<Event>,
    /// The session id and card ids the events so far gave.
    emitted_session: Option<String>,
    emitted: HashSet<String>,
}

/// The candidates for the session id the records carry, best first: a
/// span's `session.id`, a log's, else the GenAI `gen_ai.conversation.id` of
/// a span outside any subagent, of such a log; else `otlp`.
#[derive(Default)]
struct SessionOf {
    from_spans: Option<String>,
    from_logs: Option<String>,
    fallback_spans: Option<String>,
    fallback_logs: Option<String>,
}

impl SessionOf {
    fn look(
        id: &mut Option<String>,
        fallback: &mut Option<String>,
        maps: [&Map<String, Value>; 2],
    ) {
        for map in maps {
            if id.is_none() {
                *id = map
                    .get("session.id")
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
            if fallback.is_none() && !map.contains_key("agent_id") {
                *fallback = map
                    .get("gen_ai.conversation.id")
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
        }
    }

    fn span(&mut self, span: &Span) {
        if self.from_spans.is_none() {
            Self::look(
                &mut self.from_spans,
                &mut self.fallback_spans,
                [&span.attrs, &span.resource],
            );
        }
    }

    fn log(&mut self, log: &LogRecord) {
        if self.from_spans.is_none() && self.from_logs.is_none() {
            Self::look(
                &mut self.from_logs,
                &mut self.fallback_logs,
                [&log.attrs, &log.resource],
            );
        }
    }

    fn id(&self) -> String {
        [
            &self.from_spans,
            &self.from_logs,
            &self.fallback_spans,
            &self.fallback_logs,
        ]
        .into_iter()
        .find_map(Clone::clone)
        .unwrap_or_else(|| "otlp".into())
    }
}

impl Follow {
    /// Reads one line of the file (trimmed, not blank); `told` sees each
    /// telemetry record (what it says of the agent at work).
    pub fn line(&mut self, line: &str, told: &mut dyn FnMut(&Value)) {
        match serde_json::from_str::<Value>(line) {
            Ok(v) if is_record(&v) => {
                told(&v);
                self.record(&v);
            }
            Ok(_) => self.unreadable.push(Event::Unreadable {
                raw: line.to_string(),
                error: "not an OTLP export request".into(),
            }),
            Err(e) => self.unreadable.push(Event::Unreadable {
                raw: line.to_string(),
                error: e.to_string(),
            }),
        }
    }

    pub(super) fn record(&mut self, value: &Value) {
        let mut telemetry = Telemetry::default();
        telemetry.add(value);
        for span in &telemetry.spans {
            self.newest_ns = self.newest_ns.max(span.end_ns);
            self.counted[usize::from(is_noise(span))] += 1;
            self.session.span(span);
            self.tree.add_span(span);
            self.facts.add_span(span);
        }
        for log in &telemetry.logs {
            self.newest_ns = self.newest_ns.max(log.time_ns);
            self.counted[2] += 1;
            self.session.log(log);
            self.tree.add_log(log);
            self.facts.add_log(log);
        }
        self.counted[3] += telemetry.metrics;
    }

    /// The memory the session's cards and tree take, estimated.
    pub fn bytes(&self) -> u64 {
        // A card's message is about a kilobyte.
        self.tree.bytes() + self.facts.bytes() + self.emitted.len() as u64 * 1024
    }

    /// Forgets the spans no card is made of (`Tree::fold`): a session
    /// nobody views keeps its cards, and is read whole again when viewed.
    pub fn fold(&mut self) {
        self.tree.fold();
        self.facts.fold();
    }

    /// What only telemetry knows of the session and of each card (by its
    /// spawning call's id), from every record read.
    pub(super) fn facts(&mut self) -> SessionFacts {
        self.tree.drain();
        let by_call = self
            .tree
            .cards()
            .into_iter()
            .filter_map(|card| Some((card.id, self.facts.of(&card.task.agent_id)?)))
            .collect();
        SessionFacts {
            by_call,
            session: self.facts.session(),
        }
    }

    /// `changed` with each card's telemetry figures, and the cards whose
    /// figures alone changed.
    fn with_facts(
        &mut self,
        mut changed: Vec<(String, Option<Card>)>,
    ) -> Vec<(String, Option<Card>)> {
        let agents = self.facts.take_changed();
        if !agents.is_empty() {
            let listed: HashSet<String> = changed.iter().map(|(id, _)| id.clone()).collect();
            let more = self
                .tree
                .cards()
                .into_iter()
                .filter(|c| agents.contains(&c.task.agent_id) && !listed.contains(&c.id));
            changed.extend(more.map(|c| (c.id.clone(), Some(c))).collect::<Vec<_>>());
        }
        for card in changed.iter_mut().filter_map(|(_, card)| card.as_mut()) {
            card.task.telemetry = self.facts.of(&card.task.agent_id);
        }
        changed
    }

    /// The events of the lines read since the last drain, the session judged
    /// at `now_ms` (`None`: read whole, it has ended; see `import_live`).
    pub fn drain(&mut self, now_ms: Option<u64>) -> Vec<Event> {
        let newest_ms = self.newest_ns / 1_000_000;
        self.tree
            .set_ended(now_ms.is_none_or(|now| newest_ms + ENDED_AFTER_QUIET_MS < now));
        let mut events = std::mem::take(&mut self.unreadable);
        let session = self.session.id();
        let changed: Vec<(String, Option<Card>)> =
            if self.emitted_session.as_ref() != Some(&session) {
                self.tree.drain();
                let gone = self.emitted.iter().map(|id| (id.clone(), None));
                let now: Vec<(String, Option<Card>)> = self
                    .tree
                    .cards()
                    .into_iter()
                    .map(|c| (c.id.clone(), Some(c)))
                    .collect();
                let kept: HashSet<&String> = now.iter().map(|(id, _)| id).collect();
                let gone: Vec<_> = gone.filter(|(id, _)| !kept.contains(id)).collect();
                gone.into_iter().chain(now).collect()
            } else {
                self.tree.drain()
            };
        self.emitted_session = Some(session.clone());
        let changed = self.with_facts(changed);
        for (id, card) in changed {
            let known = self.emitted.contains(&id);
            match card {
                Some(card) => {
                    let message = card_message(&card, &session);
                    events.push(if known {
                        Event::MessageReplaced(message)
                    } else {
                        self.emitted.insert(id);
                        Event::MessageAdded(message)
                    });
                }
                None if known => {
                    self.emitted.remove(&id);
                    events.push(Event::MessageDeleted { id });
                }
                None => {}
            }
        }
        for (i, kind) in NOT_SHOWN.iter().enumerate() {
            let count = self.counted[i] - self.reported[i];
            if count > 0 {
                events.push(Event::NotShown {
                    kind: (*kind).into(),
                    count,
                });
            }
        }
        self.reported = self.counted;
        events
    }
}
