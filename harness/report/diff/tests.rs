//! Tests of the diff model, and the synthetic diff the renderers' tests share (made-up numbers).

use super::*;

/// A synthetic row (the numbers are made up for the test).
pub(crate) fn row(trial: &str, metric: &str, unit: &str, value: f64, verdict: &str) -> Measurement {
    Measurement {
        trial: trial.into(),
        kernel: trial.split('/').nth(1).unwrap_or("k").into(),
        metric: metric.into(),
        unit: unit.into(),
        value,
        verdict: verdict.into(),
        decided_by: "time".into(),
        ci: None,
    }
}

pub(crate) fn side(label: &str) -> Side {
    Side { label: label.into(), gpu: "nvidia-h200-sm90".into(), ..Side::default() }
}

/// Synthetic sides: `t/slow/1` regressed 25 % with bank conflicts from 0 and 4x the sectors,
/// `t/fast/1` improved 10 %, `t/same/1` unchanged, `t/gone/1` removed, `t/new/1` added.
pub(crate) fn synthetic() -> Diff {
    let old = vec![
        row("t/slow/1", "median", "s", 100e-6, "unchanged"),
        row("t/slow/1", "dram__sectors_read.sum", "sector", 1e6, "unchanged"),
        row("t/slow/1", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "", 0.0, "unchanged"),
        row("t/slow/1", "achieved_occupancy_pct", "%", 80.0, "unchanged"),
        row("t/slow/1", "sm__cycles_elapsed.avg", "cycle", 1000.0, "unchanged"),
        row("t/slow/1", "mean", "s", 101e-6, "unchanged"),
        row("t/slow/1", "pct_of_copy_bandwidth", "%", 90.0, "unchanged"),
        row("t/fast/1", "median", "s", 200e-6, "unchanged"),
        row("t/fast/1", "dram__sectors_read.sum", "sector", 2e6, "unchanged"),
        row("t/same/1", "median", "s", 50e-6, "unchanged"),
        row("t/same/1", "only_old_counter", "", 7.0, "unchanged"),
        row("t/gone/1", "median", "s", 10e-6, "unchanged"),
    ];
    let new = vec![
        row("t/slow/1", "median", "s", 125e-6, "regressed"),
        row("t/slow/1", "dram__sectors_read.sum", "sector", 4e6, "regressed"),
        row("t/slow/1", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "", 31.5e6, "regressed"),
        row("t/slow/1", "achieved_occupancy_pct", "%", 40.0, "regressed"),
        row("t/slow/1", "sm__cycles_elapsed.avg", "cycle", 1250.0, "regressed"),
        row("t/slow/1", "mean", "s", 126e-6, "regressed"),
        row("t/slow/1", "pct_of_copy_bandwidth", "%", 72.0, "regressed"),
        row("t/fast/1", "median", "s", 180e-6, "improved"),
        row("t/fast/1", "dram__sectors_read.sum", "sector", 1e6, "improved"),
        row("t/same/1", "median", "s", 50.1e-6, "unchanged"),
        row("t/new/1", "median", "s", 5e-6, "no-baseline"),
    ];
    diff(&side("abc1234 old"), &old, &side("def5678 new"), &new)
}

#[test]
fn trials_sorted_regressions_first_then_by_size() {
    let d = synthetic();
    let names: Vec<&str> = d.trials.iter().map(|t| t.trial.as_str()).collect();
    assert_eq!(names, ["t/slow/1", "t/fast/1", "t/same/1", "t/gone/1", "t/new/1"]);
    assert_eq!(d.trials[3].presence, Presence::Removed);
    assert_eq!(d.trials[4].presence, Presence::Added);
    assert_eq!(
        d.summary(),
        "1 slower, 1 faster, 1 within 1 %, 1 only in the new runs, 1 only in the old runs (5 trials); new runs' \
         verdicts: 1 regressed, 1 improved, 1 unchanged"
    );
    let changed: Vec<&str> = d.changed().map(|t| t.trial.as_str()).collect();
    assert_eq!(changed, ["t/slow/1", "t/fast/1", "t/gone/1", "t/new/1"]);
}

#[test]
fn explanation_ranks_counters_that_moved_with_the_time() {
    let d = synthetic();
    let slow = &d.trials[0];
    assert!((slow.delta().unwrap() - 0.25).abs() < 1e-12);
    let text: Vec<String> = slow.explanation.iter().map(Factor::to_string).collect();
    // Zero to non-zero first, then 4x; occupancy went down (other direction), `mean` is a run
    // statistic and `sm__cycles_elapsed.avg` restates the time (1.25x): none explains.
    assert_eq!(
        text,
        ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 0 -> 31.5M", "dram__sectors_read.sum 4.0x"]
    );
    assert!(restates_time("gpu__time_duration.sum") && !restates_time("dram__bytes_read.sum"));
    let fast = &d.trials[1];
    assert_eq!(fast.explanation.iter().map(Factor::to_string).collect::<Vec<_>>(), ["dram__sectors_read.sum 0.50x"]);
    assert!(d.trials[2].explanation.is_empty(), "a 0.2 % change asks for no explanation");
}

#[test]
fn metrics_on_one_side_are_kept() {
    let d = synthetic();
    let same = d.trials.iter().find(|t| t.trial == "t/same/1").unwrap();
    assert_eq!(same.metrics.len(), 1);
    assert_eq!((same.metrics[0].old, same.metrics[0].new), (Some(7.0), None));
    assert_eq!(same.metrics[0].delta(), None);
    let slow = &d.trials[0];
    let mean = slow.metrics.iter().find(|m| m.metric == "mean").unwrap();
    assert!(!mean.counter);
    assert_eq!(slow.metrics.len(), 6, "every metric but the time: {:?}", slow.metrics);
}

#[test]
fn verdict_alone_asks_for_an_explanation() {
    let old = [row("a/k/1", "median", "s", 1.0, "unchanged"), row("a/k/1", "x", "", 10.0, "unchanged")];
    let new = [row("a/k/1", "median", "s", 1.001, "regressed"), row("a/k/1", "x", "", 20.0, "regressed")];
    let d = diff(&side("a"), &old, &side("b"), &new);
    assert_eq!(d.trials[0].explanation.iter().map(Factor::to_string).collect::<Vec<_>>(), ["x 2.0x"]);
}

#[test]
fn repeated_runs_are_summarised_by_the_median_and_the_worst_verdict() {
    let old = [row("a/k/1", "median", "s", 1.0, "unchanged")];
    let new = [
        row("a/k/1", "median", "s", 1.0, "unchanged"),
        row("a/k/1", "median", "s", 3.0, "regressed"),
        row("a/k/1", "median", "s", 2.0, "unchanged"),
    ];
    let d = diff(&side("a"), &old, &side("b"), &new);
    assert_eq!((d.trials[0].new_s, d.trials[0].verdict.as_str()), (Some(2.0), "regressed"));
}

#[test]
fn several_kernels_name_their_kernel() {
    let mut old = vec![row("a/k/1", "median", "s", 1.0, "unchanged")];
    let mut new = vec![row("a/k/1", "median", "s", 2.0, "regressed")];
    for (kernel, o, n) in [("pack", 1.0, 3.0), ("scan", 1.0, 1.5)] {
        old.push(Measurement { kernel: kernel.into(), ..row("a/k/1", "c", "", o, "unchanged") });
        new.push(Measurement { kernel: kernel.into(), ..row("a/k/1", "c", "", n, "regressed") });
    }
    let d = diff(&side("a"), &old, &side("b"), &new);
    let text: Vec<String> = d.trials[0].explanation.iter().map(Factor::to_string).collect();
    assert_eq!(text, ["pack: c 3.0x", "scan: c 1.50x"]);
}

#[test]
fn bars_keep_trials_of_either_side() {
    let d = synthetic();
    assert_eq!(d.bars, [Bar { trial: "t/slow/1".into(), old: Some(90.0), new: Some(72.0) }]);
    let b = bars(&[], &[row("x/y/1", BANDWIDTH_METRIC, "%", 50.0, "")]);
    assert_eq!(b, [Bar { trial: "x/y/1".into(), old: None, new: Some(50.0) }]);
}

#[test]
fn numbers_for_people() {
    assert_eq!(compact(31.5e6), "31.5M");
    assert_eq!(compact(4096.0), "4.1k");
    assert_eq!(compact(0.25), "0.25");
    assert_eq!(compact(0.0), "0");
    assert_eq!(compact(-1.5e9), "-1.5G");
    assert_eq!(compact(125.0), "125");
    assert_eq!(ratio_text(4.0), "4.0x");
    assert_eq!(ratio_text(12.3), "12x");
    assert_eq!(ratio_text(1.05), "1.05x");
    assert_eq!(ratio_text(1.25), "1.25x");
    assert_eq!(ratio_text(0.25), "0.25x");
    assert_eq!(percent(0.25), "+25.00%");
    assert_eq!(percent(-0.031), "-3.10%");
}

#[test]
fn run_statistics_are_all_known() {
    let mut r = crate::record::tests::result("a/b/1", 1e-3, 1024, 1024);
    r.sm_clock_mhz = Some(1980.0);
    r.comparison = Some(crate::gate::timing::Comparison {
        verdict: crate::gate::timing::Verdict::Unchanged,
        baseline_median_s: 1e-3,
        median_s: 1e-3,
        delta: 0.0,
        p_value: 0.5,
        p_adjusted: 1.0,
        min_effect: 0.02,
        median_ci: 0.001,
        quantum_s: 0.0,
    });
    for (name, _, _) in crate::record::statistics(&r, 4000.0) {
        assert!(RUN_STATISTICS.contains(&name), "{name} is a run statistic: add it to RUN_STATISTICS");
    }
}

#[test]
fn a_metric_whose_kernel_label_changed_between_versions_is_one_metric() {
    let with = |kernel: &str, metric: &str, value: f64| Measurement {
        kernel: kernel.into(),
        ..row("t/copy/1", metric, if metric == "median" { "s" } else { "GB/s" }, value, "unchanged")
    };
    // A program of copies only: 72a91c3 labelled its rows with no kernel, 8c8c911 with the CUDA call.
    let old =
        [with("", "median", 1.0), with("", "bandwidth", 9.2), with("k+k", "x.sum", 1.0), with("k+k", "y.sum", 1.0)];
    let new = [
        with("cuMemcpyDtoHAsync", "median", 1.0),
        with("cuMemcpyDtoHAsync", "bandwidth", 12.8),
        with("k", "x.sum", 2.0),
        with("k#2", "x.sum", 2.0),
        with("k+k", "y.sum", 3.0),
    ];
    let d = diff(&side("a"), &old, &side("b"), &new);
    let m = &d.trials[0].metrics;
    let bandwidth: Vec<&MetricDiff> = m.iter().filter(|m| m.metric == "bandwidth").collect();
    assert_eq!(bandwidth.len(), 1, "{m:?}");
    assert_eq!(
        (bandwidth[0].kernel.as_str(), bandwidth[0].old, bandwidth[0].new),
        ("cuMemcpyDtoHAsync", Some(9.2), Some(12.8))
    );
    // Same label on both sides: paired by label.
    let y: Vec<&MetricDiff> = m.iter().filter(|m| m.metric == "y.sum").collect();
    assert_eq!((y.len(), y[0].old, y[0].new), (1, Some(1.0), Some(3.0)));
    // One old row against two new ones: which pairs is unknown, so none is paired.
    let x: Vec<&MetricDiff> = m.iter().filter(|m| m.metric == "x.sum").collect();
    assert_eq!(x.len(), 3, "{x:?}");
}

#[test]
fn each_sides_runs_and_their_intervals_reach_the_trial() {
    // Made-up numbers: two old runs and one new run of `a` (one old run without an interval), one
    // run a side of `b`; each interval ± 1 %.
    let timed = |trial: &str, value: f64, ci: bool| Measurement {
        ci: ci.then_some([0.99 * value, 1.01 * value]),
        ..row(trial, "median", "s", value, "")
    };
    let old = [timed("b/k/1", 50e-6, true), timed("a/k/1", 100e-6, true), timed("a/k/1", 102e-6, false)];
    let new = [timed("a/k/1", 110e-6, true), timed("b/k/1", 50.1e-6, true)];
    let d = diff(&side("old"), &old, &side("new"), &new);
    let a = d.trials.iter().find(|t| t.trial == "a/k/1").unwrap();
    assert_eq!(a.old_runs.iter().map(|r| r.median_s).collect::<Vec<_>>(), [100e-6, 102e-6]);
    assert_eq!(a.old_runs[1].ci_s, None);
    assert_eq!(a.new_runs, [RunTime { median_s: 110e-6, ci_s: Some([0.99 * 110e-6, 1.01 * 110e-6]) }]);
    assert_eq!(a.interval(), interval::change_interval(&a.old_runs, &a.new_runs));
    assert!(a.interval().is_some_and(|i| matches!(i.method, interval::Method::Welch { .. })));
    // One run a side, each with its interval: the normal combination, holding 0 for +0.2 %.
    let b = d.trials.iter().find(|t| t.trial == "b/k/1").unwrap();
    let i = b.interval().unwrap();
    assert_eq!(i.method, interval::Method::Normal);
    assert!(i.straddles_zero(), "{i:?}");
    // Trials of one side have none.
    let mut gone = b.clone();
    gone.presence = Presence::Removed;
    assert_eq!(gone.interval(), None);
    // The Markdown's change column carries it, and says "within noise" for b.
    let md = crate::report::markdown::interval_text(b);
    assert!(md.starts_with(" [-") && md.ends_with("] within noise"), "{md}");
    let json = json::diff_json(&d, &facts(), &facts());
    let tb = json["trials"].as_array().unwrap().iter().find(|t| t["trial"] == "b/k/1").unwrap();
    assert_eq!(tb["delta_ci_method"], "normal");
    assert_eq!(tb["within_noise"], true);
    assert_eq!(tb["delta_ci_pct"][0].as_f64().unwrap(), 100.0 * i.low);
    let ta = json["trials"].as_array().unwrap().iter().find(|t| t["trial"] == "a/k/1").unwrap();
    assert_eq!(ta["old_run_medians_s"], serde_json::json!([100e-6, 102e-6]));
    assert_eq!(ta["delta_ci_method"], "welch-t");
    assert!(ta["delta_ci_df"].as_f64().unwrap() >= 1.0);
}

fn facts() -> json::SideFacts {
    json::SideFacts { spec: "x".into(), gpu_key: "k".into(), runs: vec![], from_pairs: false }
}
