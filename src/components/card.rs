//! The subagent card (docs/behaviour.md §3) and the orphan card (§2.7): props-only,
//! rendering `CardRowView` / `OrphanRowView` from core. The children come in
//! as a slot, so a card can be mounted alone with any children.

use crate::components::markdown::{Markdown, TextBlock};
use leptos::prelude::*;
use taskview_core::screen::link::{EXTERNAL_REL, EXTERNAL_TARGET};
use taskview_core::screen::view::card::{
    CardView, ReceivedView, LEAK_NOTE, RECEIVED_HEADING, RECORD_HEADING,
};
use taskview_core::screen::view::chips::Chip;
use taskview_core::screen::view::conclusion::{Provenance, ResultBody};
use taskview_core::screen::view::row::{CardRowView, OrphanRowView, RowFrame};

/// A subagent card: the collapsed face, and the body when expanded.
#[component]
pub fn SubagentCard(
    /// The card as core lays it out, kept current by the caller.
    #[prop(into)]
    card: Signal<CardRowView>,
    /// Its place in the nesting.
    frame: RowFrame,
    /// The header was activated.
    on_toggle: Callback<()>,
    /// "Show in timeline" was chosen (offered when given).
    #[prop(default = None)]
    on_show_in_timeline: Option<Callback<()>>,
    /// Its child rows.
    children: ChildrenFn,
) -> impl IntoView {
    let expanded = Memo::new(move |_| card.with(|c| c.expanded));
    let badge = frame.depth_badge.clone();
    let face = move || {
        let row = card.get();
        view! { <CardFace row depth_badge=badge.clone() on_toggle /> }
    };
    let result = Memo::new(move |_| {
        card.with(|c| {
            (
                c.card.result_body.clone(),
                c.card.prompt.clone(),
                c.card.received.clone(),
            )
        })
    });
    let body = move || {
        expanded.get().then(|| {
            let children = children.clone();
            view! {
                {move || {
                    let (result, prompt, received) = result.get();
                    view! { <CardResult result prompt received /> }
                }}
                <div class="card-children">{children()}</div>
            }
        })
    };
    let body_id = move || card.with(|c| c.body_id.clone());
    view! {
        <div
            class="row subagent-card"
            class:deep=!frame.indents_children
            class:search-hit=move || card.with(|c| c.highlighted)
            id=move || card.with(|c| c.anchor.clone())
            data-testid="subagent-card"
            data-search-hit=move || card.with(|c| c.highlighted.then_some("true"))
            data-status=move || card.with(|c| c.card.status.as_str())
            data-depth=frame.depth
        >
            {face}
            {on_show_in_timeline.map(|show| view! {
                <button class="card-action" data-testid="show-in-timeline"
                    on:click=move |_| show.run(())>"Show in timeline"</button>
            })}
            <div class="card-body" id=body_id>{body}</div>
        </div>
    }
}

/// The collapsed face, in docs/behaviour.md §3.1 order.
#[component]
fn CardFace(
    row: CardRowView,
    depth_badge: Option<String>,
    on_toggle: Callback<()>,
) -> impl IntoView {
    let CardRowView {
        card,
        expanded,
        summary,
        body_id,
        ..
    } = row;
    let head = view! {
        {card.expandable.then(|| view! {
            <span class="chevron" data-testid="subagent-chevron" aria-hidden="true">{if expanded { "▾" } else { "▸" }}</span>
        })}
        <span class="type-chip" data-testid="subagent-type">{card.type_label.clone()}</span>
        {card.description.clone().map(|d| view! {
            <span class="description" data-testid="subagent-description" title=card.description_title.clone()>{d}</span>
        })}
        <StatusMarker card=card.clone() />
        {card.child_count_label.clone().map(|label| view! {
            <span class="child-count" data-testid="subagent-child-count">{label}</span>
        })}
        {depth_badge.map(|badge| view! {
            <span class="badge depth-badge" title="nesting depth">{badge}</span>
        })}
    };
    let header = if card.expandable {
        view! {
            <button class="card-head" aria-expanded=expanded.to_string() aria-controls=body_id
                on:click=move |_| on_toggle.run(())>
                {head}
            </button>
        }
        .into_any()
    } else {
        view! { <div class="card-head">{head}</div> }.into_any()
    };
    view! {
        {header}
        {card.now_text.clone().map(|t| view! {
            <div class="now-text" data-testid="subagent-now">{t}</div>
        })}
        {summary.map(|s| {
            let title = s.clone();
            view! { <div class="result-summary" data-testid="subagent-result-summary" title=title>{s}</div> }
        })}
        {card.transcript_not_loaded.then(|| view! {
            <div class="muted not-loaded" data-testid="subagent-not-loaded">"transcript not loaded"</div>
        })}
        {Some(card.meta_row()).filter(|row| !row.is_empty()).map(|row| view! { <MetaChips row /> })}
    }
}

/// Spinner while running (with `background · running`; a muted `stalled` or
/// `interrupted · no result recorded` has none, docs/behaviour.md §8); the status word
/// when failed or cancelled.
#[component]
fn StatusMarker(card: CardView) -> impl IntoView {
    if let Some(mark) = card.lifecycle {
        let spinner = mark
            .spins()
            .then(|| view! { <span class="spinner" aria-hidden="true"></span> });
        return view! {
            {spinner}
            <span class=format!("lifecycle {}", mark.state) role="status" data-testid="subagent-status"
                data-state=mark.state title=mark.title>{mark.text}</span>
        }
        .into_any();
    }
    if card.status.is_running() {
        return view! {
            <span class="spinner" role="status" aria-label="Running" data-testid="subagent-status"></span>
        }
        .into_any();
    }
    card.status_word
        .map(|word| {
            view! {
                <span class=format!("status-word {word}") data-testid="subagent-status">{word}</span>
            }
        })
        .into_any()
}

/// The meta row (docs/behaviour.md §3.2, §8), in core's order: meta chips, and the
/// derived figures beside the tokens.
#[component]
fn MetaChips(row: Vec<(Chip, bool)>) -> impl IntoView {
    view! {
        <div class="meta-chips" data-testid="subagent-meta">
            {row.into_iter().map(|(chip, derived)| view! {
                <span class=if derived { "derived-chip" } else { "chip" }
                    data-testid=format!("subagent-meta-{}", chip.id) title=chip.title>{chip.text}</span>
            }).collect_view()}
        </div>
    }
}

/// The first parts of the expanded body (docs/behaviour.md §3.5): result, prompt;
/// when the source records what the parent received, that first, apart from
/// the subagent's record (docs/behaviour.md §8).
#[component]
fn CardResult(
    result: Option<ResultBody>,
    prompt: Option<String>,
    received: Option<ReceivedView>,
) -> impl IntoView {
    view! {
        {received.map(|r| view! {
            <section class="received" data-testid="subagent-received"
                data-leak=r.more_than_answer.to_string()>
                <div class="received-head">{RECEIVED_HEADING}</div>
                <TextBlock text=r.text />
                {r.more_than_answer.then(|| view! {
                    <div class="received-leak" data-testid="subagent-received-leak">{LEAK_NOTE}</div>
                })}
            </section>
            <div class="record-head muted" data-testid="subagent-record">{RECORD_HEADING}</div>
        })}
        {result.map(|body| view! { <ResultView body /> })}
        {prompt.map(|prompt| view! {
            <details class="prompt" data-testid="subagent-prompt">
                <summary>"prompt"</summary>
                <TextBlock text=prompt />
            </details>
        })}
    }
}

/// The full result: markdown, a typed conclusion table, or `no conclusion`.
#[component]
fn ResultView(body: ResultBody) -> impl IntoView {
    match body {
        ResultBody::Markdown(text) => view! {
            <div class="result-text" data-testid="subagent-result-text"><Markdown text /></div>
        }
        .into_any(),
        ResultBody::Conclusion(fields) => view! {
            <table class="conclusion" data-testid="subagent-result-text">
                <tbody>
                    {fields.into_iter().map(|f| view! { <tr><th scope="row">{f.key}</th><td><FieldValue value=f.value provenance=f.provenance /></td></tr> }).collect_view()}
                </tbody>
            </table>
        }
        .into_any(),
        ResultBody::NoConclusion(text) => view! {
            <div class="result-text muted" data-testid="subagent-result-text" data-conclusion="failed">{text}</div>
        }
        .into_any(),
    }
}

/// A conclusion's value: its provenance pointers as badges and safe links
/// when core found any, else its text.
#[component]
fn FieldValue(value: String, provenance: Vec<Provenance>) -> impl IntoView {
    if provenance.is_empty() {
        return view! { {value} }.into_any();
    }
    provenance
        .into_iter()
        .map(|p| {
            let (text, href) = match p {
                Provenance::Badge(text) => (text, None),
                Provenance::Link { text, href } => (text, Some(href)),
            };
            let link = href.is_some();
            view! {
                <a class="chip provenance" data-testid="conclusion-provenance" href=href
                    rel=link.then_some(EXTERNAL_REL) target=link.then_some(EXTERNAL_TARGET)>{text}</a>
            }
        })
        .collect_view()
        .into_any()
}

/// Children whose parent is not loaded, kept under `subagent (not loaded)`.
#[component]
pub fn OrphanCard(
    /// The orphan card as core lays it out, kept current by the caller.
    #[prop(into)]
    orphans: Signal<OrphanRowView>,
    /// Its place in the nesting.
    frame: RowFrame,
    /// The header was activated.
    on_toggle: Callback<()>,
    /// Its child rows.
    children: ChildrenFn,
) -> impl IntoView {
    let expanded = Memo::new(move |_| orphans.with(|o| o.expanded));
    let face = move || {
        let OrphanRowView {
            body_id,
            view,
            expanded,
            ..
        } = orphans.get();
        view! {
            <button class="card-head" aria-expanded=expanded.to_string() aria-controls=body_id
                on:click=move |_| on_toggle.run(())>
                <span class="chevron" aria-hidden="true">{if expanded { "▾" } else { "▸" }}</span>
                <span class="type-chip orphan" data-testid="subagent-type">{view.title}</span>
                <span class="child-count" data-testid="subagent-child-count">{view.child_count_label}</span>
            </button>
        }
    };
    view! {
        <div class="row subagent-card orphan-card" class:deep=!frame.indents_children
            data-testid="orphan-card" data-parent=move || orphans.with(|o| o.view.parent_tool_call_id.clone())>
            {face}
            <div class="card-body" id=move || orphans.with(|o| o.body_id.clone())>
                <Show when=move || expanded.get()>
                    <div class="card-children">{children()}</div>
                </Show>
            </div>
        </div>
    }
}
