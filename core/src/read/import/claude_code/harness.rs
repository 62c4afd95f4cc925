//! The markup of Claude Code's command and status lines.

/// Harness text without its `<tag>` markup, one line per non-empty part.
pub(super) fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_len = after
            .strip_prefix('/')
            .unwrap_or(after)
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(0);
        let slash = usize::from(after.starts_with('/'));
        if name_len > 0 && after[slash + name_len..].starts_with('>') {
            out.push('\n');
            rest = &after[slash + name_len + 1..];
        } else {
            out.push('<');
            rest = after;
        }
    }
    out.push_str(rest);
    out.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_markup_is_stripped_for_status_rows() {
        let text = "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>";
        assert_eq!(strip_tags(text), "/model\nmodel");
        assert_eq!(strip_tags("a < b and <c"), "a < b and <c");
    }
}
