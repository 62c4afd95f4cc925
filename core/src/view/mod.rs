//! View-models and formatting: pure functions from the store and the layout to
//! exactly what the UI renders (SPEC.md §2–§3, §5).

pub mod conclusion;
pub mod describe;
pub mod format;
