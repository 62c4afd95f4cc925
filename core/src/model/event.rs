//! Events: the one currency every source (HTTP page, WebSocket frame, file
//! importer, demo scenario) turns its input into, and the store consumes.

use crate::model::board::{BoardSnapshot, TaskPatch};
use crate::model::message::{Message, MessagePatch};

/// One change to the store (docs/ARCHITECTURE.md "Rules of the shape").
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `session.message.added`, or one message of a loaded page/file: append or merge.
    MessageAdded(Message),
    /// `session.message.updated`: merge defined fields, metadata whole (docs/behaviour.md §1.1).
    MessageUpdated(MessagePatch),
    /// An importer read a message it gave before again (a follower, issue
    /// 33): the message replaces the stored one whole, no merge rule
    /// applied (a field may go back to empty or false), in its position; an
    /// unknown id is added. On the wire it is `session.message.updated`.
    MessageReplaced(Message),
    /// `session.message.deleted`.
    MessageDeleted { id: String },
    /// Input that could not be read as a message; kept, in position, as a visible row.
    Unreadable { raw: String, error: String },
    /// `count` records of kind `kind` that carry no conversation (request
    /// snapshots, telemetry, bookkeeping): skipped by an importer and
    /// counted, never a row (docs/behaviour.md §1).
    NotShown { kind: String, count: u64 },
    /// `session.turn.started`: this turn becomes the session's active turn.
    TurnStarted { session_id: String, turn_id: String },
    /// `session.turn.completed`: the active turn (if it is this one) ends.
    TurnCompleted { session_id: String, turn_id: String },
    /// A board snapshot replaces the board (HTTP snapshot or boot payload).
    BoardLoaded(BoardSnapshot),
    /// `task.created` / `task.updated` / `task.state_changed`.
    TaskUpdated(TaskPatch),
    /// `task.deleted`.
    TaskDeleted { task_id: String },
    /// A page opens a transcript: a live session (`Some(id)`), or a static
    /// source such as a file or a host page's pushes (`None`). Another session,
    /// or any static source, starts the transcript afresh; re-opening the open
    /// session keeps it. While a session is open, message events of other
    /// sessions are ignored.
    TranscriptOpened { session_id: Option<String> },
    /// A board snapshot was requested: task events from now until it arrives
    /// are re-applied after it (it may be older than they are).
    BoardRequested { workflow_id: String },
    /// The snapshot request failed; nothing is held for it any more.
    BoardRequestFailed { workflow_id: String },
    /// A re-read of the open session begins: the store remembers which
    /// messages it holds now.
    SessionReadStarted { session_id: String },
    /// The re-read is complete and its pages held `fetched`: messages held at
    /// its start that it did not find were deleted meanwhile.
    SessionReadFinished {
        session_id: String,
        fetched: Vec<String>,
    },
}

impl Event {
    /// `TurnStarted` when `started`, else `TurnCompleted`.
    pub fn turn(started: bool, session_id: impl Into<String>, turn_id: impl Into<String>) -> Event {
        let (session_id, turn_id) = (session_id.into(), turn_id.into());
        if started {
            Event::TurnStarted {
                session_id,
                turn_id,
            }
        } else {
            Event::TurnCompleted {
                session_id,
                turn_id,
            }
        }
    }
}
