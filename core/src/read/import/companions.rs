//! The files an agent session keeps beside it, told apart by their path.
//! Claude Code (docs/formats.md §2.1, §7 Claude Code 7–8):
//! `<session>/subagents/agent-<id>.jsonl` (or `agent-<id>.jsonl` beside the
//! session) are subagent transcripts and `agent-<id>.meta.json` their
//! sidecars; `<session>/subagents/workflows/<run>/agent-<id>.jsonl` are a
//! workflow run's agents, with the run's `journal.jsonl`, and
//! `<session>/workflows/<run>.json` the run's summary. Compaction helpers
//! (`agent-acompact-*`) are no subagent's. qwen-code names its subagents'
//! files the same way, under `subagents/<session>/` beside `chats/`.

/// What a file found beside a session is, by its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Companion<'a> {
    /// A subagent's transcript; `run` is set for a workflow agent's.
    Transcript {
        agent: &'a str,
        run: Option<&'a str>,
    },
    /// A subagent's `agent-<id>.meta.json` sidecar.
    Meta { agent: &'a str },
    /// A workflow run's `journal.jsonl`.
    Journal { run: &'a str },
    /// A workflow run's summary, `workflows/<run>.json`.
    Run { run: &'a str },
    /// Anything else (compaction helpers, tool results, other sessions).
    Other,
}

/// What the file at `path` (a name or a relative path, `/` or `\`
/// separated) is to the session beside it.
pub fn companion(path: &str) -> Companion<'_> {
    let mut parts = path.rsplit(['/', '\\']);
    let file = parts.next().unwrap_or("");
    let parent = parts.next().unwrap_or("");
    let grandparent = parts.next().unwrap_or("");
    let run = (grandparent == "workflows" && !parent.is_empty()).then_some(parent);
    if let Some(agent) = agent_file_id(file) {
        return Companion::Transcript { agent, run };
    }
    if let Some(agent) = file
        .strip_prefix("agent-")
        .and_then(|f| f.strip_suffix(".meta.json"))
        .filter(|id| is_agent_id(id))
    {
        return Companion::Meta { agent };
    }
    match (file, run) {
        ("journal.jsonl", Some(run)) => Companion::Journal { run },
        _ => match file.strip_suffix(".json") {
            Some(run) if parent == "workflows" && !run.is_empty() => Companion::Run { run },
            _ => Companion::Other,
        },
    }
}

/// The subagent id of a child transcript file name (`…/agent-<id>.jsonl`),
/// or `None` for any other file (compaction files included).
pub fn agent_file_id(name: &str) -> Option<&str> {
    let file = name.rsplit(['/', '\\']).next()?;
    let id = file.strip_prefix("agent-")?.strip_suffix(".jsonl")?;
    is_agent_id(id).then_some(id)
}

/// An id that can name a subagent's file: not empty, not a compaction
/// helper, and only letters, digits, `-` and `_` (a team agent's
/// `name@team` has no file of its own).
pub(crate) fn is_agent_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with("acompact")
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_file_names_give_the_agent_id() {
        assert_eq!(agent_file_id("s/subagents/agent-a3f9.jsonl"), Some("a3f9"));
        assert_eq!(agent_file_id("agent-a3f9.jsonl"), Some("a3f9"));
        assert_eq!(agent_file_id("C:\\x\\agent-b7.jsonl"), Some("b7"));
        assert_eq!(agent_file_id("agent-acompact-1.jsonl"), None);
        assert_eq!(agent_file_id("agent-.jsonl"), None);
        assert_eq!(agent_file_id("session.jsonl"), None);
        assert_eq!(agent_file_id("agent-a3f9.meta.json"), None);
    }

    #[test]
    fn companions_are_told_apart_by_their_path() {
        let s = "22220000-0000-4000-8000-000000000002";
        for (path, what) in [
            (
                format!("{s}/subagents/agent-showcol1.jsonl"),
                Companion::Transcript {
                    agent: "showcol1",
                    run: None,
                },
            ),
            (
                format!("{s}/subagents/workflows/wf_sp01/agent-agsp0001.jsonl"),
                Companion::Transcript {
                    agent: "agsp0001",
                    run: Some("wf_sp01"),
                },
            ),
            (
                format!("{s}/subagents/agent-showcol1.meta.json"),
                Companion::Meta { agent: "showcol1" },
            ),
            (
                format!("{s}/subagents/workflows/wf_sp01/journal.jsonl"),
                Companion::Journal { run: "wf_sp01" },
            ),
            (
                format!("{s}/workflows/wf_sp01.json"),
                Companion::Run { run: "wf_sp01" },
            ),
            (
                format!("{s}/subagents/agent-acompact-7.jsonl"),
                Companion::Other,
            ),
            (format!("{s}/tool-results/x.txt"), Companion::Other),
            ("journal.jsonl".to_string(), Companion::Other),
        ] {
            assert_eq!(companion(&path), what, "{path}");
        }
    }
}
