//! Browser tests of opening long transcripts (docs/behaviour.md §4, §10):
//! a file read in chunks shows rows and an accessible progress bar before it
//! is read whole; rows landing above (an older page) leave the reader where
//! they were; a live list that follows its tail stays at the end; a deep
//! link is held in view until the reader scrolls it away.
#![cfg(target_arch = "wasm32")]

use leptos::{prelude::*, task::tick};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use taskview_app::components::progress::ProgressBar;
use taskview_app::live::transcript::LiveTranscript;
use taskview_app::live::Live;
use taskview_app::sources::progressive::read_into;
use taskview_core::model::event::Event;
use taskview_core::model::message::Message;
use taskview_core::read::import::progressive::Progressive;
use taskview_core::screen::view::progress::reading_progress;
use taskview_core::screen::view::row::body_id;
use taskview_core::state::layout::RowKey;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

mod support;

use support::mount;
use support::transcript::frames;

wasm_bindgen_test_configure!(run_in_browser);

/// The app's list styles that matter here (the tests load no stylesheet).
const LIST_STYLE: &str =
    ".transcript-scroll { height: 400px; overflow-y: auto; overflow-anchor: none; position: relative; }
     .row-slot { display: flow-root; }";

fn at(n: u64) -> String {
    format!(
        "2026-08-03T{:02}:{:02}:{:02}Z",
        n / 3600,
        n / 60 % 60,
        n % 60
    )
}

fn user(id: &str, n: u64) -> Value {
    json!({"id": id, "session_id": "s", "author_type": "user", "type": "message",
        "content": format!("message {id}"), "created_at": at(n), "updated_at": at(n)})
}

fn added(v: Value) -> Event {
    Event::MessageAdded(Message::from_value(&v).unwrap())
}

/// Messages `m<n>` for the seconds in `range`.
fn users(range: std::ops::Range<u64>) -> Vec<Event> {
    range.map(|n| added(user(&format!("m{n}"), n))).collect()
}

/// A subagent card `card` with one child `child`, at second `n`.
fn card_with_child(card: &str, child: &str, n: u64) -> Vec<Event> {
    vec![
        added(
            json!({"id": card, "session_id": "s", "type": "tool_call", "created_at": at(n),
            "metadata": {"tool_call_id": format!("tc-{card}"), "status": "complete",
                "normalized": {"kind": "subagent_task", "subagent_task": {
                    "subagent_type": "explorer", "description": "look", "result_text": "done"}}}}),
        ),
        added(
            json!({"id": child, "session_id": "s", "type": "tool_read", "created_at": at(n),
            "content": "Read a.rs", "metadata": {"tool_call_id": format!("tc-{child}"),
                "parent_tool_call_id": format!("tc-{card}"), "status": "complete"}}),
        ),
    ]
}

/// A subagent card `card` at second `n` with `children` children (each a
/// row of its own, so the open card is taller than the 400 px list).
fn card_with_children(card: &str, children: u64, n: u64) -> Vec<Event> {
    let mut events = card_with_child(card, &format!("{card}-c0"), n);
    events.extend((1..children).map(|c| {
        added(
            json!({"id": format!("{card}-c{c}"), "session_id": "s", "type": "tool_read",
            "created_at": at(n), "content": format!("Read {c}.rs"),
            "metadata": {"tool_call_id": format!("tc-{card}-c{c}"),
                "parent_tool_call_id": format!("tc-{card}"), "status": "complete"}}),
        )
    }));
    events
}

/// A turn group of `calls` tool calls at second `n`, its first `<first>-0`.
fn group(first: &str, calls: u64, n: u64) -> Vec<Event> {
    (0..calls)
        .map(|c| {
            added(
                json!({"id": format!("{first}-{c}"), "session_id": "s", "type": "tool_execute",
                "turn_id": format!("turn-{first}"), "created_at": at(n),
                "content": format!("cargo test {c}"), "metadata": {
                    "tool_call_id": format!("tc-{first}-{c}"), "title": format!("cargo test {c}"),
                    "status": "complete"}}),
            )
        })
        .collect()
}

/// A transcript list mounted in a 400 px scroller.
struct List {
    host: HtmlElement,
    live: Live,
    _handle: Box<dyn std::any::Any>,
}

impl List {
    async fn mount(live: Live, start_at_end: bool) -> List {
        let style = document().create_element("style").unwrap();
        style.set_text_content(Some(LIST_STYLE));
        document().head().unwrap().append_child(&style).unwrap();
        let in_view = live.clone();
        let (host, handle) = mount(move || {
            provide_context(in_view);
            view! { <LiveTranscript start_at_end /> }.into_any()
        });
        let list = List {
            host,
            live,
            _handle: Box::new(handle),
        };
        frames(3).await;
        list
    }

    async fn apply(&self, events: Vec<Event>) {
        self.live.apply(events);
        frames(3).await;
    }

    fn scroller(&self) -> HtmlElement {
        self.host
            .query_selector("[data-testid=transcript]")
            .unwrap()
            .unwrap()
            .unchecked_into()
    }

    /// The reader scrolls the list to `top` (the browser fires the scroll).
    async fn scroll_to(&self, top: i32) {
        self.scroller().set_scroll_top(top);
        frames(3).await;
    }

    /// Where row `key`'s slot is, relative to the top of the scroller.
    fn row_top(&self, key: &str) -> Option<f64> {
        let slot = self
            .host
            .query_selector(&format!(".row-slot[data-row-key=\"{key}\"]"))
            .unwrap()?;
        Some(
            slot.get_bounding_client_rect().top()
                - self.scroller().get_bounding_client_rect().top(),
        )
    }

    /// Where element `id` is, relative to the top of the scroller.
    fn element_top(&self, id: &str) -> Option<f64> {
        let el = document().get_element_by_id(id)?;
        Some(el.get_bounding_client_rect().top() - self.scroller().get_bounding_client_rect().top())
    }

    /// The header of toggleable row `key` (the button that controls its body).
    fn header(&self, key: &RowKey) -> HtmlElement {
        let body = document()
            .get_element_by_id(&body_id(key))
            .unwrap_or_else(|| panic!("no body of {key}: {}", self.host.inner_html()));
        let head = body
            .parent_element()
            .unwrap()
            .first_element_child()
            .unwrap();
        head.unchecked_into()
    }

    /// Where row `key`'s header is, relative to the top of the scroller.
    fn header_top(&self, key: &RowKey) -> f64 {
        self.header(key).get_bounding_client_rect().top()
            - self.scroller().get_bounding_client_rect().top()
    }

    /// Where row `key`'s header is from the top of the list's content.
    fn header_offset(&self, key: &RowKey) -> f64 {
        self.header_top(key) + f64::from(self.scroller().scroll_top())
    }

    /// Activates row `key`'s header as the reader's click does (a pointer
    /// down, then the click), wherever it is (no scrolling to it first).
    async fn toggle(&self, key: &RowKey) {
        let header = self.header(key);
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        let down = web_sys::Event::new_with_event_init_dict("pointerdown", &init).unwrap();
        header.dispatch_event(&down).unwrap();
        header.click();
        frames(3).await;
    }

    fn at_bottom(&self) -> bool {
        let s = self.scroller();
        s.scroll_top() + s.client_height() >= s.scroll_height() - 2
    }
}

impl Drop for List {
    fn drop(&mut self) {
        self.host.remove();
    }
}

#[wasm_bindgen_test]
async fn the_progress_bar_is_an_accessible_progressbar_updated_in_place() {
    let progress = RwSignal::new(reading_progress(0.25));
    let (host, _handle) =
        mount(move || view! { <ProgressBar progress=progress.into() /> }.into_any());
    tick().await;
    let bar = host.query_selector("[role=progressbar]").unwrap().unwrap();
    let attr = |name: &str| bar.get_attribute(name).unwrap_or_default();
    assert_eq!(
        [
            attr("aria-valuemin"),
            attr("aria-valuemax"),
            attr("aria-valuenow")
        ],
        ["0", "100", "25"]
    );
    assert_eq!(attr("aria-label"), "Reading the transcript");
    assert_eq!(attr("aria-valuetext"), "25% read");
    progress.set(reading_progress(0.8));
    tick().await;
    let same = host.query_selector("[role=progressbar]").unwrap().unwrap();
    assert!(same.is_same_node(Some(&bar)), "updated in place");
    assert_eq!(attr("aria-valuenow"), "80");
    let fill: HtmlElement = bar
        .query_selector(".progress-fill")
        .unwrap()
        .unwrap()
        .unchecked_into();
    assert_eq!(fill.style().get_property_value("width").unwrap(), "80%");
}

#[wasm_bindgen_test]
async fn a_file_read_in_chunks_shows_rows_before_it_is_read_whole() {
    const TOTAL: u64 = 3000;
    let list: Vec<Value> = (0..TOTAL).map(|n| user(&format!("m{n}"), n)).collect();
    let file = Progressive::open(json!({ "messages": list }).to_string()).unwrap();
    let mounted = List::mount(Live::new(), false).await;
    // After each chunk: the bar's value, the rows on screen, the messages held.
    let seen = Rc::new(RefCell::new(Vec::new()));
    let record = {
        let (seen, host, live) = (seen.clone(), mounted.host.clone(), mounted.live.clone());
        move |progress: taskview_core::screen::view::progress::ProgressView| {
            let rows = host.query_selector_all(".row-slot").unwrap().length();
            seen.borrow_mut()
                .push((progress.percent, rows, live.entries()));
            true
        }
    };
    assert!(read_into(&mounted.live, file, record).await);
    let seen = seen.borrow().clone();
    assert!(seen.len() > 2, "read in several chunks: {seen:?}");
    assert!(
        seen.iter()
            .any(|(percent, rows, held)| *percent < 100 && *rows > 0 && (*held as u64) < TOTAL),
        "rows showed while the file was still being read: {seen:?}"
    );
    assert!(
        seen.windows(2).all(|w| w[0].0 <= w[1].0),
        "progress only grows"
    );
    assert_eq!(seen.last().map(|s| s.0), Some(100));
    assert_eq!(mounted.live.entries() as u64, TOTAL);
    frames(2).await;
    assert_eq!(
        mounted.row_top("m0"),
        Some(0.0),
        "a file is read from its first row"
    );
}

/// The feed's articles say where they stand in the whole list (ARIA feed
/// pattern): only a window of rows is in the DOM, so a screen reader learns
/// the place and the total from `aria-posinset` and `aria-setsize`.
#[wasm_bindgen_test]
async fn feed_articles_carry_their_place_in_the_whole_list() {
    let mounted = List::mount(Live::new(), false).await;
    mounted.apply(users(0..300)).await;
    mounted.scroll_to(6000).await;
    let places = |host: &HtmlElement| -> Vec<(usize, usize)> {
        let slots = host.query_selector_all(".row-slot[role=article]").unwrap();
        (0..slots.length())
            .filter_map(|i| slots.item(i)?.dyn_into::<web_sys::Element>().ok())
            .map(|el| {
                let number = |name: &str| el.get_attribute(name).unwrap().parse().unwrap();
                (number("aria-posinset"), number("aria-setsize"))
            })
            .collect()
    };
    let seen = places(&mounted.host);
    assert!(
        seen.len() > 3 && seen.len() < 300,
        "a window of rows: {seen:?}"
    );
    assert!(seen[0].0 > 1, "scrolled past the first rows: {seen:?}");
    assert!(
        seen.windows(2).all(|w| w[1].0 == w[0].0 + 1),
        "consecutive places: {seen:?}"
    );
    assert!(seen.iter().all(|&(_, total)| total == 300));
    mounted.apply(users(300..310)).await;
    assert!(places(&mounted.host).iter().all(|&(_, total)| total == 310));
}

#[wasm_bindgen_test]
async fn rows_landing_above_leave_the_reader_where_they_were() {
    let mounted = List::mount(Live::new(), false).await;
    mounted.apply(users(1000..1200)).await;
    mounted.scroll_to(2000).await;
    let key = (1000..1200)
        .map(|n| format!("m{n}"))
        .find(|k| mounted.row_top(k).is_some_and(|t| t >= 0.0))
        .expect("a row in view");
    let before = mounted.row_top(&key).unwrap();
    // An older page lands above, then another.
    mounted.apply(users(500..1000)).await;
    mounted.apply(users(0..500)).await;
    let after = mounted.row_top(&key);
    assert!(
        after.is_some_and(|a| (a - before).abs() <= 2.0),
        "row {key} moved from {before} to {after:?}"
    );
}

#[wasm_bindgen_test]
async fn a_list_that_follows_its_tail_stays_at_the_end_as_older_and_newer_rows_land() {
    let mounted = List::mount(Live::new(), true).await;
    mounted.apply(users(1000..1100)).await;
    assert!(mounted.at_bottom());
    mounted.apply(users(0..1000)).await;
    assert!(mounted.at_bottom(), "older rows landed above");
    assert!(mounted
        .element_top("msg-m1099")
        .is_some_and(|t| (0.0..400.0).contains(&t)));
    mounted.apply(users(1100..1110)).await;
    assert!(mounted.at_bottom(), "newer rows arrived");
    assert!(mounted
        .element_top("msg-m1109")
        .is_some_and(|t| (0.0..400.0).contains(&t)));
}

/// A reader who reaches the end just before a batch lands (the browser has
/// not fired the scroll yet) follows it: the scroll is taken against the
/// rows it was made on, not against the list the batch made longer.
#[wasm_bindgen_test]
async fn reaching_the_end_just_before_a_batch_lands_follows_it() {
    let mounted = List::mount(Live::new(), false).await;
    mounted.apply(users(0..200)).await;
    assert!(!mounted.at_bottom(), "a file starts at its top");
    let scroller = mounted.scroller();
    scroller.set_scroll_top(scroller.scroll_height());
    // The same task: no frame, so no scroll event, in between.
    mounted.live.apply(users(200..210));
    frames(3).await;
    assert!(mounted.at_bottom(), "the list follows the batch");
    assert!(mounted
        .element_top("msg-m209")
        .is_some_and(|t| (0.0..400.0).contains(&t)));
}

/// Rows below the reader getting shorter pull the list's end up past its
/// offset, and the browser clamps the offset: that is not the reader's
/// scroll, so the list keeps its reading position and does not start
/// following its tail (a held deep link is not released by it either).
#[wasm_bindgen_test]
async fn rows_shrinking_below_the_reader_do_not_make_the_list_follow() {
    let mounted = List::mount(Live::new(), false).await;
    let mut long = user("long", 100);
    long["content"] = json!("a paragraph\n\n".repeat(60));
    let mut events = users(0..100);
    events.push(added(long.clone()));
    mounted.apply(events).await;
    let scroller = mounted.scroller();
    // To the end and back, once every row there is measured.
    scroller.set_scroll_top(scroller.scroll_height());
    frames(6).await;
    let end = scroller.scroll_height() - scroller.client_height();
    mounted.scroll_to(end - 300).await;
    assert!(!mounted.at_bottom());
    long["content"] = json!("short now");
    let shorter = Message::from_value(&long).unwrap();
    mounted
        .apply(vec![Event::MessageUpdated(shorter.into())])
        .await;
    let shrunk = scroller.scroll_height() - scroller.client_height();
    assert!(
        shrunk < end - 600,
        "the list got shorter than the reader's offset: {end} -> {shrunk}"
    );
    mounted.apply(users(101..200)).await;
    assert!(!mounted.at_bottom(), "the list does not follow its tail");
}

#[wasm_bindgen_test]
async fn a_deep_link_is_held_in_view_until_the_reader_scrolls_it_away() {
    let mounted = List::mount(Live::new(), true).await;
    mounted.apply(users(1000..1100)).await;
    // The link names a child that arrives later, inside a card, mid-session.
    mounted.live.follow_anchor("child");
    frames(2).await;
    assert!(
        mounted.at_bottom(),
        "nothing to reveal yet: still following"
    );
    mounted.apply(card_with_child("card", "child", 1050)).await;
    let in_view = |m: &List| {
        m.element_top("msg-child")
            .is_some_and(|t| (0.0..392.0).contains(&t))
    };
    assert!(
        in_view(&mounted),
        "revealed: {:?}",
        mounted.element_top("msg-child")
    );
    // Rows arriving above and below do not move it out of view, nor does following the tail.
    mounted.apply(users(1100..1150)).await;
    mounted.apply(users(0..300)).await;
    assert!(
        in_view(&mounted),
        "held: {:?}",
        mounted.element_top("msg-child")
    );
    assert!(!mounted.at_bottom(), "following stopped");
    // The reader scrolls it away: it stays away.
    mounted.scroll_to(0).await;
    mounted.apply(users(1150..1160)).await;
    assert!(!in_view(&mounted), "released");
    assert!(mounted.scroller().scroll_top() < 100);
}

#[wasm_bindgen_test]
async fn row_triggers_are_held_only_by_mounted_rows() {
    let mounted = List::mount(Live::new(), false).await;
    mounted.apply(users(0..2000)).await;
    let mounted_rows = || {
        mounted
            .host
            .query_selector_all("[id^=msg-]")
            .unwrap()
            .length() as usize
    };
    let at_top = mounted.live.held_rows();
    assert_eq!(at_top, mounted_rows(), "one trigger per mounted row");
    // Scrolling through the whole list: rows scrolled away release theirs.
    for top in (0..2000 * 44).step_by(20_000) {
        mounted.scroll_to(top).await;
    }
    assert_eq!(mounted.live.held_rows(), mounted_rows());
    assert!(
        mounted.live.held_rows() < 60,
        "bounded by the window, not the session"
    );
    // Rows that no longer exist release theirs too.
    let gone: Vec<Event> = (0..2000)
        .map(|n| Event::MessageDeleted {
            id: format!("m{n}"),
        })
        .collect();
    mounted.apply(gone).await;
    assert_eq!(mounted.live.held_rows(), 0);
}

/// Reading position: collapsing a deep-linked card taller than the
/// screen keeps its header on screen where it was, as far as the rows after
/// it allow, on a list that followed its tail (a live session): the list
/// does not take the clamped scroll for the reader reaching the end.
#[wasm_bindgen_test]
async fn collapsing_a_deep_linked_card_keeps_its_header_where_it_was() {
    let mounted = List::mount(Live::new(), true).await;
    mounted.apply(users(1000..1100)).await;
    mounted.apply(card_with_children("card", 40, 1097)).await;
    mounted.live.follow_anchor("card");
    frames(3).await;
    let card = RowKey::Message("card".into());
    let before = mounted.header_top(&card);
    assert!(before.abs() <= 2.0, "revealed at the top: {before}");
    mounted.toggle(&card).await;
    assert_eq!(
        mounted
            .header(&card)
            .get_attribute("aria-expanded")
            .as_deref(),
        Some("false")
    );
    // Two rows follow it: the list ends below them, so the header is as
    // high as the end of the list lets it be.
    let end = 400.0 - (mounted.scroller().scroll_height() as f64 - mounted.header_offset(&card));
    let after = mounted.header_top(&card);
    assert!(
        (after - end.max(before)).abs() <= 2.0,
        "the header moved from {before} to {after}, expected {}",
        end.max(before)
    );
    // Later rows do not take the reader to the tail: they let the header
    // go back where it was.
    mounted.apply(users(1100..1110)).await;
    let later = mounted.header_top(&card);
    assert!((later - before).abs() <= 2.0, "moved to {later}");
    assert!(!mounted.at_bottom(), "not following the tail");
}

/// A card closed by its header while the reader is inside it
/// (its header scrolled off the top, reached by the keyboard) puts its
/// header at the top of the list, not the reader among the rows below it.
#[wasm_bindgen_test]
async fn a_card_closed_while_the_reader_is_inside_it_brings_its_header_to_the_top() {
    let mounted = List::mount(Live::new(), false).await;
    mounted.apply(users(0..30)).await;
    mounted.apply(card_with_children("card", 40, 15)).await;
    let card = RowKey::Message("card".into());
    mounted.toggle(&card).await;
    let opened = mounted.scroller().scroll_top() as f64 + mounted.header_top(&card);
    mounted.scroll_to((opened + 600.0) as i32).await;
    assert!(
        mounted.header_top(&card) < -500.0,
        "the reader is inside the card"
    );
    mounted.toggle(&card).await;
    let after = mounted.header_top(&card);
    assert!(after.abs() <= 2.0, "the header is at {after}, not the top");
}

/// The same for a turn group taller than the screen.
#[wasm_bindgen_test]
async fn a_group_closed_while_the_reader_is_inside_it_brings_its_header_to_the_top() {
    let mounted = List::mount(Live::new(), false).await;
    mounted.apply(users(0..30)).await;
    mounted.apply(group("g", 40, 15)).await;
    let group = RowKey::Group("g-0".into());
    mounted.toggle(&group).await;
    let opened = mounted.scroller().scroll_top() as f64 + mounted.header_top(&group);
    mounted.scroll_to((opened + 300.0) as i32).await;
    assert!(
        mounted.header_top(&group) < -200.0,
        "the reader is inside the group"
    );
    mounted.toggle(&group).await;
    let after = mounted.header_top(&group);
    assert!(after.abs() <= 2.0, "the header is at {after}, not the top");
}
