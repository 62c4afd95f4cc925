//! The decisions of the browser's protocol client (docs/protocol.md §5), kept
//! free of I/O so they are tested natively. The app wires sockets and timers
//! around them (`src/sources/ws.rs`, `src/sources/sync.rs`).
//!
//! - [`gate`]: when a follow reads: after the socket's subscription, once on
//!   a cold load, over HTTP alone when there is no socket;
//! - [`backoff`]: the reconnect schedule (capped exponential backoff with
//!   jitter) and the connection status shown to the user;
//! - [`pending`]: request/response correlation with deadlines;
//! - [`inbox`]: what an incoming frame means (reply, store event, or an issue
//!   to count and log once per kind);
//! - [`refetch`]: what to fetch after (re)subscribing and how to merge it, so
//!   the final state equals a run without the fault;
//! - [`preload`]: the reads a task page makes first, which the server
//!   announces with the page so they travel with the app's files.

pub mod backoff;
pub mod gate;
pub mod inbox;
pub mod pending;
pub mod preload;
pub mod refetch;
