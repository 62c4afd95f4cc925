//! What a Claude Code session holds besides conversation, decided by rule
//! (docs/behaviour.md §1, docs/formats.md Claude Code): the record kinds it
//! writes for itself (request snapshots and routes, latches, cost totals,
//! queue bookkeeping, titles), skipped and counted as read; and the fields
//! of conversation records that carry nothing for the view, each named with
//! why it is not read. A kind no rule names is still skipped and counted
//! (the shared test, `jsonl::Reading::UnknownKind`), but the capture tests
//! ask that every kind a pinned release writes be named here.

/// Record kinds Claude Code writes that carry no conversation: read, and
/// skipped by rule. 2.1.337 added `api-request-route` (the provider and
/// credential kind each request went out by).
pub const RECORD_KINDS: [&str; 15] = [
    "agent-name",
    "ai-title",
    "api-request",
    "api-request-blob",
    "api-request-route",
    "api-request-shape",
    "atis-latch",
    "cost-state",
    "custom-title",
    "file-history-snapshot",
    "fork-context-ref",
    "last-prompt",
    "mode",
    "summary",
    "tools-used",
];

/// Fields of conversation records that the importer does not read, with
/// why: new in 2.1.337 unless said otherwise.
pub const FIELDS_NOT_READ: [(&str, &str); 5] = [
    (
        "toolLimits",
        "on every record of a subagent's file: the tools it was allowed \
         (`tools`) or refused (`disallowedTools`); the calls it made are its rows",
    ),
    (
        "turnPromptId",
        "on a typed prompt: the id of the turn it starts; turns are told \
         from the records' order (each typed prompt starts one)",
    ),
    (
        "toolResultScreened",
        "on a tool result: whether a screen read it before the model did; \
         the result shown is the one recorded",
    ),
    (
        "adviceNotes",
        "in a subagent's `toolUseResult`: notes for its parent beside the \
         answer, which is `content`",
    ),
    (
        "requestSessionId",
        "on an assistant record: the session whose request produced it; \
         a fork's copied records name the session they were copied from, \
         which is read as the fork's origin (`fork`), not as a field",
    ),
];

/// True for a record kind Claude Code writes that carries no conversation.
pub fn is_bookkeeping(kind: &str) -> bool {
    RECORD_KINDS.contains(&kind)
}
