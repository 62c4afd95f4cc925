//! gitleaks' rule set (`core/vendor/gitleaks`, turned into static data by
//! `core/build.rs`) and how gitleaks applies a rule: the first non-empty
//! capture group (or `secretGroup`) is the secret, which must be more random
//! than the rule's entropy (and hold a digit, for the `generic` rules), and
//! pass the global and the rule's allowlists.
//!
//! Regexes are compiled only when a rule's keyword appears, ASCII-only like
//! Go's RE2 (`\w`, `\s`, `\b` and case folding), on bytes.

use regex::bytes::{Regex, RegexBuilder};
use std::cell::OnceCell;

/// What an allowlist's regexes look at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Target {
    Secret,
    Match,
    Line,
}

/// A gitleaks allowlist: a finding it matches is not a secret.
#[derive(Debug)]
pub(super) struct Allowlist {
    pub target: Target,
    /// `condition = "AND"`: every check it has must hold.
    pub all: bool,
    pub regexes: &'static [&'static str],
    pub stopwords: &'static [&'static str],
    /// It also checks file paths or commits, which a transcript has not.
    pub by_place: bool,
}

/// A gitleaks rule.
#[derive(Debug)]
pub(super) struct Rule {
    pub id: &'static str,
    pub regex: &'static str,
    /// The capture group that is the secret; 0: the first non-empty one.
    pub secret_group: usize,
    /// The Shannon entropy a secret must exceed; 0: none.
    pub entropy: f64,
    /// Lowercase words one of which the text must hold; none: always run.
    pub keywords: &'static [&'static str],
    pub allowlists: &'static [Allowlist],
}

include!(concat!(env!("OUT_DIR"), "/gitleaks_rules.rs"));

/// gitleaks' regexes are RE2: ASCII classes and case folding.
fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(&rust_syntax(pattern))
        .unicode(false)
        .size_limit(1 << 24)
        .build()
}

/// What ends a secret in many of gitleaks' rules: a quote, a space, `;`, an
/// escaped line end or the end of the text.
const PRECISE_END: &str = r#"(?:[\x60'"\s;]|\\[nr]|$)"#;
/// The same read for recall (docs/behaviour.md §9): prose's punctuation ends
/// a secret too (`found these: sk-…, sk-….`).
const RECALL_END: &str = r#"(?:[\x60'"\s;,.:!?)\]}>]|\\[nr]|$)"#;

/// A rule's regex read for recall: a secret may end at punctuation.
pub(super) fn for_recall(pattern: &str) -> String {
    pattern.replace(PRECISE_END, RECALL_END)
}

/// `pattern` (RE2) as Rust's `regex` reads it: RE2 takes a `{` that starts
/// no repetition (`{n}`, `{n,}`, `{n,m}`) as a literal, Rust refuses it.
pub(super) fn rust_syntax(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.char_indices().peekable();
    let mut in_class = false;
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some((_, next)) = chars.next() {
                    out.push(next);
                }
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` first in the class (after a `^`) is a literal.
                if let Some(&(_, '^')) = chars.peek() {
                    out.push('^');
                    chars.next();
                }
                if let Some(&(_, ']')) = chars.peek() {
                    out.push(']');
                    chars.next();
                }
                continue;
            }
            '[' if pattern[at..].starts_with("[:") => {
                let end = pattern[at..]
                    .find(":]")
                    .map_or(pattern.len(), |e| at + e + 2);
                out.push_str(&pattern[at..end]);
                while chars.peek().is_some_and(|&(i, _)| i < end) {
                    chars.next();
                }
                continue;
            }
            ']' if in_class => in_class = false,
            '{' if !in_class && !is_repetition(&pattern[at..]) => {
                out.push_str("\\{");
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// Whether `text` starts with `{n}`, `{n,}` or `{n,m}`.
fn is_repetition(text: &str) -> bool {
    let Some(end) = text.find('}') else {
        return false;
    };
    let inner = &text[1..end];
    let (min, max) = inner.split_once(',').unwrap_or((inner, "0"));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    !min.is_empty() && digits(min) && digits(max)
}

/// An allowlist with its regexes compiled (those that do not compile are
/// left out; `not_compiled` lists them).
struct CompiledAllowlist {
    list: &'static Allowlist,
    regexes: Vec<Regex>,
}

impl CompiledAllowlist {
    fn new(list: &'static Allowlist) -> Self {
        CompiledAllowlist {
            list,
            regexes: list
                .regexes
                .iter()
                .filter_map(|r| compile(r).ok())
                .collect(),
        }
    }

    /// Whether this allowlist lets the finding go.
    fn allows(&self, finding: &Finding) -> bool {
        let list = self.list;
        let target = match list.target {
            Target::Secret => finding.secret,
            Target::Match => finding.matched,
            Target::Line => finding.line,
        };
        let by_regex = self.regexes.iter().any(|r| r.is_match(target));
        let lower = finding.secret.to_ascii_lowercase();
        let by_stopword = list
            .stopwords
            .iter()
            .any(|w| contains(&lower, w.as_bytes()));
        if list.all {
            // A place check never holds for a transcript.
            !list.by_place
                && (list.regexes.is_empty() || by_regex)
                && (list.stopwords.is_empty() || by_stopword)
        } else {
            by_regex || by_stopword
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// What a rule's regex found, as gitleaks judges it.
struct Finding<'a> {
    secret: &'a [u8],
    matched: &'a [u8],
    line: &'a [u8],
}

/// A rule compiled on first use.
struct Compiled {
    regex: Regex,
    allowlists: Vec<CompiledAllowlist>,
}

/// The rule set, compiled lazily.
pub(super) struct RuleSet {
    rules: Vec<OnceCell<Option<Compiled>>>,
    global: OnceCell<CompiledAllowlist>,
}

/// Where a rule found a secret in a text (byte offsets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Hit {
    pub start: usize,
    pub end: usize,
    pub rule: usize,
}

impl RuleSet {
    pub fn new() -> Self {
        RuleSet {
            rules: RULES.iter().map(|_| OnceCell::new()).collect(),
            global: OnceCell::new(),
        }
    }

    /// The secrets rule `index` finds in `text`.
    pub fn find(&self, index: usize, text: &[u8], hits: &mut Vec<Hit>) {
        let rule = &RULES[index];
        let compiled = self.rules[index].get_or_init(|| {
            Some(Compiled {
                regex: compile(&for_recall(rule.regex)).ok()?,
                allowlists: rule.allowlists.iter().map(CompiledAllowlist::new).collect(),
            })
        });
        let Some(compiled) = compiled else { return };
        let global = self.global.get_or_init(|| CompiledAllowlist::new(&GLOBAL));
        for caps in compiled.regex.captures_iter(text) {
            let whole = caps.get(0).expect("group 0");
            let secret = if caps.len() == 1 {
                Some(whole)
            } else if rule.secret_group > 0 {
                caps.get(rule.secret_group)
            } else {
                caps.iter().skip(1).flatten().find(|g| !g.is_empty())
            };
            let Some(secret) = secret else { continue };
            if rule.entropy > 0.0 {
                if entropy(secret.as_bytes()) <= rule.entropy {
                    continue;
                }
                if rule.id.starts_with("generic")
                    && !secret.as_bytes().iter().any(u8::is_ascii_digit)
                {
                    continue;
                }
            }
            let line_start = text[..whole.start()]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |at| at + 1);
            let line_end = text[whole.end()..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(text.len(), |at| whole.end() + at);
            let finding = Finding {
                secret: secret.as_bytes(),
                matched: whole.as_bytes(),
                line: &text[line_start..line_end],
            };
            if global.allows(&finding) || compiled.allowlists.iter().any(|a| a.allows(&finding)) {
                continue;
            }
            hits.push(Hit {
                start: secret.start(),
                end: secret.end(),
                rule: index,
            });
        }
    }
}

/// Shannon entropy in bits per byte, as gitleaks measures a secret.
pub(super) fn entropy(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[usize::from(b)] += 1;
    }
    let len = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / len;
            -p * p.log2()
        })
        .sum()
}

/// The rule's id.
pub(super) fn id(index: usize) -> &'static str {
    RULES[index].id
}

/// Every rule's keywords, by rule index.
pub(super) fn keywords() -> impl Iterator<Item = (usize, &'static str)> {
    RULES
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.keywords.iter().map(move |k| (i, *k)))
}

/// The rules that have no keyword (run on every text).
pub(super) fn without_keywords() -> Vec<usize> {
    (0..RULES.len())
        .filter(|&i| RULES[i].keywords.is_empty())
        .collect()
}

/// How many rules look at text.
pub(super) fn count() -> usize {
    RULES.len()
}

/// The rule and allowlist regexes that Rust's `regex` does not read (RE2
/// syntax it lacks): `(rule id, error)`; those are skipped.
pub fn not_compiled() -> Vec<(&'static str, String)> {
    let mut failed = Vec::new();
    let mut check = |id: &'static str, pattern: &str| {
        if let Err(e) = compile(pattern) {
            failed.push((id, e.to_string()));
        }
    };
    for pattern in GLOBAL.regexes {
        check("(global allowlist)", pattern);
    }
    for rule in RULES {
        check(rule.id, &for_recall(rule.regex));
        for list in rule.allowlists {
            for pattern in list.regexes {
                check(rule.id, pattern);
            }
        }
    }
    failed
}
