//! What only telemetry knows, in the view model (docs/behaviour.md §7 "OpenTelemetry"): from the
//! captures of Claude Code 2.1.332 and qwen-code 0.24.4 run with telemetry
//! on, each transcript card is matched by its spawning call, and the card's
//! meta row, the roster and the timeline show the figures; a transcript
//! without telemetry shows none of them.

use taskview_core::model::event::Event;
use taskview_core::read::import::{import_any_with_files, otlp};
use taskview_core::screen::view::card::card_view;
use taskview_core::screen::view::roster::{RosterFilter, RosterQuery, RosterRows, RosterSort};
use taskview_core::screen::view::timeline::query::TimelineQuery;
use taskview_core::screen::viewer::Viewer;
use taskview_testkit::captures::{otlp_capture, otlp_posts};

/// The events of the run's session files.
fn transcript(cli: &str, story: &str) -> Vec<Event> {
    let c = otlp_capture(&format!("{cli}/{story}"));
    import_any_with_files(&c.session, &c.file_refs())
        .unwrap()
        .events
}

/// The run's telemetry as the receiver keeps it: one request per line.
fn telemetry(cli: &str, story: &str) -> String {
    otlp_posts(&format!("{cli}/{story}")).join("\n")
}

fn card_ids(events: &[Event]) -> Vec<String> {
    let mut ids: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::MessageAdded(m) if m.metadata.subagent.is_some() => Some(m.id.clone()),
            _ => None,
        })
        .collect();
    ids.sort();
    ids
}

#[test]
fn telemetry_figures_key_every_transcript_card_by_its_spawning_call() {
    for (cli, story) in [
        ("claude-code-2.1.332", "parallel-wave"),
        ("claude-code-2.1.332", "nested"),
        ("qwen-code-0.24.4", "parallel-wave"),
        ("qwen-code-0.24.4", "nested"),
    ] {
        let facts = otlp::facts(&telemetry(cli, story));
        let keyed: Vec<String> = facts.by_call.keys().cloned().collect();
        assert_eq!(keyed, card_ids(&transcript(cli, story)), "{cli} {story}");
        assert!(facts.session.ttft_ms.is_some(), "{cli} {story}");
        assert!(facts.session.requests > keyed.len() as u64, "main asks too");
        let claude = cli.starts_with("claude");
        assert_eq!(
            facts.session.cost_micro_usd.is_some(),
            claude,
            "{cli} {story}: cost"
        );
        // Every permission in these runs was allowed by configuration.
        assert_eq!(facts.session.permission_waits, 0, "{cli} {story}");
    }
}

fn viewer_of(events: Vec<Event>) -> Viewer {
    let mut viewer = Viewer::new();
    viewer.apply(events);
    viewer
}

#[test]
fn a_telemetry_card_shows_its_figures_on_its_card_the_roster_and_the_timeline() {
    let events = otlp::import(&telemetry("claude-code-2.1.332", "parallel-wave")).unwrap();
    let ids = card_ids(&events);
    let mut viewer = viewer_of(events);
    for id in &ids {
        let card = card_view(viewer.store(), viewer.layout(), id, None).unwrap();
        let chips: Vec<&str> = card.chips.iter().map(|c| c.id).collect();
        assert!(chips.ends_with(&["ttft", "cost"]), "{id}: {chips:?}");
        let cost = card.chips.last().unwrap();
        assert!(cost.text.starts_with("$0.0"), "{}", cost.text);
    }
    let roster = viewer.roster(
        RosterQuery::new(RosterFilter::All, RosterSort::Cost),
        RosterRows::ALL,
    );
    assert_eq!(roster.items.len(), ids.len());
    let costs: Vec<f64> = roster
        .items
        .iter()
        .map(|i| {
            let text = i.telemetry.as_deref().unwrap();
            text.rsplit('$').next().unwrap().parse().unwrap()
        })
        .collect();
    assert!(
        costs.windows(2).all(|w| w[0] >= w[1]),
        "costliest first: {costs:?}"
    );
    viewer.set_timeline_open(true);
    let timeline = viewer.timeline(&TimelineQuery::default());
    let titles: Vec<&str> = timeline
        .lanes
        .iter()
        .flat_map(|lane| lane.bars.iter().map(|b| &*b.title))
        .collect();
    assert_eq!(titles.len(), ids.len());
    assert!(
        titles
            .iter()
            .all(|t| t.contains("TTFT ") && t.contains(" · $0.0")),
        "{titles:?}"
    );
}

#[test]
fn a_transcript_without_telemetry_shows_none_of_its_figures() {
    let events = transcript("claude-code-2.1.332", "parallel-wave");
    let ids = card_ids(&events);
    let mut viewer = viewer_of(events);
    for id in &ids {
        let card = card_view(viewer.store(), viewer.layout(), id, None).unwrap();
        let telemetry_chip = card
            .chips
            .iter()
            .find(|c| ["ttft", "waits", "retries", "cost"].contains(&c.id));
        assert_eq!(telemetry_chip, None, "{id}");
    }
    let roster = viewer.roster(RosterQuery::default(), RosterRows::ALL);
    assert!(roster.items.iter().all(|i| i.telemetry.is_none()));
    viewer.set_timeline_open(true);
    let timeline = viewer.timeline(&TimelineQuery::default());
    assert!(timeline
        .lanes
        .iter()
        .flat_map(|lane| lane.bars.iter())
        .all(|b| !b.title.contains("TTFT") && !b.title.contains('$')));
}
