//! Files kept by a taskview older than the receiver's limits, held to them
//! once, at open: each line read no further than [`LONGEST_LINE`] (a longer
//! one is dropped unread), decoded, cut to the limits and written back as
//! the receiver writes lines today (`requests::prepare_line`), so a restart
//! reads what was kept within the bounds a request has. A marker in the
//! folder says it was done.

use super::super::requests::prepare_line;
use super::is_session_file;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;

/// The marker of a folder whose files are held to the limits.
const MARKER: &str = ".limits-1";

/// The longest kept line read again: what a request may unpack to, written
/// as JSON (a few times its protobuf).
pub const LONGEST_LINE: usize = 4 * super::super::body::MAX_UNPACKED;

/// What vetting a file did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Vetted {
    /// Lines written again, cut to the limits.
    pub cut: usize,
    /// Lines dropped: too long, or not an export request.
    pub dropped: usize,
}

/// Holds every session file of `dir` to the limits, unless its marker says
/// it was done.
pub fn kept_files(dir: &Path) -> io::Result<()> {
    if dir.join(MARKER).exists() {
        return Ok(());
    }
    let mut total = Vetted::default();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_session_file(&name) || !entry.file_type()?.is_file() {
            continue;
        }
        let vetted = file(&entry.path())?;
        total.cut += vetted.cut;
        total.dropped += vetted.dropped;
    }
    if total != Vetted::default() {
        tracing::warn!(
            "telemetry: {} held to the receiver's limits: {} lines cut, {} dropped (longer \
             than {} MB, or not telemetry)",
            dir.display(),
            total.cut,
            total.dropped,
            LONGEST_LINE >> 20
        );
    }
    fs::write(
        dir.join(MARKER),
        b"kept files hold to the receiver's limits\n",
    )
}

/// Holds one file to the limits, rewriting it only when a line changed.
pub fn file(path: &Path) -> io::Result<Vetted> {
    let mut reader = BufReader::new(File::open(path)?);
    let mut vetted = Vetted::default();
    let mut out: Vec<u8> = Vec::new();
    let mut line = Vec::new();
    while let Some((end, _)) = read_line(&mut reader, &mut line, LONGEST_LINE)? {
        let text = String::from_utf8_lossy(&line);
        if end != LineEnd::TooLong && text.trim().is_empty() {
            continue;
        }
        let prepared = (end != LineEnd::TooLong)
            .then(|| prepare_line(&text))
            .flatten();
        let Some(prepared) = prepared else {
            vetted.dropped += 1;
            continue;
        };
        let lines: Vec<&String> = prepared.parts.iter().flat_map(|p| &p.lines).collect();
        let unchanged = prepared.refused.count == 0
            && prepared.trimmed == Default::default()
            && lines.len() == 1;
        if unchanged {
            out.extend_from_slice(text.trim_end().as_bytes());
            out.push(b'\n');
            continue;
        }
        vetted.cut += 1;
        for line in lines {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
    }
    if vetted != Vetted::default() {
        let fresh = path.with_extension("jsonl.vetting");
        let mut file = File::create(&fresh)?;
        file.write_all(&out)?;
        drop(file);
        fs::rename(&fresh, path)?;
    }
    Ok(vetted)
}

/// How a line read with [`read_line`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// At a newline (not kept in the line).
    Newline,
    /// At the end of the file, without a newline (perhaps being written).
    Unterminated,
    /// Past the limit: the line was skipped to its end unread into memory
    /// and is empty.
    TooLong,
}

/// The next line of `reader` into `line`, read no further than `most`
/// bytes into memory: how it ended and how many bytes it took from the
/// reader; `None` at the end.
pub fn read_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    most: usize,
) -> io::Result<Option<(LineEnd, u64)>> {
    line.clear();
    let read = reader
        .by_ref()
        .take(most as u64 + 1)
        .read_until(b'\n', line)?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        return Ok(Some((LineEnd::Newline, read as u64)));
    }
    if line.len() <= most {
        return Ok(Some((LineEnd::Unterminated, read as u64)));
    }
    line.clear();
    let mut taken = read as u64;
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        let (used, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        reader.consume(used);
        taken += used as u64;
        if done {
            break;
        }
    }
    Ok(Some((LineEnd::TooLong, taken)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_past_the_limit_is_skipped_without_being_held() {
        let text = format!("short\n{}\nnext\nlast", "x".repeat(100));
        let mut reader = BufReader::with_capacity(8, text.as_bytes());
        let mut line = Vec::new();
        let mut seen = Vec::new();
        let mut taken = 0;
        while let Some((end, used)) = read_line(&mut reader, &mut line, 10).unwrap() {
            seen.push((end, String::from_utf8(line.clone()).unwrap()));
            taken += used;
        }
        let expected = [
            (LineEnd::Newline, "short"),
            (LineEnd::TooLong, ""),
            (LineEnd::Newline, "next"),
            (LineEnd::Unterminated, "last"),
        ];
        let expected: Vec<(LineEnd, String)> =
            expected.iter().map(|(e, s)| (*e, s.to_string())).collect();
        assert_eq!(seen, expected);
        assert_eq!(taken, text.len() as u64);
    }
}
