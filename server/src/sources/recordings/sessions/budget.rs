//! The memory budget of the recordings (`--memory-mb`): what is imported
//! is kept within it, telemetry folded into its cards first, then the
//! least recently read sessions dropped.

use super::{Sessions, Tracked};
use crate::backend::Backend;
use crate::sources::recordings::tail::Fold;
use std::time::Instant;

impl Sessions {
    /// Keeps the imported sessions within the budget, least recently read
    /// first, never `keep` nor one a client is subscribed to: telemetry
    /// sessions fold their spans into their cards (the board's chip and
    /// status stay live), then sessions whose agent rests and with no turn
    /// under way are dropped.
    pub(super) fn evict(&mut self, backend: &Backend, keep: usize) {
        let mut total = self.resident_bytes();
        if total <= self.budget {
            return;
        }
        let mut droppable: Vec<(Instant, usize)> = Vec::new();
        let mut foldable: Vec<(Instant, usize)> = Vec::new();
        for (i, f) in self
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.fold.is_some())
        {
            let viewed = backend.hub().has_subscribers(&f.session_id);
            let busy = f.working == Some(true) || backend.active_turn(&f.session_id).is_some();
            let read = backend
                .last_read(&f.session_id)
                .unwrap_or_else(Instant::now);
            if i == keep || viewed {
                continue;
            }
            let telemetry = f.fold.as_ref().and_then(Fold::telemetry_bytes).is_some();
            if telemetry && f.folded.is_none() {
                foldable.push((read, i));
            }
            if !busy {
                droppable.push((read, i));
            }
        }
        foldable.sort();
        for (_, i) in foldable {
            if total <= self.budget {
                return;
            }
            let f = &mut self.files[i];
            let before = f.weight();
            if let Some(fold) = &mut f.fold {
                fold.fold_telemetry();
            }
            f.folded = Some(Instant::now());
            total -= before.saturating_sub(f.weight());
            tracing::info!("recording {} folded into its cards", f.name);
        }
        droppable.sort();
        for (_, i) in droppable {
            if total <= self.budget {
                break;
            }
            let f = &mut self.files[i];
            total -= f.weight();
            backend.unload_session(&f.session_id);
            f.fold = None;
            f.folded = None;
            tracing::info!("recording {} dropped from memory", f.name);
        }
    }

    /// The memory the imported sessions take, as the budget counts it.
    pub(super) fn resident_bytes(&self) -> u64 {
        let imported = self.files.iter().filter(|f| f.fold.is_some());
        imported.map(Tracked::weight).sum()
    }
}
