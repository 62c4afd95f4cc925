//! The files a Claude Code session keeps beside it: subagent transcripts.

/// The subagent id of a child transcript file name (`…/agent-<id>.jsonl`),
/// or `None` for any other file (compaction files included).
pub fn agent_file_id(name: &str) -> Option<&str> {
    let file = name.rsplit(['/', '\\']).next()?;
    let id = file.strip_prefix("agent-")?.strip_suffix(".jsonl")?;
    (!id.is_empty() && !id.starts_with("acompact")).then_some(id)
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
}
