//! Following a growing session (docs/behaviour.md §7 "All day, any size"):
//! for every JSON Lines fixture, a follower fed the file in pieces (line by
//! line, at any one line boundary, inside a line, inside a character) builds
//! the store the whole import builds: the messages in display order with
//! every field, the unreadable rows, the counts of records not shown.

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::read::import::companions::{companion, Companion};
use taskview_core::read::import::title::session_title;
use taskview_core::read::import::working::agent_working;
use taskview_core::read::import::{import_any, import_any_with_files, Dialect, Follower};
use taskview_core::state::store::{EntryId, Store};
use taskview_testkit::captures::{captures, Capture};
use taskview_testkit::fixtures::fixtures_under;

/// What a store shows: each entry in display order, and the counts of
/// records not shown.
#[derive(Debug, PartialEq)]
struct Shown {
    entries: Vec<Entry>,
    not_shown: BTreeMap<String, u64>,
}

#[derive(Debug, PartialEq)]
enum Entry {
    Message(Box<Message>),
    Unreadable { raw: String, error: String },
}

fn shown(store: &Store) -> Shown {
    let entries = store
        .entries()
        .map(|(_, entry)| match entry {
            EntryId::Message(id) => Entry::Message(Box::new(store.message(id).unwrap().clone())),
            EntryId::Unreadable(seq) => {
                let u = store.unreadable(*seq).unwrap();
                Entry::Unreadable {
                    raw: u.raw.clone(),
                    error: u.error.clone(),
                }
            }
        })
        .collect();
    Shown {
        entries,
        not_shown: store.not_shown().clone(),
    }
}

fn store_of(events: Vec<Event>) -> Store {
    let mut store = Store::new();
    store.apply_all(events);
    store
}

/// The whole import of a session and its files.
fn whole(text: &str, files: &[(&str, &str)]) -> Shown {
    shown(&store_of(
        import_any_with_files(text, files).unwrap().events,
    ))
}

/// A session fed to a follower in pieces: `main` are the session's, and
/// each `(path, bytes)` a companion's, in the order they are written.
/// When the follower asks for a re-read, the store starts afresh from a new
/// follower fed everything so far, as the server does. Also says whether
/// any re-read was asked for.
fn followed(pieces: &[(Option<&str>, &[u8])]) -> (Shown, bool) {
    let mut follower = Follower::new(None);
    let mut store = Store::new();
    let mut so_far: Vec<(Option<&str>, Vec<u8>)> = Vec::new();
    let mut reread = false;
    for (path, bytes) in pieces {
        match so_far.iter_mut().find(|(p, _)| p == path) {
            Some((_, held)) => held.extend_from_slice(bytes),
            None => so_far.push((*path, bytes.to_vec())),
        }
        let events = match path {
            None => follower.push(bytes),
            Some(path) => follower.push_companion(path, bytes),
        };
        store.apply_all(events);
        if follower.needs_reread() {
            reread = true;
            follower = Follower::new(None);
            store = Store::new();
            for (path, bytes) in &so_far {
                let events = match path {
                    None => follower.push(bytes),
                    Some(path) => follower.push_companion(path, bytes),
                };
                store.apply_all(events);
            }
            assert!(
                !follower.needs_reread(),
                "a new follower fed the file so far reads it"
            );
        }
    }
    store.apply_all(follower.flush());
    (shown(&store), reread)
}

/// A session fixture that is JSON Lines, and what its whole import shows.
struct Fixture {
    path: &'static str,
    text: &'static str,
    dialect: Dialect,
    whole: Shown,
}

/// The session fixtures that are JSON Lines: every fixture a dialect that
/// follows imports (imported once for every test).
fn jsonl_fixtures() -> &'static [Fixture] {
    static FIXTURES: OnceLock<Vec<Fixture>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        fixtures_under("")
            .filter(|(path, _)| path.ends_with(".jsonl"))
            .filter_map(|(path, text)| {
                let import = import_any(text).ok()?;
                import.dialect.follows().then(|| Fixture {
                    path,
                    text,
                    dialect: import.dialect,
                    whole: shown(&store_of(import.events)),
                })
            })
            .collect()
    })
}

/// The byte offsets just past each newline of `text`.
fn line_ends(text: &str) -> Vec<usize> {
    text.match_indices('\n').map(|(at, _)| at + 1).collect()
}

/// `text` cut at `cuts` (sorted, within it).
fn cut<'a>(text: &'a str, cuts: &[usize]) -> Vec<(Option<&'static str>, &'a [u8])> {
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut from = 0;
    for &at in cuts {
        if at > from && at < bytes.len() {
            pieces.push((None, &bytes[from..at]));
            from = at;
        }
    }
    pieces.push((None, &bytes[from..]));
    pieces
}

fn assert_follows(f: &Fixture, cuts: &[usize]) {
    let (got, _) = followed(&cut(f.text, cuts));
    assert!(
        got == f.whole,
        "{} cut at {:?}: {}",
        f.path,
        &cuts[..cuts.len().min(8)],
        first_difference(&got, &f.whole)
    );
}

/// Where two stores differ, for the failure message.
fn first_difference(got: &Shown, want: &Shown) -> String {
    if got.not_shown != want.not_shown {
        return format!("not shown {:?} != {:?}", got.not_shown, want.not_shown);
    }
    for (at, (g, w)) in got.entries.iter().zip(&want.entries).enumerate() {
        if g != w {
            let (g, w) = (format!("{g:?}"), format!("{w:?}"));
            let from = g
                .chars()
                .zip(w.chars())
                .take_while(|(a, b)| a == b)
                .count()
                .saturating_sub(150);
            let tail = |s: &str| s.chars().skip(from).take(400).collect::<String>();
            return format!(
                "entry {at} from char {from}:\n got …{}\nwant …{}",
                tail(&g),
                tail(&w)
            );
        }
    }
    format!(
        "{} entries, the whole import {}",
        got.entries.len(),
        want.entries.len()
    )
}

#[test]
fn every_jsonl_fixture_followed_line_by_line_is_its_whole_import() {
    let fixtures = jsonl_fixtures();
    assert!(fixtures.len() > 100, "{} fixtures", fixtures.len());
    for dialect in [
        Dialect::ClaudeCode,
        Dialect::QwenCode,
        Dialect::Codex,
        Dialect::GeminiCli,
        Dialect::Acp,
    ] {
        assert!(
            fixtures.iter().any(|f| f.dialect == dialect),
            "no {dialect} fixture"
        );
    }
    for f in fixtures {
        assert_follows(f, &line_ends(f.text));
    }
}

#[test]
fn every_jsonl_fixture_pushed_whole_is_its_whole_import() {
    for f in jsonl_fixtures() {
        assert_follows(f, &[]);
    }
}

#[test]
fn every_jsonl_fixture_cut_inside_each_line_is_its_whole_import() {
    for f in jsonl_fixtures() {
        let mut cuts = Vec::new();
        let mut from = 0;
        for end in line_ends(f.text).into_iter().chain([f.text.len()]) {
            let middle = from + (end - from) / 2;
            cuts.extend([middle, end]);
            from = end;
        }
        assert_follows(f, &cuts);
    }
}

#[test]
fn every_jsonl_fixture_cut_inside_each_multibyte_character_is_its_whole_import() {
    let mut cut_any = false;
    for f in jsonl_fixtures() {
        let cuts: Vec<usize> = f
            .text
            .char_indices()
            .filter(|(_, c)| c.len_utf8() > 1)
            .map(|(at, _)| at + 1)
            .collect();
        cut_any |= !cuts.is_empty();
        assert_follows(f, &cuts);
    }
    assert!(cut_any, "some fixture has a multi-byte character");
}

/// Small fixtures: every line boundary as the one cut of a two-piece push.
#[test]
fn small_jsonl_fixtures_cut_once_at_each_line_boundary_are_their_whole_import() {
    let mut tried = 0;
    for f in jsonl_fixtures() {
        let ends = line_ends(f.text);
        if ends.len() > 40 {
            continue;
        }
        tried += 1;
        for end in ends {
            assert_follows(f, &[end]);
        }
    }
    assert!(tried > 20, "{tried} small fixtures");
}

/// The dialects a follower reads without a re-read: every fixture of them
/// follows to its end, line by line.
#[test]
fn only_a_gemini_log_that_rewrites_itself_asks_for_a_re_read() {
    let mut reread_any = false;
    for f in jsonl_fixtures() {
        let (_, reread) = followed(&cut(f.text, &line_ends(f.text)));
        reread_any |= reread;
        if f.dialect != Dialect::GeminiCli {
            assert!(!reread, "{} ({}) asked for a re-read", f.path, f.dialect);
        }
    }
    assert!(reread_any, "a Gemini CLI log rewrites a message");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random cuts, anywhere (inside records and characters too).
    #[test]
    fn a_jsonl_fixture_cut_anywhere_is_its_whole_import(
        pick in any::<prop::sample::Index>(),
        fractions in prop::collection::vec(0.0f64..1.0, 1..12),
    ) {
        let fixtures = jsonl_fixtures();
        let f = &fixtures[pick.index(fixtures.len())];
        let mut cuts: Vec<usize> = fractions
            .iter()
            .map(|x| (x * f.text.len() as f64) as usize)
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let (got, _) = followed(&cut(f.text, &cuts));
        prop_assert!(got == f.whole, "{} cut at {:?}", f.path, cuts);
    }
}

/// A line and the time of the latest record up to it.
type Timed<'a> = (String, &'a str);

/// The lines of a capture's session and its files, in the order the CLI
/// wrote them: each file's lines in their order, merged by record time (a
/// line without a time goes with the line before it; the session first on
/// a tie); sidecar documents first.
fn interleaved(c: &Capture) -> Vec<(Option<&str>, &[u8])> {
    let mut pieces: Vec<(Option<&str>, &[u8])> = Vec::new();
    let mut files: Vec<(Option<&str>, Vec<Timed>)> = Vec::new();
    let sources = std::iter::once((None, c.session.as_str()))
        .chain(c.files.iter().map(|(p, t)| (Some(p.as_str()), t.as_str())));
    for (path, text) in sources {
        if path.is_some_and(|p| !p.ends_with(".jsonl")) {
            pieces.push((path, text.as_bytes()));
            continue;
        }
        let mut time = String::new();
        let mut lines = Vec::new();
        for line in text.split_inclusive('\n') {
            let stamp = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("timestamp")?.as_str().map(str::to_string));
            if let Some(stamp) = stamp {
                time = stamp;
            }
            lines.push((time.clone(), line));
        }
        lines.reverse();
        files.push((path, lines));
    }
    loop {
        let next = files
            .iter()
            .enumerate()
            .filter_map(|(at, (_, lines))| Some((lines.last()?.0.clone(), at)))
            .min();
        let Some((_, at)) = next else { break };
        let (path, lines) = &mut files[at];
        let (_, line) = lines.pop().expect("a line");
        pieces.push((*path, line.as_bytes()));
    }
    pieces
}

/// A workflow run's summary or journal, which a follower does not read.
fn is_workflow_file(path: &str) -> bool {
    matches!(
        companion(path),
        Companion::Run { .. } | Companion::Journal { .. }
    )
}

#[test]
fn a_session_and_its_subagent_files_followed_as_written_are_their_whole_import() {
    let mut followed_files = 0;
    for cli in ["claude-code-2.1.332", "qwen-code-0.24.4"] {
        // A workflow run's files are read with its summary, which asks for
        // a re-read (below).
        for c in captures(cli)
            .into_iter()
            .filter(|c| !c.name.ends_with("/workflow"))
        {
            followed_files += c.files.len();
            let (mut got, reread) = followed(&interleaved(&c));
            assert!(!reread, "{} asked for a re-read", c.name);
            let mut want = whole(&c.session, &c.file_refs());
            if cli.starts_with("qwen") {
                // A qwen-code foreground card reads completed from its
                // launch, so its answer is its transcript's latest text
                // until the real one comes: that row is held back meanwhile
                // and comes after the rows its record time ties with.
                untie(&mut got);
                untie(&mut want);
            }
            assert!(got == want, "{}: {}", c.name, first_difference(&got, &want));
        }
    }
    assert!(
        followed_files > 50,
        "{followed_files} files beside sessions"
    );
}

/// The entries with the same record time put in id order.
fn untie(shown: &mut Shown) {
    let key = |e: &Entry| match e {
        Entry::Message(m) => (m.created_at.clone(), m.id.clone()),
        Entry::Unreadable { raw, .. } => (String::new(), raw.clone()),
    };
    let mut at = 0;
    while at < shown.entries.len() {
        let time = key(&shown.entries[at]).0;
        let run = shown.entries[at..]
            .iter()
            .take_while(|e| !time.is_empty() && key(e).0 == time)
            .count()
            .max(1);
        shown.entries[at..at + run].sort_by_key(key);
        at += run;
    }
}

#[test]
fn a_workflow_runs_summary_asks_for_a_re_read() {
    let c = taskview_testkit::captures::capture("claude-code-2.1.332/workflow");
    let (path, text) = c
        .files
        .iter()
        .find(|(path, _)| is_workflow_file(path))
        .expect("the workflow capture has a run summary");
    let mut follower = Follower::new(None);
    follower.push(c.session.as_bytes());
    assert!(!follower.needs_reread());
    assert!(follower.push_companion(path, text.as_bytes()).is_empty());
    assert!(follower.needs_reread());
}

/// The title and the working state a follower keeps as lines come are
/// those read from the whole text so far (`session_title`, `agent_working`).
#[test]
fn a_followers_title_and_working_state_are_those_of_the_text_so_far() {
    for f in jsonl_fixtures() {
        let ends = line_ends(f.text);
        let stops: Vec<usize> = [ends.len() / 3, ends.len() * 2 / 3, ends.len()]
            .iter()
            .filter_map(|&n| n.checked_sub(1).and_then(|n| ends.get(n).copied()))
            .collect();
        let mut follower = Follower::new(Some(f.dialect));
        let mut from = 0;
        for stop in stops {
            follower.push(&f.text.as_bytes()[from..stop]);
            from = stop;
            let so_far = &f.text[..stop];
            if follower.needs_reread() {
                break; // a new follower reads it on
            }
            if let Some(import) = import_any(so_far).ok().filter(|i| i.dialect == f.dialect) {
                assert_eq!(
                    follower.title(),
                    session_title(so_far, &import.events),
                    "{} at {stop}",
                    f.path
                );
            }
            assert_eq!(
                follower.working(),
                agent_working(f.dialect, so_far),
                "{} at {stop}",
                f.path
            );
        }
    }
}
