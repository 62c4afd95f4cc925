//! The kandev message model (docs/behaviour.md §1) with tolerant reading.
//!
//! Every field is read leniently from a `serde_json::Value`: unknown fields are
//! ignored, a field of the wrong JSON type falls back to its default, and only a
//! value that is not an object at all (or has no usable id) is unreadable.

use super::telemetry::TelemetryFacts;
use serde_json::{Map, Value};

/// Who wrote a message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Author {
    User,
    #[default]
    Agent,
}

impl Author {
    /// Reads `author_type`; anything but `user` is the agent.
    pub fn parse(s: &str) -> Self {
        if s.eq_ignore_ascii_case("user") {
            Author::User
        } else {
            Author::Agent
        }
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Author::User => "user",
            Author::Agent => "agent",
        }
    }
}

/// The message `type` (kandev `MessageType`); unknown spellings are kept in `Other`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum MessageType {
    #[default]
    Message,
    Content,
    ToolCall,
    ToolRead,
    ToolEdit,
    ToolExecute,
    ToolSearch,
    Thinking,
    Todo,
    PermissionRequest,
    ClarificationRequest,
    Status,
    Error,
    Progress,
    Log,
    ScriptExecution,
    AgentPlan,
    /// A type this version does not know; rendered as a generic row.
    Other(String),
}

impl MessageType {
    /// Reads a wire `type`; an empty string is `message` (kandev's default).
    pub fn parse(s: &str) -> Self {
        match s {
            "" | "message" => MessageType::Message,
            "content" => MessageType::Content,
            "tool_call" => MessageType::ToolCall,
            "tool_read" => MessageType::ToolRead,
            "tool_edit" => MessageType::ToolEdit,
            "tool_execute" => MessageType::ToolExecute,
            "tool_search" => MessageType::ToolSearch,
            "thinking" => MessageType::Thinking,
            "todo" => MessageType::Todo,
            "permission_request" => MessageType::PermissionRequest,
            "clarification_request" => MessageType::ClarificationRequest,
            "status" => MessageType::Status,
            "error" => MessageType::Error,
            "progress" => MessageType::Progress,
            "log" => MessageType::Log,
            "script_execution" => MessageType::ScriptExecution,
            "agent_plan" => MessageType::AgentPlan,
            other => MessageType::Other(other.to_string()),
        }
    }

    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            MessageType::Message => "message",
            MessageType::Content => "content",
            MessageType::ToolCall => "tool_call",
            MessageType::ToolRead => "tool_read",
            MessageType::ToolEdit => "tool_edit",
            MessageType::ToolExecute => "tool_execute",
            MessageType::ToolSearch => "tool_search",
            MessageType::Thinking => "thinking",
            MessageType::Todo => "todo",
            MessageType::PermissionRequest => "permission_request",
            MessageType::ClarificationRequest => "clarification_request",
            MessageType::Status => "status",
            MessageType::Error => "error",
            MessageType::Progress => "progress",
            MessageType::Log => "log",
            MessageType::ScriptExecution => "script_execution",
            MessageType::AgentPlan => "agent_plan",
            MessageType::Other(s) => s,
        }
    }

    /// Tool calls of any kind (docs/behaviour.md §2.2).
    pub fn is_tool(&self) -> bool {
        matches!(
            self,
            MessageType::ToolCall
                | MessageType::ToolRead
                | MessageType::ToolEdit
                | MessageType::ToolExecute
                | MessageType::ToolSearch
        )
    }
}

/// The subagent payload `metadata.normalized.subagent_task` (docs/behaviour.md §1).
///
/// Empty strings mean "not known"; numeric fields are `None` when absent or
/// unreadable, so `tool_use_count: Some(0)` ("reported zero") differs from `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubagentTask {
    pub subagent_type: String,
    pub description: String,
    pub prompt: String,
    /// The payload's own lifecycle (`completed`, `async_launched`, `started`, …).
    pub status: String,
    pub agent_id: String,
    pub model: String,
    pub child_session_id: String,
    pub duration_ms: Option<u64>,
    pub total_tokens: Option<u64>,
    pub tool_use_count: Option<u64>,
    /// Verbatim, untrimmed; empty when the subagent returned nothing.
    pub result_text: String,
    pub is_async: bool,
    /// Set by importers when the source marks an implicit fork (no type given).
    pub is_fork: bool,
    /// What only the session's telemetry knows of the run, when it arrived.
    pub telemetry: Option<TelemetryFacts>,
}

/// True for text a launcher returns instead of a result: a background run's
/// `Async agent launched successfully.` (Claude Code) or `Background agent
/// launched successfully.` (qwen-code), a fork's `Fork started…`, a
/// workflow's `Workflow launched in background.`. A placeholder is not a
/// result (docs/behaviour.md §1).
pub fn is_launch_placeholder(text: &str) -> bool {
    let t = text.trim_start().to_ascii_lowercase();
    [
        "fork started",
        "async agent launched",
        "background agent launched",
        "workflow launched",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

impl SubagentTask {
    /// What the subagent answered: `result_text`, or nothing when that is only
    /// a launch placeholder (docs/behaviour.md §1), whatever source wrote it.
    pub fn answer(&self) -> &str {
        if is_launch_placeholder(&self.result_text) {
            ""
        } else {
            &self.result_text
        }
    }

    /// Reads the payload object leniently.
    pub fn from_value(v: &Value) -> Self {
        SubagentTask {
            subagent_type: str_at(v, "subagent_type"),
            description: str_at(v, "description"),
            prompt: str_at(v, "prompt"),
            status: str_at(v, "status"),
            agent_id: str_at(v, "agent_id"),
            model: str_at(v, "model"),
            child_session_id: str_at(v, "child_session_id"),
            duration_ms: u64_at(v, "duration_ms"),
            total_tokens: u64_at(v, "total_tokens"),
            tool_use_count: u64_at(v, "tool_use_count"),
            result_text: str_at(v, "result_text"),
            is_async: bool_at(v, "is_async"),
            is_fork: bool_at(v, "is_fork"),
            telemetry: v.get("telemetry").and_then(TelemetryFacts::from_value),
        }
    }

    /// Merges a later frame into this one without ever blanking (docs/behaviour.md §1.1):
    /// empty strings, zero durations and zero token counts keep the earlier value.
    pub fn merge_from(&mut self, later: &SubagentTask) {
        fn keep_nonempty(dst: &mut String, src: &str) {
            if !src.is_empty() {
                *dst = src.to_string();
            }
        }
        keep_nonempty(&mut self.subagent_type, &later.subagent_type);
        keep_nonempty(&mut self.description, &later.description);
        keep_nonempty(&mut self.prompt, &later.prompt);
        keep_nonempty(&mut self.status, &later.status);
        keep_nonempty(&mut self.agent_id, &later.agent_id);
        keep_nonempty(&mut self.model, &later.model);
        keep_nonempty(&mut self.child_session_id, &later.child_session_id);
        keep_nonempty(&mut self.result_text, &later.result_text);
        if later.duration_ms.is_some_and(|d| d > 0) {
            self.duration_ms = later.duration_ms;
        }
        if later.total_tokens.is_some_and(|t| t > 0) {
            self.total_tokens = later.total_tokens;
        }
        if later.tool_use_count.is_some() {
            self.tool_use_count = later.tool_use_count;
        }
        self.is_async |= later.is_async;
        self.is_fork |= later.is_fork;
        if later.telemetry.is_some() {
            self.telemetry = later.telemetry.clone();
        }
    }

    /// Writes the payload back as a JSON object (the wire shape).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        let mut put_str = |k: &str, s: &str| {
            m.insert(k.into(), Value::String(s.to_string()));
        };
        put_str("subagent_type", &self.subagent_type);
        put_str("description", &self.description);
        put_str("prompt", &self.prompt);
        for (k, s) in [
            ("status", &self.status),
            ("agent_id", &self.agent_id),
            ("model", &self.model),
            ("child_session_id", &self.child_session_id),
            ("result_text", &self.result_text),
        ] {
            if !s.is_empty() {
                m.insert(k.into(), Value::String(s.clone()));
            }
        }
        for (k, n) in [
            ("duration_ms", self.duration_ms),
            ("total_tokens", self.total_tokens),
            ("tool_use_count", self.tool_use_count),
        ] {
            if let Some(n) = n {
                m.insert(k.into(), Value::from(n));
            }
        }
        if self.is_async {
            m.insert("is_async".into(), Value::Bool(true));
        }
        if self.is_fork {
            m.insert("is_fork".into(), Value::Bool(true));
        }
        if let Some(facts) = &self.telemetry {
            m.insert("telemetry".into(), facts.to_value());
        }
        Value::Object(m)
    }
}

/// Tool-call metadata (`ToolCallMetadata`), with the raw object kept for renderers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    pub tool_call_id: Option<String>,
    pub parent_tool_call_id: Option<String>,
    pub title: Option<String>,
    pub status: Option<String>,
    /// `normalized.kind`, e.g. `subagent_task`, `shell_exec`.
    pub normalized_kind: Option<String>,
    /// `normalized.subagent_task`, when present.
    pub subagent: Option<SubagentTask>,
    /// The whole metadata object as received (kind payloads, todos, thinking, …).
    pub raw: Value,
}

impl Metadata {
    /// Reads `metadata` leniently; a non-object gives empty metadata.
    pub fn from_value(v: &Value) -> Self {
        let normalized = v.get("normalized");
        let normalized_kind = normalized.and_then(|n| opt_str_at(n, "kind"));
        let subagent = normalized
            .and_then(|n| n.get("subagent_task"))
            .filter(|s| s.is_object())
            .map(SubagentTask::from_value);
        Metadata {
            tool_call_id: opt_str_at(v, "tool_call_id"),
            parent_tool_call_id: opt_str_at(v, "parent_tool_call_id"),
            title: opt_str_at(v, "title"),
            status: opt_str_at(v, "status"),
            normalized_kind,
            subagent,
            raw: if v.is_object() {
                v.clone()
            } else {
                Value::Object(Map::new())
            },
        }
    }

    /// The normalized payload of this message's kind (`normalized.<kind>`).
    pub fn kind_payload(&self) -> Option<&Value> {
        let kind = self.normalized_kind.as_deref()?;
        self.raw.get("normalized")?.get(kind)
    }

    /// A string field of the raw metadata.
    pub fn raw_str(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }
}

/// One transcript message (docs/behaviour.md §1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Message {
    pub id: String,
    pub session_id: String,
    pub task_id: String,
    pub turn_id: Option<String>,
    pub author: Author,
    pub kind: MessageType,
    pub content: String,
    pub metadata: Metadata,
    pub created_at: String,
    pub updated_at: String,
}

impl Message {
    /// Reads one message from JSON (`id` or, on live events, `message_id`).
    pub fn from_value(v: &Value) -> Result<Message, String> {
        MessagePatch::from_value(v).map(MessagePatch::into_message)
    }

    /// `tool_call` whose normalized kind is `subagent_task` (docs/behaviour.md §1).
    /// A tool call with children is also a subagent; the store knows that part.
    pub fn is_subagent_payload(&self) -> bool {
        self.kind == MessageType::ToolCall
            && self.metadata.normalized_kind.as_deref() == Some("subagent_task")
    }

    /// The one title rule for a message (kandev's tool title rule): the first
    /// non-empty line of `metadata.title`, else of `content`, at most 200
    /// characters; empty when neither has one. Tool rows, group and card `now:`
    /// lines and untitled card descriptions all use it.
    pub fn title(&self) -> String {
        let from = |s: &str| {
            let line = s.lines().map(str::trim).find(|l| !l.is_empty())?;
            Some(match line.char_indices().nth(200) {
                Some((cut, _)) => format!("{}…", &line[..cut]),
                None => line.to_string(),
            })
        };
        self.metadata
            .title
            .as_deref()
            .and_then(from)
            .or_else(|| from(&self.content))
            .unwrap_or_default()
    }

    /// Writes the message back in the HTTP list shape.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), self.id.clone().into());
        m.insert("session_id".into(), self.session_id.clone().into());
        m.insert("task_id".into(), self.task_id.clone().into());
        if let Some(t) = &self.turn_id {
            m.insert("turn_id".into(), t.clone().into());
        }
        m.insert("author_type".into(), self.author.as_str().into());
        m.insert("type".into(), self.kind.as_str().into());
        m.insert("content".into(), self.content.clone().into());
        let mut meta = self.metadata.raw.clone();
        if let (Some(sa), Some(obj)) = (&self.metadata.subagent, meta.as_object_mut()) {
            let normalized = obj
                .entry("normalized")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(n) = normalized.as_object_mut() {
                n.insert("kind".into(), "subagent_task".into());
                n.insert("subagent_task".into(), sa.to_value());
            }
        }
        m.insert("metadata".into(), meta);
        m.insert("created_at".into(), self.created_at.clone().into());
        m.insert("updated_at".into(), self.updated_at.clone().into());
        Value::Object(m)
    }
}

/// The fields a live `session.message.updated` defines (docs/behaviour.md §1.1): `None`
/// means "absent from the payload, keep the stored value".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MessagePatch {
    pub id: String,
    pub session_id: Option<String>,
    pub task_id: Option<String>,
    pub turn_id: Option<String>,
    pub author: Option<Author>,
    pub kind: Option<MessageType>,
    pub content: Option<String>,
    pub metadata: Option<Metadata>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

impl MessagePatch {
    /// Reads a patch; fails only when `v` is not an object or has no id.
    pub fn from_value(v: &Value) -> Result<MessagePatch, String> {
        let Some(obj) = v.as_object() else {
            return Err(format!("expected a JSON object, found {}", json_kind(v)));
        };
        let id = ["id", "message_id"]
            .iter()
            .find_map(|k| obj.get(*k).and_then(id_string))
            .ok_or_else(|| "message has no id".to_string())?;
        Ok(MessagePatch {
            id,
            session_id: opt_str_at(v, "session_id"),
            task_id: opt_str_at(v, "task_id"),
            turn_id: opt_str_at(v, "turn_id"),
            author: opt_str_at(v, "author_type").map(|s| Author::parse(&s)),
            kind: opt_str_at(v, "type").map(|s| MessageType::parse(&s)),
            content: opt_str_at(v, "content"),
            metadata: obj
                .get("metadata")
                .filter(|m| !m.is_null())
                .map(Metadata::from_value),
            created_at: opt_str_at(v, "created_at"),
            updated_at: opt_str_at(v, "updated_at"),
        })
    }

    /// A complete message from this patch, defaults for what it lacks.
    pub fn into_message(self) -> Message {
        Message {
            id: self.id,
            session_id: self.session_id.unwrap_or_default(),
            task_id: self.task_id.unwrap_or_default(),
            turn_id: self.turn_id.filter(|t| !t.is_empty()),
            author: self.author.unwrap_or_default(),
            kind: self.kind.unwrap_or_default(),
            content: self.content.unwrap_or_default(),
            metadata: self.metadata.unwrap_or_default(),
            created_at: self.created_at.unwrap_or_default(),
            updated_at: self.updated_at.unwrap_or_default(),
        }
    }
}

impl From<Message> for MessagePatch {
    /// A patch that defines every field of `m` (an `added` event as an update).
    fn from(m: Message) -> MessagePatch {
        MessagePatch {
            id: m.id,
            session_id: Some(m.session_id),
            task_id: Some(m.task_id),
            turn_id: m.turn_id,
            author: Some(m.author),
            kind: Some(m.kind),
            content: Some(m.content),
            metadata: Some(m.metadata),
            created_at: Some(m.created_at),
            updated_at: Some(m.updated_at),
        }
    }
}

/// A JSON string field, `None` when absent or not a string.
pub fn opt_str_at(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A JSON string field, empty when absent or not a string.
pub fn str_at(v: &Value, key: &str) -> String {
    opt_str_at(v, key).unwrap_or_default()
}

/// A non-negative integer field; accepts integral floats, rejects everything else.
pub fn u64_at(v: &Value, key: &str) -> Option<u64> {
    let n = v.get(key)?;
    n.as_u64().or_else(|| {
        n.as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0 && *f < 1.8e19)
            .map(|f| f as u64)
    })
}

/// A boolean field, `false` when absent or not a boolean.
pub fn bool_at(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// An id may arrive as a string or a number; empty strings are no id.
fn id_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A short name for a JSON value's type, for error messages.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_fields_are_ignored_and_wrong_types_default() {
        let m = Message::from_value(&json!({
            "id": "m1", "type": 42, "content": {"x": 1}, "turn_id": 7,
            "author_type": "user", "surprise": true,
            "metadata": {"status": false, "title": "t"}
        }))
        .unwrap();
        assert_eq!(m.kind, MessageType::Message);
        assert_eq!(m.content, "");
        assert_eq!(m.turn_id, None);
        assert_eq!(m.author, Author::User);
        assert_eq!(m.metadata.status, None);
        assert_eq!(m.metadata.title.as_deref(), Some("t"));
    }

    #[test]
    fn unknown_type_is_kept_for_a_generic_row() {
        let m = Message::from_value(&json!({"id": "m1", "type": "hologram"})).unwrap();
        assert_eq!(m.kind, MessageType::Other("hologram".into()));
        assert_eq!(m.kind.as_str(), "hologram");
    }

    #[test]
    fn live_events_use_message_id() {
        let m = Message::from_value(&json!({"message_id": "w-A"})).unwrap();
        assert_eq!(m.id, "w-A");
    }

    #[test]
    fn a_non_object_or_idless_message_is_unreadable() {
        assert!(Message::from_value(&json!([1, 2])).is_err());
        assert!(Message::from_value(&json!({"content": "no id"})).is_err());
    }

    #[test]
    fn tool_use_count_keeps_absent_apart_from_zero() {
        let zero = SubagentTask::from_value(&json!({"tool_use_count": 0}));
        let absent = SubagentTask::from_value(&json!({}));
        let wrong = SubagentTask::from_value(&json!({"tool_use_count": "three"}));
        assert_eq!(zero.tool_use_count, Some(0));
        assert_eq!(absent.tool_use_count, None);
        assert_eq!(wrong.tool_use_count, None);
    }

    #[test]
    fn subagent_merge_never_blanks() {
        let mut a = SubagentTask::from_value(&json!({
            "result_text": "APPROVE", "duration_ms": 900, "total_tokens": 12, "model": "m"
        }));
        a.merge_from(&SubagentTask::from_value(&json!({
            "result_text": "", "duration_ms": 0, "total_tokens": 0, "model": "", "status": "completed"
        })));
        assert_eq!(a.result_text, "APPROVE");
        assert_eq!(a.duration_ms, Some(900));
        assert_eq!(a.total_tokens, Some(12));
        assert_eq!(a.model, "m");
        assert_eq!(a.status, "completed");
    }

    #[test]
    fn title_prefers_metadata_title_then_the_first_content_line() {
        let m = |v| Message::from_value(&v).unwrap();
        assert_eq!(
            m(json!({"id": "a", "content": "c", "metadata": {"title": " T "}})).title(),
            "T"
        );
        assert_eq!(
            m(json!({"id": "a", "content": "\n  first\nsecond"})).title(),
            "first"
        );
        assert_eq!(m(json!({"id": "a"})).title(), "");
        let long = "x".repeat(300);
        assert_eq!(
            m(json!({"id": "a", "content": long}))
                .title()
                .chars()
                .count(),
            201
        );
    }

    #[test]
    fn message_round_trips_through_the_wire_shape() {
        let v = json!({
            "id": "m13", "session_id": "s", "task_id": "t", "turn_id": "turn-2",
            "author_type": "agent", "type": "tool_call", "content": "Task",
            "metadata": {"tool_call_id": "toolu_A", "normalized": {"kind": "subagent_task",
                "subagent_task": {"subagent_type": "code-reviewer", "description": "d", "prompt": "",
                    "tool_use_count": 0}}},
            "created_at": "2026-08-03T10:01:08Z", "updated_at": "2026-08-03T10:01:08Z"
        });
        let m = Message::from_value(&v).unwrap();
        assert!(m.is_subagent_payload());
        assert_eq!(Message::from_value(&m.to_value()).unwrap(), m);
    }

    #[test]
    fn a_launch_placeholder_is_not_an_answer() {
        let mut sa = SubagentTask {
            result_text: "Async agent launched successfully.\nagentId: a2".into(),
            ..SubagentTask::default()
        };
        assert_eq!(sa.answer(), "");
        sa.result_text = "Fork started — processing in background".into();
        assert_eq!(sa.answer(), "");
        sa.result_text = "The review found two issues.".into();
        assert_eq!(sa.answer(), "The review found two issues.");
    }
}
