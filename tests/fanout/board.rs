//! The board chip's drill-down and popover (docs/behaviour.md §5, §8).

use super::*;

/// Card links as the board makes them: `/task/<task>#<anchor>`.
fn task_href() -> Callback<(String, String), String> {
    Callback::new(|(task, anchor): (String, String)| format!("/task/{task}#{anchor}"))
}

#[wasm_bindgen_test]
async fn the_chip_opens_a_live_drill_down_that_links_to_cards_and_closes_with_escape() {
    let mut model = Model::new(wave(), 0);
    model.fanout.tick(&model.store, &model.layout, 2 * MINUTE);
    let drill_view = model.fanout.drill_down(&model.store, &model.layout);
    assert_eq!(drill_view.items.len(), 2);
    let open = RwSignal::new(None::<String>);
    let drill = RwSignal::new(None::<DrillDownView>);
    let (host, _handle) = mount(move || {
        let drill_down = ChipDrillDown::toggling(open, drill.into(), task_href());
        let card = TaskCard {
            task_id: "task-1".into(),
            title: "Review wave".into(),
            state: "IN_PROGRESS".into(),
            status: None,
            subagent_chip: subagent_chip(Some(2)),
        };
        view! { <TaskCardView card href="/task/task-1".into() drill_down /> }.into_any()
    });
    settle().await;
    let chip = one(&host, "[data-testid=task-subagent-count]");
    // The chip stays the docs/behaviour.md §5 chip, as a button.
    assert_eq!(chip.tag_name(), "BUTTON");
    assert_eq!(attr(&chip, "aria-label"), "2 subagents running");
    assert_eq!(chip.text_content().as_deref(), Some("2"));
    assert_eq!(attr(&chip, "aria-expanded"), "false");
    assert!(host
        .query_selector("[data-testid=board-chip-popover]")
        .unwrap()
        .is_none());
    chip.click();
    settle().await;
    assert_eq!(attr(&chip, "aria-expanded"), "true");
    let popover = one(&host, "[data-testid=board-chip-popover]");
    assert_eq!(attr(&popover, "role"), "dialog");
    let loading = popover.text_content().unwrap_or_default();
    assert!(loading.contains("Loading…"), "{loading}");
    drill.set(Some(drill_view));
    settle().await;
    let items = all(&host, "[data-testid=popover-item]");
    assert_eq!(
        items.iter().map(|i| attr(i, "data-id")).collect::<Vec<_>>(),
        ["bg", "run"]
    );
    let run = one(&host, "[data-testid=popover-item][data-id=run] a");
    assert_eq!(attr(&run, "href"), "/task/task-1#msg-run");
    let text = run.text_content().unwrap();
    assert!(text.contains("code-reviewer"), "{text}");
    assert!(text.contains("the retry path"), "{text}");
    assert!(text.contains("now: Read run-1.rs"), "{text}");
    assert!(text.contains("2m 01s"), "elapsed: {text}");
    assert_eq!(
        one(&host, "[data-id=bg] [data-testid=subagent-status]")
            .text_content()
            .as_deref(),
        Some("background · running")
    );
    // Live: one settles, the list follows.
    let settled = Model::new(
        [
            wave(),
            vec![subagent(
                "run",
                5,
                None,
                "complete",
                json!({"status": "completed"}),
            )],
        ]
        .concat(),
        0,
    );
    drill.set(Some(
        settled.fanout.drill_down(&settled.store, &settled.layout),
    ));
    settle().await;
    assert_eq!(all(&host, "[data-testid=popover-item]").len(), 1);
    assert_eq!(
        one(&host, ".popover-title").text_content().as_deref(),
        Some("1 subagent running")
    );
    key(&popover, "Escape", false);
    settle().await;
    assert!(host
        .query_selector("[data-testid=board-chip-popover]")
        .unwrap()
        .is_none());
    let active = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element();
    assert_eq!(
        active.map(|a| attr(&a, "data-testid")).as_deref(),
        Some("task-subagent-count")
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn a_popover_mounts_alone_with_its_empty_state() {
    let drill = Signal::stored(Some(DrillDownView {
        heading: "0 subagents running".into(),
        items: Vec::new(),
        empty_text: Some("No subagent is running now".into()),
        scale_start: None,
    }));
    let (host, _handle) = mount(move || {
        view! { <ChipPopover id="p" drill href=Callback::new(|a: String| a) on_close=Callback::new(|()| ()) /> }
            .into_any()
    });
    settle().await;
    assert_eq!(
        one(&host, ".popover-note").text_content().as_deref(),
        Some("No subagent is running now")
    );
    host.remove();
}

/// A board card for `task-1` with a chip of `running` subagents that opens a
/// drill-down; the card's signal changes it.
fn mount_chipped_card(running: u64) -> (RwSignal<TaskCard>, web_sys::HtmlElement, impl Drop) {
    let open = RwSignal::new(None::<String>);
    let card = RwSignal::new(TaskCard {
        task_id: "task-1".into(),
        title: "Review wave".into(),
        state: "IN_PROGRESS".into(),
        status: None,
        subagent_chip: subagent_chip(Some(running)),
    });
    let (host, handle) = mount(move || {
        let drill_down = ChipDrillDown::toggling(open, Signal::stored(None), task_href());
        view! { <TaskCardView card href="/task/task-1".into() drill_down /> }.into_any()
    });
    (card, host, handle)
}

/// The card's chip drops to zero, and goes (docs/behaviour.md §5).
async fn chip_goes_at_zero(card: RwSignal<TaskCard>, host: &web_sys::HtmlElement) {
    card.update(|c| c.subagent_chip = subagent_chip(Some(0)));
    settle().await;
    assert!(host
        .query_selector("[data-testid=task-subagent-count]")
        .unwrap()
        .is_none());
}

#[wasm_bindgen_test]
async fn an_open_drill_down_survives_its_chip_changing_and_dropping_to_zero() {
    let (card, host, _handle) = mount_chipped_card(2);
    settle().await;
    one(&host, "[data-testid=task-subagent-count]").click();
    settle().await;
    let popover = one(&host, "[data-testid=board-chip-popover]");
    popover.set_attribute("data-probe", "same").unwrap();
    card.update(|c| c.subagent_chip = subagent_chip(Some(3)));
    settle().await;
    assert_eq!(
        one(&host, "[data-testid=task-subagent-count]")
            .text_content()
            .as_deref(),
        Some("3")
    );
    assert_eq!(
        attr(
            &one(&host, "[data-testid=board-chip-popover]"),
            "data-probe"
        ),
        "same"
    );
    // docs/behaviour.md §5: at zero the chip goes; the drill-down the reader opened stays.
    chip_goes_at_zero(card, &host).await;
    let popover = one(&host, "[data-testid=board-chip-popover]");
    key(&popover, "Escape", false);
    settle().await;
    assert!(host
        .query_selector("[data-testid=board-chip-popover]")
        .unwrap()
        .is_none());
    let active = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .unwrap();
    assert_eq!(active.tag_name(), "A", "focus back on the card's link");
    host.remove();
}

/// Focus is never dropped on the page: a focused chip that goes at zero
/// (docs/behaviour.md §5) hands focus to its card's link.
#[wasm_bindgen_test]
async fn a_focused_chip_that_goes_at_zero_hands_focus_to_the_card_link() {
    let (card, host, _handle) = mount_chipped_card(1);
    settle().await;
    let chip = one(&host, "[data-testid=task-subagent-count]");
    chip.focus().unwrap();
    let document = web_sys::window().unwrap().document().unwrap();
    let focused = document.active_element().unwrap();
    assert_eq!(attr(&focused, "data-testid"), "task-subagent-count");
    chip_goes_at_zero(card, &host).await;
    let active = document.active_element().unwrap();
    assert_eq!(active.tag_name(), "A", "focus on the card's link");
    assert_eq!(attr(&active, "href"), "/task/task-1");
    host.remove();
}

/// docs/behaviour.md §8 honest lifecycle on the board: a task whose only activity is a
/// background or stalled subagent says so on its card rather than "running".
#[wasm_bindgen_test]
async fn a_board_card_says_background_or_stalled_when_that_is_its_only_activity() {
    let idle_with_subagents = Task {
        id: "task-1".into(),
        primary_session_state: Some("IDLE".into()),
        active_subagent_count: Some(1),
        ..Task::default()
    };
    let running = Task {
        primary_session_state: Some("RUNNING".into()),
        ..idle_with_subagents.clone()
    };
    let reported_background = Task {
        foreground_activity: Some("background".into()),
        ..running.clone()
    };
    let stalled = SubagentActivity {
        stalled: 1,
        ..SubagentActivity::default()
    };
    let foreground = SubagentActivity {
        foreground: 1,
        ..stalled
    };
    let cases = [
        (&idle_with_subagents, None, "background", "◔background"),
        (&reported_background, None, "background", "◔background"),
        (&running, Some(stalled), "stalled", "⧖stalled"),
        (&running, Some(foreground), "running", "running"),
        (&running, None, "running", "running"),
    ];
    for (task, known, state, text) in cases {
        let card = TaskCard {
            task_id: task.id.clone(),
            title: "Review wave".into(),
            state: "IN_PROGRESS".into(),
            status: task_status(task, known),
            subagent_chip: subagent_chip(task.active_subagent_count),
        };
        let (host, _handle) =
            mount(move || view! { <TaskCardView card href="/task/task-1".into() /> }.into_any());
        settle().await;
        let badge = one(&host, "[data-testid=task-status]");
        assert_eq!(attr(&badge, "data-state"), state, "{task:?} {known:?}");
        assert_eq!(badge.text_content().unwrap(), text);
        host.remove();
    }
}
