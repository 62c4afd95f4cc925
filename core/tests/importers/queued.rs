//! Queued runs (docs/behaviour.md §3.4): the `wide-fan-out`
//! captures, twelve background agents launched in one reply
//! (captures/scenarios/wide-fan-out.mjs). qwen-code runs ten at a time
//! (`QWEN_CODE_MAX_BACKGROUND_AGENTS`): the eleventh and twelfth wait until
//! two others end, which their own transcripts' first records tell; Claude
//! Code starts all twelve. Expectations come from the harness's
//! observations in the manifest (`timeline.observed`), not from taskview.

use crate::common::*;
use serde_json::Value;
use taskview_core::model::message::Message;
use taskview_core::model::status::{is_running_subagent, message_run_state, RunState};
use taskview_core::read::import::{import_any_with_files, Follower};
use taskview_core::screen::view::roster::{roster_entry, RosterFilter, RosterOrder, RosterSort};
use taskview_core::screen::viewer::Viewer;
use taskview_core::state::activity::Millis;
use taskview_core::state::store::{EntryId, Store};
use taskview_testkit::captures::{capture, Capture};

const QWEN: &str = "qwen-code-0.24.4/wide-fan-out";
const CLAUDE: &str = "claude-code-2.1.337/wide-fan-out";

/// The agents whose first request the harness saw seconds after the
/// others': those that waited (by key).
fn waited(c: &Capture) -> Vec<String> {
    let observed = &c.manifest["timeline"]["observed"];
    let first = |k: &str| observed[k]["firstRequest"].as_i64().unwrap();
    let agents = c.agents();
    let keys: Vec<&str> = agents.iter().map(|a| a["key"].as_str().unwrap()).collect();
    // A CLI's start-up delays every agent alike: a wait is seconds past the earliest.
    let earliest = keys.iter().map(|k| first(k)).min().unwrap();
    keys.iter()
        .filter(|k| first(k) - earliest > 2_000)
        .map(|k| k.to_string())
        .collect()
}

/// The description the script gives agent `key`.
fn description(c: &Capture, key: &str) -> String {
    let agents = c.agents();
    let agent = agents.iter().find(|a| a["key"] == key).unwrap();
    agent["description"].as_str().unwrap().to_string()
}

/// Read whole (a still file): every run completed; the ones that waited
/// are drawn launch, wait, run (their wait of seconds apart from their
/// run), the others without a wait worth the name; the curve's peak is
/// the ten that ran at once, not the twelve launched.
#[test]
fn a_run_that_waited_in_its_clis_queue_is_drawn_launch_wait_run_and_off_the_curve_meanwhile() {
    for (name, queued, peak) in [(QWEN, 2, 10), (CLAUDE, 0, 12)] {
        let c = capture(name);
        assert_eq!(waited(&c).len(), queued, "{name}: the harness saw it so");
        let events = import_any_with_files(&c.session, &c.file_refs())
            .unwrap()
            .events;
        let msgs = messages(&events);
        let mut viewer = Viewer::new();
        viewer.set_still(true);
        viewer.apply(events);
        let snap = viewer.timeline_snapshot();
        assert_eq!(snap.runs.len(), 12, "{name}");
        let long_waits: Vec<String> = snap
            .runs
            .iter()
            .filter(|r| r.waited_ms.is_some_and(|w| w > 1_000))
            .map(|r| payload(&msgs, &r.id).description.clone())
            .collect();
        let mut expected: Vec<String> = waited(&c).iter().map(|k| description(&c, k)).collect();
        let mut long_waits = long_waits;
        long_waits.sort();
        expected.sort();
        assert_eq!(long_waits, expected, "{name}");
        assert!(snap.runs.iter().all(|r| r.status == "complete"), "{name}");
        assert_eq!(snap.peak, peak, "{name}: at once");
    }
}

/// The subagent cards a store holds, in display order.
fn stored_cards(store: &Store) -> Vec<&Message> {
    store
        .entries()
        .filter_map(|(_, e)| match e {
            EntryId::Message(id) => store.message(id),
            EntryId::Unreadable(_) => None,
        })
        .filter(|m| m.is_subagent_payload())
        .collect()
}

/// Each line of the session and its transcripts with the time its record
/// says, in time order (a file's lines keep their order). Sidecars are left
/// out: rewritten as a run goes, the captured one is its last state.
fn timed_lines(c: &Capture) -> Vec<(Millis, Option<String>, String)> {
    let mut out = Vec::new();
    let sources = std::iter::once((None, c.session.as_str())).chain(
        c.files
            .iter()
            .filter(|(p, _)| p.ends_with(".jsonl"))
            .map(|(p, t)| (Some(p.clone()), t.as_str())),
    );
    for (path, text) in sources {
        let mut time = 0;
        for line in text.split_inclusive('\n') {
            let stamp = serde_json::from_str::<Value>(line).ok().and_then(|v| {
                taskview_core::model::time::parse_millis(v.get("timestamp")?.as_str()?)
            });
            time = stamp.unwrap_or(time);
            out.push((time, path.clone(), line.to_string()));
        }
    }
    out.sort_by_key(|(t, _, _)| *t);
    out
}

/// Followed live as written, at the moment before the eleventh began: ten
/// run and two wait. The waiting two read `queued`, count on no chip (the
/// board's running count is ten, not twelve), and the roster counts them
/// apart (`queued · 2`); once they begin they run like the others.
#[test]
fn a_launch_its_cli_holds_in_its_queue_reads_queued_off_the_chip_and_apart_in_the_roster() {
    let c = capture(QWEN);
    let lines = timed_lines(&c);
    let first_start = c
        .files
        .iter()
        .filter(|(p, _)| p.ends_with(".jsonl"))
        .filter_map(|(_, t)| {
            let v: Value = serde_json::from_str(t.lines().next()?).ok()?;
            taskview_core::model::time::parse_millis(v["timestamp"].as_str()?)
        })
        .collect::<Vec<_>>();
    let mut starts = first_start.clone();
    starts.sort();
    // Ten started within a second; the eleventh seconds later.
    assert!(starts[10] - starts[9] > 2_000, "{starts:?}");
    let cut = starts[10] - 1;
    let mut follower = Follower::new(None);
    let mut events = Vec::new();
    for (_, path, line) in lines.iter().filter(|(t, _, _)| *t <= cut) {
        events.extend(match path {
            None => follower.push(line.as_bytes()),
            Some(p) => follower.push_companion(p, line.as_bytes()),
        });
    }
    let laid = LaidOut::with(events);
    let store = &laid.store;
    let all = stored_cards(store);
    assert_eq!(all.len(), 12, "every launch is a card");
    let running = all.iter().filter(|m| is_running_subagent(m, None)).count();
    let queued: Vec<_> = all
        .iter()
        .filter(|m| message_run_state(m, false) == RunState::Queued)
        .collect();
    assert_eq!(
        (running, queued.len()),
        (10, 2),
        "the chip counts what runs"
    );
    for m in &queued {
        let face = laid.card(&m.id);
        assert_eq!(face.status_word, Some("queued"));
        assert!(!face.status.is_running(), "no spinner");
    }
    let entries: Vec<_> = all
        .iter()
        .filter_map(|m| roster_entry(store, &laid.layout, &m.id, None))
        .collect();
    let order = RosterOrder::build(entries.iter(), RosterFilter::All, RosterSort::Start);
    let counts: Vec<(RosterFilter, usize)> =
        RosterFilter::ALL.into_iter().zip(order.counts()).collect();
    assert!(counts.contains(&(RosterFilter::Queued, 2)), "{counts:?}");
    assert!(counts.contains(&(RosterFilter::Running, 10)), "{counts:?}");
    // Once their records begin they are queued no more.
    let mut rest = follower;
    let mut later = Vec::new();
    for (_, path, line) in lines.iter().filter(|(t, _, _)| *t > cut) {
        later.extend(match path {
            None => rest.push(line.as_bytes()),
            Some(p) => rest.push_companion(p, line.as_bytes()),
        });
    }
    later.extend(rest.flush());
    let mut done = laid;
    for e in later {
        done.apply(e);
    }
    assert!(stored_cards(&done.store)
        .iter()
        .all(|m| message_run_state(m, false) != RunState::Queued));
}
