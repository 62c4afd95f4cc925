//! Memory for what is open (docs/behaviour.md §7 "All day, any size"):
//! telemetry sessions nobody views fold their spans into their cards within
//! `--memory-mb`, keep every card for the board, and are read whole
//! again once someone reads them.

use super::super::tasks;
use super::Sessions;
use crate::backend::Backend;
use std::path::PathBuf;
use std::time::Duration;
use taskview_core::read::import::otlp;

/// How many sessions post telemetry.
const SESSIONS: usize = 8;

/// A Claude Code story's posts in their order of arrival, one per line,
/// with the session id it carries.
fn story() -> (String, String) {
    let posts = taskview_testkit::captures::otlp_posts("claude-code-2.1.332/parallel-wave");
    let text = posts.join("\n") + "\n";
    let at = text
        .find(r#""key":"session.id","value":{"stringValue":""#)
        .unwrap();
    let rest = &text[at..];
    let value = rest.split("stringValue\":\"").nth(1).unwrap();
    let session = value.split('"').next().unwrap().to_string();
    (text, session)
}

/// The card ids the backend holds for `session_id`, sorted.
fn card_ids(backend: &Backend, session_id: &str) -> Vec<String> {
    let mut ids = backend.message_ids(session_id).unwrap_or_default();
    ids.sort();
    ids
}

#[test]
fn telemetry_nobody_views_folds_into_its_cards_within_the_budget_and_is_read_whole_when_read() {
    let dir: PathBuf = std::env::temp_dir().join(format!("taskview-budget-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (text, session) = story();
    for n in 0..SESSIONS {
        let own = text.replace(&session, &format!("{session}-{n}"));
        std::fs::write(dir.join(format!("s{n}.jsonl")), own).unwrap();
    }
    let mut want: Vec<String> = otlp::import(&text)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            taskview_core::model::event::Event::MessageAdded(m) => Some(m.id),
            _ => None,
        })
        .collect();
    want.sort();
    assert!(want.len() >= 3, "{want:?}");

    // Room for one session's whole tree and every session folded, not for
    // every session whole.
    let backend = Backend::default();
    tasks::add_board(&backend, std::slice::from_ref(&dir));
    let mut sizing = Sessions::new(std::slice::from_ref(&dir), u64::MAX);
    sizing.look();
    sizing.index_some(&backend, usize::MAX, false);
    sizing.load(&backend, 0, true);
    let whole = sizing.files[0].weight();
    sizing.files[0].fold.as_mut().unwrap().fold_telemetry();
    let folded_weight = sizing.files[0].weight();
    let budget = whole + SESSIONS as u64 * folded_weight;
    assert!(
        SESSIONS as u64 * whole > budget,
        "{whole} whole, {folded_weight} folded"
    );
    let backend = Backend::default();
    tasks::add_board(&backend, std::slice::from_ref(&dir));
    let mut sessions = Sessions::new(std::slice::from_ref(&dir), budget);
    sessions.look();
    sessions.index_some(&backend, usize::MAX, false);
    for i in 0..SESSIONS {
        sessions.load(&backend, i, true);
        assert!(
            sessions.resident_bytes() <= budget,
            "after {} sessions: {} bytes held, {budget} allowed",
            i + 1,
            sessions.resident_bytes()
        );
    }
    let folded: Vec<usize> = (0..SESSIONS)
        .filter(|&i| sessions.files[i].folded.is_some())
        .collect();
    assert!(folded.len() >= SESSIONS - 2, "folded: {folded:?}");
    for file in &sessions.files {
        if file.fold.is_some() {
            assert_eq!(card_ids(&backend, &file.session_id), want, "{}", file.name);
        }
    }

    // Someone reads a folded session: it is read whole again.
    let i = folded[0];
    let session_id = sessions.files[i].session_id.clone();
    assert_eq!(sessions.files[i].weight(), folded_weight);
    backend.open(&session_id);
    sessions.tick(&backend, Duration::from_millis(100));
    assert_eq!(sessions.files[i].folded, None);
    assert_eq!(sessions.files[i].weight(), whole);
    assert_eq!(card_ids(&backend, &session_id), want);
    assert!(sessions.resident_bytes() <= budget);
    let _ = std::fs::remove_dir_all(&dir);
}
