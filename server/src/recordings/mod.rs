//! Recordings: every session of a folder becomes a task with one session,
//! read by taskview-core's importers (the code the browser uses). The folder
//! may be flat or a tree laid out like `~/.claude/projects` (see `tree`). A
//! task is titled by its session's own title (a Claude Code rename or
//! `summary`, else its first prompt on one line), else its file name. A
//! file that cannot be read is reported and skipped, never fatal; it is
//! tried again when it changes. A file that grows is tailed: new and changed
//! messages are pushed live, the growth counts as an active turn (so its
//! subagents run and the board chip moves), and the turn completes once the
//! file has been quiet for a while.
//!
//! Claude Code subagent transcripts (`agent-<id>.jsonl`), their sidecars
//! and workflow runs are not tasks of their own: they are read with the
//! session they belong to (reference/dialects.md §2.1, §7), the ones under
//! `<session file stem>/` and the ones beside the sessions whose records
//! carry that session's `sessionId`; compaction helpers are skipped. A new,
//! changed or removed one re-reads its session.

mod tree;

use crate::clock;
use crate::shutdown::Shutdown;
use crate::state::{session_state, task_state, Backend, NewSession};
use serde_json::json;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use taskview_core::model::event::Event;
use taskview_core::model::message::{Author, Message, MessageType, Metadata};
use taskview_core::read::import::title::session_title;
use taskview_core::read::import::working::agent_working;
use taskview_core::read::import::{
    claude_code, codex, detect, folder, import_any_with_files, Dialect,
};
use taskview_core::read::protocol::{StepDto, TaskDto, TurnDto, WorkflowDto};
use taskview_core::state::store::{EntryId, Store};
use tokio::task::JoinHandle;

use tree::{fingerprint, read_text, BesideAgents, Fingerprint, Fingerprints, Listing};

/// The recordings board.
const WORKFLOW_ID: &str = "wf-recordings";
const STEP_ID: &str = "step-recordings";

/// Reads one recording into events, whatever its dialect (detected from
/// content by the importers the browser uses). `files` are the files that
/// belong to it, `(relative path, contents)`: a Claude Code session's
/// subagent transcripts.
pub fn import_recording(text: &str, files: &[(&str, &str)]) -> Result<Vec<Event>, String> {
    import_any_with_files(text, files)
        .map(|import| import.events)
        .map_err(|e| e.to_string())
}

/// Folds importer events into a session's messages through the core store
/// (its merge rules, SPEC.md §1.1), in display order. Every message is
/// re-homed into `session_id`/`task_id`; an unreadable element becomes a
/// visible `error` message `unreadable-<n>` quoting its text.
pub fn messages_from_events(events: Vec<Event>, session_id: &str, task_id: &str) -> Vec<Message> {
    let mut store = Store::new();
    store.apply_all(events);
    let mut messages: Vec<Message> = store
        .entries()
        .filter_map(|(_, entry)| match entry {
            EntryId::Message(id) => store.message(id).cloned(),
            EntryId::Unreadable(seq) => store
                .unreadable(*seq)
                .map(|u| unreadable(u.seq, &u.raw, &u.error)),
        })
        .collect();
    for m in &mut messages {
        m.session_id = session_id.to_string();
        m.task_id = task_id.to_string();
    }
    messages
}

fn unreadable(n: u64, raw: &str, error: &str) -> Message {
    Message {
        id: format!("unreadable-{n}"),
        author: Author::Agent,
        kind: MessageType::Error,
        content: format!("Unreadable message in the recording: {error}\n\n{raw}"),
        metadata: Metadata::from_value(&json!({ "unreadable": true, "raw": raw })),
        ..Message::default()
    }
}

/// One finished turn per distinct `turn_id`, from its first to its last message.
pub fn finished_turns(messages: &[Message], session_id: &str, task_id: &str) -> Vec<TurnDto> {
    let mut turns: Vec<TurnDto> = Vec::new();
    for m in messages {
        let Some(turn_id) = &m.turn_id else {
            continue;
        };
        let last = std::cmp::max(&m.updated_at, &m.created_at).clone();
        match turns.iter_mut().find(|t| &t.id == turn_id) {
            Some(t) => {
                t.completed_at = Some(last.clone());
                t.updated_at = last;
            }
            None => turns.push(TurnDto {
                id: turn_id.clone(),
                session_id: session_id.to_string(),
                task_id: task_id.to_string(),
                started_at: m.created_at.clone(),
                completed_at: Some(last.clone()),
                created_at: m.created_at.clone(),
                updated_at: last,
            }),
        }
    }
    turns
}

/// Loads a finished transcript into an existing session.
pub fn load_transcript(
    backend: &Backend,
    session_id: &str,
    task_id: &str,
    text: &str,
) -> Result<(), String> {
    let messages = messages_from_events(import_recording(text, &[])?, session_id, task_id);
    for turn in finished_turns(&messages, session_id, task_id) {
        backend.record_turn(session_id, turn);
    }
    backend.sync_messages(session_id, messages);
    Ok(())
}

/// `rec-<slug of the file name>`: lower-case letters and digits, `-` between.
fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "file".into()
    } else {
        out.into()
    }
}

/// One session of the folder.
struct Tracked {
    /// The watched folder it was found in.
    root: PathBuf,
    path: PathBuf,
    name: String,
    task_id: String,
    session_id: String,
    seen: Option<Fingerprints>,
    /// The files under its own folder that are read with it.
    own: Vec<PathBuf>,
    /// The Claude Code `sessionId` of the file, when it is a Claude Code
    /// session that names one (its beside subagent files carry it too).
    claude_session_id: Option<String>,
    /// The task exists (the file was readable at least once).
    loaded: bool,
    last_growth: Instant,
    /// Whether its agent was working at the last read, when its dialect says
    /// (`import::working`); `None`: judged by whether the file grows.
    working: Option<bool>,
}

/// What reading a session gave: its events, the fingerprints of what was
/// read, its own title, and whether its agent is working (when the dialect
/// says).
struct Read {
    events: Vec<Event>,
    seen: Fingerprints,
    title: Option<String>,
    working: Option<bool>,
}

impl Tracked {
    /// The files read with this session: those under its own folder, then
    /// the subagent transcripts beside it that name its session.
    fn companions(&self, agents: &BesideAgents) -> Vec<PathBuf> {
        let mut paths = self.own.clone();
        if let Some(id) = &self.claude_session_id {
            paths.extend(agents.of_session(id).cloned());
        }
        paths
    }

    /// The fingerprints of the file and its companions as they are now;
    /// `None` while the file itself cannot be looked at.
    fn fingerprints(&self, agents: &BesideAgents) -> Option<Fingerprints> {
        let mut seen = vec![(self.path.clone(), fingerprint(&self.path).ok()?)];
        for path in self.companions(agents) {
            if let Ok(f) = fingerprint(&path) {
                seen.push((path, f));
            }
        }
        Some(seen)
    }

    /// Reads the file and its companions (each fingerprinted before it is
    /// read) and imports them. Learns the file's Claude Code session id
    /// first, which says which beside files are its own.
    fn read(&mut self, agents: &BesideAgents) -> Result<Read, String> {
        let mut seen = vec![(
            self.path.clone(),
            fingerprint(&self.path).map_err(|e| e.to_string())?,
        )];
        let text = read_text(&self.path)?;
        let dialect = detect(&text);
        self.claude_session_id = if dialect == Some(Dialect::ClaudeCode) {
            claude_code::session_id(&text)
        } else {
            None
        };
        let mut files: Vec<(String, String)> = Vec::new();
        for path in self.companions(agents) {
            let Ok(f) = fingerprint(&path) else {
                continue;
            };
            seen.push((path.clone(), f));
            match read_text(&path) {
                Ok(child) => {
                    let name = path.strip_prefix(&self.root).unwrap_or(&path);
                    files.push((name.to_string_lossy().into_owned(), child));
                }
                Err(e) => tracing::warn!("skipping subagent file {}: {e}", path.display()),
            }
        }
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let events = import_recording(&text, &files)?;
        let title = session_title(&text, &events);
        let said = dialect.and_then(|d| agent_working(d, &text));
        let working = still_working(said, &seen, SystemTime::now());
        Ok(Read {
            events,
            seen,
            title,
            working,
        })
    }
}

/// The folders, for people: `a, b`.
fn shown(roots: &[PathBuf]) -> String {
    let names: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    names.join(", ")
}

/// Keeps a session's active turn in step with its agent: while `working`, the
/// turn of its newest message (`turn`, else the active one, else a fresh
/// `live-…`) is active; otherwise no turn is. The backend derives the task's
/// state and chip from that and the running subagents.
fn follow_work(backend: &Backend, session_id: &str, working: bool, turn: Option<String>) {
    let active = backend.active_turn(session_id);
    if !working {
        if active.is_some() {
            backend.complete_turn(session_id, &clock::now(), None);
        }
        return;
    }
    let wanted = turn
        .or_else(|| active.clone())
        .unwrap_or_else(|| format!("live-{}", clock::now()));
    if active.as_deref() != Some(wanted.as_str()) {
        backend.start_turn(session_id, &wanted, &clock::now());
    }
}

/// The recordings folders and what was made of each file.
pub struct Folder {
    roots: Vec<PathBuf>,
    files: Vec<Tracked>,
    slugs: HashSet<String>,
    agents: BesideAgents,
    /// Codex rollouts of spawned threads: each is read with the session
    /// that spawned it, never a task of its own.
    threads: HashSet<PathBuf>,
}

/// A session whose files nobody has written for this long is not worked on,
/// whatever its last record says: its agent stopped without ending the turn
/// (killed, crashed). A model reply or a long command writes sooner than this.
const ABANDONED_AFTER: Duration = Duration::from_secs(10 * 60);

/// Whether the agent of a session is working: what its dialect says
/// (`said`), unless its files (`seen`) have not been written for
/// `ABANDONED_AFTER` by `now`.
fn still_working(
    said: Option<bool>,
    seen: &[(PathBuf, Fingerprint)],
    now: SystemTime,
) -> Option<bool> {
    let newest = seen.iter().filter_map(|(_, (_, modified))| *modified).max();
    let abandoned = newest
        .and_then(|t| now.duration_since(t).ok())
        .is_some_and(|quiet| quiet >= ABANDONED_AFTER);
    said.map(|working| working && !abandoned)
}

/// How long a tailed file must be quiet before its turn completes.
fn quiet_after(poll: Duration) -> Duration {
    (poll * 6).max(Duration::from_millis(500))
}

impl Folder {
    /// Creates the board and loads every readable file now; reports the
    /// others and keeps watching them.
    pub fn load(backend: &Backend, roots: &[PathBuf]) -> Folder {
        let now = clock::now();
        backend.add_workflow(
            WorkflowDto {
                id: WORKFLOW_ID.into(),
                workspace_id: "ws-recordings".into(),
                name: format!("Recordings in {}", shown(roots)),
                sort_order: 0,
                created_at: now.clone(),
                updated_at: now,
            },
            vec![StepDto {
                id: STEP_ID.into(),
                workflow_id: WORKFLOW_ID.into(),
                name: "Recorded".into(),
                is_start_step: true,
                ..StepDto::default()
            }],
        );
        let mut folder = Folder {
            roots: roots.to_vec(),
            files: Vec::new(),
            slugs: HashSet::new(),
            agents: BesideAgents::default(),
            threads: HashSet::new(),
        };
        folder.look(backend);
        folder
    }

    fn loaded_count(&self) -> i64 {
        self.files.iter().filter(|f| f.loaded).count() as i64
    }

    /// Walks every folder: follows the subagent files beside the sessions,
    /// and discovers new sessions.
    fn look(&mut self, backend: &Backend) {
        let listings: Vec<(PathBuf, Listing)> = self
            .roots
            .iter()
            .map(|root| (root.clone(), Listing::walk(root)))
            .collect();
        self.agents.refresh(listings.iter().map(|(_, l)| l));
        for (root, listing) in &listings {
            self.discover(backend, root, listing);
        }
    }

    /// Starts tracking the sessions of `root` not seen before, loading those
    /// that read; keeps each tracked session's own files up to date.
    fn discover(&mut self, backend: &Backend, root: &Path, listing: &Listing) {
        let sessions = listing.sessions();
        let undecided = self.sort_out_threads(&sessions);
        for (rel, path, own) in sessions {
            let own = self.companions(&rel, own);
            if let Some(known) = self.files.iter_mut().find(|f| f.path == path) {
                known.own = own;
                continue;
            }
            if self.threads.contains(&path) || undecided.contains(&path) {
                continue;
            }
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let base = slug(&name);
            let mut unique = base.clone();
            let mut n = 2;
            while !self.slugs.insert(unique.clone()) {
                unique = format!("{base}-{n}");
                n += 1;
            }
            let mut file = Tracked {
                root: root.to_path_buf(),
                path,
                name,
                task_id: format!("rec-{unique}"),
                session_id: format!("sess-rec-{unique}"),
                seen: None,
                own,
                claude_session_id: None,
                loaded: false,
                last_growth: Instant::now(),
                working: None,
            };
            file.seen = file.fingerprints(&self.agents);
            let position = self.loaded_count();
            Folder::first_load(backend, &mut file, &self.agents, position);
            self.files.push(file);
        }
    }

    /// Reads the new Codex rollouts of `sessions` for whose they are: a
    /// spawned thread's joins `threads`. Returns those that do not say yet
    /// (their `session_meta` is not written), looked at again next time.
    fn sort_out_threads(
        &mut self,
        sessions: &[(String, PathBuf, Vec<PathBuf>)],
    ) -> HashSet<PathBuf> {
        let mut undecided = HashSet::new();
        for (rel, path, _) in sessions {
            let new = !self.threads.contains(path) && !self.files.iter().any(|f| &f.path == path);
            if !new || !folder::is_rollout(rel) {
                continue;
            }
            match read_text(path).ok().as_deref().and_then(codex::spawned) {
                None => {
                    undecided.insert(path.clone());
                }
                Some(true) => {
                    self.threads.insert(path.clone());
                }
                Some(false) => {}
            }
        }
        undecided
    }

    /// The files read with session `rel`: for a Codex rollout, only the
    /// spawned threads' rollouts beside it (not the day's other sessions,
    /// whose writes would re-read it for nothing).
    fn companions(&self, rel: &str, own: Vec<PathBuf>) -> Vec<PathBuf> {
        if !folder::is_rollout(rel) {
            return own;
        }
        own.into_iter()
            .filter(|p| self.threads.contains(p))
            .collect()
    }

    /// Creates the task of a file that reads (at board `position`);
    /// reports one that does not.
    fn first_load(backend: &Backend, file: &mut Tracked, agents: &BesideAgents, position: i64) {
        let (events, title) = match file.read(agents) {
            Ok(read) => {
                file.seen = Some(read.seen);
                file.working = read.working;
                (read.events, read.title)
            }
            Err(e) => {
                tracing::warn!("skipping recording {}: {e}", file.path.display());
                return;
            }
        };
        let now = clock::now();
        let task = TaskDto {
            id: file.task_id.clone(),
            workspace_id: "ws-recordings".into(),
            workflow_id: WORKFLOW_ID.into(),
            workflow_step_id: STEP_ID.into(),
            title: title.unwrap_or_else(|| file.name.clone()),
            description: file.path.display().to_string(),
            state: match file.working {
                Some(true) => task_state::IN_PROGRESS,
                _ => task_state::COMPLETED,
            }
            .into(),
            priority: "medium".into(),
            position,
            wip_admitted: true,
            created_at: now.clone(),
            updated_at: now,
            ..TaskDto::default()
        };
        let session = NewSession {
            id: file.session_id.clone(),
            state: session_state::WAITING_FOR_INPUT.into(),
            derive_activity: true,
        };
        backend.add_task(task, Some(session));
        let messages = messages_from_events(events, &file.session_id, &file.task_id);
        for turn in finished_turns(&messages, &file.session_id, &file.task_id) {
            backend.record_turn(&file.session_id, turn);
        }
        tracing::info!(
            "recording {} → task {} ({} messages)",
            file.name,
            file.task_id,
            messages.len()
        );
        // A session found mid-turn has that turn active before its messages
        // land, so its task never reads settled while its agent works.
        if file.working == Some(true) {
            let latest_turn = messages.iter().rev().find_map(|m| m.turn_id.clone());
            follow_work(backend, &file.session_id, true, latest_turn);
        }
        backend.sync_messages(&file.session_id, messages);
        file.loaded = true;
    }

    /// Re-reads a loaded file that changed (or whose subagent files did)
    /// and pushes the difference.
    fn tail(backend: &Backend, file: &mut Tracked, agents: &BesideAgents) {
        let (mut events, title) = match file.read(agents) {
            Ok(read) => {
                file.seen = Some(read.seen);
                file.working = read.working;
                (read.events, read.title)
            }
            Err(e) => {
                tracing::warn!("recording {} is unreadable now: {e}", file.path.display());
                return;
            }
        };
        // A half-written last element is still being written: wait for it.
        while matches!(events.last(), Some(Event::Unreadable { .. })) {
            events.pop();
        }
        let messages = messages_from_events(events, &file.session_id, &file.task_id);
        let known: HashSet<String> = backend
            .message_ids(&file.session_id)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let fresh_turn = messages
            .iter()
            .rev()
            .find(|m| !known.contains(&m.id))
            .map(|m| m.turn_id.clone());
        let latest_turn = messages.iter().rev().find_map(|m| m.turn_id.clone());
        // A turn starts before its messages land and ends after them, so a
        // call awaiting its result counts as running throughout (its running
        // state depends on the active turn) and the chip never dips.
        match file.working {
            Some(true) => follow_work(backend, &file.session_id, true, latest_turn),
            Some(false) => {}
            // Growth is the only sign of work: new messages start (or go on
            // with) their turn; quiet ends it (`Folder::poll`).
            None => {
                if let Some(turn) = fresh_turn {
                    follow_work(backend, &file.session_id, true, turn);
                }
            }
        }
        backend.sync_messages(&file.session_id, messages);
        if file.working == Some(false) {
            follow_work(backend, &file.session_id, false, None);
        }
        // The session named itself (a rename, a summary) or got its first prompt.
        let title = title.unwrap_or_else(|| file.name.clone());
        if backend
            .task(&file.task_id)
            .is_some_and(|t| t.title != title)
        {
            backend.update_task(&file.task_id, |t| t.title = title);
        }
    }

    /// One look at the folder: new files, changed files (a session's
    /// subagent files included), quiet files.
    fn poll(&mut self, backend: &Backend, poll: Duration) {
        self.look(backend);
        for i in 0..self.files.len() {
            let now_seen = self.files[i].fingerprints(&self.agents);
            let changed = now_seen.is_some() && now_seen != self.files[i].seen;
            if changed {
                self.files[i].seen = now_seen;
                if self.files[i].loaded {
                    self.files[i].last_growth = Instant::now();
                    Folder::tail(backend, &mut self.files[i], &self.agents);
                } else {
                    let position = self.loaded_count();
                    Folder::first_load(backend, &mut self.files[i], &self.agents, position);
                }
                continue;
            }
            let file = &mut self.files[i];
            if file.loaded && file.working == Some(true) {
                let seen = file.seen.as_deref().unwrap_or_default();
                file.working = still_working(file.working, seen, SystemTime::now());
                if file.working == Some(false) {
                    follow_work(backend, &file.session_id, false, None);
                }
            }
            let quiet = file.last_growth.elapsed() >= quiet_after(poll);
            let growth_tells = file.working.is_none();
            if file.loaded
                && growth_tells
                && quiet
                && backend.active_turn(&file.session_id).is_some()
            {
                backend.complete_turn(&file.session_id, &clock::now(), None);
            }
        }
        // Read once more since a last subagent settled: its notification
        // would have woken its agent by now.
        backend.release_settle_holds(poll);
    }

    /// Watches the folder every `poll` until shutdown.
    pub fn spawn_tail(
        mut self,
        backend: &Arc<Backend>,
        poll: Duration,
        shutdown: &Shutdown,
    ) -> JoinHandle<()> {
        let backend = Arc::clone(backend);
        let mut shutdown = shutdown.clone();
        tokio::spawn(async move {
            while shutdown.sleep(poll).await {
                self.poll(&backend, poll);
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_nobody_writes_for_ten_minutes_is_not_worked_on() {
        let now = SystemTime::now();
        let written = |ago: u64| {
            vec![(
                PathBuf::from("s.jsonl"),
                (1, Some(now - Duration::from_secs(ago))),
            )]
        };
        assert_eq!(still_working(Some(true), &written(5), now), Some(true));
        assert_eq!(still_working(Some(true), &written(599), now), Some(true));
        assert_eq!(still_working(Some(true), &written(600), now), Some(false));
        assert_eq!(still_working(Some(false), &written(5), now), Some(false));
        assert_eq!(still_working(None, &written(900), now), None);
        // The newest of its files counts: a subagent still writing keeps it.
        let mut seen = written(900);
        seen.extend(written(3));
        assert_eq!(still_working(Some(true), &seen, now), Some(true));
    }

    #[test]
    fn slugs_are_readable_and_safe() {
        assert_eq!(slug("Session Review-Wave.json"), "session-review-wave-json");
        assert_eq!(slug("__.json"), "json");
        assert_eq!(slug("***"), "file");
    }

    #[test]
    fn events_fold_into_rehomed_messages_in_order() {
        let events = import_recording(
            r#"[{"id":"a","session_id":"x","turn_id":"t1","created_at":"1","updated_at":"2"},
                 17,
                 {"id":"b","turn_id":"t2","created_at":"3","updated_at":"3"},
                 {"id":"a","content":"again","turn_id":"t1","created_at":"1","updated_at":"4"}]"#,
            &[],
        )
        .unwrap();
        let messages = messages_from_events(events, "s", "t");
        let ids: Vec<&str> = messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!((ids[0], ids[2]), ("a", "b"));
        assert!(ids[1].starts_with("unreadable-"), "{ids:?}");
        // Ids are stable when the file grows.
        let again = import_recording(r#"[{"id":"a"}, 17, {"id":"b"}, {"id":"c"}]"#, &[]).unwrap();
        let grown = messages_from_events(again, "s", "t");
        assert_eq!(grown[1].id, ids[1]);
        assert_eq!(messages[0].content, "again");
        assert!(messages
            .iter()
            .all(|m| m.session_id == "s" && m.task_id == "t"));
        assert_eq!(messages[1].kind, MessageType::Error);
        assert!(messages[1].content.contains("17"));

        let turns = finished_turns(&messages, "s", "t");
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].started_at, "1");
        assert_eq!(turns[0].completed_at.as_deref(), Some("4"));
    }

    #[test]
    fn updates_and_deletes_from_richer_importers_are_folded() {
        let added = Message::from_value(&json!({"id": "m", "content": "one"})).unwrap();
        let patch = taskview_core::model::message::MessagePatch {
            id: "m".into(),
            content: Some("two".into()),
            ..Default::default()
        };
        let orphan = taskview_core::model::message::MessagePatch {
            id: "n".into(),
            content: Some("new".into()),
            ..Default::default()
        };
        let events = vec![
            Event::MessageAdded(added),
            Event::MessageUpdated(patch),
            Event::MessageUpdated(orphan),
            Event::MessageDeleted { id: "m".into() },
        ];
        let messages = messages_from_events(events, "s", "t");
        assert_eq!(messages.len(), 1);
        assert_eq!(
            (messages[0].id.as_str(), messages[0].content.as_str()),
            ("n", "new")
        );
    }
}
