//! What only telemetry knows of an agent's run (docs/behaviour.md §7 "OpenTelemetry"):
//! time to first token, waits on the user's permission, retried model
//! requests and cost. No transcript holds these; a subagent payload carries
//! them under `telemetry` when its session's telemetry arrived.

use serde_json::{Map, Value};

/// One run's telemetry figures; each is what its records said, `None` or
/// zero where they said nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TelemetryFacts {
    /// Model requests that reported a time to first token.
    pub requests: u64,
    /// Their mean time to first token, in milliseconds.
    pub ttft_ms: Option<u64>,
    /// Tool calls that waited for the user's permission.
    pub permission_waits: u64,
    /// The time those waits took together, in milliseconds.
    pub blocked_ms: u64,
    /// Model requests sent again: attempts beyond each request's first.
    pub retries: u64,
    /// What the run's model requests cost, in millionths of a US dollar.
    pub cost_micro_usd: Option<u64>,
}

impl TelemetryFacts {
    /// The cost in US dollars (`cost_usd`), when reported.
    pub fn cost_usd(&self) -> Option<f64> {
        self.cost_micro_usd.map(|m| m as f64 / 1e6)
    }

    /// Whether the records said anything at all.
    pub fn is_empty(&self) -> bool {
        *self == TelemetryFacts::default()
    }

    /// Reads the payload's `telemetry` object leniently; `None` when it
    /// says nothing.
    pub fn from_value(v: &Value) -> Option<TelemetryFacts> {
        let cost = v
            .get("cost_usd")
            .and_then(Value::as_f64)
            .filter(|c| c.is_finite() && *c >= 0.0 && *c < 1e12);
        let facts = TelemetryFacts {
            requests: u64_at(v, "requests").unwrap_or(0),
            ttft_ms: u64_at(v, "ttft_ms"),
            permission_waits: u64_at(v, "permission_waits").unwrap_or(0),
            blocked_ms: u64_at(v, "blocked_ms").unwrap_or(0),
            retries: u64_at(v, "retries").unwrap_or(0),
            cost_micro_usd: cost.map(|c| (c * 1e6).round() as u64),
        };
        (!facts.is_empty()).then_some(facts)
    }

    /// The wire shape: only the figures that were reported.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        for (key, n) in [
            ("requests", self.requests),
            ("permission_waits", self.permission_waits),
            ("blocked_ms", self.blocked_ms),
            ("retries", self.retries),
        ] {
            if n > 0 {
                m.insert(key.into(), Value::from(n));
            }
        }
        if let Some(ttft) = self.ttft_ms {
            m.insert("ttft_ms".into(), Value::from(ttft));
        }
        if let Some(cost) = self.cost_usd() {
            m.insert("cost_usd".into(), Value::from(cost));
        }
        Value::Object(m)
    }
}

/// A non-negative integer field (an integral float too), else `None`.
fn u64_at(v: &Value, key: &str) -> Option<u64> {
    let n = v.get(key)?;
    n.as_u64().or_else(|| {
        n.as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0 && *f < 1.8e19)
            .map(|f| f as u64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn telemetry_facts_round_trip_and_say_nothing_when_absent() {
        let facts = TelemetryFacts {
            requests: 3,
            ttft_ms: Some(412),
            permission_waits: 1,
            blocked_ms: 5200,
            retries: 2,
            cost_micro_usd: Some(22_736),
        };
        let wire = facts.to_value();
        assert_eq!(wire["cost_usd"], json!(0.022736));
        assert_eq!(TelemetryFacts::from_value(&wire), Some(facts));
        assert_eq!(TelemetryFacts::from_value(&json!({})), None);
        let hostile = json!({"cost_usd": -1.0, "ttft_ms": "fast", "retries": 1.5});
        assert_eq!(TelemetryFacts::from_value(&hostile), None);
    }
}
