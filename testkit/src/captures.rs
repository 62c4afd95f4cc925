//! The captures the harness wrote with the real CLIs
//! (`tests/fixtures/captures/<cli>-<version>/<scenario>/`, see
//! `captures/README.md`): each scenario's manifest, and its session with the
//! files read with it, found the way a dropped folder is opened
//! (`core::import::folder`); and the stories run with telemetry on
//! (`tests/fixtures/captures-otlp/`), their session and their posts.

use crate::fixtures::{fixture, fixture_json, fixtures_under};
use serde_json::Value;
use taskview_core::read::import::folder::{companion_path, most_companions, sessions};
use taskview_core::read::import::{fork_origin, wanted_among, COMPANION_ROUNDS};

/// One captured scenario.
pub struct Capture {
    /// `<cli>-<version>/<scenario>`.
    pub name: String,
    /// Its `manifest.json`.
    pub manifest: Value,
    /// The session file's path in the capture (`projects/<project>/…`).
    pub session_path: String,
    /// The session file's text.
    pub session: String,
    /// The files read with it, by their path relative to the session's folder.
    pub files: Vec<(String, String)>,
}

impl Capture {
    /// The files as the importers take them.
    pub fn file_refs(&self) -> Vec<(&str, &str)> {
        self.files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect()
    }

    /// The subagents the scenario scripted (`holds.agents`).
    pub fn agents(&self) -> Vec<&Value> {
        self.manifest["holds"]["agents"]
            .as_array()
            .map(|a| a.iter().collect())
            .unwrap_or_default()
    }
}

/// What the harness writes beside a CLI's own files: the manifest, the
/// CLI's final result, Codex's `exec --json` event stream and Copilot
/// CLI's `--output-format json` one.
const HARNESS_FILES: [&str; 4] = [
    "manifest.json",
    "result.json",
    "events.jsonl",
    "output.jsonl",
];

/// Capture `<cli>-<version>/<scenario>`.
pub fn capture(name: &str) -> Capture {
    capture_at(name, &format!("captures/{name}/"))
}

/// Story `<cli>-<version>/<story>` run with telemetry on: its session found
/// as [`capture`] finds one, the telemetry (`otlp/`) aside.
pub fn otlp_capture(name: &str) -> Capture {
    capture_at(name, &format!("captures-otlp/{name}/"))
}

/// The telemetry of story `name` ([`otlp_capture`]) as the receiver keeps
/// it: each post's body, in their order of arrival (`otlp/index.jsonl`), as
/// one line.
pub fn otlp_posts(name: &str) -> Vec<String> {
    let root = format!("captures-otlp/{name}/otlp/");
    fixture(&format!("{root}index.jsonl"))
        .lines()
        .map(|line| {
            let post: Value = serde_json::from_str(line).expect("an index line is JSON");
            let file = post["file"].as_str().expect("an index line names its file");
            fixture_json(&format!("{root}{file}")).to_string()
        })
        .collect()
}

/// The files of story `name` ([`otlp_capture`]) under its `folder`
/// (`projects`), by their path below it: to lay the folder out on disk.
pub fn otlp_files(name: &str, folder: &str) -> Vec<(&'static str, &'static str)> {
    let root = format!("captures-otlp/{name}/{folder}/");
    fixtures_under(&root)
        .map(|(path, text)| (&path[root.len()..], text))
        .collect()
}

/// The capture whose files are under fixture folder `root`.
fn capture_at(name: &str, root: &str) -> Capture {
    let files: Vec<(&str, &str)> = fixtures_under(root)
        .map(|(path, text)| (&path[root.len()..], text))
        .filter(|(path, _)| !HARNESS_FILES.contains(path) && !path.starts_with("otlp/"))
        .collect();
    if let Some(opencode) = opencode_capture(name, root, &files) {
        return opencode;
    }
    let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let found = sessions(&paths);
    // A forked session holds its origin's runs and its own: the story.
    let fork = found
        .iter()
        .find(|s| fork_origin(files[s.session].1).is_some())
        .cloned();
    let chosen = fork
        .or_else(|| most_companions(found, &paths))
        .unwrap_or_else(|| panic!("no session in capture {name}"));
    let session_path = paths[chosen.session];
    let session = files[chosen.session].1;
    let mut read: Vec<(String, String)> = chosen
        .companions
        .iter()
        .map(|&at| {
            (
                companion_path(session_path, paths[at]),
                files[at].1.to_string(),
            )
        })
        .collect();
    // Then what the session wants beyond its folder, as a folder is read.
    for _ in 0..COMPANION_ROUNDS {
        let have: Vec<(&str, &str)> = read.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        let more: Vec<(String, String)> = wanted_among(session_path, session, &paths, &have)
            .into_iter()
            .map(|at| {
                (
                    companion_path(session_path, paths[at]),
                    files[at].1.to_string(),
                )
            })
            .filter(|(p, _)| read.iter().all(|(q, _)| q != p))
            .collect();
        if more.is_empty() {
            break;
        }
        read.extend(more);
    }
    Capture {
        name: name.to_string(),
        manifest: fixture_json(&format!("{root}manifest.json")),
        session_path: session_path.to_string(),
        session: session.to_string(),
        files: read,
    }
}

/// An OpenCode capture (`exports/<session>.json`, one per session): the
/// export of the session without a parent is the session, the others are
/// its files by name; `None` for a capture without exports.
fn opencode_capture(name: &str, root: &str, files: &[(&str, &str)]) -> Option<Capture> {
    let exports: Vec<(&str, &str)> = files
        .iter()
        .filter(|(path, _)| path.starts_with("exports/"))
        .copied()
        .collect();
    let is_root = |text: &str| {
        serde_json::from_str::<Value>(text).is_ok_and(|doc| doc["info"]["parentID"].is_null())
    };
    let (session_path, session) = *exports.iter().find(|(_, text)| is_root(text))?;
    Some(Capture {
        name: name.to_string(),
        manifest: fixture_json(&format!("{root}manifest.json")),
        session_path: session_path.to_string(),
        session: session.to_string(),
        files: exports
            .iter()
            .filter(|(path, _)| *path != session_path)
            .map(|(path, text)| {
                (
                    path.trim_start_matches("exports/").to_string(),
                    text.to_string(),
                )
            })
            .collect(),
    })
}

/// Every captured scenario of `<cli>-<version>` (those its manifest calls
/// `captured`), in name order.
pub fn captures(cli: &str) -> Vec<Capture> {
    let manifest = fixture_json(&format!("captures/{cli}/manifest.json"));
    let mut names: Vec<&String> = manifest["scenarios"]
        .as_object()
        .map(|s| {
            s.iter()
                .filter(|(_, v)| v["status"] == "captured")
                .map(|(k, _)| k)
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .map(|scenario| capture(&format!("{cli}/{scenario}")))
        .collect()
}
