//! What the board knows of a session without importing it: a bounded read
//! of its head and tail (the first and last `WINDOW` bytes of a file whose
//! dialect is written line by line) gives its title, its Claude Code session
//! id and whether its agent is working. A whole-document dialect is read
//! whole (those files are small).

use super::import_recording;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use taskview_core::model::event::Event;
use taskview_core::read::import::title::session_title;
use taskview_core::read::import::working::agent_working;
use taskview_core::read::import::{claude_code, detect, Dialect};

/// How much of each end of a line-by-line session is read.
const WINDOW: u64 = 64 << 10;

/// A session as the index knows it.
#[derive(Debug, Default)]
pub(super) struct Summary {
    pub claude_session_id: Option<String>,
    pub title: Option<String>,
    /// What its newest records say of its agent (`import::working`).
    pub said_working: Option<bool>,
    /// It is telemetry (OTLP JSON lines), which may join its session's transcript.
    pub telemetry: bool,
    /// Telemetry of metrics alone, read whole: no session to list (metrics
    /// that name none, which the receiver keeps apart).
    pub metrics_only: bool,
}

/// Dialects written one record per line, which can be read by their ends.
fn by_lines(dialect: Option<Dialect>) -> bool {
    dialect.is_some_and(Dialect::follows)
}

/// Reads up to `len` bytes of `file` from `from`.
fn read_at(file: &mut File, from: u64, len: u64) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The text of `bytes`, lossy where a multi-byte character was cut at a window's edge.
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The head of a file: its first whole lines within `WINDOW` bytes (or all
/// of a shorter file).
pub(super) fn read_head(path: &Path) -> Result<String, String> {
    let mut file = File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = read_at(&mut file, 0, WINDOW).map_err(|e| e.to_string())?;
    if bytes.len() as u64 == WINDOW {
        bytes.truncate(super::tail::whole_lines(&bytes));
    }
    Ok(text(&bytes))
}

/// Summarizes the session in `path` from its ends (or whole, when it is
/// small or not written by lines).
pub(super) fn summarize(path: &Path) -> Result<Summary, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    let head = read_head(path)?;
    let dialect = detect(&head);
    let (whole, tail) = if meta.len() <= 2 * WINDOW || !by_lines(dialect) {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let whole = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
        (true, whole)
    } else {
        let mut file = File::open(path).map_err(|e| e.to_string())?;
        let bytes = read_at(&mut file, meta.len() - WINDOW, WINDOW).map_err(|e| e.to_string())?;
        let first_line_end = bytes
            .iter()
            .position(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        (false, text(&bytes[first_line_end..]))
    };
    let dialect = if whole { detect(&tail) } else { dialect };
    let first = if whole { tail.as_str() } else { head.as_str() };
    let events = match import_recording(first, &[]) {
        Ok(events) => events,
        Err(e) if whole => return Err(e),
        Err(_) => Vec::new(),
    };
    let ends = if whole {
        tail.clone()
    } else {
        format!("{head}{tail}")
    };
    Ok(Summary {
        claude_session_id: (dialect == Some(Dialect::ClaudeCode))
            .then(|| claude_code::session_id(first))
            .flatten(),
        title: session_title(&ends, &events),
        said_working: dialect.and_then(|d| agent_working(d, &tail)),
        telemetry: dialect == Some(Dialect::Otlp),
        metrics_only: whole
            && dialect == Some(Dialect::Otlp)
            && events.iter().all(
                |e| matches!(e, Event::NotShown { kind, .. } if kind == "OpenTelemetry metrics"),
            ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(kind: &str, n: usize, text: &str) -> String {
        let message = if kind == "user" {
            json!({"role": "user", "content": text})
        } else {
            json!({"id": format!("m{n}"), "role": "assistant", "model": "m",
                   "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"})
        };
        let record = json!({"type": kind, "uuid": format!("{kind}{n}"), "sessionId": "s",
                            "timestamp": "2026-06-01T10:00:00Z", "message": message});
        format!("{record}\n")
    }

    #[test]
    fn a_long_session_is_summarized_from_its_ends_alone() {
        let path =
            std::env::temp_dir().join(format!("taskview-index-{}.jsonl", std::process::id()));
        let mut text = record("user", 0, "Audit the billing webhooks");
        for n in 1..4000 {
            text.push_str(&record(
                "assistant",
                n,
                "Still reading the handlers, nothing yet.",
            ));
        }
        // A title in the middle is past both ends: the first prompt titles it.
        let middle = text.len() / 2;
        let middle = middle + text[middle..].find('\n').unwrap() + 1;
        text.insert_str(
            middle,
            "{\"type\":\"custom-title\",\"customTitle\":\"Hidden\",\"sessionId\":\"s\"}\n",
        );
        text.push_str(&record("user", 4000, "And the retries?"));
        assert!(text.len() as u64 > 4 * WINDOW);
        std::fs::write(&path, &text).unwrap();
        let summary = summarize(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(summary.title.as_deref(), Some("Audit the billing webhooks"));
        assert_eq!(
            summary.said_working,
            Some(true),
            "its newest record is a prompt"
        );
        assert_eq!(summary.claude_session_id.as_deref(), Some("s"));
    }

    #[test]
    fn a_whole_document_is_read_whole() {
        let path = std::env::temp_dir().join(format!("taskview-index-{}.json", std::process::id()));
        let filler = "x".repeat(300 << 10);
        let doc = json!([{"id": "a", "content": filler},
                         {"id": "u", "author_type": "user", "content": "Tidy the notes"}]);
        std::fs::write(&path, doc.to_string()).unwrap();
        let summary = summarize(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(summary.title.as_deref(), Some("Tidy the notes"));
        assert_eq!(summary.said_working, None);
    }

    #[test]
    fn telemetry_of_metrics_alone_is_no_session_to_list() {
        let otlp = |name: &str| {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tests/fixtures/captures-otlp/"
            )
            .to_string()
                + "qwen-code-0.24.4/parallel-wave/otlp/"
                + name
        };
        for (file, metrics_only) in [("0007-metrics.json", true), ("0005-traces.json", false)] {
            let body: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(otlp(file)).unwrap()).unwrap();
            let path = std::env::temp_dir().join(format!(
                "taskview-index-{}-{file}.jsonl",
                std::process::id()
            ));
            std::fs::write(&path, format!("{body}\n")).unwrap();
            let summary = summarize(&path).unwrap();
            std::fs::remove_file(&path).unwrap();
            assert!(summary.telemetry, "{file}");
            assert_eq!(summary.metrics_only, metrics_only, "{file}");
        }
    }
}
