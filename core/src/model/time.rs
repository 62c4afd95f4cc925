//! RFC 3339 timestamps as comparable numbers. Strings cannot be compared
//! directly: `…:00Z` sorts after `…:00.5Z`, and offsets differ.

/// Nanoseconds since 1970-01-01T00:00:00Z of an RFC 3339 timestamp
/// (`2026-08-03T10:01:08.000000000Z`, `…+02:00`, a space instead of `T`);
/// `None` when the text is not one.
pub fn parse_rfc3339(s: &str) -> Option<i128> {
    let b = s.trim().as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let year = digits(&b[0..4])?;
    let month = digits(&b[5..7])?;
    let day = digits(&b[8..10])?;
    let (hour, min, sec) = (
        digits(&b[11..13])?,
        digits(&b[14..16])?,
        digits(&b[17..19])?,
    );
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || min > 59 || sec > 60 {
        return None;
    }
    let mut rest = &b[19..];
    let mut nanos: i128 = 0;
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        for (i, d) in frac[..n].iter().enumerate().take(9) {
            nanos += i128::from(d - b'0') * 10i128.pow(8 - i as u32);
        }
        rest = &frac[n..];
    }
    let offset_secs: i128 = match rest {
        b"Z" | b"z" => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let off = digits(&[*h1, *h2])? * 3600 + digits(&[*m1, *m2])? * 60;
            if *sign == b'+' {
                off
            } else {
                -off
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + min * 60 + sec - offset_secs;
    Some(secs * 1_000_000_000 + nanos)
}

/// Milliseconds since the epoch as RFC 3339 (`2026-12-06T04:50:57.123Z`).
pub fn format_millis(millis: i64) -> String {
    let (days, ms) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    let (y, m, d) = civil_from_days(days);
    let s = ms / 1000;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        s / 3600,
        s / 60 % 60,
        s % 60,
        ms % 1000
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Milliseconds since the epoch of an RFC 3339 timestamp (see [`parse_rfc3339`]).
pub fn parse_millis(s: &str) -> Option<i64> {
    parse_rfc3339(s).map(|ns| (ns / 1_000_000) as i64)
}

fn digits(b: &[u8]) -> Option<i128> {
    b.iter().try_fold(0i128, |acc, c| {
        c.is_ascii_digit().then(|| acc * 10 + i128::from(c - b'0'))
    })
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i128, m: i128, d: i128) -> i128 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::{format_millis, parse_millis, parse_rfc3339};

    #[test]
    fn timestamps_compare_by_instant_not_by_text() {
        let whole = parse_rfc3339("2026-08-03T09:00:00Z").unwrap();
        let half = parse_rfc3339("2026-08-03T09:00:00.5Z").unwrap();
        let nano = parse_rfc3339("2026-08-03T09:00:00.000000001Z").unwrap();
        assert!(whole < nano && nano < half);
        assert_eq!(parse_rfc3339("2026-08-03T11:00:00+02:00"), Some(whole));
    }

    #[test]
    fn epoch_is_zero() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_rfc3339("1970-01-02T00:00:00.000000001Z"),
            Some(86_400_000_000_001)
        );
    }

    #[test]
    fn non_timestamps_are_none() {
        for s in [
            "",
            "yesterday",
            "2026-08-03",
            "2026-13-03T00:00:00Z",
            "2026-08-03T00:00:00",
        ] {
            assert_eq!(parse_rfc3339(s), None, "{s}");
        }
    }

    #[test]
    fn millis_read_back_from_their_rfc3339_form() {
        for ms in [0, 1_796_532_819_965, 951_782_400_000, -1] {
            assert_eq!(
                parse_millis(&format_millis(ms)),
                Some(ms),
                "{}",
                format_millis(ms)
            );
        }
        assert_eq!(format_millis(1_796_532_819_965), "2026-12-06T04:53:39.965Z");
        assert_eq!(format_millis(1_709_208_000_123), "2024-02-29T12:00:00.123Z");
    }
}
