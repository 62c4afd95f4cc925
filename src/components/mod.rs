//! Presentational components. They render view-models from taskview-core and
//! decide no rule of SPEC.md themselves.

pub mod markdown;
pub mod message;
pub mod shell;
