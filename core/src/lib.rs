//! taskview-core: everything that is not DOM. The message model and its
//! tolerant reading, importers, the store and its merge rules, the transcript
//! layout, view-models and formatting. Tested natively with `cargo test`.

pub mod board;
pub mod event;
pub mod import;
pub mod model;
pub mod protocol;
