//! A session's own title (for `taskview serve --recordings`): what the
//! session calls itself, else its first prompt, on one line.

use super::claude_code;
use crate::event::Event;
use crate::model::Author;
use crate::view::format::ellipsize_words;

/// Titles longer than this many characters are cut with an ellipsis, at a
/// word boundary when one is near.
pub const TITLE_CHARS: usize = 80;

/// The title of a session read from `text` into `events`: a Claude Code
/// session's own title (`claude_code::title`), else the first line of its
/// first user prompt, cut to [`TITLE_CHARS`]; `None` when it has neither.
pub fn session_title(text: &str, events: &[Event]) -> Option<String> {
    let prompt = || {
        events.iter().find_map(|e| match e {
            Event::MessageAdded(m) if m.author == Author::User => prompt_line(&m.content),
            _ => None,
        })
    };
    one_line(claude_code::title(text).or_else(prompt))
}

/// The first non-blank line of a prompt, trimmed.
pub(crate) fn prompt_line(content: &str) -> Option<String> {
    content
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// A title on one line, cut to [`TITLE_CHARS`]; `None` when it is blank.
pub(crate) fn one_line(title: Option<String>) -> Option<String> {
    let line = title?.split_whitespace().collect::<Vec<_>>().join(" ");
    (!line.is_empty()).then(|| ellipsize_words(&line, TITLE_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::import_any;

    fn title_of(text: &str) -> Option<String> {
        let events = import_any(text).map(|i| i.events).unwrap_or_default();
        session_title(text, &events)
    }

    #[test]
    fn the_first_prompt_titles_a_session_without_a_title_of_its_own() {
        let text = r#"{"messages":[{"id":"a","author_type":"agent","content":"hello"},
            {"id":"u","author_type":"user","content":"\n  Fix the   parser\nthen the tests"}]}"#;
        assert_eq!(title_of(text).as_deref(), Some("Fix the parser"));
        let long = format!(
            r#"[{{"id":"u","author_type":"user","content":"{}"}}]"#,
            "x".repeat(100)
        );
        assert_eq!(title_of(&long).unwrap().chars().count(), TITLE_CHARS + 1);
        let words = format!(
            r#"[{{"id":"u","author_type":"user","content":"{}"}}]"#,
            "word ".repeat(30)
        );
        let cut = title_of(&words).unwrap();
        assert!(
            cut.ends_with("word…") && cut.chars().count() <= TITLE_CHARS + 1,
            "{cut}"
        );
        assert_eq!(title_of(r#"[{"id":"a","content":"agent only"}]"#), None);
    }
}
