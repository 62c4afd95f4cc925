//! Transcripts a session by URL cannot name (docs/behaviour.md §1, issue
//! 45): a foreground Explore or Plan helper's result names no agent, so no
//! file says which `agent-<id>.jsonl` is its. Its session's folder
//! (`<stem>/subagents/`) is asked for instead: a server that lists folders
//! (an HTML autoindex, a JSON list of names) names every file in it.

use super::super::agent_log::Fold;
use super::super::companions::{agent_file_id, companion, Companion};
use super::records::Claude;
use super::workflow::Sidecars;

/// The folder to list when a run of the session (or of a transcript found
/// so far) ran, its result named no agent and no sidecar found names it:
/// `<stem>/subagents/`; `None` when every run that ran is named.
pub fn listing_wanted(stem: &str, session: &str, found: &[(&str, &str)]) -> Option<String> {
    let mut fold = Fold::default();
    let mut sidecars = Sidecars::default();
    fold.read::<Claude>(session, None);
    for (name, text) in found {
        sidecars.read(name, text);
        if let Companion::Transcript { agent, run: None } = companion(name) {
            fold.read::<Claude>(text, Some(agent));
        }
    }
    // A sidecar found since names the run its transcript is.
    fold.link_sidecars(&sidecars.metas);
    let unnamed = fold.launched().into_iter().any(|(call, task)| {
        task.agent_id.is_empty() && !task.answer().is_empty() && !fold.sidecars.contains_key(&call)
    });
    unnamed.then(|| format!("{stem}/subagents/"))
}

/// The transcripts and sidecars a listing of `folder` names
/// (`agent-<id>.jsonl`, `agent-<id>.meta.json`; compaction helpers left
/// out) that `found` does not hold, as paths beside the session.
pub fn listed_companions(folder: &str, listing: &str, found: &[(&str, &str)]) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for (at, _) in listing.match_indices("agent-") {
        let rest = &listing[at..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        let file = name
            .strip_suffix(".meta.json")
            .map(|id| format!("{id}.jsonl"))
            .unwrap_or_else(|| name.to_string());
        if agent_file_id(&file).is_none() {
            continue;
        }
        let stem = file.trim_end_matches(".jsonl");
        for path in [
            format!("{folder}{stem}.jsonl"),
            format!("{folder}{stem}.meta.json"),
        ] {
            if found.iter().all(|(n, _)| *n != path) && !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_names_each_agents_transcript_and_sidecar_once() {
        let autoindex = r#"<ul><li><a href="agent-a1.jsonl">agent-a1.jsonl</a></li>
            <li><a href="agent-a1.meta.json">agent-a1.meta.json</a></li>
            <li><a href="agent-acompact-9.jsonl">agent-acompact-9.jsonl</a></li>
            <li><a href="notes.txt">notes.txt</a></li></ul>"#;
        let found = [("s/subagents/agent-a1.meta.json", "{}")];
        assert_eq!(
            listed_companions("s/subagents/", autoindex, &found),
            ["s/subagents/agent-a1.jsonl"]
        );
        let json = r#"["agent-b2.jsonl", "agent-b2.meta.json"]"#;
        assert_eq!(
            listed_companions("s/subagents/", json, &[]),
            [
                "s/subagents/agent-b2.jsonl",
                "s/subagents/agent-b2.meta.json"
            ]
        );
    }
}
