//! Wrong tokens answered slowly (docs/security.md "Token and cookie"): a
//! client's n-th wrong token in a row (each within [`FORGOTTEN`] of the
//! last) is answered after [`FIRST_DELAY`] × 2^(n−1), at most [`LONGEST_DELAY`];
//! a right one clears its count. Only answers to wrong tokens wait, and at
//! most [`WAITING`] at once: past that a wrong token is answered at once
//! with 429, so the delay cannot be used to hold the server's connections.
//! A client is its address (behind a trusted proxy, the one the proxy names).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// The wait after a client's first wrong token.
pub const FIRST_DELAY: Duration = Duration::from_millis(100);
/// The longest wait.
pub const LONGEST_DELAY: Duration = Duration::from_secs(5);
/// A client whose last wrong token is older than this starts again.
pub const FORGOTTEN: Duration = Duration::from_secs(600);
/// Answers to wrong tokens waiting at once.
pub const WAITING: usize = 32;
/// Clients remembered at once.
const CLIENTS: usize = 4096;

/// Each client's run of wrong tokens.
pub struct Throttle {
    clients: Mutex<HashMap<IpAddr, (u32, Instant)>>,
    waiting: Arc<Semaphore>,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle {
            clients: Mutex::new(HashMap::new()),
            waiting: Arc::new(Semaphore::new(WAITING)),
        }
    }
}

/// What to do with a wrong token's answer.
pub enum Penalty {
    /// Wait this long, holding one of the [`WAITING`] places.
    Wait(Duration, OwnedSemaphorePermit),
    /// Every place is taken: answer 429 at once.
    Busy,
}

impl Throttle {
    fn clients(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, (u32, Instant)>> {
        self.clients.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts a wrong token from `client`; how its answer is slowed.
    pub fn wrong(&self, client: IpAddr) -> Penalty {
        let now = Instant::now();
        let mut clients = self.clients();
        if clients.len() >= CLIENTS {
            clients.retain(|_, (_, last)| now.duration_since(*last) < FORGOTTEN);
            if clients.len() >= CLIENTS {
                clients.clear();
            }
        }
        let entry = clients.entry(client).or_insert((0, now));
        if now.duration_since(entry.1) >= FORGOTTEN {
            entry.0 = 0;
        }
        entry.0 = entry.0.saturating_add(1);
        entry.1 = now;
        let run = entry.0;
        drop(clients);
        let delay = FIRST_DELAY
            .saturating_mul(1 << (run - 1).min(16))
            .min(LONGEST_DELAY);
        match Arc::clone(&self.waiting).try_acquire_owned() {
            Ok(place) => Penalty::Wait(delay, place),
            Err(_) => Penalty::Busy,
        }
    }

    /// Clears `client`'s run after a right token.
    pub fn right(&self, client: IpAddr) {
        self.clients().remove(&client);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delay(penalty: Penalty) -> Option<Duration> {
        match penalty {
            Penalty::Wait(delay, _) => Some(delay),
            Penalty::Busy => None,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_clients_wrong_tokens_in_a_row_wait_longer_each_time_up_to_a_bound() {
        let throttle = Throttle::default();
        let client: IpAddr = "192.0.2.1".parse().unwrap();
        let other: IpAddr = "192.0.2.2".parse().unwrap();
        let waits: Vec<u128> = (0..8)
            .map(|_| delay(throttle.wrong(client)).unwrap().as_millis())
            .collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        assert_eq!(
            delay(throttle.wrong(other)),
            Some(FIRST_DELAY),
            "per client"
        );
        throttle.right(client);
        assert_eq!(delay(throttle.wrong(client)), Some(FIRST_DELAY), "cleared");
        tokio::time::advance(FORGOTTEN).await;
        assert_eq!(delay(throttle.wrong(other)), Some(FIRST_DELAY), "forgotten");
    }

    #[test]
    fn past_the_waiting_places_a_wrong_token_is_answered_at_once() {
        let throttle = Throttle::default();
        let client: IpAddr = "192.0.2.1".parse().unwrap();
        let held: Vec<Penalty> = (0..WAITING).map(|_| throttle.wrong(client)).collect();
        assert!(held.iter().all(|p| matches!(p, Penalty::Wait(..))));
        assert!(matches!(throttle.wrong(client), Penalty::Busy));
        drop(held);
        assert!(matches!(throttle.wrong(client), Penalty::Wait(..)));
    }
}
