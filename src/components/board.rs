//! The board (docs/behaviour.md §5): columns of task cards with their status and the
//! live subagent chip. Presentational: it renders `core::view::board`
//! view-models; the page keeps them current.

use crate::components::chip_popover::ChipPopover;
use leptos::html::{Button, Div};
use leptos::prelude::*;
use taskview_core::screen::view::board::{
    state_label, BoardView, Column, SubagentChip, TaskCard, TaskStatus,
};
use taskview_core::screen::view::drilldown::DrillDownView;
use wasm_bindgen::JsCast;

/// The chip's decorative "users-group" icon.
fn chip_icon() -> impl IntoView {
    view! {
        <svg class="subagent-icon" aria-hidden="true" width="14" height="14" viewBox="0 0 24 24"
            fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
            <circle cx="12" cy="8" r="3"></circle>
            <path d="M6.5 20v-1.5a5.5 5.5 0 0 1 11 0V20"></path>
            <circle cx="5" cy="10" r="2"></circle>
            <path d="M1.5 19v-1a3.5 3.5 0 0 1 4.5-3.3"></path>
            <circle cx="19" cy="10" r="2"></circle>
            <path d="M22.5 19v-1a3.5 3.5 0 0 0-4.5-3.3"></path>
        </svg>
    }
}

/// The "N subagents running" chip: an icon and the bare number, the words in
/// `title` and `aria-label` (docs/protocol.md §4.2). Nothing without a chip.
#[component]
pub fn SubagentCountChip(chip: Option<SubagentChip>) -> impl IntoView {
    chip.map(|chip| {
        view! {
            <span
                class="subagent-chip"
                data-testid="task-subagent-count"
                role="img"
                title=chip.label.clone()
                aria-label=chip.label
            >
                {chip_icon()}
                {chip.count}
            </span>
        }
    })
}

/// What the board needs to drill down from a chip (docs/behaviour.md §8).
#[derive(Clone, Copy)]
pub struct ChipDrillDown {
    /// The task whose drill-down is open.
    pub open: Signal<Option<String>>,
    /// A task's chip was activated: open its drill-down, or close it.
    pub on_chip: Callback<String>,
    /// The open drill-down's popover.
    pub popover: Callback<Popover, AnyView>,
    /// A subagent's link from its task id and card anchor.
    pub href: Callback<(String, String), String>,
}

/// What a chip's popover is given: its element id, its subagents' links
/// and its way to close.
#[derive(Clone)]
pub struct Popover {
    pub id: String,
    pub href: Callback<String, String>,
    pub on_close: Callback<()>,
}

impl ChipDrillDown {
    /// A drill-down whose chips toggle `open` (a chip opens its task's
    /// drill-down, or closes it when it is the open one), the open task's
    /// running subagents read from `drill` (`None` while they load).
    pub fn toggling(
        open: RwSignal<Option<String>>,
        drill: Signal<Option<DrillDownView>>,
        href: Callback<(String, String), String>,
    ) -> ChipDrillDown {
        let popover = Callback::new(move |p: Popover| {
            view! { <ChipPopover id=p.id drill href=p.href on_close=p.on_close /> }.into_any()
        });
        ChipDrillDown::with_popover(open, popover, href)
    }

    /// A drill-down whose chips toggle `open`, its popover drawn by `popover`.
    pub fn with_popover(
        open: RwSignal<Option<String>>,
        popover: Callback<Popover, AnyView>,
        href: Callback<(String, String), String>,
    ) -> ChipDrillDown {
        ChipDrillDown {
            open: open.into(),
            on_chip: Callback::new(move |task: String| {
                open.update(|o| {
                    *o = if o.as_deref() == Some(task.as_str()) {
                        None
                    } else {
                        Some(task)
                    }
                })
            }),
            popover,
            href,
        }
    }
}

/// The same chip as a button that opens the task's drill-down (docs/behaviour.md §8).
/// The button stays while its count changes, and an open drill-down stays
/// while the count drops to zero (the chip then goes: docs/behaviour.md §5).
#[component]
fn SubagentChipButton(
    task_id: String,
    chip: Signal<Option<SubagentChip>>,
    drill_down: ChipDrillDown,
) -> impl IntoView {
    let anchor = NodeRef::<Div>::new();
    let button = NodeRef::<Button>::new();
    let popover_id = format!("drill-{task_id}");
    let open = {
        let task_id = task_id.clone();
        Signal::derive(move || {
            drill_down
                .open
                .with(|o| o.as_deref() == Some(task_id.as_str()))
        })
    };
    let shown = Memo::new(move |_| chip.with(Option::is_some));
    let toggle = {
        let task_id = task_id.clone();
        move |_| drill_down.on_chip.run(task_id.clone())
    };
    let on_close = {
        let task_id = task_id.clone();
        Callback::new(move |()| {
            drill_down.on_chip.run(task_id.clone());
            // Back to the chip, or to the card when the chip is gone.
            let target = button
                .get_untracked()
                .filter(|b| b.is_connected())
                .map(|b| b.unchecked_into())
                .or_else(|| card_link(anchor));
            if let Some(el) = target {
                let _ = el.focus();
            }
        })
    };
    let href = {
        let task_id = task_id.clone();
        Callback::new(move |anchor: String| drill_down.href.run((task_id.clone(), anchor)))
    };
    let label = move || chip.with(|c| c.as_ref().map(|c| c.label.clone()).unwrap_or_default());
    let controls = popover_id.clone();
    view! {
        <div class="task-chip-anchor" node_ref=anchor>
            {move || {
                let shown = shown.get();
                if !shown {
                    keep_focus_on_card(button, anchor);
                }
                shown.then(|| view! {
                <button class="subagent-chip" data-testid="task-subagent-count" node_ref=button
                    title=label aria-label=label aria-haspopup="dialog"
                    aria-expanded=move || open.get().to_string() aria-controls=controls.clone()
                    on:click=toggle.clone()>
                    {chip_icon()}
                    {move || chip.with(|c| c.as_ref().map_or(0, |c| c.count))}
                </button>
            })}}
            {move || open.get().then(|| {
                drill_down.popover.run(Popover { id: popover_id.clone(), href, on_close })
            })}
        </div>
    }
}

/// The link of the card that holds `anchor`.
fn card_link(anchor: NodeRef<Div>) -> Option<web_sys::HtmlElement> {
    let card = anchor.get_untracked()?.parent_element()?;
    let link = card.query_selector("a").ok()??;
    Some(link.unchecked_into())
}

/// Called as the chip goes (its count at zero): when it has focus, focus
/// moves to the card's link rather than falling back to the page.
fn keep_focus_on_card(button: NodeRef<Button>, anchor: NodeRef<Div>) {
    let Some(button) = button.get_untracked() else {
        return;
    };
    let focused = document().active_element();
    if focused.as_ref() == Some(button.unchecked_ref()) {
        if let Some(link) = card_link(anchor) {
            let _ = link.focus();
        }
    }
}

/// A task's status affordance: an icon plus words.
#[component]
pub fn TaskStatusBadge(status: Option<TaskStatus>) -> impl IntoView {
    status.map(|status| {
        let icon = match status {
            TaskStatus::Running => {
                view! { <span class="spinner" aria-hidden="true"></span> }.into_any()
            }
            TaskStatus::Background => {
                view! { <span class="status-icon" aria-hidden="true">"◔"</span> }.into_any()
            }
            TaskStatus::Stalled => {
                view! { <span class="status-icon" aria-hidden="true">"⧖"</span> }.into_any()
            }
            TaskStatus::WaitingForInput => {
                view! { <span class="status-icon" aria-hidden="true">"⏸"</span> }.into_any()
            }
            TaskStatus::Failed => {
                view! { <span class="status-icon" aria-hidden="true">"✕"</span> }.into_any()
            }
        };
        view! {
            <span class=format!("task-status {}", status.as_str()) data-testid="task-status"
                data-state=status.as_str()>{icon}<span>{status.label()}</span></span>
        }
    })
}

/// One card; the whole card links to the task's transcript (`href`). With a
/// `drill_down`, its subagent chip is a button that opens the drill-down. The
/// card stays while its content changes, so an open drill-down and focus stay.
#[component]
pub fn TaskCardView(
    #[prop(into)] card: Signal<TaskCard>,
    href: String,
    #[prop(optional)] drill_down: Option<ChipDrillDown>,
) -> impl IntoView {
    let task_id = card.with_untracked(|c| c.task_id.clone());
    let card_id = task_id.clone();
    let chip = Signal::derive(move || card.with(|c| c.subagent_chip.clone()));
    view! {
        <li class="task-card" class:has-chip-button=move || drill_down.is_some() && chip.with(Option::is_some)
            data-testid="task-card" data-task-id=card_id>
            <a class="task-link" href=href>
                <span class="task-top">
                    <span class="task-title" data-testid="task-title">{move || card.with(|c| c.title.clone())}</span>
                    {move || drill_down.is_none().then(|| view! { <SubagentCountChip chip=chip.get() /> })}
                </span>
                <span class="task-bottom">
                    <span class="task-state" data-testid="task-state">{move || card.with(|c| state_label(&c.state))}</span>
                    {move || view! { <TaskStatusBadge status=card.with(|c| c.status) /> }}
                </span>
            </a>
            {drill_down.map(|drill_down| view! { <SubagentChipButton task_id chip drill_down /> })}
        </li>
    }
}

/// One column: the step's name and task count, then its cards in order.
/// `href` gives a card's link from its task id.
#[component]
fn BoardColumn(
    column: Memo<Option<Column>>,
    href: Callback<String, String>,
    drill_down: Option<ChipDrillDown>,
) -> impl IntoView {
    let name = move || column.get().map(|c| c.name).unwrap_or_default();
    let count = move || column.get().map_or(0, |c| c.task_count);
    let cards = move || column.get().map(|c| c.cards).unwrap_or_default();
    view! {
        <section class="board-column" data-testid="board-column">
            <header class="column-head">
                <h2 class="column-name" data-testid="column-name">{name}</h2>
                <span class="column-count" data-testid="column-count"
                    aria-label=move || format!("{} tasks", count())>{count}</span>
            </header>
            <ul class="column-cards">
                <For each=cards key=|card| card.task_id.clone() let:card>
                    {
                        let task_id = card.task_id.clone();
                        let href = href.run(task_id.clone());
                        let card = Signal::derive(move || {
                            column.with(|c| c.as_ref().and_then(|c| c.cards.iter().find(|x| x.task_id == task_id).cloned()))
                                .unwrap_or_else(|| card.clone())
                        });
                        match drill_down {
                            Some(drill_down) => view! { <TaskCardView href card drill_down /> }.into_any(),
                            None => view! { <TaskCardView href card /> }.into_any(),
                        }
                    }
                </For>
            </ul>
        </section>
    }
}

/// The columns of a board, left to right, scrolling sideways when narrow.
#[component]
pub fn Board(
    #[prop(into)] board: Signal<BoardView>,
    /// A card's link from its task id.
    href: Callback<String, String>,
    /// Chips open a drill-down of the task's running subagents (docs/behaviour.md §8).
    #[prop(optional)]
    drill_down: Option<ChipDrillDown>,
) -> impl IntoView {
    let steps = move || {
        board
            .get()
            .columns
            .into_iter()
            .map(|c| c.step_id)
            .collect::<Vec<_>>()
    };
    view! {
        <div class="board" data-testid="board">
            <For each=steps key=|step| step.clone() let:step>
                {
                    let column = Memo::new(move |_| {
                        board.get().columns.into_iter().find(|c| c.step_id == step)
                    });
                    view! { <BoardColumn column href drill_down /> }
                }
            </For>
        </div>
    }
}
