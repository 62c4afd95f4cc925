//! MCP tools as people read them (docs/behaviour.md §3.4): a call of an MCP
//! server's tool travels under a wire name, `mcp__<server>__<tool>` (Claude
//! Code, qwen-code, and Codex's `mcp__<server>` namespace joined to its tool
//! name), and reads `server · tool`.

/// The prefix of an MCP tool's wire name.
const PREFIX: &str = "mcp__";

/// The server and the tool of an MCP wire name, or `None` for any other
/// name (a server's name holds no `__`; the tool's may).
pub fn mcp_tool(name: &str) -> Option<(&str, &str)> {
    let rest = name.trim().strip_prefix(PREFIX)?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// `server · tool` for an MCP wire name; `None` for any other name.
pub fn mcp_label(name: &str) -> Option<String> {
    mcp_tool(name).map(|(server, tool)| format!("{server} · {tool}"))
}

/// The wire name of `tool` in MCP namespace `namespace` (Codex names a
/// server's tools `mcp__<server>` and the tool apart).
pub fn namespaced(namespace: &str, tool: &str) -> Option<String> {
    let server = namespace.strip_prefix(PREFIX)?;
    (!server.is_empty() && !tool.is_empty()).then(|| format!("{PREFIX}{server}__{tool}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mcp_wire_name_reads_server_dot_tool() {
        assert_eq!(
            mcp_tool("mcp__notes__lookup_note"),
            Some(("notes", "lookup_note"))
        );
        assert_eq!(
            mcp_label("mcp__notes__lookup_note").as_deref(),
            Some("notes · lookup_note")
        );
        assert_eq!(
            mcp_label("mcp__github__read__file").as_deref(),
            Some("github · read__file")
        );
        for other in [
            "Bash",
            "mcp__",
            "mcp__notes",
            "mcp____x",
            "lookup_note",
            "xmcp__a__b",
        ] {
            assert_eq!(mcp_label(other), None, "{other}");
        }
    }

    #[test]
    fn a_codex_namespace_and_its_tool_make_the_wire_name() {
        assert_eq!(
            namespaced("mcp__notes", "lookup_note").as_deref(),
            Some("mcp__notes__lookup_note")
        );
        assert_eq!(namespaced("multi_agent_v1", "spawn_agent"), None);
    }
}
