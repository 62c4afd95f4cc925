//! A session forked from another (`claude -p --resume S --fork-session`,
//! qwen-code `--fork-session`): its file starts with a copy of S's records
//! (docs/behaviour.md §4, docs/formats.md). The copies end in a quiet row,
//! `Forked from <S's title> · <time>`, before the fork's own first record;
//! the cards the copies hold are S's runs (`metadata.inherited_from: S`):
//! their transcripts lie under S's folder, and they never count as running
//! here (S counts them).
//!
//! A copy is known by its dialect's mark (`Dialect::copied_from`: Claude
//! Code's `requestSessionId` on a copied assistant record, qwen-code's
//! `forkedFrom` on every copied record) or, for Claude Code's unmarked copied
//! user records, by its time: copies were written in S's run, before the
//! fork's run began (its first timestamped record before any conversation,
//! the queued prompt), or at the latest with the last marked copy.

use super::super::build::{Row, RowKind, Stamp};
use super::super::jsonl::Reading;
use super::super::title::{one_line, prompt_line};
use super::{Fold, Owner};
use crate::model::time::parse_rfc3339;

/// The `metadata.event` of the fork row, and the card key naming the
/// session an inherited run came from.
pub(crate) const FORK: &str = "fork";
pub(crate) const INHERITED_FROM: &str = "inherited_from";

/// What the fold knows of the session it may be a fork of.
#[derive(Default)]
pub(crate) struct ForkCopy {
    /// The session the copies came from, once a marked copy was read.
    origin: Option<String>,
    /// When this run began: the first timestamped record before any
    /// conversation.
    run_start: Option<i128>,
    conversation_seen: bool,
    /// Conversation records of the main agent read before any copy.
    unmarked: usize,
    /// The latest marked copy's time.
    last_copy: Option<i128>,
    /// The fork row is in place.
    boundary: bool,
    /// The first prompt of the main conversation (the copies': S's title).
    first_prompt: String,
    /// The record being read is a copy of the origin's.
    pub(crate) copying: bool,
    /// Every main record read now is a copy of this session's (Codex: the
    /// origin's own rollout, read up to where the fork began).
    pub(crate) copy_all: Option<String>,
}

impl ForkCopy {
    /// The session this one was forked from, once known.
    pub(crate) fn origin(&self) -> Option<&str> {
        self.origin.as_deref()
    }

    /// True once the session is known not to be a fork: two conversation
    /// records without a copy's mark (a Claude Code fork's first marked copy
    /// comes after its first prompt), or its own records after the copies.
    pub(crate) fn decided(&self) -> bool {
        match self.origin {
            Some(_) => self.boundary,
            None => self.unmarked >= 2,
        }
    }

    /// Notes the main conversation's first prompt (S's, in a fork).
    pub(crate) fn prompt(&mut self, text: &str) {
        if self.first_prompt.is_empty() {
            self.first_prompt = text.to_string();
        }
    }
}

impl Fold {
    /// Before a main-conversation record is read: whether it is a copy of
    /// the origin's (`marked`: the dialect's mark names the origin), and the
    /// fork row before the first record that is not.
    pub(crate) fn fork_before(&mut self, owner: &Owner, marked: Option<String>, stamp: &Stamp) {
        let fork = &mut self.fork;
        fork.copying = false;
        if *owner != Owner::Main {
            return;
        }
        let time = parse_rfc3339(&stamp.created_at);
        if let Some(origin) = marked.or_else(|| fork.copy_all.clone()) {
            fork.origin = Some(origin);
            fork.last_copy = time.max(fork.last_copy);
            fork.copying = true;
            return;
        }
        let Some(origin) = fork.origin.clone() else {
            return;
        };
        let threshold = fork.run_start.or(fork.last_copy);
        let copied = time.zip(threshold).is_some_and(|(t, limit)| {
            if fork.run_start.is_some() {
                t < limit
            } else {
                t <= limit
            }
        });
        if copied || fork.boundary || time.is_none() {
            fork.copying = copied;
            return;
        }
        fork.boundary = true;
        let title = one_line(prompt_line(&fork.first_prompt)).unwrap_or_else(|| origin.clone());
        let text = match super::session_events::clock_time(&stamp.created_at) {
            Some(at) => format!("Forked from {title} · {at}"),
            None => format!("Forked from {title}"),
        };
        let mut row = Row::new("", RowKind::Status, &text, stamp);
        row.extra.insert("event".into(), FORK.into());
        row.extra.insert("origin".into(), origin.into());
        let uuid = std::mem::take(&mut self.record_uuid);
        self.record_uuid = format!("fork-{uuid}");
        self.push_row(&Owner::Main, row);
        self.record_uuid = uuid;
    }

    /// After a main-conversation record was read: the run's start is the
    /// first time before any conversation.
    pub(crate) fn fork_after(&mut self, owner: &Owner, reading: Reading, stamp: &Stamp) {
        let fork = &mut self.fork;
        if *owner != Owner::Main {
            return;
        }
        if reading == Reading::Conversation && fork.origin.is_none() {
            fork.unmarked += 1;
        }
        if fork.conversation_seen {
            return;
        }
        if reading == Reading::Conversation {
            fork.conversation_seen = true;
        } else if fork.run_start.is_none() {
            fork.run_start = parse_rfc3339(&stamp.created_at);
        }
    }
}
