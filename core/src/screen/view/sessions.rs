//! The session chooser: a dropped or picked folder that holds more than one
//! session (a `~/.claude/projects/<project>` folder holds one per
//! conversation) lists them, newest first, instead of opening one the reader
//! did not pick.

use super::format::{abbreviate, age, count_label};
use crate::read::import::claude_code::{companion, Companion};
use crate::read::import::folder::{most_companions, session_name, sessions, SessionFiles};
use crate::read::import::title::session_title;
use crate::read::import::{codex, import_any, opencode};
use std::collections::HashMap;

/// How much of a session file the chooser reads for its title.
pub const TITLE_HEAD_BYTES: u32 = 64 * 1024;

/// What the chooser knows of one file of the folder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FileFacts<'a> {
    /// The path as picked or dropped (a folder's paths start with its name).
    pub path: &'a str,
    pub size: u64,
    /// Last modified, in milliseconds since the epoch.
    pub modified_ms: f64,
}

/// One session the reader can open.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionChoice {
    /// Which files to read (indices into the facts given).
    pub files: SessionFiles,
    /// The session's file name without `.jsonl`/`.json`.
    pub name: String,
    /// Its title (`titled`): what it calls itself or its first prompt.
    pub title: Option<String>,
    /// The folder it lies in, below the folder every session shares (the
    /// dropped one, at least): `""` in that folder.
    pub folder: String,
    /// How many subagents' own files open with it: Claude Code transcripts
    /// beside it, and once `chosen`, the spawned sessions that descend from
    /// it (Codex threads, OpenCode child exports).
    pub subagents: u64,
    /// The detail after the subagent count: `1.2MB · 3 days ago`.
    pub(super) file_detail: String,
    /// Its session id and the id of the session that spawned it (empty for
    /// a session of its own), once `titled` from an OpenCode export's
    /// `info` or a Codex rollout's `session_meta`.
    pub(super) lineage: Option<(String, String)>,
    /// It is a subagent's own session, spawned by another of the folder
    /// (a Codex thread: its rollout lies beside its parent's; an OpenCode
    /// child session's export), known once `titled`; the chooser leaves it
    /// out (`chosen`).
    pub spawned: bool,
    /// The session it is of a telemetry file of several (its id,
    /// `file_sessions`); `None` for a session file of a folder.
    pub part: Option<String>,
}

/// Every session of a folder, newest first (ties in path order); empty when it
/// holds no transcript. `now_ms` dates the ages.
pub fn session_choices(files: &[FileFacts], now_ms: f64) -> Vec<SessionChoice> {
    let paths: Vec<&str> = files.iter().map(|f| f.path).collect();
    let mut found = sessions(&paths);
    found.sort_by(|a, b| {
        let (a, b) = (&files[a.session], &files[b.session]);
        b.modified_ms
            .total_cmp(&a.modified_ms)
            .then_with(|| a.path.cmp(b.path))
    });
    let split = |own: &SessionFiles| {
        let path = files[own.session].path.trim_start_matches('/');
        path.rsplit_once('/').unwrap_or(("", path))
    };
    let shared = found
        .iter()
        .map(|own| split(own).0)
        .reduce(common_folder)
        .unwrap_or_default();
    found
        .into_iter()
        .map(|own| {
            let session = &files[own.session];
            let (folder, file) = split(&own);
            let subagents = own
                .companions
                .iter()
                .filter(|&&at| matches!(companion(files[at].path), Companion::Transcript { .. }))
                .count() as u64;
            let file_detail = format!(
                "{}B · {}",
                abbreviate(session.size),
                age(now_ms - session.modified_ms)
            );
            SessionChoice {
                name: session_name(file).to_string(),
                folder: folder[shared.len()..].trim_start_matches('/').to_string(),
                subagents,
                file_detail,
                lineage: None,
                title: None,
                spawned: false,
                part: None,
                files: own,
            }
        })
        .collect()
}

/// `2 subagents · 1.2MB · 3 days ago`; no count when there are none.
fn detail_text(subagents: u64, file_detail: &str) -> String {
    if subagents == 0 {
        return file_detail.to_string();
    }
    let count = count_label(subagents, "subagent", "subagents");
    format!("{count} · {file_detail}")
}

/// How many of `spawned` descend from session `root`, by the parent each
/// names (`lineages`: session id to parent id; a looping chain ends).
fn descendants<'a>(
    root: &str,
    spawned: &[&'a SessionChoice],
    lineages: &HashMap<&'a str, &'a str>,
) -> u64 {
    let descends = |mut parent: &'a str| {
        for _ in 0..=lineages.len() {
            if parent == root {
                return true;
            }
            match lineages.get(parent) {
                Some(&up) if !up.is_empty() => parent = up,
                _ => return false,
            }
        }
        false
    };
    spawned
        .iter()
        .filter_map(|c| c.lineage.as_ref())
        .filter(|(_, parent)| descends(parent))
        .count() as u64
}

/// How a dropped or picked folder opens.
#[derive(Clone, Debug, PartialEq)]
pub enum FolderOpening {
    /// It holds no session: say so (`folder::NO_TRANSCRIPT`).
    Empty,
    /// One session: it opens at once.
    One(Box<SessionChoice>),
    /// Several: the chooser lists them (each `titled` first), newest first.
    Several(Vec<SessionChoice>),
}

/// How the folder of `files` opens (its sessions from `session_choices`).
pub fn folder_opening(files: &[FileFacts], now_ms: f64) -> FolderOpening {
    let mut found = session_choices(files, now_ms);
    match found.len() {
        0 => FolderOpening::Empty,
        1 => FolderOpening::One(Box::new(found.remove(0))),
        _ => FolderOpening::Several(found),
    }
}

impl SessionChoice {
    /// Sets the title from the first bytes of the session's file
    /// (`session_title`); a line cut at the end of them is read as a bad line
    /// and does not change the title.
    pub fn titled(&mut self, head: &str) {
        let events = import_any(head).map(|i| i.events).unwrap_or_default();
        self.title = session_title(head, &events);
        self.lineage = codex::thread_of(head).or_else(|| opencode::session_lineage(head));
        self.spawned = codex::spawned_thread(head) || opencode::spawned_session(head);
    }

    /// `2 subagents · 1.2MB · 3 days ago`: its subagents, then its file's
    /// size and age (or a telemetry session's counts and age).
    pub fn detail(&self) -> String {
        detail_text(self.subagents, &self.file_detail)
    }

    /// The button's first line: the title, else the file name.
    pub fn heading(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }

    /// The button's second line: the file name when a title heads it, then the detail.
    pub fn subheading(&self) -> String {
        match self.title {
            Some(_) => format!("{} · {}", self.name, self.detail()),
            None => self.detail(),
        }
    }
}

/// How a folder of several sessions opens once each is `titled`: a
/// subagent's own session (`spawned`) is no choice of its own, it opens
/// with the session that spawned it (the spawned sessions beside a session
/// are its companions, whatever their names: the importer reads those that
/// descend from it, and its detail counts them); so a folder of one session
/// and its subagents' opens at once.
pub fn chosen(found: Vec<SessionChoice>) -> FolderOpening {
    let (spawned, mut own): (Vec<SessionChoice>, Vec<SessionChoice>) =
        found.iter().cloned().partition(|c| c.spawned);
    if own.is_empty() {
        own = found;
    }
    let lineages: HashMap<&str, &str> = spawned
        .iter()
        .filter_map(|c| c.lineage.as_ref())
        .map(|(id, parent)| (id.as_str(), parent.as_str()))
        .collect();
    for choice in &mut own {
        let beside: Vec<&SessionChoice> = spawned
            .iter()
            .filter(|s| s.folder == choice.folder)
            .collect();
        for at in beside.iter().map(|s| s.files.session) {
            if !choice.files.companions.contains(&at) {
                choice.files.companions.push(at);
            }
        }
        if let Some((id, _)) = &choice.lineage {
            choice.subagents += descendants(id, &beside, &lineages);
        }
    }
    match own.len() {
        0 => FolderOpening::Empty,
        1 => FolderOpening::One(Box::new(own.remove(0))),
        _ => FolderOpening::Several(own),
    }
}

/// The session a folder opens when nobody chooses (`taskview export` of a
/// folder): the one `chosen` opens at once, else of its several the one with
/// the most companions (`folder::most_companions`); `paths` are the folder's,
/// which the choices index.
pub fn main_choice(choices: Vec<SessionChoice>, paths: &[&str]) -> Option<SessionFiles> {
    match chosen(choices) {
        FolderOpening::Empty => None,
        FolderOpening::One(one) => Some(one.files),
        FolderOpening::Several(several) => {
            most_companions(several.into_iter().map(|c| c.files), paths)
        }
    }
}

/// The chooser's heading.
pub fn chooser_title(sessions: usize) -> String {
    format!("This folder holds {sessions} sessions")
}

/// The source bar's way back to the chooser, once one session is open.
pub fn back_to_chooser(sessions: usize) -> String {
    format!("Other sessions ({})", sessions.saturating_sub(1))
}

/// The source bar's name of what is open, in two parts: its folder (up to
/// the last `/` of the path, a URL's query aside), which gives way first on a
/// narrow screen, and its file name, which tells one session of a folder from
/// another. `("", name)` when there is no file name to set apart.
pub fn source_parts(name: &str) -> (&str, &str) {
    let path_end = name.find(['?', '#']).unwrap_or(name.len());
    match name[..path_end].rfind('/') {
        Some(slash) if slash + 1 < path_end => name.split_at(slash + 1),
        _ => ("", name),
    }
}

/// The folder that holds both folders `a` and `b` (or is one of them).
fn common_folder<'a>(a: &'a str, b: &str) -> &'a str {
    let mut len = 0;
    for (x, y) in a.split('/').zip(b.split('/')) {
        if x != y {
            break;
        }
        len += x.len() + 1;
    }
    &a[..len.saturating_sub(1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: f64 = 86_400_000.0;
    const NOW: f64 = 100.0 * DAY;

    fn facts<'a>(files: &[(&'a str, u64, f64)]) -> Vec<FileFacts<'a>> {
        files
            .iter()
            .map(|&(path, size, modified_ms)| FileFacts {
                path,
                size,
                modified_ms,
            })
            .collect()
    }

    #[test]
    fn a_folder_of_sessions_lists_them_newest_first_with_their_subagents() {
        let files = facts(&[
            ("-repo/old.jsonl", 2_500, NOW - 3.0 * DAY),
            ("-repo/new.jsonl", 1_200_000, NOW - 5.0 * 60_000.0),
            ("-repo/new/subagents/agent-a1.jsonl", 10, NOW),
            ("-repo/new/subagents/agent-a1.meta.json", 10, NOW),
            ("-repo/new/subagents/agent-b2.jsonl", 10, NOW),
            ("-repo/notes.md", 10, NOW),
        ]);
        let choices = session_choices(&files, NOW);
        let shown: Vec<(&str, &str, String)> = choices
            .iter()
            .map(|c| (c.name.as_str(), c.folder.as_str(), c.detail()))
            .collect();
        assert_eq!(
            shown,
            [
                ("new", "", "2 subagents · 1.2MB · 5 min ago".to_string()),
                ("old", "", "2.5kB · 3 days ago".to_string()),
            ],
            "the folder they share is not repeated"
        );
        assert_eq!(choices[0].files.session, 1);
        assert_eq!(choices[0].files.companions, [2, 3, 4]);
    }

    #[test]
    fn a_sessions_folder_is_named_below_the_folder_all_the_sessions_share() {
        let files = facts(&[
            ("two/-repo/a.jsonl", 1, NOW),
            ("two/-repo/deep/b.jsonl", 1, NOW),
            ("two/-re/c.jsonl", 1, NOW),
            ("two/d.jsonl", 1, NOW),
        ]);
        let folders: Vec<(String, String)> = session_choices(&files, NOW)
            .into_iter()
            .map(|c| (c.name, c.folder))
            .collect();
        let folder = |name: &str, folder: &str| (name.to_string(), folder.to_string());
        assert_eq!(
            folders,
            [
                folder("c", "-re"),
                folder("a", "-repo"),
                folder("b", "-repo/deep"),
                folder("d", ""),
            ],
            "not two/-repo: every session lies in two, the dropped folder"
        );
    }

    #[test]
    fn the_shared_folder_is_whole_folders_in_common() {
        assert_eq!(common_folder("two/-repo", "two/-re"), "two");
        assert_eq!(common_folder("two/-repo", "two/-repo/deep"), "two/-repo");
        assert_eq!(common_folder("two/-repo/deep", "two/-repo"), "two/-repo");
        assert_eq!(common_folder("two", "three"), "");
        assert_eq!(common_folder("", ""), "");
    }

    #[test]
    fn sessions_of_the_same_age_keep_path_order_and_a_future_date_reads_just_now() {
        let files = facts(&[("b.jsonl", 1, NOW + DAY), ("a.json", 1, NOW + DAY)]);
        let choices = session_choices(&files, NOW);
        let names: Vec<&str> = choices.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(choices[0].folder, "");
        assert_eq!(choices[0].detail(), "1B · just now");
    }

    #[test]
    fn a_folder_opens_its_one_session_at_once_lists_several_and_says_when_it_has_none() {
        let none = facts(&[("notes.md", 1, NOW), ("x/agent-a1.jsonl", 1, NOW)]);
        assert_eq!(folder_opening(&none, NOW), FolderOpening::Empty);
        let one = facts(&[
            ("s/a.jsonl", 1, NOW),
            ("s/a/subagents/agent-1.jsonl", 1, NOW),
        ]);
        match folder_opening(&one, NOW) {
            FolderOpening::One(choice) => {
                assert_eq!(
                    (choice.name.as_str(), &choice.files.companions[..]),
                    ("a", &[1][..])
                )
            }
            other => panic!("one session opens at once, got {other:?}"),
        }
        let several = facts(&[("a.jsonl", 1, NOW - DAY), ("b.jsonl", 1, NOW)]);
        match folder_opening(&several, NOW) {
            FolderOpening::Several(choices) => {
                let names: Vec<&str> = choices.iter().map(|c| c.name.as_str()).collect();
                assert_eq!(names, ["b", "a"]);
            }
            other => panic!("several sessions are listed, got {other:?}"),
        }
    }

    #[test]
    fn a_subagents_own_session_opens_with_the_one_that_spawned_it() {
        let files = facts(&[
            ("d/rollout-2026-12-04T15-15-06-a.jsonl", 1, NOW - 60_000.0),
            ("d/rollout-2026-12-04T15-15-07-b.jsonl", 1, NOW - 30_000.0),
            ("d/rollout-2026-12-04T15-15-08-c.jsonl", 1, NOW),
        ]);
        let meta = |id: &str, parent: Option<&str>| {
            let source = match parent {
                Some(p) => format!(
                    r#"{{"subagent":{{"thread_spawn":{{"parent_thread_id":"{p}","depth":1}}}}}}"#
                ),
                None => r#""exec""#.to_string(),
            };
            format!(
                r#"{{"timestamp":"2026-12-04T15:15:06.000Z","type":"session_meta","payload":{{"id":"{id}","source":{source}}}}}"#
            )
        };
        let heads = [
            ("a", meta("a", None)),
            ("b", meta("b", Some("a"))),
            ("c", meta("c", Some("b"))),
        ];
        let titled = |found: Vec<SessionChoice>| -> Vec<SessionChoice> {
            found
                .into_iter()
                .map(|mut c| {
                    let head = &heads.iter().find(|(n, _)| c.name.ends_with(n)).unwrap().1;
                    c.titled(head);
                    c
                })
                .collect()
        };
        match chosen(titled(session_choices(&files, NOW))) {
            FolderOpening::One(choice) => {
                assert_eq!(choice.name, "rollout-2026-12-04T15-15-06-a");
                assert_eq!(choice.files.companions.len(), 2, "its threads go with it");
                assert_eq!(choice.detail(), "2 subagents · 1B · 1 min ago", "and count");
            }
            other => panic!("the session opens at once, got {other:?}"),
        }
        let only_threads = facts(&[
            ("d/rollout-2026-12-04T15-15-07-b.jsonl", 1, NOW),
            ("d/rollout-2026-12-04T15-15-08-c.jsonl", 1, NOW),
        ]);
        assert!(
            matches!(
                chosen(titled(session_choices(&only_threads, NOW))),
                FolderOpening::Several(c) if c.len() == 2
            ),
            "without the session that spawned them, each is listed"
        );
    }

    #[test]
    fn an_opencode_export_folder_opens_its_root_session_with_every_child_export() {
        // `opencode export <id>` per session, named as the user saved them.
        let export = |id: &str, parent: Option<&str>| {
            let parent = parent.map_or(String::new(), |p| format!(r#""parentID": "{p}","#));
            format!(
                r#"{{"info": {{"id": "{id}", {parent} "title": "t"}}, "messages": [{}]}}"#,
                "{}".repeat(40_000)
            )
        };
        let files = facts(&[
            ("exports/child.json", 1, NOW),
            ("exports/grandchild.json", 1, NOW),
            ("exports/main.json", 1, NOW - DAY),
            ("elsewhere/other.json", 1, NOW - DAY),
        ]);
        let texts = [
            export("ses_c", Some("ses_r")),
            export("ses_g", Some("ses_c")),
            export("ses_r", None),
            export("ses_o", Some("ses_x")),
        ];
        let found: Vec<SessionChoice> = session_choices(&files, NOW)
            .into_iter()
            .map(|mut c| {
                let text = &texts[c.files.session];
                c.titled(&text[..TITLE_HEAD_BYTES as usize]);
                c
            })
            .collect();
        match chosen(found) {
            FolderOpening::One(choice) => {
                assert_eq!(choice.name, "main", "the export without a parent");
                let mut companions = choice.files.companions.clone();
                companions.sort();
                assert_eq!(
                    companions,
                    [0, 1],
                    "every child export beside it, not one of another folder"
                );
                assert_eq!(
                    (choice.subagents, choice.detail().as_str()),
                    (2, "2 subagents · 1B · 1 day ago"),
                    "its child and grandchild"
                );
            }
            other => panic!("the root session opens at once, got {other:?}"),
        }
    }

    #[test]
    fn each_opencode_root_export_counts_its_own_child_exports_in_the_chooser() {
        let export = |id: &str, parent: &str| {
            format!(r#"{{"info": {{"id": "{id}", "parentID": "{parent}"}}, "messages": []}}"#)
        };
        let texts = [
            ("exports/a.json", export("ses_a", "")),
            ("exports/a1.json", export("ses_a1", "ses_a")),
            ("exports/a2.json", export("ses_a2", "ses_a1")),
            ("exports/b.json", export("ses_b", "")),
            ("exports/b1.json", export("ses_b1", "ses_b")),
            ("exports/lost.json", export("ses_l", "ses_gone")),
            ("exports/loop1.json", export("ses_x", "ses_y")),
            ("exports/loop2.json", export("ses_y", "ses_x")),
        ];
        let files: Vec<FileFacts> = texts
            .iter()
            .enumerate()
            .map(|(at, (path, _))| FileFacts {
                path,
                size: 1,
                modified_ms: NOW - at as f64 * DAY,
            })
            .collect();
        let found = session_choices(&files, NOW)
            .into_iter()
            .map(|mut c| {
                c.titled(&texts[c.files.session].1);
                c
            })
            .collect();
        let FolderOpening::Several(roots) = chosen(found) else {
            panic!("two root sessions to choose from")
        };
        let details: Vec<(&str, String)> = roots
            .iter()
            .map(|c| (c.name.as_str(), c.detail()))
            .collect();
        assert_eq!(
            details,
            [
                ("a", "2 subagents · 1B · just now".to_string()),
                ("b", "1 subagent · 1B · 3 days ago".to_string())
            ],
            "a child of a child counts; one of an absent parent or a loop counts for neither"
        );
    }

    #[test]
    fn a_title_comes_from_the_first_prompt_in_the_files_first_bytes() {
        let files = facts(&[("-repo/s1.jsonl", 1, NOW)]);
        let mut choice = session_choices(&files, NOW).remove(0);
        assert_eq!(
            (choice.heading(), choice.subheading().as_str()),
            ("s1", "1B · just now")
        );
        let prompt = r#"{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"Fix the flaky test\nin ci"}}"#;
        let head = format!("{prompt}\n{{\"type\":\"assistant\",\"uuid\":\"a");
        choice.titled(&head);
        assert_eq!(choice.heading(), "Fix the flaky test");
        assert_eq!(choice.subheading(), "s1 · 1B · just now");
        choice.titled("not a transcript");
        assert_eq!(choice.heading(), "s1", "no title: the file name heads it");
    }

    #[test]
    fn a_source_name_splits_into_its_folder_and_its_file_name() {
        assert_eq!(
            source_parts("two/-repo/2222.jsonl"),
            ("two/-repo/", "2222.jsonl")
        );
        assert_eq!(
            source_parts("http://h/s/a.jsonl?v=a/b#c/d"),
            ("http://h/s/", "a.jsonl?v=a/b#c/d"),
            "a query's slashes are not the path's"
        );
        assert_eq!(source_parts("a.jsonl"), ("", "a.jsonl"));
        assert_eq!(source_parts("http://h/"), ("", "http://h/"));
        assert_eq!(source_parts("http://h/?v=1"), ("", "http://h/?v=1"));
        assert_eq!(
            source_parts("pushed by the host page"),
            ("", "pushed by the host page")
        );
    }

    #[test]
    fn ages_read_in_minutes_hours_then_days() {
        assert_eq!(age(59_999.0), "just now");
        assert_eq!(age(60_000.0 * 59.0), "59 min ago");
        assert_eq!(age(3_600_000.0 * 23.5), "23 h ago");
        assert_eq!(age(DAY * 1.5), "1 day ago");
    }

    #[test]
    fn the_chooser_texts_count_the_sessions() {
        assert_eq!(chooser_title(3), "This folder holds 3 sessions");
        assert_eq!(back_to_chooser(3), "Other sessions (2)");
    }
}
