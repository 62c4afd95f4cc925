//! The captures the harness wrote with the real CLIs
//! (`tests/fixtures/captures/<cli>-<version>/<scenario>/`, see
//! `captures/README.md`): each scenario's manifest, and its session with the
//! files read with it, found the way a dropped folder is opened
//! (`core::import::folder`).

use crate::fixtures::{fixture_json, fixtures_under};
use serde_json::Value;
use taskview_core::read::import::folder::{companion_path, main_session};

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
    let root = format!("captures/{name}/");
    let files: Vec<(&str, &str)> = fixtures_under(&root)
        .map(|(path, text)| (&path[root.len()..], text))
        .filter(|(path, _)| !HARNESS_FILES.contains(path))
        .collect();
    let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let chosen = main_session(&paths).unwrap_or_else(|| panic!("no session in capture {name}"));
    let session_path = paths[chosen.session];
    Capture {
        name: name.to_string(),
        manifest: fixture_json(&format!("{root}manifest.json")),
        session_path: session_path.to_string(),
        session: files[chosen.session].1.to_string(),
        files: chosen
            .companions
            .iter()
            .map(|&at| {
                (
                    companion_path(session_path, paths[at]),
                    files[at].1.to_string(),
                )
            })
            .collect(),
    }
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
