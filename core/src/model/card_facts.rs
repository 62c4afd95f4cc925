//! What a task's card on a board taskview makes says of its session
//! (docs/behaviour.md §5): agent, model, project, last activity, subagents
//! in all, a wait on the user, and what it spent, its own and with its
//! subagents. taskview's own field of a task (`session_facts`), omitted when
//! unknown so kandev's client is unaffected, computed by the server from the
//! session's records (`read::import::card_facts`) and kept whole by a store.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Nano-dollars in one US dollar: money is counted in whole nano-dollars,
/// so sums and differences are exact.
pub const NANOS_PER_USD: f64 = 1e9;

/// What a session or part of it spent: its tokens and their cost, with how
/// the cost is known and what of it is missing. Money in the JSON is USD.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct Spend {
    /// Every token of the requests whose usage is known.
    pub tokens: u64,
    /// The cost known: recorded by the agent, or priced from the table.
    #[serde(rename = "usd", with = "usd")]
    pub nanos: u64,
    /// Some of the cost was priced from the table, not recorded by the agent.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
    /// Requests whose final usage was never written (claude-code#84223), so
    /// `tokens` and the cost are lower bounds.
    #[serde(skip_serializing_if = "is_zero")]
    pub missing: u64,
    /// Tokens of models the table has no price for, left out of the cost.
    #[serde(skip_serializing_if = "is_zero")]
    pub unpriced_tokens: u64,
    /// Parts known to have spent something of which no usage was recorded
    /// (a subagent that ran and wrote no usage), so the figures are lower bounds.
    #[serde(skip_serializing_if = "is_zero")]
    pub unknown_parts: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Money as USD in the JSON, nano-dollars in memory.
mod usd {
    use super::*;

    pub fn serialize<S: Serializer>(nanos: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64((*nanos as f64 / NANOS_PER_USD * 1e6).round() / 1e6)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let usd = f64::deserialize(d).unwrap_or(0.0);
        Ok(if usd.is_finite() && usd > 0.0 {
            (usd * NANOS_PER_USD).round() as u64
        } else {
            0
        })
    }
}

impl Spend {
    /// Nothing spent that is known of.
    pub fn is_empty(&self) -> bool {
        self.tokens == 0 && self.nanos == 0 && !self.is_partial()
    }

    /// Some usage or price is missing: the figures are lower bounds.
    pub fn is_partial(&self) -> bool {
        self.missing > 0 || self.unpriced_tokens > 0 || self.unknown_parts > 0
    }

    /// The cost in USD.
    pub fn usd(&self) -> f64 {
        self.nanos as f64 / NANOS_PER_USD
    }

    /// This and `other` together.
    pub fn plus(&self, other: &Spend) -> Spend {
        Spend {
            tokens: self.tokens + other.tokens,
            nanos: self.nanos + other.nanos,
            estimated: self.estimated || other.estimated,
            missing: self.missing + other.missing,
            unpriced_tokens: self.unpriced_tokens + other.unpriced_tokens,
            unknown_parts: self.unknown_parts + other.unknown_parts,
        }
    }
}

/// A span of time an agent or subagent of the session ran, in ms since the
/// epoch (`end` `None`: running), for the board's Activity strip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Run {
    pub start: i64,
    pub end: Option<i64>,
}

/// The card facts of a session. Every field is optional: a source says what
/// it knows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionFacts {
    /// The agent that wrote the session (`Claude Code`, `Codex`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The model of its newest request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The folder the agent worked in, as its records name it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Its newest record's time (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_activity_at: Option<String>,
    /// Subagents it launched in all (running or not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagents_total: Option<u64>,
    /// Its agent stopped mid-turn (killed, crashed): its records say it was
    /// working and nobody has written them for the source's idle threshold
    /// (docs/behaviour.md §8).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The agent waits on the user: `permission` or `answer`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<String>,
    /// What the session's own agent spent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spend: Option<Spend>,
    /// What it spent with its subagents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spend_with_subagents: Option<Spend>,
    /// Where the prices of an estimate come from: `genai-prices 0.2.5, 2026-12-07`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pricing: Option<String>,
    /// When it and its subagents ran (for the Activity strip).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<Run>,
}

impl SessionFacts {
    /// Reads the facts leniently: what does not read is left unknown.
    pub fn from_value(v: &serde_json::Value) -> SessionFacts {
        serde_json::from_value(v.clone()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn money_is_usd_in_the_json_and_exact_in_memory() {
        let spend = Spend {
            tokens: 57_884,
            nanos: 245_440_000,
            estimated: true,
            ..Spend::default()
        };
        let v = serde_json::to_value(&spend).unwrap();
        assert_eq!(
            v,
            json!({"tokens": 57884, "usd": 0.24544, "estimated": true})
        );
        let back: Spend = serde_json::from_value(v).unwrap();
        assert_eq!(back, spend);
        assert!((back.usd() - 0.24544).abs() < 1e-12);
    }

    #[test]
    fn unknown_fields_are_omitted_and_unreadable_ones_left_unknown() {
        let empty = serde_json::to_value(SessionFacts::default()).unwrap();
        assert_eq!(empty, json!({}));
        let read = SessionFacts::from_value(&json!({"agent": 3, "model": "m"}));
        assert_eq!(
            read,
            SessionFacts::default(),
            "a wrong type reads as nothing"
        );
        let read = SessionFacts::from_value(&json!({"model": "m", "extra": 1}));
        assert_eq!(read.model.as_deref(), Some("m"));
    }

    #[test]
    fn a_sum_is_partial_when_any_part_is() {
        let whole = Spend {
            tokens: 10,
            nanos: 5,
            ..Spend::default()
        };
        let missing = Spend {
            missing: 1,
            ..Spend::default()
        };
        assert!(!whole.is_partial());
        assert!(whole.plus(&missing).is_partial());
        assert_eq!(whole.plus(&missing).nanos, 5);
        assert!(Spend::default().is_empty());
        assert!(!missing.is_empty());
    }
}
