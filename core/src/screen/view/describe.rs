//! Description de-duplication (docs/behaviour.md §3.3): a description that starts by
//! restating the subagent type loses that prefix.

/// Removes a leading restatement of `type_label` from `description` (docs/behaviour.md §3.3).
///
/// Both are normalized by lower-casing and dropping whitespace, `-` and `_`. When
/// the normalized description starts with the normalized type and the match ends
/// at the end of the description or right before whitespace or `:`, the prefix
/// and the following whitespace and colons go; otherwise the description is
/// returned unchanged. An empty result means "no description element".
pub fn strip_type_prefix<'a>(description: &'a str, type_label: &str) -> &'a str {
    let target = normalize(type_label);
    if target.is_empty() {
        return description;
    }
    let mut consumed = String::new();
    for (i, ch) in description.char_indices() {
        consumed.extend(normalize_char(ch));
        if consumed.len() < target.len() {
            if !target.starts_with(&consumed) {
                return description;
            }
            continue;
        }
        if consumed != target {
            return description;
        }
        let rest = &description[i + ch.len_utf8()..];
        return match rest.chars().next() {
            None => "",
            Some(c) if c.is_whitespace() || c == ':' => {
                rest.trim_start_matches(|c: char| c.is_whitespace() || c == ':')
            }
            Some(_) => description,
        };
    }
    description
}

fn normalize(s: &str) -> String {
    s.chars().flat_map(normalize_char).collect()
}

/// One character, lower-cased; whitespace, `-` and `_` vanish.
fn normalize_char(c: char) -> impl Iterator<Item = char> {
    let dropped = c.is_whitespace() || c == '-' || c == '_';
    c.to_lowercase().filter(move |_| !dropped)
}

#[cfg(test)]
mod tests {
    use super::strip_type_prefix;

    #[test]
    fn description_strip_drops_type_restated_with_other_case_and_hyphen() {
        assert_eq!(
            strip_type_prefix(
                "Test-supervisor review of new invariant tests",
                "test-supervisor"
            ),
            "review of new invariant tests"
        );
    }

    #[test]
    fn description_strip_of_exactly_the_type_leaves_nothing() {
        assert_eq!(strip_type_prefix("code-reviewer", "code-reviewer"), "");
        assert_eq!(strip_type_prefix("code-reviewer:", "code-reviewer"), "");
    }

    #[test]
    fn description_strip_drops_following_colon_and_spaces() {
        assert_eq!(
            strip_type_prefix("code-reviewer: the closure diff", "code-reviewer"),
            "the closure diff"
        );
        assert_eq!(
            strip_type_prefix("CODE_REVIEWER   ::  x", "code-reviewer"),
            "x"
        );
    }

    #[test]
    fn description_strip_ignores_spaces_inside_the_restated_type() {
        assert_eq!(
            strip_type_prefix("Code Reviewer: on diff", "code-reviewer"),
            "on diff"
        );
        assert_eq!(
            strip_type_prefix("code-reviewer on diff", "code-reviewer"),
            "on diff"
        );
        assert_eq!(strip_type_prefix("  code-reviewer x", "code-reviewer"), "x");
    }

    #[test]
    fn description_strip_keeps_a_description_that_only_shares_a_stem() {
        assert_eq!(
            strip_type_prefix("code-review of the closure diff", "code-reviewer"),
            "code-review of the closure diff"
        );
    }

    #[test]
    fn description_strip_needs_a_word_boundary_after_the_type() {
        assert_eq!(
            strip_type_prefix("code-reviewers x", "code-reviewer"),
            "code-reviewers x"
        );
        assert_eq!(
            strip_type_prefix("test.ts regression suite", "test"),
            "test.ts regression suite"
        );
        assert_eq!(
            strip_type_prefix("review.md findings", "review"),
            "review.md findings"
        );
        assert_eq!(
            strip_type_prefix("code-reviewer,x", "code-reviewer"),
            "code-reviewer,x"
        );
    }

    #[test]
    fn description_strip_stops_at_the_first_non_colon_after_the_boundary() {
        assert_eq!(
            strip_type_prefix("code-reviewer -- x", "code-reviewer"),
            "-- x"
        );
    }

    #[test]
    fn description_strip_works_with_the_fallback_type_label() {
        assert_eq!(strip_type_prefix("subagent: foo", "subagent"), "foo");
        assert_eq!(strip_type_prefix("anything", ""), "anything");
        assert_eq!(strip_type_prefix("", "code-reviewer"), "");
    }
}
