//! Where a run's time went (docs/user-guide.md "The Timeline"), read from its own transcript: model
//! time (the model writing a message, a thought or a tool call), tool time
//! (a tool call running), waiting on its own subagents, and idle (waiting for
//! anything else: input, a notification). Each moment counts once.
//!
//! A tool call's running time is known only when its source records when it
//! ended (kandev updates the message); where none does, model and tool time
//! cannot be told apart and only their sum is given.

use crate::model::message::{Author, Message, MessageType};
use crate::state::activity::Millis;

/// One record of a run's transcript, as the breakdown reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The model wrote it: text, a thought, a plan.
    Model,
    /// The model wrote a tool call, which then ran until its end (`None`:
    /// not recorded).
    Tool(Option<Millis>),
    /// The model launched a subagent and waited for it until its end
    /// (`None`: still running).
    Wait(Option<Millis>),
    /// Anything else (a user message, a status line): the run waited for it.
    Other,
}

/// How a record that is not a subagent reads (a subagent is [`Step::Wait`],
/// or [`Step::Model`] when it runs in the background).
pub fn step_of(m: &Message, created: Millis, updated: Millis) -> Step {
    if m.kind.is_tool() {
        return Step::Tool((updated > created).then_some(updated));
    }
    match (m.author, &m.kind) {
        (
            Author::Agent,
            MessageType::Message
            | MessageType::Content
            | MessageType::Thinking
            | MessageType::Todo
            | MessageType::AgentPlan,
        ) => Step::Model,
        _ => Step::Other,
    }
}

/// Where the time of one run (or of several, added up) went, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    pub total: Millis,
    /// Model and tool time apart, when the source allows (see the module docs).
    pub split: Option<(Millis, Millis)>,
    /// Model and tool time together.
    pub active: Millis,
    pub waiting: Millis,
    pub idle: Millis,
}

impl Breakdown {
    /// Adds another run's breakdown: the split is known only when both know it.
    pub fn add(&mut self, other: &Breakdown) {
        self.total += other.total;
        self.split = self
            .split
            .zip(other.split)
            .map(|((m1, t1), (m2, t2))| (m1 + m2, t1 + t2));
        self.active += other.active;
        self.waiting += other.waiting;
        self.idle += other.idle;
    }
}

/// Breakdowns added up so that one can be taken out again: what
/// [`Breakdown::add`] gives over the runs counted in, whatever the order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    total: Millis,
    model: Millis,
    tool: Millis,
    active: Millis,
    waiting: Millis,
    idle: Millis,
    /// Runs counted in whose split is not known.
    unsplit: i64,
    /// Runs counted in whose records say nothing.
    unknown: i64,
}

impl Tally {
    /// Counts a run's breakdown (`None`: its records say nothing) in (`by`
    /// 1) or out (`by` -1).
    pub fn count(&mut self, b: Option<&Breakdown>, by: i64) {
        let Some(b) = b else {
            self.unknown += by;
            return;
        };
        self.total += by * b.total;
        match b.split {
            Some((model, tool)) => {
                self.model += by * model;
                self.tool += by * tool;
            }
            None => self.unsplit += by,
        }
        self.active += by * b.active;
        self.waiting += by * b.waiting;
        self.idle += by * b.idle;
    }

    /// The sum, and how many runs' records say nothing.
    pub fn sum(&self) -> (Breakdown, usize) {
        let sum = Breakdown {
            total: self.total,
            split: (self.unsplit == 0).then_some((self.model, self.tool)),
            active: self.active,
            waiting: self.waiting,
            idle: self.idle,
        };
        (sum, self.unknown.max(0) as usize)
    }
}

/// The breakdown of a run from `from` to `to` whose records are `steps`
/// (record time, what it is), all on its own clock.
pub fn breakdown(from: Millis, to: Millis, mut steps: Vec<(Millis, Step)>) -> Breakdown {
    // Records come in display order, which is time order but for ties.
    if !steps.is_sorted_by_key(|(t, _)| *t) {
        steps.sort_by_key(|(t, _)| *t);
    }
    let to = to.max(from);
    let (mut model, mut tool, mut unsplit, mut waiting, mut idle) = (0, 0, 0, 0, 0);
    let mut at = from;
    // After a tool call whose end is not recorded, the time until the next
    // record is the tool's and then the model's, in unknown parts.
    let mut unknown = false;
    for (t, step) in steps {
        let t = t.clamp(from, to);
        let gap = (t - at).max(0);
        match step {
            _ if unknown => unsplit += gap,
            Step::Other => idle += gap,
            _ => model += gap,
        }
        at = at.max(t);
        unknown = false;
        let until = match step {
            Step::Tool(None) => {
                unknown = true;
                None
            }
            Step::Tool(Some(end)) => Some((end, &mut tool)),
            Step::Wait(end) => Some((end.unwrap_or(to), &mut waiting)),
            Step::Model | Step::Other => None,
        };
        if let Some((end, bucket)) = until {
            let end = end.clamp(from, to);
            *bucket += (end - at).max(0);
            at = at.max(end);
        }
    }
    let gap = (to - at).max(0);
    if unknown {
        unsplit += gap;
    } else {
        model += gap;
    }
    Breakdown {
        total: to - from,
        split: (unsplit == 0).then_some((model, tool)),
        active: model + tool + unsplit,
        waiting,
        idle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_tool_waiting_and_idle_time_add_up_to_the_run() {
        let b = breakdown(
            0,
            100,
            vec![
                (10, Step::Model),          // 0-10 model
                (15, Step::Tool(Some(30))), // 10-15 model, 15-30 tool
                (40, Step::Wait(Some(70))), // 30-40 model, 40-70 waiting
                (80, Step::Other),          // 70-80 idle
                (85, Step::Model),          // 80-85 model; 85-100 model (its answer)
            ],
        );
        assert_eq!(b.split, Some((10 + 5 + 10 + 5 + 15, 15)));
        assert_eq!((b.waiting, b.idle, b.total), (30, 10, 100));
        assert_eq!(b.active + b.waiting + b.idle, b.total);
    }

    #[test]
    fn without_a_tool_s_end_model_and_tool_time_are_not_told_apart() {
        let b = breakdown(0, 100, vec![(10, Step::Tool(None)), (60, Step::Model)]);
        assert_eq!(b.split, None);
        assert_eq!(b.active, 100);
        // No tool call at all: the split is known (no tool time).
        let b = breakdown(0, 50, vec![(10, Step::Model)]);
        assert_eq!(b.split, Some((50, 0)));
    }

    #[test]
    fn parallel_tools_and_subagents_count_each_moment_once() {
        let b = breakdown(
            0,
            100,
            vec![
                (10, Step::Wait(Some(60))),
                (10, Step::Wait(Some(90))),
                (20, Step::Tool(Some(50))),
            ],
        );
        assert_eq!(b.waiting, 80);
        assert_eq!(b.split, Some((20, 0)));
        // A subagent still running waits until the run's end (now).
        let b = breakdown(0, 100, vec![(10, Step::Wait(None))]);
        assert_eq!(b.waiting, 90);
    }

    #[test]
    fn adding_keeps_the_split_only_when_every_run_has_it() {
        let mut sum = breakdown(0, 10, vec![]);
        sum.add(&breakdown(0, 20, vec![(5, Step::Model)]));
        assert_eq!(sum.split, Some((30, 0)));
        sum.add(&breakdown(0, 10, vec![(1, Step::Tool(None))]));
        assert_eq!(sum.split, None);
        assert_eq!(sum.total, 40);
    }

    #[test]
    fn a_tally_counts_breakdowns_in_and_out_to_what_adding_the_rest_gives() {
        let runs = [
            breakdown(0, 10, vec![]),
            breakdown(0, 20, vec![(5, Step::Model)]),
            breakdown(0, 10, vec![(1, Step::Tool(None))]),
        ];
        let mut tally = Tally::default();
        for b in &runs {
            tally.count(Some(b), 1);
        }
        tally.count(None, 1);
        tally.count(Some(&runs[2]), -1);
        let mut sum = runs[0];
        sum.add(&runs[1]);
        assert_eq!(tally.sum(), (sum, 1));
        assert_eq!(sum.split, Some((30, 0)), "the run without a split is out");
    }
}
