//! The one safe-link policy (docs/behaviour.md §6): which untrusted URLs may become
//! links, and how a link that leaves the viewer opens. The markdown renderer
//! and the conclusion's provenance links both follow it.

/// `rel` of a link that leaves the viewer: the page it opens gets no handle
/// on this one and no referrer.
pub const EXTERNAL_REL: &str = "noopener noreferrer";

/// `target` of a link that leaves the viewer: a new tab.
pub const EXTERNAL_TARGET: &str = "_blank";

/// True for an absolute `http`, `https` or `mailto` URL, read as a browser
/// reads it: a link that leaves the viewer, opened with [`EXTERNAL_REL`] and
/// [`EXTERNAL_TARGET`]. Any other scheme (`javascript:`, `data:`, …) is not.
pub fn is_external_link(url: &str) -> bool {
    url_scheme(url).is_some_and(|scheme| {
        ["http", "https", "mailto"]
            .iter()
            .any(|ok| scheme.eq_ignore_ascii_case(ok))
    })
}

/// True for a URL that may be a link or an image: an external link or a
/// relative URL.
pub fn is_allowed_url(url: &str) -> bool {
    url_scheme(url).is_none() || is_external_link(url)
}

/// The scheme of a URL as a browser would read it: leading controls and
/// spaces stripped, tabs and newlines removed anywhere; `None` when relative.
fn url_scheme(url: &str) -> Option<String> {
    let cleaned: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let end = cleaned.find([':', '/', '?', '#'])?;
    if !cleaned[end..].starts_with(':') {
        return None;
    }
    let scheme = &cleaned[..end];
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    // Anything scheme-shaped that is not a valid scheme is still not relative.
    Some(if valid {
        scheme.to_string()
    } else {
        String::from("invalid")
    })
}

/// Hostile URLs as a browser would still run them (for the tests of every
/// place that follows this policy).
#[cfg(test)]
pub(crate) const HOSTILE: [&str; 8] = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    " javascript:alert(1)",
    "\u{1}javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "DATA:text/html,x",
    "vbscript:x",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_schemes_are_neither_external_links_nor_allowed() {
        for url in HOSTILE {
            assert!(!is_external_link(url), "{url:?}");
            assert!(!is_allowed_url(url), "{url:?}");
        }
    }

    #[test]
    fn web_and_mail_urls_are_external_and_relative_ones_allowed_but_not_external() {
        for url in [
            "https://example.com/x",
            "HTTP://a.b",
            " https://a.b",
            "mailto:a@b.c",
        ] {
            assert!(is_external_link(url), "{url:?}");
            assert!(is_allowed_url(url), "{url:?}");
        }
        for url in ["docs/readme.md", "/abs/path", "#msg-1", "?q=1", "a/b:c"] {
            assert!(!is_external_link(url), "{url:?}");
            assert!(is_allowed_url(url), "{url:?}");
        }
    }
}
