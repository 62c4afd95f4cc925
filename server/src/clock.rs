//! Timestamps in kandev's RFC 3339 form (`2026-08-03T10:00:00.000000000Z`).

use std::time::{SystemTime, UNIX_EPOCH};

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

/// The current wall-clock time, for envelope timestamps and bookkeeping.
pub fn now() -> String {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    rfc3339_ms(ms)
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
}
