//! Token counts as files write them: any `u64`, so a sum never overflows.

/// The sum of token counts, saturating at `u64::MAX` (a file may write any
/// number; a viewer must not panic or wrap on it).
pub(crate) fn total(counts: impl IntoIterator<Item = u64>) -> u64 {
    counts.into_iter().fold(0, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::total;

    #[test]
    fn a_sum_of_huge_counts_saturates_instead_of_overflowing() {
        assert_eq!(total([u64::MAX, 1, 7]), u64::MAX);
        assert_eq!(total([2, 3]), 5);
        assert_eq!(total([]), 0);
    }
}
