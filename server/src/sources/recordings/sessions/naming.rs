//! What the sessions of the recordings folders are named by: a companion's
//! name as the importers take it, which files may be session data, and the
//! name a session's task is made from.

use std::path::Path;
use taskview_core::read::import::folder;

/// The name of a file read with a session, as the importers take it.
pub(super) fn companion_name(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// A file that may be a session or a companion (not a tool's output).
pub(super) fn is_session_data(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "json")
    ) || path.extension().is_none()
}

/// The name a session's task is made from: its file's name, after the
/// folder that names the session where the folder does (a Copilot CLI
/// session is `<session id>/events.jsonl`, `core::read::import::folder`), so
/// two such sessions never share a name.
pub(super) fn task_name(path: &Path) -> String {
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let session = folder::session_name(&path.to_string_lossy()).to_string();
    let stem = file
        .rsplit_once('.')
        .map_or(file.as_str(), |(stem, _)| stem);
    if session == stem {
        file
    } else {
        format!("{session}-{file}")
    }
}

#[cfg(test)]
mod tests {
    use super::task_name;
    use std::path::Path;

    #[test]
    fn a_session_named_by_its_folder_carries_the_folder_into_its_task_name() {
        assert_eq!(
            task_name(Path::new(
                "/home/me/.copilot/session-state/fcb00076/events.jsonl"
            )),
            "fcb00076-events.jsonl"
        );
        assert_eq!(
            task_name(Path::new("/home/me/.claude/projects/p/59732ea6.jsonl")),
            "59732ea6.jsonl"
        );
    }
}
