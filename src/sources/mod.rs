//! Where events come from: files (by URL or from disk), HTTP pages and the
//! WebSocket, and messages a host page posts into an embed. Each turns its
//! input into core `Event`s for the one store;
//! `sync` follows a board, task or session across reconnects.

pub mod file;
pub mod http;
pub mod post_message;
pub mod progressive;
pub mod sync;
pub mod ws;
