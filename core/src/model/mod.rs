//! The model and its vocabulary: the kandev message model, the events every
//! source produces, statuses and the running rule, timestamps, boards, a card's
//! session facts and the model prices that cost them, spilled outputs, and
//! when a subagent run ended by the Timeline's rules.
//! Imports nothing else of core.

pub mod board;
pub mod card_facts;
pub mod event;
pub mod mcp;
pub mod message;
pub mod pricing;
pub mod spill;
pub mod status;
pub mod telemetry;
pub mod time;
pub mod timeline;
