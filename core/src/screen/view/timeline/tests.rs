use super::geometry::{merged_spans, push_int, Spans};
use super::words::breakdown_text;
use super::*;
use crate::state::timeline::breakdown::Breakdown;
use crate::state::timeline::curve::Curve;
use crate::state::timeline::intervals::Intervals;

const B: (Millis, Millis) = (0, 100_000);

/// The curve's samples drawn afresh.
fn curve_points(samples: &[u32], peak: u32) -> String {
    let mut drawing = CurveDrawing::default();
    drawing.draw(samples, peak, 0);
    drawing.text().to_string()
}

#[test]
fn a_curve_drawn_again_from_where_it_changed_is_the_curve_drawn_afresh() {
    let mut next = crate::state::timeline::test_numbers(5);
    let mut curve = Curve::default();
    let windows = [(0, 60_000, 450), (10_000, 30_000, 120), (0, 60_000, 7)];
    let mut kept = [(); 3].map(|_| KeptBars::default());
    let mut redrawn = 0;
    for k in 0..400 {
        // Mostly at the end, as a live session changes it; now and then
        // anywhere (a late record, a run that moved).
        let start = match k % 17 {
            0 => next(50_000),
            _ => 100 * k + next(300),
        };
        let end = (k % 5 != 0).then(|| start + 1 + next(2_000));
        curve.change(start, end, 1);
        if k % 7 == 3 {
            curve.change(start, end, -1);
        }
        let peak = curve.peak().0;
        for ((from, to, n), kept) in windows.into_iter().zip(&mut kept) {
            assert_eq!(
                kept.curve(&curve, from, to, n),
                curve_points(&curve.sample(from, to, n), peak).into(),
                "after change {k}, over {from}..{to} in {n}"
            );
            redrawn += usize::from(kept.curves[0].drawn_from > 0);
        }
    }
    assert!(
        redrawn > 600,
        "most drawings were drawn again from a later slice, not afresh: {redrawn}"
    );
}

#[test]
fn curve_points_are_written_as_formatting_would_write_them() {
    let formatted = |samples: &[u32], peak: u32| {
        let height = i64::from(CURVE_PX);
        let y = |c: u32| height - 2 - i64::from(c) * (height - 4) / i64::from(peak.max(1));
        let mut points: Vec<String> = Vec::new();
        let mut last = None;
        for (k, c) in samples.iter().enumerate() {
            let x = k as i64 * SLICE_PX;
            if last != Some(*c) {
                points.extend(last.map(|b| format!("{x},{}", y(b))));
                points.push(format!("{x},{}", y(*c)));
                last = Some(*c);
            }
        }
        points.extend(last.map(|c| format!("{},{}", samples.len() as i64 * SLICE_PX, y(c))));
        points.join(" ")
    };
    for (samples, peak) in [
        (vec![], 0),
        (vec![0, 0, 2, 2, 1, 0], 2),
        (vec![7; 600], 7),
        ((0..900).map(|k| k % 13).collect(), 12),
        (vec![3, 9], 2),
    ] {
        assert_eq!(curve_points(&samples, peak), formatted(&samples, peak));
    }
    for n in [0, 7, -3, 1_234_567, i64::MIN, i64::MAX] {
        let mut out = Vec::new();
        push_int(&mut out, n);
        assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
    }
}

#[test]
fn spans_drawn_by_binary_search_are_those_drawn_one_interval_at_a_time() {
    // Intervals of every kind: apart, touching, nested, overlapping,
    // before, across and after the windows drawn.
    let mut next = crate::state::timeline::test_numbers(7);
    let mut list = Intervals::default();
    for k in 0..400 {
        let start = next(100_000);
        let long = if k % 7 == 0 { 20_000 } else { 600 };
        list.insert(start, start + next(long), &format!("t{k}"));
    }
    let one_by_one = |window: (Millis, Millis), width: u32, cap: Millis| {
        let scale = Scale::new(window, width);
        let mut spans = Spans::default();
        for (_, a, b) in list.iter() {
            if b >= window.0 && a <= window.1 {
                let (x, w, _, _) = scale.span(a, b.min(cap));
                spans.add(x, w);
            }
        }
        spans.path()
    };
    for window in [
        (0, 100_000),
        (20_000, 25_000),
        (50_000, 99_000),
        (1_000, 1_500),
    ] {
        for width in [40, 300, 1000, 5000] {
            for cap in [Millis::MAX, 60_000] {
                let scale = Scale::new(window, width);
                assert_eq!(
                    merged_spans(&list, scale, window, cap),
                    one_by_one(window, width, cap),
                    "{window:?} at {width} px, cut at {cap}"
                );
            }
        }
    }
}

fn query(window: Option<(Millis, Millis)>) -> TimelineQuery {
    TimelineQuery {
        window,
        width: 1000,
        ..TimelineQuery::default()
    }
}

#[test]
fn zooming_keeps_the_moment_under_the_pointer_in_place() {
    let zoomed = query(None).zoomed(B, Some(250), true);
    let (from, to) = zoomed.window.unwrap();
    assert_eq!(to - from, 66_666);
    let scale = Scale::new((from, to), 1000);
    assert_eq!(scale.time(250), 25_000);
    // Out again past the session: the whole session.
    assert_eq!(
        zoomed
            .zoomed(B, Some(250), false)
            .zoomed(B, None, false)
            .window,
        None
    );
    // Never narrower than two seconds.
    let mut q = query(None);
    for _ in 0..40 {
        q = q.zoomed(B, None, true);
    }
    let (from, to) = q.window.unwrap();
    assert_eq!(to - from, MIN_WINDOW_MS);
}

#[test]
fn brushing_the_minimap_picks_the_window_and_a_click_centres_it() {
    let q = query(None).brushed(B, 600, 200);
    assert_eq!(q.window, Some((20_000, 60_000)));
    let centred = q.brushed(B, 900, 900);
    assert_eq!(
        centred.window,
        Some((60_000, 100_000)),
        "kept inside the session"
    );
    assert_eq!(centred.panned(B, -500).window, Some((40_000, 80_000)));
    assert_eq!(centred.whole().window, None);
}

#[test]
fn ticks_are_round_times_since_the_start_at_least_90_px_apart() {
    let labels: Vec<String> = ticks(Scale::new((0, 300_000), 900), 0)
        .into_iter()
        .map(|t| t.label)
        .collect();
    assert_eq!(
        labels,
        ["0:00", "0:30", "1:00", "1:30", "2:00", "2:30", "3:00", "3:30", "4:00", "4:30", "5:00"]
    );
    assert_eq!(clock_offset(3_723_000), "1:02:03");
}

#[test]
fn a_bar_cut_by_the_window_says_so_and_keeps_two_pixels() {
    let scale = Scale::new((10_000, 20_000), 100);
    assert_eq!(scale.span(0, 15_000), (0, 50, true, false));
    assert_eq!(scale.span(19_999, 30_000), (98, 2, false, true));
}

#[test]
fn where_the_time_went_is_said_and_a_source_without_tool_ends_says_so() {
    let split = Breakdown {
        total: 100_000,
        split: Some((60_000, 30_000)),
        active: 90_000,
        waiting: 0,
        idle: 10_000,
    };
    assert_eq!(
        breakdown_text(&split),
        "model 1m 00s, tools 30.0s, idle 10.0s"
    );
    let unsplit = Breakdown {
        split: None,
        waiting: 5_000,
        ..split
    };
    assert_eq!(
        breakdown_text(&unsplit),
        "model and tools 1m 30s (this source does not record when tool calls end), waiting on its subagents 5.0s, idle 10.0s"
    );
    assert_eq!(
        summary_text(&split, 1, 3, 0, 0),
        "2 of 3 runs ran 1m 40s in all: model 1m 00s, tools 30.0s, idle 10.0s. 1 run has no records of its own here."
    );
}
