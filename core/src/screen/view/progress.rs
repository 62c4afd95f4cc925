//! The progress bar of a file that opens progressively (docs/behaviour.md §10), and of
//! a folder's sessions read for the chooser's titles: how far reading is, as
//! the bar's value and the words it is announced with.

/// What the progress bar shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgressView {
    /// `aria-valuenow`, 0 to 100; 100 only once reading is done.
    pub percent: u8,
    /// The bar's accessible name.
    pub label: String,
    /// `aria-valuetext` and the visible text, e.g. `45% read`.
    pub text: String,
}

/// The progress bar for a file read to `fraction` (0 to 1). A fraction just
/// short of the end reads 99%, never 100%, so the bar says done only when
/// it is; anything unreadable (NaN, out of range) is clamped.
pub fn reading_progress(fraction: f64) -> ProgressView {
    let fraction = if fraction.is_nan() {
        0.0
    } else {
        fraction.clamp(0.0, 1.0)
    };
    let percent = (fraction * 100.0).floor() as u8;
    ProgressView {
        percent,
        label: "Reading the transcript".to_string(),
        text: format!("{percent}% read"),
    }
}

/// The progress bar while the session chooser reads `read` of its `total`
/// sessions' first bytes (one after another); 100% only once all are read.
pub fn sessions_progress(read: usize, total: usize) -> ProgressView {
    let percent = (read.min(total) * 100).checked_div(total).unwrap_or(100) as u8;
    ProgressView {
        percent,
        label: "Reading the sessions".to_string(),
        text: format!("{read} of {total} sessions read"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_is_a_whole_percent_that_reaches_100_only_at_the_end() {
        assert_eq!(reading_progress(0.0).percent, 0);
        assert_eq!(reading_progress(0.456).percent, 45);
        assert_eq!(reading_progress(0.999).percent, 99);
        assert_eq!(reading_progress(1.0).percent, 100);
        assert_eq!(reading_progress(0.456).text, "45% read");
        assert_eq!(reading_progress(0.2).label, "Reading the transcript");
    }

    #[test]
    fn the_sessions_bar_counts_the_sessions_read() {
        let third = sessions_progress(1, 3);
        assert_eq!(
            (third.percent, third.text.as_str(), third.label.as_str()),
            (33, "1 of 3 sessions read", "Reading the sessions")
        );
        assert_eq!(sessions_progress(0, 40).percent, 0);
        assert_eq!(sessions_progress(39, 40).percent, 97);
        assert_eq!(sessions_progress(40, 40).percent, 100);
        assert_eq!(sessions_progress(0, 0).percent, 100, "nothing to read");
    }

    #[test]
    fn unreadable_fractions_are_clamped() {
        assert_eq!(reading_progress(f64::NAN).percent, 0);
        assert_eq!(reading_progress(-1.0).percent, 0);
        assert_eq!(reading_progress(7.0).percent, 100);
    }
}
