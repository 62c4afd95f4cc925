//! Reconnecting: when to try again, and what the connection indicator says.
//!
//! kandev's client waits 1 s × 1.5 per attempt up to 30 s (docs/protocol.md
//! §5.2). taskview adds jitter, so many viewers of one backend do not
//! reconnect in lockstep, and never gives up: after [`Backoff::max_attempts`]
//! failures in a row the indicator says `offline`, and attempts go on at the
//! cap, so the view catches up when the backend returns.

/// The reconnect schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    /// The delay before the first retry, in milliseconds.
    pub base_ms: f64,
    /// Each further retry waits this many times longer.
    pub factor: f64,
    /// No delay is longer than this.
    pub cap_ms: f64,
    /// A delay is scaled by a random factor in `[1 - jitter, 1 + jitter)`
    /// (and then capped).
    pub jitter: f64,
    /// Failures in a row after which the connection counts as offline.
    pub max_attempts: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            base_ms: 1000.0,
            factor: 1.5,
            cap_ms: 30_000.0,
            jitter: 0.2,
            max_attempts: 10,
        }
    }
}

impl Backoff {
    /// The delay before retry number `attempt` (1 = the first retry), given a
    /// uniform random number in `[0, 1)` (values outside are clamped).
    pub fn delay_ms(&self, attempt: u32, random: f64) -> f64 {
        let exponent = attempt.saturating_sub(1).min(64) as i32;
        let plain = (self.base_ms * self.factor.powi(exponent)).min(self.cap_ms);
        let spread = 1.0 - self.jitter + 2.0 * self.jitter * random.clamp(0.0, 1.0);
        (plain * spread).min(self.cap_ms).max(0.0)
    }
}

/// What the connection indicator shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectionStatus {
    /// The first attempt is under way.
    Connecting,
    /// The socket is open.
    Connected,
    /// The next attempt starts in about this many seconds.
    Reconnecting { seconds: u64 },
    /// Too many attempts failed in a row (attempts go on in the background).
    Offline,
}

impl ConnectionStatus {
    /// The indicator's text: `connecting`, `connected`, `reconnecting in N s`
    /// or `offline`.
    pub fn label(&self) -> String {
        match self {
            ConnectionStatus::Connecting => "connecting".into(),
            ConnectionStatus::Connected => "connected".into(),
            ConnectionStatus::Reconnecting { seconds } => format!("reconnecting in {seconds} s"),
            ConnectionStatus::Offline => "offline".into(),
        }
    }

    /// A short class name for styling: `connecting`, `connected`,
    /// `reconnecting`, `offline`.
    pub fn class(&self) -> &'static str {
        match self {
            ConnectionStatus::Connecting => "connecting",
            ConnectionStatus::Connected => "connected",
            ConnectionStatus::Reconnecting { .. } => "reconnecting",
            ConnectionStatus::Offline => "offline",
        }
    }
}

/// Whole seconds until `at_ms`, rounded up (so a countdown never shows 0
/// while it is still waiting), and 0 once it has passed.
pub fn seconds_until(at_ms: f64, now_ms: f64) -> u64 {
    let left = (at_ms - now_ms) / 1000.0;
    if left > 0.0 {
        left.ceil() as u64
    } else {
        0
    }
}

/// One scheduled retry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Retry {
    /// How long to wait before the attempt, in milliseconds.
    pub delay_ms: f64,
    /// Whether the indicator should say `offline` meanwhile.
    pub offline: bool,
}

/// The reconnect state of one connection: how many attempts failed in a row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reconnect {
    policy: Backoff,
    failures: u32,
}

impl Reconnect {
    /// A fresh state with the given schedule.
    pub fn new(policy: Backoff) -> Reconnect {
        Reconnect {
            policy,
            failures: 0,
        }
    }

    /// The socket opened: the next loss starts again at the shortest delay.
    pub fn connected(&mut self) {
        self.failures = 0;
    }

    /// The socket closed or could not open: the retry to schedule.
    pub fn lost(&mut self, random: f64) -> Retry {
        self.failures = self.failures.saturating_add(1);
        Retry {
            delay_ms: self.policy.delay_ms(self.failures, random),
            offline: self.failures > self.policy.max_attempts,
        }
    }

    /// The status to show while waiting `retry`, `now_ms` being when it was
    /// scheduled and `at_ms` when it fires.
    pub fn status(retry: &Retry, at_ms: f64, now_ms: f64) -> ConnectionStatus {
        if retry.offline {
            ConnectionStatus::Offline
        } else {
            ConnectionStatus::Reconnecting {
                seconds: seconds_until(at_ms, now_ms),
            }
        }
    }

    /// Failures in a row so far.
    pub fn failures(&self) -> u32 {
        self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_by_the_factor_from_the_base_up_to_the_cap() {
        let b = Backoff {
            jitter: 0.0,
            ..Backoff::default()
        };
        let delays: Vec<f64> = (1..=11).map(|n| b.delay_ms(n, 0.5)).collect();
        assert_eq!(delays[0], 1000.0);
        assert_eq!(delays[1], 1500.0);
        assert_eq!(delays[2], 2250.0);
        assert!(delays.windows(2).all(|w| w[1] >= w[0]), "{delays:?}");
        assert_eq!(delays[10], 30_000.0);
        assert_eq!(b.delay_ms(u32::MAX, 0.5), 30_000.0);
    }

    #[test]
    fn jitter_spreads_a_delay_around_its_plain_value_and_never_past_the_cap() {
        let b = Backoff::default();
        assert_eq!(b.delay_ms(1, 0.0), 800.0);
        assert_eq!(b.delay_ms(1, 0.5), 1000.0);
        assert!((b.delay_ms(1, 0.999_999) - 1200.0).abs() < 0.01);
        assert_eq!(b.delay_ms(1, -3.0), 800.0, "random is clamped");
        assert_eq!(b.delay_ms(20, 0.999), 30_000.0);
        assert_eq!(b.delay_ms(20, 0.0), 24_000.0);
    }

    #[test]
    fn failures_in_a_row_end_offline_and_an_open_socket_starts_over() {
        let mut r = Reconnect::new(Backoff {
            jitter: 0.0,
            ..Backoff::default()
        });
        let first = r.lost(0.5);
        assert_eq!(first.delay_ms, 1000.0);
        assert!(!first.offline);
        for _ in 1..10 {
            assert!(!r.lost(0.5).offline);
        }
        let eleventh = r.lost(0.5);
        assert!(eleventh.offline);
        assert_eq!(eleventh.delay_ms, 30_000.0, "attempts go on at the cap");
        r.connected();
        assert_eq!(r.failures(), 0);
        assert_eq!(r.lost(0.5).delay_ms, 1000.0);
    }

    #[test]
    fn the_indicator_counts_whole_seconds_up() {
        assert_eq!(seconds_until(2500.0, 0.0), 3);
        assert_eq!(seconds_until(1000.0, 0.0), 1);
        assert_eq!(seconds_until(1.0, 0.0), 1);
        assert_eq!(seconds_until(0.0, 5.0), 0);
        let retry = Retry {
            delay_ms: 1500.0,
            offline: false,
        };
        let s = Reconnect::status(&retry, 1500.0, 0.0);
        assert_eq!(s, ConnectionStatus::Reconnecting { seconds: 2 });
        assert_eq!(s.label(), "reconnecting in 2 s");
        let offline = Retry {
            offline: true,
            ..retry
        };
        assert_eq!(Reconnect::status(&offline, 1.0, 0.0).label(), "offline");
        assert_eq!(ConnectionStatus::Connected.label(), "connected");
    }
}
