//! The columns of a board taskview makes itself (docs/behaviour.md §5), by
//! name, in order.

/// A column of a board by state, in the board's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StateColumn {
    NeedsYou,
    Working,
    Stopped,
    Done,
}

impl StateColumn {
    /// Every column, left to right.
    pub const ALL: [StateColumn; 4] = [
        StateColumn::NeedsYou,
        StateColumn::Working,
        StateColumn::Stopped,
        StateColumn::Done,
    ];

    /// Its heading.
    pub fn name(self) -> &'static str {
        match self {
            StateColumn::NeedsYou => "Needs you",
            StateColumn::Working => "Working",
            StateColumn::Stopped => "Stopped",
            StateColumn::Done => "Done",
        }
    }

    /// Its name in the URL, CSS and anchors (`needs-you`).
    pub fn slug(self) -> &'static str {
        match self {
            StateColumn::NeedsYou => "needs-you",
            StateColumn::Working => "working",
            StateColumn::Stopped => "stopped",
            StateColumn::Done => "done",
        }
    }

    /// The column a slug names.
    pub fn from_slug(slug: &str) -> Option<StateColumn> {
        StateColumn::ALL.into_iter().find(|c| c.slug() == slug)
    }
}
