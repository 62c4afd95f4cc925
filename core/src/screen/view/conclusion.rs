//! A subagent's result: its one-line summary and its expanded body
//! (docs/behaviour.md §3.1 item 6, §3.5 item 1).

use crate::screen::link::is_external_link;
use crate::screen::markdown::plain_text;
use serde_json::Value;

/// What the expanded card shows as its result (docs/behaviour.md §3.5).
#[derive(Clone, Debug, PartialEq)]
pub enum ResultBody {
    /// The full `result_text`, to render as safe markdown.
    Markdown(String),
    /// A JSON-object `result_text` (a typed conclusion): its fields in
    /// source order, provenance keys with badges or links.
    Conclusion(Vec<ConclusionField>),
    /// `{"found": false, "reason": …}`: the text `no conclusion: <reason>`.
    NoConclusion(String),
}

/// One field of a typed conclusion (docs/behaviour.md §3.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConclusionField {
    pub key: String,
    /// The value as table text.
    pub value: String,
    /// For a provenance key (`chunk`, `source`, `url`, `file`, ids): the
    /// pointers that make the conclusion checkable, shown instead of `value`.
    pub provenance: Vec<Provenance>,
}

/// One provenance pointer: a badge, or a link when it is an external URL
/// (`http`, `https`, `mailto`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provenance {
    Badge(String),
    Link { text: String, href: String },
}

/// True for a key that points at where a conclusion came from (the isolation
/// pattern's "include provenance in the return"): `chunk`, `source`, `url`,
/// `file`, `path`, `link`, `doc`, `citation`, their plurals, `id`/`ids` and
/// keys ending in `_id`/`Id`/`_ids`/`Ids`.
pub fn is_provenance_key(key: &str) -> bool {
    const NAMES: [&str; 10] = [
        "chunk", "source", "url", "uri", "file", "path", "link", "doc", "citation", "id",
    ];
    let lower = key.to_ascii_lowercase();
    let singular = lower.strip_suffix('s').unwrap_or(&lower);
    NAMES.contains(&singular)
        || ["_id", "_ids", "-id", "-ids"]
            .iter()
            .any(|s| lower.ends_with(s))
        || key.ends_with("Id")
        || key.ends_with("Ids")
}

/// A pointer as shown: one URL that is an external link by
/// [`crate::screen::link`]'s policy is a link, anything else (a chunk id, a path, a
/// `javascript:` URL, words) is badge text.
pub fn provenance_item(text: &str) -> Provenance {
    let t = text.trim();
    if is_external_link(t) && !t.contains(char::is_whitespace) {
        Provenance::Link {
            text: t.to_string(),
            href: t.to_string(),
        }
    } else {
        Provenance::Badge(t.to_string())
    }
}

/// The pointers of a provenance value: a string or number, or an array of them.
fn provenance_of(v: &Value) -> Vec<Provenance> {
    let one = |v: &Value| match v {
        Value::String(s) if !s.trim().is_empty() => Some(provenance_item(s)),
        Value::Number(n) => Some(Provenance::Badge(n.to_string())),
        _ => None,
    };
    match v {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        other => one(other).into_iter().collect(),
    }
}

/// The object of a typed conclusion: `result_text` as a JSON object, or a
/// JSON string holding one (a conclusion serialized twice), unwrapped once.
fn conclusion_object(result_text: &str) -> Option<serde_json::Map<String, Value>> {
    match serde_json::from_str::<Value>(result_text.trim()).ok()? {
        Value::Object(obj) => Some(obj),
        Value::String(inner) => match serde_json::from_str::<Value>(inner.trim()).ok()? {
            Value::Object(obj) => Some(obj),
            _ => None,
        },
        _ => None,
    }
}

/// The result body of `result_text`; `None` when the subagent returned nothing
/// (empty or whitespace only).
pub fn result_body(result_text: &str) -> Option<ResultBody> {
    if result_text.trim().is_empty() {
        return None;
    }
    let Some(obj) = conclusion_object(result_text) else {
        return Some(ResultBody::Markdown(result_text.to_string()));
    };
    if obj.get("found") == Some(&Value::Bool(false)) {
        let reason = obj.get("reason").map(value_text).unwrap_or_default();
        return Some(ResultBody::NoConclusion(no_conclusion_text(&reason)));
    }
    let fields = obj
        .iter()
        .map(|(k, v)| ConclusionField {
            key: k.clone(),
            value: value_text(v),
            provenance: if is_provenance_key(k) {
                provenance_of(v)
            } else {
                Vec::new()
            },
        })
        .collect();
    Some(ResultBody::Conclusion(fields))
}

/// The collapsed card's summary (docs/behaviour.md §3.1 item 6): the summary line of
/// `result_text` (see [`summary_line`]); a `found: false` conclusion
/// summarizes as `no conclusion: <reason>`, any other typed conclusion as
/// its pairs on one line (`key: value · key: value`), never as a lone `{`.
/// `None` when there is no result: no placeholder.
pub fn result_summary(result_text: &str) -> Option<String> {
    match result_body(result_text)? {
        ResultBody::NoConclusion(text) => Some(text),
        ResultBody::Conclusion(fields) => Some(
            fields
                .iter()
                .map(|f| format!("{}: {}", f.key, first_nonempty_line(&f.value).unwrap_or("")))
                .collect::<Vec<_>>()
                .join(" · "),
        ),
        ResultBody::Markdown(_) => summary_line(result_text),
    }
}

/// The summary line of a markdown text (docs/behaviour.md §3.1 item 6), as plain text
/// (`markdown::plain_text`): the first line with any that is not only a
/// heading, a rule or a code fence (`## Summary\nThe parser is sound.`
/// reads `The parser is sound.`); when every line is one of those, the first
/// with any text (`## Done` reads `Done`).
pub fn summary_line(text: &str) -> Option<String> {
    let mut first_heading = None;
    for line in text.split('\n') {
        let plain = plain_text(line);
        if plain.is_empty() {
            continue;
        }
        if !is_heading_rule_or_fence(line) {
            return Some(plain);
        }
        first_heading.get_or_insert(plain);
    }
    first_heading
}

/// True for a line that is only a markdown heading (`#` to `######` then a
/// space or nothing), a thematic break (three or more `-`, `*` or `_`,
/// spaces between allowed) or a code fence (three or more backticks or
/// tildes, an info string after them).
fn is_heading_rule_or_fence(line: &str) -> bool {
    let t = trim(line);
    let hashes = t.len() - t.trim_start_matches('#').len();
    let heading =
        (1..=6).contains(&hashes) && t[hashes..].chars().next().is_none_or(char::is_whitespace);
    let rule = t.chars().next().is_some_and(|mark| {
        ['-', '*', '_'].contains(&mark)
            && t.chars().all(|c| c == mark || c == ' ' || c == '\t')
            && t.chars().filter(|&c| c == mark).count() >= 3
    });
    let fence = ["```", "~~~"].iter().any(|f| t.starts_with(f));
    heading || rule || fence
}

/// The first line that is non-empty after trimming, trimmed.
pub fn first_nonempty_line(text: &str) -> Option<&str> {
    text.split('\n').map(trim).find(|l| !l.is_empty())
}

/// Trims whitespace and the byte-order mark (which JS `trim()` also strips).
fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

fn no_conclusion_text(reason: &str) -> String {
    let reason = trim(reason);
    if reason.is_empty() {
        "no conclusion".to_string()
    } else {
        format!("no conclusion: {reason}")
    }
}

/// A JSON value as table text: strings as they are, everything else compact JSON.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_summary_is_the_first_nonempty_trimmed_line() {
        assert_eq!(
            result_summary("VERDICT: REQUEST_CHANGES\nTwo blocking findings.").as_deref(),
            Some("VERDICT: REQUEST_CHANGES")
        );
        assert_eq!(
            result_summary("\n\n  APPROVE  \nrest").as_deref(),
            Some("APPROVE")
        );
        assert_eq!(result_summary("\u{feff}\r\nok\r\n").as_deref(), Some("ok"));
    }

    #[test]
    fn no_result_text_gives_no_summary_and_no_body() {
        assert_eq!(result_summary(""), None);
        assert_eq!(result_summary(" \n\t\n"), None);
        assert_eq!(result_body("   "), None);
    }

    #[test]
    fn plain_result_text_is_a_markdown_body_kept_verbatim() {
        let text = "\nAPPROVE\nAll three tests fail on main.";
        assert_eq!(
            result_body(text),
            Some(ResultBody::Markdown(text.to_string()))
        );
        assert_eq!(
            result_body("[1, 2]"),
            Some(ResultBody::Markdown("[1, 2]".into()))
        );
    }

    #[test]
    fn json_object_result_is_a_typed_conclusion_of_key_value_pairs_in_source_order() {
        let text = r#" {"verdict": "approve", "blocking": 0, "files": ["a.rs"]} "#;
        let Some(ResultBody::Conclusion(fields)) = result_body(text) else {
            panic!("not a conclusion")
        };
        let pairs: Vec<(&str, &str)> = fields
            .iter()
            .map(|f| (f.key.as_str(), f.value.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("verdict", "approve"),
                ("blocking", "0"),
                ("files", r#"["a.rs"]"#)
            ]
        );
        assert_eq!(fields[2].provenance, [Provenance::Badge("a.rs".into())]);
        assert!(fields[0].provenance.is_empty());
    }

    #[test]
    fn typed_conclusion_summary_is_its_pairs_on_one_line_not_an_opening_brace() {
        let text = "{\n  \"policy\": \"v7\",\n  \"chunk\": \"c-8812\"\n}";
        assert_eq!(
            result_summary(text).as_deref(),
            Some("policy: v7 · chunk: c-8812")
        );
    }

    #[test]
    fn found_false_renders_no_conclusion_with_its_reason_in_body_and_summary() {
        let text = r#"{"found": false, "reason": "the log was empty"}"#;
        assert_eq!(
            result_body(text),
            Some(ResultBody::NoConclusion(
                "no conclusion: the log was empty".into()
            ))
        );
        assert_eq!(
            result_summary(text).as_deref(),
            Some("no conclusion: the log was empty")
        );
        assert_eq!(
            result_summary(r#"{"found": false}"#).as_deref(),
            Some("no conclusion")
        );
    }

    #[test]
    fn the_summary_line_is_plain_text_of_the_first_line_with_any() {
        for (result, summary) in [
            (
                "\n- **Found** the `parser` in [x.ts](x.ts)\n- more",
                "Found the parser in x.ts",
            ),
            ("```\nThe build still fails.\n```", "The build still fails."),
            (
                "<tool_use_error>Error: Agent type 'x' not found.</tool_use_error>",
                "Error: Agent type 'x' not found.",
            ),
            (
                "<tool_use_error>\nInvalid input\n</tool_use_error>",
                "Invalid input",
            ),
            ("---\n> **Verdict:** APPROVE", "Verdict: APPROVE"),
        ] {
            assert_eq!(
                result_summary(result).as_deref(),
                Some(summary),
                "{result:?}"
            );
        }
        assert_eq!(result_summary("```\n```"), None);
    }

    #[test]
    fn the_summary_line_is_the_first_line_that_is_not_only_a_heading_rule_or_fence() {
        for (result, summary) in [
            ("## Summary\nThe parser is sound.", "The parser is sound."),
            ("## Summary\n\nAll good.", "All good."),
            (
                "## Error\nCould not read CHANGELOG.md",
                "Could not read CHANGELOG.md",
            ),
            ("# Review\n---\n### Findings\n- two bugs", "two bugs"),
            ("```rust\nlet x = 1;\n```", "let x = 1;"),
            ("~~~\n* * *\nFenced with tildes", "Fenced with tildes"),
            (
                "#hashtag is not a heading\nmore",
                "#hashtag is not a heading",
            ),
        ] {
            assert_eq!(
                result_summary(result).as_deref(),
                Some(summary),
                "{result:?}"
            );
        }
    }

    #[test]
    fn a_result_of_headings_only_reads_its_first_heading() {
        assert_eq!(result_summary("## Done").as_deref(), Some("Done"));
        assert_eq!(
            result_summary("---\n# Report\n## Details\n```").as_deref(),
            Some("Report")
        );
    }

    #[test]
    fn typed_conclusion_provenance_keys_are_badges_and_only_http_urls_are_links() {
        let text = r#"{"policy": "v7", "chunk": "c-8812", "url": "https://example.com/p?q=1",
            "source": "javascript:alert(1)", "doc_ids": ["d1", 7], "confidence": "high"}"#;
        let Some(ResultBody::Conclusion(fields)) = result_body(text) else {
            panic!("not a conclusion")
        };
        let provenance: Vec<(&str, &[Provenance])> = fields
            .iter()
            .map(|f| (f.key.as_str(), f.provenance.as_slice()))
            .collect();
        assert_eq!(
            provenance,
            [
                ("policy", &[][..]),
                ("chunk", &[Provenance::Badge("c-8812".into())][..]),
                (
                    "url",
                    &[Provenance::Link {
                        text: "https://example.com/p?q=1".into(),
                        href: "https://example.com/p?q=1".into()
                    }][..]
                ),
                (
                    "source",
                    &[Provenance::Badge("javascript:alert(1)".into())][..]
                ),
                (
                    "doc_ids",
                    &[
                        Provenance::Badge("d1".into()),
                        Provenance::Badge("7".into())
                    ][..]
                ),
                ("confidence", &[][..]),
            ]
        );
    }

    #[test]
    fn provenance_links_follow_the_one_safe_link_policy() {
        let words = "https://example.com/p and more words";
        for hostile in crate::screen::link::HOSTILE.into_iter().chain([words]) {
            assert!(
                matches!(provenance_item(hostile), Provenance::Badge(_)),
                "{hostile:?}"
            );
        }
        for (text, href) in [
            ("HTTPS://example.com/p", "HTTPS://example.com/p"),
            ("  https://example.com/p ", "https://example.com/p"),
            ("mailto:a@b.c", "mailto:a@b.c"),
        ] {
            assert_eq!(
                provenance_item(text),
                Provenance::Link {
                    text: href.into(),
                    href: href.into()
                }
            );
        }
    }

    #[test]
    fn provenance_keys_are_the_pointer_names_and_ids_but_not_words_ending_in_id() {
        for key in [
            "chunk", "chunks", "source", "URL", "file", "files", "id", "ids", "chunk_id", "docIds",
        ] {
            assert!(is_provenance_key(key), "{key}");
        }
        for key in ["policy", "valid", "paid", "confidence", "reason"] {
            assert!(!is_provenance_key(key), "{key}");
        }
    }

    #[test]
    fn typed_conclusion_schema_failure_reads_as_a_failed_conclusion_not_a_crash() {
        let text = r#"{"found": false, "reason": "sub-agent returned an invalid conclusion"}"#;
        assert_eq!(
            result_body(text),
            Some(ResultBody::NoConclusion(
                "no conclusion: sub-agent returned an invalid conclusion".into()
            ))
        );
        // A reason of the wrong type still reads, as its JSON text.
        assert_eq!(
            result_summary(r#"{"found": false, "reason": {"code": 3}}"#).as_deref(),
            Some(r#"no conclusion: {"code":3}"#)
        );
    }

    #[test]
    fn typed_conclusion_nested_in_a_json_string_is_parsed_once() {
        let once = serde_json::to_string(r#"{"policy": "v7", "chunk": "c-8812"}"#).unwrap();
        let Some(ResultBody::Conclusion(fields)) = result_body(&once) else {
            panic!("not unwrapped: {once}")
        };
        assert_eq!(fields.len(), 2);
        let failed = serde_json::to_string(r#"{"found": false, "reason": "budget"}"#).unwrap();
        assert_eq!(
            result_body(&failed),
            Some(ResultBody::NoConclusion("no conclusion: budget".into()))
        );
        // Twice serialized is unwrapped once only: it stays text.
        let twice = serde_json::to_string(&once).unwrap();
        assert_eq!(
            result_body(&twice),
            Some(ResultBody::Markdown(twice.clone()))
        );
        // A JSON string that is not an object is text too.
        assert_eq!(
            result_body(r#""just words""#),
            Some(ResultBody::Markdown(r#""just words""#.into()))
        );
    }
}
