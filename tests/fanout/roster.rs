//! The roster (docs/behaviour.md §8): listing, filtering, sorting, choosing, a
//! long list, live rows.

use super::*;

/// What a mounted roster's buttons call; nothing unless a test says.
struct RosterActions {
    filter: Callback<RosterFilter>,
    sort: Callback<RosterSort>,
    choose: Callback<String>,
    close: Callback<()>,
}

impl Default for RosterActions {
    fn default() -> Self {
        RosterActions {
            filter: Callback::new(|_| ()),
            sort: Callback::new(|_| ()),
            choose: Callback::new(|_| ()),
            close: Callback::new(|()| ()),
        }
    }
}

/// Mounts `<Roster/>` on `model`'s roster for `query` and the rows its list
/// shows, laid out again when either changes.
fn mount_roster(
    model: &Arc<Mutex<Model>>,
    query: Signal<RosterQuery>,
    actions: RosterActions,
) -> (web_sys::HtmlElement, impl Drop) {
    let model = model.clone();
    mount(move || {
        let rows = RwSignal::new(RosterRows::default());
        let roster = Signal::derive(move || {
            let (query, rows) = (query.get(), rows.get());
            let m = &mut *model.lock().unwrap();
            m.fanout.roster(&m.store, &m.layout, query, rows)
        });
        view! {
            <Roster roster on_filter={actions.filter} on_sort={actions.sort}
                on_rows=Callback::new(move |r| rows.set(r)) on_choose={actions.choose}
                on_close={actions.close} />
        }
        .into_any()
    })
}

#[wasm_bindgen_test]
async fn roster_lists_the_store_s_subagents_filters_sorts_and_chooses() {
    let model = Arc::new(Mutex::new(Model::new(wave(), 0)));
    let filter = RwSignal::new(RosterFilter::All);
    let sort = RwSignal::new(RosterSort::Start);
    let chosen = RwSignal::new(None::<String>);
    let closed = RwSignal::new(0);
    let (host, _handle) = mount_roster(
        &model,
        Signal::derive(move || RosterQuery::new(filter.get(), sort.get())),
        RosterActions {
            filter: Callback::new(move |f| filter.set(f)),
            sort: Callback::new(move |s| sort.set(s)),
            choose: Callback::new(move |id| chosen.set(Some(id))),
            close: Callback::new(move |()| closed.update(|n| *n += 1)),
        },
    );
    settle().await;
    let rows = |host: &web_sys::HtmlElement| -> Vec<(String, String)> {
        all(host, "[data-testid=roster-item]")
            .iter()
            .map(|el| (attr(el, "data-id"), attr(el, "data-depth")))
            .collect()
    };
    // docs/behaviour.md §8: every subagent, nested ones under their parent, in start order.
    assert_eq!(
        rows(&host),
        [
            ("rev".into(), "0".into()),
            ("exp".into(), "1".into()),
            ("tst".into(), "0".into()),
            ("bg".into(), "0".into()),
            ("run".into(), "0".into()),
        ]
    );
    let status = |host: &web_sys::HtmlElement, id: &str| {
        one(
            host,
            &format!("[data-testid=roster-item][data-id={id}] [data-testid=roster-status]"),
        )
        .text_content()
        .unwrap_or_default()
    };
    assert_eq!(status(&host, "bg"), "background · running");
    assert_eq!(status(&host, "tst"), "failed");
    let link = one(&host, "[data-id=rev] a");
    assert_eq!(attr(&link, "href"), "#msg-rev");
    assert_eq!(
        attr(&link, "aria-label"),
        "code-reviewer: the closure diff, done, 1m 30s · 48.2k tokens · claude-opus-4-8, APPROVE"
    );
    let figures = one(&host, "[data-id=rev] .roster-figures");
    assert_eq!(
        figures.text_content().as_deref(),
        Some("1m 30s · 48.2k tokens · claude-opus-4-8")
    );
    let summary = one(&host, "[data-id=rev] .roster-summary");
    assert_eq!(summary.text_content().as_deref(), Some("APPROVE"));

    // Filter: running shows the running ones only.
    one(&host, "button[data-filter=running]").click();
    settle().await;
    let ids: Vec<String> = rows(&host).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["bg", "run"]);
    assert_eq!(
        attr(&one(&host, "button[data-filter=running]"), "aria-pressed"),
        "true"
    );

    // Sort by tokens, all: the biggest spender first.
    one(&host, "button[data-filter=all]").click();
    let select: web_sys::HtmlSelectElement =
        one(&host, "[data-testid=roster-sort]").unchecked_into();
    select.set_value("tokens");
    select
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    let ids: Vec<String> = rows(&host).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["rev", "exp", "tst", "bg", "run"]);
    assert_eq!(sort.get_untracked(), RosterSort::Tokens);

    // Choosing one hands its id over instead of following the bare link.
    let before = web_sys::window().unwrap().location().hash().unwrap();
    one(&host, "[data-id=tst] a").click();
    assert_eq!(chosen.get_untracked().as_deref(), Some("tst"));
    assert_eq!(
        web_sys::window().unwrap().location().hash().unwrap(),
        before
    );

    key(
        &one(&host, "[data-testid=subagent-roster]"),
        "Escape",
        false,
    );
    assert_eq!(closed.get_untracked(), 1);
    host.remove();
}

/// The roster's list styles that matter here (the tests load no stylesheet).
const ROSTER_LIST_STYLE: &str = ".roster-scroll { height: 320px; overflow-y: auto; }";

/// docs/behaviour.md §10, a flat DOM: the roster of a session of many subagents holds only
/// the rows on screen (and a few around them), each knowing its place in the
/// whole list; scrolling brings the others, and the keyboard reaches the
/// end and the start of the whole list.
#[wasm_bindgen_test]
async fn a_long_roster_holds_only_the_rows_on_screen_and_the_keyboard_reaches_every_row() {
    let style = document().create_element("style").unwrap();
    style.set_text_content(Some(ROSTER_LIST_STYLE));
    document().head().unwrap().append_child(&style).unwrap();
    let mut events = vec![turn_started("t")];
    events.extend((0..130).map(|n| {
        subagent(
            &format!("s{n}"),
            n + 1,
            None,
            "complete",
            json!({"status": "completed"}),
        )
    }));
    let model = Arc::new(Mutex::new(Model::new(events, 0)));
    let (host, _handle) = mount_roster(
        &model,
        Signal::derive(RosterQuery::default),
        RosterActions::default(),
    );
    frames(2).await;
    let on_screen = (320.0 / ROSTER_ROW_PX) as usize;
    let items = all(&host, "[data-testid=roster-item]");
    assert!(
        items.len() > on_screen && items.len() <= on_screen + 6,
        "{} rows rendered for {on_screen} on screen",
        items.len()
    );
    assert_eq!(attr(&items[0], "data-id"), "s0");
    assert_eq!(attr(&items[0], "aria-posinset"), "1");
    assert_eq!(attr(&items[0], "aria-setsize"), "130");
    assert_eq!(
        one(&host, "[data-testid=roster-count]")
            .text_content()
            .as_deref(),
        Some("130 subagents")
    );
    let list = one(&host, "[data-testid=roster-list]");
    list.set_scroll_top((100.0 * ROSTER_ROW_PX) as i32);
    frames(2).await;
    let s100 = one(&host, "[data-testid=roster-item][data-id=s100]");
    assert_eq!(attr(&s100, "aria-posinset"), "101");
    assert!(all(&host, "[data-testid=roster-item]").len() <= on_screen + 6);
    assert!(host.query_selector("[data-id=s0]").unwrap().is_none());
    let link: web_sys::HtmlElement = s100.query_selector("a").unwrap().unwrap().unchecked_into();
    link.focus().unwrap();
    key(&link, "End", false);
    frames(2).await;
    let focused = document().active_element().expect("a focused link");
    let row = focused
        .closest("[data-testid=roster-item]")
        .unwrap()
        .unwrap();
    assert_eq!(attr(&row, "data-id"), "s129");
    key(&focused, "Home", false);
    frames(2).await;
    let focused = document().active_element().expect("a focused link");
    let row = focused
        .closest("[data-testid=roster-item]")
        .unwrap()
        .unwrap();
    assert_eq!(attr(&row, "data-id"), "s0");
    key(&focused, "ArrowDown", false);
    frames(1).await;
    let focused = document().active_element().expect("a focused link");
    let row = focused
        .closest("[data-testid=roster-item]")
        .unwrap()
        .unwrap();
    assert_eq!(attr(&row, "data-id"), "s1");
    host.remove();
    style.remove();
}

#[wasm_bindgen_test]
async fn roster_rows_appear_and_settle_live() {
    let model = Arc::new(Mutex::new(Model::new(Vec::new(), 0)));
    let version = RwSignal::new(0);
    let query = Signal::derive(move || {
        version.track();
        RosterQuery::default()
    });
    let (host, _handle) = mount_roster(&model, query, RosterActions::default());
    settle().await;
    assert_eq!(
        one(&host, ".roster-empty").text_content().as_deref(),
        Some("No subagents in this transcript yet")
    );
    let apply = |events: Vec<Event>| {
        let m = &mut *model.lock().unwrap();
        let changes = m.store.apply_all(events);
        let diff = m.layout.update(&m.store, &changes);
        m.fanout.record(&m.store, &m.layout, &changes, &diff, 0);
        version.update(|v| *v += 1);
    };
    apply(wave()[..2].to_vec());
    settle().await;
    assert_eq!(all(&host, "[data-testid=roster-item]").len(), 1);
    apply(vec![subagent(
        "run",
        5,
        None,
        "in_progress",
        json!({"status": "started"}),
    )]);
    settle().await;
    let run = one(&host, "[data-id=run]");
    assert_eq!(attr(&run, "data-status"), "running");
    apply(vec![subagent(
        "run",
        5,
        None,
        "complete",
        json!({"status": "completed"}),
    )]);
    settle().await;
    assert_eq!(
        attr(&one(&host, "[data-id=run]"), "data-status"),
        "complete"
    );
    host.remove();
}
