//! A telemetry file followed by its new bytes (docs/behaviour.md §7
//! "All day, any size"): the real posts of the capture stories, in their
//! order of arrival or shuffled (spans leave when they end, so children come
//! before parents), fed to a follower cut anywhere (between posts, inside a
//! post, inside a character), build the store the whole import of the same
//! file builds: every card with every field in display order, and the counts
//! of records not shown; and so at any moment of the session (live, or
//! ended for want of records).

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::read::import::{otlp, Dialect, Follower};
use taskview_core::state::store::{EntryId, Store};
use taskview_testkit::captures::otlp_posts;

/// The stories captured with telemetry on.
const STORIES: [&str; 4] = [
    "claude-code-2.1.332/nested",
    "claude-code-2.1.332/parallel-wave",
    "qwen-code-0.24.4/nested",
    "qwen-code-0.24.4/parallel-wave",
];

/// A story's posts in their order of arrival, each as one line.
fn posts(story: &str) -> &'static [String] {
    static POSTS: OnceLock<BTreeMap<&str, Vec<String>>> = OnceLock::new();
    let all = POSTS.get_or_init(|| {
        STORIES
            .iter()
            .map(|story| (*story, otlp_posts(story)))
            .collect()
    });
    &all[story]
}

/// What a store shows: its messages in display order, and the counts of
/// records not shown.
#[derive(Debug, PartialEq)]
struct Shown {
    messages: Vec<Message>,
    not_shown: BTreeMap<String, u64>,
}

fn shown(store: &Store) -> Shown {
    let messages = store
        .entries()
        .map(|(_, entry)| match entry {
            EntryId::Message(id) => store.message(id).unwrap().clone(),
            EntryId::Unreadable(seq) => panic!("unreadable row {seq}"),
        })
        .collect();
    Shown {
        messages,
        not_shown: store.not_shown().clone(),
    }
}

fn store_of(events: Vec<Event>) -> Store {
    let mut store = Store::new();
    store.apply_all(events);
    store
}

/// The whole import of `text` at `now_ms` (`None`: read as ended): the
/// follower's fold fed every line at once, drained once.
fn whole(text: &str, now_ms: Option<u64>) -> Shown {
    let events = match now_ms {
        Some(now) => otlp::import_live(text, now),
        None => otlp::import(text),
    };
    shown(&store_of(events.unwrap()))
}

/// `text` fed to one follower in pieces cut at `cuts`, judged at `now_ms`.
fn followed(text: &str, cuts: &[usize], now_ms: Option<u64>) -> Shown {
    let mut follower = Follower::new(None);
    if let Some(now) = now_ms {
        follower.set_clock(now);
    }
    let mut store = Store::new();
    let bytes = text.as_bytes();
    let mut from = 0;
    for &at in cuts.iter().chain([&bytes.len()]) {
        if at > from && at <= bytes.len() {
            store.apply_all(follower.push(&bytes[from..at]));
            assert!(!follower.needs_reread(), "telemetry is never read again");
            from = at;
        }
    }
    store.apply_all(follower.flush());
    assert_eq!(follower.dialect(), Some(Dialect::Otlp));
    shown(&store)
}

/// Posts in the order `order` gives them (each index taken from those left).
fn shuffled(posts: &[String], order: &[prop::sample::Index]) -> Vec<String> {
    let mut left: Vec<String> = posts.to_vec();
    let mut out = Vec::new();
    for pick in order {
        if left.is_empty() {
            break;
        }
        out.push(left.remove(pick.index(left.len())));
    }
    out.extend(left);
    out
}

/// The newest record time of a story's telemetry, in ms.
fn newest_ms(text: &str) -> u64 {
    let newest = text
        .split(['"', ':', ','])
        .filter_map(|s| s.parse::<u64>().ok())
        .filter(|n| *n > 1_000_000_000_000_000_000)
        .max()
        .unwrap();
    newest / 1_000_000
}

#[test]
fn every_story_followed_post_by_post_is_its_whole_import() {
    for story in STORIES {
        let text = posts(story).join("\n") + "\n";
        let cuts: Vec<usize> = text.match_indices('\n').map(|(at, _)| at + 1).collect();
        let want = whole(&text, None);
        assert!(
            want.messages.len() >= 2,
            "{story}: {} cards",
            want.messages.len()
        );
        assert_eq!(followed(&text, &cuts, None), want, "{story}");
    }
}

#[test]
fn a_followed_claude_session_runs_its_unfinished_subagents_until_it_has_been_quiet() {
    let statuses = |shown: &Shown| -> Vec<String> {
        shown
            .messages
            .iter()
            .filter_map(|m| m.metadata.subagent.as_ref().map(|t| t.status.clone()))
            .collect()
    };
    // The session up to a post where a subagent is at work.
    let all = posts(STORIES[1]);
    let text = (1..all.len())
        .map(|n| all[..n].join("\n") + "\n")
        .find(|text| {
            let live = newest_ms(text) + 1000;
            statuses(&whole(text, Some(live))).contains(&"running".to_string())
        })
        .expect("a subagent at work");
    let newest = newest_ms(&text);
    let live = newest + 1000;
    let cuts: Vec<usize> = text.match_indices('\n').map(|(at, _)| at + 1).collect();
    let at_work = followed(&text, &cuts, Some(live));
    assert_eq!(at_work, whole(&text, Some(live)));
    assert!(
        statuses(&at_work).iter().any(|s| s == "running"),
        "{:?}",
        statuses(&at_work)
    );
    // The same follower, told the time later: the session has ended.
    let mut follower = Follower::new(None);
    follower.set_clock(live);
    let mut store = store_of(follower.push(text.as_bytes()));
    let later = newest + otlp::ENDED_AFTER_QUIET_MS + 1;
    store.apply_all(follower.set_clock(later));
    let ended = shown(&store);
    assert_eq!(ended, whole(&text, Some(later)));
    assert!(!statuses(&ended).iter().any(|s| s == "running"));
    assert!(statuses(&ended)
        .iter()
        .any(|s| s == "no completion reported"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_arrival_order_cut_anywhere_is_the_whole_import(
        story in 0..STORIES.len(),
        order in prop::collection::vec(any::<prop::sample::Index>(), 0..40),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        clock in prop_oneof![Just(None), Just(Some(0u64)), Just(Some(u64::MAX / 2))],
    ) {
        let posts = shuffled(posts(STORIES[story]), &order);
        let text = posts.join("\n") + "\n";
        let mut cuts: Vec<usize> = cuts.iter().map(|i| i.index(text.len())).collect();
        cuts.sort_unstable();
        let want = whole(&text, clock);
        let got = followed(&text, &cuts, clock);
        prop_assert!(got == want, "{} cut at {:?}: {:#?}\n!=\n{:#?}", STORIES[story], cuts,
            got.messages.iter().map(|m| (&m.id, &m.created_at, &m.metadata.status)).collect::<Vec<_>>(),
            want.messages.iter().map(|m| (&m.id, &m.created_at, &m.metadata.status)).collect::<Vec<_>>());
    }
}
