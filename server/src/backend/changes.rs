//! Changes to some of a session's messages (a followed recording's new
//! records), announced together.

use super::Backend;
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;

/// A change to one message.
#[derive(Debug)]
pub enum MessageChange {
    /// Added, or replaced whole when its id is known.
    Put(Box<Message>),
    /// Removed.
    Removed(String),
}

impl Backend {
    /// Applies `changes` to a session's messages and announces them as one
    /// change (`added`, `updated`, `deleted`); returns the ids added.
    pub fn change_messages(&self, session_id: &str, changes: Vec<MessageChange>) -> Vec<String> {
        let mut board = self.board();
        let Some(session) = board.sessions.get_mut(session_id) else {
            return Vec::new();
        };
        let task_id = session.info.task_id.clone();
        let mut events = Vec::new();
        let mut added = Vec::new();
        for change in changes {
            match change {
                MessageChange::Put(m) => {
                    if let Some(event) = session.put(*m) {
                        if let Event::MessageAdded(added_message) = &event {
                            added.push(added_message.id.clone());
                        }
                        events.push(event);
                    }
                }
                MessageChange::Removed(id) => {
                    if session.remove(&id).is_some() {
                        events.push(Event::MessageDeleted { id });
                    }
                }
            }
        }
        self.announce_change(&mut board, session_id, &task_id, &events);
        added
    }
}
