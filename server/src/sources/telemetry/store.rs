//! What the receiver accepts, kept: one file per session under a folder,
//! each line one `Export*ServiceRequest` in OTLP JSON (the lines an
//! OpenTelemetry Collector's file exporter writes), appended before the
//! sender is answered.
//!
//! The folder has a size quota and an age (docs/security.md "Telemetry";
//! `--otlp-max-mb`, `--otlp-keep-days`): a session file not written for
//! longer than the age is removed, and one append that would take the folder
//! past its quota first removes the sessions written longest ago (said in
//! the log); what still does not fit is not written, and the receiver refuses
//! it. Every file counts as at least [`SMALLEST_CHARGE`], so the quota also
//! bounds how many sessions the folder holds. Files kept by an older
//! taskview are read again once, at open, and held to the receiver's limits
//! (`vet`).

mod vet;

pub use vet::{read_line, LineEnd, LONGEST_LINE};

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, SystemTime};

/// What a session file counts against the quota at least.
pub const SMALLEST_CHARGE: u64 = 64 << 10;

/// How much the folder keeps, and for how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keeping {
    /// The quota of the session files, in bytes (`--otlp-max-mb`).
    pub max_bytes: u64,
    /// How long a session not written since is kept (`--otlp-keep-days`).
    pub keep_for: Duration,
}

impl Keeping {
    /// `--otlp-max-mb`'s default.
    pub const DEFAULT_MB: u64 = 1024;
    /// `--otlp-keep-days`'s default.
    pub const DEFAULT_DAYS: u64 = 30;
}

impl Default for Keeping {
    fn default() -> Self {
        Keeping {
            max_bytes: Self::DEFAULT_MB << 20,
            keep_for: Duration::from_secs(Self::DEFAULT_DAYS * 86_400),
        }
    }
}

/// One kept session file.
#[derive(Clone, Copy, Debug)]
struct Kept {
    bytes: u64,
    written: SystemTime,
}

impl Kept {
    fn charge(&self) -> u64 {
        charge(self.bytes)
    }
}

fn charge(bytes: u64) -> u64 {
    bytes.max(SMALLEST_CHARGE)
}

/// The session files and what they count, kept in step with every write.
#[derive(Default)]
struct Files {
    by_name: HashMap<String, Kept>,
    charged: u64,
}

/// The folder of telemetry files; one writer at a time (the receiver and
/// a Collector file's feed share it), so lines never interleave.
pub struct Store {
    dir: PathBuf,
    keeping: Keeping,
    files: Mutex<Files>,
}

/// The stores open in this process, by folder: one per folder.
static OPEN: Mutex<Vec<(PathBuf, Weak<Store>)>> = Mutex::new(Vec::new());

impl Store {
    /// The store in `dir`, made (private to its owner) if missing, its files
    /// held to the limits and to `keeping`; the one already open for `dir`
    /// in this process, if any (with its own keeping).
    pub fn open(dir: &Path, keeping: Keeping) -> io::Result<Arc<Store>> {
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|(_, store)| store.strong_count() > 0);
        if let Some(store) = open
            .iter()
            .find(|(d, _)| d == dir)
            .and_then(|(_, s)| s.upgrade())
        {
            return Ok(store);
        }
        fs::create_dir_all(dir)?;
        private(dir)?;
        vet::kept_files(dir)?;
        let store = Arc::new(Store {
            dir: dir.to_path_buf(),
            keeping,
            files: Mutex::new(Files::default()),
        });
        store.rescan()?;
        store.sweep();
        open.push((dir.to_path_buf(), Arc::downgrade(&store)));
        Ok(store)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file a session's lines go to.
    pub fn file_of(&self, session: &str) -> PathBuf {
        self.dir.join(file_name(session))
    }

    fn files(&self) -> MutexGuard<'_, Files> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads what the folder holds.
    fn rescan(&self) -> io::Result<()> {
        let mut files = Files::default();
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let meta = entry.metadata()?;
            if !is_session_file(&name) || !meta.is_file() {
                continue;
            }
            let kept = Kept {
                bytes: meta.len(),
                written: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            };
            files.charged += kept.charge();
            files.by_name.insert(name, kept);
        }
        *self.files() = files;
        Ok(())
    }

    /// Removes the sessions not written for longer than the age (said in
    /// the log); done at open and then hourly.
    pub fn sweep(&self) {
        let Some(before) = SystemTime::now().checked_sub(self.keeping.keep_for) else {
            return;
        };
        let mut files = self.files();
        let old: Vec<String> = files
            .by_name
            .iter()
            .filter(|(_, kept)| kept.written < before)
            .map(|(name, _)| name.clone())
            .collect();
        if old.is_empty() {
            return;
        }
        let freed = self.remove(&mut files, &old);
        tracing::info!(
            "telemetry: removed {} sessions not written for {} days ({}) from {}: {}",
            old.len(),
            self.keeping.keep_for.as_secs() / 86_400,
            megabytes(freed),
            self.dir.display(),
            listed(&old)
        );
    }

    /// Removes the session files `names`; the bytes they held.
    fn remove(&self, files: &mut Files, names: &[String]) -> u64 {
        let mut freed = 0;
        for name in names {
            if let Some(kept) = files.by_name.remove(name) {
                files.charged -= kept.charge();
                freed += kept.bytes;
                if let Err(e) = fs::remove_file(self.dir.join(name)) {
                    tracing::warn!("telemetry: cannot remove {name}: {e}");
                }
            }
        }
        freed
    }

    /// Makes room for `need` more charged bytes by removing the sessions
    /// written longest ago, except those in `keep` (said in the log).
    fn make_room(&self, files: &mut Files, need: u64, keep: &[String]) {
        if files.charged + need <= self.keeping.max_bytes {
            return;
        }
        let mut by_age: Vec<(SystemTime, String)> = files
            .by_name
            .iter()
            .filter(|(name, _)| !keep.contains(name))
            .map(|(name, kept)| (kept.written, name.clone()))
            .collect();
        by_age.sort();
        let mut going = Vec::new();
        let mut freed = 0;
        for (_, name) in by_age {
            if files.charged + need <= self.keeping.max_bytes + freed {
                break;
            }
            freed += files.by_name[&name].charge();
            going.push(name);
        }
        let bytes = self.remove(files, &going);
        if !going.is_empty() {
            tracing::warn!(
                "telemetry: {} is at its quota of {} (--otlp-max-mb): removed the {} sessions \
                 written longest ago ({}): {}",
                self.dir.display(),
                megabytes(self.keeping.max_bytes),
                going.len(),
                megabytes(bytes),
                listed(&going)
            );
        }
    }

    /// Appends each session's lines, returning once the operating system
    /// holds them (a crash of the server loses none). Room is made first;
    /// the sessions whose lines still do not fit under the quota are not
    /// written: their indices in `batch` are returned.
    pub fn append(&self, batch: &[(&str, &[String])]) -> io::Result<Vec<usize>> {
        let mut files = self.files();
        let names: Vec<String> = batch.iter().map(|(s, _)| file_name(s)).collect();
        let added: Vec<u64> = batch
            .iter()
            .map(|(_, lines)| lines.iter().map(|l| l.len() as u64 + 1).sum())
            .collect();
        let extra = |files: &Files, name: &str, added: u64| {
            let before = files.by_name.get(name).map_or(0, |k| k.bytes);
            let charged = files.by_name.get(name).map_or(0, Kept::charge);
            charge(before + added) - charged
        };
        let need = names
            .iter()
            .zip(&added)
            .map(|(n, a)| extra(&files, n, *a))
            // What cannot fit even in an empty folder is not made room for.
            .filter(|&more| more <= self.keeping.max_bytes)
            .sum();
        self.make_room(&mut files, need, &names);
        let mut refused = Vec::new();
        for (at, ((_, lines), name)) in batch.iter().zip(&names).enumerate() {
            let more = extra(&files, name, added[at]);
            if files.charged + more > self.keeping.max_bytes {
                refused.push(at);
                continue;
            }
            write_lines(&self.dir.join(name), lines)?;
            let kept = files.by_name.entry(name.clone()).or_insert(Kept {
                bytes: 0,
                written: SystemTime::now(),
            });
            kept.bytes += added[at];
            kept.written = SystemTime::now();
            files.charged += more;
        }
        Ok(refused)
    }

    /// What the session files count against the quota (tests).
    pub fn charged(&self) -> u64 {
        self.files().charged
    }
}

/// Appends `lines` to the file at `path` in one write.
fn write_lines(path: &Path, lines: &[String]) -> io::Result<()> {
    let mut file = open_appending(path)?;
    let mut record = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        record.extend_from_slice(line.as_bytes());
        record.push(b'\n');
    }
    file.write_all(&record)
}

/// Whether a file of the folder is a session's (not the folder's own
/// records, which start with a dot).
fn is_session_file(name: &str) -> bool {
    name.ends_with(".jsonl") && !name.starts_with('.')
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / f64::from(1 << 20))
}

/// At most ten names, then how many more.
fn listed(names: &[String]) -> String {
    let mut shown: Vec<&str> = names.iter().take(10).map(String::as_str).collect();
    let more = format!("and {} more", names.len().saturating_sub(10));
    if names.len() > 10 {
        shown.push(&more);
    }
    shown.join(", ")
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

/// The file name of a session's lines.
fn file_name(session: &str) -> String {
    format!("{}.jsonl", file_stem(session))
}

/// A file stem for a session id: the id itself when it is a plain name
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
mod tests;
