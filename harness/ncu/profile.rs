//! From a parsed ncu report to metric values per trial (raw and derived), and the metrics CSV.

use super::metrics;
use super::parse::{MetricValue, Report};
use crate::expect::Values;
use crate::record::{GitState, RUN_CSV_SCHEMA};
use crate::{
    case::Case,
    error::{Error, Result},
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Everything one ncu session measured, by trial name.
#[derive(Debug, Clone, PartialEq)]
pub struct Profiled {
    /// Raw (ncu names, base units) and derived values per trial.
    pub values: BTreeMap<String, Values>,
    /// In a same-run A/B run: the same for the A side of each trial (the revision's kernels,
    /// profiled inside `family/variant/size_A-side`, [`crate::measure::A_SIDE_SUFFIX`]), by trial name.
    pub a_side: BTreeMap<String, Values>,
    /// Kernel (function) name per trial, as ncu printed it; the names joined by `+` in launch
    /// order for a trial whose program launched several kernels.
    pub kernels: BTreeMap<String, String>,
    /// For a trial whose program launched several kernels: each launch's raw values, by kernel
    /// name, in launch order (the per-kernel rows of the metrics CSV). Empty for one-launch trials.
    pub per_kernel: BTreeMap<String, Vec<(String, Values)>>,
    /// Unit of every metric name seen (derived ones included); `""` for counts.
    pub units: BTreeMap<String, String>,
    /// The requested metrics ncu printed as not finite ([`MetricValue::NotFinite`]: `nan`, `inf`)
    /// in a trial's launches (either side of an A/B trial), by trial name, each with the value as
    /// printed: left out of [`Profiled::values`], and named by [`Profiled::tool_invalid`].
    pub not_finite: BTreeMap<String, BTreeMap<String, String>>,
    /// ncu version (`2025.3.1.0`).
    pub ncu_version: String,
    /// `--clock-control` used.
    pub clock_control: String,
    /// Chip as ncu reports it (`device__attribute_chip`, e.g. `GH100`), or `unknown`.
    pub chip: String,
    /// The `.ncu-rep`, for the Nsight Compute GUI.
    pub report: PathBuf,
}

/// Assigns each profiled kernel to the trial whose NVTX ranges enclosed it, keeps the `requested`
/// metrics (the raw page also carries every device attribute), combines the launches of a trial
/// whose program has several ([`combine`]), derives metrics from the combined raw values, and reads
/// the chip. `ncu_version`, `clock_control` and `report_file` are recorded as given.
///
/// # Errors
/// [`Error::Ncu`] naming the kernel if it sits outside every trial's ranges, or naming the trial
/// if ncu profiled another number of kernels inside its ranges than its program launches (one
/// per launch, graph nodes included).
pub fn collect(
    report: &Report,
    cases: &[&Case],
    requested: &[&str],
    origin: &Path,
    ncu_version: &str,
    clock_control: &str,
    report_file: &Path,
) -> Result<Profiled> {
    let mut p = Profiled {
        values: BTreeMap::new(),
        a_side: BTreeMap::new(),
        kernels: BTreeMap::new(),
        per_kernel: BTreeMap::new(),
        units: BTreeMap::new(),
        not_finite: BTreeMap::new(),
        ncu_version: ncu_version.to_string(),
        clock_control: clock_control.to_string(),
        chip: chip(report),
        report: report_file.to_path_buf(),
    };
    let error = |message: String| Error::Ncu { origin: origin.to_path_buf(), line: None, message };
    let mut launches: BTreeMap<String, Vec<(String, Values)>> = BTreeMap::new();
    for record in &report.kernels {
        let path = record.nvtx_path();
        // The A side of an A/B trial keeps its suffix as the key, so its launches stay apart.
        let trial = path.clone();
        let named = path.strip_suffix(crate::measure::A_SIDE_SUFFIX).unwrap_or(&path);
        if !cases.iter().any(|c| c.name() == named) {
            return Err(error(format!(
                "kernel {} (ID {}) ran inside NVTX ranges {trial:?}, which name no selected trial; \
                 was the report made by another program?",
                record.kernel, record.id
            )));
        }
        let mut values = Values::new();
        for (name, metric) in record.metrics.iter().filter(|(n, _)| requested.contains(&n.as_str())) {
            match &metric.value {
                MetricValue::Number(v) => {
                    values.insert(name.clone(), *v);
                    p.units.insert(name.clone(), metric.unit.clone());
                }
                MetricValue::NotFinite(t) => {
                    p.not_finite.entry(named.to_string()).or_default().insert(name.clone(), t.clone());
                }
                MetricValue::Text(_) | MetricValue::NotAvailable => {}
            }
        }
        launches.entry(trial).or_default().push((record.kernel.clone(), values));
    }
    for (key, runs) in launches {
        let (trial, a_side) = match key.strip_suffix(crate::measure::A_SIDE_SUFFIX) {
            Some(t) => (t.to_string(), true),
            None => (key.clone(), false),
        };
        let case = cases.iter().find(|c| c.name() == trial).expect("checked above");
        // A library call (cuBLAS, a host call) launches kernels of its own choosing.
        let expected = case.launches().count();
        let hosts: Vec<&str> = case.host_calls().map(|c| c.name).collect();
        let (fits, says) = if !hosts.is_empty() {
            // A host call launches what it chooses, perhaps nothing.
            (runs.len() >= expected, format!("launches {expected} and calls {}", hosts.join(", ")))
        } else if case.uses_cublas() {
            (runs.len() > expected, format!("launches {expected} and calls cuBLAS, which launches at least one"))
        } else {
            (runs.len() == expected, format!("launches {expected}"))
        };
        if !fits {
            return Err(error(format!(
                "trial {key}: ncu profiled {} kernels inside its NVTX ranges ({}); its program {says}",
                runs.len(),
                runs.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
        let mut values = combine(&runs);
        for (name, value) in metrics::derive(&values, case.bytes, metrics::output_elements(case)) {
            values.insert(name.to_string(), value);
            let unit = metrics::DERIVED.iter().find(|d| d.name == name).map_or("", |d| d.unit);
            p.units.insert(name.to_string(), unit.to_string());
        }
        let mut distinct: Vec<&str> = Vec::new();
        for (k, _) in &runs {
            if !distinct.contains(&k.as_str()) {
                distinct.push(k);
            }
        }
        let names = combined_label(&distinct, &runs);
        if a_side {
            p.a_side.insert(trial, values);
            continue;
        }
        p.values.insert(trial.clone(), values);
        p.kernels.insert(trial.clone(), names);
        if runs.len() > 1 {
            p.per_kernel.insert(trial, runs);
        }
    }
    Ok(p)
}

impl Profiled {
    /// When ncu printed a requested metric of `trial` as not finite, the sentence that names the
    /// tool and those metrics, e.g. ``ncu 2026.2.0.0 printed `nan` for dram__bytes_read.sum,
    /// l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum; the tool's counters, not the kernel, are in
    /// question (…)``, which makes the trial `invalid (tool)`
    /// ([`crate::gate::tool_invalid_verdict`]); `None` when every requested value of the trial is
    /// a number. A NaN counter says nothing about the kernel: it is never read as a change (issue
    /// 41, item 5).
    pub fn tool_invalid(&self, trial: &str) -> Option<String> {
        let bad = self.not_finite.get(trial).filter(|m| !m.is_empty())?;
        let printed: std::collections::BTreeSet<&str> = bad.values().map(String::as_str).collect();
        let printed = printed.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(" or ");
        let names = bad.keys().map(String::as_str).collect::<Vec<_>>().join(", ");
        Some(format!(
            "ncu {} printed {printed} for {names}; the tool's counters, not the kernel, are in question (profile \
             again with another ncu, or see the report {})",
            self.ncu_version,
            self.report.display()
        ))
    }
}

/// One value per metric for a program's launches (kernel name, raw values), in launch order: a
/// count (name ending `.sum`) is the sum over launches, `.max` the maximum, `.min` the minimum;
/// any other metric (averages, ratios, percentages, launch attributes) the mean weighted by each
/// launch's `gpu__time_duration.sum` (plain mean where a duration is missing), which is how a
/// whole-program figure such as achieved occupancy reads over time. One launch is returned as
/// is. kernelgate's rule, not ncu's: ncu reports launches separately.
pub fn combine(runs: &[(String, Values)]) -> Values {
    if let [(_, only)] = runs {
        return only.clone();
    }
    let names: std::collections::BTreeSet<&String> = runs.iter().flat_map(|(_, v)| v.keys()).collect();
    let weight = |v: &Values| v.get("gpu__time_duration.sum").copied().filter(|w| *w > 0.0);
    let weighted = runs.iter().all(|(_, v)| weight(v).is_some());
    names
        .into_iter()
        .map(|name| {
            let present: Vec<(f64, f64)> = runs
                .iter()
                .filter_map(|(_, v)| v.get(name).map(|x| (*x, if weighted { weight(v).unwrap_or(1.0) } else { 1.0 })))
                .collect();
            let xs = present.iter().map(|(x, _)| *x);
            let value = if name.ends_with(".sum") {
                xs.sum()
            } else if name.ends_with(".max") {
                xs.fold(f64::NEG_INFINITY, f64::max)
            } else if name.ends_with(".min") {
                xs.fold(f64::INFINITY, f64::min)
            } else {
                let total: f64 = present.iter().map(|(_, w)| w).sum();
                present.iter().map(|(x, w)| x * w).sum::<f64>() / total
            };
            (name.clone(), value)
        })
        .collect()
}

/// The chip name from any kernel's `device__attribute_chip`, or `unknown`.
pub fn chip(report: &Report) -> String {
    report
        .kernels
        .iter()
        .find_map(|k| match k.metrics.get("device__attribute_chip").map(|m| &m.value) {
            Some(MetricValue::Text(t)) => Some(t.clone()),
            Some(MetricValue::Number(n)) => Some(n.to_string()),
            _ => None,
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// One row of the metrics CSV.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MetricRow {
    /// `crate::record::RUN_CSV_SCHEMA`.
    pub schema_version: u32,
    /// Run start, UTC.
    pub run_id: String,
    /// Git commit.
    pub commit: String,
    /// `true`/`false`/`unknown`.
    pub dirty: String,
    /// Baseline folder key.
    pub gpu_key: String,
    /// ncu version.
    pub ncu_version: String,
    /// `--clock-control`.
    pub clock_control: String,
    /// Chip.
    pub chip: String,
    /// Trial name.
    pub trial: String,
    /// Kernel name.
    pub kernel: String,
    /// ncu metric name verbatim, or derived name.
    pub metric: String,
    /// Value in `unit`.
    pub value: f64,
    /// Base unit; empty for counts.
    pub unit: String,
}

/// Rows of the metrics CSV: one per trial and metric (the kernel column holds the trial's kernel,
/// or its kernels joined by `+`), then for a trial of several launches one per launch and raw
/// metric (the kernel column holds that launch's kernel); sorted by trial (pure).
pub fn rows(p: &Profiled, run_id: &str, git: &GitState, gpu_key: &str) -> Vec<MetricRow> {
    let mut out = Vec::new();
    for (trial, values) in &p.values {
        let combined = (p.kernels.get(trial).cloned().unwrap_or_default(), values);
        let launches = launch_labels(p.per_kernel.get(trial).map_or(&[][..], Vec::as_slice));
        for (kernel, values) in std::iter::once(combined).chain(launches) {
            for (metric, value) in values {
                out.push(row(p, run_id, git, gpu_key, trial, &kernel, metric, *value));
            }
        }
    }
    out
}

/// The kernel column of a trial's combined rows: its distinct kernels joined by `+`, or, for a
/// program that launches one kernel several times, every launch joined by `+` (`k+k+k`): the bare
/// name is the first launch's label ([`launch_labels`]), and two rows of one (trial, metric,
/// kernel) made the run's own metrics CSV unimportable (8c8c911's `transfers/pipeline_1_stream`).
fn combined_label(distinct: &[&str], runs: &[(String, Values)]) -> String {
    if distinct.len() == 1 && runs.len() > 1 {
        runs.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join("+")
    } else {
        distinct.join("+")
    }
}

/// Each launch's kernel column: its kernel's name, and `name#2`, `name#3`, ... for later launches
/// of the same kernel in the program, so every (trial, metric, kernel) row is unique (the history
/// store's key; `crate::history::import` reads older files the same way).
fn launch_labels(runs: &[(String, Values)]) -> Vec<(String, &Values)> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    runs.iter()
        .map(|(k, v)| {
            let n = seen.entry(k).or_insert(0);
            *n += 1;
            (if *n == 1 { k.clone() } else { format!("{k}#{n}") }, v)
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn row(
    p: &Profiled,
    run_id: &str,
    git: &GitState,
    gpu_key: &str,
    trial: &str,
    kernel: &str,
    metric: &str,
    value: f64,
) -> MetricRow {
    MetricRow {
        schema_version: RUN_CSV_SCHEMA,
        run_id: run_id.to_string(),
        commit: git.commit.clone(),
        dirty: git.dirty.map_or("unknown".into(), |d| d.to_string()),
        gpu_key: gpu_key.to_string(),
        ncu_version: p.ncu_version.clone(),
        clock_control: p.clock_control.clone(),
        chip: p.chip.clone(),
        trial: trial.to_string(),
        kernel: kernel.to_string(),
        metric: metric.to_string(),
        value,
        unit: p.units.get(metric).cloned().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, f64)]) -> Values {
        pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    #[test]
    fn one_launch_is_kept_as_is() {
        let v = values(&[("sm__warps_active.avg.pct_of_peak_sustained_active", 80.0)]);
        assert_eq!(combine(&[("k".into(), v.clone())]), v);
    }

    #[test]
    fn counts_add_extremes_stay_and_the_rest_is_time_weighted() {
        // Synthetic: a long launch at 90 % occupancy and a short one at 10 %.
        let a = values(&[
            ("gpu__time_duration.sum", 300.0),
            ("dram__bytes_read.sum", 1000.0),
            ("launch__grid_size.max", 528.0),
            ("sm__warps_active.avg.pct_of_peak_sustained_active", 90.0),
        ]);
        let b = values(&[
            ("gpu__time_duration.sum", 100.0),
            ("dram__bytes_read.sum", 24.0),
            ("launch__grid_size.max", 1.0),
            ("sm__warps_active.avg.pct_of_peak_sustained_active", 10.0),
        ]);
        let c = combine(&[("partials".into(), a), ("final".into(), b)]);
        assert_eq!(c["gpu__time_duration.sum"], 400.0);
        assert_eq!(c["dram__bytes_read.sum"], 1024.0);
        assert_eq!(c["launch__grid_size.max"], 528.0);
        assert_eq!(c["sm__warps_active.avg.pct_of_peak_sustained_active"], 70.0, "(90x300 + 10x100) / 400");
    }

    #[test]
    fn repeated_launches_get_numbered_labels() {
        let v = values(&[("x.sum", 1.0)]);
        let runs = vec![("scale".to_string(), v.clone()), ("add".to_string(), v.clone()), ("scale".to_string(), v)];
        let labels: Vec<String> = launch_labels(&runs).into_iter().map(|(l, _)| l).collect();
        assert_eq!(labels, ["scale", "add", "scale#2"]);
    }

    #[test]
    fn a_kernel_launched_several_times_labels_its_combined_row_apart_from_its_first_launch() {
        let v = values(&[("x.sum", 1.0)]);
        let runs: Vec<(String, Values)> = (0..3).map(|_| ("scale".to_string(), v.clone())).collect();
        let combined = combined_label(&["scale"], &runs);
        assert_eq!(combined, "scale+scale+scale");
        let launches: Vec<String> = launch_labels(&runs).into_iter().map(|(l, _)| l).collect();
        assert_eq!(launches, ["scale", "scale#2", "scale#3"]);
        assert!(!launches.contains(&combined), "every (trial, metric, kernel) row is unique");
        assert_eq!(combined_label(&["partials", "final"], &runs[..2]), "partials+final", "distinct kernels once each");
        assert_eq!(combined_label(&["scale"], &runs[..1]), "scale", "one launch: its name");
    }

    #[test]
    fn without_durations_the_mean_is_plain() {
        let c = combine(&[("a".into(), values(&[("x.ratio", 1.0)])), ("b".into(), values(&[("x.ratio", 3.0)]))]);
        assert_eq!(c["x.ratio"], 2.0);
    }

    /// A capture whose counters ncu printed as `nan` (harness/tests/fixtures/ncu/not-finite/) is read, its
    /// metric names accepted, and the trial named invalid with the tool's version; no value is
    /// kept to compare.
    #[test]
    fn counters_printed_as_nan_make_the_trial_tool_invalid() {
        let file = crate::source::fixture_path("ncu/not-finite/b200-all-nan-raw.csv");
        let report = super::super::parse::parse_file(&file).unwrap();
        let requested = ["dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"];
        super::super::parse::require_metrics(&report, &requested, &file).expect("a nan is not a misspelled name");
        let case = crate::case::planted::too_fast(crate::case::planted::TOO_FAST_N);
        let p = collect(&report, &[&case], &requested, &file, "2026.2.0.0", "base", Path::new("s.ncu-rep")).unwrap();
        let trial = case.name();
        assert_eq!(trial, "planted/too_fast/16777216");
        let values = &p.values[&trial];
        assert!(requested.iter().all(|m| !values.contains_key(*m)), "no nan is kept as a value: {values:?}");
        assert_eq!(
            p.tool_invalid(&trial).unwrap(),
            "ncu 2026.2.0.0 printed `-nan` or `nan` for dram__bytes_read.sum, dram__bytes_write.sum, \
             gpu__time_duration.sum; the tool's counters, not the kernel, are in question (profile again with \
             another ncu, or see the report s.ncu-rep)"
        );
        assert_eq!(p.tool_invalid("planted/too_fast/1"), None);
    }
}
