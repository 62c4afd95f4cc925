//! Message pages (docs/protocol.md §5.1): `before`/`after` are exclusive
//! message ids, `sort` orders the range, `limit` cuts it, and `has_more`
//! says whether the range holds more in that direction.

use taskview_core::read::protocol::{MessagesQuery, SortOrder};

/// The page size when `limit` is absent or zero.
pub const DEFAULT_LIMIT: usize = 100;
/// The largest page served; larger limits are clamped.
pub const MAX_LIMIT: usize = 1000;

/// A selected page: positions into the session's chronological list.
#[derive(Debug, PartialEq, Eq)]
pub struct PageSlice {
    pub positions: Vec<usize>,
    pub has_more: bool,
}

/// Selects a page from a chronological list of `len` messages, where
/// `position_of` finds a message id. Fails with the id of a `before`/`after`
/// cursor that is not in the list.
pub fn select(
    len: usize,
    position_of: impl Fn(&str) -> Option<usize>,
    query: &MessagesQuery,
) -> Result<PageSlice, String> {
    let cursor = |id: &Option<String>| -> Result<Option<usize>, String> {
        match id.as_deref().filter(|s| !s.is_empty()) {
            None => Ok(None),
            Some(id) => position_of(id).map(Some).ok_or_else(|| id.to_string()),
        }
    };
    let lo = cursor(&query.after)?.map_or(0, |p| p + 1);
    let hi = cursor(&query.before)?.unwrap_or(len).max(lo);
    let limit = match query.limit.map(|l| l as usize) {
        None | Some(0) => DEFAULT_LIMIT,
        Some(l) => l.min(MAX_LIMIT),
    };
    let in_range = hi - lo;
    let taken = in_range.min(limit);
    let positions = match query.sort.unwrap_or_default() {
        SortOrder::Asc => (lo..lo + taken).collect(),
        SortOrder::Desc => (hi - taken..hi).rev().collect(),
    };
    Ok(PageSlice {
        positions,
        has_more: in_range > taken,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(n: usize, limit: Option<u32>, before: &str, after: &str, desc: bool) -> PageSlice {
        let ids: Vec<String> = (0..n).map(|i| format!("m{i}")).collect();
        let query = MessagesQuery {
            limit,
            before: Some(before.to_string()).filter(|s| !s.is_empty()),
            after: Some(after.to_string()).filter(|s| !s.is_empty()),
            sort: Some(if desc {
                SortOrder::Desc
            } else {
                SortOrder::Asc
            }),
        };
        let position_of = |id: &str| ids.iter().position(|i| i == id);
        select(ids.len(), position_of, &query).unwrap()
    }

    #[test]
    fn asc_and_desc_take_from_their_end_of_the_range() {
        assert_eq!(page(5, Some(2), "", "", false).positions, [0, 1]);
        assert_eq!(page(5, Some(2), "", "", true).positions, [4, 3]);
        assert!(page(5, Some(2), "", "", true).has_more);
        assert!(!page(5, Some(5), "", "", true).has_more);
    }

    #[test]
    fn before_and_after_are_exclusive() {
        assert_eq!(page(5, Some(10), "m3", "", true).positions, [2, 1, 0]);
        assert_eq!(page(5, Some(10), "", "m1", false).positions, [2, 3, 4]);
        assert_eq!(page(5, Some(10), "m4", "m1", false).positions, [2, 3]);
        assert!(page(5, Some(10), "m0", "", true).positions.is_empty());
        assert!(page(5, Some(10), "", "m4", false).positions.is_empty());
        assert!(page(5, Some(10), "m1", "m3", false).positions.is_empty());
    }

    #[test]
    fn zero_or_absent_limit_is_the_default_and_huge_is_clamped() {
        assert_eq!(
            page(150, None, "", "", false).positions.len(),
            DEFAULT_LIMIT
        );
        assert_eq!(
            page(150, Some(0), "", "", false).positions.len(),
            DEFAULT_LIMIT
        );
        assert_eq!(
            page(1500, Some(5000), "", "", false).positions.len(),
            MAX_LIMIT
        );
    }

    #[test]
    fn an_unknown_cursor_is_reported() {
        let query = MessagesQuery {
            before: Some("nope".into()),
            ..MessagesQuery::default()
        };
        let err = select(1, |_| None, &query).unwrap_err();
        assert_eq!(err, "nope");
    }
}
