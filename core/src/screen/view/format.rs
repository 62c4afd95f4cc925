//! Number formats of the card chips and labels (docs/behaviour.md §3.2, §2.4).

/// `{n} {singular}` or `{n} {plural}`: the singular only for exactly 1 (so `0 tools`).
pub fn count_label(n: u64, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// How long ago, coarsely: `just now`, `5 min ago`, `3 h ago`, `2 days ago`.
pub fn age(elapsed_ms: f64) -> String {
    let minutes = (elapsed_ms.max(0.0) / 60_000.0) as u64;
    match minutes {
        0 => "just now".to_string(),
        1..=59 => format!("{minutes} min ago"),
        60..=1439 => format!("{} h ago", minutes / 60),
        _ => count_label(minutes / 1440, "day ago", "days ago"),
    }
}

/// Duration chip text (docs/behaviour.md §3.2): `850ms`, `2.5s`, `2.3s` for 2250 (half-up),
/// `1m 30s`, `4m 03s`, `1h 02m`.
///
/// Each unit is chosen on the rounded value, so 59,960 ms reads `1m 00s`, not
/// `60.0s`. Hours show whole minutes after rounding to the nearest second.
pub fn format_duration(ms: u64) -> String {
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let tenths = ms.saturating_add(50) / 100;
    if tenths < 600 {
        return format!("{}.{}s", tenths / 10, tenths % 10);
    }
    let secs = ms.saturating_add(500) / 1000;
    if secs < 3600 {
        return format!("{}m {:02}s", secs / 60, secs % 60);
    }
    format!("{}h {:02}m", secs / 3600, (secs % 3600) / 60)
}

/// Token chip text (docs/behaviour.md §3.2): exact below 1,000, then `k` and `M` with one
/// half-up decimal and `.0` dropped; the plural agrees with the raw count.
pub fn format_tokens(n: u64) -> String {
    let unit = if n == 1 { "token" } else { "tokens" };
    format!("{} {unit}", abbreviate(n))
}

/// Token chip title (docs/behaviour.md §3.2): the exact grouped count, `48,213 tokens`.
pub fn format_tokens_exact(n: u64) -> String {
    let unit = if n == 1 { "token" } else { "tokens" };
    format!("{} {unit}", group_thousands(n))
}

/// `987`, `9.9k`, `21k`, `1.2M`: a unit is chosen on the rounded value, so
/// 999,950 reads `1M`.
pub fn abbreviate(n: u64) -> String {
    if n < 1000 {
        return n.to_string();
    }
    let k_tenths = n.saturating_add(50) / 100;
    if k_tenths < 10_000 {
        return with_tenths(k_tenths, "k");
    }
    with_tenths(n.saturating_add(50_000) / 100_000, "M")
}

/// `tenths` as `{whole}.{tenth}{suffix}`, dropping a `.0`.
fn with_tenths(tenths: u64, suffix: &str) -> String {
    match tenths % 10 {
        0 => format!("{}{suffix}", tenths / 10),
        t => format!("{}.{t}{suffix}", tenths / 10),
    }
}

/// `48213` → `48,213`.
pub fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Cuts `s` to `max` characters plus `…` when longer (docs/behaviour.md §3.2 session chip).
pub fn ellipsize(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_under_a_second_is_whole_milliseconds_850ms() {
        assert_eq!(format_duration(850), "850ms");
        assert_eq!(format_duration(0), "0ms");
        assert_eq!(format_duration(999), "999ms");
    }

    #[test]
    fn duration_under_a_minute_has_one_decimal_2500_is_2_5s() {
        assert_eq!(format_duration(2500), "2.5s");
        assert_eq!(format_duration(2200), "2.2s");
        assert_eq!(format_duration(1000), "1.0s");
    }

    #[test]
    fn duration_chip_rounds_half_up_2250_to_2_3s() {
        assert_eq!(format_duration(2250), "2.3s");
        assert_eq!(format_duration(1250), "1.3s");
        assert_eq!(format_duration(1150), "1.2s");
        assert_eq!(format_duration(1149), "1.1s");
    }

    #[test]
    fn duration_under_an_hour_is_minutes_and_padded_seconds() {
        assert_eq!(format_duration(90278), "1m 30s");
        assert_eq!(format_duration(243117), "4m 03s");
        assert_eq!(format_duration(59_960), "1m 00s");
        assert_eq!(format_duration(3_599_499), "59m 59s");
    }

    #[test]
    fn duration_of_an_hour_or_more_is_hours_and_padded_minutes() {
        assert_eq!(format_duration(3_720_000), "1h 02m");
        assert_eq!(format_duration(3_599_500), "1h 00m");
        assert_eq!(format_duration(u64::MAX), format_duration(u64::MAX));
    }

    #[test]
    fn tokens_below_a_thousand_are_exact_with_agreeing_plural() {
        assert_eq!(format_tokens(1), "1 token");
        assert_eq!(format_tokens(987), "987 tokens");
        assert_eq!(format_tokens(0), "0 tokens");
    }

    #[test]
    fn tokens_in_thousands_have_one_half_up_decimal_and_drop_dot_zero() {
        assert_eq!(format_tokens(9_900), "9.9k tokens");
        assert_eq!(format_tokens(48_213), "48.2k tokens");
        assert_eq!(format_tokens(21_007), "21k tokens");
        assert_eq!(format_tokens(1_050), "1.1k tokens");
        assert_eq!(format_tokens(999_950), "1M tokens");
    }

    #[test]
    fn tokens_in_millions_use_m() {
        assert_eq!(format_tokens(1_234_567), "1.2M tokens");
        assert_eq!(format_tokens(2_000_000), "2M tokens");
    }

    #[test]
    fn token_title_is_the_exact_grouped_count() {
        assert_eq!(format_tokens_exact(48_213), "48,213 tokens");
        assert_eq!(format_tokens_exact(1), "1 token");
        assert_eq!(format_tokens_exact(1_234_567), "1,234,567 tokens");
        assert_eq!(format_tokens_exact(999), "999 tokens");
    }

    #[test]
    fn count_label_is_singular_only_for_one() {
        assert_eq!(count_label(0, "tool", "tools"), "0 tools");
        assert_eq!(count_label(1, "tool", "tools"), "1 tool");
        assert_eq!(count_label(27, "tool", "tools"), "27 tools");
    }

    #[test]
    fn ellipsize_keeps_twelve_characters_then_an_ellipsis() {
        assert_eq!(ellipsize("sess_abcdef0123456789", 12), "sess_abcdef0…");
        assert_eq!(ellipsize("short", 12), "short");
        assert_eq!(ellipsize("exactly12chr", 12), "exactly12chr");
        assert_eq!(ellipsize("ééééééééééééé", 12), "éééééééééééé…");
    }
}
