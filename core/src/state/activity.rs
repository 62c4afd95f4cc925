//! When each subagent last showed signs of life, for the honest lifecycle
//! (docs/behaviour.md §8): a running subagent with no new child or update for five
//! minutes is `stalled`, and the board drill-down shows how long each running
//! one has been at it.
//!
//! Two clocks meet here and are never compared with each other: the source's
//! (message timestamps, which a demo or a recording may set anywhere in time)
//! and the viewer's (milliseconds the app passes in, which tests control). The
//! source clock is projected to "now" from the moment its latest timestamp was
//! seen: `source_now = latest + (now - seen_at)`. So a subagent idle for an hour
//! in a session loaded just now is stalled at once, and one that simply stops
//! reporting while the page is open is stalled five minutes later, whatever the
//! offset between the two clocks. A sign of life is dated by the message's
//! own timestamp when it has one (a message that claims an old time is
//! history, as when a session is read page by page), else by when it was seen.
//! A source nobody writes any more (a file opened from disk) is still: its
//! clock stops at its newest record, however long the page stays open.
//!
//! A start with no source time (ACP frames carry none) is known only when
//! the viewer saw the run arrive: not when it was already there, in the
//! transcript's first batch or a read of the session (a page opened
//! mid-run, a reconnect), and never in a still source. Its elapsed time is
//! then unknown, not the time since the page opened.
//!
//! [`Activity::record`] costs the depth of each changed message (its ancestor
//! chain), never the length of the session.

use crate::model::message::Message;
use crate::model::time::parse_millis;
use crate::state::sharded::ShardedMap;
use crate::state::store::{Changes, EntryId, Store};
use std::collections::HashSet;

/// Milliseconds; on the viewer's clock for `now` arguments.
pub type Millis = i64;

/// A running subagent with no new child or update for this long is stalled
/// (docs/behaviour.md §8).
pub const STALL_AFTER_MS: Millis = 5 * 60 * 1000;

/// Longest ancestor chain walked per change (a looping chain is cut).
const MAX_CHAIN: usize = 256;

/// A moment on both clocks: the source timestamp (when the message has one)
/// and when the viewer saw it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Mark {
    source: Option<Millis>,
    seen: Millis,
}

/// What is known of one subagent's life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Life {
    /// Its start: `created_at`, and when the viewer saw it arrive (none when
    /// it was already there: see the module docs).
    started: Start,
    /// Its latest sign of life: its own update or any descendant's.
    last: Mark,
}

/// When a subagent started: its source time, and when the viewer saw it
/// arrive, if it did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Start {
    source: Option<Millis>,
    seen: Option<Millis>,
}

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub struct Activity {
    /// The latest source timestamp seen, and when the viewer saw it.
    source_clock: Option<(Millis, Millis)>,
    /// Nobody writes the source any more (a file opened from disk): its
    /// clock stopped at its newest record (docs/behaviour.md §8).
    still: bool,
    /// The transcript held messages before the batch being recorded: what
    /// a later batch adds (outside a read) arrives while the viewer looks.
    shown: bool,
    lives: ShardedMap<String, Life>,
}

/// A message's moment on the source clock: the later of `created_at` and
/// `updated_at`, in milliseconds.
fn source_time(m: &Message) -> Option<Millis> {
    [&m.created_at, &m.updated_at]
        .into_iter()
        .filter_map(|t| parse_millis(t))
        .max()
}

/// The message a message's `parent_tool_call_id` names, if loaded.
fn parent_of<'a>(store: &'a Store, m: &Message) -> Option<&'a Message> {
    let parent = m.metadata.parent_tool_call_id.as_deref()?;
    store.message(store.tool_owner(parent)?)
}

impl Activity {
    /// Nothing known yet.
    pub fn new() -> Activity {
        Activity::default()
    }

    /// Takes in what one batch changed, seen at viewer time `now`: each changed
    /// message is a sign of life for itself (when it is a subagent) and for
    /// every subagent above it.
    pub fn record(&mut self, store: &Store, changes: &Changes, now: Millis) {
        if changes.reset {
            *self = Activity {
                still: self.still,
                ..Activity::default()
            };
        }
        // Already there, not seen arriving: the first batch, or a read.
        let arrived = self.shown && !store.is_reading();
        let mut done = HashSet::new();
        for entry in &changes.entries {
            let EntryId::Message(id) = entry else {
                continue;
            };
            if !done.insert(id.as_str()) {
                continue;
            }
            let Some(m) = store.message(id) else {
                self.lives.remove(id);
                continue;
            };
            let mark = Mark {
                source: source_time(m),
                seen: now,
            };
            if let Some(source) = mark.source {
                let latest = self.source_clock.map_or(source, |(t, _)| t.max(source));
                if self.source_clock.map(|(t, _)| t) != Some(latest) {
                    self.source_clock = Some((latest, now));
                }
            }
            self.shown = true;
            if m.is_subagent_payload() {
                self.touch(m, mark, arrived);
            }
            let mut visited = HashSet::from([id.as_str()]);
            let mut cur = parent_of(store, m);
            while let Some(p) = cur {
                if visited.len() > MAX_CHAIN || !visited.insert(p.id.as_str()) {
                    break;
                }
                self.touch(p, mark, arrived);
                cur = parent_of(store, p);
            }
        }
    }

    /// Records `mark` as a sign of life of subagent `m`, first seen now
    /// (`mark.seen`) as it `arrived`, or already there.
    fn touch(&mut self, m: &Message, mark: Mark, arrived: bool) {
        let life = self.lives.get_or_insert_with(m.id.clone(), || Life {
            started: Start {
                source: parse_millis(&m.created_at),
                seen: arrived.then_some(mark.seen),
            },
            last: mark,
        });
        life.last = Mark {
            source: life.last.source.max(mark.source),
            seen: life.last.seen.max(mark.seen),
        };
    }

    /// Says whether nobody writes the source any more: then time is the
    /// source's own, stopped at its newest record, and the viewer's clock no
    /// longer moves it (docs/behaviour.md §8).
    pub fn set_still(&mut self, still: bool) {
        self.still = still;
    }

    /// Whether the source is still (see `set_still`).
    pub fn is_still(&self) -> bool {
        self.still
    }

    /// The viewer time since the newest source record was seen, as it
    /// counts on the source clock: none for a still source.
    fn projected(&self, now: Millis, seen_at: Millis) -> Millis {
        if self.still {
            0
        } else {
            (now - seen_at).max(0)
        }
    }

    /// How long ago a moment was at viewer time `now`, known by its `source`
    /// time and when the viewer `seen` it: on the projected source clock when
    /// it has a source time, else on the viewer's from when it was seen,
    /// which says nothing of a still source (none).
    fn since(&self, source: Option<Millis>, seen: Option<Millis>, now: Millis) -> Option<Millis> {
        let ago = match (source, self.source_clock) {
            (Some(t), Some((latest, seen_at))) => latest + self.projected(now, seen_at) - t,
            _ if self.still => return None,
            _ => now - seen?,
        };
        Some(ago.max(0))
    }

    /// The source clock at viewer time `now`: the latest source timestamp
    /// seen plus the time since it was seen.
    pub fn source_now(&self, now: Millis) -> Option<Millis> {
        self.source_clock
            .map(|(latest, seen_at)| latest + self.projected(now, seen_at))
    }

    /// Time since subagent `id` last showed signs of life, if it is known.
    pub fn idle_ms(&self, id: &str, now: Millis) -> Option<Millis> {
        let last = self.lives.get(id)?.last;
        self.since(last.source, Some(last.seen), now)
    }

    /// Time since subagent `id` started, if it is known: on the source
    /// clock when its start has a source time; else on the viewer's, from
    /// when the viewer saw it arrive, in a source that is not still.
    pub fn elapsed_ms(&self, id: &str, now: Millis) -> Option<Millis> {
        let started = self.lives.get(id)?.started;
        self.since(started.source, started.seen, now)
    }
}

/// The activity read at one moment of the viewer's clock: what the view-models
/// of time-based rules take.
#[derive(Clone, Copy, Debug)]
pub struct Clock<'a> {
    pub activity: &'a Activity,
    pub now: Millis,
}

impl Clock<'_> {
    /// [`Activity::idle_ms`] now.
    pub fn idle_ms(&self, id: &str) -> Option<Millis> {
        self.activity.idle_ms(id, self.now)
    }

    /// [`Activity::source_now`] now.
    pub fn source_now(&self) -> Option<Millis> {
        self.activity.source_now(self.now)
    }

    /// [`Activity::is_still`].
    pub fn is_still(&self) -> bool {
        self.activity.is_still()
    }

    /// [`Activity::elapsed_ms`] now.
    pub fn elapsed_ms(&self, id: &str) -> Option<Millis> {
        self.activity.elapsed_ms(id, self.now)
    }

    /// How long run `id` has been going, as the roster and the drill-down
    /// show it: known, and a second at least (a run just seen reads no
    /// figure until the clock's next tick, never `0ms`).
    pub fn running_for(&self, id: &str) -> Option<u64> {
        self.elapsed_ms(id)
            .filter(|ms| *ms >= SHOWN_FROM_MS)
            .map(|ms| ms as u64)
    }
}

/// The shortest elapsed time [`Clock::running_for`] shows.
const SHOWN_FROM_MS: Millis = 1000;

/// Whether a running subagent idle for `idle_ms` is stalled (docs/behaviour.md §8).
pub fn is_stalled(idle_ms: Millis) -> bool {
    idle_ms >= STALL_AFTER_MS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::Event;
    use serde_json::json;

    const MIN: Millis = 60_000;

    fn at(minute: u32, second: u32) -> String {
        format!("2026-08-03T10:{minute:02}:{second:02}Z")
    }

    fn subagent(id: &str, time: &str) -> Event {
        Event::MessageAdded(
            Message::from_value(&json!({"id": id, "type": "tool_call",
                "created_at": time, "updated_at": time,
                "metadata": {"tool_call_id": format!("tc-{id}"), "status": "running",
                "normalized": {"kind": "subagent_task", "subagent_task": {}}}}))
            .unwrap(),
        )
    }

    fn child(id: &str, parent: &str, time: &str) -> Event {
        Event::MessageAdded(
            Message::from_value(&json!({"id": id, "type": "tool_read",
                "created_at": time, "updated_at": time,
                "metadata": {"tool_call_id": format!("tc-{id}"),
                "parent_tool_call_id": format!("tc-{parent}")}}))
            .unwrap(),
        )
    }

    struct World {
        store: Store,
        activity: Activity,
    }

    impl World {
        fn new() -> World {
            World {
                store: Store::new(),
                activity: Activity::new(),
            }
        }

        fn apply(&mut self, events: Vec<Event>, now: Millis) {
            let changes = self.store.apply_all(events);
            self.activity.record(&self.store, &changes, now);
        }
    }

    #[test]
    fn stalled_after_5_minutes_without_a_new_child_or_update_on_the_viewer_clock() {
        // The source clock is far from the viewer's: only differences count.
        let mut w = World::new();
        let t0 = 1_000_000;
        w.apply(vec![subagent("a", &at(0, 0))], t0);
        let idle = w.activity.idle_ms("a", t0 + 5 * MIN - 1).unwrap();
        assert!(!is_stalled(idle));
        let idle = w.activity.idle_ms("a", t0 + 5 * MIN).unwrap();
        assert!(is_stalled(idle));
    }

    #[test]
    fn a_new_child_clears_stalled() {
        let mut w = World::new();
        w.apply(vec![subagent("a", &at(0, 0))], 0);
        w.apply(vec![child("c1", "a", &at(6, 0))], 6 * MIN);
        assert_eq!(w.activity.idle_ms("a", 6 * MIN), Some(0));
        assert!(!is_stalled(w.activity.idle_ms("a", 10 * MIN).unwrap()));
    }

    #[test]
    fn an_update_of_a_grandchild_is_a_sign_of_life_for_every_subagent_above_it() {
        let mut w = World::new();
        w.apply(
            vec![
                subagent("a", &at(0, 0)),
                Event::MessageAdded(
                    Message::from_value(&json!({"id": "b", "type": "tool_call",
                    "created_at": at(0, 1), "metadata": {"tool_call_id": "tc-b",
                    "parent_tool_call_id": "tc-a", "status": "running",
                    "normalized": {"kind": "subagent_task", "subagent_task": {}}}}))
                    .unwrap(),
                ),
            ],
            0,
        );
        w.apply(vec![child("g", "b", &at(8, 0))], 8 * MIN);
        assert_eq!(w.activity.idle_ms("a", 8 * MIN), Some(0));
        assert_eq!(w.activity.idle_ms("b", 8 * MIN), Some(0));
    }

    #[test]
    fn a_session_loaded_late_shows_idle_time_on_its_own_clock() {
        // Loaded at once: the subagent's last child is 7 minutes older than
        // the session's latest message, so it is stalled immediately.
        let mut w = World::new();
        w.apply(
            vec![
                subagent("a", &at(0, 0)),
                child("c", "a", &at(1, 0)),
                subagent("z", &at(8, 0)),
            ],
            500,
        );
        assert_eq!(w.activity.idle_ms("a", 500), Some(7 * MIN));
        assert_eq!(w.activity.elapsed_ms("a", 500), Some(8 * MIN));
        assert_eq!(w.activity.elapsed_ms("a", 500 + MIN), Some(9 * MIN));
    }

    #[test]
    fn messages_without_timestamps_count_on_the_viewer_clock_from_when_they_arrive() {
        let mut w = World::new();
        w.apply(vec![child("r", "none", "")], 0);
        w.apply(vec![subagent("a", "")], 100);
        assert_eq!(w.activity.idle_ms("a", 100 + 3 * MIN), Some(3 * MIN));
        assert_eq!(w.activity.elapsed_ms("a", 100 + 3 * MIN), Some(3 * MIN));
    }

    #[test]
    fn a_start_without_a_timestamp_already_there_when_the_viewer_came_is_unknown() {
        // The transcript's first batch: the run was going before the page opened.
        let mut w = World::new();
        w.apply(vec![subagent("a", "")], 100);
        assert_eq!(w.activity.elapsed_ms("a", 100 + 3 * MIN), None);
        assert_eq!(w.activity.idle_ms("a", 100 + 3 * MIN), Some(3 * MIN));
        // A read of the session (a reconnect) brings what was there meanwhile.
        let read = |started: bool| {
            if started {
                Event::SessionReadStarted {
                    session_id: "s".into(),
                }
            } else {
                Event::SessionReadFinished {
                    session_id: "s".into(),
                    fetched: vec!["a".into(), "b".into(), "c".into()],
                }
            }
        };
        w.apply(
            vec![Event::TranscriptOpened {
                session_id: Some("s".into()),
            }],
            200,
        );
        w.apply(vec![child("r", "none", "")], 200);
        w.apply(vec![read(true), subagent("b", "")], 300);
        assert_eq!(w.activity.idle_ms("b", 300 + MIN), Some(MIN), "it is known");
        assert_eq!(
            w.activity.elapsed_ms("b", 300 + MIN),
            None,
            "found by a read"
        );
        w.apply(vec![read(false)], 300);
        w.apply(vec![subagent("c", "")], 400);
        assert_eq!(
            w.activity.elapsed_ms("c", 400 + MIN),
            Some(MIN),
            "seen arriving"
        );
    }

    #[test]
    fn a_still_source_without_timestamps_knows_no_elapsed_time() {
        let mut w = World::new();
        w.activity.set_still(true);
        w.apply(vec![child("r", "none", "")], 0);
        w.apply(vec![subagent("a", "")], 100);
        assert_eq!(w.activity.elapsed_ms("a", 100 + 3 * MIN), None);
        assert_eq!(
            w.activity.idle_ms("a", 100 + 3 * MIN),
            None,
            "nor how long before the file's end it was last heard of"
        );
        w.activity.set_still(false);
        assert!(w.activity.idle_ms("a", 100).is_some(), "it is known");
        w.activity.set_still(true);
        // With its own clock, a still file's time is its own.
        w.apply(
            vec![subagent("t", &at(0, 0)), child("z", "none", &at(2, 0))],
            200,
        );
        assert_eq!(w.activity.elapsed_ms("t", 200 + 60 * MIN), Some(2 * MIN));
    }

    #[test]
    fn a_looping_parent_chain_terminates() {
        let mut w = World::new();
        let looped = |id: &str, parent: &str| {
            Event::MessageAdded(
                Message::from_value(&json!({"id": id, "type": "tool_call",
                "metadata": {"tool_call_id": format!("tc-{id}"),
                "parent_tool_call_id": format!("tc-{parent}")}}))
                .unwrap(),
            )
        };
        w.apply(vec![looped("x", "y"), looped("y", "x")], 0);
        assert_eq!(w.activity.idle_ms("x", 0), Some(0));
    }

    #[test]
    fn opening_another_transcript_forgets_everything() {
        let mut w = World::new();
        w.apply(vec![subagent("a", &at(0, 0))], 0);
        w.apply(vec![Event::TranscriptOpened { session_id: None }], 1);
        assert_eq!(w.activity.idle_ms("a", 1), None);
    }
}
