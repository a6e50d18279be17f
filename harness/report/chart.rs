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
    for t in &ticks {
        let x = x_of(*t);
        writeln!(svg, "<line class=\"grid\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{top}\" y2=\"{}\"/>", h - 34.0).unwrap();
        writeln!(
            svg,
            "<text class=\"tick\" x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            h - 20.0,
            tick_text(*t)
        )
        .unwrap();
    }
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

/// Rows of change-point labels above a trend's plot, at most.
pub const LABEL_ROWS: usize = 3;
/// Height of a row of change-point labels, chart units (12-unit bold text is 14 high).
const LABEL_ROW: f64 = 16.0;
/// Width of a character of a change-point label, chart units: 12-unit bold text of DejaVu Sans
/// (Debian's `system-ui`) measured 7.4 to 7.6 per character in Chromium for `change at c000004`;
/// a little more, so that a wider face still fits.
const LABEL_CHAR: f64 = 8.0;
/// Room kept between two labels of one row, and between a label and its rule, chart units.
const LABEL_GAP: f64 = 4.0;

/// A change-point label to place ([`place_labels`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Label {
    /// The x of its rule, chart units.
    pub x: f64,
    /// The whole label (`change at c000004`).
    pub text: String,
    /// The label where the whole one finds no room (`c000004`).
    pub short: String,
    /// Whether it is best read right of its rule (else left of it).
    pub right: bool,
}

/// Where [`place_labels`] put a [`Label`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Placed {
    /// The text drawn: the label's whole text or its short one.
    pub text: String,
    /// The text's anchor x, chart units: its left end when `right`, else its right end.
    pub x: f64,
    /// Whether the text is right of its rule (anchored at its start) or left of it (at its end).
    pub right: bool,
    /// Its row, 0 the nearest the plot.
    pub row: usize,
}

impl Placed {
    /// Its box, `(left, right, top, bottom)` in chart units, the rows counted up from 0 (the
    /// text's estimated width, [`LABEL_CHAR`] a character; a row [`LABEL_ROW`] high).
    pub fn bounds(&self) -> (f64, f64, f64, f64) {
        let width = LABEL_CHAR * self.text.chars().count() as f64;
        let (l, r) = if self.right { (self.x, self.x + width) } else { (self.x - width, self.x) };
        let bottom = -LABEL_ROW * self.row as f64;
        (l, r, bottom - LABEL_ROW + 2.0, bottom)
    }
}

/// Places the change-point labels `wanted` (sorted by x) above a plot so that no two overlap
/// (pure). Each label goes, in order, in the lowest of [`LABEL_ROWS`] rows where it fits inside
/// `span` (left, right, chart units) at least [`LABEL_GAP`] from the labels already there, on the
/// side of its rule a way of placing chooses if it fits there, else on the other. Labels whose
/// rules are closer than a whole label are a cluster. The ways, each tried: whole labels on their
/// own preferred sides ([`Label::right`]); whole labels facing away from the nearest other rule;
/// whole labels with the sides of a cluster alternating (left of the first rule, right of the
/// second, ...: two a row); the same with a cluster's labels shortened to their commit; every label
/// shortened. The placing kept is the one that places the most labels, then uses the fewest rows
/// (a label in a row of its own is less plainly its rule's), then shortens the fewest, then comes
/// first. The answer has one entry per label, in order; `None` for a label that found
/// no room (the chart names it in a note).
pub(crate) fn place_labels(wanted: &[Label], span: (f64, f64)) -> Vec<Option<Placed>> {
    let width = |text: &str| LABEL_CHAR * text.chars().count() as f64;
    let n = wanted.len();
    // Each label's place in its cluster, and whether it is the cluster's last.
    let mut nth = vec![0usize; n];
    let mut last = vec![true; n];
    for i in 1..n {
        if wanted[i].x - wanted[i - 1].x < width(&wanted[i - 1].text) + 2.0 * LABEL_GAP {
            nth[i] = nth[i - 1] + 1;
            last[i - 1] = false;
        }
    }
    let clustered = |i: usize| nth[i] > 0 || !last[i];
    let away = |i: usize| {
        let before = if i > 0 { wanted[i].x - wanted[i - 1].x } else { f64::INFINITY };
        let after = if i + 1 < n { wanted[i + 1].x - wanted[i].x } else { f64::INFINITY };
        if before == after { wanted[i].right } else { before < after }
    };
    let alternate = |i: usize| if clustered(i) { nth[i] % 2 == 1 || last[i] } else { wanted[i].right };
    type Rule<'r> = &'r dyn Fn(usize) -> bool;
    let ways: [(Rule, Rule); 5] = [
        (&|i| wanted[i].right, &|_| false),
        (&away, &|_| false),
        (&alternate, &|_| false),
        (&alternate, &clustered),
        (&alternate, &|_| true),
    ];
    let score = |p: &[Option<Placed>]| {
        let rows = p.iter().flatten().map(|p| p.row + 1).max().unwrap_or(0);
        let shortened = p.iter().zip(wanted).filter(|(p, l)| p.as_ref().is_some_and(|p| p.text != l.text)).count();
        (p.iter().filter(|p| p.is_none()).count(), rows, shortened)
    };
    let mut best: Option<Vec<Option<Placed>>> = None;
    for (side, short) in ways {
        let mut rows: Vec<Vec<(f64, f64)>> = vec![Vec::new(); LABEL_ROWS];
        let mut placed = Vec::with_capacity(n);
        for (i, label) in wanted.iter().enumerate() {
            let text = if short(i) { &label.short } else { &label.text };
            let prefer = side(i);
            let found = (0..LABEL_ROWS)
                .flat_map(|row| [prefer, !prefer].map(|right| (row, right)))
                .map(|(row, right)| {
                    let x = if right { label.x + LABEL_GAP } else { label.x - LABEL_GAP };
                    Placed { text: text.clone(), x, right, row }
                })
                .find(|candidate| {
                    let (l, r, _, _) = candidate.bounds();
                    let free = rows[candidate.row].iter().all(|&(a, b)| r + LABEL_GAP <= a || b + LABEL_GAP <= l);
                    l >= span.0 && r <= span.1 && free
                });
            if let Some(p) = &found {
                let (l, r, _, _) = p.bounds();
                rows[p.row].push((l, r));
            }
            placed.push(found);
        }
        if best.as_ref().is_none_or(|b| score(&placed) < score(b)) {
            best = Some(placed);
        }
    }
    best.unwrap_or_default()
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

    /// Whether two boxes `(left, right, top, bottom)` share any area.
    fn intersect(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
        a.0 < b.1 && b.0 < a.1 && a.2 < b.3 && b.2 < a.3
    }

    /// Change-point labels of a trend over 40 commits at the chart's x positions, at `commits`.
    fn labels_at(commits: &[usize]) -> Vec<Label> {
        let x_at = |i: usize| 84.0 + (i as f64 + 0.5) * 692.0 / 40.0;
        commits
            .iter()
            .map(|&i| Label {
                x: x_at(i),
                text: format!("change at c{i:06}"),
                short: format!("c{i:06}"),
                right: x_at(i) <= 84.0 + 0.75 * 692.0,
            })
            .collect()
    }

    /// Five adjacent commits, two more, and two at the right edge.
    const CROWDED: [usize; 9] = [3, 4, 5, 6, 7, 12, 13, 38, 39];
    /// Ten adjacent commits.
    const DENSE: [usize; 10] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

    /// What is wrong with `placed`: two labels that overlap, or one outside the 800-unit chart.
    fn overlaps(placed: &[Option<Placed>]) -> Vec<String> {
        let boxes: Vec<_> = placed.iter().flatten().map(|p| (p, p.bounds())).collect();
        let mut wrong = Vec::new();
        for (i, (p, a)) in boxes.iter().enumerate() {
            if a.0 < 0.0 || a.1 > 800.0 {
                wrong.push(format!("{p:?} leaves the chart"));
            }
            for (q, b) in &boxes[i + 1..] {
                if intersect(*a, *b) {
                    wrong.push(format!("{p:?} overlaps {q:?}"));
                }
            }
        }
        wrong
    }

    /// No two change-point labels overlap and each stays inside the chart, for change points close
    /// together: a crowd is staggered (left of the first rule, right of the second, in one row,
    /// then up), a denser one shortened to its commits, and what still finds no room is left to
    /// the chart's note, never drawn over another. The check sees an overlap where there is one:
    /// the labels each drawn right of its rule in one row (as the chart drew them before) overlap.
    #[test]
    fn change_point_labels_never_overlap() {
        let placed = place_labels(&labels_at(&CROWDED), (0.0, 800.0));
        assert_eq!(overlaps(&placed), Vec::<String>::new());
        assert!(placed.iter().all(Option::is_some), "room for every label here: {placed:#?}");
        let rows: std::collections::BTreeSet<usize> = placed.iter().flatten().map(|p| p.row).collect();
        assert!(rows.len() > 1, "crowded labels are staggered: {placed:#?}");
        let (first, second) = (placed[0].as_ref().unwrap(), placed[1].as_ref().unwrap());
        assert!(!first.right && second.right && first.row == 0 && second.row == 0, "{first:?} {second:?}");

        // Two change points a third of the chart apart, the second near the right edge (issue 9's
        // restore report, 995a49f and d83240a over 15 runs): one row, each left of its rule.
        let two = [(430.0, "995a49f"), (660.7, "d83240a")].map(|(x, c)| Label {
            x,
            text: format!("change at {c}"),
            short: c.into(),
            right: x <= 84.0 + 0.75 * 692.0,
        });
        let placed = place_labels(&two, (0.0, 800.0));
        assert_eq!(overlaps(&placed), Vec::<String>::new());
        assert!(placed.iter().all(|p| p.as_ref().is_some_and(|p| p.row == 0 && !p.right)), "{placed:#?}");

        let dense = place_labels(&labels_at(&DENSE), (0.0, 800.0));
        assert_eq!((dense.len(), overlaps(&dense)), (DENSE.len(), Vec::<String>::new()));
        assert!(dense.iter().flatten().all(|p| p.text.len() == 7), "shortened to the commit: {dense:#?}");
        assert!(dense.iter().flatten().count() >= 2 * LABEL_ROWS, "two a row at least: {dense:#?}");

        // Negative control: one row, each right of its rule.
        let naive: Vec<Option<Placed>> = labels_at(&CROWDED)
            .into_iter()
            .map(|l| Some(Placed { text: l.text, x: l.x + LABEL_GAP, right: true, row: 0 }))
            .collect();
        assert!(!overlaps(&naive).is_empty(), "the check finds overlapping labels");

        // Room for all: each in row 0, whole, on its own side.
        let apart = labels_at(&[3, 12, 21, 39]);
        let placed = place_labels(&apart, (0.0, 800.0));
        assert!(
            placed
                .iter()
                .zip(&apart)
                .all(|(p, l)| { p.as_ref().is_some_and(|p| p.row == 0 && p.text == l.text && p.right == l.right) })
        );
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
