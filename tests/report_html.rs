//! The HTML diff report in a real browser: Debian's `chromium`, headless, renders a synthetic
//! report (every number below is made up) with no console message, every chart's points are in
//! the rendered DOM (as many as its `data-points` says), and a screenshot is saved to
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
use support::chromium::{Chromium, console_lines, target_dir};

#[test]
fn html_report_renders_in_chromium() {
    let Some(chromium) = Chromium::find("report_html") else { return };
    let page = html::render(&synthetic_diff(), &synthetic_trends());
    let file = chromium.page("report.html", &page);

    let (dom, log) = chromium.run(&["--dump-dom"], &file);
    let console = console_lines(&log);
    assert!(console.is_empty(), "the report logged to the browser console: {console:#?}");
    let charts = charts(&dom);
    assert_eq!(charts.len(), 1 + synthetic_trends().len(), "one bar chart and one chart per trend in the rendered DOM");
    for (i, (declared, drawn)) in charts.iter().enumerate() {
        assert!(*declared > 0, "chart {i} declares no points");
        assert_eq!(declared, drawn, "chart {i}: data-points={declared} but {drawn} class=\"pt\" elements rendered");
    }
    assert!(dom.contains("change at"), "a change point is marked");

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
        (hostile, 10e-6, 10.5e-6, 40.0, 38.1, "ambiguous"),
    ];
    for (trial, o, n, po, pn, verdict) in cases {
        old.push(row(trial, "median", "s", o, "unchanged", "time"));
        new.push(row(trial, "median", "s", n, verdict, "time"));
        old.push(row(trial, "pct_of_copy_bandwidth", "%", po, "unchanged", "time"));
        new.push(row(trial, "pct_of_copy_bandwidth", "%", pn, verdict, "time"));
        old.push(row(trial, "dram__sectors_read.sum", "sector", 2.1e6, "unchanged", "time"));
        new.push(row(trial, "dram__sectors_read.sum", "sector", 2.1e6 * n / o, verdict, "time"));
    }
    old.push(row("transpose/shared_padded/4096x4096", conflicts, "", 0.0, "unchanged", "time"));
    new.push(row("transpose/shared_padded/4096x4096", conflicts, "", 31.5e6, "regressed", "time"));
    old.push(row("transpose/naive/4096x4096", "median", "s", 400e-6, "unchanged", "time"));
    new.push(row("transpose/tiled/4096x4096", "median", "s", 90e-6, "no-baseline", "conditions"));
    let gpu = "nvidia-h200-sm90";
    diff(
        &Side { label: "c000003 synthetic: restore".into(), gpu: gpu.into() },
        &old,
        &Side { label: "c000004 synthetic: slow transpose".into(), gpu: gpu.into() },
        &new,
    )
}

/// Synthetic trends across 10 commits: a shift up at the fifth commit on two GPUs, and a series
/// without change points.
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
    vec![
        series("transpose/shared_padded/4096x4096", 80.0, 24.0, vec![8, 16]),
        series("coalescing/copy/67108864", 134.0, 0.0, vec![]),
        series("f/a|b<script>*x*/1", 10.0, 0.5, vec![8]),
    ]
}
