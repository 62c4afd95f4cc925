//! Following a growing file by bytes: where the read stopped and which
//! file it was (its inode and first bytes),
//! so an append is read alone and a file truncated, replaced or rotated is
//! noticed and read again from the start. `Fold` turns the new bytes into
//! events.

use super::import_recording;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use taskview_core::event::Event;

/// How many first bytes tell one file from another at the same path.
const IDENTITY_BYTES: usize = 64;

/// What became of a followed file since its last read.
#[derive(Debug, PartialEq)]
pub(super) enum Growth {
    /// Nothing new.
    Same,
    /// Text appended since the last read (a last line may be unfinished).
    Appended(String),
    /// Not the file read so far (shorter, another inode, other first
    /// bytes, or not text): read it again from the start.
    Replaced,
    /// The file is gone.
    Gone,
}

/// A file read up to `offset`.
#[derive(Debug, Default)]
pub(super) struct Follower {
    offset: u64,
    inode: u64,
    head: Vec<u8>,
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

/// The length of `bytes` up to and with its last newline.
pub(super) fn whole_lines(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1)
}

impl Follower {
    /// Follows `path`, whose first `read` bytes (`bytes`) were read.
    pub(super) fn after_read(path: &Path, bytes: &[u8], read: usize) -> Follower {
        let inode = std::fs::metadata(path).map(|m| inode(&m)).unwrap_or(0);
        Follower {
            offset: read as u64,
            inode,
            head: bytes[..bytes.len().min(IDENTITY_BYTES)].to_vec(),
        }
    }

    /// Reads what was appended to `path` since the last read.
    pub(super) fn grow(&mut self, path: &Path) -> Growth {
        match self.try_grow(path) {
            Ok(growth) => growth,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Growth::Gone,
            Err(e) => {
                tracing::warn!("cannot follow {}: {e}", path.display());
                Growth::Same
            }
        }
    }

    fn try_grow(&mut self, path: &Path) -> std::io::Result<Growth> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        if inode(&meta) != self.inode || meta.len() < self.offset {
            return Ok(Growth::Replaced);
        }
        let mut head = vec![0; self.head.len()];
        file.read_exact(&mut head)?;
        if head != self.head {
            return Ok(Growth::Replaced);
        }
        if meta.len() == self.offset {
            return Ok(Growth::Same);
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut bytes = Vec::with_capacity((meta.len() - self.offset) as usize);
        file.take(meta.len() - self.offset)
            .read_to_end(&mut bytes)?;
        if self.head.len() < IDENTITY_BYTES && self.offset < IDENTITY_BYTES as u64 {
            return Ok(Growth::Replaced);
        }
        // A character cut in two by the writer waits for its other half.
        let valid = match std::str::from_utf8(&bytes) {
            Ok(_) => bytes.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => return Ok(Growth::Replaced),
        };
        if valid == 0 {
            return Ok(Growth::Same);
        }
        bytes.truncate(valid);
        self.offset += valid as u64;
        Ok(Growth::Appended(
            String::from_utf8(bytes).unwrap_or_default(),
        ))
    }
}

/// A session imported whole, fed the lines appended to its file.
///
/// Stand-in until core's byte follower lands: it keeps the text read so far
/// and imports it again with the new lines, so the caller already has the
/// one call it will keep ("these new bytes give these events").
pub(super) struct Fold {
    text: String,
    files: Vec<(String, String)>,
}

impl Fold {
    /// Imports a session's `text` with the files read with it; the fold and
    /// every event.
    pub(super) fn new(
        text: String,
        files: Vec<(String, String)>,
    ) -> Result<(Fold, Vec<Event>), String> {
        let fold = Fold { text, files };
        let events = fold.import()?;
        Ok((fold, events))
    }

    /// The events of the session with `lines` appended (all of them, for now).
    pub(super) fn push(&mut self, lines: &str) -> Result<Vec<Event>, String> {
        self.text.push_str(lines);
        self.import()
    }

    /// The session's text read so far.
    pub(super) fn text(&self) -> &str {
        &self.text
    }

    fn import(&self) -> Result<Vec<Event>, String> {
        let files: Vec<(&str, &str)> = self
            .files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        import_recording(&self.text, &files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("taskview-tail-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("s.jsonl")
    }

    fn follow(path: &Path) -> Follower {
        let bytes = std::fs::read(path).unwrap();
        Follower::after_read(path, &bytes, bytes.len())
    }

    const FIRST: &str = "{\"type\":\"user\",\"n\":1,\"padding\":\"................................................\"}\n";

    #[test]
    fn appended_bytes_are_read_alone_and_a_cut_character_waits() {
        let path = temp("append");
        std::fs::write(&path, FIRST).unwrap();
        let mut follower = follow(&path);
        assert_eq!(follower.grow(&path), Growth::Same);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut file, b"{\"n\":2}\n{\"n\":").unwrap();
        assert_eq!(
            follower.grow(&path),
            Growth::Appended("{\"n\":2}\n{\"n\":".into())
        );
        assert_eq!(follower.grow(&path), Growth::Same);
        let e_acute = "é".as_bytes();
        std::io::Write::write_all(&mut file, &[b'"', e_acute[0]]).unwrap();
        assert_eq!(follower.grow(&path), Growth::Appended("\"".into()));
        std::io::Write::write_all(&mut file, &[e_acute[1], b'"', b'}', b'\n']).unwrap();
        assert_eq!(follower.grow(&path), Growth::Appended("é\"}\n".into()));
    }

    #[test]
    fn a_truncated_replaced_or_deleted_file_is_noticed() {
        let path = temp("replace");
        std::fs::write(&path, format!("{FIRST}{FIRST}")).unwrap();
        let mut follower = follow(&path);
        std::fs::write(&path, FIRST).unwrap();
        assert_eq!(follower.grow(&path), Growth::Replaced, "truncated");

        let mut follower = follow(&path);
        let other = path.with_extension("new");
        std::fs::write(&other, FIRST.replace("user", "asst")).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(follower.grow(&path), Growth::Replaced, "renamed over");

        let mut follower = follow(&path);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(follower.grow(&path), Growth::Gone);
    }
}
