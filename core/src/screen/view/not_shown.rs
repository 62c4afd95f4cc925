//! The records an importer skipped (docs/behaviour.md §1): agents' files hold request
//! snapshots, telemetry and bookkeeping beside the conversation; the view
//! says how many records it did not show and, on request, of which kinds.

use super::format::group_thousands;
use std::collections::BTreeMap;

/// What the "records not shown" disclosure shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotShownView {
    /// `53 records not shown`.
    pub label: String,
    /// Each kind and its count (`api-request`, `12`), most first, then by name.
    pub kinds: Vec<(String, String)>,
}

/// The disclosure for `counts` (kind → records skipped); `None` when nothing
/// was skipped.
pub fn records_not_shown(counts: &BTreeMap<String, u64>) -> Option<NotShownView> {
    let total: u64 = counts.values().sum();
    if total == 0 {
        return None;
    }
    let mut kinds: Vec<(&String, &u64)> = counts.iter().filter(|(_, n)| **n > 0).collect();
    kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    Some(NotShownView {
        label: format!(
            "{} {} not shown",
            group_thousands(total),
            if total == 1 { "record" } else { "records" }
        ),
        kinds: kinds
            .into_iter()
            .map(|(kind, n)| (kind.clone(), group_thousands(*n)))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
        pairs.iter().map(|(k, n)| (k.to_string(), *n)).collect()
    }

    #[test]
    fn the_view_says_how_many_records_were_not_shown_and_of_which_kinds_most_first() {
        let view = records_not_shown(&counts(&[
            ("api-request", 12),
            ("atis-latch", 1),
            ("cost-state", 12),
            ("api-request-blob", 1_500),
        ]))
        .unwrap();
        assert_eq!(view.label, "1,525 records not shown");
        assert_eq!(
            view.kinds,
            [
                ("api-request-blob".to_string(), "1,500".to_string()),
                ("api-request".into(), "12".into()),
                ("cost-state".into(), "12".into()),
                ("atis-latch".into(), "1".into()),
            ]
        );
        let one = records_not_shown(&counts(&[("tools-used", 1)])).unwrap();
        assert_eq!(one.label, "1 record not shown");
    }

    #[test]
    fn nothing_skipped_shows_nothing() {
        assert_eq!(records_not_shown(&BTreeMap::new()), None);
        assert_eq!(records_not_shown(&counts(&[("x", 0)])), None);
    }
}
