//! Dialect detection from content (never the file name) and the one entry
//! point the app and the server call: `import_any`.
//!
//! Detection order: a document that parses whole is gadget turns or a kandev
//! message list by shape (a one-line ACP or Claude Code file also parses
//! whole and is recognised by its record shape); otherwise the first lines
//! vote between ACP frames and Claude Code records; a damaged document falls
//! back to gadget (`"turns"` near the start) or kandev (`[`, or `"messages"`
//! near the start), whose importers keep everything before the damage.

use super::folder::{companion_path, session_name};
use super::{
    acp, claude_code, codex, copilot, gadget, gemini_cli, kandev, kimi, opencode, otlp, qwen_code,
};
use crate::model::event::Event;
use serde_json::Value;
use std::fmt;

/// A transcript format taskview can import.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// kandev message lists (`{messages: […]}`, a bare array, a saved response).
    Kandev,
    /// ACP JSON-RPC frames, one per line.
    Acp,
    /// Claude Code session JSONL.
    ClaudeCode,
    /// qwen-code chat recordings (JSONL, Gemini-style `parts`).
    QwenCode,
    /// Gemini CLI chat logs (JSONL: a header, messages, `$set` patches).
    GeminiCli,
    /// Codex CLI rollouts (JSONL `{timestamp, type, payload}` records).
    Codex,
    /// Gadget-style stored turns.
    Gadget,
    /// OpenTelemetry: OTLP JSON lines (`taskview serve`'s telemetry files,
    /// a Collector's file exporter).
    Otlp,
    /// GitHub Copilot CLI session events (`events.jsonl`, typed `{type, data}` envelopes).
    Copilot,
    /// OpenCode sessions (`opencode export` JSON, or its SQLite store).
    OpenCode,
    /// Kimi Code session folders (`agents/<agent id>/wire.jsonl`, one per agent).
    Kimi,
}

impl Dialect {
    /// Every dialect, in the order detection tries them.
    pub const ALL: [Dialect; 11] = [
        Dialect::Kandev,
        Dialect::Acp,
        Dialect::ClaudeCode,
        Dialect::QwenCode,
        Dialect::GeminiCli,
        Dialect::Codex,
        Dialect::Gadget,
        Dialect::Otlp,
        Dialect::Copilot,
        Dialect::OpenCode,
        Dialect::Kimi,
    ];

    /// A human name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Kandev => "kandev message list",
            Dialect::Acp => "ACP frames (JSON-RPC lines)",
            Dialect::ClaudeCode => "Claude Code session JSONL",
            Dialect::QwenCode => "qwen-code chat recording",
            Dialect::GeminiCli => "Gemini CLI chat log",
            Dialect::Codex => "Codex rollout",
            Dialect::Gadget => "gadget turns",
            Dialect::Otlp => "OpenTelemetry (OTLP JSON lines)",
            Dialect::Copilot => "Copilot CLI session events",
            Dialect::OpenCode => "OpenCode session export",
            Dialect::Kimi => "Kimi Code session wire",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A successful import: what the input was and what it became.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    pub dialect: Dialect,
    pub events: Vec<Event>,
}

/// Why an input could not be imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportError {
    /// The input is empty or whitespace.
    Empty,
    /// No dialect matched; every format in `tried` was considered.
    Unrecognized { tried: Vec<Dialect> },
    /// The input was recognised but its importer refused it.
    Failed { dialect: Dialect, message: String },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Empty => f.write_str("the file is empty"),
            ImportError::Unrecognized { tried } => {
                let names: Vec<&str> = tried.iter().map(|d| d.name()).collect();
                write!(
                    f,
                    "unrecognised transcript format (tried: {})",
                    names.join(", ")
                )
            }
            ImportError::Failed { dialect, message } => {
                write!(f, "could not read the {dialect}: {message}")
            }
        }
    }
}

impl std::error::Error for ImportError {}

/// How many leading lines vote in line-based detection.
const VOTING_LINES: usize = 64;

/// The dialect of `text`, judged from its content.
pub fn detect(text: &str) -> Option<Dialect> {
    let body = trimmed(text);
    if body.is_empty() {
        return None;
    }
    if body.len() > LARGE_DOCUMENT_BYTES {
        if let Some(dialect) = detect_large_document(body) {
            return Some(dialect);
        }
    }
    if let Ok(doc) = serde_json::from_str::<Value>(body) {
        return detect_document(&doc);
    }
    let mut votes = [
        (Dialect::Acp, 0usize),
        (Dialect::ClaudeCode, 0),
        (Dialect::QwenCode, 0),
        (Dialect::GeminiCli, 0),
        (Dialect::Codex, 0),
        (Dialect::Otlp, 0),
        (Dialect::Copilot, 0),
        (Dialect::Kimi, 0),
    ];
    for v in super::jsonl::leading_objects(body, VOTING_LINES) {
        votes[0].1 += usize::from(acp::is_frame(&v));
        votes[1].1 += usize::from(claude_code::is_record(&v));
        votes[2].1 += usize::from(qwen_code::is_record(&v));
        votes[3].1 += usize::from(gemini_cli::is_record(&v));
        votes[4].1 += usize::from(codex::is_record(&v));
        votes[5].1 += usize::from(otlp::is_record(&v));
        votes[6].1 += usize::from(copilot::is_record(&v));
        votes[7].1 += usize::from(kimi::is_record(&v));
    }
    // The most votes wins; on a tie the earlier (ACP before the logs).
    let (winner, most) =
        votes.iter().fold(
            (Dialect::Acp, 0),
            |best, &(d, n)| if n > best.1 { (d, n) } else { best },
        );
    if most > 0 {
        return Some(winner);
    }
    if gadget::looks_like(body) {
        Some(Dialect::Gadget)
    } else if kandev::looks_like(body) {
        Some(Dialect::Kandev)
    } else {
        None
    }
}

/// Above this size a whole document is recognised by its top-level keys
/// alone, without building it as a JSON tree (which costs ten times its size).
const LARGE_DOCUMENT_BYTES: usize = 1 << 20;

/// A large document that is a kandev list (a bare array, or `messages` /
/// `response` / `payload` at the top) or gadget turns (`turns`), read without
/// building it; `None` when it is not one document or says neither.
fn detect_large_document(body: &str) -> Option<Dialect> {
    use serde::de::IgnoredAny;
    if body.starts_with('[') {
        return serde_json::from_str::<IgnoredAny>(body)
            .ok()
            .map(|_| Dialect::Kandev);
    }
    let keys = serde_json::from_str::<std::collections::HashMap<String, IgnoredAny>>(body).ok()?;
    if keys.contains_key("turns") {
        Some(Dialect::Gadget)
    } else if keys.contains_key("projectHash") && keys.contains_key("messages") {
        Some(Dialect::GeminiCli)
    } else if keys.contains_key("info") && keys.contains_key("messages") {
        Some(Dialect::OpenCode)
    } else if ["messages", "response", "payload"]
        .iter()
        .any(|k| keys.contains_key(*k))
    {
        Some(Dialect::Kandev)
    } else {
        None
    }
}

/// The text without surrounding whitespace and byte-order marks.
fn trimmed(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

fn detect_document(doc: &Value) -> Option<Dialect> {
    if gadget::looks_like_value(doc) {
        Some(Dialect::Gadget)
    } else if acp::is_frame(doc) {
        Some(Dialect::Acp)
    } else if qwen_code::is_record(doc) {
        Some(Dialect::QwenCode)
    } else if codex::is_record(doc) {
        Some(Dialect::Codex)
    } else if copilot::is_record(doc) {
        Some(Dialect::Copilot)
    } else if kimi::is_record(doc) {
        Some(Dialect::Kimi)
    } else if claude_code::is_record(doc) {
        Some(Dialect::ClaudeCode)
    } else if otlp::is_record(doc) {
        Some(Dialect::Otlp)
    } else if gemini_cli::is_document(doc) {
        Some(Dialect::GeminiCli)
    } else if opencode::is_export(doc) {
        Some(Dialect::OpenCode)
    } else if kandev::messages_array(doc).is_some() {
        Some(Dialect::Kandev)
    } else {
        None
    }
}

/// Detects the dialect of `text` and imports it.
pub fn import_any(text: &str) -> Result<Import, ImportError> {
    import_any_with_files(text, &[])
}

/// Like `import_any`, with files found beside the transcript, as
/// `(name or relative path, contents)`. Claude Code and qwen-code read
/// `agent-<id>.jsonl` files as subagent transcripts and
/// `agent-<id>.meta.json` as their sidecars; other dialects ignore them.
pub fn import_any_with_files(text: &str, files: &[(&str, &str)]) -> Result<Import, ImportError> {
    if trimmed(text).is_empty() {
        return Err(ImportError::Empty);
    }
    let dialect = detect(text).ok_or(ImportError::Unrecognized {
        tried: Dialect::ALL.to_vec(),
    })?;
    let events = match dialect {
        Dialect::Kandev => kandev::import(text),
        Dialect::Acp => acp::import(text),
        Dialect::ClaudeCode => claude_code::import_with_files(text, files),
        Dialect::QwenCode => qwen_code::import_with_files(text, files),
        Dialect::GeminiCli => gemini_cli::import_with_files(text, files),
        Dialect::Codex => codex::import_with_files(text, files),
        Dialect::Gadget => gadget::import(text),
        Dialect::Otlp => otlp::import(text),
        Dialect::Copilot => copilot::import(text),
        Dialect::OpenCode => opencode::import_with_files(text, files),
        Dialect::Kimi => kimi::import_with_files(text, files),
    }
    .map_err(|message| ImportError::Failed { dialect, message })?;
    Ok(Import { dialect, events })
}

/// The files beside the transcript `text` it refers to and `found` does
/// not hold yet, as paths relative to its folder (`stem` is its file name
/// without `.jsonl`): a Claude Code session's or a qwen-code chat's
/// subagent files, or a Gemini CLI log's (`claude_code::companion_paths`,
/// `qwen_code::companion_paths`, `gemini_cli::companion_paths`); nothing
/// for other dialects.
pub fn wanted_companions(text: &str, stem: &str, found: &[(&str, &str)]) -> Vec<String> {
    match detect(text) {
        Some(Dialect::ClaudeCode) => claude_code::companion_paths(stem, text, found),
        Some(Dialect::QwenCode) => qwen_code::companion_paths(stem, text, found),
        Some(Dialect::GeminiCli) => gemini_cli::companion_paths(text, found),
        Some(Dialect::OpenCode) => opencode::companion_paths(text, found),
        Some(Dialect::Kimi) => kimi::companion_paths(text, found),
        _ => Vec::new(),
    }
}

/// The session a forked session was forked from: the first record its
/// dialect marks as a copy (Claude Code `requestSessionId`, qwen-code
/// `forkedFrom`); `None` for any other session.
pub fn fork_origin(text: &str) -> Option<String> {
    match detect(text)? {
        Dialect::ClaudeCode => claude_code::fork_origin(text),
        Dialect::QwenCode => qwen_code::fork_origin(text),
        Dialect::Codex => codex::fork_origin(text),
        _ => None,
    }
}

/// The folder a session opened by URL lists (a path beside it) when a run
/// it launched ran and no file names its transcript (a Claude Code
/// foreground Explore or Plan helper: `claude_code::listing_wanted`);
/// `None` otherwise, and for every other dialect.
pub fn wanted_listing(text: &str, stem: &str, found: &[(&str, &str)]) -> Option<String> {
    match detect(text) {
        Some(Dialect::ClaudeCode) => claude_code::listing_wanted(stem, text, found),
        _ => None,
    }
}

/// The files a listing of `folder` (`wanted_listing`) names that the
/// session reads and `found` does not hold.
pub fn listed_companions(folder: &str, listing: &str, found: &[(&str, &str)]) -> Vec<String> {
    claude_code::listed_companions(folder, listing, found)
}

/// How many rounds of companions a session may want (its subagents, their
/// sidecars and nested subagents, its workflow summaries, their journals and
/// agents, a fork's inherited runs).
pub const COMPANION_ROUNDS: usize = 6;

/// The files among `paths` (one folder's, relative to one root) that the
/// session at `session_path`, whose text is `text`, wants beside what it
/// has (`found`, by companion path) but its folder does not hold: the
/// [`wanted_companions`] of this round found by their path, as a folder is
/// read after its session is chosen (a fork's inherited runs lie under the
/// session it came from). Indices into `paths`.
pub fn wanted_among(
    session_path: &str,
    text: &str,
    paths: &[&str],
    found: &[(&str, &str)],
) -> Vec<usize> {
    let wanted = wanted_companions(text, session_name(session_path), found);
    if wanted.is_empty() {
        return Vec::new();
    }
    paths
        .iter()
        .enumerate()
        .filter(|(_, p)| wanted.contains(&companion_path(session_path, p)))
        .map(|(at, _)| at)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_documents_are_recognised_by_their_top_level_keys() {
        let filler = "x".repeat(LARGE_DOCUMENT_BYTES);
        let kandev = format!(r#"{{"messages":[{{"id":"m1","content":"{filler}"}}]}}"#);
        let bare = format!(r#"[{{"id":"m1","content":"{filler}"}}]"#);
        let gadget = format!(r#"{{"turns":[{{"turnId":"t1","userMessage":"{filler}"}}]}}"#);
        assert_eq!(detect(&kandev), Some(Dialect::Kandev));
        assert_eq!(detect(&bare), Some(Dialect::Kandev));
        assert_eq!(detect(&gadget), Some(Dialect::Gadget));
    }

    #[test]
    fn one_line_files_are_recognised_by_their_record_shape() {
        let acp = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#;
        let claude = r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}"#;
        let gadget = r#"{"turns":[{"turnId":"t1","userMessage":"hi"}]}"#;
        let kandev = r#"{"messages":[{"id":"m1","content":"hi"}]}"#;
        assert_eq!(detect(acp), Some(Dialect::Acp));
        assert_eq!(detect(claude), Some(Dialect::ClaudeCode));
        assert_eq!(detect(gadget), Some(Dialect::Gadget));
        assert_eq!(detect(kandev), Some(Dialect::Kandev));
    }

    #[test]
    fn damaged_documents_fall_back_by_their_opening() {
        assert_eq!(
            detect(r#"{"sessionId":"g","turns":[{"turnId":"t1","userMe"#),
            Some(Dialect::Gadget)
        );
        assert_eq!(
            detect(r#"{"messages":[{"id":"m1"},{"id":"#),
            Some(Dialect::Kandev)
        );
        assert_eq!(detect(r#"[{"id":"m1"},{"id":"#), Some(Dialect::Kandev));
    }

    #[test]
    fn nothing_matching_names_every_format_tried() {
        let err = import_any("hello, world").unwrap_err();
        let text = err.to_string();
        for d in Dialect::ALL {
            assert!(text.contains(d.name()), "{text}");
        }
        assert_eq!(import_any(" \n\u{feff}").unwrap_err(), ImportError::Empty);
        assert!(matches!(
            import_any(r#"{"hello": 1}"#),
            Err(ImportError::Unrecognized { .. })
        ));
    }
}
