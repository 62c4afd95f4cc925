//! State: what a page keeps from the events, kept up to date one change at a
//! time: the store, the transcript layout, the subagents' activity, the search
//! index and the Timeline's runs, with the tables and logs they are built on.
//! Imports the model and reading.

pub mod activity;
pub mod change_log;
pub mod layout;
pub mod search;
pub(crate) mod sharded;
pub mod store;
pub mod timeline;
