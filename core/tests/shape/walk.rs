//! The one walk of the workspace the shape checks share: every file below a root whose
//! folders and names a check keeps, as shown relative to the root, in name order.

use std::fs;
use std::path::{Path, PathBuf};

/// The workspace: the folder above core.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Folders of the workspace holding nothing of ours to check: builds,
/// installed packages, recorded inputs, vendored and served files.
pub const NOT_OURS: [&str; 8] = [
    "target",
    "node_modules",
    "dist",
    "fixtures",
    "vendor",
    "workspace",
    "test-results",
    "served",
];

/// Whether a folder or file of this name is kept.
type Keep<'a> = &'a dyn Fn(&str) -> bool;

/// Every file below `root` in a folder `folder` keeps (by name) and with a name `file` keeps,
/// as (path shown relative to `root`, path), sorted.
pub fn files(root: &Path, folder: Keep, file: Keep) -> Vec<(String, PathBuf)> {
    fn walk(dir: &Path, shown: &str, keep: (Keep, Keep), out: &mut Vec<(String, PathBuf)>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let here = if shown.is_empty() {
                name.clone()
            } else {
                format!("{shown}/{name}")
            };
            if path.is_dir() {
                if keep.0(&name) {
                    walk(&path, &here, keep, out);
                }
            } else if keep.1(&name) {
                out.push((here, path));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, "", (folder, file), &mut out);
    out
}
