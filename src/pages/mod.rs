//! One module per route family (SPEC.md §7).

pub mod board;
pub mod task;
pub mod view;
