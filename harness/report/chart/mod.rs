//! The diff report's charts as inline SVG written by hand (pure): a trend chart per case across
//! commits with its change points marked, and horizontal bars of % of copy bandwidth old vs new.
//!
//! Written by hand rather than with the `plotters` crate's SVG backend: each point needs a class
//! (`class="pt"`, so a test can count them), a `<title>` tooltip, and each chart a `data-points`
//! attribute, none of which plotters' backend exposes; and the charts are two simple kinds (points
//! and lines, horizontal bars) that need no layout engine. Every colour is one of [`PALETTE`],
//! [`RED`], [`GREEN`], [`OLD`] and [`NEW`], each at least 3:1 against the white page (checked in
//! `report::contrast`).

use super::diff::{Bar, Trend, TrendPoint};
use super::html_escape as escape;
use crate::units::format_value;
use std::fmt::Write as _;

mod labels;
use labels::{LABEL_ROW, Label, place_labels};

/// Colours of the lines of a trend's GPUs, in order: matplotlib's `tab10` blue, purple and brown,
/// with its orange, green and pink darkened to reach 3:1 against white (WCAG 2.x non-text contrast).
pub const PALETTE: [&str; 6] = ["#1f77b4", "#c25400", "#218a21", "#9467bd", "#8c564b", "#c2378f"];
/// The colour of change-point rules.
pub const RED: &str = "#cf222e";
/// The old side's bars.
pub const OLD: &str = "#6e7781";
/// The new side's bars.
pub const NEW: &str = "#1f77b4";
/// A faster trial's bar on the change chart ([`super::change_chart`]): the page's own green for
/// faster (5.1:1 on white).
pub const GREEN: &str = "#1a7f37";

/// One trend as an SVG line chart (pure): x = the points' labels in order of first appearance
/// (one commit measured on two GPUs shares an x), y = value with a unit chosen for reading
/// (seconds shown as ns/us/ms/s); one line and colour per GPU, a legend when there are several;
/// each commit with a change point (of any GPU) a dashed vertical rule labelled with its commit,
/// the labels placed by `place_labels` so that no two overlap: in up to `LABEL_ROWS` rows above
/// the plot (the chart grows by a row's height for each row past the first), shortened to the
/// commit where the whole label finds no room, and those that still find none named in the note
/// (on the legend's line, or on a line of its own below it where the two would meet).
/// Points whose value is not finite are not drawn and are counted in a note; so are change points
/// outside `points`. `data-points` is the number of `class="pt"` circles drawn.
pub fn trend_svg(trend: &Trend) -> String {
    // 800 units wide, shown at least 640 px wide (the page's CSS): 12-unit text stays 9.6 px or more.
    const W: f64 = 800.0;
    let (left, right, bottom) = (84.0, 24.0, 74.0);
    let pw = W - left - right;
    let mut labels: Vec<&str> = Vec::new();
    let mut gpus: Vec<&str> = Vec::new();
    for p in &trend.points {
        if !labels.contains(&p.label.as_str()) {
            labels.push(&p.label);
        }
        if !gpus.contains(&p.gpu.as_str()) {
            gpus.push(&p.gpu);
        }
    }
    let x_at = |i: usize| left + (i as f64 + 0.5) * pw / labels.len().max(1) as f64;
    let x_of = |label: &str| x_at(labels.iter().position(|l| *l == label).unwrap_or(0));
    // Change points: one rule per commit (several GPUs may change at one), in commit order.
    let mut notes = Vec::new();
    let mut changes: Vec<(usize, Vec<&str>)> = Vec::new();
    for &i in &trend.change_points {
        let Some(p) = trend.points.get(i) else {
            notes.push(format!("change point {i} is outside the {} points", trend.points.len()));
            continue;
        };
        let at = labels.iter().position(|l| *l == p.label).unwrap_or(0);
        match changes.iter_mut().find(|(x, _)| *x == at) {
            Some((_, on)) => on.push(&p.gpu),
            None => changes.push((at, vec![&p.gpu])),
        }
    }
    changes.sort_by_key(|(at, _)| *at);
    let wanted: Vec<Label> = changes
        .iter()
        .map(|(at, _)| Label {
            x: x_at(*at),
            text: format!("change at {}", labels[*at]),
            short: labels[*at].to_string(),
            // Right of the rule, or left of it near the right edge.
            right: x_at(*at) <= left + 0.75 * pw,
        })
        .collect();
    let placed = place_labels(&wanted, (0.0, W));
    let rows = placed.iter().flatten().map(|p| p.row + 1).max().unwrap_or(1);
    let unlabelled: Vec<&str> =
        changes.iter().zip(&placed).filter(|(_, p)| p.is_none()).map(|((at, _), _)| labels[*at]).collect();
    if !unlabelled.is_empty() {
        notes.push(format!("also changes at {} (too close to label)", unlabelled.join(", ")));
    }
    let drawn: Vec<&TrendPoint> = trend.points.iter().filter(|p| p.value.is_finite()).collect();
    let not_finite = trend.points.len() - drawn.len();
    if not_finite > 0 {
        notes.push(format!("{} not drawn (value not finite)", crate::units::count(not_finite, "point")));
    }
    if gpus.len() == 1 {
        notes.push(format!("GPU: {}", gpus[0]));
    }
    let note = notes.join("; ");
    // The legend, right-aligned on the first line of the top margin, one entry per GPU (7 units a
    // character of 12-unit text); the note on that line too where it ends before the legend
    // starts, else on a line of its own below.
    let legend_width =
        if gpus.len() > 1 { gpus.iter().map(|g| 7.0 * g.chars().count() as f64 + 30.0).sum() } else { 0.0 };
    let note_line = if left + 7.0 * note.chars().count() as f64 + 12.0 > left + pw - legend_width { 2 } else { 1 };
    // The top margin holds those lines, then the label rows.
    let top = 44.0 + 16.0 * (note_line - 1) as f64 + LABEL_ROW * (rows - 1) as f64;
    let h = top + 182.0 + bottom;
    let ph = h - top - bottom;
    let (scale, unit) = display_unit(&trend.unit, drawn.iter().map(|p| p.value.abs()).fold(0.0, f64::max));
    let (ticks, lo, hi) = nice_ticks(drawn.iter().map(|p| p.value * scale));
    let y_of = |v: f64| top + ph - (v * scale - lo) / (hi - lo) * ph;

    let mut svg = String::new();
    writeln!(
        svg,
        "<svg class=\"chart trend\" data-points=\"{}\" viewBox=\"0 0 {W} {h}\" width=\"{W}\" height=\"{h}\" role=\"img\" aria-label=\"{}\">\n<title>{} {} across {}</title>",
        drawn.len(),
        escape(&format!("{} {} across commits", trend.trial, trend.metric)),
        escape(&trend.trial),
        escape(&trend.metric),
        crate::units::count(labels.len(), "commit"),
    )
    .unwrap();
    // Y axis: grid lines and tick labels, the axis title with its unit.
    for t in &ticks {
        let y = top + ph - (t - lo) / (hi - lo) * ph;
        writeln!(svg, "<line class=\"grid\" x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/>", left + pw).unwrap();
        writeln!(
            svg,
            "<text class=\"tick\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y + 4.0,
            tick_text(*t)
        )
        .unwrap();
    }
    writeln!(
        svg,
        "<text class=\"axis-title\" transform=\"translate(18 {:.1}) rotate(-90)\" text-anchor=\"middle\">{} ({})</text>",
        top + ph / 2.0,
        escape(&trend.metric),
        escape(&unit)
    )
    .unwrap();
    writeln!(
        svg,
        "<line class=\"axis\" x1=\"{left}\" x2=\"{left}\" y1=\"{top}\" y2=\"{}\"/><line class=\"axis\" x1=\"{left}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>",
        top + ph,
        left + pw,
        top + ph,
        top + ph
    )
    .unwrap();
    // X axis: commit labels, thinned to about 24 so they do not overlap.
    let every = labels.len().div_ceil(24).max(1);
    for (i, label) in labels.iter().enumerate().filter(|(i, _)| i % every == 0) {
        let x = left + (i as f64 + 0.5) * pw / labels.len() as f64;
        writeln!(
            svg,
            "<text class=\"tick\" transform=\"translate({x:.1} {:.1}) rotate(-35)\" text-anchor=\"end\">{}</text>",
            top + ph + 14.0,
            escape(label)
        )
        .unwrap();
    }
    writeln!(
        svg,
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">commit</text>",
        left + pw / 2.0,
        h - 6.0
    )
    .unwrap();
    // Change points: behind the data.
    for ((at, on), (label, placed)) in changes.iter().zip(wanted.iter().zip(&placed)) {
        writeln!(
            svg,
            "<line class=\"cp\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"{RED}\"><title>change point: new regime from {} on {}</title></line>",
            top - 6.0,
            top + ph,
            escape(labels[*at]),
            escape(&on.join(", ")),
            x = label.x,
        )
        .unwrap();
        if let Some(p) = placed {
            writeln!(
                svg,
                "<text class=\"cp-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\" fill=\"{RED}\">{}</text>",
                p.x,
                top - 10.0 - LABEL_ROW * p.row as f64,
                if p.right { "start" } else { "end" },
                escape(&p.text)
            )
            .unwrap();
        }
    }
    // One line and one colour per GPU.
    for (g, gpu) in gpus.iter().enumerate() {
        let colour = PALETTE[g % PALETTE.len()];
        let mine: Vec<&&TrendPoint> = drawn.iter().filter(|p| p.gpu == *gpu).collect();
        let path: Vec<String> = mine.iter().map(|p| format!("{:.1},{:.1}", x_of(&p.label), y_of(p.value))).collect();
        if path.len() > 1 {
            writeln!(svg, "<polyline class=\"line\" points=\"{}\" stroke=\"{colour}\"/>", path.join(" ")).unwrap();
        }
        for p in mine {
            writeln!(
                svg,
                "<circle class=\"pt\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{colour}\"><title>{} on {}: {}</title></circle>",
                x_of(&p.label),
                y_of(p.value),
                escape(&p.label),
                escape(&p.gpu),
                escape(&format_value(p.value, &trend.unit))
            )
            .unwrap();
        }
    }
    // Legend in the top margin, right-aligned, one entry per GPU.
    if gpus.len() > 1 {
        let mut x = left + pw;
        for (g, gpu) in gpus.iter().enumerate().rev() {
            let colour = PALETTE[g % PALETTE.len()];
            writeln!(
                svg,
                "<text class=\"legend\" x=\"{x:.1}\" y=\"16\" text-anchor=\"end\">{}</text><circle cx=\"{:.1}\" cy=\"12\" r=\"4\" fill=\"{colour}\"/>",
                escape(gpu),
                x - 7.0 * gpu.chars().count() as f64 - 8.0
            )
            .unwrap();
            x -= 7.0 * gpu.chars().count() as f64 + 30.0;
        }
    }
    if !note.is_empty() {
        writeln!(svg, "<text class=\"note\" x=\"{left}\" y=\"{}\">{}</text>", 16 * note_line, escape(&note)).unwrap();
    }
    svg.push_str("</svg>\n");
    svg
}

/// The bars as an SVG chart (pure): per trial a grey bar for the old side and a blue one for the
/// new, horizontal so long trial names stay readable, a dashed rule at 100 % (the copy
/// bandwidth); a side without a value says `absent`. `data-points` is the number of `class="pt"`
/// bars drawn.
pub fn bars_svg(bars: &[Bar], old_label: &str, new_label: &str) -> String {
    const W: f64 = 800.0;
    let longest = bars.iter().map(|b| b.trial.chars().count()).max().unwrap_or(0);
    let left = (16.0 + 7.0 * longest as f64).clamp(120.0, 300.0);
    let (right, top, bar, gap) = (70.0, 54.0, 11.0, 10.0);
    let h = top + bars.len() as f64 * (2.0 * bar + gap) + 40.0;
    let pw = W - left - right;
    let values = bars.iter().flat_map(|b| [b.old, b.new]).flatten().filter(|v| v.is_finite());
    let (ticks, _, hi) = nice_ticks(values.chain([0.0, 100.0]));
    let x_of = |v: f64| left + v.max(0.0) / hi * pw;
    let drawn = bars.iter().flat_map(|b| [b.old, b.new]).flatten().filter(|v| v.is_finite()).count();

    let mut svg = String::new();
    writeln!(
        svg,
        "<svg class=\"chart bars\" data-points=\"{drawn}\" viewBox=\"0 0 {W} {h}\" width=\"{W}\" height=\"{h}\" role=\"img\" aria-label=\"% of copy bandwidth, old vs new\">\n<title>% of copy bandwidth per trial, old vs new</title>"
    )
    .unwrap();
    x_grid(&mut svg, &ticks, x_of, (top, h - 34.0), h - 20.0);
    writeln!(
        svg,
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">% of the run's copy bandwidth</text>",
        left + pw / 2.0,
        h - 3.0
    )
    .unwrap();
    let x100 = x_of(100.0);
    writeln!(
        svg,
        "<line class=\"ref\" x1=\"{x100:.1}\" x2=\"{x100:.1}\" y1=\"{}\" y2=\"{}\"><title>100 %: the copy bandwidth measured in the run</title></line>",
        top - 4.0,
        h - 34.0
    )
    .unwrap();
    writeln!(svg, "<text class=\"note\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">copy</text>", x100, top - 8.0)
        .unwrap();
    // Legend.
    for (i, (class, label)) in [("old", old_label), ("new", new_label)].into_iter().enumerate() {
        // One line each, so that two long labels never overlap.
        let (x, y) = (left, 4.0 + 16.0 * i as f64);
        writeln!(
            svg,
            "<rect class=\"{class}\" x=\"{x:.1}\" y=\"{y}\" width=\"14\" height=\"10\"/><text class=\"legend\" x=\"{:.1}\" y=\"{}\">{class}: {}</text>",
            x + 20.0,
            y + 9.0,
            escape(&shorten(label, 40))
        )
        .unwrap();
    }
    for (i, b) in bars.iter().enumerate() {
        let y0 = top + i as f64 * (2.0 * bar + gap);
        writeln!(
            svg,
            "<text class=\"name\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\"><title>{}</title>{}</text>",
            left - 8.0,
            y0 + bar + 4.0,
            escape(&b.trial),
            escape(&shorten(&b.trial, ((left - 16.0) / 7.0) as usize))
        )
        .unwrap();
        for (j, (class, v)) in [("old", b.old), ("new", b.new)].into_iter().enumerate() {
            let y = y0 + j as f64 * bar;
            match v.filter(|v| v.is_finite()) {
                Some(v) => writeln!(
                    svg,
                    "<rect class=\"pt {class}\" fill=\"{}\" x=\"{left}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>{}, {class}: {v:.1} %</title></rect><text class=\"value\" x=\"{:.1}\" y=\"{:.1}\">{v:.1}%</text>",
                    if class == "old" { OLD } else { NEW },
                    x_of(v) - left,
                    bar - 1.0,
                    escape(&b.trial),
                    x_of(v) + 4.0,
                    y + bar - 2.0
                )
                .unwrap(),
                None => writeln!(svg, "<text class=\"value\" x=\"{:.1}\" y=\"{:.1}\">{class}: absent</text>", left + 4.0, y + bar - 2.0)
                    .unwrap(),
            }
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// The scale and unit label an axis shows `unit` in, given the largest magnitude: seconds as
/// ns/us/ms/s (as [`crate::units::duration`] does), other units unscaled.
fn display_unit(unit: &str, max: f64) -> (f64, String) {
    match unit {
        "s" if max < 1e-6 => (1e9, "ns".into()),
        "s" if max < 1e-3 => (1e6, "us".into()),
        "s" if max < 1.0 => (1e3, "ms".into()),
        "" => (1.0, "1".into()),
        u => (1.0, u.into()),
    }
}

/// Axis ticks at 1, 2 or 5 times a power of ten covering `values` (about five of them) and the
/// axis range they span; a single value gets ±5 % of room, no finite value the range 0..1.
pub(super) fn nice_ticks(values: impl Iterator<Item = f64>) -> (Vec<f64>, f64, f64) {
    let (mut lo, mut hi) =
        values.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
    if lo > hi {
        (lo, hi) = (0.0, 1.0);
    }
    if hi - lo <= f64::EPSILON * hi.abs().max(1e-300) {
        let pad = if lo == 0.0 { 1.0 } else { 0.05 * lo.abs() };
        (lo, hi) = (lo - pad, hi + pad);
    }
    let raw = (hi - lo) / 5.0;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= raw).unwrap_or(10.0 * power);
    let (first, last) = ((lo / step).floor(), (hi / step).ceil());
    let ticks: Vec<f64> = (0..=(last - first) as usize).map(|i| (first + i as f64) * step).collect();
    (ticks, first * step, last * step)
}

/// The vertical grid line of each of `ticks` from `y` (top, bottom), at `x_of(tick)`, and its number
/// centred below at `label_y` (chart units): the x axis of a horizontal bar chart.
pub(super) fn x_grid(svg: &mut String, ticks: &[f64], x_of: impl Fn(f64) -> f64, y: (f64, f64), label_y: f64) {
    let (top, bottom) = y;
    for t in ticks {
        let x = x_of(*t);
        writeln!(svg, "<line class=\"grid\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{top}\" y2=\"{bottom}\"/>").unwrap();
        writeln!(
            svg,
            "<text class=\"tick\" x=\"{x:.1}\" y=\"{label_y}\" text-anchor=\"middle\">{}</text>",
            tick_text(*t)
        )
        .unwrap();
    }
}

/// A tick's number: at most 4 significant digits, no float noise (`0.30000000000000004` -> `0.3`).
pub(super) fn tick_text(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let decimals = usize::try_from(3 - v.abs().log10().floor() as i32).unwrap_or(0);
    let text = format!("{v:.decimals$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

/// `text` cut to `max` characters with an ellipsis (the full text stays in the `<title>`).
pub(super) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        text.chars().take(max.saturating_sub(1)).chain(['…']).collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::labels::tests::{DENSE, labels_at};
    use super::*;

    /// A synthetic trend (made-up numbers): 8 commits on two GPUs, a shift at the fifth commit; one
    /// point has no finite value.
    pub(crate) fn trend(trial: &str) -> Trend {
        let mut points = Vec::new();
        for (i, base) in [100.0, 101.0, 99.5, 100.5, 125.0, 126.0, 124.0, 125.5].into_iter().enumerate() {
            for (g, gpu) in ["GPU-aaaa", "GPU-bbbb"].into_iter().enumerate() {
                let value = if i == 6 && g == 1 { f64::NAN } else { (base + g as f64) * 1e-6 };
                points.push(TrendPoint { label: format!("c{i:06}"), value, gpu: gpu.into() });
            }
        }
        Trend { trial: trial.into(), metric: "median".into(), unit: "s".into(), points, change_points: vec![8] }
    }

    #[test]
    fn change_points_outside_the_series_are_reported() {
        let mut t = trend("a/b/1");
        t.change_points = vec![99];
        let svg = trend_svg(&t);
        assert!(svg.contains("change point 99 is outside the 16 points"), "{svg}");
        assert!(!svg.contains("class=\"cp\""));
    }

    /// The chart draws the placed labels, grows by a row's height for each row of labels past the
    /// first, names the labels that found no room, and draws one rule and label for a commit where
    /// several GPUs changed.
    #[test]
    fn a_trend_with_crowded_change_points_draws_every_label_apart() {
        let mut points = Vec::new();
        for i in 0..40 {
            for gpu in ["GPU-aaaa", "GPU-bbbb"] {
                points.push(TrendPoint {
                    label: format!("c{i:06}"),
                    value: (100.0 + i as f64) * 1e-6,
                    gpu: gpu.into(),
                });
            }
        }
        let change_points = DENSE.iter().chain(&[38, 39]).map(|i| 2 * i).chain([2 * 12 + 1]).collect();
        let t = Trend { trial: "a/b/1".into(), metric: "median".into(), unit: "s".into(), points, change_points };
        let svg = trend_svg(&t);
        let wanted = labels_at(&[&DENSE[..], &[38, 39]].concat());
        let placed = place_labels(&wanted, (0.0, 800.0));
        let drawn = placed.iter().flatten().count();
        assert_eq!(svg.matches("class=\"cp-label\"").count(), drawn, "{svg}");
        assert_eq!(svg.matches("class=\"cp\"").count(), 12, "one rule per commit: {svg}");
        assert!(svg.contains("new regime from c000012 on GPU-aaaa, GPU-bbbb"), "{svg}");
        let rows = placed.iter().flatten().map(|p| p.row).max().unwrap() + 1;
        assert!(svg.contains(&format!("height=\"{}\"", 300.0 + LABEL_ROW * (rows - 1) as f64)), "{svg}");
        let missing: Vec<&str> =
            placed.iter().zip(&wanted).filter(|(p, _)| p.is_none()).map(|(_, l)| l.short.as_str()).collect();
        assert!(!missing.is_empty(), "ten adjacent change points leave some without a label");
        assert!(svg.contains(&format!("also changes at {} (too close to label)", missing.join(", "))), "{svg}");
        // A trend of one change point keeps the chart's height.
        assert!(trend_svg(&trend("a/b/1")).contains("height=\"300\""));
    }

    /// The note (here naming change points left without a label) shares the legend's line where
    /// the two fit side by side, and takes a line of its own below it, the chart 16 units higher,
    /// where they would meet.
    #[test]
    fn the_note_never_meets_the_legend() {
        let with = |gpus: [&str; 2], change_points: Vec<usize>| {
            let points = (0..40)
                .flat_map(|i| gpus.map(|gpu| TrendPoint { label: format!("c{i:06}"), value: 1e-4, gpu: gpu.into() }))
                .collect();
            trend_svg(&Trend {
                trial: "a/b/1".into(),
                metric: "median".into(),
                unit: "s".into(),
                points,
                change_points,
            })
        };
        let note_y = |svg: &str| {
            svg.split("<text class=\"note\"").nth(1).unwrap().split("y=\"").nth(1).unwrap()[..2].to_string()
        };
        let dense: Vec<usize> = DENSE.iter().map(|i| 2 * i).collect();
        let short = with(["GPU-a", "GPU-b"], dense.clone());
        let long = with(["GPU-5f1c0000-1111 (H200 #0)", "GPU-9a2e0000-2222 (H200 #1)"], dense);
        assert!(short.contains("also changes at") && long.contains("also changes at"));
        assert_eq!((note_y(&short), note_y(&long)), ("16".to_string(), "32".to_string()));
        let height =
            |svg: &str| svg.split("height=\"").nth(1).unwrap().split('"').next().unwrap().parse::<f64>().unwrap();
        assert_eq!(height(&long) - height(&short), 16.0);
    }

    #[test]
    fn ticks_are_round_and_cover_the_values() {
        let (ticks, lo, hi) = nice_ticks([99.5, 126.0].into_iter());
        assert_eq!(ticks, [90.0, 100.0, 110.0, 120.0, 130.0]);
        assert_eq!((lo, hi), (90.0, 130.0));
        let (_, lo, hi) = nice_ticks([5.0].into_iter());
        assert!(lo < 5.0 && hi > 5.0);
        assert_eq!(nice_ticks(std::iter::empty()).0, [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]);
        assert_eq!(tick_text(0.6000000000000001), "0.6");
        assert_eq!(tick_text(125.0), "125");
        assert_eq!(display_unit("s", 125e-6), (1e6, "us".into()));
        assert_eq!(display_unit("sector", 5.0), (1.0, "sector".into()));
    }
}
