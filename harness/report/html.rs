//! The diff report as one self-contained HTML page: the Markdown report's tables, a bar chart of
//! % of copy bandwidth old vs new, and one trend chart per case across commits with its change
//! points marked. No script, no external URL (a Content-Security-Policy of `default-src 'none'`
//! makes the browser refuse any that slipped in), inline CSS, inline SVG.
//!
//! The charts are SVG written by hand (about 200 lines) rather than with the `plotters` crate's
//! SVG backend: each point needs a class (`class="pt"`, so a test can count them), a `<title>`
//! tooltip, and each chart a `data-points` attribute, none of which plotters' backend exposes; and
//! the charts are two simple kinds (points and lines, horizontal bars) that need no layout engine.
//!
//! Every piece of data goes through [`escape`] (HTML 5, section 13.1: text and attribute values).

use super::diff::{Bar, Diff, MetricDiff, Presence, Trend, TrendPoint, TrialDiff, percent};
use crate::units::{duration, format_value};
use std::fmt::Write as _;

/// Colours of the lines of a trend's GPUs, in order (the first colours of matplotlib's `tab10`).
const PALETTE: [&str; 6] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"];
/// The colour of change-point rules and of regressions.
const RED: &str = "#d62728";

/// Renders the page (pure): `diff`'s tables and bars, and a trend chart for each of `trends` (in the
/// order given; none gives no trend section).
pub fn render(diff: &Diff, trends: &[Trend]) -> String {
    let title = format!("kernelgate diff: {} -> {}", diff.old.label, diff.new.label);
    let mut out = page_start(&title, CSS);
    writeln!(out, "<h1>kernelgate diff</h1>").unwrap();
    writeln!(
        out,
        "<p class=\"sides\"><span class=\"key old\"></span>old: <b>{}</b> on {} &nbsp;-&gt;&nbsp; <span class=\"key new\"></span>new: <b>{}</b> on {}</p>",
        escape(&diff.old.label),
        escape(&diff.old.gpu),
        escape(&diff.new.label),
        escape(&diff.new.gpu)
    )
    .unwrap();
    writeln!(out, "<p class=\"summary\">{}</p>", escape(&diff.summary())).unwrap();
    for note in &diff.notes {
        writeln!(out, "<p class=\"note\"><strong>Note:</strong> {}</p>", escape(note)).unwrap();
    }
    let paired = super::diff::paired_rows(diff);
    if !paired.is_empty() {
        // Scrolls inside its own box on a narrow screen rather than breaking names letter by letter.
        out.push_str(
            "<h2>Same-run A/B of these two commits</h2>\n<div class=\"scroll\"><table class=\"paired\">\n<thead><tr>",
        );
        for c in super::diff::PAIRED_COLUMNS {
            write!(out, "<th>{}</th>", escape(c)).unwrap();
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for cells in &paired {
            let class = match cells[4].split(' ').next() {
                Some("regressed") => "v-regressed",
                Some("improved") => "v-improved",
                Some("invalid") => "v-invalid",
                _ => "v-other",
            };
            write!(out, "<tr class=\"{class}\"><td class=\"name\">{}</td>", trial_name(&cells[0])).unwrap();
            for (i, c) in cells.iter().enumerate().skip(1) {
                let num = if (1..=3).contains(&i) { " class=\"num\"" } else { "" };
                write!(out, "<td{num}>{}</td>", escape(c)).unwrap();
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table></div>\n");
    }

    out.push_str("<h2>Changed trials</h2>\n");
    let changed: Vec<&TrialDiff> = diff.changed().collect();
    if changed.is_empty() {
        out.push_str("<p>No trial changed: every time moved by less than 1 % and no verdict asks for attention.</p>\n");
    } else {
        out.push_str(
            "<table class=\"changed\">\n<thead><tr><th>trial</th><th>time old -&gt; new</th><th>change</th><th>new run&#39;s verdict</th>\
             <th>what explains it</th></tr></thead>\n<tbody>\n",
        );
        for t in changed {
            let explanation: Vec<String> = t
                .explanation
                .iter()
                .map(|f| format!("<code>{}</code> {}", escape(&f.metric), escape(&f.change())))
                .collect();
            writeln!(
                out,
                "<tr class=\"{}\"><td class=\"name\">{}</td><td class=\"num\">{} -&gt; {}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
                verdict_class(t),
                trial_name(&t.trial),
                time(t.old_s),
                time(t.new_s),
                t.delta().map(percent).unwrap_or_default(),
                verdict(t),
                explanation.join("<br>"),
            )
            .unwrap();
        }
        out.push_str("</tbody>\n</table>\n");
        out.push_str(
            "<p class=\"hint\">new run&#39;s verdict: what the new side&#39;s runs were told by their own gate \
             (against their baseline or A/B revision; the most severe of several runs), not a judgement of this \
             diff.</p>\n",
        );
    }

    if !diff.bars.is_empty() {
        out.push_str("<h2>Effective bandwidth as % of the copy bandwidth, old vs new</h2>\n<figure>\n");
        out.push_str(&bars_svg(&diff.bars, &diff.old.label, &diff.new.label));
        out.push_str("</figure>\n");
    }
    if !trends.is_empty() {
        out.push_str("<h2>Trends across commits</h2>\n");
        for t in trends {
            writeln!(out, "<figure>\n<figcaption>{} &middot; {}</figcaption>", escape(&t.trial), escape(&t.metric))
                .unwrap();
            out.push_str(&trend_svg(t));
            out.push_str("</figure>\n");
        }
    }

    writeln!(
        out,
        "<details>\n<summary>All {}, every metric</summary>\n<table class=\"all\">\n<thead><tr><th>trial</th><th>metric</th>\
         <th>old</th><th>new</th><th>change</th></tr></thead>\n<tbody>",
        crate::units::count(diff.trials.len(), "trial")
    )
    .unwrap();
    for t in &diff.trials {
        writeln!(
            out,
            "<tr class=\"first\"><td class=\"name\">{}</td><td>time (median)</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            trial_name(&t.trial),
            time(t.old_s),
            time(t.new_s),
            t.delta().map(percent).unwrap_or_default()
        )
        .unwrap();
        for m in &t.metrics {
            writeln!(
                out,
                "<tr><td></td><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(&t.metric_name(m)),
                value(m.old, m),
                value(m.new, m),
                m.delta().map(percent).unwrap_or_default()
            )
            .unwrap();
        }
    }
    out.push_str("</tbody>\n</table>\n</details>\n</body>\n</html>\n");
    out
}

/// The start of a self-contained page, up to and including `<body>`: UTF-8, a
/// Content-Security-Policy of `default-src 'none'; style-src 'unsafe-inline'` (the browser loads
/// nothing and runs no script, even one that slipped in), a viewport for phones, `title` (escaped),
/// and [`BASE_CSS`] followed by the page's own `css`, inline.
pub(crate) fn page_start(title: &str, css: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n\
         <style>{BASE_CSS}{css}</style>\n</head>\n<body>\n",
        escape(title)
    )
}

/// `text` safe as HTML text or a quoted attribute value: `& < > " '` as entities; control and
/// bidirectional control characters ([`super::hidden`], but for tabs and line breaks, which HTML
/// shows as spaces) as their code point, `[U+202E]`, so that they cannot reorder what is shown.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if super::hidden(c) => write!(out, "[U+{:04X}]", u32::from(c)).unwrap(),
            c => out.push(c),
        }
    }
    out
}

/// One trend as an SVG line chart (pure): x = the points' labels in order of first appearance
/// (one commit measured on two GPUs shares an x), y = value with a unit chosen for reading
/// (seconds shown as ns/us/ms/s); one line and colour per GPU, a legend when there are several;
/// each change point a dashed vertical rule labelled with its commit. Points whose value is not
/// finite are not drawn and are counted in a note; so are change points outside `points`.
/// `data-points` is the number of `class="pt"` circles drawn.
pub fn trend_svg(trend: &Trend) -> String {
    const W: f64 = 1000.0;
    const H: f64 = 300.0;
    let (left, right, top, bottom) = (84.0, 24.0, 44.0, 74.0);
    let (pw, ph) = (W - left - right, H - top - bottom);
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
    let drawn: Vec<&TrendPoint> = trend.points.iter().filter(|p| p.value.is_finite()).collect();
    let (scale, unit) = display_unit(&trend.unit, drawn.iter().map(|p| p.value.abs()).fold(0.0, f64::max));
    let (ticks, lo, hi) = nice_ticks(drawn.iter().map(|p| p.value * scale));
    let x_of = |label: &str| {
        let i = labels.iter().position(|l| *l == label).unwrap_or(0);
        left + (i as f64 + 0.5) * pw / labels.len().max(1) as f64
    };
    let y_of = |v: f64| top + ph - (v * scale - lo) / (hi - lo) * ph;

    let mut svg = String::new();
    writeln!(
        svg,
        "<svg class=\"chart trend\" data-points=\"{}\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" aria-label=\"{}\">\n<title>{} {} across {}</title>",
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
        H - 6.0
    )
    .unwrap();
    // Change points: behind the data.
    let mut notes = Vec::new();
    for &i in &trend.change_points {
        let Some(p) = trend.points.get(i) else {
            notes.push(format!("change point {i} is outside the {} points", trend.points.len()));
            continue;
        };
        let x = x_of(&p.label);
        writeln!(
            svg,
            "<line class=\"cp\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"{RED}\"><title>change point: new regime from {}</title></line>",
            top - 6.0,
            top + ph,
            escape(&p.label)
        )
        .unwrap();
        // Labels right of the rule, or left of it near the right edge.
        let (dx, anchor) = if x > left + 0.75 * pw { (-4.0, "end") } else { (4.0, "start") };
        writeln!(
            svg,
            "<text class=\"cp-label\" x=\"{:.1}\" y=\"{}\" text-anchor=\"{anchor}\" fill=\"{RED}\">change at {}</text>",
            x + dx,
            top - 10.0,
            escape(&p.label)
        )
        .unwrap();
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
    let not_finite = trend.points.len() - drawn.len();
    if not_finite > 0 {
        notes.push(format!("{} not drawn (value not finite)", crate::units::count(not_finite, "point")));
    }
    if gpus.len() == 1 {
        notes.push(format!("GPU: {}", gpus[0]));
    }
    if !notes.is_empty() {
        writeln!(svg, "<text class=\"note\" x=\"{left}\" y=\"16\">{}</text>", escape(&notes.join("; "))).unwrap();
    }
    svg.push_str("</svg>\n");
    svg
}

/// The bars as an SVG chart (pure): per trial a grey bar for the old side and a blue one for the
/// new, horizontal so long trial names stay readable, a dashed rule at 100 % (the copy
/// bandwidth); a side without a value says `absent`. `data-points` is the number of `class="pt"`
/// bars drawn.
pub fn bars_svg(bars: &[Bar], old_label: &str, new_label: &str) -> String {
    const W: f64 = 1000.0;
    let longest = bars.iter().map(|b| b.trial.chars().count()).max().unwrap_or(0);
    let left = (16.0 + 7.0 * longest as f64).clamp(120.0, 420.0);
    let (right, top, bar, gap) = (70.0, 40.0, 11.0, 10.0);
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
        let x = left + 300.0 * i as f64;
        writeln!(
            svg,
            "<rect class=\"{class}\" x=\"{x:.1}\" y=\"10\" width=\"14\" height=\"10\"/><text class=\"legend\" x=\"{:.1}\" y=\"19\">{class}: {}</text>",
            x + 20.0,
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
                    "<rect class=\"pt {class}\" x=\"{left}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>{}, {class}: {v:.1} %</title></rect><text class=\"value\" x=\"{:.1}\" y=\"{:.1}\">{v:.1}%</text>",
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
fn nice_ticks(values: impl Iterator<Item = f64>) -> (Vec<f64>, f64, f64) {
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
fn tick_text(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let decimals = usize::try_from(3 - v.abs().log10().floor() as i32).unwrap_or(0);
    let text = format!("{v:.decimals$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

/// A trial name for a table cell: escaped, with a line-break opportunity after each `/`.
fn trial_name(trial: &str) -> String {
    escape(trial).replace('/', "/<wbr>")
}

/// `text` cut to `max` characters with an ellipsis (the full text stays in the `<title>`).
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        text.chars().take(max.saturating_sub(1)).chain(['…']).collect()
    }
}

fn time(s: Option<f64>) -> String {
    s.map_or("<span class=\"absent\">absent</span>".into(), duration)
}

fn value(v: Option<f64>, m: &MetricDiff) -> String {
    v.map_or("<span class=\"absent\">absent</span>".into(), |v| escape(&format_value(v, &m.unit)))
}

fn verdict_class(t: &TrialDiff) -> &'static str {
    match (t.presence, t.verdict.as_str()) {
        (Presence::Added, _) => "v-added",
        (Presence::Removed, _) => "v-removed",
        (_, "regressed") => "v-regressed",
        (_, "invalid") => "v-invalid",
        (_, "improved") => "v-improved",
        _ => "v-other",
    }
}

fn verdict(t: &TrialDiff) -> String {
    let by =
        if t.decided_by.is_empty() { String::new() } else { format!(" <small>({})</small>", escape(&t.decided_by)) };
    match t.presence {
        Presence::Removed => "only in the old runs".into(),
        Presence::Added => format!("only in the new runs: {}{by}", escape(&t.verdict)),
        Presence::Both => format!("<b>{}</b>{by}", escape(&t.verdict)),
    }
}

/// The rules the report pages share: the body's type and width, headings, tables, numbers, code,
/// the collapsed section; system fonts only (nothing to load).
pub(crate) const BASE_CSS: &str = "
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif; color: #1b1f24;
       background: #ffffff; max-width: 1040px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 6px; } h2 { font-size: 17px; margin: 28px 0 8px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { border-bottom: 1px solid #d8dee4; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f5f7; } td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
code { font-size: 12.5px; }
details { margin-top: 28px; } summary { cursor: pointer; font-weight: 600; }
";

/// The diff page's own rules, after [`BASE_CSS`].
const CSS: &str = "
.summary { font-size: 16px; font-weight: 600; }
.hint { color: #555; font-size: 12px; }
.note { background: #fff4e5; border-left: 4px solid #e69500; padding: 6px 10px; }
.key { display: inline-block; width: 12px; height: 10px; margin-right: 4px; }
.key.old, rect.old { fill: #9aa5b1; background: #9aa5b1; } .key.new, rect.new { fill: #1f77b4; background: #1f77b4; }
td.name, code { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; } table.paired td.name { overflow-wrap: normal; white-space: nowrap; }
tr.v-regressed td:first-child, tr.v-invalid td:first-child { border-left: 4px solid #d62728; }
tr.v-improved td:first-child { border-left: 4px solid #2ca02c; }
tr.v-added td:first-child, tr.v-removed td:first-child { border-left: 4px solid #9aa5b1; }
table.all tr.first td { border-top: 2px solid #aab4bf; }
.absent { color: #8a939c; font-style: italic; }
figure { margin: 8px 0 20px; } figcaption { font-weight: 600; margin-bottom: 2px; overflow-wrap: anywhere; }
svg.chart { max-width: 100%; height: auto; display: block; }
svg text { font: 12px system-ui, 'DejaVu Sans', sans-serif; fill: #1b1f24; }
svg text.axis-title { font-weight: 600; } svg text.note { fill: #57606a; font-style: italic; }
svg text.cp-label { fill: #d62728; font-weight: 600; } svg text.value { fill: #57606a; font-size: 11px; }
svg .grid { stroke: #e4e8ec; } svg .axis { stroke: #57606a; }
svg .cp { stroke-width: 2; stroke-dasharray: 6 4; } svg .ref { stroke: #57606a; stroke-dasharray: 4 3; }
svg .line { fill: none; stroke-width: 2; }
";

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::diff::tests::{row, side, synthetic};
    use crate::report::diff::{Measurement, diff};

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

    /// `(data-points, number of class="pt" elements)` of every chart in `html`.
    pub(crate) fn chart_counts(html: &str) -> Vec<(usize, usize)> {
        html.split("<svg ")
            .skip(1)
            .map(|chart| {
                let chart = &chart[..chart.find("</svg>").unwrap()];
                let declared =
                    chart.split("data-points=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
                let drawn = chart.matches("class=\"pt").count();
                (declared, drawn)
            })
            .collect()
    }

    #[test]
    fn every_chart_declares_its_points() {
        let html = render(&synthetic(), &[trend("t/slow/1"), trend("t/fast/1")]);
        let counts = chart_counts(&html);
        assert_eq!(counts, [(2, 2), (15, 15), (15, 15)], "bars: 2; trends: 16 points less one NaN");
        assert!(html.contains("change at c000004"), "the change point's commit is named");
        assert!(html.contains("median (us)"), "the y axis has its unit");
        assert!(html.contains("1 point not drawn (value not finite)"));
        assert!(!html.contains("://") && !html.contains("url("), "self-contained: no URL at all");
        assert!(!html.contains("<script"));
    }

    #[test]
    fn hostile_names_are_escaped() {
        let hostile = "a|b<script>*x*";
        let trial = format!("f/{hostile}/1");
        let old = [
            Measurement { kernel: hostile.into(), ..row(&trial, "median", "s", 1.0, "unchanged") },
            Measurement { kernel: hostile.into(), ..row(&trial, "pct_of_copy_bandwidth", "%", 50.0, "unchanged") },
        ];
        let new = [
            Measurement { kernel: hostile.into(), ..row(&trial, "median", "s", 2.0, "regressed") },
            Measurement { kernel: hostile.into(), ..row(&trial, "c<i>\"'", "", 2.0, "regressed") },
        ];
        let mut t = trend(&trial);
        t.points[0].label = "<img src=x onerror=alert(1)>".into();
        t.points[1].gpu = "\"><script>".into();
        let html = render(&diff(&side("<b>old</b>"), &old, &side("new & 'quoted'"), &new), &[t]);
        assert!(
            !html.contains("<script") && !html.contains("<img") && !html.contains("<b>old") && !html.contains("<i>"),
            "{html}"
        );
        assert!(html.contains("f/a|b&lt;script&gt;*x*/1"));
        assert!(html.contains("c&lt;i&gt;&quot;&#39;"));
        assert!(html.contains("new &amp; &#39;quoted&#39;"));
        assert_eq!(chart_counts(&html), [(1, 1), (15, 15)], "the old bar, and the trend");
    }

    #[test]
    fn change_points_outside_the_series_are_reported() {
        let mut t = trend("a/b/1");
        t.change_points = vec![99];
        let svg = trend_svg(&t);
        assert!(svg.contains("change point 99 is outside the 16 points"), "{svg}");
        assert!(!svg.contains("class=\"cp\""));
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
