//! Where events come from: files (by URL or from disk), HTTP pages and the
//! WebSocket. Each turns its input into core `Event`s for the one store.

pub mod file;
pub mod post_message;
