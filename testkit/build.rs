//! Embeds every text file under the repository's `tests/fixtures/` with
//! `include_str!`, so `taskview_testkit::fixture` reads the same bytes
//! natively and in the browser (wasm has no file system).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join("../tests/fixtures");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut table = String::from("&[\n");
    for path in files {
        if std::fs::read_to_string(&path).is_err() {
            continue; // not text: tests cannot ask for it by `fixture`
        }
        let name = path.strip_prefix(&root).expect("under the root");
        let name = name.to_string_lossy().replace('\\', "/");
        let absolute = path.canonicalize().expect("fixture path");
        writeln!(table, "    ({name:?}, include_str!({absolute:?})),").expect("write");
    }
    table.push(']');
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("fixtures.rs"), table).expect("write the fixture table");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}
