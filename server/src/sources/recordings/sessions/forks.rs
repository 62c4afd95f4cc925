//! A forked session's files (docs/behaviour.md §4): its first records are
//! copies of the session it was forked from, and the runs those copies
//! hold have their transcripts under that session's own folder, which is
//! read with the fork (the importer reads the inherited runs' alone).

use super::Sessions;
use std::path::PathBuf;

impl Sessions {
    /// The own files of the session `origin` names (its file's stem or its
    /// Claude Code session id) in the folder session `i` was found in: a
    /// fork's origin.
    pub(in crate::sources::recordings) fn own_files_of(
        &self,
        i: usize,
        origin: &str,
    ) -> Option<Vec<PathBuf>> {
        let root = &self.files[i].root;
        let found = self.files.iter().find(|f| {
            f.root == *root
                && (f.path.file_stem().and_then(|s| s.to_str()) == Some(origin)
                    || f.claude_session_id.as_deref() == Some(origin))
        })?;
        Some(found.own.clone())
    }
}
