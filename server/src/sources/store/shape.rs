//! What a writer publishes of a record (docs/behaviour.md §7 "A team's
//! board"): each task signed with its machine and person; every text
//! masked with the export's secret rules (core `screen::secrets`) unless
//! `--store-unmasked`; and with `--store-content cards`, only the subagent
//! cards of a transcript with their statuses, timings, tokens and cost,
//! no conversation text (prompts, answers, descriptions, titles) and no
//! path: a task is titled by its session file's name and described by its
//! project folder's name alone (docs/team-store.md "What each person's
//! data looks like to the others").

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::str::FromStr;
use taskview_core::model::message::{Message, Metadata, SubagentTask};
use taskview_core::read::protocol::TaskDto;
use taskview_core::screen::secrets::{Masked, Masker};

/// What a writer publishes of its sessions (`--store-content`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Content {
    /// Transcripts whole (masked unless asked otherwise).
    #[default]
    Full,
    /// Cards, statuses, timings, tokens and cost; no conversation text.
    Cards,
}

impl FromStr for Content {
    type Err = String;

    fn from_str(text: &str) -> Result<Content, String> {
        match text {
            "full" => Ok(Content::Full),
            "cards" => Ok(Content::Cards),
            other => Err(format!("{other:?} is not full or cards")),
        }
    }
}

/// A record as it is written: its JSON text and a digest of it (unchanged
/// records are not written again).
#[derive(Debug, PartialEq)]
pub(super) struct Shaped {
    pub(super) body: String,
    pub(super) hash: i64,
}

/// Shapes records for the store.
pub(super) struct Shaper {
    machine: String,
    person: String,
    content: Content,
    masker: Option<Masker>,
}

impl Shaper {
    /// Signs tasks with `machine` and `person`; masks unless `unmasked`.
    pub(super) fn new(machine: &str, person: &str, content: Content, unmasked: bool) -> Shaper {
        Shaper {
            machine: machine.to_string(),
            person: person.to_string(),
            content,
            masker: (!unmasked).then(Masker::new),
        }
    }

    /// Whose sessions these are.
    pub(super) fn person(&self) -> &str {
        &self.person
    }

    /// A task as published.
    pub(super) fn task(&self, task: &TaskDto) -> Shaped {
        let mut task = task.clone();
        task.machine = Some(self.machine.clone());
        task.person = Some(self.person.clone());
        if self.content == Content::Cards {
            task.title = cards_title(&task);
            task.description = project_of(&task.description)
                .map(|name| format!("project {name}"))
                .unwrap_or_default();
            task.repositories.clear();
        }
        self.finish(json!(task))
    }

    /// Any other record (a session, a turn) as published: masked.
    pub(super) fn record(&self, record: Value) -> Shaped {
        self.finish(record)
    }

    /// A message as published; `None` when its kind is not published
    /// (with cards, everything but a subagent card).
    pub(super) fn message(&self, message: &Message) -> Option<Shaped> {
        let value = match self.content {
            Content::Full => message.to_value(),
            Content::Cards => card_only(message)?.to_value(),
        };
        Some(self.finish(value))
    }

    /// The JSON text of `value`, masked, and its digest.
    fn finish(&self, value: Value) -> Shaped {
        let text = value.to_string();
        let body = match &self.masker {
            None => text,
            Some(masker) => {
                let mut masked = Masked::default();
                let out = masker.mask_json(&text, &mut masked);
                // Masking keeps JSON valid; should it not, nothing unmasked goes out.
                if serde_json::from_str::<Value>(&out).is_ok() {
                    out
                } else {
                    json!({ "unpublishable": "masking failed" }).to_string()
                }
            }
        };
        let digest = Sha256::digest(body.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        Shaped {
            hash: i64::from_be_bytes(first),
            body,
        }
    }
}

/// A task's title with cards only: its session file's name, never its
/// first prompt (conversation text).
fn cards_title(task: &TaskDto) -> String {
    let first_file = task.description.split(" + ").next().unwrap_or_default();
    Path::new(first_file)
        .file_name()
        .map(|name| format!("session {}", name.to_string_lossy()))
        .unwrap_or_else(|| format!("session {}", task.id))
}

/// The name of the project a session file belongs to (never a path): the
/// folder holding it (its parent when that is qwen-code's `chats`); a
/// Claude Code project folder, its working directory with each `/` written
/// `-`, is read back against this machine's folders for its last name,
/// and gives none when it cannot be (the folder was removed).
fn project_of(description: &str) -> Option<String> {
    let file = Path::new(description.split(" + ").next()?);
    let mut folder = file.parent()?;
    if folder.file_name().is_some_and(|n| n == "chats") {
        folder = folder.parent()?;
    }
    let name = folder.file_name()?.to_string_lossy().into_owned();
    match name.strip_prefix('-') {
        None => Some(name),
        Some(encoded) => working_directory(encoded)?
            .file_name()
            .map(|n| n.to_string_lossy().into_owned()),
    }
}

/// The folder a Claude Code project name stands for (`home-ana-my-app` for
/// `/home/ana/my-app`), found by walking this machine's folders, the
/// longest name that exists first at each step.
fn working_directory(encoded: &str) -> Option<std::path::PathBuf> {
    let words: Vec<&str> = encoded.split('-').collect();
    let mut folder = std::path::PathBuf::from("/");
    let mut at = 0;
    while at < words.len() {
        let end = (at + 1..=words.len())
            .rev()
            .find(|&end| folder.join(words[at..end].join("-")).is_dir())?;
        folder.push(words[at..end].join("-"));
        at = end;
    }
    Some(folder)
}

/// A subagent card without its words: type, state, model, timings,
/// tokens, tool count and telemetry; `None` for any other message.
fn card_only(message: &Message) -> Option<Message> {
    if !message.is_subagent_payload() {
        return None;
    }
    let task = message.metadata.subagent.as_ref()?;
    let card = SubagentTask {
        subagent_type: task.subagent_type.clone(),
        status: task.status.clone(),
        agent_id: task.agent_id.clone(),
        model: task.model.clone(),
        child_session_id: task.child_session_id.clone(),
        duration_ms: task.duration_ms,
        total_tokens: task.total_tokens,
        tool_use_count: task.tool_use_count,
        is_async: task.is_async,
        is_fork: task.is_fork,
        telemetry: task.telemetry.clone(),
        ..SubagentTask::default()
    };
    let metadata = &message.metadata;
    let kept = json!({
        "tool_call_id": metadata.tool_call_id,
        "parent_tool_call_id": metadata.parent_tool_call_id,
        "status": metadata.status,
        "normalized": { "kind": "subagent_task", "subagent_task": card.to_value() },
    });
    Some(Message {
        content: String::new(),
        metadata: Metadata::from_value(&kept),
        ..message.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLANTED: &str = "ghp_R4nd0mT0k3nF0rT3st1ngPurp0s3s0nly123";

    fn card() -> Message {
        Message::from_value(&json!({
            "id": "call-1", "type": "tool_call", "content": "Review the auth module",
            "metadata": { "tool_call_id": "call-1", "status": "complete", "title": "Review auth",
                "normalized": { "kind": "subagent_task", "subagent_task": {
                    "subagent_type": "Explore", "description": "Review auth", "prompt": "Look at login.rs",
                    "status": "completed", "result_text": "Found two bugs", "total_tokens": 1234,
                    "duration_ms": 5000, "tool_use_count": 7 } } }
        }))
        .unwrap()
    }

    #[test]
    fn a_planted_secret_is_masked_unless_unmasked() {
        let said = Message::from_value(&json!({
            "id": "m1", "content": format!("export GITHUB_TOKEN={PLANTED}")
        }))
        .unwrap();
        let masked = Shaper::new("box", "ana", Content::Full, false);
        let body = masked.message(&said).unwrap().body;
        assert!(!body.contains(PLANTED), "{body}");
        assert!(body.contains("[masked: github-pat]"), "{body}");
        let kept = Shaper::new("box", "ana", Content::Full, true);
        assert!(kept.message(&said).unwrap().body.contains(PLANTED));
    }

    #[test]
    fn cards_keep_the_figures_and_none_of_the_words() {
        let shaper = Shaper::new("box", "ana", Content::Cards, false);
        let said = Message::from_value(&json!({ "id": "m1", "content": "hello" })).unwrap();
        assert_eq!(shaper.message(&said), None, "conversation is not published");
        let body = shaper.message(&card()).unwrap().body;
        for words in ["Review", "login.rs", "Found two bugs"] {
            assert!(!body.contains(words), "{words} in {body}");
        }
        let back = Message::from_value(&serde_json::from_str(&body).unwrap()).unwrap();
        let task = back.metadata.subagent.unwrap();
        assert_eq!(
            (task.subagent_type.as_str(), task.status.as_str()),
            ("Explore", "completed")
        );
        assert_eq!(
            (task.total_tokens, task.duration_ms, task.tool_use_count),
            (Some(1234), Some(5000), Some(7))
        );
    }

    #[test]
    fn tasks_are_signed_and_cards_titles_are_file_names() {
        let task = TaskDto {
            id: "rec-a".into(),
            title: "Fix the login bug".into(),
            description: "/home/ana/.claude/projects/p/abc.jsonl".into(),
            ..TaskDto::default()
        };
        let full = Shaper::new("box", "ana", Content::Full, false).task(&task);
        let read: TaskDto = serde_json::from_str(&full.body).unwrap();
        assert_eq!(
            (read.machine.as_deref(), read.person.as_deref()),
            (Some("box"), Some("ana"))
        );
        assert_eq!(read.title, "Fix the login bug");
        let cards = Shaper::new("box", "ana", Content::Cards, false).task(&task);
        let read: TaskDto = serde_json::from_str(&cards.body).unwrap();
        assert_eq!(read.title, "session abc.jsonl");
        assert_eq!(read.description, "project p");
        assert!(!cards.body.contains("/home/ana"), "{}", cards.body);
        assert_ne!(full.hash, cards.hash);
    }

    #[test]
    fn a_project_is_named_by_its_folder_never_its_path() {
        let named = |path: &str| project_of(path);
        assert_eq!(
            named("/home/ana/.qwen/projects/web/chats/s.jsonl").as_deref(),
            Some("web")
        );
        assert_eq!(
            named("/tmp/otlp/s.jsonl + /tmp/x/s.jsonl").as_deref(),
            Some("otlp")
        );
        let here = std::env::temp_dir().join("taskview-shape-my-app");
        std::fs::create_dir_all(&here).unwrap();
        let encoded = here.display().to_string().replace('/', "-");
        let claude = format!("/home/ana/.claude/projects/{encoded}/abc.jsonl");
        assert_eq!(named(&claude).as_deref(), Some("taskview-shape-my-app"));
        let gone = "/home/ana/.claude/projects/-no-such-folder-anywhere/abc.jsonl";
        assert_eq!(named(gone), None, "a guess could be wrong: none");
        let _ = std::fs::remove_dir(&here);
    }
}
