//! The subagent card (SPEC.md §3) and the orphan card (§2.7). They render
//! `CardView` / `OrphanCardView` from core and decide nothing themselves.

use crate::components::markdown::{Markdown, TextBlock};
use crate::components::row::RowView;
use crate::live::Live;
use leptos::prelude::*;
use taskview_core::layout::RowKey;
use taskview_core::status::RunState;
use taskview_core::view::card::{card_view, orphan_card_view, CardView};
use taskview_core::view::chips::Chip;
use taskview_core::view::conclusion::ResultBody;

/// Indentation stops growing at this nesting depth; a badge shows the rest.
pub const MAX_INDENT_DEPTH: usize = 4;

/// An element id derived from a row key (`:` is awkward in selectors).
fn element_id(prefix: &str, key: &str) -> String {
    format!("{prefix}-{}", key.replace(':', "-"))
}

/// A subagent card: the collapsed face, and the body when expanded.
#[component]
pub fn SubagentCard(row_key: RowKey, depth: usize) -> impl IntoView {
    let live = expect_context::<Live>();
    let key = row_key.to_string();
    let body_id = element_id("card-body", &key);
    let deep = depth >= MAX_INDENT_DEPTH;
    let card = {
        let (live, key) = (live.clone(), key.clone());
        Memo::new(move |_| {
            live.track_row(&key);
            live.read(|d| card_view(&d.store, &d.layout, &key))
        })
    };
    let expanded = {
        let (live, key) = (live.clone(), key.clone());
        Memo::new(move |_| {
            live.track_row(&key);
            card.with(|c| c.as_ref().is_some_and(|c| c.expanded(live.manual(&key))))
        })
    };
    let face = {
        let (live, key, body_id) = (live.clone(), key.clone(), body_id.clone());
        move || {
            let card = card.get()?;
            let open = expanded.get();
            let toggle = {
                let (live, key) = (live.clone(), key.clone());
                move |_| live.set_manual(&key, !open)
            };
            Some(view! { <CardFace card open depth body_id=body_id.clone() on_toggle=toggle /> })
        }
    };
    let body = move || {
        let card = card.get()?;
        expanded
            .get()
            .then(|| view! { <CardBody card row_key=row_key.clone() /> })
    };
    view! {
        <div
            class="row subagent-card"
            class:deep=deep
            id=format!("msg-{key}")
            data-testid="subagent-card"
            data-status=move || card.with(|c| c.as_ref().map(|c| c.status.as_str()))
            data-depth=depth
        >
            {face}
            <div class="card-body" id=body_id>{body}</div>
        </div>
    }
}

/// The collapsed face, in SPEC.md §3.1 order.
#[component]
fn CardFace(
    card: CardView,
    open: bool,
    depth: usize,
    body_id: String,
    on_toggle: impl FnMut(leptos::ev::MouseEvent) + 'static,
) -> impl IntoView {
    let running = card.status.is_running();
    let head = view! {
        {card.expandable.then(|| view! {
            <span class="chevron" data-testid="subagent-chevron" aria-hidden="true">{if open { "▾" } else { "▸" }}</span>
        })}
        <span class="type-chip" data-testid="subagent-type">{card.type_label.clone()}</span>
        {card.description.clone().map(|d| view! {
            <span class="description" data-testid="subagent-description" title=card.description_title.clone()>{d}</span>
        })}
        <StatusMarker status=card.status />
        {card.child_count_label.clone().map(|label| view! {
            <span class="child-count" data-testid="subagent-child-count">{label}</span>
        })}
        {(depth > MAX_INDENT_DEPTH).then(|| view! {
            <span class="badge depth-badge" title="nesting depth">{format!("depth {depth}")}</span>
        })}
    };
    let header = if card.expandable {
        view! {
            <button class="card-head" aria-expanded=open.to_string() aria-controls=body_id on:click=on_toggle>
                {head}
            </button>
        }
        .into_any()
    } else {
        view! { <div class="card-head">{head}</div> }.into_any()
    };
    let summary = card.visible_summary(open).map(str::to_string);
    view! {
        {header}
        {card.now_text.clone().filter(|_| running).map(|t| view! {
            <div class="now-text" data-testid="subagent-now">{t}</div>
        })}
        {summary.map(|s| {
            let title = s.clone();
            view! { <div class="result-summary" data-testid="subagent-result-summary" title=title>{s}</div> }
        })}
        {card.transcript_not_loaded.then(|| view! {
            <div class="muted not-loaded" data-testid="subagent-not-loaded">"transcript not loaded"</div>
        })}
        {(!card.chips.is_empty()).then(|| view! { <MetaChips chips=card.chips.clone() /> })}
    }
}

/// Spinner while running; `failed` / `cancelled` words; nothing when complete.
#[component]
fn StatusMarker(status: RunState) -> impl IntoView {
    match status {
        RunState::Running => view! {
            <span class="spinner" role="status" aria-label="Running" data-testid="subagent-status"></span>
        }
        .into_any(),
        RunState::Failed => view! {
            <span class="status-word failed" data-testid="subagent-status">"failed"</span>
        }
        .into_any(),
        RunState::Cancelled => view! {
            <span class="status-word cancelled" data-testid="subagent-status">"cancelled"</span>
        }
        .into_any(),
        RunState::Complete | RunState::Settled => ().into_any(),
    }
}

/// The meta chips row (SPEC.md §3.2), in core's order.
#[component]
fn MetaChips(chips: Vec<Chip>) -> impl IntoView {
    view! {
        <div class="meta-chips" data-testid="subagent-meta">
            {chips.into_iter().map(|chip| view! {
                <span class="chip" data-testid=format!("subagent-meta-{}", chip.id) title=chip.title>{chip.text}</span>
            }).collect_view()}
        </div>
    }
}

/// The expanded body (SPEC.md §3.5): result, prompt disclosure, children.
#[component]
fn CardBody(card: CardView, row_key: RowKey) -> impl IntoView {
    view! {
        {card.result_body.map(|body| view! { <ResultView body /> })}
        {card.prompt.map(|prompt| view! {
            <details class="prompt" data-testid="subagent-prompt">
                <summary>"prompt"</summary>
                <TextBlock text=prompt />
            </details>
        })}
        <CardChildren row_key />
    }
}

/// A card's children in order, each with its full renderer; a child that
/// changes re-renders alone.
#[component]
fn CardChildren(row_key: RowKey) -> impl IntoView {
    let live = expect_context::<Live>();
    let key = row_key.to_string();
    let children = move || {
        live.track_row(&key);
        live.read(|d| {
            d.layout
                .children(&row_key)
                .map(|r| r.key.clone())
                .collect::<Vec<_>>()
        })
    };
    view! {
        <div class="card-children">
            <For each=children key=|k| k.to_string() let:child>
                <RowView row_key=child />
            </For>
        </div>
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
        ResultBody::Conclusion(pairs) => view! {
            <table class="conclusion" data-testid="subagent-result-text">
                <tbody>
                    {pairs.into_iter().map(|(k, v)| view! { <tr><th scope="row">{k}</th><td>{v}</td></tr> }).collect_view()}
                </tbody>
            </table>
        }
        .into_any(),
        ResultBody::NoConclusion(text) => view! {
            <div class="result-text muted" data-testid="subagent-result-text">{text}</div>
        }
        .into_any(),
    }
}

/// Children whose parent is not loaded, kept under `subagent (not loaded)`.
#[component]
pub fn OrphanCard(row_key: RowKey, depth: usize) -> impl IntoView {
    let live = expect_context::<Live>();
    let key = row_key.to_string();
    let body_id = element_id("card-body", &key);
    let deep = depth >= MAX_INDENT_DEPTH;
    let RowKey::Orphans(parent) = row_key.clone() else {
        return ().into_any();
    };
    let open = {
        let (live, key) = (live.clone(), key.clone());
        move || {
            live.track_row(&key);
            live.manual(&key).unwrap_or(false)
        }
    };
    let face = {
        let (live, key, parent) = (live.clone(), key.clone(), parent.clone());
        let body_id = body_id.clone();
        let open = open.clone();
        move || {
            live.track_row(&key);
            let view_model = live.read(|d| orphan_card_view(&d.layout, &parent))?;
            let is_open = open();
            let toggle = {
                let (live, key) = (live.clone(), key.clone());
                move |_| live.set_manual(&key, !is_open)
            };
            Some(view! {
                <button class="card-head" aria-expanded=is_open.to_string() aria-controls=body_id.clone() on:click=toggle>
                    <span class="chevron" aria-hidden="true">{if is_open { "▾" } else { "▸" }}</span>
                    <span class="type-chip orphan" data-testid="subagent-type">{view_model.title}</span>
                    <span class="child-count" data-testid="subagent-child-count">{view_model.child_count_label}</span>
                </button>
            })
        }
    };
    view! {
        <div class="row subagent-card orphan-card" class:deep=deep
            data-testid="orphan-card" data-parent=parent>
            {face}
            <div class="card-body" id=body_id>
                <Show when=open>
                    <CardChildren row_key=row_key.clone() />
                </Show>
            </div>
        </div>
    }
    .into_any()
}
