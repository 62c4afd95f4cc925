//! The timeline of a real capture (docs/user-guide.md "The Timeline"): the Claude Code CLI's slow
//! wave, four background agents with scripted lifetimes launched 1.5 s
//! apart, drawn as the harness observed them.

use serde_json::Value;
use taskview_core::read::import::import_any_with_files;
use taskview_core::screen::viewer::Viewer;
use taskview_core::state::activity::Millis;
use taskview_testkit::captures::capture;

/// The runs the harness observed at its model server, in launch order:
/// `(launched, ended)` on its clock.
fn observed(manifest: &Value) -> Vec<(Millis, Millis)> {
    let mut runs: Vec<(Millis, Millis)> = manifest["holds"]["agents"]
        .as_array()
        .expect("the manifest's agents")
        .iter()
        .map(|a| {
            let seen = &manifest["timeline"]["observed"][a["key"].as_str().unwrap()];
            (
                seen["launched"].as_i64().unwrap(),
                seen["ended"].as_i64().unwrap(),
            )
        })
        .collect();
    runs.sort();
    runs
}

/// The most runs going at one moment.
fn most_at_once(runs: &[(Millis, Millis)]) -> u32 {
    runs.iter()
        .map(|(at, _)| runs.iter().filter(|(s, e)| s <= at && at < e).count() as u32)
        .max()
        .unwrap_or(0)
}

#[test]
fn a_captured_slow_wave_is_drawn_as_long_as_its_runs_lived_with_its_peak_overlap() {
    let wave = capture("claude-code-2.1.332/slow-wave");
    let import = import_any_with_files(&wave.session, &wave.file_refs()).unwrap();
    let mut viewer = Viewer::new();
    viewer.apply(import.events);
    let snap = viewer.timeline_snapshot();
    let mut drawn: Vec<(Millis, Millis)> = snap
        .runs
        .iter()
        .map(|r| (r.start_ms, r.end_ms.expect("every run of the wave ended")))
        .collect();
    drawn.sort();
    let seen = observed(&wave.manifest);
    assert_eq!(drawn.len(), seen.len(), "one bar per run");
    let (first_drawn, first_seen) = (drawn[0].0, seen[0].0);
    for ((start, end), (launched, ended)) in drawn.iter().zip(&seen) {
        // The CLI's files and the harness's server see a run's ends a few
        // hundred milliseconds apart: within a twentieth of its life.
        let life = ended - launched;
        let tolerance = life / 20;
        assert!(
            ((end - start) - life).abs() <= tolerance,
            "a run that lived {life} ms is drawn {} ms long",
            end - start
        );
        assert!(
            ((start - first_drawn) - (launched - first_seen)).abs() <= tolerance,
            "a run launched {} ms into the wave is drawn {} ms into it",
            launched - first_seen,
            start - first_drawn
        );
    }
    assert_eq!(most_at_once(&seen), 4, "the scenario's four overlap");
    assert_eq!(snap.peak, most_at_once(&seen));
}

/// A synthetic live session fed one event at a time, the timeline open: after
/// each event it reads exactly as one opened afresh on the same session (its
/// rows, the curve and its peak, where the time went), though it only took
/// in what changed.
#[test]
fn a_timeline_kept_open_through_a_live_session_reads_as_one_opened_afresh() {
    use taskview_core::screen::view::timeline::query::TimelineQuery;
    let query = TimelineQuery {
        rows: 10_000,
        ..TimelineQuery::default()
    };
    let mut v = Viewer::new();
    v.timeline(&query);
    for (n, event) in taskview_testkit::synthetic::live_session(300)
        .into_iter()
        .enumerate()
    {
        v.apply([event]);
        let kept = v.timeline(&query);
        let mut fresh = v.clone();
        fresh.set_timeline_open(false);
        assert_eq!(kept, fresh.timeline(&query), "after event {n}");
    }
    assert!(v.timeline(&query).rows_total > 20, "runs came and settled");
}

/// The same, packed into rows narrow enough to draw clusters, with a search
/// active (now and then another) and a run focused (now and then another):
/// packed rows a look draws as the last one did (their runs unchanged) read as
/// drawn afresh after every event.
#[test]
fn packed_rows_kept_through_a_live_session_read_as_drawn_afresh() {
    use taskview_core::screen::view::timeline::query::TimelineQuery;
    let mut query = TimelineQuery {
        packed: true,
        width: 320,
        rows: 10_000,
        ..TimelineQuery::default()
    };
    let mut v = Viewer::new();
    v.timeline(&query);
    let mut term = "verdict";
    v.search(term);
    let (mut clustered, mut hit) = (false, false);
    for (n, event) in taskview_testkit::synthetic::live_session(600)
        .into_iter()
        .enumerate()
    {
        v.apply([event]);
        if n % 97 == 0 {
            // Now and then the focus moves to the newest run.
            query.focus = v.timeline_snapshot().runs.last().map(|r| r.id.clone());
        }
        if n % 150 == 149 {
            // And the search finds other runs, none of them changed.
            term = if term == "verdict" {
                "approve"
            } else {
                "verdict"
            };
            v.search(term);
        }
        let kept = v.timeline(&query);
        clustered |= kept.lanes.iter().any(|l| !l.clusters.is_empty());
        hit |= (kept.lanes.iter())
            .any(|l| l.bars.iter().any(|b| b.hit) || l.clusters.iter().any(|c| c.hit));
        let mut fresh = v.clone();
        fresh.set_timeline_open(false);
        fresh.search(term);
        assert_eq!(kept, fresh.timeline(&query), "after event {n}");
    }
    assert!(clustered, "runs were drawn as clusters");
    assert!(hit, "runs holding a match were drawn");
}

/// The cards of a timeline snapshot on the critical path, by description.
fn critical_descriptions(events: Vec<taskview_core::model::event::Event>) -> Vec<String> {
    let msgs = taskview_testkit::imported::messages(&events);
    let mut viewer = Viewer::new();
    viewer.apply(events);
    viewer
        .timeline_snapshot()
        .runs
        .iter()
        .filter(|r| r.critical)
        .map(|r| {
            let card = taskview_testkit::imported::by_id(&msgs, &r.id);
            card.metadata.subagent.as_ref().unwrap().description.clone()
        })
        .collect()
}

/// docs/user-guide.md "The Timeline": a turn woken by a background run's
/// notification waited for it. The slow wave's main agent launches four
/// background agents and sums up once all have reported: the one the script
/// makes end last woke the turn that ended the session, and it alone is on the
/// critical path.
#[test]
fn a_turn_woken_by_a_background_runs_notification_waited_for_it() {
    let wave = capture("claude-code-2.1.332/slow-wave");
    let scripted = &wave.manifest["timeline"]["scripted"];
    let last = wave
        .agents()
        .into_iter()
        .max_by_key(|a| scripted[a["key"].as_str().unwrap()]["end"].as_i64())
        .unwrap();
    let import = import_any_with_files(&wave.session, &wave.file_refs()).unwrap();
    assert_eq!(
        critical_descriptions(import.events),
        [last["description"].as_str().unwrap()]
    );
}

/// docs/user-guide.md "The Timeline": a background run whose turn never went on after it ended (the
/// agent had stopped talking first) held nothing: it is not on a path.
#[test]
fn a_background_run_that_ended_after_its_turn_went_quiet_woke_nothing() {
    use taskview_testkit::messages::{added, subagent, text, user};
    let run = |id: &str, description: &str, launch: u64, secs: u64| {
        subagent(
            id,
            launch,
            "t1",
            serde_json::json!({"subagent_type": "code-reviewer", "description": description,
                "status": "complete", "is_async": true, "duration_ms": secs * 1000}),
        )
    };
    let session = |answer_at: u64| {
        vec![
            added(user("u1", 0, "t1", "review it")),
            added(run("r1", "Review the lexer", 1, 10)),
            added(run("r2", "Review the parser", 1, 30)),
            added(text("a1", answer_at, Some("t1"), "agent")),
        ]
    };
    assert_eq!(
        critical_descriptions(session(40)),
        ["Review the parser"],
        "the turn answered after both: the later one woke it"
    );
    assert_eq!(
        critical_descriptions(session(20)),
        ["Review the lexer"],
        "the turn went quiet before the parser review ended: it woke nothing"
    );
    assert_eq!(
        critical_descriptions(session(5)),
        Vec::<String>::new(),
        "no background run ended before the turn's last word"
    );
}
