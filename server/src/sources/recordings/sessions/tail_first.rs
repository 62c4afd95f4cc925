//! A big session read from its end first (docs/behaviour.md §7 "All day,
//! any size"): its newest records are imported at once and shown while its
//! whole read runs in the background, so the first page of a 150 MB session
//! and an append to one nobody read yet appear in a fraction of a second.
//! The newest part is followed like any session (appends land in it); once
//! the whole read lands it replaces the part (the backend shows the
//! difference) and the session is followed from where that read stopped.

use super::super::tail::{Fold, Offset};
use super::super::tree::fingerprint;
use super::{Reading, Sessions, Whole};
use crate::backend::Backend;
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Sessions bigger than this are read from their end first.
pub(in crate::sources::recordings) const TAIL_FIRST_BYTES: u64 = 16 << 20;

/// How much of a big session's end is imported first: hundreds of records,
/// more than a first page shows.
const TAIL_BYTES: u64 = 4 << 20;

impl Reading {
    /// The newest part of a big session (its last `TAIL_BYTES`, from the
    /// first line that starts there), imported alone; `None` for a session
    /// that is not big, or whose dialect is not followed by its lines (a
    /// whole document is read whole).
    pub(in crate::sources::recordings) fn read_tail(&self) -> Option<Result<Whole, String>> {
        let seen = fingerprint(&self.path).ok()?;
        if seen.0 <= TAIL_FIRST_BYTES {
            return None;
        }
        let read = read_end(&self.path, seen.0).map_err(|e| e.to_string());
        let (head, text, read_to) = match read {
            Ok(read) => read,
            Err(e) => return Some(Err(e)),
        };
        let (fold, events) = match Fold::new(&text, &[]) {
            Ok(imported) => imported,
            Err(e) => return Some(Err(e)),
        };
        if !fold.follows() {
            return None;
        }
        let mut offsets = HashMap::new();
        offsets.insert(self.path.clone(), Offset::at(&self.path, &head, read_to));
        Some(Ok(Whole {
            said: fold.working(),
            fold,
            events,
            // What the session calls itself may be anywhere in it: the
            // index's title stands until the whole read.
            title: None,
            seen: vec![(self.path.clone(), seen)],
            offsets,
        }))
    }
}

/// The first bytes of the file at `path` (`len` long), its whole lines from
/// the first line starting in its last `TAIL_BYTES`, and where they end.
fn read_end(path: &Path, len: u64) -> std::io::Result<(Vec<u8>, String, u64)> {
    let mut file = File::open(path)?;
    let mut head = vec![0; 64];
    file.read_exact(&mut head)?;
    file.seek(SeekFrom::Start(len - TAIL_BYTES))?;
    let mut bytes = Vec::with_capacity(TAIL_BYTES as usize);
    file.take(TAIL_BYTES).read_to_end(&mut bytes)?;
    let start = bytes
        .iter()
        .position(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    let end = bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(start, |at| at + 1);
    let end = end.max(start);
    let text = String::from_utf8_lossy(&bytes[start..end]).into_owned();
    Ok((head, text, len - TAIL_BYTES + end as u64))
}

impl Sessions {
    /// Puts the newest part of session `i` into the backend (resident, its
    /// messages those of the part) and asks for its whole read.
    pub(in crate::sources::recordings) fn land_tail(
        &mut self,
        backend: &Backend,
        i: usize,
        tail: Whole,
        grew: bool,
    ) {
        tracing::info!("recording {} read from its end first", self.files[i].name);
        let read = self.take(i, tail);
        self.land(backend, i, read, grew);
        let file = &mut self.files[i];
        file.partial = true;
        if !self.whole_wanted.contains(&file.session_id) {
            self.whole_wanted.push(file.session_id.clone());
        }
    }

    /// Shows session `session_id`, read by someone while not imported, from
    /// its newest part (`Reading::read_tail`), unless it was imported
    /// meanwhile.
    pub(in crate::sources::recordings) fn open_tail(
        &mut self,
        backend: &Backend,
        session_id: &str,
        tail: Whole,
    ) {
        let found = self.files.iter().position(|f| f.session_id == session_id);
        if let Some(i) = found.filter(|&i| self.files[i].fold.is_none()) {
            self.land_tail(backend, i, tail, false);
        }
    }

    /// The whole reads wanted for sessions shown from their end first, to
    /// make without holding the sessions (then `open`).
    pub(in crate::sources::recordings) fn take_whole_reads(&mut self) -> Vec<(String, Reading)> {
        std::mem::take(&mut self.whole_wanted)
            .into_iter()
            .filter_map(|id| {
                let i = self.files.iter().position(|f| f.session_id == id)?;
                self.files[i].partial.then(|| (id, self.reading(i)))
            })
            .collect()
    }
}
