//! The diff page's change chart as inline SVG written by hand (pure), like the other charts
//! ([`super::chart`]): per changed trial on both sides, a horizontal bar of its change between the
//! sides (%), a whisker over its 95 % confidence interval ([`super::diff::interval`]), and below
//! the bar each side's per-run medians as dots (a strip plot), placed on the same axis as their
//! change from the old side's median; a shaded band marks the change rule's floor (± the
//! threshold the diff colours by, [`super::diff::EXPLAIN_THRESHOLD`]), labelled.
//!
//! `data-points` is the number of `class="pt"` bars; the whiskers are `class="ci"`, the dots
//! `class="run old"` / `class="run new"`, the band `class="floor"`.

use super::chart::{GREEN, NEW, OLD, RED, nice_ticks, shorten, tick_text, x_grid};
use super::diff::{Change, TrialDiff, interval, percent};
use super::html_escape as escape;
use std::fmt::Write as _;

/// The chart of `trials` (those with a finite change are drawn, in the order given) with the floor
/// band at ± `floor` (a fraction: 0.01 is ± 1 %); `None` when none has a finite change.
pub fn change_svg(trials: &[&TrialDiff], floor: f64) -> Option<String> {
    const W: f64 = 800.0;
    const ROW: f64 = 40.0;
    let drawn: Vec<(&TrialDiff, f64)> =
        trials.iter().filter_map(|t| t.delta().filter(|d| d.is_finite()).map(|d| (*t, d))).collect();
    if drawn.is_empty() {
        return None;
    }
    let longest = drawn.iter().map(|(t, _)| t.trial.chars().count()).max().unwrap_or(0);
    let left = (16.0 + 7.0 * longest as f64).clamp(120.0, 300.0);
    let (right, top) = (190.0, 50.0);
    let h = top + drawn.len() as f64 * ROW + 40.0;
    let pw = W - left - right;
    // Each run's median as a change from the old side's median, in %.
    let runs = |t: &TrialDiff, new: bool| -> Vec<f64> {
        let old = t.old_s.filter(|o| o.is_finite() && *o != 0.0);
        let runs = if new { &t.new_runs } else { &t.old_runs };
        old.map_or(Vec::new(), |o| {
            runs.iter().map(|r| 100.0 * (r.median_s / o - 1.0)).filter(|v| v.is_finite()).collect()
        })
    };
    let mut values: Vec<f64> = vec![0.0, -100.0 * floor, 100.0 * floor];
    for (t, d) in &drawn {
        values.push(100.0 * d);
        if let Some(i) = t.interval() {
            values.extend([100.0 * i.low, 100.0 * i.high]);
        }
        values.extend(runs(t, false));
        values.extend(runs(t, true));
    }
    let (ticks, lo, hi) = nice_ticks(values.into_iter());
    let x_of = |pct: f64| left + (pct - lo) / (hi - lo) * pw;
    let bottom = h - 34.0;

    let mut svg = String::new();
    writeln!(
        svg,
        "<svg class=\"chart change\" data-points=\"{}\" viewBox=\"0 0 {W} {h}\" width=\"{W}\" height=\"{h}\" role=\"img\" aria-label=\"change per trial with its 95 % confidence interval\">\n<title>Change of each changed trial between the sides, with its 95 % confidence interval and each side's runs</title>",
        drawn.len()
    )
    .unwrap();
    // The floor band behind everything, labelled above the plot.
    let (fl, fr) = (x_of(-100.0 * floor), x_of(100.0 * floor));
    writeln!(
        svg,
        "<rect class=\"floor\" x=\"{fl:.1}\" y=\"{}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#eaeef2\"><title>± {} %: \
         the diff's floor; a change inside it reads &quot;within {} %&quot;</title></rect>",
        top - 6.0,
        (fr - fl).max(1.0),
        bottom - top + 6.0,
        tick_text(100.0 * floor),
        tick_text(100.0 * floor),
    )
    .unwrap();
    writeln!(
        svg,
        "<text class=\"note\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">within ± {} % (the floor)</text>",
        (fl + fr) / 2.0,
        top - 10.0,
        tick_text(100.0 * floor)
    )
    .unwrap();
    x_grid(&mut svg, &ticks, x_of, (top, bottom), h - 20.0);
    let x0 = x_of(0.0);
    writeln!(svg, "<line class=\"axis\" x1=\"{x0:.1}\" x2=\"{x0:.1}\" y1=\"{}\" y2=\"{bottom}\"/>", top - 6.0).unwrap();
    writeln!(
        svg,
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">change of the median time, new against old (%)</text>",
        left + pw / 2.0,
        h - 3.0
    )
    .unwrap();
    // Legend: the dots.
    for (i, (class, colour, what)) in
        [("old", OLD, "a run of the old side"), ("new", NEW, "a run of the new side")].into_iter().enumerate()
    {
        let x = left + 190.0 * i as f64;
        writeln!(
            svg,
            "<circle class=\"key-{class}\" cx=\"{:.1}\" cy=\"12\" r=\"3.5\" fill=\"{colour}\"/><text class=\"legend\" x=\"{:.1}\" y=\"16\">{what}</text>",
            x + 4.0,
            x + 12.0
        )
        .unwrap();
    }
    writeln!(
        svg,
        "<line class=\"ci-key\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"12\" y2=\"12\" stroke=\"#1b1f24\"/><text class=\"legend\" x=\"{:.1}\" y=\"16\">95 % interval</text>",
        left + 380.0,
        left + 400.0,
        left + 406.0
    )
    .unwrap();
    for (i, (t, d)) in drawn.iter().enumerate() {
        let y0 = top + i as f64 * ROW;
        let colour = match t.change() {
            Change::Slower => RED,
            Change::Faster => GREEN,
            _ => OLD,
        };
        writeln!(
            svg,
            "<text class=\"name\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\"><title>{}</title>{}</text>",
            left - 8.0,
            y0 + 11.0,
            escape(&t.trial),
            escape(&shorten(&t.trial, ((left - 16.0) / 7.0) as usize))
        )
        .unwrap();
        let xd = x_of(100.0 * d);
        let interval = t.interval();
        let ci_text = interval.as_ref().map(interval::text);
        let noise = interval.filter(|i| i.straddles_zero()).map_or("", |_| " within noise");
        writeln!(
            svg,
            "<rect class=\"pt bar\" fill=\"{colour}\" x=\"{:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"14\"><title>{}: {} {}{}{noise}</title></rect>",
            x0.min(xd),
            (xd - x0).abs().max(1.0),
            escape(&t.trial),
            escape(t.change().word()),
            percent(*d),
            ci_text.as_ref().map_or(String::new(), |c| format!(" {c} (95 %)")),
        )
        .unwrap();
        if let Some(i) = interval {
            let (a, b, y) = (x_of(100.0 * i.low), x_of(100.0 * i.high), y0 + 7.0);
            writeln!(
                svg,
                "<g class=\"ci\" stroke=\"#1b1f24\" stroke-width=\"1.5\"><title>95 % interval {}{noise} ({})</title>\
                 <line x1=\"{a:.1}\" x2=\"{b:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/><line x1=\"{a:.1}\" x2=\"{a:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
                 <line x1=\"{b:.1}\" x2=\"{b:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/></g>",
                ci_text.as_deref().unwrap_or_default(),
                i.method.name(),
                y - 5.0,
                y + 5.0,
                y - 5.0,
                y + 5.0
            )
            .unwrap();
        }
        writeln!(
            svg,
            "<text class=\"value\" x=\"{:.1}\" y=\"{:.1}\">{}{}</text>",
            left + pw + 8.0,
            y0 + 11.0,
            percent(*d),
            ci_text.map_or(String::new(), |c| format!(" {c}"))
        )
        .unwrap();
        // Said under the numbers, where the dots are, so that the column stays narrow.
        if !noise.is_empty() {
            writeln!(
                svg,
                "<text class=\"note\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                left + pw + 8.0,
                y0 + 27.0,
                noise.trim()
            )
            .unwrap();
        }
        // The strip plot: each side's runs, old above new.
        for (row, (class, colour, new)) in [("old", OLD, false), ("new", NEW, true)].into_iter().enumerate() {
            let y = y0 + 21.0 + 7.0 * row as f64;
            let medians = if new { &t.new_runs } else { &t.old_runs };
            for (v, r) in runs(t, new).into_iter().zip(medians.iter()) {
                writeln!(
                    svg,
                    "<circle class=\"run {class}\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"{colour}\" fill-opacity=\"0.8\"><title>{}: a run of the {class} side, {} ({})</title></circle>",
                    x_of(v),
                    escape(&t.trial),
                    crate::units::duration(r.median_s),
                    crate::units::signed_pct(v)
                )
                .unwrap();
            }
        }
    }
    svg.push_str("</svg>\n");
    Some(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::diff::tests::{row, side};
    use crate::report::diff::{EXPLAIN_THRESHOLD, Measurement, diff};

    /// A median row with an interval of ± `h` (made-up numbers).
    fn timed(trial: &str, value: f64, h: f64) -> Measurement {
        Measurement {
            ci: Some([value * (1.0 - h), value * (1.0 + h)]),
            ..row(trial, "median", "s", value, "unchanged")
        }
    }

    #[test]
    fn bars_whiskers_dots_and_the_floor_band() {
        let old = [timed("a/k/1", 100e-6, 0.005), timed("b/k/1", 100e-6, 0.02), timed("b/k/1", 102e-6, 0.02)];
        let new = [timed("a/k/1", 110e-6, 0.005), timed("b/k/1", 98e-6, 0.02), row("c/k/1", "median", "s", 1e-6, "")];
        let d = diff(&side("old"), &old, &side("new"), &new);
        let changed: Vec<&TrialDiff> = d.trials.iter().collect();
        let svg = change_svg(&changed, EXPLAIN_THRESHOLD).unwrap();
        // Two trials on both sides; the added one has no change to draw.
        assert!(svg.contains("data-points=\"2\""), "{svg}");
        assert_eq!(svg.matches("class=\"pt").count(), 2);
        assert_eq!(svg.matches("<g class=\"ci\"").count(), 2, "each has an interval");
        assert_eq!(svg.matches("class=\"run old\"").count(), 3, "one dot per old run");
        assert_eq!(svg.matches("class=\"run new\"").count(), 2);
        assert!(svg.contains("class=\"floor\"") && svg.contains("within ± 1 % (the floor)"), "{svg}");
        // a: +10 % in red with its interval; b: -3 % (median of 100 and 102 us against 98) in green,
        // whose interval from one new run's ± 2 % and two old runs holds 0.
        let a = d.trials.iter().find(|t| t.trial == "a/k/1").unwrap();
        let text = interval::text(&a.interval().unwrap());
        assert!(svg.contains(&format!("fill=\"{RED}\"")) && svg.contains(&format!("+10.00% {text}</text>")), "{svg}");
        assert!(svg.contains(&format!("fill=\"{GREEN}\"")) && svg.contains(">within noise</text>"), "{svg}");
        assert_eq!(change_svg(&[], EXPLAIN_THRESHOLD), None);
    }

    #[test]
    fn names_are_escaped() {
        let old = [timed("f/<script>/1", 100e-6, 0.01)];
        let new = [timed("f/<script>/1", 120e-6, 0.01)];
        let d = diff(&side("old"), &old, &side("new"), &new);
        let svg = change_svg(&d.trials.iter().collect::<Vec<_>>(), 0.01).unwrap();
        assert!(!svg.contains("<script") && svg.contains("f/&lt;script&gt;/1"));
    }
}
