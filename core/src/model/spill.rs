//! Spilled tool outputs (docs/behaviour.md §4; seeds: the SurfSense context-editing
//! proposal): a context editor moves an old tool output out of the agent's
//! window and leaves a `spill_<id>` placeholder; the agent can read it back
//! (`read_run` / `search_run`), and a stored record may hold the spill row
//! itself. A lossy admission cut (`…[truncated]`) leaves nothing to read back.
//!
//! This module recognises the three roles a message can play for a spill, so
//! the store can index them and the row view can link them.

use crate::model::message::Message;
use serde_json::Value;

/// A placeholder is short: a longer output that merely mentions a spill id is
/// an ordinary output.
const PLACEHOLDER_MAX_CHARS: usize = 400;

/// The tools that read a spill back (SurfSense `read_run` / `search_run`).
const READERS: [&str; 2] = ["read_run", "search_run"];

/// What a message is to a spill, by spill id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SpillLink {
    /// A tool output replaced by the `spill_<id>` placeholder.
    Placeholder(String),
    /// A message that holds the stored text: a reader's result or a spill row.
    Stored(String),
}

impl SpillLink {
    /// The spill id.
    pub fn id(&self) -> &str {
        match self {
            SpillLink::Placeholder(id) | SpillLink::Stored(id) => id,
        }
    }
}

/// The first `spill_<id>` token in `text` (the id at least 4 characters of
/// letters, digits, `-` or `_`), as written.
pub fn spill_id_in(text: &str) -> Option<&str> {
    let is_id = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut from = 0;
    while let Some(at) = text[from..].find("spill_") {
        let start = from + at;
        let preceded = text[..start].chars().next_back().is_some_and(is_id);
        let len = text[start + 6..]
            .find(|c: char| !is_id(c))
            .unwrap_or(text.len() - start - 6);
        if !preceded && len >= 4 {
            return Some(&text[start..start + 6 + len]);
        }
        from = start + 6;
    }
    None
}

/// The spill id of a tool output that is a placeholder: a short output
/// naming a `spill_<id>`.
pub fn placeholder_id(output: &str) -> Option<&str> {
    let t = output.trim();
    (t.chars().count() <= PLACEHOLDER_MAX_CHARS)
        .then(|| spill_id_in(t))
        .flatten()
}

/// True when `text` carries a lossy cut marker (docs/behaviour.md §4): `…[truncated]`,
/// `...[truncated]`, `[output truncated]`, `(truncated)`,
/// `[… 1200 characters truncated]` and the like.
pub fn has_truncation_marker(text: &str) -> bool {
    // Any case of `truncated`, found without copying the (possibly large) text.
    let hits = text
        .match_indices("runcated")
        .chain(text.match_indices("RUNCATED"));
    hits.into_iter().any(|(at, word)| {
        let Some(head) = text[..at].strip_suffix(['t', 'T']) else {
            return false;
        };
        let before = head.trim_end_matches([' ', '.', '…']);
        let after = &text[at + word.len()..];
        before.ends_with(['[', '(', '<']) || after.starts_with([']', ')', '>'])
    })
}

/// A tool's output text as the importers and kandev store it:
/// `normalized.generic.output`, else `metadata.result` (strings only).
pub fn tool_output(m: &Message) -> Option<&str> {
    let raw = &m.metadata.raw;
    raw.get("normalized")
        .and_then(|n| n.get("generic"))
        .and_then(|g| g.get("output"))
        .and_then(Value::as_str)
        .or_else(|| raw.get("result").and_then(Value::as_str))
}

/// The tool's name: `tool_name`, else `normalized.generic.name`, else the title.
fn tool_name(m: &Message) -> String {
    let raw = &m.metadata.raw;
    raw.get("tool_name")
        .and_then(Value::as_str)
        .or_else(|| {
            raw.get("normalized")
                .and_then(|n| n.get("generic"))
                .and_then(|g| g.get("name"))
                .and_then(Value::as_str)
        })
        .map(str::to_string)
        .unwrap_or_else(|| m.title())
}

/// True for a spill reader tool (`read_run`, `search_run`), named alone,
/// called (`read_run(…)`), or titled the way kandev titles a generic tool
/// call: the name, then its arguments (`read_run spill_…`).
pub fn is_reader(name: &str) -> bool {
    let name = name.trim().to_ascii_lowercase();
    READERS.iter().any(|r| {
        name.strip_prefix(r).is_some_and(|rest| {
            rest.is_empty() || rest.starts_with(['(', ':']) || rest.starts_with(char::is_whitespace)
        })
    })
}

/// The input of a tool call, wherever the source put it.
fn tool_input(m: &Message) -> Option<&Value> {
    let raw = &m.metadata.raw;
    raw.get("args").or_else(|| {
        raw.get("normalized")
            .and_then(|n| n.get("generic"))
            .and_then(|g| g.get("input"))
    })
}

/// What `m` is to a spill, if anything:
/// - a message with `metadata.spill_id` is a stored spill row (its text is
///   its `content`);
/// - a `read_run` / `search_run` call naming a spill id in its input (or, with
///   no input, its title or content) holds that spill's text in its output;
/// - any other tool call whose output is a placeholder is the spilled output.
pub fn link_of(m: &Message) -> Option<SpillLink> {
    if let Some(id) = m.metadata.raw_str("spill_id").and_then(spill_id_in) {
        return Some(SpillLink::Stored(id.to_string()));
    }
    if !m.kind.is_tool() {
        return None;
    }
    if is_reader(&tool_name(m)) {
        let input = tool_input(m).map(Value::to_string).unwrap_or_default();
        let title = m.title();
        let id = [input.as_str(), title.as_str(), m.content.as_str()]
            .into_iter()
            .find_map(spill_id_in)?;
        return Some(SpillLink::Stored(id.to_string()));
    }
    tool_output(m)
        .and_then(placeholder_id)
        .map(|id| SpillLink::Placeholder(id.to_string()))
}

/// The stored text a holder message carries: a spill row's content, a
/// reader's output.
pub fn stored_text(m: &Message) -> Option<&str> {
    tool_output(m).filter(|o| !o.trim().is_empty()).or_else(|| {
        m.metadata
            .raw_str("spill_id")
            .and(Some(m.content.as_str()))
            .filter(|c| !c.trim().is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: Value) -> Message {
        Message::from_value(&v).unwrap()
    }

    #[test]
    fn a_spill_id_is_a_whole_spill_token_of_at_least_four_id_characters() {
        assert_eq!(
            spill_id_in("[moved: spill_3f2a9c1e-77b0; read_run to read it]"),
            Some("spill_3f2a9c1e-77b0")
        );
        assert_eq!(spill_id_in("no_spill_here spill_ab"), None);
        assert_eq!(spill_id_in("prespill_abcd"), None);
        assert_eq!(spill_id_in("spill_abcd"), Some("spill_abcd"));
    }

    #[test]
    fn a_placeholder_is_a_short_output_naming_a_spill_and_a_long_one_is_not() {
        assert_eq!(placeholder_id("  spill_0a1b2c3d  "), Some("spill_0a1b2c3d"));
        let long = format!("{} spill_0a1b2c3d", "x".repeat(500));
        assert_eq!(placeholder_id(&long), None);
        assert_eq!(placeholder_id("all good"), None);
    }

    #[test]
    fn lossy_truncation_markers_are_recognised_and_the_word_alone_is_not() {
        for marked in [
            "page text …[truncated]",
            "page text ...[truncated]",
            "[output truncated]",
            "end (truncated)",
            "[… 1200 characters truncated]",
            "<truncated>",
            "[OUTPUT TRUNCATED]",
        ] {
            assert!(has_truncation_marker(marked), "{marked}");
        }
        for plain in ["the table was truncated by the migration", "truncated", ""] {
            assert!(!has_truncation_marker(plain), "{plain}");
        }
    }

    #[test]
    fn spilled_output_placeholder_and_its_reader_and_spill_row_are_linked_by_id() {
        let spilled = msg(json!({"id": "a", "type": "tool_call", "metadata": {
            "tool_name": "web_crawler", "result": "spill_5e1d7aa0"}}));
        assert_eq!(
            link_of(&spilled),
            Some(SpillLink::Placeholder("spill_5e1d7aa0".into()))
        );
        let reader = msg(json!({"id": "b", "type": "tool_call", "metadata": {
            "tool_name": "read_run", "args": {"spill_id": "spill_5e1d7aa0"},
            "result": "the whole page"}}));
        assert_eq!(
            link_of(&reader),
            Some(SpillLink::Stored("spill_5e1d7aa0".into()))
        );
        assert_eq!(stored_text(&reader), Some("the whole page"));
        let kandev_reader = msg(json!({"id": "c", "type": "tool_call", "metadata": {
            "normalized": {"kind": "generic", "generic": {"name": "search_run",
                "input": {"id": "spill_5e1d7aa0", "query": "x"}, "output": "hit"}}}}));
        assert_eq!(
            link_of(&kandev_reader),
            Some(SpillLink::Stored("spill_5e1d7aa0".into()))
        );
        let row = msg(json!({"id": "d", "type": "tool_call", "content": "stored",
            "metadata": {"spill_id": "spill_5e1d7aa0"}}));
        assert_eq!(
            link_of(&row).map(|l| l.id().to_string()).as_deref(),
            Some("spill_5e1d7aa0")
        );
        assert_eq!(stored_text(&row), Some("stored"));
        // kandev titles a generic tool call with its name and arguments, and
        // may keep no structured input: still the spill's reader.
        let titled = msg(json!({"id": "f", "type": "tool_call", "metadata": {
            "title": "read_run spill_5e1d7aa0", "status": "complete",
            "normalized": {"kind": "generic", "generic": {"output": "the whole page"}}}}));
        assert_eq!(
            link_of(&titled),
            Some(SpillLink::Stored("spill_5e1d7aa0".into()))
        );
        assert!(is_reader("search_run: spill_5e1d7aa0"));
        assert!(!is_reader("read_runner spill_5e1d7aa0"));
        // Text rows never spill; a reader's own short output is not a placeholder.
        let text = msg(json!({"id": "e", "type": "message", "content": "spill_5e1d7aa0"}));
        assert_eq!(link_of(&text), None);
    }
}
