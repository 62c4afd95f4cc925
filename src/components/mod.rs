//! Presentational components. They render view-models from taskview-core and
//! decide no rule of docs/behaviour.md themselves.

pub mod board;
pub mod board_state;
pub mod card;
pub mod chip_popover;
pub mod connection;
pub mod group;
pub mod markdown;
pub mod message;
pub mod not_shown;
pub mod progress;
pub mod roster;
pub mod search;
pub mod sessions;
pub mod shell;
pub mod spill;
pub mod timeline;
