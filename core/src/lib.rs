//! taskview-core: everything that is not DOM. The message model and its
//! tolerant reading, importers, the store and its merge rules, the transcript
//! layout, view-models and formatting. Tested natively with `cargo test`.

pub mod activity;
pub mod board;
pub mod change_log;
pub mod client;
pub mod embed;
pub mod event;
pub mod export;
pub mod fanout;
pub mod import;
pub mod layout;
pub mod link;
pub mod markdown;
pub mod message_view;
pub mod model;
pub mod protocol;
pub mod route;
pub mod search;
pub mod secrets;
mod sharded;
pub mod spill;
pub mod status;
pub mod store;
pub mod time;
pub mod timeline;
pub mod view;
pub mod viewer;
pub mod viewport;
