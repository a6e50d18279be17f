//! The diff report as one self-contained HTML page: the Markdown report's tables, a bar chart of
//! % of copy bandwidth old vs new, the new side's roofline with where the changed trials moved from
//! ([`super::diff::roof`], drawn by [`super::roofline`]), and one trend chart per case across
//! commits with its change points marked. No script, no external URL (a Content-Security-Policy of `default-src 'none'`
//! makes the browser refuse any that slipped in), inline CSS, inline SVG.
//!
//! The charts are SVG written by hand (about 200 lines) rather than with the `plotters` crate's
//! SVG backend: each point needs a class (`class="pt"`, so a test can count them), a `<title>`
//! tooltip, and each chart a `data-points` attribute, none of which plotters' backend exposes; and
//! the charts are two simple kinds (points and lines, horizontal bars) that need no layout engine.
//!
//! Every piece of data goes through [`escape`] (HTML 5, section 13.1: text and attribute values).

pub use super::chart::{bars_svg, trend_svg};
use super::diff::{Diff, MetricDiff, Presence, Trend, TrialDiff, percent};
pub use super::html_escape as escape;
use crate::units::{duration, format_value};
use std::fmt::Write as _;

/// Renders the page (pure): `diff`'s tables and bars, and a trend chart for each of `trends` (in the
/// order given; none gives no trend section).
pub fn render(diff: &Diff, trends: &[Trend]) -> String {
    let title = format!("kernelgate diff: {} -> {}", diff.old.label, diff.new.label);
    let mut out = page_start(&title, CSS);
    writeln!(out, "<h1>kernelgate diff</h1>").unwrap();
    out.push_str("<ul class=\"sides\">\n");
    for (class, side) in [("old", &diff.old), ("new", &diff.new)] {
        let pooled = super::diff::change::pooled(side);
        let pooled = if pooled.is_empty() { String::new() } else { format!("; {}", escape(&pooled)) };
        writeln!(
            out,
            "<li><span class=\"key {class}\"></span>{class}: <b>{}</b> on {}{pooled}</li>",
            escape(&side.label),
            escape(&side.gpu)
        )
        .unwrap();
    }
    out.push_str("</ul>\n");
    writeln!(out, "<p class=\"summary\">{}</p>", escape(&diff.summary())).unwrap();
    for note in super::diff::change::pooled_notes(diff).iter().chain(&diff.notes) {
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
        // The % of vendor column where a changed trial has a vendor reference.
        let vendor: Vec<Option<String>> =
            changed.iter().map(|t| super::vendor::diff_text(diff, t, &diff.vendors)).collect();
        let with_vendor = vendor.iter().any(Option::is_some);
        write!(
            out,
            "<div class=\"scroll\"><table class=\"changed\">\n<thead><tr><th>trial</th><th>change (this diff)</th>\
             <th>time old -&gt; new</th>{}<th>new run&#39;s own gate</th><th>what explains it</th></tr></thead>\n<tbody>\n",
            if with_vendor { "<th>% of vendor</th>" } else { "" }
        )
        .unwrap();
        for (t, vendor) in changed.iter().copied().zip(&vendor) {
            let explanation: Vec<String> = t
                .explanation
                .iter()
                .map(|f| format!("<code>{}</code> {}", breakable(&f.metric), escape(&f.change())))
                .collect();
            writeln!(
                out,
                "<tr class=\"{}\"><td class=\"name\">{}</td><td class=\"num\" data-label=\"change\">{}</td>\
                 <td class=\"num\" data-label=\"time\"><span class=\"nw\">{} -&gt;</span> <span class=\"nw\">{}</span></td>{}\
                 <td data-label=\"new run&#39;s own gate\">{}</td><td class=\"explains\" data-label=\"explained by\">{}</td></tr>",
                t.change().class(),
                trial_name(&t.trial),
                change_cell(t),
                time(t.old_s),
                time(t.new_s),
                if with_vendor {
                    format!("<td data-label=\"% of vendor\">{}</td>", escape(vendor.as_deref().unwrap_or_default()))
                } else {
                    String::new()
                },
                verdict(t),
                explanation.join("<br>"),
            )
            .unwrap();
        }
        out.push_str("</tbody>\n</table></div>\n");
        writeln!(
            out,
            "<p class=\"hint\">change (this diff): the new side&#39;s median time against the old side&#39;s, \
             <span class=\"c-slower\">slower</span> or <span class=\"c-faster\">faster</span> from 1 % on. \
             new run&#39;s own gate: what the new side&#39;s runs were told by their own gate (against their \
             baseline or A/B revision, which may have been blessed on another GPU; the most severe of several \
             runs), not a judgement of this diff.{}{}</p>",
            if changed.iter().any(|t| t.interval().is_some()) {
                " In brackets: the change&#39;s 95 % confidence interval in %, from the sides&#39; runs (the spread \
                 of their medians, or one run&#39;s interval of its median); within noise where it holds 0."
            } else {
                ""
            },
            if with_vendor {
                " % of vendor: the speed against the vendor library&#39;s reference of the trial&#39;s family and \
                 size (its median over the trial&#39;s), where the runs timed it."
            } else {
                ""
            }
        )
        .unwrap();
        if let Some(svg) = super::change_chart::change_svg(&changed, super::diff::EXPLAIN_THRESHOLD) {
            out.push_str("<h2>Change per trial, with its 95 % interval and each side&#39;s runs</h2>\n<figure>\n");
            out.push_str(&svg);
            writeln!(
                out,
                "<figcaption class=\"hint\">Each bar is a changed trial&#39;s change between the sides&#39; medians, \
                 red slower, green faster; the whisker its 95 % confidence interval where the runs give one; the dots \
                 below it each run&#39;s median against the old side&#39;s (grey old, blue new); the shaded band \
                 the ± {} % floor inside which a change reads &quot;within {} %&quot;.</figcaption>\n</figure>",
                super::diff::EXPLAIN_THRESHOLD * 100.0,
                super::diff::EXPLAIN_THRESHOLD * 100.0
            )
            .unwrap();
        }
    }

    if !diff.bars.is_empty() {
        out.push_str("<h2>Effective bandwidth as % of the copy bandwidth, old vs new</h2>\n<figure>\n");
        out.push_str(&bars_svg(&diff.bars, &diff.old.label, &diff.new.label));
        out.push_str("</figure>\n");
    }
    roofline(diff, &mut out);
    if !trends.is_empty() {
        out.push_str(
            "<h2>Trends across commits</h2>\n<p class=\"hint\">One line per physical GPU; a red dashed rule marks a \
             change point, the first commit of a new level of a GPU&#39;s series, labelled with that commit (close \
             ones staggered, or named by their commit alone; those left without a label are named in the \
             chart&#39;s top line).</p>\n",
        );
        for t in trends {
            writeln!(out, "<figure>\n<figcaption>{} &middot; {}</figcaption>", escape(&t.trial), escape(&t.metric))
                .unwrap();
            out.push_str(&trend_svg(t));
            out.push_str("</figure>\n");
        }
    }

    writeln!(
        out,
        "<details>\n<summary>All {}, every metric</summary>\n<div class=\"scroll\"><table class=\"all\">\n<thead><tr><th>trial</th><th>metric</th>\
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
                breakable(&t.metric_name(m)),
                value(m.old, m),
                value(m.new, m),
                m.delta().map(percent).unwrap_or_default()
            )
            .unwrap();
        }
    }
    out.push_str("</tbody>\n</table></div>\n</details>\n</body>\n</html>\n");
    out
}

/// The new side's roofline section ([`super::diff::roof`]): what it lacks said first, then the
/// picture and how to read it; nothing when no trial of the new side declares bytes.
fn roofline(diff: &Diff, out: &mut String) {
    let roof = super::diff::roof::roof(diff);
    if roof.points.is_empty() {
        return;
    }
    writeln!(out, "<h2>Roofline of the new side</h2>").unwrap();
    for note in &roof.notes {
        writeln!(out, "<p class=\"note\"><strong>Note:</strong> {}</p>", escape(note)).unwrap();
    }
    let moved = roof.points.iter().filter(|p| p.drawn_was().is_some()).count();
    let title = format!("{} on {}", diff.new.label, diff.new.gpu);
    out.push_str("<figure>\n");
    out.push_str(&super::roofline::svg(&title, &roof.ceilings, &roof.points));
    writeln!(
        out,
        "\n<figcaption class=\"hint\">Each numbered point is a trial of the new side at its median: on the right by its \
         arithmetic intensity (declared FLOPs / declared bytes) and GFLOP/s, on the left, where it declares no FLOPs, by \
         its GB/s; the lines are the ceilings its runs measured. {} the diff calls changed {} a hollow grey point where \
         the old side&#39;s median placed {}, and an arrow to where it is now. Hover a point for its values.</figcaption>\n</figure>",
        crate::units::count(moved, "trial"),
        if moved == 1 { "has" } else { "have" },
        if moved == 1 { "it" } else { "them" },
    )
    .unwrap();
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

/// A trial name for a table cell: escaped, with a line-break opportunity after each `/` (and only
/// there: `transpose/<wbr>shared_padded/<wbr>8192x8192`).
fn trial_name(trial: &str) -> String {
    escape(trial).replace('/', "/<wbr>")
}

/// A counter's name for a cell: escaped, with a line-break opportunity after each `__` and `: `
/// and before each `.` (`l1tex__<wbr>data_bank_conflicts_pipe_lsu_mem_shared_op_ld<wbr>.sum`),
/// where ncu's names have their parts.
fn breakable(metric: &str) -> String {
    escape(metric).replace("__", "__<wbr>").replace('.', "<wbr>.")
}

/// A changed trial's change cell: the diff's word and change, its 95 % interval, and `within
/// noise`, each kept on one line (`span.nw`), so that a narrow column wraps between them rather
/// than pushing the columns after it (what explains the change) out of view.
fn change_cell(t: &TrialDiff) -> String {
    let change = t.change();
    let mut cell = format!(
        "<span class=\"nw\"><b class=\"change\">{}</b> {}</span>",
        escape(change.word()),
        t.delta().map(percent).unwrap_or_default()
    );
    if let Some(i) = t.interval() {
        write!(cell, " <span class=\"nw\">{}</span>", escape(&super::diff::interval::text(&i))).unwrap();
        if i.straddles_zero() {
            cell.push_str(" <span class=\"nw\">within noise</span>");
        }
    }
    cell
}

fn time(s: Option<f64>) -> String {
    s.map_or("<span class=\"absent\">absent</span>".into(), duration)
}

fn value(v: Option<f64>, m: &MetricDiff) -> String {
    v.map_or("<span class=\"absent\">absent</span>".into(), |v| escape(&format_value(v, &m.unit)))
}

fn verdict(t: &TrialDiff) -> String {
    let by =
        if t.decided_by.is_empty() { String::new() } else { format!(" <small>({})</small>", escape(&t.decided_by)) };
    match t.presence {
        Presence::Removed => "only in the old runs".into(),
        Presence::Added => format!("only in the new runs: {}{by}", escape(&t.verdict)),
        Presence::Both => format!("{}{by}", escape(&t.verdict)),
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

/// The diff page's own rules, after [`BASE_CSS`]: rows marked and worded by the diff's own change
/// (faster `#1a7f37`, slower `#cf222e`: 5.1:1 and 5.4:1 on white, checked in `report::contrast`);
/// tables that scroll inside their own box, the changed trials' only as a last resort: its numbers
/// wrap between their parts (`span.nw`), names after a `/` and counters after `__` and before `.`,
/// so that what explains each change is in view at a desktop's width; below 640 px the changed
/// trials as one card each; charts at least 640 px wide (the roofline, 1000 px drawn, at least 760),
/// scrolling inside their figure below that, so that their text (12 px) is not scaled under 9 px.
pub(crate) const CSS: &str = "
.summary { font-size: 16px; font-weight: 600; }
.hint { color: #57606a; font-size: 12px; }
.note { background: #fff4e5; border-left: 4px solid #e69500; padding: 6px 10px; overflow-wrap: break-word; }
ul.sides { list-style: none; padding: 0; margin: 4px 0; overflow-wrap: break-word; }
.key { display: inline-block; width: 12px; height: 10px; margin-right: 4px; }
.key.old, rect.old { fill: #6e7781; background: #6e7781; } .key.new, rect.new { fill: #1f77b4; background: #1f77b4; }
td.name { overflow-wrap: normal; word-break: normal; min-width: 9em; }
.scroll { overflow-x: auto; max-width: 100%; } table.paired td.name { white-space: nowrap; }
table.changed td.num { white-space: normal; } .nw { white-space: nowrap; }
.c-slower .change, span.c-slower { color: #cf222e; } .c-faster .change, span.c-faster { color: #1a7f37; }
tr.c-slower td:first-child { border-left: 4px solid #cf222e; } tr.c-faster td:first-child { border-left: 4px solid #1a7f37; }
tr.c-added td:first-child, tr.c-removed td:first-child, tr.c-within td:first-child, tr.c-none td:first-child
  { border-left: 4px solid #6e7781; }
tr.v-regressed td:first-child, tr.v-invalid td:first-child { border-left: 4px solid #cf222e; }
tr.v-improved td:first-child { border-left: 4px solid #1a7f37; }
table.all tr.first td { border-top: 2px solid #aab4bf; }
.absent { color: #6e7781; font-style: italic; }
figure { margin: 8px 0 20px; overflow-x: auto; } figcaption { font-weight: 600; margin-bottom: 2px; overflow-wrap: break-word; }
svg.chart { width: 100%; min-width: 640px; height: auto; display: block; }
svg.roofline { min-width: 760px; max-width: 1000px; }
svg text { font: 12px system-ui, 'DejaVu Sans', sans-serif; } svg text:not([fill]) { fill: #1b1f24; }
svg text.axis-title { font-weight: 600; } svg text.note { fill: #57606a; font-style: italic; }
svg text.cp-label { fill: #cf222e; font-weight: 600; } svg text.value { fill: #57606a; }
svg .grid { stroke: #e4e8ec; } svg .axis { stroke: #57606a; }
svg .cp { stroke-width: 2; stroke-dasharray: 6 4; } svg .ref { stroke: #57606a; stroke-dasharray: 4 3; }
svg .line { fill: none; stroke-width: 2; }
@media (max-width: 640px) {
  body { margin: 12px auto; padding: 0 10px; }
  table.changed, table.changed tbody, table.changed tr, table.changed td { display: block; width: auto; }
  table.changed thead { display: none; }
  table.changed tr { border: 1px solid #d8dee4; border-left: 4px solid #6e7781; margin: 8px 0; padding: 4px 0; }
  table.changed tr.c-slower { border-left-color: #cf222e; } table.changed tr.c-faster { border-left-color: #1a7f37; }
  table.changed td, table.changed td:first-child { border: 0; text-align: left; white-space: normal; padding: 2px 8px; }
  table.changed td.name { font-weight: 600; min-width: 0; }
  table.changed td[data-label]::before { content: attr(data-label) \": \"; color: #57606a; }
  table.changed td:empty { display: none; }
  table.changed code { overflow-wrap: anywhere; }
}
";

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::chart::tests::trend;
    use crate::report::diff::tests::{row, side, synthetic};
    use crate::report::diff::{Measurement, diff};

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
        assert_eq!(counts, [(2, 2), (2, 2), (15, 15), (15, 15)], "changes: 2; bars: 2; trends: 16 points less one NaN");
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
        assert_eq!(chart_counts(&html), [(1, 1), (1, 1), (15, 15)], "the change, the old bar, and the trend");
    }
}
