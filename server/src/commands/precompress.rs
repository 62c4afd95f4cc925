//! `taskview precompress DIR`: the build step that writes `NAME.br` and
//! `NAME.gz` beside each compressible file of a built app, at the highest
//! levels, so `serve` sends them without compressing anything per request.

use crate::app_files::compress::{brotli, gzip, BEST_BROTLI, BEST_GZIP};
use crate::app_files::{is_compressible, twin_path};
use std::path::Path;

/// What one file became (sizes in bytes; `None`: the encoding did not help,
/// so no twin is kept).
#[derive(Debug, PartialEq, Eq)]
pub struct Compressed {
    pub name: String,
    pub raw: usize,
    pub gzip: Option<usize>,
    pub brotli: Option<usize>,
}

/// Compresses every compressible file in `dir` and its folders (the split
/// app's, `taskview split`), in path order.
pub fn precompress(dir: &Path) -> std::io::Result<Vec<Compressed>> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder)? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                folders.push(entry.path());
            } else if entry.file_type()?.is_file() && is_compressible(&entry.path()) {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    files
        .iter()
        .map(|path| {
            let raw = std::fs::read(path)?;
            Ok(Compressed {
                name: path
                    .strip_prefix(dir)
                    .unwrap_or(path)
                    .to_string_lossy()
                    .into(),
                raw: raw.len(),
                gzip: keep_if_smaller(path, "gz", gzip(&raw, BEST_GZIP)?, raw.len())?,
                brotli: keep_if_smaller(path, "br", brotli(&raw, BEST_BROTLI)?, raw.len())?,
            })
        })
        .collect()
}

/// Writes the twin when it is smaller than the original, else removes any
/// old one.
fn keep_if_smaller(
    path: &Path,
    suffix: &str,
    bytes: Vec<u8>,
    raw: usize,
) -> std::io::Result<Option<usize>> {
    let twin = twin_path(path, suffix);
    if bytes.len() < raw {
        std::fs::write(&twin, &bytes)?;
        return Ok(Some(bytes.len()));
    }
    match std::fs::remove_file(&twin) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn twins_decompress_to_the_original_and_tiny_files_get_none() {
        let dir = std::env::temp_dir().join(format!("taskview-precompress-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let js = "export function hello() { return 'hello'; }\n".repeat(50);
        std::fs::write(dir.join("app-0123456789abcdef.js"), &js).unwrap();
        std::fs::write(dir.join("tiny.svg"), "<svg/>").unwrap();
        std::fs::write(dir.join("tiny.svg.gz"), "left over").unwrap();
        std::fs::write(dir.join("photo.png"), js.as_bytes()).unwrap();
        std::fs::create_dir_all(dir.join("app-0123456789abcdef")).unwrap();
        std::fs::write(dir.join("app-0123456789abcdef/loader.js"), &js).unwrap();

        let report = precompress(&dir).unwrap();

        let names: Vec<&str> = report.iter().map(|c| c.name.as_str()).collect();
        // Path order: a folder's files before a file named like the folder.
        assert_eq!(
            names,
            [
                "app-0123456789abcdef/loader.js",
                "app-0123456789abcdef.js",
                "tiny.svg"
            ]
        );
        assert!(
            dir.join("app-0123456789abcdef/loader.js.br").exists(),
            "folders too"
        );
        let app = &report[1];
        assert!(app.brotli.unwrap() < app.gzip.unwrap() && app.gzip.unwrap() < app.raw);
        let mut text = String::new();
        let gz = std::fs::read(dir.join("app-0123456789abcdef.js.gz")).unwrap();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, js);
        let br = std::fs::read(dir.join("app-0123456789abcdef.js.br")).unwrap();
        text.clear();
        brotli::Decompressor::new(&br[..], 4096)
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, js);
        assert_eq!((report[2].gzip, report[2].brotli), (None, None));
        assert!(!dir.join("tiny.svg.gz").exists(), "a stale twin is removed");
        assert!(
            !dir.join("photo.png.gz").exists(),
            "only compressible types"
        );
        // The same input gives the same bytes: builds are reproducible.
        precompress(&dir).unwrap();
        assert_eq!(
            std::fs::read(dir.join("app-0123456789abcdef.js.gz")).unwrap(),
            gz
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
