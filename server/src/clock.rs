//! The server's clock and timestamps in kandev's RFC 3339 form
//! (`2026-08-03T10:00:00.000000000Z`).
//!
//! A backend has one [`Clock`]: every timestamp it writes (tasks, sessions,
//! turns, messages of the scenarios, envelopes) is read from it, so a client
//! that compares them with its own time (kandev's "running 3m") sees one
//! timeline. The demo's clock starts at the wall time and runs `--speed`
//! times as fast; tests may stop it.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Time since the Unix epoch, in milliseconds, as the server tells it.
#[derive(Clone, Debug)]
pub struct Clock {
    /// Unix milliseconds when the clock started.
    origin_ms: u64,
    started: Instant,
    /// How many clock milliseconds pass per real one (0: stopped).
    speed: f64,
}

impl Default for Clock {
    /// The wall clock.
    fn default() -> Clock {
        Clock::scaled(1.0)
    }
}

impl Clock {
    /// A clock that starts at the wall time now and runs `speed` times as fast.
    pub fn scaled(speed: f64) -> Clock {
        Clock {
            origin_ms: wall_ms(),
            started: Instant::now(),
            speed,
        }
    }

    /// A clock that stays at `unix_ms` (a replay whose times are part of its
    /// result, and tests that drive time themselves).
    pub fn stopped_at(unix_ms: u64) -> Clock {
        Clock {
            origin_ms: unix_ms,
            started: Instant::now(),
            speed: 0.0,
        }
    }

    /// The current time in Unix milliseconds.
    pub fn now_ms(&self) -> u64 {
        let elapsed = self.started.elapsed().as_secs_f64() * 1000.0 * self.speed;
        self.origin_ms.saturating_add(elapsed as u64)
    }

    /// The current time, formatted.
    pub fn now(&self) -> String {
        rfc3339_ms(self.now_ms())
    }

    /// Real time until the clock reads `unix_ms` (zero when it is past, or
    /// when the clock is stopped).
    pub fn until(&self, unix_ms: u64) -> Duration {
        let ahead = unix_ms.saturating_sub(self.now_ms());
        if ahead == 0 || self.speed <= 0.0 {
            return Duration::ZERO;
        }
        Duration::from_secs_f64(ahead as f64 / 1000.0 / self.speed)
    }
}

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Formats milliseconds since the Unix epoch (UTC) with nanosecond digits.
pub fn rfc3339_ms(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let nanos = (unix_ms % 1000) * 1_000_000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{nanos:09}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The current wall-clock time (recordings, whose backend runs on it).
pub fn now() -> String {
    rfc3339_ms(wall_ms())
}

/// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian;
/// Howard Hinnant's `civil_from_days`, restricted to dates after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000000000Z");
        assert_eq!(
            rfc3339_ms(1_785_751_200_000),
            "2026-08-03T10:00:00.000000000Z"
        );
        assert_eq!(
            rfc3339_ms(951_782_400_123),
            "2000-02-29T00:00:00.123000000Z"
        );
        assert_eq!(
            rfc3339_ms(4_107_542_399_999),
            "2100-02-28T23:59:59.999000000Z"
        );
    }

    #[test]
    fn a_stopped_clock_stays_and_owes_no_wait() {
        let clock = Clock::stopped_at(1_785_751_200_000);
        assert_eq!(clock.now(), "2026-08-03T10:00:00.000000000Z");
        assert_eq!(clock.until(1_785_751_260_000), Duration::ZERO);
    }

    #[test]
    fn a_scaled_clock_starts_at_the_wall_time_and_runs_faster() {
        // Bounds that hold however long a loaded machine pauses the test
        // between two readings: at speed 100, a real millisecond is 100.
        let before = wall_ms();
        let clock = Clock::scaled(100.0);
        let start = clock.now_ms();
        let after = wall_ms();
        assert!(start >= before && start <= before + 100 * (after - before) + 1);
        // 10 s of clock time is 100 ms of real time at speed 100, less the
        // clock time that passed since `start` was read.
        let wait = clock.until(start + 10_000);
        let read = clock.now_ms();
        assert!(wait <= Duration::from_millis(100), "{wait:?}");
        let least = (start + 10_000).saturating_sub(read) as f64 / 100.0;
        assert!(
            wait.as_secs_f64() * 1000.0 >= least - 1.0,
            "{wait:?} < {least} ms"
        );
        std::thread::sleep(Duration::from_millis(20));
        assert!(clock.now_ms() >= start + 2_000);
    }
}
