//! The elapsed time of a run whose source keeps no clock (ACP frames carry
//! no timestamps; docs/behaviour.md §8): counted on the viewer's clock from when the
//! viewer saw the run arrive, and unknown (no figure, never `0ms`) where it
//! cannot be honest: a run already there when the page opened, or a still
//! file. Read through the viewer from the Claude ACP adapter's capture of
//! the slow wave, fed a line at a time as `taskview serve` follows it.

use taskview_core::model::event::Event;
use taskview_core::read::import::Follower;
use taskview_core::screen::view::roster::{
    RosterFilter, RosterItem, RosterQuery, RosterRows, RosterSort,
};
use taskview_core::screen::viewer::Viewer;
use taskview_testkit::fixture;

const FRAMES: &str = "captures/claude-agent-acp-0.101.0/slow-wave/acp-frames.jsonl";
/// The session the frames name.
const SESSION: &str = "3b6732a3-1eb6-4be1-a524-80585bd0717f";
/// The line of the first `Agent` launch (0-based).
const FIRST_LAUNCH: usize = 14;
const TICK_MS: i64 = 5_000;

fn frames() -> Vec<String> {
    fixture(FRAMES).lines().map(|l| format!("{l}\n")).collect()
}

fn roster(v: &mut Viewer) -> Vec<RosterItem> {
    let query = RosterQuery::new(RosterFilter::All, RosterSort::Start);
    v.roster(query, RosterRows::ALL).items
}

fn durations(v: &mut Viewer) -> Vec<Option<String>> {
    roster(v).into_iter().map(|i| i.duration).collect()
}

#[test]
fn a_run_seen_arriving_counts_from_then_on_the_viewer_clock_and_never_reads_0ms() {
    let lines = frames();
    let mut follower = Follower::new(None);
    let mut v = Viewer::new();
    let mut now = 1_000_000;
    v.tick(now);
    // The page opens on the prompt; the wave is launched while it looks.
    // (The server starts the turn the agent works in: the frames' own.)
    let mut opening = follower.push(lines[..FIRST_LAUNCH].concat().as_bytes());
    opening.push(Event::turn(true, SESSION, "turn-1"));
    v.apply(opening);
    v.apply(follower.push(lines[FIRST_LAUNCH].as_bytes()));
    let first = roster(&mut v);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].status, "running");
    assert_eq!(first[0].duration, None, "just seen: no figure yet, not 0ms");
    assert!(!first[0].label.contains("0ms"), "{}", first[0].label);
    now += TICK_MS;
    v.tick(now);
    assert_eq!(durations(&mut v), [Some("5.0s".to_string())]);
    // The other three launches, a frame per tick.
    for line in &lines[FIRST_LAUNCH + 1..60] {
        v.apply(follower.push(line.as_bytes()));
        now += TICK_MS;
        v.tick(now);
    }
    let shown = durations(&mut v);
    assert_eq!(shown.len(), 4, "{shown:?}");
    assert_eq!(shown[0].as_deref(), Some("3m 50s"), "the first counts on");
    assert!(shown.iter().all(Option::is_some), "{shown:?}");
}

#[test]
fn a_run_already_going_when_the_page_opened_has_no_elapsed_time() {
    let lines = frames();
    let mut follower = Follower::new(None);
    let mut v = Viewer::new();
    v.tick(1_000_000);
    v.apply(follower.push(lines[..60].concat().as_bytes()));
    v.tick(1_000_000 + 10 * TICK_MS);
    let items = roster(&mut v);
    assert_eq!(items.len(), 4);
    for item in &items {
        assert_eq!(item.status_text, "background · running");
        assert_eq!(item.duration, None, "{}: its start is unknown", item.id);
        assert!(!item.label.contains("0ms"), "{}", item.label);
    }
    // Nor does the drill-down make one up.
    let drill = v.drill_down();
    assert_eq!(drill.items.len(), 4);
    assert!(drill
        .items
        .iter()
        .all(|i| i.elapsed.is_none() && i.bar.is_none()));
}

#[test]
fn a_still_acp_file_shows_no_elapsed_time_for_its_interrupted_runs() {
    let lines = frames();
    let mut follower = Follower::new(None);
    let mut v = Viewer::new();
    v.set_still(true);
    v.tick(1_000_000);
    // Read in chunks, as the file view reads a file.
    for chunk in lines.chunks(10) {
        v.apply(follower.push(chunk.concat().as_bytes()));
        v.tick(1_000_000 + TICK_MS);
    }
    v.apply(follower.flush());
    v.tick(1_000_000 + 60 * 60_000);
    let items = roster(&mut v);
    let cut_off: Vec<&RosterItem> = items.iter().filter(|i| i.status == "running").collect();
    assert!(
        !cut_off.is_empty(),
        "the adapter forwards no background result"
    );
    for item in cut_off {
        assert_eq!(item.status_text, "interrupted · no result recorded");
        assert_eq!(item.duration, None, "{}: the file keeps no clock", item.id);
        assert_eq!(
            item.status_title.as_deref(),
            Some("the file ends before this subagent reported back"),
            "{}: no idle time made up from the page's clock",
            item.id
        );
    }
}
