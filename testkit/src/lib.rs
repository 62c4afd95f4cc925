//! taskview's one test kit, shared by the core tests, the browser tests and
//! the benchmarks: the repository's fixtures (embedded, so they load natively
//! and in the browser alike), message builders in the kandev shape, a store
//! with its incremental layout, readers of an import's result, and the
//! benchmark's synthetic session.

pub mod captures;
pub mod fixtures;
pub mod imported;
pub mod messages;
pub mod session;
pub mod synthetic;

pub use fixtures::{fixture, fixture_json, frame_event, gadget_events, kandev_events, real};
pub use messages::*;
pub use session::{describe, Session};
