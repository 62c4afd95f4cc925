//! Masking secrets in what an export writes (docs/behaviour.md §9 "Export"): key and
//! token shapes, private key blocks and credentials in `KEY=value` lines, as
//! gitleaks' maintained rule set finds them (`rules`, vendored with its
//! licence in `core/vendor/gitleaks`). Each secret becomes
//! `[masked: <rule id>]`, so a reader sees what was there and why it is gone.
//!
//! A transcript is JSON text: each JSON string is decoded, masked and written
//! back (so a secret split by escapes is still found, and the JSON stays
//! valid); the text between strings is masked as it is.

mod rules;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use rules::{Hit, RuleSet};
use std::collections::BTreeMap;

pub use rules::not_compiled;

/// Texts shorter than this hold no secret any rule finds.
const SHORTEST: usize = 8;

/// What was masked: how many secrets, by rule id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Masked {
    pub total: usize,
    pub by_rule: BTreeMap<&'static str, usize>,
}

impl Masked {
    fn add(&mut self, rule: &'static str) {
        self.total += 1;
        *self.by_rule.entry(rule).or_default() += 1;
    }

    /// Adds `other`'s counts to these.
    pub fn merge(&mut self, other: &Masked) {
        self.total += other.total;
        for (rule, n) in &other.by_rule {
            *self.by_rule.entry(rule).or_default() += n;
        }
    }

    /// E.g. `masked 3 secrets (2 generic-api-key, 1 private-key)`, most
    /// frequent rule first.
    pub fn summary(&self) -> String {
        if self.total == 0 {
            return "masked no secrets (none found)".into();
        }
        let mut rules: Vec<(&&str, &usize)> = self.by_rule.iter().collect();
        rules.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let rules: Vec<String> = rules.iter().map(|(id, n)| format!("{n} {id}")).collect();
        format!("masked {} ({})", secrets(self.total), rules.join(", "))
    }
}

/// `1 secret`, `3 secrets`.
pub fn secrets(n: usize) -> String {
    if n == 1 {
        "1 secret".into()
    } else {
        format!("{n} secrets")
    }
}

/// The text that stands for a secret rule `id` found.
pub fn replacement(id: &str) -> String {
    format!("[masked: {id}]")
}

/// gitleaks' rules, ready to mask texts (regexes compiled on first need).
pub struct Masker {
    rules: RuleSet,
    /// Every rule keyword (ASCII case-insensitive), and whose it is.
    keywords: AhoCorasick,
    keyword_rule: Vec<usize>,
    always: Vec<usize>,
}

impl Default for Masker {
    fn default() -> Self {
        Self::new()
    }
}

impl Masker {
    pub fn new() -> Self {
        let (keyword_rule, words): (Vec<usize>, Vec<&str>) = rules::keywords().unzip();
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(words)
            .expect("the rule keywords build a matcher");
        Masker {
            rules: RuleSet::new(),
            keywords,
            keyword_rule,
            always: rules::without_keywords(),
        }
    }

    /// `text` with each secret replaced, counted in `masked`.
    pub fn mask_plain(&self, text: &str, masked: &mut Masked) -> String {
        self.mask_plain_hits(text, masked)
            .unwrap_or_else(|| text.to_string())
    }

    /// The masked text, or `None` when nothing was found.
    fn mask_plain_hits(&self, text: &str, masked: &mut Masked) -> Option<String> {
        if text.len() < SHORTEST {
            return None;
        }
        let bytes = text.as_bytes();
        let mut wanted = vec![false; rules::count()];
        for at in &self.always {
            wanted[*at] = true;
        }
        for found in self.keywords.find_overlapping_iter(bytes) {
            wanted[self.keyword_rule[found.pattern().as_usize()]] = true;
        }
        let mut hits = Vec::new();
        for (rule, _) in wanted.iter().enumerate().filter(|(_, w)| **w) {
            self.rules.find(rule, bytes, &mut hits);
        }
        if hits.is_empty() {
            return None;
        }
        // A secret two rules find is masked once: a specific rule's name
        // before a generic one's, then the first found.
        let generic = |h: &Hit| rules::id(h.rule).starts_with("generic");
        hits.sort_by_key(|h| (generic(h), h.start, usize::MAX - h.end));
        let mut kept: Vec<Hit> = Vec::new();
        for hit in hits {
            if kept
                .iter()
                .all(|k| hit.end <= k.start || k.end <= hit.start)
            {
                kept.push(hit);
            }
        }
        kept.sort_by_key(|h| h.start);
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for hit in kept {
            let (start, end) = char_span(text, hit.start, hit.end);
            if start < at {
                continue;
            }
            let id = rules::id(hit.rule);
            out.push_str(&text[at..start]);
            out.push_str(&replacement(id));
            masked.add(id);
            at = end;
        }
        out.push_str(&text[at..]);
        Some(out)
    }

    /// JSON (or JSON Lines) `text` with the secrets in its strings masked;
    /// text that is not JSON is masked as plain text.
    pub fn mask_json(&self, text: &str, masked: &mut Masked) -> String {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        while let Some(open) = text[at..].find('"').map(|i| at + i) {
            let Some(close) = string_end(text, open) else {
                break;
            };
            out.push_str(&self.mask_plain(&text[at..open], masked));
            let literal = &text[open..=close];
            let inner = &text[open + 1..close];
            if !inner.contains('\\') {
                // Masking only cuts out characters: what is left needs no escape.
                out.push('"');
                out.push_str(&self.mask_plain(inner, masked));
                out.push('"');
            } else {
                match serde_json::from_str::<String>(literal) {
                    Ok(value) => match self.mask_plain_hits(&value, masked) {
                        Some(value) => {
                            out.push_str(&serde_json::to_string(&value).expect("a string"))
                        }
                        None => out.push_str(literal),
                    },
                    Err(_) => out.push_str(&self.mask_plain(literal, masked)),
                }
            }
            at = close + 1;
        }
        out.push_str(&self.mask_plain(&text[at..], masked));
        out
    }
}

/// The closing quote of the JSON string opening at `open`.
fn string_end(text: &str, open: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// `start..end` widened to whole characters.
fn char_span(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

#[cfg(test)]
mod tests;
