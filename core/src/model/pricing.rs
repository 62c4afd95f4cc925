//! Model prices, for a card's cost where an agent recorded none
//! (docs/behaviour.md §5): the table kept in `core/data/pricing.json`
//! (refreshed by `scripts/update-pricing.sh` from genai-prices, its source
//! and date in the file), a model found by the table's match rules, and one
//! request priced with the tier its input reaches.

use serde::Deserialize;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The table as the repository keeps it.
const PRICING_JSON: &str = include_str!("../../data/pricing.json");

/// A price per million tokens, with the cliff tiers of a request's input:
/// past a tier's `start` input tokens, all the request's tokens pay its price.
#[derive(Clone, Debug, PartialEq)]
pub struct Rate {
    pub base: f64,
    pub tiers: Vec<(u64, f64)>,
}

impl Rate {
    /// The price per million tokens of a request of `input` tokens in all.
    pub fn at(&self, input: u64) -> f64 {
        self.tiers
            .iter()
            .filter(|(start, _)| input > *start)
            .map(|(_, price)| *price)
            .next_back()
            .unwrap_or(self.base)
    }
}

/// What one model costs.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelPrices {
    pub id: String,
    pub input: Rate,
    pub output: Rate,
    /// `None`: the table has no cache price; cached tokens then pay `input`.
    pub cache_read: Option<Rate>,
    pub cache_write: Option<Rate>,
}

/// The tokens of one model request, each counted once: `input` is the
/// input not read from or written to a cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Request {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl Request {
    /// Every token of the request.
    pub fn tokens(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }

    /// The request's input tokens in all, which decide its price tier.
    fn whole_input(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }

    /// The tokens added since `earlier` (a running total's step).
    pub fn since(&self, earlier: &Request) -> Request {
        Request {
            input: self.input.saturating_sub(earlier.input),
            output: self.output.saturating_sub(earlier.output),
            cache_read: self.cache_read.saturating_sub(earlier.cache_read),
            cache_write: self.cache_write.saturating_sub(earlier.cache_write),
        }
    }
}

impl ModelPrices {
    /// The request's cost in USD: every kind of token at its rate for the
    /// tier the request's whole input reaches (a cache with no price of its
    /// own pays the input rate: never a figure lower than the table's).
    pub fn cost(&self, r: &Request) -> f64 {
        let at = r.whole_input();
        let per = |rate: &Rate, n: u64| rate.at(at) * n as f64 / 1_000_000.0;
        let cache = |rate: &Option<Rate>| rate.as_ref().unwrap_or(&self.input).clone();
        per(&self.input, r.input)
            + per(&self.output, r.output)
            + per(&cache(&self.cache_read), r.cache_read)
            + per(&cache(&self.cache_write), r.cache_write)
    }
}

/// A match rule of the table: a model name matches it, case aside.
#[derive(Clone, Debug, PartialEq)]
enum Clause {
    Equals(String),
    StartsWith(String),
    EndsWith(String),
    Contains(String),
    Regex(String),
    Not(Box<Clause>),
    Or(Vec<Clause>),
    And(Vec<Clause>),
}

impl Clause {
    fn read(v: &serde_json::Value) -> Option<Clause> {
        let (key, value) = v.as_object()?.iter().next()?;
        let text = || value.as_str().map(str::to_lowercase);
        let list = || {
            value
                .as_array()
                .map(|a| a.iter().filter_map(Clause::read).collect::<Vec<_>>())
        };
        Some(match key.as_str() {
            "equals" => Clause::Equals(text()?),
            "starts_with" => Clause::StartsWith(text()?),
            "ends_with" => Clause::EndsWith(text()?),
            "contains" => Clause::Contains(text()?),
            "regex" => Clause::Regex(value.as_str()?.to_string()),
            "not" => Clause::Not(Box::new(Clause::read(value)?)),
            "or" => Clause::Or(list()?),
            "and" => Clause::And(list()?),
            _ => return None,
        })
    }

    /// Whether `name` (lower-case) matches; a regex that does not compile matches nothing.
    fn matches(&self, name: &str, original: &str) -> bool {
        match self {
            Clause::Equals(s) => name == s,
            Clause::StartsWith(s) => name.starts_with(s.as_str()),
            Clause::EndsWith(s) => name.ends_with(s.as_str()),
            Clause::Contains(s) => name.contains(s.as_str()),
            Clause::Regex(r) => regex_matches(r, original),
            Clause::Not(c) => !c.matches(name, original),
            Clause::Or(cs) => cs.iter().any(|c| c.matches(name, original)),
            Clause::And(cs) => cs.iter().all(|c| c.matches(name, original)),
        }
    }
}

/// The table's regexes, compiled once each.
fn regex_matches(pattern: &str, text: &str) -> bool {
    static COMPILED: OnceLock<Mutex<HashMap<String, Option<regex::Regex>>>> = OnceLock::new();
    let mut compiled = COMPILED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    compiled
        .entry(pattern.to_string())
        .or_insert_with(|| regex::Regex::new(pattern).ok())
        .as_ref()
        .is_some_and(|r| r.is_match(text))
}

/// A provider's models, tried when its rule takes the name (or it has none).
struct Provider {
    rule: Option<Clause>,
    models: Vec<(Clause, ModelPrices)>,
}

/// The price table: its source, its date and its models.
pub struct PriceTable {
    /// `genai-prices 0.2.5`.
    pub source: String,
    /// Where the source can be had.
    pub source_url: String,
    /// The day the table was refreshed (`2026-12-07`).
    pub date: String,
    providers: Vec<Provider>,
}

#[derive(Deserialize)]
struct RawTable {
    source: String,
    source_url: String,
    date: String,
    providers: Vec<RawProvider>,
}

#[derive(Deserialize)]
struct RawProvider {
    #[serde(rename = "match")]
    rule: Option<serde_json::Value>,
    models: Vec<RawModel>,
}

#[derive(Deserialize)]
struct RawModel {
    id: String,
    #[serde(rename = "match")]
    rule: serde_json::Value,
    input: serde_json::Value,
    output: serde_json::Value,
    cache_read: Option<serde_json::Value>,
    cache_write: Option<serde_json::Value>,
}

/// A rate as the table writes it: a number, or `{base, tiers: [{start, price}]}`.
fn rate(v: &serde_json::Value) -> Option<Rate> {
    if let Some(base) = v.as_f64() {
        return Some(Rate {
            base,
            tiers: Vec::new(),
        });
    }
    let tiers = v.get("tiers")?.as_array()?;
    Some(Rate {
        base: v.get("base")?.as_f64()?,
        tiers: tiers
            .iter()
            .filter_map(|t| Some((t.get("start")?.as_u64()?, t.get("price")?.as_f64()?)))
            .collect(),
    })
}

impl RawModel {
    fn read(self) -> Option<(Clause, ModelPrices)> {
        let prices = ModelPrices {
            input: rate(&self.input)?,
            output: rate(&self.output)?,
            cache_read: self.cache_read.as_ref().and_then(rate),
            cache_write: self.cache_write.as_ref().and_then(rate),
            id: self.id,
        };
        Some((Clause::read(&self.rule)?, prices))
    }
}

impl PriceTable {
    /// Reads a table in the repository's format; `None` when it is not one.
    pub fn from_json(text: &str) -> Option<PriceTable> {
        let raw: RawTable = serde_json::from_str(text).ok()?;
        let providers = raw
            .providers
            .into_iter()
            .map(|p| Provider {
                rule: p.rule.as_ref().and_then(Clause::read),
                models: p.models.into_iter().filter_map(RawModel::read).collect(),
            })
            .collect();
        Some(PriceTable {
            source: raw.source,
            source_url: raw.source_url,
            date: raw.date,
            providers,
        })
    }

    /// The repository's table (`core/data/pricing.json`), read once.
    pub fn kept() -> &'static PriceTable {
        static TABLE: OnceLock<PriceTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            PriceTable::from_json(PRICING_JSON).unwrap_or(PriceTable {
                source: "no pricing table".into(),
                source_url: String::new(),
                date: String::new(),
                providers: Vec::new(),
            })
        })
    }

    /// What the table says of where its prices come from: `genai-prices
    /// 0.2.5, 2026-12-07`.
    pub fn label(&self) -> String {
        format!("{}, {}", self.source, self.date)
    }

    /// The prices of `model` (a provider prefix such as `anthropic/` aside),
    /// from the first provider whose rule takes it and that has a model
    /// whose rule does; `None` when the table has no price for it.
    pub fn prices(&self, model: &str) -> Option<&ModelPrices> {
        let bare = model.rsplit('/').next().unwrap_or(model).trim();
        let lower = bare.to_lowercase();
        self.providers
            .iter()
            .filter(|p| p.rule.as_ref().is_none_or(|r| r.matches(&lower, bare)))
            .find_map(|p| {
                p.models
                    .iter()
                    .find(|(rule, _)| rule.matches(&lower, bare))
                    .map(|(_, prices)| prices)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_table_reads_with_its_source_and_date() {
        let table = PriceTable::kept();
        assert!(
            table.source.starts_with("genai-prices "),
            "{}",
            table.source
        );
        assert_eq!(table.date.len(), 10, "{}", table.date);
        assert!(table.source_url.starts_with("https://"));
        assert!(
            table
                .providers
                .iter()
                .map(|p| p.models.len())
                .sum::<usize>()
                > 100
        );
    }

    #[test]
    fn every_regex_of_the_table_compiles() {
        fn regexes(c: &Clause, out: &mut Vec<String>) {
            match c {
                Clause::Regex(r) => out.push(r.clone()),
                Clause::Not(c) => regexes(c, out),
                Clause::Or(cs) | Clause::And(cs) => cs.iter().for_each(|c| regexes(c, out)),
                _ => {}
            }
        }
        let mut all = Vec::new();
        for p in &PriceTable::kept().providers {
            p.rule.iter().for_each(|r| regexes(r, &mut all));
            p.models.iter().for_each(|(r, _)| regexes(r, &mut all));
        }
        assert!(!all.is_empty());
        for r in all {
            assert!(regex::Regex::new(&r).is_ok(), "{r}");
        }
    }

    #[test]
    fn models_the_captured_agents_ran_are_found_by_the_tables_rules() {
        let table = PriceTable::kept();
        let opus = table.prices("claude-opus-5-5").unwrap();
        assert_eq!((opus.input.base, opus.output.base), (4.0, 20.0));
        assert_eq!(table.prices("gpt-5-codex").unwrap().id, "gpt-5");
        assert_eq!(table.prices("gemini-2.5-pro").unwrap().id, "gemini-2.5-pro");
        assert_eq!(
            table.prices("anthropic/claude-opus-5-5").unwrap().id,
            "claude-opus-5-5"
        );
        assert!(table.prices("mock-model").is_none());
        assert!(
            table.prices("gemini-2.5-pro-preview-tts").is_none()
                || table.prices("gemini-2.5-pro-preview-tts").unwrap().id != "gemini-2.5-pro",
            "the negative lookahead, kept as `not`"
        );
    }

    #[test]
    fn a_request_past_a_tier_pays_the_tier_on_all_its_tokens() {
        let gemini = PriceTable::kept().prices("gemini-2.5-pro").unwrap();
        let small = Request {
            input: 100_000,
            output: 1_000,
            ..Request::default()
        };
        let large = Request {
            input: 300_000,
            output: 1_000,
            ..Request::default()
        };
        let approx = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(approx(gemini.cost(&small), 0.1 * 1.25 + 0.001 * 10.0));
        assert!(approx(gemini.cost(&large), 0.3 * 2.5 + 0.001 * 15.0));
    }

    #[test]
    fn cached_tokens_without_a_cache_price_pay_the_input_price() {
        let gpt5 = PriceTable::kept().prices("gpt-5").unwrap();
        assert!(gpt5.cache_write.is_none());
        let r = Request {
            cache_write: 1_000_000,
            ..Request::default()
        };
        assert!((gpt5.cost(&r) - gpt5.input.base).abs() < 1e-9);
    }
}
