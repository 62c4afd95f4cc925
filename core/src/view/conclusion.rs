//! A subagent's result: its one-line summary and its expanded body
//! (SPEC.md §3.1 item 6, §3.5 item 1).

use crate::markdown::plain_text;
use serde_json::Value;

/// What the expanded card shows as its result (SPEC.md §3.5).
#[derive(Clone, Debug, PartialEq)]
pub enum ResultBody {
    /// The full `result_text`, to render as safe markdown.
    Markdown(String),
    /// A JSON-object `result_text`: key/value pairs in source order.
    Conclusion(Vec<(String, String)>),
    /// `{"found": false, "reason": …}`: the text `no conclusion: <reason>`.
    NoConclusion(String),
}

/// The result body of `result_text`; `None` when the subagent returned nothing
/// (empty or whitespace only).
pub fn result_body(result_text: &str) -> Option<ResultBody> {
    if result_text.trim().is_empty() {
        return None;
    }
    let Some(Value::Object(obj)) = serde_json::from_str::<Value>(result_text.trim()).ok() else {
        return Some(ResultBody::Markdown(result_text.to_string()));
    };
    if obj.get("found") == Some(&Value::Bool(false)) {
        let reason = obj.get("reason").map(value_text).unwrap_or_default();
        return Some(ResultBody::NoConclusion(no_conclusion_text(&reason)));
    }
    let pairs = obj
        .iter()
        .map(|(k, v)| (k.clone(), value_text(v)))
        .collect();
    Some(ResultBody::Conclusion(pairs))
}

/// The collapsed card's summary (SPEC.md §3.1 item 6): the first line of
/// `result_text` whose plain text (`markdown::plain_text`: `## Summary` reads
/// `Summary`, markers and harness tags gone) is not empty; a `found: false`
/// conclusion summarizes as `no conclusion: <reason>`, any other typed
/// conclusion as its pairs on one line (`key: value · key: value`), never as a
/// lone `{`. `None` when there is no result: no placeholder.
pub fn result_summary(result_text: &str) -> Option<String> {
    match result_body(result_text)? {
        ResultBody::NoConclusion(text) => Some(text),
        ResultBody::Conclusion(pairs) => Some(
            pairs
                .iter()
                .map(|(k, v)| format!("{k}: {}", first_nonempty_line(v).unwrap_or("")))
                .collect::<Vec<_>>()
                .join(" · "),
        ),
        ResultBody::Markdown(_) => first_plain_line(result_text),
    }
}

/// The plain text of the first line of `text` that has any (SPEC.md §3.1 item 6).
pub fn first_plain_line(text: &str) -> Option<String> {
    text.split('\n')
        .map(plain_text)
        .find(|line| !line.is_empty())
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
        assert_eq!(
            result_body(text),
            Some(ResultBody::Conclusion(vec![
                ("verdict".into(), "approve".into()),
                ("blocking".into(), "0".into()),
                ("files".into(), r#"["a.rs"]"#.into()),
            ]))
        );
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
            ("## Summary\n\nAll good.", "Summary"),
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
}
