//! Own and nested tokens, and context isolation (docs/behaviour.md §8): two meta chips
//! of a settled subagent card.

use super::chips::Chip;
use super::format::{abbreviate, format_tokens_exact, group_thousands};
use crate::state::layout::{Layout, RowKey, RowKind};
use crate::state::store::Store;
use std::collections::HashSet;

/// Tokens reported by every subagent nested (at any depth) in the card
/// `key`; `None` when none of them reports any. Walks the card's subtree only.
pub fn nested_tokens(store: &Store, layout: &Layout, key: &RowKey) -> Option<u64> {
    let mut total = None;
    let mut stack = vec![key.clone()];
    let mut seen = HashSet::from([key.clone()]);
    while let Some(card) = stack.pop() {
        for row in layout.children(&card) {
            if row.kind != RowKind::Subagent || !seen.insert(row.key.clone()) {
                continue;
            }
            let tokens = row
                .message_id()
                .and_then(|id| store.message(id))
                .and_then(|m| m.metadata.subagent.as_ref())
                .and_then(|sa| sa.total_tokens)
                .filter(|t| *t > 0);
            if let Some(t) = tokens {
                total = Some(total.unwrap_or(0u64).saturating_add(t));
            }
            stack.push(row.key.clone());
        }
    }
    total
}

/// The `with nested` chip (docs/behaviour.md §8): beside the card's own tokens chip, the
/// total of its own and its nested subagents' tokens: `61k with nested`.
pub fn with_nested_chip(own: Option<u64>, nested: u64) -> Chip {
    let total = own.unwrap_or(0).saturating_add(nested);
    Chip {
        id: "nested-tokens",
        text: format!("{} with nested", abbreviate(total)),
        title: format!("{} with nested subagents", format_tokens_exact(total)),
    }
}

/// A rough token count of text that reached a parent's context: one token per
/// four characters, rounded up (the usual rule of thumb for English and code).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// The context-isolation chip (docs/behaviour.md §8) of a settled subagent with both
/// tokens and an answer: what reached its parent against what it spent,
/// `~21 tokens returned of 14k`.
pub fn isolation_chip(answer: &str, total_tokens: Option<u64>) -> Option<Chip> {
    let spent = total_tokens.filter(|t| *t > 0)?;
    if answer.trim().is_empty() {
        return None;
    }
    let returned = estimate_tokens(answer);
    let unit = if returned == 1 { "token" } else { "tokens" };
    Some(Chip {
        id: "returned",
        text: format!(
            "~{} {unit} returned of {}",
            abbreviate(returned),
            abbreviate(spent)
        ),
        title: format!(
            "about {} {unit} of its answer reached the parent's context; it spent {} tokens",
            group_thousands(returned),
            group_thousands(spent)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_nested_reads_own_plus_nested_48_2k_and_61k() {
        let chip = with_nested_chip(Some(48_213), 12_787);
        assert_eq!(chip.text, "61k with nested");
        assert_eq!(chip.title, "61,000 tokens with nested subagents");
        assert_eq!(with_nested_chip(None, 900).text, "900 with nested");
    }

    #[test]
    fn isolation_reads_about_21_tokens_returned_of_14k() {
        let answer = "x".repeat(84);
        let chip = isolation_chip(&answer, Some(14_000)).unwrap();
        assert_eq!(chip.text, "~21 tokens returned of 14k");
        assert_eq!(
            chip.title,
            "about 21 tokens of its answer reached the parent's context; it spent 14,000 tokens"
        );
        assert_eq!(
            isolation_chip("ok", Some(1_234_567)).unwrap().text,
            "~1 token returned of 1.2M"
        );
    }

    #[test]
    fn isolation_needs_both_tokens_and_an_answer() {
        assert_eq!(isolation_chip("APPROVE", None), None);
        assert_eq!(isolation_chip("APPROVE", Some(0)), None);
        assert_eq!(isolation_chip("  \n", Some(14_000)), None);
    }

    #[test]
    fn token_estimate_is_a_quarter_of_the_characters_rounded_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abc"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("ééééé"), 2);
    }
}
