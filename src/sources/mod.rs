//! Where events come from: files (by URL or from disk), HTTP pages and the
//! WebSocket. Each turns its input into core `Event`s for the one store;
//! `sync` follows a board, task or session across reconnects.

pub mod file;
pub mod http;
pub mod sync;
pub mod ws;
