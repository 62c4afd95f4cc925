//! `/ws`: one task per connection. Requests are answered through the
//! client's hub queue, so replies and notifications keep one order; a bad
//! frame earns an error envelope and never closes the connection.

use super::AppState;
use crate::backend::hub::{ClientId, Frame};
use crate::backend::Backend;
use crate::http::connections::Slot;
use crate::http::faults::Injector;
use crate::shutdown::Shutdown;
use axum::extract::ws::{close_code, CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use axum::Extension;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::sync::Arc;
use taskview_core::read::protocol::{
    parse_frame, Ack, Envelope, EnvelopeType, ErrorCode, ErrorPayload, FrameError, Request,
};
use tokio::sync::mpsc;

/// The largest client frame accepted (requests are small).
const MAX_CLIENT_FRAME: usize = 1 << 20;

/// Upgrades `GET /ws`. The socket holds its connection's slot busy while
/// it is open (`connections`: it counts against the cap and is never let go
/// as idle).
pub async fn upgrade(
    ws: WebSocketUpgrade,
    State(state): State<AppState>,
    slot: Option<Extension<Arc<Slot>>>,
) -> Response {
    let busy = slot.map(|Extension(slot)| slot.busy());
    ws.max_message_size(MAX_CLIENT_FRAME)
        .on_upgrade(move |socket| async move {
            connection(socket, state).await;
            drop(busy);
        })
}

async fn connection(socket: WebSocket, state: AppState) {
    let (client, queue) = state.backend.hub().connect();
    tracing::debug!(client, "websocket connected");
    let (sink, stream) = socket.split();
    tokio::select! {
        () = write_frames(sink, queue, &state) => {}
        () = read_requests(stream, client, &state.backend) => {}
    }
    state.backend.hub().disconnect(client);
    tracing::debug!(client, "websocket closed");
}

/// At most this many bytes of queued envelopes travel in one frame.
const MAX_JOINED_FRAME: usize = 256 << 10;

/// Sends queued frames until the queue ends, shutdown, or (fault injection)
/// `--drop-ws-every` frames have been sent; then closes the socket. With
/// `--inject-malformed-every`, bad frames are sent in between (not counted).
///
/// Envelopes queued together (one change of a recording: its messages, the
/// turn and the task) travel as one frame, joined by `\n`, which kandev's
/// client and taskview split (docs/protocol.md §5.2): a browser spends a task
/// per frame, so ten messages cost it one task, not ten. With fault
/// injection every envelope is a frame of its own, so "every N frames"
/// counts envelopes; and with `--frame-per-event`, as kandev's backend
/// sends them.
async fn write_frames(
    mut sink: SplitSink<WebSocket, Message>,
    mut queue: mpsc::Receiver<Frame>,
    state: &AppState,
) {
    let drop_every = state.drop_ws_every;
    let mut injector = state.inject_malformed_every.map(Injector::new);
    let mut shutdown: Shutdown = state.shutdown.clone();
    let mut sent: u64 = 0;
    let reason = 'frames: loop {
        let frame = tokio::select! {
            frame = queue.recv() => frame,
            () = shutdown.requested() => break (close_code::AWAY, "server shutting down"),
        };
        let Some(frame) = frame else {
            break (close_code::AGAIN, "client queue overflowed; reconnect");
        };
        let frames = if drop_every.is_none() && injector.is_none() && !state.frame_per_event {
            vec![join_queued(frame, &mut queue)]
        } else {
            one_per_envelope(frame)
        };
        for frame in frames {
            if sink.send(Message::Text(frame)).await.is_err() {
                return;
            }
            sent += 1;
            if let Some(bad) = injector.as_mut().and_then(Injector::after_frame) {
                if sink.send(Message::Text(bad.into())).await.is_err() {
                    return;
                }
            }
            if drop_every == Some(sent) {
                break 'frames (close_code::AGAIN, "--drop-ws-every: reconnect");
            }
        }
    };
    let close = CloseFrame {
        code: reason.0,
        reason: reason.1.into(),
    };
    // The peer may already be gone; nothing more to do either way.
    let _ = sink.send(Message::Close(Some(close))).await;
}

/// The envelopes of a queued frame (the hub queues one change as one
/// frame), each a frame of its own; an envelope never holds a raw `\n`.
fn one_per_envelope(frame: Frame) -> Vec<Frame> {
    if !frame.as_str().contains('\n') {
        return vec![frame];
    }
    let parts = frame
        .as_str()
        .split('\n')
        .map(|part| Frame::from(part.to_string()));
    parts.collect()
}

/// `first` and the envelopes queued behind it, joined by `\n` up to
/// [`MAX_JOINED_FRAME`] bytes.
fn join_queued(first: Frame, queue: &mut mpsc::Receiver<Frame>) -> Frame {
    let Ok(second) = queue.try_recv() else {
        return first;
    };
    let mut joined = String::with_capacity(first.len() + second.len() + 1);
    joined.push_str(&first);
    joined.push('\n');
    joined.push_str(&second);
    while joined.len() < MAX_JOINED_FRAME {
        let Ok(next) = queue.try_recv() else {
            break;
        };
        joined.push('\n');
        joined.push_str(&next);
    }
    joined.into()
}

async fn read_requests(mut stream: SplitStream<WebSocket>, client: ClientId, backend: &Backend) {
    while let Some(Ok(message)) = stream.next().await {
        match message {
            Message::Text(text) => {
                for part in parse_frame(text.as_str()) {
                    let reply = match part {
                        Ok(envelope) => answer(backend, client, &envelope),
                        Err(bad) => malformed(&bad, &backend.clock().now()),
                    };
                    backend.hub().send(client, &reply);
                }
            }
            Message::Binary(_) => {
                let error = ErrorPayload::new(
                    ErrorCode::BadRequest,
                    "binary frames are not supported; send JSON text",
                );
                backend.hub().send(
                    client,
                    &Envelope::error(None, "", error, &backend.clock().now()),
                );
            }
            Message::Close(_) => return,
            Message::Ping(_) | Message::Pong(_) => {}
        }
    }
}

/// The error for a frame part that is not an envelope; echoes its id and
/// action when the part was a JSON object that had them.
fn malformed(bad: &FrameError, now: &str) -> Envelope {
    let parsed: Option<Value> = serde_json::from_str(&bad.raw).ok();
    let field = |key: &str| {
        parsed
            .as_ref()
            .and_then(|v| v.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let error = ErrorPayload::new(
        ErrorCode::BadRequest,
        format!("malformed frame: {}", bad.error),
    );
    let action = field("action").unwrap_or_default();
    Envelope::error(field("id"), &action, error, now)
}

/// The reply to one envelope.
fn answer(backend: &Backend, client: ClientId, envelope: &Envelope) -> Envelope {
    let now = backend.clock().now();
    if envelope.kind != EnvelopeType::Request {
        let error = ErrorPayload::new(
            ErrorCode::BadRequest,
            "only request envelopes are accepted from clients",
        );
        return Envelope::error(envelope.id.clone(), &envelope.action, error, &now);
    }
    match Request::parse(&envelope.action, &envelope.payload)
        .and_then(|r| serve(backend, client, r))
    {
        Ok(payload) => Envelope::response_to(envelope, payload, &now),
        Err(error) => Envelope::error(envelope.id.clone(), &envelope.action, error, &now),
    }
}

/// Carries out a request; the response payload or the error to send.
fn serve(backend: &Backend, client: ClientId, request: Request) -> Result<Value, ErrorPayload> {
    let session_ack = |session_id: String| Ack {
        success: true,
        session_id: Some(session_id),
        task_id: None,
    };
    let known_session = |session_id: &str| {
        backend.session(session_id).map(|_| ()).ok_or_else(|| {
            ErrorPayload::new(
                ErrorCode::NotFound,
                format!("session {session_id} not found"),
            )
        })
    };
    let ack = match request {
        Request::UserSubscribe => Ack {
            success: true,
            ..Ack::default()
        },
        Request::SessionSubscribe { session_id } => {
            known_session(&session_id)?;
            backend.open(&session_id);
            backend.hub().subscribe(client, &session_id);
            session_ack(session_id)
        }
        Request::SessionUnsubscribe { session_id } => {
            backend.hub().unsubscribe(client, &session_id);
            session_ack(session_id)
        }
        Request::SessionFocus { session_id } | Request::SessionUnfocus { session_id } => {
            known_session(&session_id)?;
            session_ack(session_id)
        }
        Request::TaskSubscribe { task_id } | Request::TaskUnsubscribe { task_id } => {
            if backend.task(&task_id).is_none() {
                let message = format!("task {task_id} not found");
                return Err(ErrorPayload::new(ErrorCode::NotFound, message));
            }
            Ack {
                success: true,
                session_id: None,
                task_id: Some(task_id),
            }
        }
        Request::MessageList(list) => {
            let page = backend.messages_page(&list.session_id, &list.query)?;
            return Ok(serde_json::to_value(page).unwrap_or_else(|_| json!({})));
        }
    };
    Ok(serde_json::to_value(ack).unwrap_or_else(|_| json!({"success": true})))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_queued_as_one_frame_is_one_frame_per_envelope_when_frames_are_counted() {
        // A newline inside a string is escaped in JSON: only envelopes are split.
        let change = Frame::from("{\"a\":\"x\\ny\"}\n{\"b\":2}\n{\"c\":3}");
        let frames = one_per_envelope(change);
        let texts: Vec<&str> = frames.iter().map(Frame::as_str).collect();
        assert_eq!(texts, ["{\"a\":\"x\\ny\"}", "{\"b\":2}", "{\"c\":3}"]);
        assert_eq!(one_per_envelope(Frame::from("{}")).len(), 1);
    }
}
