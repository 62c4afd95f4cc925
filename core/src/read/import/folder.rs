//! A folder of transcripts (a dropped or picked folder, a recordings tree
//! laid out like `~/.claude/projects` or `~/.qwen/projects`): which files
//! are sessions and which belong to a session, from their relative paths
//! alone.
//!
//! A session is a `.json` or `.jsonl` file that is not a companion of
//! another: not a subagent transcript or sidecar (`companions::companion`),
//! and not under a session's own folder (`<dir>/<stem>/…`: its `subagents/`,
//! `workflows/`, `tool-results/`). A session's companions are the files under
//! its own folder, those under `<project>/subagents/<stem>/` for a qwen-code
//! chat (`<project>/chats/<stem>.jsonl`), and the subagent transcripts and
//! sidecars lying beside it (the older Claude Code layout) or, for a Codex
//! rollout, the other rollouts beside it (its subagent threads' among
//! them); the importer reads those that are its own. Compaction helpers (`agent-acompact-*`)
//! are neither.

use super::companions::{companion, Companion};

/// One session of a folder and the files that go with it, as indices into
/// the paths given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionFiles {
    pub session: usize,
    pub companions: Vec<usize>,
}

/// The path without a leading `/` or `./`, with `/` separators.
fn normalized(path: &str) -> String {
    let path = path.replace('\\', "/");
    path.trim_start_matches("./")
        .trim_start_matches('/')
        .to_string()
}

/// A transcript's path without its `.jsonl` or `.json` extension.
fn without_extension(path: &str) -> &str {
    path.strip_suffix(".jsonl")
        .or_else(|| path.strip_suffix(".json"))
        .unwrap_or(path)
}

/// A session's name: its file name without `.jsonl` or `.json`; for a
/// Copilot CLI session (`<session id>/events.jsonl`), its folder's name;
/// for a Kimi Code session, its session folder's (`session_<uuid>`).
pub fn session_name(path: &str) -> &str {
    if let Some(folder) = kimi_session_folder(path).filter(|f| !f.is_empty()) {
        return folder.rsplit('/').next().unwrap_or(folder);
    }
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    match (file, dir.rsplit('/').next()) {
        (COPILOT_EVENTS, Some(folder)) if !folder.is_empty() => folder,
        _ => without_extension(file),
    }
}

/// The file a Copilot CLI session's events are in; the folder it lies in
/// is the session's (`~/.copilot/session-state/<session id>/`).
const COPILOT_EVENTS: &str = "events.jsonl";

/// The end of a Kimi Code session's main file: its main agent's wire
/// (`<session>/agents/main/wire.jsonl`; every agent has one there).
const KIMI_MAIN_WIRE: &str = "agents/main/wire.jsonl";

/// The session folder of a Kimi Code main agent's wire at `path`
/// (`…/session_<uuid>`, `""` when the path starts at `agents/`), or `None`
/// for any other file.
fn kimi_session_folder(path: &str) -> Option<&str> {
    match path.strip_suffix(KIMI_MAIN_WIRE)? {
        "" => Some(""),
        folder => folder.strip_suffix('/'),
    }
}

/// The folder part of a normalized path (`""` at the top).
fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The folders whose files belong to the session at `path` (normalized,
/// without extension): its own folder; for a chat under `<project>/chats/`,
/// qwen-code's `<project>/subagents/<stem>` and the project's workflow runs,
/// `<project>/workflows` (a run names the call that launched it), and
/// Gemini CLI's subagent logs, `chats/<session id>/` beside a
/// `session-<date>-<first 8 of the session id>` log (a folder ending in `*`
/// stands for every folder whose name starts so); for a Copilot CLI
/// `events.jsonl`, the folder it lies in (its snapshots and checkpoints).
fn session_folders(own: &str) -> Vec<String> {
    let mut folders = vec![own.to_string()];
    let (dir, stem) = own.rsplit_once('/').unwrap_or(("", own));
    if stem == without_extension(COPILOT_EVENTS) && !dir.is_empty() {
        folders.push(dir.to_string());
    }
    if let Some(session) = kimi_session_folder(&format!("{own}.jsonl")) {
        // Every agent's wire lies under `agents/`; the session's own state beside it.
        folders.push(own.strip_suffix("/main/wire").unwrap_or(own).to_string());
        if !session.is_empty() {
            folders.push(session.to_string());
        }
    }
    if dir == "chats" || dir.ends_with("/chats") {
        let project = dir.strip_suffix("chats").unwrap_or("");
        folders.push(format!("{project}subagents/{stem}"));
        folders.push(format!("{project}workflows"));
        let short = stem.rsplit('-').next().unwrap_or("");
        if stem.starts_with("session-") && short.len() == 8 {
            folders.push(format!("{dir}/{short}*"));
        }
    }
    folders
}

/// True when `path` lies under `folder` (see `session_folders` for a
/// folder ending in `*`).
fn inside(path: &str, folder: &str) -> bool {
    match folder.strip_suffix('*') {
        Some(start) => path
            .strip_prefix(start)
            .is_some_and(|rest| rest.contains('/')),
        None => path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/')),
    }
}

/// True when `path` lies in the folder of the session at `session` (the
/// older layout's subagent files lie beside their session, and are matched
/// to it by the session id their records carry).
pub fn is_beside(session: &str, path: &str) -> bool {
    folder_of(&normalized(session)) == folder_of(&normalized(path))
}

/// Every session among `paths`, in the order given, with its companions.
pub fn sessions(paths: &[&str]) -> Vec<SessionFiles> {
    let paths: Vec<String> = paths.iter().map(|p| normalized(p)).collect();
    let transcript = |p: &str| p.ends_with(".jsonl") || p.ends_with(".json");
    // A qwen-code project's own state beside its `chats/` (`meta.json`,
    // `extract-cursor.json`, written once its memory extractor ran) is no
    // session.
    let projects: std::collections::HashSet<&str> = paths
        .iter()
        .filter(|q| q.ends_with(".jsonl"))
        .map(|q| folder_of(q))
        .filter(|dir| *dir == "chats" || dir.ends_with("/chats"))
        .map(folder_of)
        .collect();
    let project_state = |p: &str| p.ends_with(".json") && projects.contains(folder_of(p));
    let loose = |p: &str| companion(p) == Companion::Other && transcript(p) && !project_state(p);
    // The session folders (`<dir>/<stem>`, a qwen chat's subagents folder)
    // of every loose transcript.
    let own_folders: Vec<String> = paths
        .iter()
        .filter(|p| loose(p))
        .flat_map(|p| session_folders(without_extension(p)))
        .collect();
    let in_a_session_folder = |p: &str| own_folders.iter().any(|f| inside(p, f));
    paths
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            loose(p)
                && (is_copilot_events(p)
                    || kimi_session_folder(p).is_some()
                    || !in_a_session_folder(p))
        })
        .map(|(at, p)| {
            let own = session_folders(without_extension(p));
            let dir = folder_of(p);
            let companions = paths
                .iter()
                .enumerate()
                .filter(|(other, q)| {
                    *other != at
                        && !q
                            .rsplit('/')
                            .next()
                            .unwrap_or("")
                            .starts_with("agent-acompact")
                        && (own.iter().any(|f| inside(q, f))
                            || (folder_of(q) == dir
                                && (companion(q) != Companion::Other
                                    || (is_rollout(p) && is_rollout(q)))))
                })
                .map(|(other, _)| other)
                .collect();
            SessionFiles {
                session: at,
                companions,
            }
        })
        .collect()
}

/// True for a Copilot CLI session's `events.jsonl` (its folder is its own,
/// so it lies in it).
fn is_copilot_events(path: &str) -> bool {
    path.rsplit_once('/')
        .is_some_and(|(dir, file)| file == COPILOT_EVENTS && !dir.is_empty())
}

/// True for a Codex rollout (`rollout-<time>-<thread id>.jsonl`): a
/// subagent thread's rollout lies beside its parent's, and only its
/// records say whose it is, so the rollouts of a folder are each other's
/// companions (the importer reads the threads that descend from the one
/// opened); the earliest, the one a session starts with, sorts first.
pub fn is_rollout(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .is_some_and(|f| f.starts_with("rollout-") && f.ends_with(".jsonl"))
}

/// What a folder without a session says (after its name).
pub const NO_TRANSCRIPT: &str = "holds no transcript (.json or .jsonl)";

/// Where the importers find a companion of the session at `session`: its
/// path relative to the session's folder (both paths relative to one root),
/// `../…` for one in a sibling folder (a qwen-code chat's `subagents/`), as
/// a URL beside the session names it; else its path from the root.
pub fn companion_path(session: &str, path: &str) -> String {
    let (session, path) = (normalized(session), normalized(path));
    let folder = folder_of(&session);
    let parent = folder_of(folder);
    let under = |dir: &str| {
        path.strip_prefix(dir)
            .and_then(|rest| rest.strip_prefix('/'))
            .map(str::to_string)
    };
    match (under(folder), under(parent)) {
        (Some(inside), _) if !folder.is_empty() => inside,
        (_, Some(beside)) if !parent.is_empty() => format!("../{beside}"),
        _ => path,
    }
}

/// Of the sessions `found` among `paths`, the one to open when nobody
/// chose: the one with the most companions, the first in path order on a
/// tie; `None` without a session.
pub fn most_companions(
    found: impl IntoIterator<Item = SessionFiles>,
    paths: &[&str],
) -> Option<SessionFiles> {
    let mut best: Option<SessionFiles> = None;
    for s in found {
        let better = best.as_ref().is_none_or(|b| {
            s.companions.len() > b.companions.len()
                || (s.companions.len() == b.companions.len() && paths[s.session] < paths[b.session])
        });
        if better {
            best = Some(s);
        }
    }
    best
}

/// The session among `paths` that `name` names: its path, its file name or
/// its `session_name`. `Ok(None)` when `paths` hold no session at all; `Err`
/// with the paths of the sessions they hold when none is called so.
pub fn named_session<'a>(
    paths: &[&'a str],
    name: &str,
) -> Result<Option<SessionFiles>, Vec<&'a str>> {
    let found = sessions(paths);
    if found.is_empty() {
        return Ok(None);
    }
    let called = |path: &str| {
        let file = path.rsplit('/').next().unwrap_or(path);
        [path, file, session_name(path)].contains(&name)
    };
    let held: Vec<&str> = found.iter().map(|s| paths[s.session]).collect();
    found
        .into_iter()
        .find(|s| called(paths[s.session]))
        .map(Some)
        .ok_or(held)
}

/// The stem of a session opened by URL (`…/<stem>.jsonl?…` → `<stem>`), whose
/// companions lie under `<stem>/` beside it; `None` for other URLs.
pub fn url_stem(src: &str) -> Option<&str> {
    let path = src.split(['?', '#']).next().unwrap_or("");
    let file = path.rsplit('/').next()?;
    file.strip_suffix(".jsonl").filter(|stem| !stem.is_empty())
}

/// The URL of `relative` (a path like `<stem>/subagents/agent-1.jsonl`) in the
/// folder of the file at `src`, query and fragment dropped.
pub fn sibling_url(src: &str, relative: &str) -> String {
    let path = src.split(['?', '#']).next().unwrap_or("");
    let folder = path.rfind('/').map_or("", |at| &path[..=at]);
    format!("{folder}{relative}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The session a folder of `paths` opens by its paths alone.
    fn main_session(paths: &[&str]) -> Option<SessionFiles> {
        most_companions(sessions(paths), paths)
    }

    /// Each session of `tree` with how many companions it has.
    fn companion_counts<'a>(tree: &[&'a str]) -> Vec<(&'a str, usize)> {
        sessions(tree)
            .iter()
            .map(|s| (tree[s.session], s.companions.len()))
            .collect()
    }

    const TREE: [&str; 11] = [
        "projects/-repo/aaaa.jsonl",
        "projects/-repo/aaaa/subagents/agent-a1.jsonl",
        "projects/-repo/aaaa/subagents/agent-a1.meta.json",
        "projects/-repo/aaaa/subagents/agent-acompact-9.jsonl",
        "projects/-repo/aaaa/subagents/workflows/wf1/journal.jsonl",
        "projects/-repo/aaaa/workflows/wf1.json",
        "projects/-repo/aaaa/tool-results/big.txt",
        "projects/-repo/bbbb.jsonl",
        "projects/-repo/agent-b2.jsonl",
        "projects/-other/cccc.jsonl",
        "projects/-other/notes.md",
    ];

    #[test]
    fn a_projects_tree_has_one_session_per_file_with_its_own_companions() {
        let found = sessions(&TREE);
        let named: Vec<(&str, Vec<&str>)> = found
            .iter()
            .map(|s| {
                (
                    TREE[s.session],
                    s.companions.iter().map(|&c| TREE[c]).collect(),
                )
            })
            .collect();
        assert_eq!(
            named,
            [
                (
                    "projects/-repo/aaaa.jsonl",
                    vec![
                        "projects/-repo/aaaa/subagents/agent-a1.jsonl",
                        "projects/-repo/aaaa/subagents/agent-a1.meta.json",
                        "projects/-repo/aaaa/subagents/workflows/wf1/journal.jsonl",
                        "projects/-repo/aaaa/workflows/wf1.json",
                        "projects/-repo/aaaa/tool-results/big.txt",
                        "projects/-repo/agent-b2.jsonl",
                    ]
                ),
                (
                    "projects/-repo/bbbb.jsonl",
                    vec!["projects/-repo/agent-b2.jsonl"]
                ),
                ("projects/-other/cccc.jsonl", vec![]),
            ]
        );
    }

    #[test]
    fn a_qwen_project_s_own_state_beside_its_chats_is_no_session() {
        let tree = [
            "p/-repo/chats/s1.jsonl",
            "p/-repo/meta.json",
            "p/-repo/extract-cursor.json",
            "p/-repo/memory/MEMORY.md",
            "p/-other/notes.json",
        ];
        let found: Vec<&str> = sessions(&tree).iter().map(|s| tree[s.session]).collect();
        assert_eq!(found, ["p/-repo/chats/s1.jsonl", "p/-other/notes.json"]);
    }

    #[test]
    fn a_qwen_projects_tree_has_one_session_per_chat_with_its_subagents_folder() {
        let tree = [
            "p/-repo/chats/s1.jsonl",
            "p/-repo/chats/s2.jsonl",
            "p/-repo/subagents/s1/agent-Explore-call_a.jsonl",
            "p/-repo/subagents/s1/agent-Explore-call_a.meta.json",
            "p/-repo/subagents/s2/agent-fork-call_b.jsonl",
        ];
        let found: Vec<(&str, Vec<&str>)> = sessions(&tree)
            .iter()
            .map(|s| {
                (
                    tree[s.session],
                    s.companions.iter().map(|&c| tree[c]).collect(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "p/-repo/chats/s1.jsonl",
                    vec![
                        "p/-repo/subagents/s1/agent-Explore-call_a.jsonl",
                        "p/-repo/subagents/s1/agent-Explore-call_a.meta.json"
                    ]
                ),
                (
                    "p/-repo/chats/s2.jsonl",
                    vec!["p/-repo/subagents/s2/agent-fork-call_b.jsonl"]
                ),
            ]
        );
        assert_eq!(
            main_session(&["chats/s1.jsonl", "subagents/s1/agent-x.jsonl"]).map(|s| s.companions),
            Some(vec![1])
        );
        assert!(is_beside("p/-repo/s.jsonl", "p/-repo/agent-a1.jsonl"));
        assert!(!is_beside(
            "p/-repo/chats/s1.jsonl",
            "p/-repo/subagents/s1/agent-x.jsonl"
        ));
    }

    #[test]
    fn a_gemini_chat_log_has_its_subagents_logs_in_the_folder_of_its_session_id() {
        let tree = [
            "t/-p/chats/session-2026-12-04T15-09-5b7c5479.jsonl",
            "t/-p/chats/5b7c5479-9943-4eba-a596-c790d10b74ec/ad22677f.jsonl",
            "t/-p/chats/5b7c5479-9943-4eba-a596-c790d10b74ec/1381d27c.jsonl",
            "t/-p/chats/session-2026-12-04T16-00-0a0b0c0d.jsonl",
        ];
        let found = companion_counts(&tree);
        assert_eq!(
            found,
            [
                ("t/-p/chats/session-2026-12-04T15-09-5b7c5479.jsonl", 2),
                ("t/-p/chats/session-2026-12-04T16-00-0a0b0c0d.jsonl", 0),
            ]
        );
    }

    #[test]
    fn a_codex_rollout_has_the_rollouts_beside_it_and_the_earliest_opens() {
        let tree = [
            "sessions/2026/12/04/rollout-2026-12-04T15-15-07-01a2419f-9603.jsonl",
            "sessions/2026/12/04/rollout-2026-12-04T15-15-06-01a2419f-9095.jsonl",
            "sessions/2026/12/04/rollout-2026-12-04T15-15-06-01a2419f-91af.jsonl",
            "sessions/2026/12/05/rollout-2026-12-05T09-00-00-01a2500a-0001.jsonl",
            "sessions/2026/12/04/notes.jsonl",
        ];
        let found = companion_counts(&tree);
        assert_eq!(
            found,
            [
                (tree[0], 2),
                (tree[1], 2),
                (tree[2], 2),
                (tree[3], 0),
                (tree[4], 0),
            ],
            "each rollout of a day goes with the others: only their records say whose they are"
        );
        let opened = main_session(&tree[..3]).unwrap();
        assert_eq!(
            tree[opened.session], tree[1],
            "the session's own rollout starts first"
        );
    }

    #[test]
    fn companions_of_a_url_are_beside_it() {
        let src = "https://h/e2e/sess-1.jsonl?x=1#msg-a";
        assert_eq!(url_stem(src), Some("sess-1"));
        assert_eq!(
            sibling_url(src, "sess-1/subagents/agent-a1.jsonl"),
            "https://h/e2e/sess-1/subagents/agent-a1.jsonl"
        );
        assert_eq!(sibling_url("s.jsonl", "s/x.json"), "s/x.json");
        assert_eq!(url_stem("https://h/e2e/session.json"), None);
        assert_eq!(url_stem("https://h/.jsonl"), None);
    }

    #[test]
    fn companions_are_read_relative_to_their_sessions_folder() {
        let session = "/projects/-repo/aaaa.jsonl";
        assert_eq!(
            companion_path(session, "/projects/-repo/aaaa/subagents/agent-a1.jsonl"),
            "aaaa/subagents/agent-a1.jsonl"
        );
        assert_eq!(
            companion_path(session, "projects/-repo/agent-b2.jsonl"),
            "agent-b2.jsonl"
        );
        // A folder whose name only starts like the session's is not inside it.
        assert_eq!(
            companion_path(session, "projects/-repo2/agent-c3.jsonl"),
            "../-repo2/agent-c3.jsonl"
        );
        assert_eq!(
            companion_path("p/-r/chats/s1.jsonl", "p/-r/subagents/s1/agent-x.jsonl"),
            "../subagents/s1/agent-x.jsonl"
        );
        assert_eq!(
            companion_path("top.jsonl", "other/a.jsonl"),
            "other/a.jsonl"
        );
        assert_eq!(
            companion_path("x.jsonl", "./x/subagents/agent-1.jsonl"),
            "x/subagents/agent-1.jsonl"
        );
    }

    #[test]
    fn a_session_is_named_by_its_path_its_file_name_or_its_name() {
        for name in ["projects/-repo/bbbb.jsonl", "bbbb.jsonl", "bbbb"] {
            let named = named_session(&TREE, name).unwrap().unwrap();
            assert_eq!(TREE[named.session], "projects/-repo/bbbb.jsonl", "{name}");
        }
        assert_eq!(
            named_session(&TREE, "zzzz"),
            Err(vec![
                "projects/-repo/aaaa.jsonl",
                "projects/-repo/bbbb.jsonl",
                "projects/-other/cccc.jsonl"
            ])
        );
        assert_eq!(named_session(&["notes.md"], "x"), Ok(None));
        assert_eq!(session_name("a/b/c.json"), "c");
        assert_eq!(
            session_name("session-state/4c85639f/events.jsonl"),
            "4c85639f"
        );
    }

    #[test]
    fn a_kimi_session_folder_is_one_session_its_agents_wires_companions() {
        let tree = [
            "wd_kit_f4e0/session_b5c9/agents/agent-0/wire.jsonl",
            "wd_kit_f4e0/session_b5c9/agents/main/tasks/agent-0e8j.json",
            "wd_kit_f4e0/session_b5c9/agents/main/wire.jsonl",
            "wd_kit_f4e0/session_b5c9/notify/state.json",
            "wd_kit_f4e0/session_b5c9/state.json",
            "wd_kit_f4e0/session_77aa/agents/main/wire.jsonl",
        ];
        let found = sessions(&tree);
        let opened: Vec<&str> = found.iter().map(|s| tree[s.session]).collect();
        assert_eq!(opened, [tree[2], tree[5]]);
        assert_eq!(found[0].companions, [0, 1, 3, 4]);
        assert!(found[1].companions.is_empty());
        assert_eq!(session_name(tree[2]), "session_b5c9");
        assert_eq!(
            companion_path(tree[2], tree[0]),
            "../agent-0/wire.jsonl",
            "a sibling agent's wire, as the importer finds it"
        );
        // Its `agents/` folder dropped alone: the main wire is the session.
        let agents = ["agents/agent-0/wire.jsonl", "agents/main/wire.jsonl"];
        let found = sessions(&agents);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].session, found[0].companions.clone()),
            (1, vec![0])
        );
    }

    #[test]
    fn a_copilot_session_folder_is_one_session_its_snapshots_companions() {
        let tree = [
            "session-state/4c85/events.jsonl",
            "session-state/4c85/rewind-file-snapshots/index.json",
            "session-state/4c85/rewind-file-snapshots/tracking.json",
            "session-state/9d21/events.jsonl",
        ];
        let found = sessions(&tree);
        let opened: Vec<&str> = found.iter().map(|s| tree[s.session]).collect();
        assert_eq!(
            opened,
            [
                "session-state/4c85/events.jsonl",
                "session-state/9d21/events.jsonl"
            ]
        );
        assert_eq!(found[0].companions, [1, 2]);
        assert!(found[1].companions.is_empty());
    }

    #[test]
    fn the_session_with_the_most_companions_is_opened() {
        let main = main_session(&TREE).unwrap();
        assert_eq!(TREE[main.session], "projects/-repo/aaaa.jsonl");
        let dropped = ["/s/x.jsonl", "/s/x/subagents/agent-1.jsonl"];
        assert_eq!(
            main_session(&dropped),
            Some(SessionFiles {
                session: 0,
                companions: vec![1]
            })
        );
        assert_eq!(main_session(&["a/agent-1.jsonl", "notes.md"]), None);
        let one = main_session(&["only.json"]).unwrap();
        assert_eq!(one.session, 0);
    }
}
