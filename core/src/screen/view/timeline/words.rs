//! The words of the Timeline (docs/user-guide.md "The Timeline"): each bar's
//! name, figures and label, the summary line and the focused run's line.

use super::{bar_state, clock_offset};
use crate::model::message::SubagentTask;
use crate::screen::view::anchor::anchor_id;
use crate::screen::view::card::names;
use crate::screen::view::format::{abbreviate, count_label, format_duration, format_tokens};
use crate::screen::view::telemetry::telemetry_text;
use crate::screen::view::tokens::nested_tokens;
use crate::state::activity::{Clock, Millis};
use crate::state::layout::{Layout, RowKey};
use crate::state::store::Store;
use crate::state::timeline::breakdown::Breakdown;
use crate::state::timeline::run::{End, EndSource};
use crate::state::timeline::{Run, Timeline};
use std::sync::Arc;

/// A run's name: `code-reviewer: the closure diff`, or its type alone.
pub(super) fn run_name(store: &Store, id: &str) -> String {
    let Some(m) = store.message(id) else {
        return String::new();
    };
    let none = SubagentTask::default();
    match names(m, m.metadata.subagent.as_ref().unwrap_or(&none)) {
        (kind, Some(description), _) => format!("{kind}: {description}"),
        (kind, None, _) => kind,
    }
}

/// Runs going, how long and how many tokens: the visible figures of a run.
pub(super) struct Figures {
    pub(super) start: Millis,
    pub(super) end: Option<Millis>,
    pub(super) duration: Option<String>,
    pub(super) tokens: Option<u64>,
    pub(super) nested: Option<u64>,
}

pub(super) fn figures(
    tl: &Timeline,
    store: &Store,
    layout: &Layout,
    id: &str,
    run: &Run,
    now: Option<Millis>,
) -> Figures {
    let end = tl.end_of(id, now);
    Figures {
        start: run.placed.start,
        end,
        duration: end
            .filter(|_| run.placed.end != End::Unknown)
            .map(|e| format_duration((e - run.placed.start).max(0) as u64)),
        tokens: run.facts.tokens,
        nested: tl
            .launched(id)
            .then(|| nested_tokens(store, layout, &RowKey::Message(id.to_string())))
            .flatten(),
    }
}

/// `48.2k tokens, 61k with nested`.
pub(super) fn tokens_text(own: Option<u64>, nested: Option<u64>) -> Option<String> {
    let own_text = own.map(format_tokens);
    let with = nested.map(|n| format!("{} with nested", abbreviate(own.unwrap_or(0) + n)));
    let parts: Vec<String> = [own_text, with].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// Where a run's (or all runs') time went, in words.
pub fn breakdown_text(b: &Breakdown) -> String {
    let d = |ms: Millis| format_duration(ms.max(0) as u64);
    let mut parts = match b.split {
        Some((model, tool)) => vec![format!("model {}", d(model)), format!("tools {}", d(tool))],
        None => vec![format!(
            "model and tools {} (this source does not record when tool calls end)",
            d(b.active)
        )],
    };
    if b.waiting > 0 {
        parts.push(format!("waiting on its subagents {}", d(b.waiting)));
    }
    parts.push(format!("idle {}", d(b.idle)));
    parts.join(", ")
}

/// What a bar's words are worked out from, besides its run's records: the
/// run's [`Run::version`], the session's start, the wait it caused.
pub(super) type WordsFrom = (u64, Millis, Option<Millis>);

/// What a bar says: its run's name, state and figures, and its full label.
#[derive(Clone, Debug)]
pub struct BarWords {
    pub(super) anchor: Arc<str>,
    pub(super) name: String,
    pub(super) status: &'static str,
    pub(super) state: &'static str,
    pub(super) word: Option<Arc<str>>,
    pub(super) text: Arc<str>,
    pub(super) label: Arc<str>,
}

/// The words of run `id`'s bar, in a session starting at `origin`, its
/// wait `held` when it is on a critical path.
#[allow(clippy::too_many_arguments)]
pub(super) fn bar_words(
    tl: &Timeline,
    store: &Store,
    layout: &Layout,
    id: &str,
    run: &Run,
    clock: Option<Clock>,
    origin: Millis,
    held: Option<Millis>,
) -> BarWords {
    let name = run_name(store, id);
    let f = figures(
        tl,
        store,
        layout,
        id,
        run,
        clock.and_then(|c| c.source_now()),
    );
    let (status, state, word) = bar_state(run, clock, id);
    let tokens = tokens_text(f.tokens, f.nested);
    let still = clock.is_some_and(|c| c.is_still());
    let when = format!(
        "{} to {}",
        clock_offset(f.start - origin),
        end_text(run, f.end, origin, still)
    );
    let held = held.map(|ms| {
        format!(
            "on the critical path: held its parent {}",
            format_duration(ms as u64)
        )
    });
    let text = [f.duration, f.tokens.map(abbreviate)]
        .into_iter()
        .flatten()
        .collect::<Vec<String>>()
        .join(" · ");
    // Its name holds the visible text, in its place (WCAG 2.5.3): the
    // name, then what the bar says, then the rest.
    let shown = [Some(text.clone()), word.clone()]
        .into_iter()
        .flatten()
        .filter(|t| !t.is_empty())
        .collect::<Vec<String>>()
        .join(" ");
    let telemetry = store
        .message(id)
        .and_then(|m| m.metadata.subagent.as_ref())
        .and_then(|sa| telemetry_text(sa.telemetry.as_ref()));
    let label = [
        Some(name.clone()),
        Some(shown),
        Some(when),
        tokens,
        telemetry,
        held,
    ]
    .into_iter()
    .flatten()
    .filter(|t| !t.is_empty())
    .collect::<Vec<String>>()
    .join(", ");
    BarWords {
        anchor: anchor_id(id).into(),
        name,
        status,
        state,
        word: word.map(Arc::from),
        text: text.into(),
        label: label.into(),
    }
}

/// Where a run ends, in words: its end; `now` while it runs; in a file
/// nobody writes any more, a run that never reported back ends where the
/// file does (`the file's end (0:10)`, docs/behaviour.md §8).
pub(super) fn end_text(run: &Run, end: Option<Millis>, origin: Millis, still: bool) -> String {
    match (run.placed.end, end) {
        (End::Open, Some(e)) if still => format!("the file's end ({})", clock_offset(e - origin)),
        (End::Open, _) | (_, None) => "now".into(),
        (_, Some(e)) => clock_offset(e - origin),
    }
}

/// Where the whole fan-out's time went, in words.
pub(super) fn summary_text(
    total: &Breakdown,
    unknown: usize,
    runs: usize,
    waited: Millis,
    fan_ins: usize,
) -> String {
    let known = runs - unknown.min(runs);
    let mut out = if known == 0 {
        "No run's own records are in this session: where their time went is not known.".to_string()
    } else {
        format!(
            "{} ran {} in all: {}.",
            if unknown == 0 {
                "Subagents".to_string()
            } else {
                format!("{} of {runs} runs", known)
            },
            format_duration(total.total.max(0) as u64),
            breakdown_text(total)
        )
    };
    if unknown > 0 && known > 0 {
        out.push_str(&if unknown == 1 {
            " 1 run has no records of its own here.".to_string()
        } else {
            format!(" {unknown} runs have no records of their own here.")
        });
    }
    if fan_ins > 0 {
        out.push_str(&format!(
            " Parents waited {} on their subagents in {}.",
            format_duration(waited.max(0) as u64),
            count_label(fan_ins as u64, "fan-in", "fan-ins")
        ));
    }
    out
}

/// The focused run's name, figures and where its time went.
pub(super) fn focus_text(
    tl: &mut Timeline,
    store: &Store,
    layout: &Layout,

    id: &str,
    now: Option<Millis>,
) -> Option<String> {
    let breakdown = tl.breakdown(store, layout, id, now);
    let run = tl.runs().get(id)?;
    let f = figures(tl, store, layout, id, run, now);
    let mut parts = vec![run_name(store, id)];
    parts.extend(f.duration);
    parts.extend(tokens_text(f.tokens, f.nested));
    let mut out = parts.join(" · ");
    out.push_str(&match breakdown {
        Some(b) => format!(" — {}.", breakdown_text(&b)),
        None => " — its own records are not in this session: where its time went is not known."
            .to_string(),
    });
    if run.placed.end == End::Unknown {
        out.push_str(" Its end is not recorded.");
    } else if let End::At(_, EndSource::LastRecord) = run.placed.end {
        out.push_str(" Its end is its last record (the source does not say when it ended).");
    }
    Some(out)
}
