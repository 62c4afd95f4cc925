//! Opening a big file progressively (docs/behaviour.md §10): events come in chunks, so
//! the first screen of rows shows while the rest is still being read, and the
//! caller can yield to the browser between chunks and show how far it got.
//!
//! A kandev message list is read element by element (nothing is parsed ahead
//! of the chunk asked for); the other dialects fold records across the whole
//! file, so they are imported whole and handed out in chunks.
//!
//! Chunk sizes follow [`next_chunk_size`]: a small first chunk (the first
//! screen), then chunks sized to keep the page busy for about one frame.

use super::detect::{detect, import_any_with_files, Dialect, ImportError};
use super::kandev;
use crate::model::event::Event;

/// A file being opened. See the module docs.
pub struct Progressive {
    dialect: Dialect,
    source: Source,
}

enum Source {
    /// The file's text and how far into it the element reader is.
    Kandev { text: String, offset: usize },
    /// Events already imported, handed out from `next`.
    Imported { events: Vec<Event>, next: usize },
}

impl Progressive {
    /// Detects the dialect of `text` and prepares to read it. A saved
    /// messages page is recognised from its first bytes; anything else is
    /// detected from its content.
    pub fn open(text: String) -> Result<Progressive, ImportError> {
        Progressive::open_with_files(text, &[])
    }

    /// Like `open`, with the files found beside the transcript (a Claude
    /// Code session's subagent files; see `import_any_with_files`).
    pub fn open_with_files(
        text: String,
        files: &[(&str, &str)],
    ) -> Result<Progressive, ImportError> {
        if kandev::opens_with_message_list(&text) {
            return Ok(Progressive {
                dialect: Dialect::Kandev,
                source: Source::Kandev { text, offset: 0 },
            });
        }
        match detect(&text) {
            Some(Dialect::Kandev) if kandev::Stream::new(&text).is_ok() => Ok(Progressive {
                dialect: Dialect::Kandev,
                source: Source::Kandev { text, offset: 0 },
            }),
            _ => {
                let import = import_any_with_files(&text, files)?;
                Ok(Progressive {
                    dialect: import.dialect,
                    source: Source::Imported {
                        events: import.events,
                        next: 0,
                    },
                })
            }
        }
    }

    /// The file's dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The next at most `max` events, or `None` when the file is read.
    pub fn next_chunk(&mut self, max: usize) -> Option<Vec<Event>> {
        let chunk = match &mut self.source {
            Source::Kandev { text, offset } => {
                // The stream restarts where the previous chunk ended.
                let mut stream = kandev::Stream::new(text).ok()?;
                stream.skip_bytes(*offset);
                let chunk: Vec<Event> = stream.by_ref().take(max).collect();
                *offset = stream.offset();
                chunk
            }
            Source::Imported { events, next } => {
                let end = (*next + max).min(events.len());
                let chunk = events[*next..end].to_vec();
                *next = end;
                chunk
            }
        };
        (!chunk.is_empty()).then_some(chunk)
    }

    /// How far reading is, from 0 to 1.
    pub fn progress(&self) -> f64 {
        match &self.source {
            Source::Kandev { text, offset } => {
                let stream = kandev::Stream::new(text).ok();
                stream.map_or(1.0, |mut s| {
                    s.skip_bytes(*offset);
                    s.progress()
                })
            }
            Source::Imported { events, next } => {
                if events.is_empty() {
                    1.0
                } else {
                    *next as f64 / events.len() as f64
                }
            }
        }
    }
}

/// Events in the first chunk: a first screen of rows, whatever the file's length.
pub const FIRST_CHUNK: usize = 200;
/// How long one chunk should keep the page busy before it yields, in
/// milliseconds (about one frame).
pub const CHUNK_BUDGET_MS: f64 = 16.0;
/// Bounds of a chunk's size, in events.
const CHUNK_SIZES: (usize, usize) = (50, 20_000);

/// The size of the chunk after one of `last` events that took `elapsed_ms`
/// to read and lay out: the number that fits [`CHUNK_BUDGET_MS`] at that
/// pace, at most twice the last one (a fast chunk may be a lucky one).
pub fn next_chunk_size(last: usize, elapsed_ms: f64) -> usize {
    let per_event = elapsed_ms / last.max(1) as f64;
    let fits = if per_event > 0.0 {
        (CHUNK_BUDGET_MS / per_event) as usize
    } else {
        usize::MAX
    };
    fits.min(last.saturating_mul(2))
        .clamp(CHUNK_SIZES.0, CHUNK_SIZES.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::import::test_support::ids;

    #[test]
    fn a_kandev_list_comes_in_chunks_in_order_with_progress() {
        let list: Vec<String> = (0..7).map(|n| format!(r#"{{"id":"m{n}"}}"#)).collect();
        let text = format!(r#"{{"messages":[{}]}}"#, list.join(","));
        let mut p = Progressive::open(text).unwrap();
        assert_eq!(p.dialect(), Dialect::Kandev);
        assert_eq!(p.progress(), 0.0);
        let mut all = Vec::new();
        let mut sizes = Vec::new();
        let mut last = 0.0;
        while let Some(chunk) = p.next_chunk(3) {
            sizes.push(chunk.len());
            all.extend(chunk);
            assert!(p.progress() > last);
            last = p.progress();
        }
        assert_eq!(sizes, [3, 3, 1]);
        assert_eq!(ids(&all), ["m0", "m1", "m2", "m3", "m4", "m5", "m6"]);
        assert_eq!(p.progress(), 1.0);
    }

    #[test]
    fn other_dialects_are_imported_whole_and_handed_out_in_chunks() {
        let text = r#"{"turns":[{"turnId":"t1","userMessage":"hi"},{"turnId":"t2","userMessage":"again"}]}"#;
        let mut p = Progressive::open(text.to_string()).unwrap();
        assert_eq!(p.dialect(), Dialect::Gadget);
        let first = p.next_chunk(1).unwrap();
        assert_eq!(first.len(), 1);
        assert!(p.progress() > 0.0 && p.progress() < 1.0);
        while p.next_chunk(1).is_some() {}
        assert_eq!(p.progress(), 1.0);
    }

    #[test]
    fn a_kandev_wrapper_without_a_messages_key_is_imported_whole() {
        let mut p = Progressive::open(r#"{"response":[{"id":"a"}]}"#.into()).unwrap();
        assert_eq!(p.dialect(), Dialect::Kandev);
        assert_eq!(ids(&p.next_chunk(10).unwrap()), ["a"]);
    }

    #[test]
    fn a_session_opens_with_its_subagent_files() {
        let main = concat!(
            r#"{"type":"assistant","uuid":"a1","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"p","subagent_type":"Explore"}}]}}"#,
            "\n",
            r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok\nagentId: ab12"}]}}"#
        );
        let child = r#"{"type":"assistant","uuid":"c1","sessionId":"s","isSidechain":true,"agentId":"ab12","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Read","input":{}}]}}"#;
        let mut p = Progressive::open_with_files(
            main.to_string(),
            &[("s/subagents/agent-ab12.jsonl", child)],
        )
        .unwrap();
        assert_eq!(p.dialect(), Dialect::ClaudeCode);
        assert_eq!(ids(&p.next_chunk(10).unwrap()), ["t1", "t2"]);
    }

    #[test]
    fn chunks_grow_toward_one_frame_of_work_and_shrink_when_slow() {
        // 200 events in 4 ms: 800 would fit, but a chunk at most doubles.
        assert_eq!(next_chunk_size(FIRST_CHUNK, 4.0), 400);
        // 1,000 events in 32 ms: half as many fit.
        assert_eq!(next_chunk_size(1000, 32.0), 500);
        // A clock that did not move, or went back: double.
        assert_eq!(next_chunk_size(300, 0.0), 600);
        assert_eq!(next_chunk_size(300, -5.0), 600);
        // Bounds: a very slow chunk still reads some events, a fast one not too many.
        assert_eq!(next_chunk_size(100, 10_000.0), 50);
        assert_eq!(next_chunk_size(15_000, 1.0), 20_000);
        assert_eq!(next_chunk_size(0, f64::NAN), 50);
    }

    #[test]
    fn an_unreadable_file_is_refused_at_open() {
        assert!(Progressive::open("garbage".into()).is_err());
        assert!(Progressive::open(String::new()).is_err());
    }
}
