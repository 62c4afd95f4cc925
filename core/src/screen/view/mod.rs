//! View-models and formatting: pure functions from the store and the layout to
//! exactly what the UI renders (docs/behaviour.md §2–§3, §5).

pub mod anchor;
pub mod announce;
pub mod board;
pub mod card;
pub mod chips;
pub mod conclusion;
pub mod describe;
pub mod drilldown;
pub mod file_sessions;
pub mod first_screen;
pub mod format;
pub mod group;
pub mod lifecycle;
pub mod message;
pub mod not_shown;
pub mod progress;
pub mod roster;
pub mod row;
pub mod sessions;
pub mod spill;
pub mod summary;
pub mod telemetry;
pub mod timeline;
pub mod tokens;
