//! Following a growing file by bytes: where the read stopped and which
//! file it was (its inode and first bytes),
//! so an append is read alone and a file truncated, replaced or rotated is
//! noticed and read again from the start. `Fold` turns the new bytes into
//! events.

use super::{import_recording, now_ms};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use taskview_core::model::card_facts::SessionFacts;
use taskview_core::model::event::Event;
use taskview_core::read::import::{card_facts, Follower};

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
pub(super) struct Offset {
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

impl Offset {
    /// Follows `path`, whose first `read` bytes (`bytes`) were read.
    pub(super) fn after_read(path: &Path, bytes: &[u8], read: usize) -> Offset {
        let inode = std::fs::metadata(path).map(|m| inode(&m)).unwrap_or(0);
        Offset {
            offset: read as u64,
            inode,
            head: bytes[..bytes.len().min(IDENTITY_BYTES)].to_vec(),
        }
    }

    /// Follows `path` from `offset`, its first bytes being `head` (a file
    /// read from its end first: `sessions::tail_first`).
    pub(super) fn at(path: &Path, head: &[u8], offset: u64) -> Offset {
        let inode = std::fs::metadata(path).map(|m| inode(&m)).unwrap_or(0);
        Offset {
            offset,
            inode,
            head: head[..head.len().min(IDENTITY_BYTES)].to_vec(),
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

/// A session imported whole, then followed by the bytes appended to it and
/// to the files read with it (core's `import::Follower`, which keeps its
/// fold between appends). A whole document is not followed: it is read
/// whole again on every change.
pub(super) struct Fold {
    follower: Option<Follower>,
    /// A session read whole (not followed): its card facts as read.
    card: SessionFacts,
    /// Unreadable records read so far (their messages' ids count them).
    unreadable: u64,
}

/// Whether the last line of `text`, without its newline, is a whole record
/// (a file that ends so); otherwise it is being written and waits.
fn ends_with_a_whole_record(text: &str) -> bool {
    let last = text.rsplit('\n').next().unwrap_or_default().trim();
    !last.is_empty() && serde_json::from_str::<serde_json::Value>(last).is_ok()
}

impl Fold {
    /// Imports a session's `text` with the files read with it
    /// (`(name, text)`); the fold and every event.
    pub(super) fn new(
        text: &str,
        files: &[(String, String)],
    ) -> Result<(Fold, Vec<Event>), String> {
        let mut follower = Follower::new(None);
        follower.set_clock(now_ms());
        let mut events = follower.push(text.as_bytes());
        for (name, body) in files {
            events.extend(follower.push_companion(name, body.as_bytes()));
        }
        if ends_with_a_whole_record(text) {
            events.extend(follower.flush());
        }
        if follower.needs_reread() || follower.dialect().is_none() {
            let files: Vec<(&str, &str)> = files
                .iter()
                .map(|(n, t)| (n.as_str(), t.as_str()))
                .collect();
            let events = import_recording(text, &files)?;
            let fold = Fold {
                follower: None,
                card: card_facts::whole(text, &files, &events, false),
                unreadable: 0,
            };
            return Ok((fold, events));
        }
        let unreadable = events
            .iter()
            .filter(|e| matches!(e, Event::Unreadable { .. }))
            .count() as u64;
        let fold = Fold {
            follower: Some(follower),
            card: SessionFacts::default(),
            unreadable,
        };
        Ok((fold, events))
    }

    /// Whether the session is followed by its bytes (false: a whole document).
    pub(super) fn follows(&self) -> bool {
        self.follower.is_some()
    }

    /// The events of `bytes` appended to the session's file (`companion`:
    /// to that file beside it, named as in `new`); `None` when they cannot
    /// be followed and the session must be read whole again.
    pub(super) fn push(&mut self, companion: Option<&str>, bytes: &[u8]) -> Option<Vec<Event>> {
        let follower = self.follower.as_mut()?;
        let mut events = follower.set_clock(now_ms());
        events.extend(match companion {
            None => follower.push(bytes),
            Some(name) => follower.push_companion(name, bytes),
        });
        (!follower.needs_reread()).then_some(events)
    }

    /// The events of the time that passed since the last read (a
    /// telemetry session gone quiet has ended: `Follower::set_clock`).
    pub(super) fn clock(&mut self) -> Vec<Event> {
        self.follower
            .as_mut()
            .map(|f| f.set_clock(now_ms()))
            .unwrap_or_default()
    }

    /// The memory a telemetry session's card tree takes, estimated (`None`:
    /// another dialect, counted by its file's size).
    pub(super) fn telemetry_bytes(&self) -> Option<u64> {
        self.follower.as_ref()?.telemetry_bytes()
    }

    /// Folds a telemetry session's spans into its cards (core's
    /// `Follower::fold_telemetry`).
    pub(super) fn fold_telemetry(&mut self) {
        if let Some(follower) = &mut self.follower {
            follower.fold_telemetry();
        }
    }

    /// Numbers an unreadable record read from now on.
    pub(super) fn next_unreadable(&mut self) -> u64 {
        self.unreadable += 1;
        self.unreadable
    }

    /// The session's title as its records so far give it.
    pub(super) fn title(&self) -> Option<String> {
        self.follower.as_ref()?.title()
    }

    /// The session's card facts as read so far (`working`: its agent is at
    /// work, so its newest request may still be writing its usage).
    pub(super) fn card_facts(&self, working: bool) -> SessionFacts {
        match &self.follower {
            Some(follower) => follower.card_facts(working),
            None => self.card.clone(),
        }
    }

    /// Whether its agent works, as its newest records say.
    pub(super) fn working(&self) -> Option<bool> {
        self.follower.as_ref()?.working()
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

    fn follow(path: &Path) -> Offset {
        let bytes = std::fs::read(path).unwrap();
        Offset::after_read(path, &bytes, bytes.len())
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

    /// One OTLP JSON line of one span.
    fn span_line(id: &str, parent: &str, name: &str, attrs: &[(&str, &str)]) -> String {
        let attributes: Vec<serde_json::Value> = attrs
            .iter()
            .map(|(k, v)| serde_json::json!({"key": k, "value": {"stringValue": v}}))
            .collect();
        let span = serde_json::json!({"spanId": id, "parentSpanId": parent, "name": name,
            "startTimeUnixNano": "1000000", "endTimeUnixNano": "2000000",
            "attributes": attributes});
        serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).to_string()
            + "\n"
    }

    #[test]
    fn a_telemetry_file_is_followed_by_its_new_lines_not_read_again() {
        let child = span_line(
            "a1",
            "e1",
            "claude_code.llm_request",
            &[("agent_id", "agent-1"), ("session.id", "s")],
        );
        let (mut fold, events) = Fold::new(&child, &[]).unwrap();
        assert!(fold.follows());
        assert!(events.iter().all(|e| !matches!(e, Event::MessageAdded(_))));
        // The spawning call arrives after its child (spans leave when they
        // end): the card comes with it, the child re-homed under it.
        let spawn = span_line(
            "e1",
            "",
            "claude_code.tool.execution",
            &[("tool_use_id", "toolu_1"), ("session.id", "s")],
        );
        let events = fold.push(None, spawn.as_bytes()).expect("followed");
        let cards: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                Event::MessageAdded(m) => Some(m.id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(cards, ["toolu_1"]);
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
