//! Following a growing session file by its new bytes (docs/behaviour.md §7 "All day,
//! any size"): the importer keeps its fold between appends, so the work of
//! an append does not grow with the session.
//!
//! ```ignore
//! let mut follower = Follower::new(None);          // or Some(dialect)
//! let events = follower.push(&appended_bytes);      // any cut, even mid-character
//! let more = follower.push_companion("<stem>/subagents/agent-a1.jsonl", &bytes);
//! if follower.needs_reread() { /* import the file whole, start a new follower */ }
//! let (title, working) = (follower.title(), follower.working());
//! let last = follower.flush();                       // a last line without its newline
//! ```
//!
//! - [`Follower::push`] takes the bytes appended since the last push. A line
//!   is read once its newline comes (a cut inside a record or a character is
//!   held); the events returned bring a store fed with every earlier event
//!   up to date: new messages (`MessageAdded`), messages the new records
//!   changed (`MessageReplaced`, whole: a result completing its
//!   call, a reply merged into its message, a card whose transcript grew),
//!   a row that turned out to be a subagent's echoed answer
//!   (`MessageDeleted`), unreadable lines, and the counts of records not
//!   shown since (`NotShown`, to add).
//! - [`Follower::new`] then one push of the whole file and [`Follower::flush`]
//!   is the whole import (`import_any`): it is the same fold, drained once.
//!   A file that got shorter or was replaced is the caller's to notice: a
//!   new follower starts it afresh.
//! - Dialects that follow (JSON Lines): Claude Code, qwen-code, Codex,
//!   Copilot CLI events, ACP frames, Gemini CLI logs as long as they
//!   only append, and telemetry (`otlp::Follow`, judged at the time given
//!   by [`Follower::set_clock`]). Whole documents (kandev message lists, gadget turns) cannot be followed:
//!   [`Dialect::follows`] is false and [`Follower::needs_reread`] is true
//!   once one is detected; the caller imports them whole (`import_any`).
//! - A follower asks for a re-read ([`Follower::needs_reread`], and its push
//!   returns nothing) when the new bytes rewrite what was read: a Gemini CLI
//!   log writing a message again (with its tool calls), `$set.messages`, a
//!   rewind; or a companion that is no transcript (a workflow run's summary
//!   or journal, a Codex rollout that is not a child of this one). The
//!   caller imports the session whole (with its files) and starts a new
//!   follower with the same bytes.
//! - [`Follower::push_companion`] follows a file beside the session by its
//!   bytes the same way: a subagent's transcript (Claude Code and qwen-code
//!   `agent-<id>.jsonl`, a Gemini CLI subagent log, a Codex rollout whose
//!   parent thread is this one or one already read), and a subagent's
//!   `agent-<id>.meta.json` sidecar (read once it is whole). A child file
//!   whose records name another session is ignored, as the whole import
//!   ignores it.
//! - [`Follower::title`] and [`Follower::working`] are kept as records come
//!   (`title::session_title`, `working::agent_working`), never by reading
//!   the file again.
//! - Work per push: the new records, the messages they change, and the
//!   links of the child transcripts they add or name (all of them only
//!   while some child transcript's agent is named by no Task: old inline
//!   sidechains). `cargo bench -p taskview-core --bench follow` compares a
//!   1 MB and a 100 MB session.
//! - Limits: a Gemini CLI log writes each reply with tool calls twice, so
//!   it is re-read about once per such reply. A row dropped as a card's
//!   echoed answer (`fold::Echoes`) that stops being one (a qwen-code
//!   foreground card reads completed from its launch, its answer the
//!   transcript's latest text until the real one comes) comes back after
//!   the rows of its own record time if it was never sent, and stays
//!   deleted if it was (a store never takes a deleted id back).

use super::acp::AcpFold;
use super::agent_log::Fold;
use super::card_facts::Tally;
use super::claude_code::OwnTitle;
use super::companions::{companion, Companion};
use super::detect::{detect, Dialect};
use super::gemini_cli::{Append, Appends};
use super::jsonl::{read_line, Line};
use super::title::{one_line, prompt_line};
use super::working::{main_record_says, record_says};
use super::{claude_code, codex, copilot, gemini_cli, kimi, otlp, qwen_code};
use crate::model::card_facts::SessionFacts;
use crate::model::event::Event;
use crate::model::message::Author;
use lines::{nonblank, Lines};
use serde_json::Value;
use std::collections::HashMap;

impl Dialect {
    /// Whether a file of this dialect can be followed by its new bytes
    /// (JSON Lines); a whole document (kandev, gadget) is re-read whole.
    pub fn follows(self) -> bool {
        !matches!(self, Dialect::Kandev | Dialect::Gadget | Dialect::OpenCode)
    }
}

/// A session file followed by its new bytes. See the module docs.
pub struct Follower {
    dialect: Option<Dialect>,
    reader: Reader,
    main: Lines,
    /// Complete lines held until the dialect is known, and companions'
    /// bytes pushed meanwhile.
    undecided: String,
    early: Vec<(String, Vec<u8>)>,
    companions: HashMap<String, CompanionFile>,
    own_title: OwnTitle,
    /// The first user message drained: its id and the first line of its text.
    first_prompt: Option<(String, Option<String>)>,
    /// What the newest main record that tells said.
    working: Option<bool>,
    reread: bool,
    /// The time a live session is judged at (`set_clock`), in ms since the epoch.
    now_ms: Option<u64>,
    /// The card facts of what was read (`card_facts`).
    tally: Tally,
}

enum Reader {
    Undecided,
    Log(Box<LogReader>),
    Acp(Box<AcpFold>),
    /// Telemetry (OTLP JSON lines).
    Otlp(Box<otlp::Follow>),
    /// A whole document, or a rewrite: the file is re-read whole.
    Reread,
}

/// The shared session-log fold and what each dialect keeps beside it.
struct LogReader {
    fold: Fold,
    dialect: Dialect,
    codex: codex::Reader,
    gemini: Appends,
    /// Nothing drained yet: a Gemini CLI log is resolved whole.
    fresh: bool,
    /// Codex threads read: this rollout's and its descendants'.
    family: Vec<String>,
    /// The session the first main records name, and how many were looked at.
    own_session: Option<String>,
    main_lines: usize,
}

/// A file beside the session, followed by its bytes.
struct CompanionFile {
    lines: Lines,
    state: CompanionState,
}

enum CompanionState {
    /// A transcript whose session is not known yet: the lines held (at most
    /// `SESSION_LINES` records decide).
    Pending {
        agent: Option<String>,
        held: Vec<String>,
    },
    /// A transcript read as agent `agent`'s.
    Reading {
        agent: String,
        codex: codex::Reader,
        gemini: Appends,
    },
    /// A sidecar document, read once whole.
    Document,
    /// Not this session's, or not read by this dialect.
    Ignored,
}

/// How many leading records of a child file may decide whose session it is
/// (`agent_log::session_id`).
const SESSION_LINES: usize = 64;

impl Follower {
    /// A follower for a session of `dialect`, or (`None`) of the dialect its
    /// first lines show.
    pub fn new(dialect: Option<Dialect>) -> Follower {
        let mut follower = Follower {
            dialect: None,
            reader: Reader::Undecided,
            main: Lines::default(),
            undecided: String::new(),
            early: Vec::new(),
            companions: HashMap::new(),
            own_title: OwnTitle::default(),
            first_prompt: None,
            working: None,
            reread: false,
            now_ms: None,
            tally: Tally::default(),
        };
        if let Some(dialect) = dialect {
            follower.decide(dialect);
        }
        follower
    }

    /// The dialect followed, once known.
    pub fn dialect(&self) -> Option<Dialect> {
        self.dialect
    }

    /// True when the bytes pushed cannot be followed (a whole document, or a
    /// rewrite of what was read; see the module docs): the caller imports
    /// the file whole and starts a new follower. Pushes return nothing from
    /// then on.
    pub fn needs_reread(&self) -> bool {
        self.reread
    }

    /// The session's title as its records so far give it
    /// (`title::session_title`).
    pub fn title(&self) -> Option<String> {
        let prompt = self.first_prompt.as_ref().and_then(|(_, p)| p.clone());
        one_line(self.own_title.title().or(prompt))
    }

    /// Whether the agent is working, as the newest main records that tell
    /// say (`working::agent_working`); `None` for a dialect whose records
    /// do not tell, or before the dialect is known.
    pub fn working(&self) -> Option<bool> {
        record_says(self.dialect?).map(|_| self.working.unwrap_or(true))
    }

    /// The card facts of what was read (docs/behaviour.md §5); `working`:
    /// its agent is at work, so its newest request may still be writing its
    /// usage.
    pub fn card_facts(&self, working: bool) -> SessionFacts {
        self.tally.facts(working)
    }

    /// Judges the session live at `now_ms` (ms since the epoch) from now on:
    /// without a clock, what is read is taken as ended, as a whole import
    /// takes it. Returns the events of the time that passed: a telemetry
    /// session quiet for `otlp::ENDED_AFTER_QUIET_MS` has ended, so a Claude
    /// Code subagent that never reported completion stops running.
    pub fn set_clock(&mut self, now_ms: u64) -> Vec<Event> {
        self.now_ms = Some(now_ms);
        match &mut self.reader {
            Reader::Otlp(follow) => follow.drain(self.now_ms),
            _ => Vec::new(),
        }
    }

    /// The memory a telemetry session's card tree takes, estimated (`None`:
    /// not telemetry, whose memory is its messages').
    pub fn telemetry_bytes(&self) -> Option<u64> {
        match &self.reader {
            Reader::Otlp(follow) => Some(follow.bytes()),
            _ => None,
        }
    }

    /// Folds a telemetry session's spans into its cards (`otlp::Follow::fold`);
    /// other sessions keep what they hold.
    pub fn fold_telemetry(&mut self) {
        if let Reader::Otlp(follow) = &mut self.reader {
            follow.fold();
        }
    }

    /// Reads the bytes appended to the session since the last push; returns
    /// the events that bring a store fed with every earlier event up to date.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Event> {
        if self.reread {
            return Vec::new();
        }
        let text = self.main.push(bytes);
        self.read_main(text)
    }

    /// Reads a last line the file holds without its newline (the session
    /// ended so, or it is being read whole): what `import_any` reads.
    pub fn flush(&mut self) -> Vec<Event> {
        if self.reread {
            return Vec::new();
        }
        let text = self.main.flush();
        let mut events = self.read_main(text);
        let paths: Vec<String> = self.companions.keys().cloned().collect();
        for path in paths {
            events.extend(self.companion_text(&path, None, true));
        }
        events
    }

    /// Reads the bytes appended to a file beside the session, by its path
    /// relative to the session's folder (as `import_any_with_files` names
    /// them); see the module docs for the files read.
    pub fn push_companion(&mut self, path: &str, bytes: &[u8]) -> Vec<Event> {
        if self.reread {
            return Vec::new();
        }
        self.companion_text(path, Some(bytes), false)
    }

    fn decide(&mut self, dialect: Dialect) {
        self.dialect = Some(dialect);
        self.tally = Tally::new(dialect);
        self.reader = match dialect {
            Dialect::Acp => Reader::Acp(Box::default()),
            Dialect::Otlp => Reader::Otlp(Box::default()),
            Dialect::Kandev | Dialect::Gadget | Dialect::OpenCode => {
                self.reread = true;
                Reader::Reread
            }
            _ => Reader::Log(Box::new(LogReader {
                fold: Fold::default(),
                dialect,
                codex: codex::Reader::default(),
                gemini: Appends::default(),
                fresh: true,
                family: Vec::new(),
                own_session: None,
                main_lines: 0,
            })),
        };
    }

    /// Reads complete main-session lines.
    fn read_main(&mut self, text: String) -> Vec<Event> {
        let text = if matches!(self.reader, Reader::Undecided) {
            self.undecided.push_str(&text);
            match detect(&self.undecided) {
                Some(dialect) => {
                    self.decide(dialect);
                    std::mem::take(&mut self.undecided)
                }
                None => return Vec::new(),
            }
        } else {
            text
        };
        if self.reread {
            return Vec::new();
        }
        for line in nonblank(&text) {
            self.own_title.line(line);
        }
        let says = self.dialect.and_then(record_says);
        let mut working = self.working;
        let tally = &mut self.tally;
        let mut told = |value: &Value, agent: Option<&str>| {
            tally.record(value, agent);
            if agent.is_some() {
                return;
            }
            if let Some(said) = says.and_then(|says| main_record_says(says, value)) {
                working = Some(said);
            }
        };
        match &mut self.reader {
            Reader::Acp(fold) => {
                for line in nonblank(&text) {
                    let line = read_line(line);
                    if let Line::Object { value, .. } = &line {
                        told(value, None);
                    }
                    fold.read_line(line);
                }
            }
            Reader::Otlp(follow) => {
                for line in nonblank(&text) {
                    follow.line(line.trim(), &mut |value| told(value, None));
                }
            }
            Reader::Log(log) => {
                if !log.read_main(&text, &mut told) {
                    self.reread = true;
                    self.reader = Reader::Reread;
                    return Vec::new();
                }
            }
            Reader::Undecided | Reader::Reread => return Vec::new(),
        }
        self.working = working;
        let mut events = self.drain();
        for (path, bytes) in std::mem::take(&mut self.early) {
            events.extend(self.companion_text(&path, Some(&bytes), false));
        }
        events
    }

    fn companion_text(&mut self, path: &str, bytes: Option<&[u8]>, last: bool) -> Vec<Event> {
        if matches!(self.reader, Reader::Undecided) {
            self.early
                .push((path.to_string(), bytes.unwrap_or_default().to_vec()));
            return Vec::new();
        }
        let Reader::Log(log) = &mut self.reader else {
            return Vec::new();
        };
        let file = self
            .companions
            .entry(path.to_string())
            .or_insert_with(|| CompanionFile {
                lines: Lines::default(),
                state: log.first_state(path),
            });
        if matches!(file.state, CompanionState::Ignored) {
            return Vec::new();
        }
        if matches!(file.state, CompanionState::Document) {
            file.lines.held.extend_from_slice(bytes.unwrap_or_default());
            let Ok(meta @ Value::Object(_)) = serde_json::from_slice::<Value>(&file.lines.held)
            else {
                return Vec::new();
            };
            file.state = CompanionState::Ignored;
            file.lines.held = Vec::new();
            if let Companion::Meta { agent } = companion(path) {
                log.fold.add_sidecar(agent, &meta);
            }
            return self.drain();
        }
        let text = match bytes {
            Some(bytes) => file.lines.push(bytes),
            None => file.lines.flush(),
        };
        let tally = &mut self.tally;
        if !log.read_companion(file, &text, last, &mut |value, agent| {
            tally.record(value, agent)
        }) {
            self.reread = true;
            self.reader = Reader::Reread;
            return Vec::new();
        }
        self.drain()
    }

    /// The events of what was read since the last drain; the first prompt
    /// kept for the title.
    fn drain(&mut self) -> Vec<Event> {
        let events = match &mut self.reader {
            Reader::Acp(fold) => fold.drain(),
            Reader::Otlp(follow) => follow.drain(self.now_ms),
            Reader::Log(log) => {
                log.fresh = false;
                log.fold.drain()
            }
            Reader::Undecided | Reader::Reread => Vec::new(),
        };
        self.tally.events(&events);
        for event in &events {
            match (event, &mut self.first_prompt) {
                (Event::MessageAdded(m), None) if m.author == Author::User => {
                    self.first_prompt = Some((m.id.clone(), prompt_line(&m.content)));
                }
                (Event::MessageReplaced(m), Some((id, line))) if *id == m.id => {
                    *line = prompt_line(&m.content);
                }
                _ => {}
            }
        }
        events
    }
}

impl LogReader {
    /// Reads complete lines of the session, each record also `told`;
    /// false when they rewrite what was read (a re-read is needed).
    fn read_main(&mut self, text: &str, told: &mut dyn FnMut(&Value, Option<&str>)) -> bool {
        for line in nonblank(text).take(SESSION_LINES.saturating_sub(self.main_lines)) {
            self.main_lines += 1;
            if self.own_session.is_none() {
                if let Line::Object { value, .. } = read_line(line) {
                    self.own_session = self.record_session(&value);
                }
            }
        }
        if self.dialect == Dialect::GeminiCli && self.fresh {
            // Read whole, a log may rewrite itself: it is resolved first.
            for line in nonblank(text) {
                if let Line::Object { value, .. } = read_line(line) {
                    told(&value, None);
                }
            }
            gemini_cli::read_resolved(&mut self.fold, text, None, &mut self.gemini);
            return true;
        }
        let mut appends = std::mem::take(&mut self.gemini);
        let mut reader = std::mem::take(&mut self.codex);
        let ok = nonblank(text).all(|line| self.line(line, None, &mut reader, &mut appends, told));
        self.gemini = appends;
        self.codex = reader;
        ok
    }

    /// Reads one line of the session (`agent: None`) or of a transcript,
    /// its record also `told`; false when it rewrites what was read.
    fn line(
        &mut self,
        raw: &str,
        agent: Option<&str>,
        codex: &mut codex::Reader,
        gemini: &mut Appends,
        told: &mut dyn FnMut(&Value, Option<&str>),
    ) -> bool {
        let line = read_line(raw);
        if let Line::Object { value, .. } = &line {
            told(value, agent);
        }
        match self.dialect {
            Dialect::ClaudeCode => claude_code::read_line(&mut self.fold, line, agent),
            Dialect::QwenCode => qwen_code::read_line(&mut self.fold, line, agent),
            Dialect::Codex => codex.line(&mut self.fold, line, agent),
            Dialect::Copilot => copilot::read_line(&mut self.fold, line),
            Dialect::Kimi => kimi::read_line(&mut self.fold, line, agent),
            _ => {
                let append = match &line {
                    Line::Object { value, .. } => gemini.next(value),
                    Line::Unreadable { .. } => Append::Read,
                };
                match append {
                    Append::Read => gemini_cli::read_line(&mut self.fold, line, agent),
                    Append::Skip => {}
                    Append::Rewrite => return false,
                }
            }
        }
        true
    }

    /// What a companion at `path` is before any of it is read.
    fn first_state(&self, path: &str) -> CompanionState {
        match (self.dialect, companion(path)) {
            (Dialect::ClaudeCode | Dialect::QwenCode, Companion::Transcript { agent, .. }) => {
                CompanionState::Pending {
                    agent: Some(agent.to_string()),
                    held: Vec::new(),
                }
            }
            (Dialect::ClaudeCode | Dialect::QwenCode, Companion::Meta { .. }) => {
                CompanionState::Document
            }
            (Dialect::ClaudeCode, Companion::Journal { .. } | Companion::Run { .. })
            | (Dialect::QwenCode, Companion::Run { .. }) => CompanionState::Pending {
                agent: None,
                held: Vec::new(),
            },
            (Dialect::ClaudeCode, Companion::Other) if path.ends_with(".jsonl") => {
                CompanionState::Pending {
                    agent: None,
                    held: Vec::new(),
                }
            }
            (Dialect::Kimi, _) => match kimi::agent_of_path(path) {
                Some(agent) if agent != kimi::MAIN_AGENT => CompanionState::Reading {
                    agent: agent.to_string(),
                    codex: codex::Reader::default(),
                    gemini: Appends::default(),
                },
                _ => CompanionState::Ignored,
            },
            (Dialect::GeminiCli | Dialect::Codex, _) => CompanionState::Pending {
                agent: None,
                held: Vec::new(),
            },
            _ => CompanionState::Ignored,
        }
    }

    /// Reads complete lines of a companion (all of them when `last`); false
    /// when the companion needs the session re-read whole.
    fn read_companion(
        &mut self,
        file: &mut CompanionFile,
        text: &str,
        last: bool,
        told: &mut dyn FnMut(&Value, Option<&str>),
    ) -> bool {
        for line in nonblank(text) {
            if let CompanionState::Reading {
                agent,
                codex,
                gemini,
            } = &mut file.state
            {
                let agent = agent.clone();
                if !self.line(line, Some(&agent), codex, gemini, told) {
                    return false;
                }
                continue;
            }
            let CompanionState::Pending { held, .. } = &mut file.state else {
                return true;
            };
            held.push(line.to_string());
            if !self.settle(file, false, told) {
                return false;
            }
        }
        if last && matches!(file.state, CompanionState::Pending { .. }) {
            return self.settle(file, true, told);
        }
        true
    }

    /// Decides whose a pending companion is from its held lines (`done`:
    /// no more will come), and reads them when it is this session's.
    fn settle(
        &mut self,
        file: &mut CompanionFile,
        done: bool,
        told: &mut dyn FnMut(&Value, Option<&str>),
    ) -> bool {
        let CompanionState::Pending { agent, held } = &mut file.state else {
            return true;
        };
        let Some(value) = held.last().and_then(|l| match read_line(l) {
            Line::Object { value, .. } => Some(value),
            Line::Unreadable { .. } => None,
        }) else {
            return true;
        };
        let decided = match (self.dialect, agent.as_deref()) {
            (Dialect::ClaudeCode | Dialect::QwenCode, Some(agent)) => {
                let session = self.record_session(&value);
                match session {
                    // A transcript of the session this one was forked from
                    // is read for a run the copies hold (`agent_log::fork`).
                    Some(s) if self.fold.fork.origin() == Some(s.as_str()) => {
                        if self.fold.task_of_agent.contains_key(agent) {
                            Some(Some(agent.to_string()))
                        } else {
                            (done || self.fold.fork.decided()).then_some(None)
                        }
                    }
                    Some(s) if self.own_session.as_ref().is_some_and(|own| *own != s) => {
                        (done || self.fold.fork.decided()).then_some(None)
                    }
                    Some(_) => Some(Some(agent.to_string())),
                    None if done || held.len() >= SESSION_LINES => Some(Some(agent.to_string())),
                    None => None,
                }
            }
            (Dialect::GeminiCli, None) => Some(gemini_cli::subagent_of_header(&value)),
            (Dialect::Codex, None) => match codex::thread_of_record(&value) {
                Some((id, parent)) if self.codex_family().contains(&parent) => {
                    self.family.push(id.clone());
                    Some(Some(id))
                }
                Some(_) => Some(None),
                None if done || held.len() >= 4 => Some(None),
                None => None,
            },
            // A workflow run's files, or a transcript named by its records:
            // read with the session, whole.
            _ => return false,
        };
        let Some(decided) = decided else {
            return true;
        };
        let held = std::mem::take(held);
        let Some(agent) = decided else {
            file.state = CompanionState::Ignored;
            return true;
        };
        file.state = CompanionState::Reading {
            agent,
            codex: codex::Reader::default(),
            gemini: Appends::default(),
        };
        let text = held.join("\n");
        self.read_companion(file, &text, false, told)
    }

    /// The session a conversation record names (`agent_log::session_id`).
    fn record_session(&self, v: &Value) -> Option<String> {
        let is_record = match self.dialect {
            Dialect::ClaudeCode => claude_code::is_record(v),
            Dialect::QwenCode => qwen_code::is_record(v),
            _ => false,
        };
        let session = super::agent_log::record_session(v);
        (is_record && v.get("message").is_some() && !session.is_empty()).then_some(session)
    }

    /// This rollout's thread and the threads read as its descendants.
    fn codex_family(&mut self) -> &[String] {
        if self.family.is_empty() {
            if let Some(own) = self.codex.thread() {
                self.family.push(own.to_string());
            }
        }
        &self.family
    }
}

mod lines;
#[cfg(test)]
mod tests;
