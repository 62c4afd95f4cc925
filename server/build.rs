//! With the feature `embed-app`, the built app in `dist/` is compiled into
//! the binary (`src/app_files/mod.rs`): rebuild whenever any file there changes,
//! is added or removed (but for `e2e/`, the end-to-end tests' served files, which
//! the embed leaves out too, so `make run` after `make test` rebuilds nothing),
//! and say what is wrong with a folder that is not the release build's final one.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_EMBED_APP").is_none() {
        return;
    }
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dist = Path::new(&manifest).join("../dist");
    // Every release build rewrites index.html (its assets' hashes): an added or
    // removed file comes with it.
    if let Ok(entries) = std::fs::read_dir(&dist) {
        for entry in entries.flatten().filter(|e| e.file_name() != "e2e") {
            println!("cargo:rerun-if-changed={}", entry.path().display());
        }
    }
    if !dist.join("index.html").is_file() {
        panic!(
            "the feature embed-app compiles the built app into taskview, and {} has none: \
             run the release build first (make install, or build_release in scripts/env.sh)",
            dist.display()
        );
    }
    if !dist.join("index.html.br").is_file() {
        println!(
            "cargo:warning={} has no precompressed twins (taskview precompress): \
             the embedded app will be sent uncompressed",
            dist.display()
        );
    }
}
