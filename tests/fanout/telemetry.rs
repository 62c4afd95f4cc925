//! What only telemetry knows (docs/behaviour.md §7 "OpenTelemetry"): the card's meta row and the
//! roster's figures show time to first token, permission waits, retries and
//! cost when the card has them, and a card without telemetry shows none.

use super::*;

/// The wave, its reviewer carrying telemetry's figures.
fn wave_with_telemetry() -> Vec<Event> {
    let mut events = wave();
    events.push(subagent(
        "rev",
        1,
        None,
        "complete",
        json!({"subagent_type": "code-reviewer", "description": "the closure diff",
        "status": "completed", "total_tokens": 48213, "duration_ms": 90278,
        "model": "claude-opus-4-8", "result_text": "APPROVE",
        "telemetry": {"requests": 4, "ttft_ms": 812, "permission_waits": 1,
                      "blocked_ms": 5200, "retries": 2, "cost_usd": 0.4123}}),
    ));
    events
}

fn meta_texts(host: &web_sys::HtmlElement) -> Vec<(String, String)> {
    all(host, "[data-testid=subagent-meta] > *")
        .iter()
        .map(|c| (attr(c, "data-testid"), c.text_content().unwrap_or_default()))
        .collect()
}

#[wasm_bindgen_test]
async fn a_card_with_telemetry_shows_ttft_waits_retries_and_cost_and_one_without_shows_none() {
    let model = Model::new(wave_with_telemetry(), 0);
    let card = model.card("rev");
    let plain = model.card("exp");
    let (host, _handle) = mount(move || {
        view! { <SubagentCard card frame=RowFrame::at(0) on_toggle=Callback::new(|()| ())><span></span></SubagentCard> }
            .into_any()
    });
    settle().await;
    let meta = meta_texts(&host);
    let telemetry: Vec<(&str, &str)> = meta
        .iter()
        .filter(|(id, _)| {
            ["ttft", "waits", "retries", "cost"]
                .iter()
                .any(|k| id == &format!("subagent-meta-{k}"))
        })
        .map(|(id, text)| (id.as_str(), text.as_str()))
        .collect();
    assert_eq!(
        telemetry,
        [
            ("subagent-meta-ttft", "TTFT 812ms"),
            ("subagent-meta-waits", "1 permission wait · 5.2s"),
            ("subagent-meta-retries", "2 retries"),
            ("subagent-meta-cost", "$0.412"),
        ]
    );
    assert_eq!(
        attr(&one(&host, "[data-testid=subagent-meta-cost]"), "title"),
        "cost reported by telemetry: $0.412300"
    );
    host.remove();

    let (host, _handle) = mount(move || {
        view! { <SubagentCard card=plain frame=RowFrame::at(0) on_toggle=Callback::new(|()| ())><span></span></SubagentCard> }
            .into_any()
    });
    settle().await;
    let meta = meta_texts(&host);
    assert!(!meta.is_empty(), "its other figures are there");
    assert!(
        meta.iter()
            .all(|(id, _)| !id.ends_with("ttft") && !id.ends_with("cost")),
        "{meta:?}"
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn the_roster_shows_telemetry_s_figures_and_sorts_by_cost() {
    let model = Arc::new(Mutex::new(Model::new(wave_with_telemetry(), 0)));
    let model_for_view = model.clone();
    let sort = RwSignal::new(RosterSort::Start);
    let (host, _handle) = mount(move || {
        let model = model_for_view.clone();
        let roster = Signal::derive(move || {
            let m = &mut *model.lock().unwrap();
            m.fanout.roster(
                &m.store,
                &m.layout,
                RosterQuery::new(RosterFilter::All, sort.get()),
                RosterRows::ALL,
            )
        });
        view! {
            <Roster roster on_filter=Callback::new(|_| ()) on_sort=Callback::new(move |s| sort.set(s))
                on_rows=Callback::new(|_| ()) on_choose=Callback::new(|_| ())
                on_close=Callback::new(|()| ()) />
        }
        .into_any()
    });
    settle().await;
    let figures = one(&host, "[data-id=rev] .roster-figures");
    assert_eq!(
        figures.text_content().as_deref(),
        Some("1m 30s · 48.2k tokens · claude-opus-4-8 · TTFT 812ms · 1 permission wait · 5.2s · 2 retries · $0.412")
    );
    assert!(attr(&one(&host, "[data-id=rev] a"), "aria-label").contains("$0.412"));
    let tst = one(&host, "[data-id=tst] .roster-figures");
    assert!(!tst.text_content().unwrap_or_default().contains('$'));
    let select: web_sys::HtmlSelectElement =
        one(&host, "[data-testid=roster-sort]").unchecked_into();
    select.set_value("cost");
    select
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    assert_eq!(sort.get_untracked(), RosterSort::Cost);
    let first = one(&host, "[data-testid=roster-item]");
    assert_eq!(attr(&first, "data-id"), "rev", "the costliest first");
    host.remove();
}
