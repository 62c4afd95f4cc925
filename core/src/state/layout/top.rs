//! The top-level row list: rebuilding the rows around changed positions.

use super::update::Work;
use super::{Layout, TopRow};
use crate::state::store::{OrderKey, Store};

impl Layout {
    /// Rebuilds the top-level rows around each stretch of dirty positions
    /// (dirty positions with no clean member between them: a page of older
    /// messages is one stretch, rebuilt and spliced once): the runs that touch
    /// it, widened until the old rows in the window are covered whole.
    pub(super) fn rebuild_top(&mut self, store: &Store, w: &mut Work) {
        let dirty: Vec<OrderKey> = std::mem::take(&mut w.dirty_top).into_iter().collect();
        let mut covered: Option<OrderKey> = None;
        let mut rest = &dirty[..];
        while let Some(&k) = rest.first() {
            if covered.is_some_and(|c| k <= c) {
                rest = &rest[1..];
                continue;
            }
            let last = self.stretch_end(rest);
            rest = &rest[rest.partition_point(|d| *d <= last)..];
            let (members, rows, hi) = self.window(k, last);
            covered = Some(hi);
            let new_rows = self.build_rows(store, &self.top_members[members]);
            let mut tops = Vec::with_capacity(new_rows.len());
            let old: Vec<TopRow> = self.top[rows.clone()].to_vec();
            for t in &old {
                let current = self.top_rows.get(&t.key);
                w.tracker.touch(&t.key, self.row(&t.key));
                if current.is_some_and(|r| r.start == t.start) {
                    if let Some(row) = self.top_rows.remove(&t.key) {
                        self.clear_row_of(&row);
                    }
                }
            }
            for (t, row) in new_rows {
                w.tracker.touch(&t.key, self.row(&t.key));
                self.set_row_of(&row);
                self.top_rows.insert(t.key.clone(), row);
                tops.push(t);
            }
            let same =
                old.len() == tops.len() && old.iter().zip(&tops).all(|(a, b)| a.key == b.key);
            if !same {
                let first = old
                    .iter()
                    .zip(&tops)
                    .take_while(|(a, b)| a.key == b.key)
                    .count();
                let from = rows.start + first;
                w.top_from = Some(w.top_from.map_or(from, |f| f.min(from)));
            }
            self.top.splice(rows, tops);
        }
    }

    /// The last dirty position of the stretch that starts `dirty` (sorted):
    /// each next one follows the previous with no member between them.
    fn stretch_end(&self, dirty: &[OrderKey]) -> OrderKey {
        let m = &self.top_members;
        let mut last = dirty[0];
        for &d in &dirty[1..] {
            let after_last = m.partition_point(|(x, _)| *x <= last);
            if m.partition_point(|(x, _)| *x < d) > after_last {
                break;
            }
            last = d;
        }
        last
    }

    /// The member range, the old row range and the last position of the window
    /// around the dirty positions from `first` to `last`.
    pub(super) fn window(
        &self,
        first: OrderKey,
        last: OrderKey,
    ) -> (std::ops::Range<usize>, std::ops::Range<usize>, OrderKey) {
        let m = &self.top_members;
        let (mut lo, mut hi) = (first, last);
        let at = m.partition_point(|(x, _)| *x < first);
        if let Some((x, _)) = at.checked_sub(1).and_then(|i| m.get(i)) {
            lo = *x;
        }
        let next = m.partition_point(|(x, _)| *x <= last);
        if let Some((x, _)) = m.get(next) {
            hi = *x;
        }
        loop {
            let mut a = m.partition_point(|(x, _)| *x < lo);
            let mut b = m.partition_point(|(x, _)| *x <= hi);
            while a > 0 && a < m.len() && self.joined(&m[a - 1].1, &m[a].1) {
                a -= 1;
            }
            while b > 0 && b < m.len() && self.joined(&m[b - 1].1, &m[b].1) {
                b += 1;
            }
            let (mut nlo, mut nhi) = (lo, hi);
            if a < b {
                nlo = nlo.min(m[a].0);
                nhi = nhi.max(m[b - 1].0);
            }
            let r0 = self.top.partition_point(|t| t.end < nlo);
            let r1 = self.top.partition_point(|t| t.start <= nhi);
            if r0 < r1 {
                nlo = nlo.min(self.top[r0].start);
                nhi = nhi.max(self.top[r1 - 1].end);
            }
            if (nlo, nhi) == (lo, hi) {
                return (a..b, r0..r1, hi);
            }
            (lo, hi) = (nlo, nhi);
        }
    }
}
