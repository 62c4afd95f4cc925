//! What the receiver accepts, kept: one file per session under a folder,
//! each line one `Export*ServiceRequest` in OTLP JSON (the lines an
//! OpenTelemetry Collector's file exporter writes), appended before the
//! sender is answered.

use sha2::{Digest, Sha256};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The folder of telemetry files; one writer at a time, so lines never
/// interleave.
pub struct Store {
    dir: PathBuf,
    writing: Mutex<()>,
}

impl Store {
    /// The store in `dir`, made (private to its owner) if missing.
    pub fn open(dir: &Path) -> io::Result<Store> {
        fs::create_dir_all(dir)?;
        private(dir)?;
        Ok(Store {
            dir: dir.to_path_buf(),
            writing: Mutex::new(()),
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file a session's lines go to.
    pub fn file_of(&self, session: &str) -> PathBuf {
        self.dir.join(format!("{}.jsonl", file_stem(session)))
    }

    /// Appends each `(session, line)`; returns once the operating system
    /// holds them all (a crash of the server loses none).
    pub fn append(&self, lines: &[(String, String)]) -> io::Result<()> {
        let _one_writer = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        for (session, line) in lines {
            let mut file = open_appending(&self.file_of(session))?;
            let mut record = Vec::with_capacity(line.len() + 1);
            record.extend_from_slice(line.as_bytes());
            record.push(b'\n');
            file.write_all(&record)?;
        }
        Ok(())
    }
}

fn open_appending(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

#[cfg(unix)]
fn private(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn private(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// A file name for a session id: the id itself when it is a plain name
/// (what the agents send: UUIDs), else a digest of it, so no id reaches
/// outside the folder or collides with another.
fn file_stem(session: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
    if !session.is_empty()
        && session.len() <= 100
        && !session.starts_with('.')
        && session.chars().all(plain)
    {
        return session.to_string();
    }
    let digest = Sha256::digest(session.as_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("session-{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_names_its_file_only_when_it_stays_inside_the_folder() {
        assert_eq!(
            file_stem("0b9c7c1e-6d3a-4c21-9f1e-2f4b8d1c0a11"),
            "0b9c7c1e-6d3a-4c21-9f1e-2f4b8d1c0a11"
        );
        for hostile in [
            "../../etc/passwd",
            "..",
            "",
            "a/b",
            "x\0y",
            &"a".repeat(300),
        ] {
            let stem = file_stem(hostile);
            assert!(stem.starts_with("session-"), "{hostile:?} → {stem}");
            assert_eq!(stem.len(), "session-".len() + 32);
        }
        assert_ne!(file_stem("a/b"), file_stem("a/c"));
    }
}
