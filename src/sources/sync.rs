//! Following a board, a task or a session: subscribe, fetch, merge into the
//! one store, and do the same again after every reconnect (docs/behaviour.md §7), so
//! the final state equals a run without the fault. The plans (what to fetch,
//! how to merge, what was deleted meanwhile) are `core::client::refetch`;
//! this module only runs them against HTTP and the socket.
//!
//! Each `follow_*` returns a [`Follow`] that stops following when dropped;
//! pages keep it for as long as they are mounted ([`keep_while_mounted`]).

use crate::api::ApiBase;
use crate::live::Live;
use crate::sources::http::{self, HttpError};
use crate::sources::ws::{Connection, HookId};
use leptos::logging::warn;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use taskview_core::model::event::Event;
use taskview_core::read::client::backoff::ConnectionStatus;
use taskview_core::read::client::gate::{ReadGate, SOCKET_WAIT_MS};
use taskview_core::read::client::pending::RequestError;
use taskview_core::read::client::preload::{preview_query, Land, Landing, Previews};
use taskview_core::read::client::refetch::{
    oldest_first, turn_events, SessionRefetch, UnreadableSeen,
};
use taskview_core::read::protocol::{Request, WorkflowList};

/// Restarts allowed when a page cursor vanishes between pages.
const MAX_RESTARTS: u32 = 3;

/// How loading went, for the page to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadState {
    /// The first load is under way.
    Loading,
    /// Data arrived at least once (later failures keep it on screen; the
    /// connection indicator tells what is going on).
    Ready,
    /// The first load failed; the reason, for display.
    Failed(String),
    /// The backend does not know it (HTTP 404).
    NotFound,
}

impl LoadState {
    fn failed(error: &HttpError) -> LoadState {
        if error.is_not_found() {
            LoadState::NotFound
        } else {
            LoadState::Failed(error.to_string())
        }
    }
}

/// What every follower needs: the API base, the store, the connection and
/// the page's previews.
#[derive(Clone)]
pub struct Sources {
    pub api: ApiBase,
    pub live: Live,
    pub connection: Connection,
    pub previews: PagePreviews,
}

impl Sources {
    /// The four from Leptos context.
    pub fn from_context() -> Sources {
        Sources {
            api: expect_context::<ApiBase>(),
            live: expect_context::<Live>(),
            connection: expect_context::<Connection>(),
            previews: expect_context::<PagePreviews>(),
        }
    }
}

/// The previews this page may take (`core::client::preload::Previews`):
/// the reads its server announced with it, read before the socket subscribes.
#[derive(Clone, Default)]
pub struct PagePreviews(Arc<Mutex<Previews>>);

impl PagePreviews {
    /// The previews of the page's own URL.
    pub fn from_location() -> PagePreviews {
        let location = window().location();
        let path = location.pathname().unwrap_or_default();
        let search = location.search().unwrap_or_default();
        let query = search.strip_prefix('?').unwrap_or(&search);
        PagePreviews(Arc::new(Mutex::new(Previews::for_page(&path, query))))
    }

    fn take(&self, take: impl FnOnce(&mut Previews) -> bool) -> bool {
        self.0.lock().is_ok_and(|mut previews| take(&mut previews))
    }
}

/// Where a follow's own read is, for its preview (`core::client::preload`):
/// an answer it took, or the follow's end, stops the preview from landing.
type SharedLanding = Rc<Cell<Landing>>;

/// Moves a follow's read on (`Landing::read_begins`, `read_answers`).
fn step(landing: &SharedLanding, step: fn(&mut Landing)) {
    let mut now = landing.get();
    step(&mut now);
    landing.set(now);
}

/// A running follow; dropping it stops it (hooks removed, work in flight
/// discarded, a preview kept from landing, `on_stop` run).
pub struct Follow {
    connection: Connection,
    hooks: Vec<HookId>,
    generation: Rc<Cell<u64>>,
    landing: SharedLanding,
    on_stop: Option<Box<dyn FnOnce()>>,
}

impl Drop for Follow {
    fn drop(&mut self) {
        for hook in self.hooks.drain(..) {
            self.connection.unhook(hook);
        }
        self.generation.set(self.generation.get() + 1);
        step(&self.landing, Landing::read_answers);
        if let Some(stop) = self.on_stop.take() {
            stop();
        }
    }
}

/// Keeps `follow` running until the current reactive owner (the component)
/// is cleaned up.
pub fn keep_while_mounted(follow: Follow) {
    let follow = SendWrapper::new(follow);
    on_cleanup(move || drop(follow));
}

/// Sets a load state unless data already arrived (a failed refetch keeps
/// the last good view).
fn report(state: &ArcRwSignal<LoadState>, next: LoadState) {
    if next == LoadState::Ready || state.get_untracked() != LoadState::Ready {
        state.set(next);
    }
}

/// Starts a new generation; the returned check says whether it is current.
fn next_generation(generation: &Rc<Cell<u64>>) -> impl Fn() -> bool {
    let mine = generation.get() + 1;
    generation.set(mine);
    let generation = generation.clone();
    move || generation.get() == mine
}

/// Runs `load` when the core read gate says so: at once over an open
/// socket, after the first open for a socket still connecting (a cold page
/// reads once), over HTTP alone when the socket is down or slow to open, and
/// again on every later open. Its argument says whether to subscribe first.
fn load_when_ready(connection: &Connection, load: Rc<dyn Fn(bool)>) -> HookId {
    let gate = Rc::new(RefCell::new(ReadGate::new()));
    let on_open = connection.on_open({
        let (gate, load) = (gate.clone(), load.clone());
        move || load(gate.borrow_mut().opened().subscribe)
    });
    connection.ensure_started();
    let status = connection.status();
    if let Some(read) = gate.borrow_mut().start(&status.get_untracked()) {
        load(read.subscribe);
        return on_open;
    }
    // Waiting: give up on the socket when its first attempt fails or takes
    // too long. Both hold the gate weakly (the open hook holds it): a follow
    // that stopped reads nothing.
    let stop_waiting = {
        let (gate, load) = (Rc::downgrade(&gate), load);
        move || {
            let read = gate.upgrade().and_then(|g| g.borrow_mut().stop_waiting());
            if let Some(read) = read {
                load(read.subscribe);
            }
        }
    };
    let failed = SendWrapper::new(stop_waiting.clone());
    Effect::new(move |_| {
        let down = matches!(
            status.get(),
            ConnectionStatus::Reconnecting { .. } | ConnectionStatus::Offline
        );
        if down {
            failed();
        }
    });
    set_timeout(
        stop_waiting,
        std::time::Duration::from_millis(u64::from(SOCKET_WAIT_MS)),
    );
    on_open
}

/// A follow that runs `load` when the read gate says so (`load_when_ready`)
/// until it is dropped; `generation` is the one `load` checks, `landing`
/// the one its preview checks (if it took one).
fn follow_with(
    sources: &Sources,
    generation: Rc<Cell<u64>>,
    load: Rc<dyn Fn(bool)>,
    landing: SharedLanding,
    on_stop: Option<Box<dyn FnOnce()>>,
) -> Follow {
    let on_open = load_when_ready(&sources.connection, load);
    Follow {
        connection: sources.connection.clone(),
        hooks: vec![on_open],
        generation,
        landing,
        on_stop,
    }
}

/// Follows the workflow list (for `/`, the first workflow's board): read
/// when the read gate says so, each answer handed to `answer` (a backend
/// that was down at first is picked up when its socket opens).
pub fn follow_workflows(
    sources: &Sources,
    answer: impl Fn(Result<WorkflowList, HttpError>) + 'static,
) -> Follow {
    let generation = Rc::new(Cell::new(0));
    let answer = Rc::new(answer);
    let load: Rc<dyn Fn(bool)> = {
        let (api, generation) = (sources.api.clone(), generation.clone());
        Rc::new(move |_socket_open| {
            let current = next_generation(&generation);
            let (api, answer) = (api.clone(), answer.clone());
            leptos::task::spawn_local(async move {
                let result = http::workflows(&api).await;
                if current() {
                    answer(result);
                }
            });
        })
    };
    follow_with(sources, generation, load, SharedLanding::default(), None)
}

/// Follows a board: its snapshot now and after every reconnect (the store
/// re-applies task notifications that arrive while a snapshot is in flight).
pub fn follow_board(sources: &Sources, workflow_id: &str, state: ArcRwSignal<LoadState>) -> Follow {
    let generation = Rc::new(Cell::new(0));
    let load: Rc<dyn Fn(bool)> = {
        let (sources, workflow_id) = (sources.clone(), workflow_id.to_string());
        let generation = generation.clone();
        Rc::new(move |_socket_open| {
            let current = next_generation(&generation);
            sources.live.apply([Event::BoardRequested {
                workflow_id: workflow_id.clone(),
            }]);
            let (sources, workflow_id, state) =
                (sources.clone(), workflow_id.clone(), state.clone());
            leptos::task::spawn_local(async move {
                let result = http::snapshot(&sources.api, &workflow_id).await;
                if !current() {
                    return;
                }
                match result {
                    Ok(snapshot) => {
                        sources.live.apply([Event::BoardLoaded(snapshot)]);
                        report(&state, LoadState::Ready);
                    }
                    Err(e) => {
                        sources
                            .live
                            .apply([Event::BoardRequestFailed { workflow_id }]);
                        report(&state, LoadState::failed(&e));
                    }
                }
            });
        })
    };
    follow_with(sources, generation, load, SharedLanding::default(), None)
}

/// Follows a task's card data (title, primary session): now and after every
/// reconnect. The page's route task is previewed first (the server announced
/// it with the page).
pub fn follow_task(sources: &Sources, task_id: &str, state: ArcRwSignal<LoadState>) -> Follow {
    let generation = Rc::new(Cell::new(0));
    let landing = SharedLanding::default();
    if sources.previews.take(|p| p.take_task(task_id)) {
        preview_task(sources, task_id, &landing, state.clone());
    }
    let load: Rc<dyn Fn(bool)> = {
        let (sources, task_id, generation) =
            (sources.clone(), task_id.to_string(), generation.clone());
        let landing = landing.clone();
        Rc::new(move |_socket_open| {
            let current = next_generation(&generation);
            let (sources, task_id, state) = (sources.clone(), task_id.clone(), state.clone());
            let landing = landing.clone();
            leptos::task::spawn_local(async move {
                let result = http::task(&sources.api, &task_id).await;
                if !current() {
                    return;
                }
                step(&landing, Landing::read_answers);
                match result {
                    Ok(task) => {
                        sources.live.apply([Event::TaskUpdated(task)]);
                        report(&state, LoadState::Ready);
                    }
                    Err(e) => report(&state, LoadState::failed(&e)),
                }
            });
        })
    };
    follow_with(sources, generation, load, landing, None)
}

/// Reads the task now, before the socket subscribes, and shows it unless
/// the follow's own read answered first (docs/behaviour.md §10).
fn preview_task(
    sources: &Sources,
    task_id: &str,
    landing: &SharedLanding,
    state: ArcRwSignal<LoadState>,
) {
    let (sources, task_id, landing) = (sources.clone(), task_id.to_string(), landing.clone());
    leptos::task::spawn_local(async move {
        if let Ok(task) = http::task(&sources.api, &task_id).await {
            if landing.get().land() != Land::Drop {
                sources.live.apply([Event::TaskUpdated(task)]);
                report(&state, LoadState::Ready);
            }
        }
    });
}

/// Follows a session's transcript: the store opens it (afresh unless it is
/// already open), `session.subscribe` is sent, then the session is read whole (pages and
/// turns) and merged; after every reconnect the same again. Without an open
/// socket it is read over HTTP at once, so the page is usable without one.
/// A cold task page previews one screen of the newest messages first (the
/// server announced them with the page).
pub fn follow_session(
    sources: &Sources,
    session_id: &str,
    state: ArcRwSignal<LoadState>,
) -> Follow {
    sources.live.apply([Event::TranscriptOpened {
        session_id: Some(session_id.to_string()),
    }]);
    // A followed session is live (docs/behaviour.md §8).
    sources.live.set_still(false);
    let generation = Rc::new(Cell::new(0));
    let seen = Rc::new(RefCell::new(UnreadableSeen::default()));
    let landing = SharedLanding::default();
    if sources.previews.take(Previews::take_session) {
        preview_session(sources, session_id, &landing, &seen);
    }
    let sync: Rc<dyn Fn(bool)> = {
        let (sources, session_id) = (sources.clone(), session_id.to_string());
        let (generation, landing) = (generation.clone(), landing.clone());
        Rc::new(move |subscribe: bool| {
            let current = next_generation(&generation);
            let (sources, session_id) = (sources.clone(), session_id.clone());
            let (seen, state, landing) = (seen.clone(), state.clone(), landing.clone());
            leptos::task::spawn_local(async move {
                if subscribe {
                    let request = Request::SessionSubscribe {
                        session_id: session_id.clone(),
                    };
                    match sources.connection.request(request).await {
                        // The next open subscribes and loads again.
                        Err(RequestError::Disconnected) => return,
                        Err(e) => warn!("taskview: session.subscribe {session_id}: {e}"),
                        Ok(_) => {}
                    }
                }
                if !current() {
                    return;
                }
                step(&landing, Landing::read_begins);
                match read_session(&sources, &session_id, &seen, &landing, &current).await {
                    Ok(()) => report(&state, LoadState::Ready),
                    Err(e) => report(&state, LoadState::failed(&e)),
                }
            });
        })
    };
    let on_stop = {
        let (connection, session_id) = (sources.connection.clone(), session_id.to_string());
        Box::new(move || {
            if connection.is_open() {
                let unsubscribe = connection.request(Request::SessionUnsubscribe { session_id });
                leptos::task::spawn_local(async move {
                    // Best effort: the server forgets subscriptions on close anyway.
                    let _ = unsubscribe.await;
                });
            }
        })
    };
    follow_with(sources, generation, sync, landing, Some(on_stop))
}

/// Reads one screen of the session's newest messages now, before the socket
/// subscribes, and shows them unless the follow's own read took a page first
/// (docs/behaviour.md §10); a read that began starts over, so it decides about these
/// messages too. Unreadable elements count as seen, as the store holds them.
fn preview_session(
    sources: &Sources,
    session_id: &str,
    landing: &SharedLanding,
    seen: &Rc<RefCell<UnreadableSeen>>,
) {
    let (sources, session_id) = (sources.clone(), session_id.to_string());
    let (landing, seen) = (landing.clone(), seen.clone());
    leptos::task::spawn_local(async move {
        let page = http::messages(&sources.api, &session_id, &preview_query()).await;
        let Ok(page) = page else {
            return;
        };
        let land = landing.get().land();
        if land == Land::Drop {
            return;
        }
        let mut events = oldest_first(&page, &mut seen.borrow_mut());
        if land == Land::ShowAndRestart {
            events.push(SessionRefetch::new(&session_id).started());
        }
        sources.live.apply(events);
    });
}

/// Reads a session whole (core `SessionRefetch`) and its turns into the store.
/// Stops quietly when `current` turns false (a newer read or the page left).
async fn read_session(
    sources: &Sources,
    session_id: &str,
    seen: &RefCell<UnreadableSeen>,
    landing: &SharedLanding,
    current: &impl Fn() -> bool,
) -> Result<(), HttpError> {
    let mut plan = SessionRefetch::new(session_id);
    sources.live.apply([plan.started()]);
    let mut restarts = 0;
    while let Some(query) = plan.next_query() {
        match http::messages(&sources.api, session_id, &query).await {
            Ok(page) => {
                if !current() {
                    return Ok(());
                }
                step(landing, Landing::read_answers);
                let taken = plan.take_page(&page, &mut seen.borrow_mut());
                sources.live.apply(taken.events);
            }
            Err(e) if e.is_not_found() && query.before.is_some() && restarts < MAX_RESTARTS => {
                restarts += 1;
                plan.restart();
            }
            Err(e) => return Err(e),
        }
    }
    if !current() {
        return Ok(());
    }
    sources.live.apply(plan.finished());
    let turns = http::turns(&sources.api, session_id).await?;
    if current() {
        sources.live.apply(turn_events(session_id, &turns));
    }
    Ok(())
}
