//! The repository's fixtures (`tests/fixtures/`), embedded at build time by
//! `build.rs`: the same text natively and in the browser.

use serde_json::Value;
use taskview_core::model::event::Event;
use taskview_core::read::import::{gadget, kandev};
use taskview_core::read::protocol::event_from_notification;

/// Every text file under `tests/fixtures/`, by its `/`-separated path there.
static FIXTURES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/fixtures.rs"));

/// The text of fixture `path` (relative to `tests/fixtures/`). Panics on an
/// unknown path: the test asked for a file the repository does not have.
pub fn fixture(path: &str) -> String {
    FIXTURES
        .iter()
        .find(|(name, _)| *name == path)
        .map(|(_, text)| text.to_string())
        .unwrap_or_else(|| panic!("no fixture tests/fixtures/{path}"))
}

/// A capture other tools wrote, under `tests/fixtures/real/`.
pub fn real(path: &str) -> String {
    fixture(&format!("real/{path}"))
}

/// The fixtures whose path starts with `prefix`, in path order.
pub fn fixtures_under(prefix: &str) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    FIXTURES
        .iter()
        .filter(move |(name, _)| name.starts_with(prefix))
        .copied()
}

/// A JSON fixture, parsed.
pub fn fixture_json(path: &str) -> Value {
    serde_json::from_str(&fixture(path)).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"))
}

/// A kandev message-list fixture, imported.
pub fn kandev_events(path: &str) -> Vec<Event> {
    kandev::import(&fixture(path)).unwrap_or_else(|e| panic!("{path} does not import: {e}"))
}

/// A gadget record fixture, imported.
pub fn gadget_events(path: &str) -> Vec<Event> {
    gadget::import(&fixture(path)).unwrap_or_else(|e| panic!("{path} does not import: {e}"))
}

/// A recorded frame (`{action, payload}`) as the client reads it: the event
/// core's protocol makes of it, if any.
pub fn frame_event(frame: &Value) -> Option<Event> {
    let action = frame.get("action")?.as_str()?;
    event_from_notification(action, frame.get("payload")?)
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_fixtures_are_found_by_their_path() {
        assert!(fixture("dialects/acp-frames.jsonl").contains("session/update"));
        assert!(fixture_json("session-review-wave.json").is_object());
    }

    #[test]
    #[should_panic(expected = "no fixture tests/fixtures/nope.json")]
    fn an_unknown_fixture_names_itself() {
        fixture("nope.json");
    }
}
