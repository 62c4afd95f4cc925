//! The one safe markdown renderer (docs/behaviour.md §6): the only way untrusted text
//! becomes HTML.
//!
//! pulldown-cmark parses (tables, strikethrough, task lists); raw HTML in the
//! source is shown as text, never parsed; link and image URLs survive only as
//! [`crate::screen::link`] allows them (`http`, `https`, `mailto` and relative URLs),
//! external links open as it says (`rel="noopener noreferrer"`, a new tab);
//! code blocks keep a `language-*` class.

/// The inline `style` attributes the renderer writes (pulldown-cmark's table
/// cell alignment); a page's CSP allows them by hash (`'unsafe-hashes'`).
pub const TABLE_ALIGNMENT_STYLES: [&str; 3] = [
    "text-align: left",
    "text-align: center",
    "text-align: right",
];

use crate::screen::link::{is_allowed_url, is_external_link, EXTERNAL_REL, EXTERNAL_TARGET};
use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};
use pulldown_cmark_escape::{escape_href, escape_html};

/// Texts longer than this are cut in rendering, with a "show all" control (docs/behaviour.md §6).
pub const DISPLAY_LIMIT_BYTES: usize = 64 * 1024;

/// How to treat line breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Breaks {
    /// Chat text: a single newline is a line break (docs/behaviour.md §4).
    Hard,
    /// Documents: CommonMark soft breaks.
    Soft,
}

/// Renders untrusted markdown to HTML that is safe for `inner_html`.
pub fn render(text: &str, breaks: Breaks) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut links: Vec<bool> = Vec::new();
    let mut in_raw_html_block = false;
    let events = Parser::new_ext(text, options).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::HtmlBlock) => {
            in_raw_html_block = true;
            Some(Event::Start(Tag::CodeBlock(CodeBlockKind::Indented)))
        }
        Event::End(TagEnd::HtmlBlock) => {
            in_raw_html_block = false;
            Some(Event::End(TagEnd::CodeBlock))
        }
        Event::SoftBreak if breaks == Breaks::Hard && !in_raw_html_block => Some(Event::HardBreak),
        Event::Start(Tag::Link {
            dest_url, title, ..
        }) => {
            let allowed = is_allowed_url(&dest_url);
            links.push(allowed);
            allowed.then(|| Event::Html(open_link(&dest_url, &title).into()))
        }
        Event::End(TagEnd::Link) => links
            .pop()
            .unwrap_or(false)
            .then(|| Event::Html("</a>".into())),
        Event::Start(Tag::Image { ref dest_url, .. }) if !is_allowed_url(dest_url) => {
            links.push(false);
            None
        }
        Event::Start(Tag::Image { .. }) => {
            links.push(true);
            Some(event)
        }
        Event::End(TagEnd::Image) => links.pop().unwrap_or(false).then_some(event),
        other => Some(other),
    });
    let mut html = String::with_capacity(text.len() + text.len() / 4);
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// The opening tag of an allowed link; external ones open safely in a new tab.
fn open_link(dest: &CowStr, title: &CowStr) -> String {
    let mut tag = String::from("<a href=\"");
    let _ = escape_href(&mut tag, dest);
    tag.push('"');
    if !title.is_empty() {
        tag.push_str(" title=\"");
        let _ = escape_html(&mut tag, title);
        tag.push('"');
    }
    if is_external_link(dest) {
        tag.push_str(&format!(
            " rel=\"{EXTERNAL_REL}\" target=\"{EXTERNAL_TARGET}\""
        ));
    }
    tag.push('>');
    tag
}

/// What a reader sees of one line of markdown, as plain text (docs/behaviour.md §3.1
/// item 6): heading, quote and list markers, emphasis, code and link markup
/// gone (a link or image shows its text), harness tags such as
/// `<tool_use_error>` removed, other inline HTML kept as text, whitespace
/// collapsed. A line with no text (a fence, a rule) gives an empty string.
pub fn plain_text(line: &str) -> String {
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let line = without_harness_tags(line);
    let mut out = String::with_capacity(line.len());
    for event in Parser::new_ext(&line, options) {
        match event {
            Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) => {
                out.push_str(&t)
            }
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            _ => {}
        }
    }
    out.split(|c: char| c.is_whitespace() || c == '\u{feff}')
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `raw` without its opening and closing tags whose name has `_` or `-`
/// (`<tool_use_error>`, `</system-reminder>`): markup an agent harness
/// writes, never HTML a reader meant to show.
fn without_harness_tags(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_start = usize::from(after.starts_with('/'));
        let name_len = after[name_start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(after.len() - name_start);
        let name = &after[name_start..name_start + name_len];
        let is_harness = name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.contains(['_', '-'])
            && after[name_start + name_len..].starts_with('>');
        if is_harness {
            rest = &after[name_start + name_len + 1..];
        } else {
            out.push('<');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The control under a text cut for display (docs/behaviour.md §6).
pub const SHOW_ALL_LABEL: &str = "Output cut at 64 KB — show all";

/// The part of `text` to render (docs/behaviour.md §6: very large outputs are cut in
/// rendering, never in the store): all of it when `show_all`, else at most
/// [`DISPLAY_LIMIT_BYTES`]. The flag says whether it was cut.
pub fn displayed(text: &str, show_all: bool) -> (&str, bool) {
    if show_all {
        (text, false)
    } else {
        display_cut(text, DISPLAY_LIMIT_BYTES)
    }
}

/// The part of `text` to render at first: all of it, or its first
/// `limit` bytes cut at a character boundary. The flag says whether it was cut.
pub fn display_cut(text: &str, limit: usize) -> (&str, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displayed_text_is_cut_at_the_limit_until_show_all() {
        let big = "é".repeat(DISPLAY_LIMIT_BYTES);
        let (shown, cut) = displayed(&big, false);
        assert!(cut && shown.len() <= DISPLAY_LIMIT_BYTES);
        assert_eq!(displayed(&big, true), (big.as_str(), false));
        assert_eq!(displayed("small", false), ("small", false));
        assert!(SHOW_ALL_LABEL.contains(&format!("{} KB", DISPLAY_LIMIT_BYTES / 1024)));
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        let html = render("hi <script>alert(1)</script> <b>x</b>", Breaks::Hard);
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        let block = render("<div onclick=\"x()\">\n\n", Breaks::Hard);
        assert!(!block.contains("<div"), "{block}");
        assert!(block.contains("&lt;div onclick"), "{block}");
    }

    #[test]
    fn disallowed_link_schemes_are_dropped_but_text_kept() {
        for dest in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            " javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:x",
            "javascript&#58;alert(1)",
        ] {
            let html = render(&format!("[click]({dest})"), Breaks::Hard);
            assert!(!html.contains("href"), "{dest} -> {html}");
            assert!(html.contains("click"), "{dest} -> {html}");
        }
        let auto = render("<javascript:alert(1)>", Breaks::Hard);
        assert!(!auto.contains("href"), "{auto}");
    }

    #[test]
    fn allowed_links_keep_href_and_external_ones_get_noopener() {
        let ext = render("[a](https://example.com/x?y=1&z=2)", Breaks::Hard);
        assert!(
            ext.contains(
                r#"href="https://example.com/x?y=1&amp;z=2" rel="noopener noreferrer" target="_blank">"#
            ),
            "{ext}"
        );
        let rel = render("[a](docs/readme.md)", Breaks::Hard);
        assert!(rel.contains(r#"<a href="docs/readme.md">"#), "{rel}");
        let mail = render("[m](mailto:a@b.c)", Breaks::Hard);
        assert!(mail.contains("mailto:a@b.c"), "{mail}");
    }

    #[test]
    fn disallowed_images_render_their_alt_text_only() {
        let html = render("![alt text](javascript:alert(1))", Breaks::Hard);
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("alt text"), "{html}");
        let ok = render("![pic](https://example.com/p.png)", Breaks::Hard);
        assert!(
            ok.contains(r#"<img src="https://example.com/p.png""#),
            "{ok}"
        );
    }

    #[test]
    fn a_single_newline_is_a_line_break_in_chat_text() {
        assert!(render("one\ntwo", Breaks::Hard).contains("<br />"));
        assert!(!render("one\ntwo", Breaks::Soft).contains("<br />"));
    }

    #[test]
    fn code_blocks_carry_a_language_class() {
        let html = render("```rust\nfn main() {}\n```", Breaks::Hard);
        assert!(html.contains(r#"<code class="language-rust">"#), "{html}");
    }

    #[test]
    fn tables_strikethrough_and_task_lists_render() {
        let html = render("| a |\n|---|\n| b |\n\n~~x~~\n\n- [x] done", Breaks::Soft);
        assert!(
            html.contains("<table>") && html.contains("<del>x</del>"),
            "{html}"
        );
        assert!(html.contains("checkbox"), "{html}");
    }

    #[test]
    fn display_cut_respects_char_boundaries() {
        assert_eq!(display_cut("short", 10), ("short", false));
        let (cut, was_cut) = display_cut("ééé", 3);
        assert_eq!((cut, was_cut), ("é", true));
    }

    #[test]
    fn plain_text_drops_markdown_markers_and_keeps_what_a_reader_sees() {
        for (line, plain) in [
            ("## Summary", "Summary"),
            ("# **Verdict:** APPROVE", "Verdict: APPROVE"),
            ("- first finding", "first finding"),
            ("* `parse()` fails on `\\r\\n`", "parse() fails on \\r\\n"),
            ("1. Step one", "Step one"),
            ("> quoted _text_", "quoted text"),
            (
                "See [the docs](https://example.com) and ![chart](c.png)",
                "See the docs and chart",
            ),
            ("__bold__ and ~~gone~~", "bold and gone"),
            ("- [x] done", "done"),
            ("Escaped \\*stars\\*", "Escaped *stars*"),
            ("```rust", ""),
            ("---", ""),
            ("   ", ""),
        ] {
            assert_eq!(plain_text(line), plain, "{line:?}");
        }
    }

    #[test]
    fn plain_text_removes_harness_tags_but_keeps_other_angle_brackets() {
        assert_eq!(
            plain_text("<tool_use_error>Error: Agent type 'x' not found.</tool_use_error>"),
            "Error: Agent type 'x' not found."
        );
        assert_eq!(plain_text("<system-reminder>"), "");
        assert_eq!(
            plain_text("returns Vec<String> and <b>x</b>"),
            "returns Vec<String> and <b>x</b>"
        );
        assert_eq!(plain_text("a < b > c"), "a < b > c");
    }
}
