//! The runs holding a match of the transcript's search (docs/user-guide.md "The Timeline"), kept
//! from the matches that changed since the last look: a live session's new
//! match costs itself, not every match again.

use super::Timeline;
use crate::state::search::{MatchCursor, SearchIndex};
use crate::state::store::Store;
use foldhash::HashMap;

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub struct Hits {
    /// Where the matches were read to, and the timeline's regrouping then.
    read: Option<(MatchCursor, u64)>,
    /// Each match's run (a match outside any run is not kept).
    run_of: HashMap<String, String>,
    /// The runs holding matches, and how many.
    runs: HashMap<String, usize>,
    /// Changes whenever the matches may have.
    generation: u64,
    /// Matches whose run was looked up (for tests of what a look costs).
    #[cfg(test)]
    pub(crate) looked_up: usize,
}

impl Hits {
    /// Brings the runs up to date with `index`'s matches: from the changes
    /// since the last look, or from every match when those are not known or
    /// the timeline moved records to other runs since.
    pub fn update(&mut self, index: &SearchIndex, timeline: &Timeline, store: &Store) {
        let regrouped = timeline.regrouped();
        let changes = self
            .read
            .filter(|(_, seen)| *seen == regrouped)
            .and_then(|(cursor, _)| index.match_changes_since(cursor));
        match changes {
            Some(changes) => {
                let mut changed = false;
                for (id, matches) in changes {
                    changed = true;
                    self.set(id, matches, timeline, store);
                }
                self.generation += u64::from(changed);
            }
            None => {
                self.generation += 1;
                self.run_of.clear();
                self.runs.clear();
                for id in index.matches() {
                    self.set(id, true, timeline, store);
                }
            }
        }
        self.read = Some((index.match_cursor(), regrouped));
    }

    /// Message `id` is a match now, or no longer.
    fn set(&mut self, id: &str, matches: bool, timeline: &Timeline, store: &Store) {
        if let Some(run) = self.run_of.remove(id) {
            if let Some(n) = self.runs.get_mut(&run) {
                *n -= 1;
                if *n == 0 {
                    self.runs.remove(&run);
                }
            }
        }
        if matches {
            #[cfg(test)]
            {
                self.looked_up += 1;
            }
            if let Some(run) = timeline.run_of(store, id) {
                *self.runs.entry(run.clone()).or_default() += 1;
                self.run_of.insert(id.to_string(), run);
            }
        }
    }

    /// Whether run `id` holds a match.
    pub fn holds(&self, id: &str) -> bool {
        self.runs.contains_key(id)
    }

    /// A number that changes whenever the runs holding a match may have.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The runs holding a match.
    pub fn runs(&self) -> impl Iterator<Item = &String> {
        self.runs.keys()
    }
}
