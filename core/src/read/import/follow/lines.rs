//! A followed file's bytes cut into lines (`follow::Follower`).

/// Bytes cut into lines: the complete lines of each push, the rest held.
#[derive(Default)]
pub(super) struct Lines {
    pub(super) held: Vec<u8>,
    started: bool,
}

impl Lines {
    /// The complete lines the held bytes and `bytes` make (with their
    /// newlines), as text; the rest is held.
    pub(super) fn push(&mut self, bytes: &[u8]) -> String {
        let end = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(at) => at + 1,
            None => {
                self.held.extend_from_slice(bytes);
                return String::new();
            }
        };
        self.held.extend_from_slice(&bytes[..end]);
        let complete = std::mem::replace(&mut self.held, bytes[end..].to_vec());
        self.text(complete)
    }

    /// Everything held, as text (a last line without its newline).
    pub(super) fn flush(&mut self) -> String {
        let rest = std::mem::take(&mut self.held);
        self.text(rest)
    }

    fn text(&mut self, bytes: Vec<u8>) -> String {
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        if self.started || text.is_empty() {
            return text;
        }
        self.started = true;
        match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        }
    }
}

/// The non-blank lines of `text` (`\r\n` endings tolerated).
pub(super) fn nonblank(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.trim().is_empty())
}
