//! A board taskview makes itself (docs/behaviour.md §5): the strip `N need
//! you · N working`, the filters, the Activity strip and the columns by
//! state, each a virtualized list of fixed-height cards. Presentational:
//! core's `screen::view::board::{by_state, card_words, filter, window,
//! activity}` and `Viewer::state_board` decide every column, order, word and
//! window.

use leptos::html::Div;
use leptos::prelude::*;
use taskview_core::screen::view::board::activity::ActivityView;
use taskview_core::screen::view::board::by_state::{StateBoard, StateColumn, StateColumnView};
use taskview_core::screen::view::board::card_words::StateCard;
use taskview_core::screen::view::board::filter::BoardFilter;
use taskview_core::screen::view::board::window::column_window;
use wasm_bindgen::JsCast;

/// A card's height with the gap below it, in CSS pixels (`.state-card` in
/// style/board.css is this minus 8).
pub const CARD_PX: u64 = 136;

/// What the board needs from the page.
#[derive(Clone, Copy)]
pub struct StateBoardProps {
    pub board: Memo<Option<StateBoard>>,
    /// A card's words from its task id.
    pub card: Callback<String, Option<StateCard>>,
    /// The ids of a column's cards `first..end`.
    pub column: Callback<(StateColumn, usize, usize), Vec<String>>,
    /// A card's link from its task id.
    pub href: Callback<String, String>,
    pub filter: Signal<BoardFilter>,
    pub on_filter: Callback<BoardFilter>,
    pub activity: Memo<ActivityView>,
}

/// Scrolls column `slug` into view and puts the focus in its list, or, when
/// the state filter hides it, shows every column first.
fn jump_to(slug: &'static str, props: StateBoardProps) {
    let document = document();
    let scroller = move || {
        document
            .query_selector(&format!("#col-{slug} .state-column-scroll"))
            .ok()
            .flatten()
            .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
    };
    let focus = move |el: web_sys::HtmlElement| {
        el.scroll_into_view();
        let _ = el.focus();
    };
    match scroller() {
        Some(el) => focus(el),
        None => {
            let mut all = props.filter.get_untracked();
            all.state = None;
            props.on_filter.run(all);
            request_animation_frame(move || scroller().into_iter().for_each(focus));
        }
    }
}

/// The strip: who needs you and what works, each a link to its column.
#[component]
fn Strip(props: StateBoardProps) -> impl IntoView {
    let strip = move || {
        props
            .board
            .with(|b| b.as_ref().map(|b| b.strip.clone()).unwrap_or_default())
    };
    let has_some = move || strip().needs_you > 0;
    let jump = move |slug: &'static str| {
        move |ev: web_sys::MouseEvent| {
            ev.prevent_default();
            jump_to(slug, props);
        }
    };
    view! {
        <nav class="state-strip" aria-label="Board summary" data-testid="board-strip">
            <a href="#col-needs-you" class="strip-needs-you" class:has-some=has_some
                data-testid="strip-needs-you" on:click=jump("needs-you")>{move || strip().needs_you_label}</a>
            <span aria-hidden="true">" · "</span>
            <a href="#col-working" data-testid="strip-working" on:click=jump("working")>{move || strip().working_label}</a>
        </nav>
    }
}

/// One filter's select: `All` and the board's values; none while the board
/// has no value for it (no machine or person is known without a team store).
fn select(
    label: &'static str,
    key: &'static str,
    options: Signal<Vec<String>>,
    current: Signal<Option<String>>,
    on_change: Callback<(&'static str, String)>,
) -> impl IntoView {
    let some = move || options.with(|o| !o.is_empty()) || current.with(Option::is_some);
    view! {
        <label class="filter" class:hidden=move || !some()>
            <span class="filter-label">{label}</span>
            <select data-testid=format!("filter-{key}")
                on:change=move |ev| on_change.run((key, event_target_value(&ev)))
                prop:value=move || current.get().unwrap_or_default()>
                <option value="">"All"</option>
                {move || options.get().into_iter().map(|o| {
                    let selected = current.with(|c| c.as_deref() == Some(o.as_str()));
                    view! { <option value=o.clone() selected=selected>{o.clone()}</option> }
                }).collect_view()}
            </select>
        </label>
    }
}

/// The filters: agent, project, machine, person, state and text.
#[component]
fn Filters(props: StateBoardProps) -> impl IntoView {
    let filter = props.filter;
    let options = move || {
        props
            .board
            .with(|b| b.as_ref().map(|b| b.options.clone()).unwrap_or_default())
    };
    let change = Callback::new(move |(key, value): (&'static str, String)| {
        let mut next = filter.get_untracked();
        let value = (!value.is_empty()).then_some(value);
        match key {
            "agent" => next.agent = value,
            "project" => next.project = value,
            "machine" => next.machine = value,
            "person" => next.person = value,
            "state" => next.state = value.as_deref().and_then(StateColumn::from_slug),
            _ => next.text = value.unwrap_or_default(),
        }
        props.on_filter.run(next);
    });
    let states = Signal::derive(|| {
        StateColumn::ALL
            .iter()
            .map(|c| c.slug().to_string())
            .collect()
    });
    let shown = move || {
        props.board.with(|b| {
            b.as_ref()
                .map(|b| format!("{} of {} tasks", b.shown, b.total))
                .unwrap_or_default()
        })
    };
    // Open on a wide screen; on a phone a tap away, so the columns come first.
    let wide = window()
        .inner_width()
        .ok()
        .and_then(|w| w.as_f64())
        .is_none_or(|w| w > 700.0);
    view! {
        <div class="state-board-tools">
        <details class="board-filters-box" open=wide>
        <summary class="board-filters-summary">"Filters"</summary>
        <form class="board-filters" role="search" aria-label="Filter the board"
            on:submit=|ev| ev.prevent_default()>
            {select("Agent", "agent", Signal::derive(move || options().agents), Signal::derive(move || filter.get().agent), change)}
            {select("Project", "project", Signal::derive(move || options().projects), Signal::derive(move || filter.get().project), change)}
            {select("Machine", "machine", Signal::derive(move || options().machines), Signal::derive(move || filter.get().machine), change)}
            {select("Person", "person", Signal::derive(move || options().persons), Signal::derive(move || filter.get().person), change)}
            {select("State", "state", states, Signal::derive(move || filter.get().state.map(|s| s.slug().to_string())), change)}
            <label class="filter filter-text">
                <span class="filter-label">"Text"</span>
                <input type="search" data-testid="filter-text" placeholder="Title, model, project…"
                    prop:value=move || filter.get().text
                    on:change=move |ev| change.run(("q", event_target_value(&ev)))/>
            </label>
        </form>
        </details>
        <span class="filter-shown" data-testid="filter-shown" role="status">{shown}</span>
        </div>
    }
}

/// The Activity strip: a bar per quarter hour, its words in its title; one
/// element a bar, for a page of few elements (docs/board.md "Thousands of
/// sessions").
#[component]
fn Activity(activity: Memo<ActivityView>) -> impl IntoView {
    let bars = move || {
        activity.with(|a| {
            let peak = a.peak.max(1) as f64;
            a.slots
                .iter()
                .map(|slot| {
                    let height = match slot.running {
                        0 => 0.0,
                        n => (n as f64 / peak * 28.0).max(2.0),
                    };
                    view! {
                        <span class="activity-bar" style:height=format!("{height}px")
                            title=slot.title.clone()></span>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <section class="activity" aria-label="Activity over the last 24 hours" data-testid="activity">
            <span class="activity-summary" data-testid="activity-summary">{move || activity.with(|a| a.summary.clone())}</span>
            <div class="activity-bars" role="img"
                aria-label=move || activity.with(|a| a.summary.clone())>{bars}</div>
        </section>
    }
}

/// A card's words as core made them (the card's link stays put as they
/// change, so a focused card keeps the focus).
fn card_words(card: StateCard) -> impl IntoView {
    let mut meta: Vec<AnyView> = Vec::new();
    if let Some(p) = card.project {
        meta.push(
            view! { <span data-testid="card-project" title=p.title>{p.text}</span> }.into_any(),
        );
    }
    if let Some(who) = card.who {
        meta.push(view! { <span data-testid="card-who">{who}</span> }.into_any());
    }
    if let Some(age) = card.age {
        meta.push(
            view! { <span data-testid="card-age" title=age.title>{age.text}</span> }.into_any(),
        );
    }
    let mut figures: Vec<AnyView> = Vec::new();
    if let Some(s) = card.subagents {
        figures.push(view! {
            <span class="subagent-chip" class:running={s.running > 0} data-testid="card-subagents"
                data-running=s.running role="img" title=s.label.clone() aria-label=s.label>{s.text}</span>
        }.into_any());
    }
    if let Some(t) = card.tokens {
        figures.push(
            view! { <span data-testid="card-tokens" title=t.title>{t.text}</span> }.into_any(),
        );
    }
    let cost = card.cost.map(|c| view! {
        <span class="card-line card-cost" class:partial=c.partial data-testid="card-cost" title=c.title>{c.text}</span>
    });
    let line = |class: &'static str, parts: Vec<AnyView>| {
        (!parts.is_empty()).then(|| view! { <span class=class>{parts}</span> })
    };
    let slug = card.column.slug();
    view! {
        <span class="task-title" data-testid="task-title">{card.title}</span>
        {card.status.map(|s| view! {
            <span class=format!("card-status {slug}") data-testid="card-status">{s}</span>
        })}
        {card.agent.map(|a| view! { <span class="card-line" data-testid="card-agent">{a}</span> })}
        {line("card-line muted", meta)}
        {line("card-line figures", figures)}
        {cost}
    }
}

/// One card: the whole card links to its task.
#[component]
fn StateCardView(card: Memo<Option<StateCard>>, href: String) -> impl IntoView {
    let column = move || card.with(|c| c.as_ref().map(|c| c.column.slug()));
    view! {
        <li class="state-card" data-testid="task-card" data-task-id=move || card.with(|c| c.as_ref().map(|c| c.task_id.clone()))
            data-column=column>
            <a class="task-link" href=href>{move || card.get().map(card_words)}</a>
        </li>
    }
}

/// Where the reader scrolled column `slug` to, for this tab.
fn remember_scroll(slug: &str, top: i32) {
    if let Ok(Some(storage)) = window().session_storage() {
        let _ = storage.set_item(&format!("taskview-board-scroll-{slug}"), &top.to_string());
    }
}

/// Where the reader last scrolled column `slug` to in this tab.
fn remembered_scroll(slug: &str) -> Option<i32> {
    let storage = window().session_storage().ok()??;
    let top = storage
        .get_item(&format!("taskview-board-scroll-{slug}"))
        .ok()??;
    top.parse().ok()
}

/// One column: its name and count, then its cards, only those in the
/// window in the page.
#[component]
fn Column(column: Memo<Option<StateColumnView>>, props: StateBoardProps) -> impl IntoView {
    let scroller = NodeRef::<Div>::new();
    let scroll = RwSignal::new(0u64);
    let view_px = RwSignal::new(800u64);
    let at = move || column.with(|c| c.as_ref().map(|c| c.column));
    let slug = move || at().map_or("", StateColumn::slug);
    let name = move || at().map_or("", StateColumn::name);
    let count = Signal::derive(move || column.with(|c| c.as_ref().map_or(0, |c| c.count)));
    let window =
        Memo::new(move |_| column_window(count.get(), CARD_PX, scroll.get(), view_px.get()));
    let on_scroll = move |_| {
        if let Some(el) = scroller.get_untracked() {
            scroll.set(el.scroll_top().max(0) as u64);
            view_px.set(el.client_height().max(0) as u64);
            remember_scroll(slug(), el.scroll_top());
        }
    };
    // Where the reader left it (the task page's `← Board` comes back there).
    Effect::new(move |_| {
        if let Some(el) = scroller.get() {
            view_px.set(el.client_height().max(0) as u64);
            let at = column.with_untracked(|c| c.as_ref().map_or("", |c| c.column.slug()));
            if let Some(top) = remembered_scroll(at) {
                el.set_scroll_top(top);
                scroll.set(top.max(0) as u64);
            }
        }
    });
    // The cards in the window.
    let ids = move || {
        let w = window.get();
        at().map_or_else(Vec::new, |c| props.column.run((c, w.first, w.end)))
    };
    view! {
        <section class="board-column state-column" id=move || format!("col-{}", slug())
            data-testid="board-column" data-column=slug aria-labelledby=move || format!("col-{}-name", slug())>
            <header class="column-head">
                <h2 class="column-name" id=move || format!("col-{}-name", slug()) data-testid="column-name">{name}</h2>
                <span class="column-count" data-testid="column-count" role="img"
                    aria-label=move || column.with(|c| c.as_ref().map(|c| c.count_label.clone()).unwrap_or_default())>{count}</span>
            </header>
            <div class="state-column-scroll" node_ref=scroller on:scroll=on_scroll tabindex="0"
                role="region" aria-label=move || format!("{} cards", name())>
                <ul class="column-cards"
                    style:padding-top=move || format!("{}px", window.get().above_px)
                    style:padding-bottom=move || format!("{}px", window.get().below_px)>
                    <For each=ids key=|id| id.clone() let:id>
                        {
                            let href = props.href.run(id.clone());
                            let card = Memo::new(move |_| props.card.run(id.clone()));
                            view! { <StateCardView card href /> }
                        }
                    </For>
                </ul>
            </div>
        </section>
    }
}

/// The whole board by state.
#[component]
pub fn StateBoardView(props: StateBoardProps) -> impl IntoView {
    let board = props.board;
    // Each column, while the state filter lets it be shown.
    let columns = StateColumn::ALL.map(|at| {
        let column = Memo::new(move |_| {
            board.with(|b| {
                b.as_ref()
                    .and_then(|b| b.columns.iter().find(|c| c.column == at).cloned())
            })
        });
        let shown = Memo::new(move |_| column.with(Option::is_some));
        move || shown.get().then(|| view! { <Column column props /> })
    });
    view! {
        <div class="state-board-head">
            <Strip props />
            <Activity activity=props.activity />
        </div>
        <Filters props />
        <div class="board state-board" data-testid="board">{columns}</div>
    }
}
