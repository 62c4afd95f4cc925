//! The search box (docs/behaviour.md §8): keys, count, focus, the highlighted match.

use super::*;

#[wasm_bindgen_test]
async fn search_box_reports_keys_and_the_count_and_slash_focuses_it() {
    let queries = RwSignal::new(Vec::<String>::new());
    let steps = RwSignal::new(Vec::<bool>::new());
    let count = RwSignal::new(String::new());
    let (host, _handle) = mount(move || {
        view! {
            <TranscriptSearch count
                on_query=Callback::new(move |q| queries.update(|v| v.push(q)))
                on_step=Callback::new(move |f| steps.update(|v| v.push(f))) />
        }
        .into_any()
    });
    settle().await;
    let input: web_sys::HtmlInputElement =
        one(&host, "[data-testid=transcript-search]").unchecked_into();
    assert_eq!(attr(&input, "aria-label"), "Search this transcript");
    assert!(host.query_selector("[role=search]").unwrap().is_some());
    // `/` anywhere but in a field focuses the box.
    key(
        &web_sys::window()
            .unwrap()
            .document()
            .unwrap()
            .body()
            .unwrap(),
        "/",
        false,
    );
    let active = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element();
    assert_eq!(
        active.map(|a| attr(&a, "data-testid")).as_deref(),
        Some("transcript-search")
    );
    input.set_value("closure");
    input
        .dispatch_event(&web_sys::Event::new("input").unwrap())
        .unwrap();
    assert_eq!(queries.get_untracked(), ["closure"]);
    key(&input, "Enter", false);
    key(&input, "Enter", true);
    assert_eq!(steps.get_untracked(), [true, false]);
    count.set("3 of 12".into());
    settle().await;
    let shown = one(&host, "[data-testid=search-count]");
    assert_eq!(shown.text_content().as_deref(), Some("3 of 12"));
    assert_eq!(attr(&shown, "role"), "status");
    host.remove();
}

#[wasm_bindgen_test]
async fn the_current_search_match_is_highlighted() {
    let mut model = Model::new(wave(), 0);
    model.fanout.search(&model.layout, "retry path");
    model.fanout.step(&model.layout, true);
    let card = model.card("run");
    assert!(card.highlighted);
    let (host, _handle) = mount(move || {
        view! { <SubagentCard card frame=RowFrame::at(0) on_toggle=Callback::new(|()| ())><span></span></SubagentCard> }
            .into_any()
    });
    settle().await;
    let el = one(&host, "[data-testid=subagent-card]");
    assert_eq!(attr(&el, "data-search-hit"), "true");
    assert!(el.class_list().contains("search-hit"));
    host.remove();
}
