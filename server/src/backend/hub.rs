//! The broadcast hub: one outbound queue per WebSocket client, and routing.
//!
//! `session.message.*` reach only the clients subscribed to that session;
//! every other notification reaches every client (docs/protocol.md §5.2).
//! A notification is serialized once and queued for all clients under one
//! lock, so every client sees notifications in the same order, and a
//! client's responses share its queue, so they keep their place too. The
//! notifications of one change of a session's messages are queued as one
//! frame, joined by `\n` (`publish_together`), whichever thread made it.

use axum::extract::ws::Utf8Bytes;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use taskview_core::read::protocol::{is_session_scoped, Envelope};
use tokio::sync::mpsc;

/// How many frames may wait for one client before it is cut off (it then
/// reconnects and refetches, which is cheaper than unbounded memory).
pub const CLIENT_QUEUE_FRAMES: usize = 16_384;

/// One serialized frame, cheap to clone for every client.
pub type Frame = Utf8Bytes;

/// Identifies a connected client.
pub type ClientId = u64;

struct Client {
    queue: mpsc::Sender<Frame>,
    sessions: HashSet<String>,
}

/// Connected clients and their session subscriptions.
#[derive(Default)]
pub struct Hub {
    clients: Mutex<HashMap<ClientId, Client>>,
    next_id: AtomicU64,
}

impl Hub {
    fn clients(&self) -> MutexGuard<'_, HashMap<ClientId, Client>> {
        self.clients.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a client; frames for it arrive on the returned receiver,
    /// which ends when the client is cut off or disconnected.
    pub fn connect(&self) -> (ClientId, mpsc::Receiver<Frame>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (queue, rx) = mpsc::channel(CLIENT_QUEUE_FRAMES);
        let client = Client {
            queue,
            sessions: HashSet::new(),
        };
        self.clients().insert(id, client);
        (id, rx)
    }

    /// Forgets a client and its subscriptions.
    pub fn disconnect(&self, id: ClientId) {
        self.clients().remove(&id);
    }

    /// Number of connected clients.
    pub fn client_count(&self) -> usize {
        self.clients().len()
    }

    /// Subscribes a client to a session's messages.
    pub fn subscribe(&self, id: ClientId, session_id: &str) {
        if let Some(c) = self.clients().get_mut(&id) {
            c.sessions.insert(session_id.to_string());
        }
    }

    /// Ends a client's subscription to a session.
    pub fn unsubscribe(&self, id: ClientId, session_id: &str) {
        if let Some(c) = self.clients().get_mut(&id) {
            c.sessions.remove(session_id);
        }
    }

    /// Whether any client is subscribed to a session.
    pub fn has_subscribers(&self, session_id: &str) -> bool {
        self.clients()
            .values()
            .any(|c| c.sessions.contains(session_id))
    }

    /// Queues a frame (a response) for one client.
    pub fn send(&self, id: ClientId, envelope: &Envelope) {
        let frame = Frame::from(envelope.to_json());
        let mut clients = self.clients();
        let Some(client) = clients.get(&id) else {
            return;
        };
        if client.queue.try_send(frame).is_err() {
            tracing::warn!(client = id, "client queue full; disconnecting it");
            clients.remove(&id);
        }
    }

    /// Queues a notification for every client it is routed to; `session_id`
    /// is the session a `session.message.*` notification belongs to.
    pub fn publish(&self, envelope: &Envelope, session_id: &str) {
        self.publish_together(std::slice::from_ref(envelope), session_id);
    }

    /// Queues notifications of one change (of session `session_id`) as one
    /// frame per client, joined by `\n` (docs/protocol.md §5.2).
    pub fn publish_together(&self, envelopes: &[Envelope], session_id: &str) {
        let frames: Vec<(bool, String)> = envelopes
            .iter()
            .map(|e| (is_session_scoped(&e.action), e.to_json()))
            .collect();
        let everyone = Frame::from(
            frames
                .iter()
                .map(|(_, f)| f.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        );
        let unscoped = Frame::from(
            frames
                .iter()
                .filter(|(scoped, _)| !scoped)
                .map(|(_, f)| f.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        );
        let mut clients = self.clients();
        let mut cut_off = Vec::new();
        for (id, client) in clients.iter() {
            let frame = if client.sessions.contains(session_id) {
                &everyone
            } else {
                &unscoped
            };
            if frame.is_empty() {
                continue;
            }
            if client.queue.try_send(frame.clone()).is_err() {
                cut_off.push(*id);
            }
        }
        for id in cut_off {
            tracing::warn!(client = id, "client queue full or closed; disconnecting it");
            clients.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn note(action: &str) -> Envelope {
        Envelope::notification(action, json!({}), "t")
    }

    fn drain(rx: &mut mpsc::Receiver<Frame>) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(f) = rx.try_recv() {
            let v: serde_json::Value = serde_json::from_str(f.as_str()).unwrap();
            out.push(v["action"].as_str().unwrap().to_string());
        }
        out
    }

    #[test]
    fn session_messages_reach_only_subscribers_and_the_rest_reach_all() {
        let hub = Hub::default();
        let (a, mut rx_a) = hub.connect();
        let (_b, mut rx_b) = hub.connect();
        hub.subscribe(a, "s1");
        hub.publish(&note("session.message.added"), "s1");
        hub.publish(&note("session.message.added"), "s2");
        hub.publish(&note("task.updated"), "s1");
        hub.publish(&note("session.turn.started"), "s2");
        assert_eq!(
            drain(&mut rx_a),
            [
                "session.message.added",
                "task.updated",
                "session.turn.started"
            ]
        );
        assert_eq!(drain(&mut rx_b), ["task.updated", "session.turn.started"]);
        hub.unsubscribe(a, "s1");
        hub.publish(&note("session.message.updated"), "s1");
        assert!(drain(&mut rx_a).is_empty());
    }

    #[test]
    fn the_notifications_of_one_change_are_one_frame_routed_per_client() {
        let hub = Hub::default();
        let (a, mut rx_a) = hub.connect();
        let (_b, mut rx_b) = hub.connect();
        hub.subscribe(a, "s1");
        let change = [
            note("session.message.added"),
            note("task.updated"),
            note("session.message.updated"),
        ];
        hub.publish_together(&change, "s1");
        let frames = |rx: &mut mpsc::Receiver<Frame>| {
            let mut out = Vec::new();
            while let Ok(f) = rx.try_recv() {
                out.push(f.as_str().split('\n').count());
            }
            out
        };
        assert_eq!(frames(&mut rx_a), [3], "one frame of three envelopes");
        assert_eq!(frames(&mut rx_b), [1], "only what is not the session's");
        assert!(!hub.has_subscribers("s2") && hub.has_subscribers("s1"));
    }

    #[test]
    fn a_client_whose_queue_is_gone_is_dropped() {
        let hub = Hub::default();
        let (_a, rx_a) = hub.connect();
        drop(rx_a);
        hub.publish(&note("task.updated"), "");
        assert_eq!(hub.client_count(), 0);
    }
}
