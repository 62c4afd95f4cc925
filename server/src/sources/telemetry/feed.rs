//! A Collector's file exporter output in a watched folder: one file of
//! OTLP JSON lines holding many sessions (every machine the Collector hears
//! from). Its lines are fed to the [`Store`] as if they had been posted, so
//! each session is a task of its own, joined with its transcript by its id,
//! as telemetry received directly is. What was fed is remembered in the
//! store (`.fed.json`: bytes fed per file), so a restart feeds only what
//! was written since, and a file that shrank (rotated) is fed from its start.

use super::requests::split_line;
use super::Store;
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The store's record of what was fed from each file (hidden: the folder's
/// listing leaves it out).
const LEDGER: &str = ".fed.json";

/// Lines kept in memory before they are written to the store.
const BATCH: usize = 512;

/// Feeds Collector files to the store.
pub struct Feed {
    store: Store,
    /// Bytes fed so far, per file.
    fed: BTreeMap<PathBuf, u64>,
}

impl Feed {
    /// The feed into the store in `dir`, with what earlier runs fed.
    pub fn open(dir: &Path) -> io::Result<Feed> {
        let store = Store::open(dir)?;
        let fed = fs::read(store.dir().join(LEDGER))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        Ok(Feed { store, fed })
    }

    /// Whether the telemetry file at `path`, whose first lines are `head`,
    /// is a Collector's: outside the store, with records of a session its
    /// name is not (the receiver names each file by its session).
    pub fn takes(&self, path: &Path, head: &str) -> bool {
        if path.starts_with(self.store.dir()) {
            return false;
        }
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        head.lines()
            .filter_map(split_line)
            .flatten()
            .any(|(session, _)| self.store.file_of(&session).file_stem() != Some(stem.as_ref()))
    }

    /// Feeds the whole lines of `path` written since the last feed, a
    /// batch at a time (a file of any size); how many lines the store got.
    /// A line that is no export request is skipped.
    pub fn feed(&mut self, path: &Path) -> io::Result<usize> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        let mut at = self
            .fed
            .get(path)
            .copied()
            .filter(|&at| at <= len)
            .unwrap_or(0);
        file.seek(SeekFrom::Start(at))?;
        let mut reader = BufReader::new(file.take(len - at));
        let mut line = Vec::new();
        let mut batch = Vec::new();
        let mut fed = 0;
        loop {
            line.clear();
            let read = reader.read_until(b'\n', &mut line)?;
            let whole = line.last() == Some(&b'\n');
            if whole {
                at += read as u64;
                batch.extend(
                    split_line(&String::from_utf8_lossy(&line))
                        .into_iter()
                        .flatten(),
                );
            }
            if !whole || batch.len() >= BATCH {
                fed += batch.len();
                self.store.append(&std::mem::take(&mut batch))?;
                self.fed.insert(path.to_path_buf(), at);
            }
            if !whole {
                break;
            }
        }
        let ledger = serde_json::to_vec(&self.fed).map_err(io::Error::other)?;
        fs::write(self.store.dir().join(LEDGER), ledger)?;
        Ok(fed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A trace export line with one span of each of `sessions`.
    fn spans(sessions: &[&str]) -> String {
        let spans: Vec<_> = sessions
            .iter()
            .enumerate()
            .map(|(n, s)| {
                json!({"traceId": "0af7651916cd43dd8448eb211c80319c",
                       "spanId": format!("b7ad6b716920333{n}"), "name": "claude_code.interaction",
                       "startTimeUnixNano": "1", "endTimeUnixNano": "2",
                       "attributes": [{"key": "session.id", "value": {"stringValue": s}}]})
            })
            .collect();
        json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).to_string()
    }

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("taskview-feed-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_collector_file_is_fed_to_the_store_a_file_per_session_once() {
        let dir = folder("once");
        let source = dir.join("otel.jsonl");
        fs::write(&source, format!("{}\n", spans(&["s-a", "s-b"]))).unwrap();
        let store = dir.join("store");
        let mut feed = Feed::open(&store).unwrap();
        assert!(feed.takes(&source, &fs::read_to_string(&source).unwrap()));
        assert_eq!(feed.feed(&source).unwrap(), 2);
        let lines = |s: &str| {
            fs::read_to_string(store.join(format!("{s}.jsonl")))
                .unwrap()
                .lines()
                .count()
        };
        assert_eq!((lines("s-a"), lines("s-b")), (1, 1));
        // Again, and after a restart: nothing new, nothing fed twice.
        assert_eq!(feed.feed(&source).unwrap(), 0);
        let mut restarted = Feed::open(&store).unwrap();
        assert_eq!(restarted.feed(&source).unwrap(), 0);
        // A line written since (and one cut mid-write) : the whole one is fed.
        let mut text = fs::read_to_string(&source).unwrap();
        text.push_str(&format!("{}\n{}", spans(&["s-a"]), &spans(&["s-c"])[..20]));
        fs::write(&source, text).unwrap();
        assert_eq!(restarted.feed(&source).unwrap(), 1);
        assert_eq!((lines("s-a"), lines("s-b")), (2, 1));
        assert!(!store.join("s-c.jsonl").exists());
    }

    #[test]
    fn a_file_named_by_its_one_session_or_in_the_store_is_read_as_it_is() {
        let dir = folder("own");
        let feed = Feed::open(&dir.join("store")).unwrap();
        let line = spans(&["s-a"]);
        assert!(!feed.takes(&dir.join("s-a.jsonl"), &line));
        assert!(!feed.takes(&dir.join("store/otel.jsonl"), &line));
        assert!(feed.takes(&dir.join("otel.jsonl"), &line));
        assert!(!feed.takes(&dir.join("otel.jsonl"), "not telemetry\n"));
    }
}
