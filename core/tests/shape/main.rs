//! The shape of the code and its documents, read from the workspace's files
//! (docs/ARCHITECTURE.md, "How the shape is checked"): how long files and functions may be
//! (`lengths`), which layers may import which (`layers`), and that every citation points at
//! a document the repository holds (`citations`). One test binary, one walk (`walk`).

mod citations;
mod layers;
mod lengths;
mod walk;
