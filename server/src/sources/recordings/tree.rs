//! The recordings folder as files: a walk of the tree (a flat folder, or one
//! laid out like `~/.claude/projects`), which files are sessions and which
//! belong to one (taskview-core's `import::folder`, the rule the browser's
//! folder drop uses), the subagent transcripts lying beside the sessions,
//! and fingerprints to notice changes. The tree is walked at start, when a
//! path no known session owns changes, and by the slow rescan.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use taskview_core::read::import::claude_code::{self, companion, Companion};
use taskview_core::read::import::{folder, kimi};

/// How deep the walk goes below the folder
/// (`<project>/<session>/subagents/workflows/<run>/<file>` is 6).
const MAX_DEPTH: usize = 6;

/// At most this many files are considered.
const MAX_FILES: usize = 50_000;

/// Size and modification time: a cheap "did it change" check.
pub(super) type Fingerprint = (u64, Option<SystemTime>);

/// The store's file name in OpenCode's data folder.
pub(super) const OPENCODE_STORE: &str = "opencode.db";

/// Whether `dir` is an OpenCode data folder (it holds the store; the
/// recordings' `opencode` part reads it).
pub(super) fn holds_opencode_store(dir: &Path) -> bool {
    dir.join(OPENCODE_STORE).is_file()
}

pub(super) fn fingerprint(path: &Path) -> std::io::Result<Fingerprint> {
    let meta = std::fs::metadata(path)?;
    Ok((meta.len(), meta.modified().ok()))
}

/// The fingerprints of a recording's files: the recording first, then the
/// files read with it. Any difference means "read it again".
pub(super) type Fingerprints = Vec<(PathBuf, Fingerprint)>;

/// The file's text, or why it cannot be had (any size: a session is read
/// whole only when it is opened).
pub(super) fn read_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}

/// The files of the folder, hidden files and folders left out, with their
/// paths relative to it (`/`-separated), in path order.
#[derive(Default)]
pub(super) struct Listing {
    pub files: Vec<(String, PathBuf)>,
}

impl Listing {
    /// Walks `dir` (nothing while it does not exist: it is watched until it
    /// does; nothing in OpenCode's data folder, whose sessions are in its
    /// store and whose other files are its own: logs, credentials).
    pub(super) fn walk(dir: &Path) -> Listing {
        if holds_opencode_store(dir) {
            return Listing::default();
        }
        let mut files = Vec::new();
        let mut pending = vec![(dir.to_path_buf(), String::new(), 0usize)];
        while let Some((path, relative, depth)) = pending.pop() {
            let entries = match std::fs::read_dir(&path) {
                Ok(entries) => entries,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    tracing::warn!("cannot list {}: {e}", path.display());
                    continue;
                }
            };
            for entry in entries.filter_map(Result::ok) {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') || files.len() >= MAX_FILES {
                    continue;
                }
                let rel = if relative.is_empty() {
                    name
                } else {
                    format!("{relative}/{name}")
                };
                match entry.file_type() {
                    Ok(t) if t.is_file() => files.push((rel, entry.path())),
                    Ok(t) if t.is_dir() && depth + 1 < MAX_DEPTH => {
                        pending.push((entry.path(), rel, depth + 1))
                    }
                    _ => {}
                }
            }
        }
        files.sort();
        Listing { files }
    }

    /// The sessions: every file at the top that is not a subagent file (as
    /// before trees were read), and below it what `folder::sessions` calls a
    /// session; each with the files of its own (under its own folder, or a
    /// qwen-code chat's subagents folder) that the importer reads (subagent
    /// transcripts, sidecars, workflow runs; a Codex rollout's, the rollouts
    /// beside it). Subagent files beside the sessions are matched by session
    /// id (`BesideAgents`).
    pub(super) fn sessions(&self) -> Vec<(String, PathBuf, Vec<PathBuf>)> {
        let paths: Vec<&str> = self.files.iter().map(|(r, _)| r.as_str()).collect();
        let found = folder::sessions(&paths);
        let mut sessions: Vec<(String, PathBuf, Vec<PathBuf>)> = found
            .iter()
            .map(|s| {
                let (rel, path) = &self.files[s.session];
                let companions = s
                    .companions
                    .iter()
                    .map(|&at| &self.files[at])
                    .filter(|(r, _)| {
                        let own_folder =
                            !folder::is_beside(rel, r) && companion(r) != Companion::Other;
                        own_folder
                            || (folder::is_rollout(rel) && folder::is_rollout(r))
                            || is_kimi_agent_wire(rel, r)
                    })
                    .map(|(_, p)| p.clone())
                    .collect();
                (rel.clone(), path.clone(), companions)
            })
            .collect();
        let known: HashSet<String> = sessions.iter().map(|(r, _, _)| r.clone()).collect();
        for (rel, path) in &self.files {
            let top = !rel.contains('/');
            if top && !known.contains(rel) && companion(rel) == Companion::Other {
                sessions.push((rel.clone(), path.clone(), Vec::new()));
            }
        }
        sessions.sort_by(|a, b| a.0.cmp(&b.0));
        sessions
    }
}

/// True when `r` is a subagent's wire in the Kimi Code session whose main
/// agent's wire is `rel` (`…/agents/<agent id>/wire.jsonl` beside
/// `…/agents/main/wire.jsonl`).
fn is_kimi_agent_wire(rel: &str, r: &str) -> bool {
    kimi::agent_of_path(rel) == Some(kimi::MAIN_AGENT)
        && kimi::agent_of_path(r).is_some_and(|agent| agent != kimi::MAIN_AGENT)
}

/// A subagent transcript lying beside the sessions, and the session id its
/// records carry (read once it names one).
struct BesideAgent {
    seen: Option<Fingerprint>,
    session_id: Option<String>,
}

/// The subagent transcripts beside the sessions (`<dir>/agent-<id>.jsonl`,
/// the older layout): attached to the session their records name.
#[derive(Default)]
pub(super) struct BesideAgents {
    files: BTreeMap<PathBuf, BesideAgent>,
}

impl BesideAgents {
    /// Follows the listing: new files are read for their session id (again
    /// after a change until they name one), gone files forgotten.
    pub(super) fn refresh<'a>(&mut self, listings: impl IntoIterator<Item = &'a Listing>) {
        let present: HashSet<&PathBuf> = listings
            .into_iter()
            .flat_map(|listing| &listing.files)
            .filter(|(rel, _)| is_beside_agent(rel))
            .map(|(_, p)| p)
            .collect();
        self.files.retain(|path, _| present.contains(path));
        for path in present {
            let seen = fingerprint(path).ok();
            let agent = self.files.entry(path.clone()).or_insert(BesideAgent {
                seen: None,
                session_id: None,
            });
            if agent.session_id.is_some() || agent.seen == seen {
                continue;
            }
            agent.seen = seen;
            agent.session_id = super::index::read_head(path)
                .ok()
                .and_then(|text| claude_code::session_id(&text));
            if let Some(id) = &agent.session_id {
                tracing::info!(
                    "{} is a subagent transcript of session {id}",
                    path.display()
                );
            }
        }
    }

    /// The session a known beside subagent file names.
    pub(super) fn session_of(&self, path: &Path) -> Option<&str> {
        self.files.get(path)?.session_id.as_deref()
    }

    /// The files whose records name `session_id`, in name order.
    pub(super) fn of_session<'a>(
        &'a self,
        session_id: &'a str,
    ) -> impl Iterator<Item = &'a PathBuf> + 'a {
        self.files
            .iter()
            .filter(move |(_, a)| a.session_id.as_deref() == Some(session_id))
            .map(|(path, _)| path)
    }
}

/// A subagent transcript directly in a folder of sessions, not under a
/// session's own folder (`…/subagents/…`).
fn is_beside_agent(rel: &str) -> bool {
    let in_subagents = rel.split('/').any(|part| part == "subagents");
    !in_subagents && matches!(companion(rel), Companion::Transcript { run: None, .. })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(paths: &[&str]) -> Listing {
        Listing {
            files: paths
                .iter()
                .map(|p| (p.to_string(), PathBuf::from(p)))
                .collect(),
        }
    }

    /// Each session of a listing of `paths` with the files read with it.
    fn sessions_of(paths: &[&str]) -> Vec<(String, Vec<PathBuf>)> {
        listing(paths)
            .sessions()
            .into_iter()
            .map(|(rel, _, companions)| (rel, companions))
            .collect()
    }

    #[test]
    fn a_qwen_projects_tree_gives_one_session_per_chat_with_its_subagents() {
        assert_eq!(
            sessions_of(&[
                "-repo/chats/s1.jsonl",
                "-repo/subagents/s1/agent-Explore-call_a.jsonl",
                "-repo/subagents/s1/agent-Explore-call_a.meta.json",
            ]),
            [(
                "-repo/chats/s1.jsonl".to_string(),
                vec![
                    PathBuf::from("-repo/subagents/s1/agent-Explore-call_a.jsonl"),
                    PathBuf::from("-repo/subagents/s1/agent-Explore-call_a.meta.json"),
                ]
            )]
        );
    }

    #[test]
    fn a_kimi_sessions_tree_gives_one_session_per_folder_with_its_agents_wires() {
        let session = "wd_kit_f4e0/session_b5c9";
        assert_eq!(
            sessions_of(&[
                &format!("{session}/agents/agent-0/wire.jsonl"),
                &format!("{session}/agents/agent-1/wire.jsonl"),
                &format!("{session}/agents/main/tasks/agent-0e8j.json"),
                &format!("{session}/agents/main/wire.jsonl"),
                &format!("{session}/state.json"),
            ]),
            [(
                format!("{session}/agents/main/wire.jsonl"),
                vec![
                    PathBuf::from(format!("{session}/agents/agent-0/wire.jsonl")),
                    PathBuf::from(format!("{session}/agents/agent-1/wire.jsonl")),
                ]
            )]
        );
    }

    #[test]
    fn a_projects_tree_gives_one_session_per_file_with_its_own_files() {
        assert_eq!(
            sessions_of(&[
                "-repo/aaaa.jsonl",
                "-repo/aaaa/subagents/agent-a1.jsonl",
                "-repo/aaaa/subagents/agent-acompact-2.jsonl",
                "-repo/aaaa/subagents/agent-a1.meta.json",
                "-repo/aaaa/tool-results/t.txt",
                "-repo/agent-b2.jsonl",
                "-repo/bbbb.jsonl",
                "notes.txt",
            ]),
            [
                (
                    "-repo/aaaa.jsonl".to_string(),
                    vec![
                        PathBuf::from("-repo/aaaa/subagents/agent-a1.jsonl"),
                        PathBuf::from("-repo/aaaa/subagents/agent-a1.meta.json"),
                    ]
                ),
                ("-repo/bbbb.jsonl".to_string(), vec![]),
                ("notes.txt".to_string(), vec![]),
            ]
        );
        assert!(is_beside_agent("-repo/agent-b2.jsonl"));
        assert!(!is_beside_agent("-repo/aaaa/subagents/agent-a1.jsonl"));
    }
}
