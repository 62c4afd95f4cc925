//! One module per route family (docs/behaviour.md §7).

pub mod board;
pub mod task;
pub mod view;
