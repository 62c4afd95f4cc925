//! The card's lifecycle marker and token figures (docs/behaviour.md §8).

use super::*;

#[wasm_bindgen_test]
async fn cards_say_background_running_then_stalled_with_the_idle_time_in_title() {
    let mut model = Model::new(wave(), 0);
    let card = RwSignal::new(model.card("bg"));
    let (host, _handle) = mount(move || {
        view! { <SubagentCard card frame=RowFrame::at(0) on_toggle=Callback::new(|()| ())><span></span></SubagentCard> }
            .into_any()
    });
    settle().await;
    let status = one(&host, "[data-testid=subagent-status]");
    assert_eq!(
        status.text_content().as_deref(),
        Some("background · running")
    );
    model.fanout.tick(&model.store, &model.layout, 6 * MINUTE);
    card.set(model.card("bg"));
    settle().await;
    let status = one(&host, "[data-testid=subagent-status]");
    assert_eq!(
        status.text_content().as_deref(),
        Some("background · stalled")
    );
    assert_eq!(attr(&status, "data-state"), "stalled");
    assert_eq!(attr(&status, "title"), "no new child or update for 6m 02s");
    host.remove();
}

#[wasm_bindgen_test]
async fn a_parent_card_shows_own_and_nested_tokens_and_what_it_returned() {
    let model = Model::new(wave(), 0);
    let card = model.card("rev");
    let (host, _handle) = mount(move || {
        view! { <SubagentCard card frame=RowFrame::at(0) on_toggle=Callback::new(|()| ())><span></span></SubagentCard> }
            .into_any()
    });
    settle().await;
    let meta: Vec<String> = all(&host, "[data-testid=subagent-meta] > *")
        .iter()
        .map(|c| c.text_content().unwrap_or_default())
        .collect();
    assert_eq!(
        meta,
        [
            "1m 30s",
            "48.2k tokens",
            "61k with nested",
            "~2 tokens returned of 48.2k",
            "claude-opus-4-8"
        ]
    );
    host.remove();
}
