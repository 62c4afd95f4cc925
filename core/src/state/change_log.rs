//! A numbered log of the last changes of something, for readers that come
//! back for what changed since they last looked (a curve's drawings, the
//! Timeline's search highlight) instead of reading it all again.

/// The last changes, numbered from 0 in the order they were pushed. It
/// holds at least the last `KEEP` (at most twice as many: the older half
/// goes at once, once per `KEEP` changes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeLog<T, const KEEP: usize> {
    /// The number of the first change held.
    first: u64,
    changes: Vec<T>,
}

impl<T, const KEEP: usize> Default for ChangeLog<T, KEEP> {
    fn default() -> Self {
        ChangeLog {
            first: 0,
            changes: Vec::new(),
        }
    }
}

impl<T, const KEEP: usize> ChangeLog<T, KEEP> {
    /// Logs the next change.
    pub fn push(&mut self, change: T) {
        if self.changes.len() == 2 * KEEP {
            self.changes.drain(..KEEP);
            self.first += KEEP as u64;
        }
        self.changes.push(change);
    }

    /// The number the next change gets: where a reader that has read every
    /// change stands.
    pub fn end(&self) -> u64 {
        self.first + self.changes.len() as u64
    }

    /// The changes numbered `from` on, in order; `None` when some of them are
    /// no longer held (or `from` is past the end).
    pub fn since(&self, from: u64) -> Option<&[T]> {
        let skip = from.checked_sub(self.first)?;
        self.changes.get(usize::try_from(skip).ok()?..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_gets_the_changes_since_its_number_while_they_are_held() {
        let mut log = ChangeLog::<u32, 4>::default();
        assert_eq!(log.since(0), Some(&[][..]));
        for k in 0..6 {
            log.push(k);
        }
        assert_eq!(log.end(), 6);
        assert_eq!(log.since(2), Some(&[2, 3, 4, 5][..]));
        assert_eq!(log.since(6), Some(&[][..]));
        assert_eq!(log.since(7), None, "past the end");
        for k in 6..9 {
            log.push(k);
        }
        assert_eq!(log.since(3), None, "no longer held");
        assert_eq!(
            log.since(4),
            Some(&[4, 5, 6, 7, 8][..]),
            "the last four at least"
        );
    }
}
