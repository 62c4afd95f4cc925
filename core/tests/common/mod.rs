//! The importer suites' helpers, from the shared test kit (`taskview_testkit`).
#![allow(unused_imports)] // each suite uses its own subset

pub use taskview_testkit::imported::*;
pub use taskview_testkit::{fixture, gadget_events, real};

/// An import laid out as the transcript shows it: the kit's session.
pub use taskview_testkit::Session as LaidOut;

/// Records as a JSON Lines file.
pub fn lines(records: &[serde_json::Value]) -> String {
    records
        .iter()
        .map(serde_json::Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}
