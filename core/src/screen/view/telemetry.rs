//! What only telemetry knows of a subagent (docs/behaviour.md §7 "OpenTelemetry"), as
//! the card's meta row, the roster and the timeline show it: time to first
//! token, waits on the user's permission, retries and cost. Each figure is
//! shown only when the telemetry reported it, so a session without
//! telemetry looks exactly as before.

use super::chips::Chip;
use super::format::{count_label, format_duration};
use crate::model::telemetry::TelemetryFacts;

/// `$1.27`, `$0.023`, `<$0.001`: cents once a dollar is reached, else a
/// tenth of a cent.
pub fn format_cost(micro_usd: u64) -> String {
    match micro_usd {
        0 => "$0".into(),
        1..=499 => "<$0.001".into(),
        n if n < 999_500 => format!("${:.3}", n as f64 / 1e6),
        n => format!("${:.2}", n as f64 / 1e6),
    }
}

/// The figures' chips, in order: `ttft`, `waits`, `retries`, `cost`; none
/// without telemetry.
pub fn telemetry_chips(facts: Option<&TelemetryFacts>) -> Vec<Chip> {
    let Some(facts) = facts else {
        return Vec::new();
    };
    let mut chips = Vec::new();
    if let Some(ttft) = facts.ttft_ms {
        chips.push(Chip {
            id: "ttft",
            text: format!("TTFT {}", format_duration(ttft)),
            title: format!(
                "time to first token: {ttft} ms, the mean of {}",
                count_label(facts.requests, "model request", "model requests")
            ),
        });
    }
    if facts.permission_waits > 0 {
        let waits = count_label(
            facts.permission_waits,
            "permission wait",
            "permission waits",
        );
        chips.push(Chip {
            id: "waits",
            text: format!("{waits} · {}", format_duration(facts.blocked_ms)),
            title: format!(
                "{waits} on the user, {} ms blocked in all",
                facts.blocked_ms
            ),
        });
    }
    if facts.retries > 0 {
        chips.push(Chip {
            id: "retries",
            text: count_label(facts.retries, "retry", "retries"),
            title: "model requests sent again after a failed attempt".into(),
        });
    }
    if let Some(micro) = facts.cost_micro_usd {
        chips.push(Chip {
            id: "cost",
            text: format_cost(micro),
            title: format!("cost reported by telemetry: ${:.6}", micro as f64 / 1e6),
        });
    }
    chips
}

/// The figures on one line (`TTFT 674ms · 1 retry · $0.023`), for the
/// roster and a timeline bar's title; `None` without telemetry.
pub fn telemetry_text(facts: Option<&TelemetryFacts>) -> Option<String> {
    let chips = telemetry_chips(facts);
    (!chips.is_empty()).then(|| {
        chips
            .iter()
            .map(|c| c.text.as_str())
            .collect::<Vec<_>>()
            .join(" · ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> TelemetryFacts {
        TelemetryFacts {
            requests: 3,
            ttft_ms: Some(674),
            permission_waits: 2,
            blocked_ms: 14_200,
            retries: 1,
            cost_micro_usd: Some(22_736),
        }
    }

    #[test]
    fn telemetry_figures_show_as_chips_in_order_and_only_when_reported() {
        let chips = telemetry_chips(Some(&facts()));
        let texts: Vec<(&str, &str)> = chips.iter().map(|c| (c.id, c.text.as_str())).collect();
        assert_eq!(
            texts,
            [
                ("ttft", "TTFT 674ms"),
                ("waits", "2 permission waits · 14.2s"),
                ("retries", "1 retry"),
                ("cost", "$0.023"),
            ]
        );
        assert!(chips[0].title.contains("mean of 3 model requests"));
        assert!(telemetry_chips(None).is_empty());
        let cost_only = TelemetryFacts {
            cost_micro_usd: Some(1_270_000),
            ..TelemetryFacts::default()
        };
        assert_eq!(telemetry_text(Some(&cost_only)).as_deref(), Some("$1.27"));
        assert_eq!(telemetry_text(Some(&TelemetryFacts::default())), None);
        assert_eq!(
            telemetry_text(Some(&facts())).as_deref(),
            Some("TTFT 674ms · 2 permission waits · 14.2s · 1 retry · $0.023")
        );
    }

    #[test]
    fn cost_reads_in_cents_from_a_dollar_and_tenths_of_a_cent_below() {
        assert_eq!(format_cost(0), "$0");
        assert_eq!(format_cost(300), "<$0.001");
        assert_eq!(format_cost(4_200), "$0.004");
        assert_eq!(format_cost(999_999), "$1.00");
        assert_eq!(format_cost(12_345_678), "$12.35");
    }
}
