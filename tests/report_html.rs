//! The HTML diff report in a real browser: Debian's `chromium`, headless, renders a synthetic
//! report (every number below is made up) with no console message, every chart's points are in
//! the rendered DOM (as many as its `data-points` says), the new side's roofline among them with
//! the changed trials' old positions and arrows, and a screenshot is saved to
//! `target/kernelgate/report-screenshot.png` (the page itself next to it, `report-synthetic.html`).
//!
//! Without `chromium` on PATH the test says why on stderr and passes; with
//! `KERNELGATE_REQUIRE_CHROMIUM=1` (CI) a missing browser fails it. Console messages are read
//! from chromium's log, after a probe page has shown that they can be seen there
//! ([`support::chromium`]).

mod support;

use kernelgate::report::diff::{Measurement, Side, Trend, TrendPoint, diff};
use kernelgate::report::html;
use std::io::Write as _;
use support::chromium::{Chromium, Frame, console_lines, target_dir};
use support::github::{GITHUB_LIKE_CSS, gfm, github_page};

#[test]
fn html_report_renders_in_chromium() {
    let Some(chromium) = Chromium::find("report_html") else { return };
    let page = html::render(&synthetic_diff(), &synthetic_trends());
    let file = chromium.page("report.html", &page);

    let (dom, log) = chromium.run(&["--dump-dom"], &file);
    let console = console_lines(&log);
    assert!(console.is_empty(), "the report logged to the browser console: {console:#?}");
    let charts = charts(&dom);
    assert_eq!(
        charts.len(),
        3 + synthetic_trends().len(),
        "the change chart, one bar chart, the roofline and one chart per trend in the rendered DOM"
    );
    for (i, (declared, drawn)) in charts.iter().enumerate() {
        assert!(*declared > 0, "chart {i} declares no points");
        assert_eq!(declared, drawn, "chart {i}: data-points={declared} but {drawn} class=\"pt\" elements rendered");
    }
    assert!(dom.contains("change at"), "a change point is marked");
    // The change chart: a whisker per changed trial on both sides, the labelled floor band, a dot
    // per run of each side.
    let change = &dom[dom.find("class=\"chart change\"").expect("a change chart")..];
    let change = &change[..change.find("</svg>").unwrap()];
    let bars = change.matches("class=\"pt").count();
    assert!(bars > 0 && change.matches("<g class=\"ci\"").count() == bars, "a whisker per bar: {change}");
    assert!(change.contains("class=\"floor\"") && change.contains("within ± 1 % (the floor)"));
    assert!(change.matches("class=\"run old\"").count() >= bars && change.matches("class=\"run new\"").count() >= bars);
    // The roofline: every trial of the new side with bytes (the removed one is the old side's), on
    // the roofline (the two matmuls) or in the bandwidth panel, under the stored ceilings; the
    // changed ones (five) drawn with where they were, and with an arrow those that moved 16 px or
    // more (the bandwidth panel spans one decade here, 1000 to 10000 GB/s: the two 5 % moves are
    // 8.5 px, their old circles touch the new ones).
    let roofline =
        &dom[dom.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart roofline\"").expect("a roofline")..];
    let roofline = &roofline[..roofline.find("</svg>").unwrap()];
    assert!(
        roofline.contains(r#"data-points="8" data-roofline="2" data-bandwidth="6" data-moved="5""#),
        "{}",
        &roofline[..400]
    );
    assert_eq!(roofline.matches("<circle class=\"was\"").count(), 5);
    assert_eq!(roofline.matches("<g class=\"move\"").count(), 3);
    assert!(roofline.contains(">copy 4000 GB/s</text>") && roofline.contains(">fma 60000 GFLOP/s</text>"));
    assert!(roofline.contains("GFLOP/s") && roofline.contains("FLOP/byte") && roofline.contains("achieved GB/s"));
    assert!(
        roofline.contains(" transpose/shared_swizzled/8192x8192: was 1840 GB/s (old side)</title>"),
        "an old position has its title"
    );
    // % of vendor, from the diff's own medians.
    assert!(dom.contains("<th>% of vendor</th>") && dom.contains("50 % -&gt; 40 % of cuBLAS"));

    let out_dir = target_dir().join("kernelgate");
    std::fs::create_dir_all(&out_dir).unwrap();
    let png = out_dir.join("report-screenshot.png");
    let _ = std::fs::remove_file(&png);
    let screenshot = format!("--screenshot={}", png.display());
    let (_, log) = chromium.run(&[&screenshot, "--window-size=1200,2000", "--hide-scrollbars"], &file);
    let console = console_lines(&log);
    assert!(console.is_empty(), "the report logged to the browser console: {console:#?}");
    let bytes = std::fs::read(&png)
        .unwrap_or_else(|e| panic!("no screenshot at {}: {e}; chromium said:\n{log}", png.display()));
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000,
        "{} is not a real screenshot",
        png.display()
    );
    std::fs::write(out_dir.join("report-synthetic.html"), &page).unwrap();
    writeln!(std::io::stderr().lock(), "report_html: screenshot at {}", png.display()).unwrap();
}

/// The page at a phone's width (390 px) and a desktop's (1400 px): the page itself never scrolls
/// sideways (tables scroll in their own box), trial names break only at `/`, chart text is drawn
/// at 9 px or more, what explains each changed trial (its table's last column; a card's last line
/// on a phone) is in view whole, side to side, without scrolling the table, and no two change-point
/// labels, notes or legend entries of a chart overlap as drawn (the synthetic trends include
/// change points at adjacent commits), for the synthetic page and the committed example; and the
/// changed trials are coloured and worded by the diff's own change.
/// The same for a report of two real H200 runs, with its roofline (the roofline scales with the page
/// down to 760 px, then scrolls inside its figure).
/// Negative controls show each measurement can fail: a 2000 px element overflows, names allowed
/// to break anywhere are seen broken, charts allowed to shrink to the phone draw text under 9 px,
/// a changed table whose names are held 1000 px wide pushes what explains each change out of view,
/// and two labels drawn at one place overlap.
#[test]
fn html_report_fits_a_phone_and_a_desktop_in_chromium() {
    let Some(chromium) = Chromium::find("report_html") else { return };
    let page = html::render(&synthetic_diff(), &synthetic_trends());
    let wide = page.replace("</body>", "<div style=\"width: 2000px\">wide</div></body>");
    let squeezed = page.replace("</style>", "td.name { overflow-wrap: anywhere; max-width: 4em; }</style>");
    // The committed example the docs show (baselines/nvidia-h200-sm90/reports/issue9/).
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/baselines/nvidia-h200-sm90/reports/issue9/restore.html"
    ))
    .unwrap();
    let shrunk = page.replace("min-width: 640px", "min-width: 0").replace("min-width: 760px", "min-width: 0");
    let pushed = page.replace("</style>", "table.changed td.name { min-width: 1000px; }</style>");
    let piled = page.replace(
        "</body>",
        "<svg class=\"chart\" viewBox=\"0 0 800 60\" width=\"800\" height=\"60\"><text class=\"cp-label\" x=\"10\" \
         y=\"30\">change at a</text><text class=\"cp-label\" x=\"60\" y=\"30\">change at b</text></svg></body>",
    );
    assert!(shrunk != page && squeezed != page && pushed != page, "the controls change the page");
    // A report of two real H200 runs with their ceilings (baselines/nvidia-h200-sm90/reports/roofline/).
    let real = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/baselines/nvidia-h200-sm90/reports/roofline/r1-r2.html"
    ))
    .unwrap();
    assert!(real.contains("class=\"chart roofline\"") && real.contains("class=\"roof\""), "a roofline with its roofs");
    let frame = |name, width, html, unbroken| Frame {
        name,
        width,
        height: 1600,
        html,
        unbroken,
        inside: "table.changed td.explains",
        apart: "text.cp-label, text.note, text.legend",
    };
    let out = target_dir().join("kernelgate");
    std::fs::create_dir_all(&out).unwrap();
    let png = out.join("report-widths-screenshot.png");
    let (layouts, console) = chromium.layout(
        &[
            frame("desktop", 1400, &page, "td.name"),
            frame("phone", 390, &page, "td.name"),
            frame("wide element", 390, &wide, ""),
            frame("names break anywhere", 390, &squeezed, "td.name"),
            frame("charts shrink", 390, &shrunk, ""),
            frame("restore.html at 1400 px", 1400, &example, "td.name"),
            frame("restore.html at 390 px", 390, &example, "td.name"),
            frame("r1-r2.html at 1400 px", 1400, &real, "td.name"),
            frame("r1-r2.html at 390 px", 390, &real, "td.name"),
            frame("names held wide", 1400, &pushed, ""),
            frame("labels piled", 1400, &piled, ""),
        ],
        Some((&png, 1860)),
    );
    assert!(console.is_empty(), "the report logged to the browser console: {console:#?}");
    let [
        desktop,
        phone,
        wide,
        squeezed,
        shrunk,
        example_desktop,
        example_phone,
        real_desktop,
        real_phone,
        pushed,
        piled,
    ] = &layouts[..]
    else {
        unreachable!()
    };
    for l in [desktop, phone, example_desktop, example_phone, real_desktop, real_phone] {
        assert!(
            !l.overflows(),
            "{}: the page is {} px wide in a {} px viewport",
            l.name,
            l.scroll_width,
            l.client_width
        );
        assert_eq!(l.broken, Vec::<String>::new(), "{}: trial names broken inside a part", l.name);
        let text = l.min_chart_text_px.expect("the page has charts");
        assert!(text >= 9.0, "{}: chart text drawn at {text:.1} px", l.name);
        assert_eq!(l.cut, Vec::<String>::new(), "{}: what explains a change is out of view", l.name);
        assert_eq!(l.overlapping, Vec::<String>::new(), "{}: change-point labels overlap", l.name);
    }
    let changed = synthetic_diff().changed().count();
    // A card on a phone leaves out an empty explanation.
    let explained = synthetic_diff().changed().filter(|t| !t.explanation.is_empty()).count();
    assert!(explained > 0 && explained < changed, "the fixture has trials with and without an explanation");
    assert_eq!((desktop.inside, phone.inside), (changed, explained), "every changed trial's explanation was measured");
    assert!(desktop.apart >= 5, "the crowded trend's labels were measured: {desktop:?}");
    assert!(example_desktop.inside > 0, "restore.html has changed trials: {example_desktop:?}");
    assert!(wide.overflows(), "negative control: a 2000 px element must overflow 390 px: {wide:?}");
    assert!(!squeezed.broken.is_empty(), "negative control: names that may break anywhere break: {squeezed:?}");
    let text = shrunk.min_chart_text_px.unwrap();
    assert!(text < 9.0, "negative control: charts scaled to a phone draw small text, not {text:.1} px");
    assert_eq!(pushed.cut.len(), changed, "negative control: names held wide push the explanations out: {pushed:?}");
    assert_eq!(piled.overlapping, ["change at a / change at b"], "negative control: labels at one place overlap");

    // The 2x faster trial its own gate called regressed reads as faster, in green.
    let row = page.split("<tr ").find(|r| r.contains("shared_swizzled")).expect("the faster trial's row");
    assert!(row.starts_with("class=\"c-faster\"") && row.contains(">faster</b> -50.00%"), "{row}");
    assert!(row.contains("regressed"), "the gate's verdict keeps its own column: {row}");
    assert!(page.contains("the new side pools 2 runs from 2 physical GPUs"), "the pooled side is noted");
    assert!(page.contains("new: <b>c000004 synthetic: slow transpose</b> on nvidia-h200-sm90; 2 runs on 2 GPUs"));
    std::fs::write(out.join("report-widths.html"), &page).unwrap();
}

/// The Markdown report as GitHub would show it (comrak's GFM, github-markdown-css's widths, an
/// 812 px comment): the status line first, the changed trials' table in four columns that fit the
/// comment without scrolling (tables here may not scroll: `display: table`), the 2x faster trial
/// marked 🟢 faster beside its gate's `regressed`. Negative control: the collapsed every-metric
/// table, opened, does not fit, so the measurement sees a table too wide.
#[test]
fn markdown_report_fits_an_812_px_comment() {
    let text = kernelgate::report::markdown::render(&synthetic_diff());
    let body = gfm(&text);
    assert!(body.starts_with("<h3>kernelgate diff: "), "the status line comes first: {}", &body[..200]);
    let first_table = &body[body.find("<table>").unwrap()..body.find("</table>").unwrap()];
    let head = &first_table[..first_table.find("</thead>").unwrap()];
    assert_eq!(head.matches("</th>").count(), 4, "four columns: {head}");
    let row = first_table.split("<tr>").find(|r| r.contains("shared_swizzled")).unwrap();
    assert!(row.contains("🟢 <strong>faster</strong> -50.00%") && row.contains("regressed (time)"), "{row}");
    let matmul = first_table.split("<tr>").find(|r| r.contains("matmul/tiled")).unwrap();
    assert!(
        matmul.contains("<br />50 % -&gt; 40 % of cuBLAS") || matmul.contains("<br>50 % -&gt; 40 % of cuBLAS"),
        "{matmul}"
    );
    assert!(body.contains("<summary>What explains each change"), "explanations below the table");
    let Some(chromium) = Chromium::find("report_html") else { return };
    let fixed = GITHUB_LIKE_CSS.replace("display: block;", "").replace("max-width: 100%;", "");
    let page = github_page(&body, &fixed);
    let opened = github_page(&body.replace("<details>", "<details open>"), &fixed);
    let frame = |name, html| Frame { name, width: 812, height: 1400, html, ..Frame::default() };
    let (layouts, console) = chromium.layout(&[frame("comment", &page), frame("details opened", &opened)], None);
    assert!(console.is_empty(), "{console:#?}");
    let [comment, opened] = &layouts[..] else { unreachable!() };
    assert!(!comment.overflows(), "the comment is {} px wide in 812 px: {comment:?}", comment.scroll_width);
    assert!(opened.overflows(), "negative control: the every-metric table does not fit 812 px: {opened:?}");
}

/// `(data-points, class="pt" elements)` of each `<svg>` in the rendered DOM.
fn charts(dom: &str) -> Vec<(usize, usize)> {
    dom.split("<svg ")
        .skip(1)
        .map(|chart| {
            let chart = &chart[..chart.find("</svg>").expect("an <svg> without its end")];
            let declared = chart
                .split("data-points=\"")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .and_then(|n| n.parse().ok())
                .expect("every chart carries data-points");
            (declared, chart.matches("class=\"pt").count())
        })
        .collect()
}

/// A synthetic row; the numbers in this file are made up to exercise the report.
fn row(trial: &str, metric: &str, unit: &str, value: f64, verdict: &str, decided_by: &str) -> Measurement {
    Measurement {
        trial: trial.into(),
        kernel: trial.split('/').nth(1).unwrap().into(),
        metric: metric.into(),
        unit: unit.into(),
        value,
        verdict: verdict.into(),
        decided_by: decided_by.into(),
        // A median's interval of ± 0.4 %, so that the change column carries one.
        ci: (metric == "median").then_some([0.996 * value, 1.004 * value]),
    }
}

/// Synthetic sides: one slowed kernel (bank conflicts from zero), one sped up, one unchanged, one
/// removed, one added, and a kernel whose name is hostile HTML.
fn synthetic_diff() -> kernelgate::report::diff::Diff {
    let hostile = "f/a|b<script>*x*/1";
    let conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
    let mut old = Vec::new();
    let mut new = Vec::new();
    // (trial, old median s, new median s, old %copy, new %copy, verdict)
    let cases = [
        ("transpose/shared_padded/4096x4096", 80e-6, 104e-6, 92.0, 70.8, "regressed"),
        ("coalescing/copy/67108864", 134e-6, 133e-6, 98.9, 99.6, "unchanged"),
        ("vectorization/saxpy/67108864", 210e-6, 199e-6, 94.0, 99.2, "improved"),
        ("reduce/tree/16777216", 30e-6, 30.1e-6, 71.0, 70.8, "unchanged"),
        // 2x faster, yet "regressed" by its own gate against a baseline blessed on another GPU.
        ("transpose/shared_swizzled/8192x8192", 300e-6, 150e-6, 46.0, 92.0, "regressed"),
        (hostile, 10e-6, 10.5e-6, 40.0, 38.1, "ambiguous"),
    ];
    for (trial, o, n, po, pn, verdict) in cases {
        old.push(row(trial, "median", "s", o, "unchanged", "time"));
        new.push(row(trial, "median", "s", n, verdict, "time"));
        // Declared bytes (what %copy says at 4000 GB/s), and the ceilings the new side stored.
        let bytes = (po / 100.0 * 4000e9 * o).round();
        old.push(row(trial, "bytes", "byte", bytes, "unchanged", "time"));
        new.push(row(trial, "bytes", "byte", bytes, verdict, "time"));
        new.push(row(trial, "copy_ceiling", "GB/s", 4000.0, verdict, "time"));
        new.push(row(trial, "fma_ceiling", "GFLOP/s", 60000.0, verdict, "time"));
        old.push(row(trial, "pct_of_copy_bandwidth", "%", po, "unchanged", "time"));
        new.push(row(trial, "pct_of_copy_bandwidth", "%", pn, verdict, "time"));
        old.push(row(trial, "dram__sectors_read.sum", "sector", 2.1e6, "unchanged", "time"));
        new.push(row(trial, "dram__sectors_read.sum", "sector", 2.1e6 * n / o, verdict, "time"));
    }
    old.push(row("transpose/shared_padded/4096x4096", conflicts, "", 0.0, "unchanged", "time"));
    new.push(row("transpose/shared_padded/4096x4096", conflicts, "", 31.5e6, "regressed", "time"));
    // A matmul 20 % slower against its cuBLAS reference: 50 % of it, then 40 %.
    let (bytes, flops) = (3.0 * 4.0 * 4096f64.powi(2), 2.0 * 4096f64.powi(3));
    for (trial, o, n) in
        [("matmul/tiled/4096x4096x4096", 5.4e-3, 6.75e-3), ("matmul/cublas/4096x4096x4096", 2.7e-3, 2.7e-3)]
    {
        let verdict = if trial.contains("cublas") { "unchanged" } else { "regressed" };
        for (rows, median, verdict) in [(&mut old, o, "unchanged"), (&mut new, n, verdict)] {
            rows.push(row(trial, "median", "s", median, verdict, "time"));
            rows.push(row(trial, "bytes", "byte", bytes, verdict, "time"));
            rows.push(row(trial, "flops", "flop", flops, verdict, "time"));
            rows.push(row(trial, "pct_of_fma_ceiling", "%", 100.0 * flops / median / 1e9 / 60000.0, verdict, "time"));
        }
        new.push(row(trial, "copy_ceiling", "GB/s", 4000.0, verdict, "time"));
        new.push(row(trial, "fma_ceiling", "GFLOP/s", 60000.0, verdict, "time"));
    }
    old.push(row("transpose/naive/4096x4096", "median", "s", 400e-6, "unchanged", "time"));
    new.push(row("transpose/tiled/4096x4096", "median", "s", 90e-6, "no-baseline", "conditions"));
    let gpu = "nvidia-h200-sm90";
    let pooled = vec!["GPU-5f1c0000".to_string(), "GPU-9a2e0000".to_string()];
    let mut d = diff(
        &Side { label: "c000003 synthetic: restore".into(), gpu: gpu.into(), runs: 1, gpus: pooled[..1].to_vec() },
        &old,
        &Side { label: "c000004 synthetic: slow transpose".into(), gpu: gpu.into(), runs: 2, gpus: pooled },
        &new,
    );
    // The vendor references of the table the runs came from, as `kernelgate diff` adds them.
    d.vendors = kernelgate::report::vendor::references(&kernelgate_lessons::all());
    d
}

/// Synthetic trends across 10 commits: a shift up at the fifth commit on two GPUs, a series
/// without change points, and one with change points at five adjacent commits.
fn synthetic_trends() -> Vec<Trend> {
    let series = |trial: &str, base: f64, shift: f64, change_points: Vec<usize>| {
        let mut points = Vec::new();
        for i in 0..10 {
            for (g, gpu) in ["GPU-5f1c (H200 #0)", "GPU-9a2e (H200 #1)"].into_iter().enumerate() {
                let wobble = [0.0, 0.6, -0.4, 0.3, -0.2, 0.5, -0.6, 0.1, 0.4, -0.3][(i + 3 * g) % 10];
                let value = (base + if (4..8).contains(&i) { shift } else { 0.0 } + wobble + g as f64) * 1e-6;
                points.push(TrendPoint { label: format!("c{i:06}"), value, gpu: gpu.into() });
            }
        }
        Trend { trial: trial.into(), metric: "median".into(), unit: "s".into(), points, change_points }
    };
    // Change points at five adjacent commits (both GPUs at the first), whose labels must be placed
    // apart.
    let mut crowded = series("vectorization/saxpy/67108864", 210.0, 10.0, (4..9).map(|i| 2 * i).collect());
    crowded.change_points.insert(1, 9);
    vec![
        series("transpose/shared_padded/4096x4096", 80.0, 24.0, vec![8, 16]),
        series("coalescing/copy/67108864", 134.0, 0.0, vec![]),
        series("f/a|b<script>*x*/1", 10.0, 0.5, vec![8]),
        crowded,
    ]
}
