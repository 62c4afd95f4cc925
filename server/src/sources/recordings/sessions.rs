//! The sessions of the recordings folders: each listed from the index when
//! found, imported whole when read or when its agent works, followed by
//! bytes while it grows, dropped from memory (least recently read first)
//! past the budget, and removed when its file goes. How a change of one
//! is read and pushed is `live`'s.

mod budget;
#[cfg(test)]
mod budget_tests;
mod card;
mod feed;
mod forks;
mod join;
mod live;
mod naming;
mod reading;
mod tail_first;

use super::index::{self, summarize};
use super::tail::{Fold, Offset};
use super::tasks::{self, follow_work, still_working};
use super::tree::{fingerprint, read_text, BesideAgents, Fingerprints, Listing};
use super::{finished_turns, messages_from_events};
use crate::backend::Backend;
use naming::{companion_name, is_session_data, task_name};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};
use taskview_core::model::event::Event;
use taskview_core::read::import::title::session_title;
use taskview_core::read::import::working::agent_working;
use taskview_core::read::import::{codex, detect, folder};

/// One session of the folders.
struct Tracked {
    /// The watched folder it was found in.
    root: PathBuf,
    path: PathBuf,
    name: String,
    task_id: String,
    session_id: String,
    /// Its file and the files read with it, at their last read.
    seen: Option<Fingerprints>,
    /// The files under its own folder that are read with it.
    own: Vec<PathBuf>,
    /// A fork's: the files under the own folder of the session it was
    /// forked from, where its inherited runs' transcripts are (the importer
    /// reads those of the runs it inherited).
    origin_own: Vec<PathBuf>,
    /// The Claude Code `sessionId` of the file (its beside subagent files carry it too).
    claude_session_id: Option<String>,
    /// Its task is on the board (the file read at least once).
    listed: bool,
    last_growth: Instant,
    /// Whether its agent was working at the last read, when its dialect says.
    working: Option<bool>,
    /// What its newest records said of its agent, before the idle threshold.
    said: Option<bool>,
    /// The card facts the board was last told (`card`).
    card_told: Option<taskview_core::model::card_facts::SessionFacts>,
    /// Whether the app was last told nobody writes its files (`None`: not told).
    still: Option<bool>,
    /// Where the reads of its file and companions stopped.
    offsets: HashMap<PathBuf, Offset>,
    /// Imported whole: its messages are in the backend.
    fold: Option<Fold>,
    /// Only its newest part is imported yet (`tail_first`); its whole read
    /// is wanted.
    partial: bool,
    /// Its file's size, counted against the memory budget while imported.
    bytes: u64,
    /// When its telemetry's spans were folded into its cards (nobody viewed
    /// it past the budget); it is read whole again once someone does.
    folded: Option<Instant>,
    /// Its file is telemetry (OTLP JSON lines), as the index read it.
    telemetry: bool,
    /// The other file of its session (`join`): a transcript's telemetry,
    /// or the transcript telemetry enriches.
    joined: Option<PathBuf>,
    /// What a transcript's telemetry knows of its cards (`join`).
    facts: Option<join::CardFacts>,
    /// Its joined telemetry, read by its new lines (`join`).
    telemetry_read: Option<join::TelemetryRead>,
    /// A Collector's file of many sessions: never listed, fed to the
    /// telemetry store by its new lines (`otlp::Feed`).
    fed: bool,
}

/// The files of a session to read whole.
pub(super) struct Reading {
    root: PathBuf,
    path: PathBuf,
    companions: Vec<PathBuf>,
}

/// A session read whole: its fold, events and title, what its newest
/// records say of its agent, and its files as they were read.
pub(super) struct Whole {
    fold: Fold,
    events: Vec<Event>,
    title: Option<String>,
    said: Option<bool>,
    seen: Fingerprints,
    offsets: HashMap<PathBuf, Offset>,
}

/// The newest modification time among `seen`.
fn newest(seen: &Fingerprints) -> Option<SystemTime> {
    seen.iter().filter_map(|(_, (_, modified))| *modified).max()
}

impl Tracked {
    /// The files read with this session: those under its own folder (and,
    /// for a fork, its origin's), then the subagent transcripts beside it
    /// that name its session.
    fn companions(&self, agents: &BesideAgents) -> Vec<PathBuf> {
        let mut paths = self.own.clone();
        paths.extend(self.origin_own.iter().cloned());
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

    /// What it takes in memory while imported, as the budget counts it: a
    /// telemetry session its card tree, another its file's size.
    fn weight(&self) -> u64 {
        let tree = self.fold.as_ref().and_then(Fold::telemetry_bytes);
        tree.unwrap_or(self.bytes)
    }

    /// The folder of its own files (`<stem>/`).
    fn own_folder(&self) -> PathBuf {
        self.path.with_extension("")
    }
}

/// The sessions of the recordings folders.
pub(super) struct Sessions {
    roots: Vec<PathBuf>,
    files: Vec<Tracked>,
    /// A session's position in `files` by its file and by its own folder.
    by_path: HashMap<PathBuf, usize>,
    slugs: HashSet<String>,
    agents: BesideAgents,
    /// Codex rollouts of spawned threads: each is read with the session
    /// that spawned it, never a task of its own.
    threads: HashSet<PathBuf>,
    /// Bytes of session files that may stay imported with nobody reading them.
    budget: u64,
    /// Sessions listed so far.
    listed: i64,
    /// Sessions listed working, to import once the index is made.
    working: Vec<String>,
    /// Where a Collector's file of many sessions goes, to be listed by session.
    feed: Option<crate::sources::telemetry::Feed>,
    /// Sessions shown from their end first whose whole read is wanted.
    whole_wanted: Vec<String>,
}

impl Sessions {
    pub(super) fn new(roots: &[PathBuf], budget: u64) -> Sessions {
        Sessions {
            roots: roots.to_vec(),
            files: Vec::new(),
            by_path: HashMap::new(),
            slugs: HashSet::new(),
            agents: BesideAgents::default(),
            threads: HashSet::new(),
            budget,
            listed: 0,
            working: Vec::new(),
            feed: None,
            whole_wanted: Vec::new(),
        }
    }

    /// How many sessions are on the board.
    pub(super) fn listed(&self) -> i64 {
        self.listed
    }

    fn reindex(&mut self) {
        self.by_path.clear();
        for (i, f) in self.files.iter().enumerate() {
            self.by_path.insert(f.path.clone(), i);
            self.by_path.insert(f.own_folder(), i);
        }
    }

    /// Walks every folder: follows the subagent files beside the sessions,
    /// and finds new sessions (listed by `index_some`). Returns the sessions
    /// whose companions changed.
    pub(super) fn look(&mut self) -> BTreeSet<usize> {
        let listings: Vec<(PathBuf, Listing)> = self
            .roots
            .iter()
            .map(|root| (root.clone(), Listing::walk(root)))
            .collect();
        self.agents.refresh(listings.iter().map(|(_, l)| l));
        let mut changed = BTreeSet::new();
        for (root, listing) in &listings {
            self.discover(root, listing, &mut changed);
        }
        for (i, f) in self.files.iter().enumerate() {
            let Some(seen) = &f.seen else { continue };
            let read: Vec<&PathBuf> = seen[1..].iter().map(|(p, _)| p).collect();
            let now = f.companions(&self.agents);
            if f.listed && read != now.iter().collect::<Vec<_>>() {
                changed.insert(i);
            }
        }
        self.reindex();
        changed
    }

    /// Starts tracking the sessions of `root` not seen before; keeps each
    /// tracked session's own files up to date.
    fn discover(&mut self, root: &Path, listing: &Listing, changed: &mut BTreeSet<usize>) {
        let sessions = listing.sessions();
        let undecided = self.sort_out_threads(&sessions);
        for (rel, path, own) in sessions {
            let own = self.companions_of(&rel, own);
            if let Some(&i) = self
                .by_path
                .get(&path)
                .filter(|&&i| self.files[i].path == path)
            {
                if self.files[i].own != own {
                    self.files[i].own = own;
                    changed.insert(i);
                }
                continue;
            }
            if self.threads.contains(&path) || undecided.contains(&path) {
                continue;
            }
            let name = task_name(&path);
            let base = tasks::slug(&name);
            let mut unique = base.clone();
            let mut n = 2;
            while !self.slugs.insert(unique.clone()) {
                unique = format!("{base}-{n}");
                n += 1;
            }
            self.by_path.insert(path.clone(), self.files.len());
            self.files.push(Tracked {
                root: root.to_path_buf(),
                path,
                name,
                task_id: format!("rec-{unique}"),
                session_id: format!("sess-rec-{unique}"),
                seen: None,
                own,
                claude_session_id: None,
                listed: false,
                last_growth: Instant::now(),
                working: None,
                said: None,
                card_told: None,
                still: None,
                offsets: HashMap::new(),
                fold: None,
                partial: false,
                origin_own: Vec::new(),
                bytes: 0,
                folded: None,
                telemetry: false,
                joined: None,
                facts: None,
                telemetry_read: None,
                fed: false,
            });
        }
    }

    /// Reads the head of the new Codex rollouts of `sessions` for whose they
    /// are: a spawned thread's joins `threads`. Returns those that do not
    /// say yet (their `session_meta` is not written), looked at again next time.
    fn sort_out_threads(
        &mut self,
        sessions: &[(String, PathBuf, Vec<PathBuf>)],
    ) -> HashSet<PathBuf> {
        let mut undecided = HashSet::new();
        for (rel, path, _) in sessions {
            let new = !self.threads.contains(path) && !self.by_path.contains_key(path);
            if !new || !folder::is_rollout(rel) {
                continue;
            }
            match index::read_head(path)
                .ok()
                .as_deref()
                .and_then(codex::spawned)
            {
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
    /// spawned threads' rollouts beside it.
    fn companions_of(&self, rel: &str, own: Vec<PathBuf>) -> Vec<PathBuf> {
        if !folder::is_rollout(rel) {
            return own;
        }
        own.into_iter()
            .filter(|p| self.threads.contains(p))
            .collect()
    }

    /// Lists up to `max` found sessions not on the board yet; false when
    /// none is left to try. Those whose agent works are imported (their
    /// chips count their running subagents): at once, or with `later` once
    /// the whole index is made (`take_working`), so a long one does not
    /// hold the board back.
    pub(super) fn index_some(&mut self, backend: &Backend, max: usize, later: bool) -> bool {
        let pending: Vec<usize> = (0..self.files.len())
            .filter(|&i| !self.files[i].listed && self.files[i].seen.is_none())
            .take(max)
            .collect();
        for &i in &pending {
            if self.index(backend, i) {
                if later {
                    self.working.push(self.files[i].session_id.clone());
                } else {
                    self.load(backend, i, false);
                }
            }
        }
        !pending.is_empty()
    }

    /// The sessions whose agent works, listed by the index and not imported yet.
    pub(super) fn take_working(&mut self) -> Vec<String> {
        std::mem::take(&mut self.working)
    }

    /// Lists a session from its index summary; true when its agent works
    /// (and it is not imported yet).
    /// A file that does not read is reported and tried again when it changes.
    fn index(&mut self, backend: &Backend, i: usize) -> bool {
        let seen = self.files[i].fingerprints(&self.agents);
        let summary = match summarize(&self.files[i].path) {
            Ok(summary) => summary,
            Err(e) => {
                tracing::warn!("skipping recording {}: {e}", self.files[i].path.display());
                self.files[i].seen = Some(seen.unwrap_or_default());
                return false;
            }
        };
        self.files[i].origin_own = summary
            .fork_origin
            .as_deref()
            .and_then(|origin| self.own_files_of(i, origin))
            .unwrap_or_default();
        let file = &mut self.files[i];
        file.claude_session_id = summary.claude_session_id;
        let seen = file.fingerprints(&self.agents).unwrap_or_default();
        if summary.telemetry && self.is_collector_file(i) {
            // Its sessions are listed from the store; fed again as it grows.
            self.files[i].fed = true;
            self.files[i].seen = Some(seen);
            self.feed(i);
            return false;
        }
        let file = &mut self.files[i];
        if summary.metrics_only {
            // Listed once it holds more than metrics (read again as it grows).
            file.seen = Some(seen);
            return false;
        }
        file.said = summary.said_working;
        file.working = still_working(file.said, newest(&seen), SystemTime::now());
        file.seen = Some(seen);
        if self.join_at_index(backend, i, summary.telemetry) {
            return false;
        }
        let file = &mut self.files[i];
        let title = summary.title.unwrap_or_else(|| file.name.clone());
        let ids = (file.task_id.as_str(), file.session_id.as_str());
        let working = file.working == Some(true);
        // Its telemetry's task, handed over by `join`, is updated in place.
        let handed_over = backend.task(&file.task_id).is_some();
        if !handed_over {
            tasks::add_task(
                backend,
                ids,
                title.clone(),
                &file.path,
                working,
                self.listed,
            );
        }
        let description = match &file.joined {
            Some(telemetry) => join::both_files(&file.path, telemetry),
            None => file.path.display().to_string(),
        };
        file.listed = true;
        self.listed += 1;
        let mut loaded = false;
        if handed_over {
            let session_id = file.session_id.clone();
            if backend.is_resident(&session_id) == Some(true) {
                // Someone may read the telemetry's cards: the transcript's
                // replace them before the board hears of the change.
                self.load(backend, i, false);
                loaded = true;
            } else if !working {
                follow_work(backend, &session_id, false, None);
            }
            let task_id = &self.files[i].task_id;
            tasks::relist_task(backend, task_id, title, description, working);
        } else if file.joined.is_some() {
            backend.update_task(&file.task_id, |task| task.description = description);
        }
        self.tell_still(backend, i, SystemTime::now());
        working && !loaded
    }

    /// Tells the app whether session `i`'s files are still by `now` (docs/behaviour.md
    /// §8: unwritten past the idle threshold), when that changed.
    fn tell_still(&mut self, backend: &Backend, i: usize, now: SystemTime) {
        let file = &mut self.files[i];
        let still = tasks::is_still(file.seen.as_ref().and_then(newest), now);
        if file.listed && file.still != Some(still) {
            file.still = Some(still);
            tasks::tell_still(backend, &file.task_id, still);
            self.tell_card(backend, i);
        }
    }

    /// What reading session `i` whole takes.
    fn reading(&self, i: usize) -> Reading {
        let file = &self.files[i];
        Reading {
            root: file.root.clone(),
            path: file.path.clone(),
            companions: file.companions(&self.agents),
        }
    }

    /// Reads session `i` whole into a new fold (its events and title) and
    /// learns whether its agent works.
    fn read(&mut self, i: usize) -> Result<(Fold, Vec<Event>, Option<String>), String> {
        let whole = self.reading(i).read()?;
        Ok(self.take(i, whole))
    }

    /// Keeps what a whole read of session `i` learned of its files and agent.
    fn take(&mut self, i: usize, whole: Whole) -> (Fold, Vec<Event>, Option<String>) {
        let file = &mut self.files[i];
        file.bytes = whole.seen[0].1 .0;
        file.offsets = whole.offsets;
        file.said = whole.said;
        file.working = still_working(whole.said, newest(&whole.seen), SystemTime::now());
        file.seen = Some(whole.seen);
        file.folded = None;
        (whole.fold, whole.events, whole.title)
    }

    /// Imports a listed session whole into the backend (it was not
    /// resident); drops others past the budget. `grew`: it was imported
    /// because it grew, which is the sign of work when its dialect gives none.
    fn load(&mut self, backend: &Backend, i: usize, grew: bool) {
        match self.read(i) {
            Ok(read) => self.land(backend, i, read, grew),
            Err(e) => tracing::warn!(
                "cannot read recording {}: {e}",
                self.files[i].path.display()
            ),
        }
    }

    /// Puts a whole read of session `i` into the backend.
    fn land(
        &mut self,
        backend: &Backend,
        i: usize,
        (fold, events, title): (Fold, Vec<Event>, Option<String>),
        grew: bool,
    ) {
        let file = &mut self.files[i];
        let mut messages = messages_from_events(events, &file.session_id, &file.task_id);
        join::enrich(&mut messages, file.facts.as_ref());
        let turns = finished_turns(&messages, &file.session_id, &file.task_id);
        tracing::info!(
            "recording {} imported ({} messages)",
            file.name,
            messages.len()
        );
        // A session found mid-turn has that turn active before its messages
        // land, so its task never reads settled while its agent works.
        let working = file.working.unwrap_or(grew);
        let latest_turn = messages.iter().rev().find_map(|m| m.turn_id.clone());
        follow_work(backend, &file.session_id, working, latest_turn);
        if backend.is_resident(&file.session_id) == Some(true) {
            // What was shown of it (its telemetry's cards) changes as announced.
            backend.sync_messages(&file.session_id, messages.clone());
        }
        backend.load_session(&file.session_id, messages, turns);
        tasks::retitle(
            backend,
            &file.task_id,
            title.unwrap_or_else(|| file.name.clone()),
        );
        file.fold = Some(fold);
        self.tell_card(backend, i);
        self.evict(backend, i);
    }

    /// What reading the session `session_id` whole takes, when it is listed
    /// and not imported (read without holding the sessions, then `open`).
    pub(super) fn to_open(&self, session_id: &str) -> Option<Reading> {
        let i = self.files.iter().position(|f| f.session_id == session_id)?;
        let file = &self.files[i];
        (file.listed && file.fold.is_none()).then(|| self.reading(i))
    }

    /// Imports the session `session_id` from its whole read, unless it was
    /// imported meanwhile (the watcher saw it grow).
    pub(super) fn open(
        &mut self,
        backend: &Backend,
        session_id: &str,
        whole: Result<Whole, String>,
    ) {
        let found = self.files.iter().position(|f| f.session_id == session_id);
        let open = |i: &usize| self.files[*i].fold.is_none() || self.files[*i].partial;
        let Some(i) = found.filter(open) else {
            return;
        };
        self.files[i].partial = false;
        match whole {
            Ok(whole) => {
                let read = self.take(i, whole);
                self.land(backend, i, read, false);
            }
            Err(e) => tracing::warn!(
                "cannot read recording {}: {e}",
                self.files[i].path.display()
            ),
        }
    }

    /// Handles a batch of changed paths: the sessions they belong to are
    /// read again; a path of no known session makes a walk of the folders
    /// (a new session, a new subagent file).
    pub(super) fn changed_paths(&mut self, backend: &Backend, paths: &HashSet<PathBuf>) {
        let mut dirty = BTreeSet::new();
        let mut walk = false;
        for path in paths {
            let owner = path.ancestors().find_map(|a| self.by_path.get(a).copied());
            match owner {
                Some(i) if self.files[i].path == *path => {
                    dirty.insert(i);
                }
                Some(i) => {
                    dirty.insert(i);
                    let known = self.files[i].own.contains(path);
                    walk |= !known && is_session_data(path);
                }
                None => match self.agents.session_of(path) {
                    Some(id) => dirty.extend(
                        (0..self.files.len())
                            .filter(|&i| self.files[i].claude_session_id.as_deref() == Some(id)),
                    ),
                    None => walk |= self.roots.iter().any(|r| path.starts_with(r)),
                },
            }
        }
        if walk {
            dirty.extend(self.look());
            self.index_some(backend, usize::MAX, false);
        }
        self.refresh(backend, dirty);
    }

    /// Looks at every session as if all had changed (the slow rescan, and
    /// the way changes are found where notifications do not work).
    pub(super) fn rescan(&mut self, backend: &Backend) {
        let mut dirty = self.look();
        self.index_some(backend, usize::MAX, false);
        for (i, f) in self.files.iter().enumerate() {
            if f.seen.is_some() && f.fingerprints(&self.agents) != f.seen {
                dirty.insert(i);
            }
        }
        self.refresh(backend, dirty);
    }

    /// Reads the `dirty` sessions again; removes those whose file is gone.
    fn refresh(&mut self, backend: &Backend, dirty: BTreeSet<usize>) {
        let mut gone = Vec::new();
        for i in dirty {
            let now = self.files[i].fingerprints(&self.agents);
            let Some(now) = now else {
                gone.push(i);
                continue;
            };
            if self.files[i].fed {
                // Its new lines alone, not summarized again.
                if Some(&now) != self.files[i].seen.as_ref() {
                    self.files[i].seen = Some(now);
                    self.feed(i);
                }
                continue;
            }
            if !self.files[i].listed {
                if Some(&now) != self.files[i].seen.as_ref() && self.telemetry_changed(backend, i) {
                    continue;
                }
                if self.files[i].telemetry && self.files[i].joined.is_some() {
                    continue;
                }
                self.files[i].seen = None;
                if self.index(backend, i) {
                    self.load(backend, i, false);
                }
                continue;
            }
            if Some(&now) == self.files[i].seen.as_ref() {
                continue;
            }
            self.files[i].last_growth = Instant::now();
            self.grow(backend, i, now);
        }
        for &i in gone.iter().rev() {
            let f = self.files.remove(i);
            tracing::info!("recording {} is gone", f.path.display());
            if f.listed {
                backend.remove_task(&f.task_id);
                self.listed -= 1;
            }
            self.unjoin(&f.path);
        }
        if !gone.is_empty() {
            self.reindex();
        }
    }
}
