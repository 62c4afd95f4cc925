//! Browser tests of the board taskview makes (docs/board.md, docs/behaviour.md
//! §5) as the page renders it, over the app's store: its columns in order
//! with their counts and their cards newest activity first, the strip, each
//! card's words, the filters, the Activity strip's bars, and a task moving
//! when it changes. The tasks'
//! facts are core's card facts of real captures (tests/fixtures/captures);
//! what the page shows is checked against what core decides of them.
#![cfg(target_arch = "wasm32")]

use leptos::{prelude::*, task::tick};
use serde_json::{json, Value};
use taskview_app::components::board_state::{StateBoardProps, StateBoardView};
use taskview_app::live::board::{state_card_of, state_column, use_activity, use_state_board};
use taskview_app::live::Live;
use taskview_core::model::board::{BoardSnapshot, Task, TaskPatch};
use taskview_core::model::card_facts::SessionFacts;
use taskview_core::model::event::Event;
use taskview_core::model::time::format_millis;
use taskview_core::read::import::follow::Follower;
use taskview_core::screen::view::board::activity::SLOTS;
use taskview_core::screen::view::board::card_words::state_card;
use taskview_core::screen::view::board::filter::BoardFilter;
use taskview_core::screen::viewer::Viewer;
use taskview_testkit::captures::capture;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

mod support;

use support::mount;

wasm_bindgen_test_configure!(run_in_browser);

/// The page's clock in these tests.
const NOW: i64 = 1_796_700_000_000;

/// The card facts of capture `name`, its session cut before the first line
/// holding `cut` when given (the agent then mid-turn), its newest record
/// moved to `ago` ms before [`NOW`].
fn facts(name: &str, cut: Option<&str>, ago: i64) -> SessionFacts {
    let c = capture(name);
    let text = match cut {
        Some(cut) => {
            let at = c.session.find(cut).unwrap();
            let end = at + c.session[at..].find('\n').unwrap() + 1;
            c.session[..end].to_string()
        }
        None => c.session.clone(),
    };
    let mut follower = Follower::new(None);
    follower.push(text.as_bytes());
    for (path, body) in c.file_refs() {
        follower.push_companion(path, body.as_bytes());
    }
    follower.flush();
    let mut facts = follower.card_facts(cut.is_some());
    facts.last_activity_at = Some(format_millis(NOW - ago));
    facts
}

/// Five tasks of real captures: done, waiting for permission, at work,
/// interrupted, and another agent's done.
fn tasks() -> Vec<Value> {
    let task = |id: &str, title: &str, state: &str, facts: SessionFacts, extra: Value| {
        let mut t = json!({"id": id, "title": title, "state": state, "session_facts": facts});
        t.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        t
    };
    let mut lost = facts("claude-code-2.1.332/interrupted", None, 3_600_000);
    lost.interrupted = true;
    vec![
        task(
            "wave",
            "Review the crate",
            "COMPLETED",
            facts("claude-code-2.1.332/parallel-wave", None, 20 * 60_000),
            json!({}),
        ),
        task(
            "codex",
            "Codex wave",
            "COMPLETED",
            facts("codex-0.171.0/parallel-wave", None, 2 * 3_600_000),
            json!({}),
        ),
        task(
            "ask",
            "Asks first",
            "IN_PROGRESS",
            facts(
                "claude-agent-acp-0.101.0/foreground",
                Some("session/request_permission"),
                40_000,
            ),
            json!({}),
        ),
        task(
            "work",
            "At work",
            "IN_PROGRESS",
            facts("claude-code-2.1.332/slow-wave", None, 30_000),
            json!({"active_subagent_count": 2}),
        ),
        task("lost", "Stopped midway", "COMPLETED", lost, json!({})),
    ]
}

fn snapshot() -> Event {
    Event::BoardLoaded(BoardSnapshot {
        workflow_id: "wf".into(),
        workflow_name: "Recordings".into(),
        by_state: true,
        tasks: tasks()
            .iter()
            .map(|t| TaskPatch::from_value(t).unwrap().to_task())
            .collect(),
        ..BoardSnapshot::default()
    })
}

/// The board as the page renders it, at a clock the test moves.
fn board(live: Live, filter: RwSignal<BoardFilter>, now: RwSignal<i64>) -> AnyView {
    provide_context(live);
    let now: Signal<i64> = now.into();
    let board = use_state_board("wf".into(), filter.into(), now);
    let props = StateBoardProps {
        board,
        card: Callback::new(move |id: String| state_card_of(&id, now.get())),
        column: Callback::new(move |(c, first, end)| {
            state_column(board, c, (first, end), now.get())
        }),
        href: Callback::new(|id: String| format!("/task/{id}")),
        filter: filter.into(),
        on_filter: Callback::new(move |f| filter.set(f)),
        activity: use_activity(board, now),
    };
    view! { <StateBoardView props /> }.into_any()
}

/// A mounted board over a store holding [`tasks`].
struct Mounted {
    host: web_sys::HtmlElement,
    live: Live,
    filter: RwSignal<BoardFilter>,
    now: RwSignal<i64>,
    /// Unmounts the board when the test ends.
    _handle: Box<dyn std::any::Any>,
}

async fn mounted() -> Mounted {
    let live = Live::new();
    live.apply([snapshot()]);
    let filter = RwSignal::new(BoardFilter::default());
    let now = RwSignal::new(NOW);
    let (host, handle) = mount({
        let live = live.clone();
        move || board(live, filter, now)
    });
    tick().await;
    Mounted {
        host,
        live,
        filter,
        now,
        _handle: Box::new(handle),
    }
}

fn texts(root: &web_sys::Element, selector: &str) -> Vec<String> {
    let found = root.query_selector_all(selector).unwrap();
    (0..found.length())
        .map(|i| found.item(i).unwrap().text_content().unwrap())
        .collect()
}

/// Each column on the page: its slug, count and card titles.
fn columns(host: &web_sys::HtmlElement) -> Vec<(String, String, Vec<String>)> {
    let found = host
        .query_selector_all("[data-testid=board-column]")
        .unwrap();
    (0..found.length())
        .map(|i| {
            let c: web_sys::Element = found.item(i).unwrap().unchecked_into();
            (
                c.get_attribute("data-column").unwrap(),
                texts(&c, "[data-testid=column-count]").concat(),
                texts(&c, "[data-testid=task-title]"),
            )
        })
        .collect()
}

/// The columns as core decides them, from a viewer of its own fed the same events.
fn core_columns(
    events: Vec<Event>,
    filter: &BoardFilter,
    now: i64,
) -> Vec<(String, String, Vec<String>)> {
    let mut viewer = Viewer::new();
    viewer.apply(events);
    let board = viewer.state_board("wf", filter, now).unwrap();
    let title = |id: &String| viewer.store().boards().task(id).unwrap().title.clone();
    board
        .columns
        .iter()
        .map(|c| {
            let ids = viewer.state_column(c.column, 0, 100, now);
            (
                c.column.slug().to_string(),
                c.count.to_string(),
                ids.iter().map(title).collect(),
            )
        })
        .collect()
}

#[wasm_bindgen_test]
async fn the_columns_are_cores_in_order_with_their_counts_and_cards_newest_first() {
    let m = mounted().await;
    let shown = columns(&m.host);
    assert_eq!(
        shown,
        core_columns(vec![snapshot()], &BoardFilter::default(), NOW)
    );
    let names = texts(&m.host, "[data-testid=column-name]");
    assert_eq!(names, ["Needs you", "Working", "Stopped", "Done"]);
    // Each kind of session is where the rules put it.
    assert_eq!(shown[0].2, ["Asks first"]);
    assert_eq!(shown[1].2, ["At work"]);
    assert_eq!(shown[2].2, ["Stopped midway"]);
    assert_eq!(shown[3].2, ["Review the crate", "Codex wave"]);
    let count = m
        .host
        .query_selector("[data-column=done] [data-testid=column-count]")
        .unwrap()
        .unwrap();
    assert_eq!(
        count.get_attribute("aria-label").as_deref(),
        Some("2 tasks")
    );
}

#[wasm_bindgen_test]
async fn the_strip_says_who_needs_you_and_what_works_and_takes_the_focus_to_a_column() {
    let m = mounted().await;
    let strip = |id: &str| texts(&m.host, &format!("[data-testid={id}]")).concat();
    assert_eq!(
        (strip("strip-needs-you"), strip("strip-working")),
        ("1 needs you".into(), "1 working".into())
    );
    let link: web_sys::HtmlElement = m
        .host
        .query_selector("[data-testid=strip-working]")
        .unwrap()
        .unwrap()
        .unchecked_into();
    link.click();
    tick().await;
    let focused = document().active_element().unwrap();
    assert!(focused
        .matches("[data-column=working] .state-column-scroll")
        .unwrap());
}

#[wasm_bindgen_test]
async fn every_card_says_the_words_core_makes_of_its_task() {
    let m = mounted().await;
    let tasks: Vec<Task> = tasks()
        .iter()
        .map(|t| TaskPatch::from_value(t).unwrap().to_task())
        .collect();
    for task in &tasks {
        let card = m
            .host
            .query_selector(&format!("[data-task-id={}]", task.id))
            .unwrap()
            .unwrap_or_else(|| panic!("a card for {}", task.id));
        let words = state_card(task, NOW);
        let part = |id: &str| {
            card.query_selector(&format!("[data-testid=card-{id}]"))
                .unwrap()
                .map(|el| (el.text_content().unwrap(), el.get_attribute("title")))
        };
        assert_eq!(part("agent").map(|p| p.0), words.agent, "{}", task.id);
        assert_eq!(part("status").map(|p| p.0), words.status, "{}", task.id);
        let titled = |w: Option<taskview_core::screen::view::board::card_words::Titled>| {
            w.map(|t| (t.text, Some(t.title)))
        };
        assert_eq!(part("project"), titled(words.project), "{}", task.id);
        assert_eq!(part("age"), titled(words.age), "{}", task.id);
        assert_eq!(part("tokens"), titled(words.tokens), "{}", task.id);
        assert_eq!(
            part("cost"),
            words.cost.map(|c| (c.text, Some(c.title))),
            "{}",
            task.id
        );
        assert_eq!(
            part("subagents"),
            words.subagents.map(|s| (s.text, Some(s.label))),
            "{}",
            task.id
        );
        let link = card.query_selector("a").unwrap().unwrap();
        assert_eq!(
            link.get_attribute("href"),
            Some(format!("/task/{}", task.id))
        );
    }
    // The Claude Code wave priced as Claude Code itself reported it.
    let wave = m
        .host
        .query_selector("[data-task-id=wave] [data-testid=card-cost]")
        .unwrap()
        .unwrap();
    assert!(wave
        .text_content()
        .unwrap()
        .contains("≈ $0.25 with subagents"));
}

#[wasm_bindgen_test]
async fn the_filters_show_what_they_let_through_and_say_what_the_reader_chose() {
    let m = mounted().await;
    // The reader picks an agent: the page is told the filter.
    let select: web_sys::HtmlSelectElement = m
        .host
        .query_selector("[data-testid=filter-agent]")
        .unwrap()
        .unwrap()
        .unchecked_into();
    let options = texts(&select, "option");
    assert_eq!(options, ["All", "ACP agent", "Claude Code", "Codex"]);
    select.set_value("Codex");
    select
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    tick().await;
    assert_eq!(m.filter.get_untracked().agent.as_deref(), Some("Codex"));
    let filter = m.filter.get_untracked();
    assert_eq!(
        columns(&m.host),
        core_columns(vec![snapshot()], &filter, NOW)
    );
    assert_eq!(texts(&m.host, "[data-testid=task-title]"), ["Codex wave"]);
    assert_eq!(
        texts(&m.host, "[data-testid=filter-shown]").concat(),
        "1 of 5 tasks"
    );
    // A state filter shows that column alone; the strip still counts.
    m.filter.set(BoardFilter::from_query("state=working"));
    tick().await;
    assert_eq!(texts(&m.host, "[data-testid=column-name]"), ["Working"]);
    assert_eq!(
        texts(&m.host, "[data-testid=strip-needs-you]").concat(),
        "1 needs you"
    );
    // No machine or person is known: those filters are not offered.
    let machine = m
        .host
        .query_selector("[data-testid=filter-machine]")
        .unwrap()
        .unwrap();
    assert!(machine.closest(".filter.hidden").unwrap().is_some());
}

#[wasm_bindgen_test]
async fn the_activity_strip_is_a_bar_per_quarter_hour_its_runs_in_its_tooltip() {
    let m = mounted().await;
    let mut viewer = Viewer::new();
    viewer.apply([snapshot()]);
    viewer.state_board("wf", &BoardFilter::default(), NOW);
    let activity = viewer.state_board_activity(NOW);
    let bars = m.host.query_selector_all(".activity-bar").unwrap();
    assert_eq!(bars.length() as usize, SLOTS);
    let mut busy = 0;
    for (i, slot) in activity.slots.iter().enumerate() {
        let bar: web_sys::HtmlElement = bars.item(i as u32).unwrap().unchecked_into();
        // One element a bar (docs/board.md "Thousands of sessions"), its
        // words in its own title (docs/board.md "Activity").
        assert_eq!(bar.child_element_count(), 0);
        assert_eq!(bar.title(), slot.title, "bar {i}");
        let style = bar.get_attribute("style").unwrap_or_default();
        assert!(style.contains("height: "), "bar {i}: {style}");
        assert_eq!(
            !style.contains("height: 0px"),
            slot.running > 0,
            "bar {i}: {style}"
        );
        busy += usize::from(slot.running > 0);
    }
    assert!(busy > 0, "the tasks' runs are in the strip");
}

#[wasm_bindgen_test]
async fn a_task_that_changes_moves_and_the_clock_moves_ages_without_taking_the_focus() {
    let m = mounted().await;
    let link: web_sys::HtmlElement = m
        .host
        .query_selector("[data-task-id=wave] a")
        .unwrap()
        .unwrap()
        .unchecked_into();
    link.focus().unwrap();
    let age = || texts(&m.host, "[data-task-id=wave] [data-testid=card-age]").concat();
    assert_eq!(age(), "20 min ago");
    m.now.set(NOW + 10 * 60_000);
    tick().await;
    assert_eq!(age(), "30 min ago");
    assert!(
        document()
            .active_element()
            .unwrap()
            .is_same_node(Some(&link)),
        "the focus stays"
    );
    // Its agent finished: the working card moves to Done, newest first.
    let done = json!({"task_id": "work", "state": "COMPLETED", "active_subagent_count": 0});
    m.live
        .apply([Event::TaskUpdated(TaskPatch::from_value(&done).unwrap())]);
    tick().await;
    let shown = columns(&m.host);
    assert_eq!(shown[1].2, Vec::<String>::new());
    assert_eq!(shown[3].2, ["At work", "Review the crate", "Codex wave"]);
    assert_eq!(
        texts(&m.host, "[data-testid=strip-working]").concat(),
        "0 working"
    );
    // Silent for five minutes, a task at work is stalled (docs/behaviour.md §8).
    let busy = json!({"task_id": "work", "state": "IN_PROGRESS"});
    m.live
        .apply([Event::TaskUpdated(TaskPatch::from_value(&busy).unwrap())]);
    tick().await;
    assert_eq!(columns(&m.host)[2].2, ["At work", "Stopped midway"]);
    let status = texts(&m.host, "[data-task-id=work] [data-testid=card-status]").concat();
    assert_eq!(status, "stalled");
}
