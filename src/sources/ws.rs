//! The page's one WebSocket connection to the backend (docs/protocol.md §5.2).
//!
//! It opens lazily (the first board or session that needs it), sends
//! `user.subscribe` on every connect, correlates requests with their replies
//! (deadlines from `core::client::pending`), pushes notifications as store
//! events into [`Live::apply`] (the store decides what belongs to the open
//! transcript), and counts unusable frames per kind, logging
//! each kind once with `console.warn`. When the socket closes it reconnects
//! on the schedule of `core::client::backoff`, and the status signal drives
//! the connection indicator. Whoever needs to re-subscribe and refetch after
//! a reconnect registers an [`Connection::on_open`] hook (`sources::sync`).
//!
//! The JS handles are not `Send`; the handle lives in a `SendWrapper` so it
//! can sit in Leptos context (the browser is single-threaded).

use crate::api::ApiBase;
use crate::live::stages::{self, Stage};
use crate::live::Live;
use futures_channel::oneshot;
use leptos::logging::warn;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::future::Future;
use std::rc::{Rc, Weak};
use std::time::Duration;
use taskview_core::read::client::backoff::{seconds_until, ConnectionStatus, Reconnect, Retry};
use taskview_core::read::client::inbox::{read_frame, FrameIssue, Incoming, IssueLog};
use taskview_core::read::client::pending::{Pending, RequestError};
use taskview_core::read::protocol::Request;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CloseEvent, MessageEvent, WebSocket};

/// The outcome of a request.
pub type Reply = Result<Value, RequestError>;

/// Identifies a registered hook, for [`Connection::unhook`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookId(u64);

/// A cheap, cloneable handle to the page's connection.
#[derive(Clone)]
pub struct Connection {
    shared: SendWrapper<Rc<Shared>>,
}

struct Shared {
    url: String,
    live: Live,
    status: ArcRwSignal<ConnectionStatus>,
    state: RefCell<State>,
}

struct Socket {
    serial: u64,
    ws: WebSocket,
    _on_open: Closure<dyn FnMut()>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_close: Closure<dyn FnMut(CloseEvent)>,
}

struct State {
    started: bool,
    socket: Option<Socket>,
    open: bool,
    /// How many times a socket opened (for tests and diagnostics).
    opens: u64,
    serial: u64,
    reconnect: Reconnect,
    pending: Pending<oneshot::Sender<Reply>>,
    issues: IssueLog,
    timed_out: HashSet<String>,
    next_hook: u64,
    on_open: Vec<(HookId, Rc<dyn Fn()>)>,
    retry: Option<TimeoutHandle>,
    countdown: Option<IntervalHandle>,
    deadline: Option<TimeoutHandle>,
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

impl Connection {
    /// A connection to `api`'s `/ws` that feeds `live`. Nothing is opened
    /// until [`Connection::ensure_started`].
    pub fn new(api: &ApiBase, live: Live) -> Connection {
        let token = (js_sys::Math::random() * 1e9) as u64;
        let state = State {
            started: false,
            socket: None,
            open: false,
            opens: 0,
            serial: 0,
            reconnect: Reconnect::default(),
            pending: Pending::new(format!("tv{token:x}")),
            issues: IssueLog::new(),
            timed_out: HashSet::new(),
            next_hook: 0,
            on_open: Vec::new(),
            retry: None,
            countdown: None,
            deadline: None,
        };
        Connection {
            shared: SendWrapper::new(Rc::new(Shared {
                url: api.ws_url(),
                live,
                status: ArcRwSignal::new(ConnectionStatus::Connecting),
                state: RefCell::new(state),
            })),
        }
    }

    /// Opens the socket the first time it is called; later calls do nothing.
    pub fn ensure_started(&self) {
        let first = !std::mem::replace(&mut self.shared.state.borrow_mut().started, true);
        if first {
            connect(&self.shared);
        }
    }

    /// The indicator's status.
    pub fn status(&self) -> ArcRwSignal<ConnectionStatus> {
        self.shared.status.clone()
    }

    /// True while the socket is open.
    pub fn is_open(&self) -> bool {
        self.shared.state.borrow().open
    }

    /// Skips the wait of a scheduled reconnect.
    pub fn retry_now(&self) {
        let waiting = {
            let state = self.shared.state.borrow();
            state.started && state.socket.is_none()
        };
        if waiting {
            connect(&self.shared);
        }
    }

    /// How many times a socket has opened on this page.
    pub fn open_count(&self) -> u64 {
        self.shared.state.borrow().opens
    }

    /// Unusable frames so far, per kind.
    pub fn issue_counts(&self) -> BTreeMap<String, u64> {
        self.shared.state.borrow().issues.counts().clone()
    }

    /// Sends a request and resolves with its reply; fails at once with
    /// `Disconnected` when the socket is not open.
    pub fn request(&self, request: Request) -> impl Future<Output = Reply> + 'static {
        let (sender, receiver) = oneshot::channel();
        send_request(&self.shared, &request, sender);
        async move { receiver.await.unwrap_or(Err(RequestError::Disconnected)) }
    }

    /// Calls `hook` every time the socket opens (after `user.subscribe` is sent).
    pub fn on_open(&self, hook: impl Fn() + 'static) -> HookId {
        let mut state = self.shared.state.borrow_mut();
        let id = state.new_hook_id();
        state.on_open.push((id, Rc::new(hook)));
        id
    }

    /// Removes a hook.
    pub fn unhook(&self, id: HookId) {
        self.shared
            .state
            .borrow_mut()
            .on_open
            .retain(|(h, _)| *h != id);
    }
}

impl State {
    fn new_hook_id(&mut self) -> HookId {
        self.next_hook += 1;
        HookId(self.next_hook)
    }

    fn cancel_retry(&mut self) {
        if let Some(t) = self.retry.take() {
            t.clear();
        }
        if let Some(i) = self.countdown.take() {
            i.clear();
        }
    }
}

/// Opens a new socket (the previous one is gone).
fn connect(shared: &Rc<Shared>) {
    let mut state = shared.state.borrow_mut();
    state.cancel_retry();
    let ws = match WebSocket::new(&shared.url) {
        Ok(ws) => ws,
        Err(e) => {
            drop(state);
            warn!("taskview: cannot open {}: {e:?}", shared.url);
            schedule_retry(shared);
            return;
        }
    };
    state.serial += 1;
    let serial = state.serial;
    let weak = Rc::downgrade(shared);
    let on_open = {
        let weak = weak.clone();
        Closure::<dyn FnMut()>::new(move || with(&weak, |s| opened(s, serial)))
    };
    let on_message = {
        let weak = weak.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            with(&weak, |s| received(s, serial, &e));
        })
    };
    let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |_: CloseEvent| {
        with(&weak, |s| closed(s, serial));
    });
    ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
    state.socket = Some(Socket {
        serial,
        ws,
        _on_open: on_open,
        _on_message: on_message,
        _on_close: on_close,
    });
    drop(state);
    shared.status.set(ConnectionStatus::Connecting);
}

fn with(weak: &Weak<Shared>, f: impl FnOnce(&Rc<Shared>)) {
    if let Some(shared) = weak.upgrade() {
        f(&shared);
    }
}

fn is_current(state: &State, serial: u64) -> bool {
    state.socket.as_ref().is_some_and(|s| s.serial == serial)
}

fn opened(shared: &Rc<Shared>, serial: u64) {
    let hooks: Vec<Rc<dyn Fn()>> = {
        let mut state = shared.state.borrow_mut();
        if !is_current(&state, serial) {
            return;
        }
        state.open = true;
        state.opens += 1;
        state.reconnect.connected();
        state.on_open.iter().map(|(_, h)| h.clone()).collect()
    };
    shared.status.set(ConnectionStatus::Connected);
    let (sender, receiver) = oneshot::channel();
    send_request(shared, &Request::UserSubscribe, sender);
    leptos::task::spawn_local(async move {
        if let Ok(Err(e)) = receiver.await {
            warn!("taskview: user.subscribe failed: {e}");
        }
    });
    for hook in hooks {
        hook();
    }
}

fn received(shared: &Rc<Shared>, serial: u64, event: &MessageEvent) {
    if !is_current(&shared.state.borrow(), serial) {
        return;
    }
    let parts = match event.data().as_string() {
        Some(text) => stages::timed(Stage::Decode, || read_frame(&text)),
        None => vec![Incoming::Issue(FrameIssue::InvalidFrame {
            error: "a binary frame".into(),
        })],
    };
    let mut events = Vec::new();
    let mut settled = Vec::new();
    {
        let mut state = shared.state.borrow_mut();
        for part in parts {
            match part {
                Incoming::Reply(envelope) => settled.extend(state.pending.settle(&envelope)),
                Incoming::Event(event) => events.push(*event),
                Incoming::Ignored => {}
                Incoming::Issue(issue) => {
                    if state.issues.record(&issue) {
                        warn!("taskview: ignored a frame ({issue}); further ones of this kind are only counted");
                    }
                }
            }
        }
    }
    for (waiter, outcome) in settled {
        // The requester may have gone away; nothing to do then.
        let _ = waiter.send(outcome);
    }
    if !events.is_empty() {
        shared.live.push(events);
    }
}

fn closed(shared: &Rc<Shared>, serial: u64) {
    let waiters = {
        let mut state = shared.state.borrow_mut();
        if !is_current(&state, serial) {
            return;
        }
        state.socket = None;
        state.open = false;
        if let Some(t) = state.deadline.take() {
            t.clear();
        }
        state.pending.drain()
    };
    for waiter in waiters {
        let _ = waiter.send(Err(RequestError::Disconnected));
    }
    schedule_retry(shared);
}

/// Waits the backoff delay, counting the seconds down on the indicator,
/// then connects again.
fn schedule_retry(shared: &Rc<Shared>) {
    let mut state = shared.state.borrow_mut();
    state.cancel_retry();
    let retry: Retry = state.reconnect.lost(js_sys::Math::random());
    let now = now_ms();
    let at = now + retry.delay_ms;
    shared.status.set(Reconnect::status(&retry, at, now));
    let weak = Rc::downgrade(shared);
    state.retry = set_timeout_with_handle(
        {
            let weak = weak.clone();
            move || with(&weak, connect)
        },
        Duration::from_millis(retry.delay_ms as u64),
    )
    .ok();
    if !retry.offline {
        state.countdown = set_interval_with_handle(
            move || {
                with(&weak, |s| {
                    let seconds = seconds_until(at, now_ms()).max(1);
                    s.status.set(ConnectionStatus::Reconnecting { seconds });
                });
            },
            Duration::from_millis(1000),
        )
        .ok();
    }
}

fn send_request(shared: &Rc<Shared>, request: &Request, sender: oneshot::Sender<Reply>) {
    let mut state = shared.state.borrow_mut();
    if !state.open {
        drop(state);
        let _ = sender.send(Err(RequestError::Disconnected));
        return;
    }
    let id = state.pending.register(request.action(), now_ms(), sender);
    let text = request.to_envelope(id.clone()).to_json();
    let sent = state
        .socket
        .as_ref()
        .is_some_and(|s| s.ws.send_with_str(&text).is_ok());
    if !sent {
        let waiter = state.pending.remove(&id);
        drop(state);
        if let Some(waiter) = waiter {
            let _ = waiter.send(Err(RequestError::Disconnected));
        }
        return;
    }
    drop(state);
    arm_deadline(shared);
}

/// Keeps one timer on the earliest request deadline.
fn arm_deadline(shared: &Rc<Shared>) {
    let mut state = shared.state.borrow_mut();
    if let Some(t) = state.deadline.take() {
        t.clear();
    }
    let Some(deadline) = state.pending.next_deadline() else {
        return;
    };
    let weak = Rc::downgrade(shared);
    let wait = (deadline - now_ms()).max(0.0) as u64;
    state.deadline = set_timeout_with_handle(
        move || with(&weak, expire_requests),
        Duration::from_millis(wait),
    )
    .ok();
}

fn expire_requests(shared: &Rc<Shared>) {
    let expired = {
        let mut state = shared.state.borrow_mut();
        state.deadline = None;
        let expired = state.pending.expire(now_ms());
        for (action, _) in &expired {
            if state.timed_out.insert(action.clone()) {
                warn!(
                    "taskview: no reply to {action} in time; further timeouts of it are not logged"
                );
            }
        }
        expired
    };
    for (_, waiter) in expired {
        let _ = waiter.send(Err(RequestError::TimedOut));
    }
    arm_deadline(shared);
}
