//! Secrets wrapped in base64 (docs/behaviour.md §9 "Export"): a run of
//! base64 (standard or URL-safe, wrapped over lines as `base64` writes it)
//! that decodes to text in which a rule finds a secret is masked whole, as
//! `base64-encoded` (a base64-wrapped `.env`, a Basic credential).

/// The id of what this masks.
pub(super) const ID: &str = "base64-encoded";

/// The shortest run looked at (a 12-byte secret encoded).
const SHORTEST_RUN: usize = 16;
/// The longest run decoded (longer ones are images and archives, not pastes).
const LONGEST_RUN: usize = 256 << 10;

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_')
}

/// The runs of `text` that may be base64: `(start, end)`, line breaks
/// inside a run included, its padding too.
pub(super) fn runs(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if !is_base64(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        let mut end = at;
        let mut i = at;
        let mut line_start = at;
        while i < bytes.len() {
            match bytes[i] {
                b if is_base64(b) => end = i + 1,
                b'=' => end = i + 1,
                // A wrapped run goes on on the next line (its lines are long).
                b'\n' | b'\r'
                    if i - line_start >= SHORTEST_RUN
                        && i + 1 < bytes.len()
                        && (is_base64(bytes[i + 1]) || bytes[i + 1] == b'\n') =>
                {
                    if bytes[i + 1] != b'\n' && bytes[i] == b'\n' {
                        line_start = i + 1;
                    }
                }
                _ => break,
            }
            i += 1;
        }
        let len = end - start;
        if (SHORTEST_RUN..=LONGEST_RUN).contains(&len) {
            found.push((start, end));
        }
        at = i.max(start + 1);
    }
    found
}

/// The text a run decodes to, when it is base64 of UTF-8 text.
pub(super) fn decoded(run: &str) -> Option<String> {
    let mut bits: u32 = 0;
    let mut held = 0;
    let mut out = Vec::with_capacity(run.len() * 3 / 4);
    for b in run.bytes() {
        let value = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'\n' | b'\r' => continue,
            b'=' => break,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(value);
        held += 6;
        if held >= 8 {
            held -= 8;
            out.push((bits >> held) as u8);
        }
    }
    let text = String::from_utf8(out).ok()?;
    let printable = text
        .chars()
        .filter(|c| !c.is_control() || c.is_whitespace())
        .count();
    (printable * 10 >= text.chars().count() * 9).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_span_wrapped_lines_and_decode_to_text_only_when_they_are_text() {
        let env = "DB_PASSWORD=hunter2\nAPI_TOKEN=abc\n";
        let encoded = crate::screen::export::base64(env.as_bytes());
        let wrapped = format!("{}\n{}", &encoded[..20], &encoded[20..]);
        let text = format!("$ base64 .env\n{wrapped}\n$ ls");
        let found = runs(&text);
        let run = found
            .iter()
            .find(|(s, e)| e - s >= wrapped.len())
            .expect("the run");
        assert_eq!(&text[run.0..run.1], wrapped);
        assert_eq!(decoded(&wrapped).as_deref(), Some(env));
        assert_eq!(decoded("////////////////////"), None, "not text");
        assert!(runs("short abc").is_empty());
    }
}
