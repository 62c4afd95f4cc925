//! The model and its vocabulary: the kandev message model, the events every
//! source produces, statuses and the running rule, timestamps, boards and
//! spilled outputs. Imports nothing else of core.

pub mod board;
pub mod event;
pub mod mcp;
pub mod message;
pub mod spill;
pub mod status;
pub mod telemetry;
pub mod time;
