//! One session as the backend keeps it: messages in arrival order with
//! their positions, turns, and the active turn.

use std::collections::HashMap;
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::model::status;
use taskview_core::read::protocol::{SessionDto, TurnDto};

pub(super) struct Session {
    pub(super) info: SessionDto,
    pub(super) messages: Vec<Message>,
    pub(super) positions: HashMap<String, usize>,
    pub(super) turns: Vec<TurnDto>,
    pub(super) active_turn: Option<String>,
    pub(super) derive_activity: bool,
    /// When its last running subagent settled while its agent rested: the
    /// task stays in progress until [`Backend::release_settle_holds`]
    /// (`crate::backend::Backend`) lets it settle.
    pub(super) settle_hold: Option<std::time::Instant>,
    /// Its messages are in memory; false while it is only listed (a
    /// recording indexed but not imported, or dropped to save memory).
    pub(super) resident: bool,
    /// When it was last read (a page of messages, its turns, a subscription).
    pub(super) last_read: std::time::Instant,
    /// The ids of its subagents that may be running (whether or not their
    /// turn is active): the only ones the running count looks at, so a
    /// change costs the same in a long session full of settled subagents.
    unsettled: std::collections::HashSet<String>,
}

impl Session {
    /// An empty session described by `info`.
    pub(super) fn new(info: SessionDto, derive_activity: bool) -> Session {
        Session {
            info,
            messages: Vec::new(),
            positions: HashMap::new(),
            turns: Vec::new(),
            active_turn: None,
            derive_activity,
            settle_hold: None,
            resident: true,
            last_read: std::time::Instant::now(),
            unsettled: std::collections::HashSet::new(),
        }
    }

    /// Inserts or replaces a message, re-homed into this session; true when
    /// it is new.
    pub(super) fn upsert(&mut self, mut m: Message) -> bool {
        self.rehome(&mut m);
        if may_run(&m) {
            self.unsettled.insert(m.id.clone());
        } else {
            self.unsettled.remove(&m.id);
        }
        match self.positions.get(&m.id) {
            Some(&p) => {
                self.messages[p] = m;
                false
            }
            None => {
                self.positions.insert(m.id.clone(), self.messages.len());
                self.messages.push(m);
                true
            }
        }
    }

    /// A message in this session carries this session's and task's ids.
    /// Puts `m`, re-homed into this session: the event that announces it
    /// (`MessageAdded` or `MessageUpdated`), or `None` when it is stored
    /// exactly so already.
    pub(super) fn put(&mut self, mut m: Message) -> Option<Event> {
        self.rehome(&mut m);
        let unchanged = self
            .positions
            .get(&m.id)
            .is_some_and(|&p| self.messages[p] == m);
        if unchanged {
            return None;
        }
        Some(if self.upsert(m.clone()) {
            Event::MessageAdded(m)
        } else {
            Event::MessageUpdated(m.into())
        })
    }

    pub(super) fn rehome(&self, m: &mut Message) {
        m.session_id.clone_from(&self.info.id);
        m.task_id.clone_from(&self.info.task_id);
    }

    pub(super) fn remove(&mut self, id: &str) -> Option<Message> {
        let p = self.positions.remove(id)?;
        self.unsettled.remove(id);
        let removed = self.messages.remove(p);
        for m in &self.messages[p..] {
            if let Some(q) = self.positions.get_mut(&m.id) {
                *q -= 1;
            }
        }
        Some(removed)
    }

    pub(super) fn upsert_turn(&mut self, turn: TurnDto) {
        match self.turns.iter_mut().find(|t| t.id == turn.id) {
            Some(t) => *t = turn,
            None => self.turns.push(turn),
        }
    }

    /// Subagents whose cards show a spinner: core's one running rule.
    pub(super) fn running_subagents(&self) -> u64 {
        let active = self.active_turn.as_deref();
        let running = self
            .unsettled
            .iter()
            .filter_map(|id| self.positions.get(id).map(|&p| &self.messages[p]))
            .filter(|m| status::is_running_subagent(m, active));
        running.count() as u64
    }

    pub(super) fn dto(&self) -> SessionDto {
        SessionDto {
            message_count: self.messages.len() as u64,
            ..self.info.clone()
        }
    }
}

impl Session {
    /// Lets go of the messages and turns (the session stays listed, not resident).
    pub(super) fn forget(&mut self) {
        self.messages = Vec::new();
        self.positions = HashMap::new();
        self.turns = Vec::new();
        self.unsettled = std::collections::HashSet::new();
        self.resident = false;
    }
}

/// Whether `m` is a subagent that runs with its turn active or without it:
/// one that runs in neither has settled for good.
fn may_run(m: &Message) -> bool {
    m.is_subagent_payload()
        && (status::message_run_state(m, true).is_running()
            || status::message_run_state(m, false).is_running())
}
