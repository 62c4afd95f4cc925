//! One task from two sources (docs/behaviour.md §7 "OpenTelemetry"): where
//! the folders hold a session's transcript and its telemetry file (the
//! receiver names it after the session id, which is the transcript's file
//! stem for Claude Code and qwen-code, and Claude Code's `sessionId`), the
//! board has one task, the transcript's. The telemetry file lists no task
//! of its own: it enriches that task's subagent cards with what only
//! telemetry knows (read by its new lines, `TelemetryRead`), and the task
//! names both files. A
//! session with only telemetry stays its own task; the order the two
//! arrive in makes no difference, nor does a restart.

use super::Sessions;
use crate::backend::{Backend, MessageChange};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::model::telemetry::TelemetryFacts;
use taskview_core::read::import::otlp;

/// What telemetry knows of each card of a session, by its spawning call.
pub(super) type CardFacts = BTreeMap<String, TelemetryFacts>;

/// A joined telemetry file read by its new lines (docs/behaviour.md §7 "All day, any
/// size"): each post costs its own records, not the session's.
#[derive(Default)]
pub(super) struct TelemetryRead {
    /// How far the file has been read, and the bytes of a line not ended yet.
    offset: u64,
    partial: Vec<u8>,
    follow: otlp::Follow,
}

impl TelemetryRead {
    /// Reads what was appended to `path` since the last read: the figures of
    /// the cards it changed. A file that shrank is read again from its start.
    fn read_new(&mut self, path: &Path) -> std::io::Result<CardFacts> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        if len < self.offset {
            *self = TelemetryRead::default();
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut bytes = std::mem::take(&mut self.partial);
        let read = file.take(len - self.offset).read_to_end(&mut bytes)?;
        self.offset += read as u64;
        let ended = bytes
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        self.partial = bytes.split_off(ended);
        for line in String::from_utf8_lossy(&bytes).lines() {
            let line = line.trim();
            if !line.is_empty() {
                self.follow.line(line, &mut |_| {});
            }
        }
        let mut found = CardFacts::new();
        for event in self.follow.drain(None) {
            if let Event::MessageAdded(m) | Event::MessageReplaced(m) = event {
                let facts = m.metadata.subagent.and_then(|task| task.telemetry);
                if let Some(facts) = facts {
                    found.insert(m.id, facts);
                }
            }
        }
        Ok(found)
    }
}

/// The session id a file is named after.
fn stem(path: &Path) -> Option<&str> {
    path.file_stem().and_then(|s| s.to_str())
}

/// What a task whose session has both sources names: both files.
pub(super) fn both_files(transcript: &Path, telemetry: &Path) -> String {
    format!(
        "{} + telemetry {}",
        transcript.display(),
        telemetry.display()
    )
}

/// Gives each subagent message the telemetry figures of its card (by the
/// spawning call's id); the rest are left as they are.
pub(super) fn enrich(messages: &mut [Message], facts: Option<&CardFacts>) {
    let Some(facts) = facts else { return };
    for m in messages {
        if let (Some(task), Some(found)) = (m.metadata.subagent.as_mut(), facts.get(&m.id)) {
            task.telemetry = Some(found.clone());
        }
    }
}

/// [`enrich`] for the changes of a followed transcript.
pub(super) fn enrich_changes(changes: &mut [MessageChange], facts: Option<&CardFacts>) {
    for change in changes {
        if let MessageChange::Put(m) = change {
            enrich(std::slice::from_mut(m.as_mut()), facts);
        }
    }
}

impl Sessions {
    /// The transcript telemetry file `i` belongs to: another session named
    /// after the same session id that is not telemetry itself.
    fn transcript_of(&self, i: usize) -> Option<usize> {
        let key = stem(&self.files[i].path)?;
        (0..self.files.len()).find(|&j| {
            let f = &self.files[j];
            j != i
                && !f.telemetry
                && (stem(&f.path) == Some(key) || f.claude_session_id.as_deref() == Some(key))
        })
    }

    /// The telemetry file of transcript `i`, when one is tracked.
    fn telemetry_of(&self, i: usize) -> Option<usize> {
        let f = &self.files[i];
        let keys = [stem(&f.path), f.claude_session_id.as_deref()];
        (0..self.files.len()).find(|&j| {
            j != i && self.files[j].telemetry && keys.contains(&stem(&self.files[j].path))
        })
    }

    /// Index time, before session `i` is listed: telemetry whose transcript
    /// is tracked joins it and is not listed (true); a transcript takes over
    /// the telemetry of its session that was listed alone. `telemetry`: what
    /// the index read of `i`.
    pub(super) fn join_at_index(&mut self, backend: &Backend, i: usize, telemetry: bool) -> bool {
        self.files[i].telemetry = telemetry;
        if telemetry {
            let Some(t) = self.transcript_of(i) else {
                return false;
            };
            self.join(backend, t, i);
            return true;
        }
        if let Some(j) = self.telemetry_of(i) {
            self.join(backend, i, j);
        }
        false
    }

    /// Makes telemetry file `tel` part of transcript `t`'s task: its
    /// figures are read and given to the transcript's cards. Its own task,
    /// when listed, is handed over to a transcript not listed yet (the
    /// index updates it in place, so a board never sees it go and come
    /// back), else it goes.
    fn join(&mut self, backend: &Backend, t: usize, tel: usize) {
        let hand_over = self.files[tel].listed && !self.files[t].listed;
        let telemetry = &mut self.files[tel];
        if telemetry.listed {
            if !hand_over {
                backend.remove_task(&telemetry.task_id);
            }
            telemetry.listed = false;
            self.listed -= 1;
            tracing::info!(
                "telemetry {} joins its session's transcript",
                telemetry.path.display()
            );
        }
        telemetry.fold = None;
        let path = telemetry.path.clone();
        if hand_over {
            self.swap_ids(t, tel);
        } else {
            self.settle_ids(t, tel);
        }
        self.files[t].joined = Some(path.clone());
        self.files[tel].joined = Some(self.files[t].path.clone());
        self.files[t].telemetry_read = None;
        self.files[t].facts = None;
        self.read_facts(backend, t, &path);
    }

    /// Both files of a session are named after it, so their tasks' ids
    /// differ only by the suffix of the one found second: a transcript not
    /// listed yet takes the plainer id, so its task's id is the same
    /// whichever file was found first (a restart gives the same task).
    fn settle_ids(&mut self, t: usize, tel: usize) {
        let plainer = |a: &str, b: &str| (a.len(), a) < (b.len(), b);
        if self.files[t].listed || !plainer(&self.files[tel].task_id, &self.files[t].task_id) {
            return;
        }
        self.swap_ids(t, tel);
    }

    /// Files `a` and `b` trade their task and session ids.
    fn swap_ids(&mut self, a: usize, b: usize) {
        let (a, b) = (a.min(b), a.max(b));
        let (left, right) = self.files.split_at_mut(b);
        std::mem::swap(&mut left[a].task_id, &mut right[0].task_id);
        std::mem::swap(&mut left[a].session_id, &mut right[0].session_id);
    }

    /// Joined telemetry `tel` changed: reads it again and gives its figures
    /// to its transcript's cards. False when `tel` is no joined telemetry.
    pub(super) fn telemetry_changed(&mut self, backend: &Backend, tel: usize) -> bool {
        let Some(transcript) = self.files[tel]
            .joined
            .clone()
            .filter(|_| self.files[tel].telemetry)
        else {
            return false;
        };
        let Some(t) = self.files.iter().position(|f| f.path == transcript) else {
            return false;
        };
        self.files[tel].seen = self.files[tel].fingerprints(&self.agents);
        let path = self.files[tel].path.clone();
        self.read_facts(backend, t, &path);
        true
    }

    fn read_facts(&mut self, backend: &Backend, t: usize, telemetry: &Path) {
        let reader = self.files[t]
            .telemetry_read
            .get_or_insert_with(Default::default);
        let found = match reader.read_new(telemetry) {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!("cannot read telemetry {}: {e}", telemetry.display());
                return;
            }
        };
        let file = &mut self.files[t];
        if file.listed {
            let description = both_files(&file.path, telemetry);
            if backend
                .task(&file.task_id)
                .is_some_and(|task| task.description != description)
            {
                backend.update_task(&file.task_id, |task| task.description = description);
            }
        }
        if file.fold.is_some() && !found.is_empty() {
            backend.set_subagent_telemetry(&file.session_id, &found);
        }
        file.facts.get_or_insert_with(CardFacts::new).extend(found);
    }

    /// A file of a joined session is gone: telemetry whose transcript went
    /// is listed alone again; a transcript whose telemetry went keeps no figures.
    pub(super) fn unjoin(&mut self, gone: &Path) {
        for f in &mut self.files {
            if f.joined.as_deref() != Some(gone) {
                continue;
            }
            f.joined = None;
            if f.telemetry {
                f.seen = None;
            } else {
                f.facts = None;
                f.telemetry_read = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A captured run's posts as the receiver stores them, one line each.
    fn stored_lines() -> Vec<String> {
        taskview_testkit::captures::otlp_posts("claude-code-2.1.332/parallel-wave")
    }

    #[test]
    fn joined_telemetry_is_read_by_its_new_lines_to_the_whole_file_s_figures() {
        let path = std::env::temp_dir().join(format!("taskview-join-{}.jsonl", std::process::id()));
        let mut file = File::create(&path).unwrap();
        let mut reader = TelemetryRead::default();
        let mut facts = CardFacts::new();
        let lines = stored_lines();
        for line in &lines {
            // Each post lands in two writes, the line's end in the second.
            let (head, tail) = line.split_at(line.len() / 2);
            file.write_all(head.as_bytes()).unwrap();
            facts.extend(reader.read_new(&path).unwrap());
            file.write_all(format!("{tail}\n").as_bytes()).unwrap();
            facts.extend(reader.read_new(&path).unwrap());
        }
        assert_eq!(reader.offset, std::fs::metadata(&path).unwrap().len());
        assert!(reader.read_new(&path).unwrap().is_empty(), "nothing new");
        let whole = otlp::facts(&lines.join("\n")).by_call;
        std::fs::remove_file(&path).unwrap();
        assert_eq!(whole.len(), 4);
        assert_eq!(facts, whole);
    }
}
