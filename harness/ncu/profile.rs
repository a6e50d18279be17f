//! From a parsed ncu report to metric values per trial (raw and derived), and the metrics CSV.

use super::metrics;
use super::parse::{MetricValue, Report};
use crate::expect::Values;
use crate::record::{GitState, RUN_CSV_SCHEMA};
use crate::{Case, Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Everything one ncu session measured, by trial name.
#[derive(Debug, Clone, PartialEq)]
pub struct Profiled {
    /// Raw (ncu names, base units) and derived values per trial.
    pub values: BTreeMap<String, Values>,
    /// Kernel (function) name per trial, as ncu printed it.
    pub kernels: BTreeMap<String, String>,
    /// Unit of every metric name seen (derived ones included); `""` for counts.
    pub units: BTreeMap<String, String>,
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
/// metrics (the raw page also carries every device attribute), derives metrics, and reads the
/// chip. `ncu_version`, `clock_control` and `report_file` are recorded as given.
///
/// # Errors
/// [`Error::Ncu`] naming the trial if a trial's ranges hold more than one kernel (its checked
/// launch is the only one expected), or naming the kernel if it sits outside every trial's ranges.
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
        kernels: BTreeMap::new(),
        units: BTreeMap::new(),
        ncu_version: ncu_version.to_string(),
        clock_control: clock_control.to_string(),
        chip: chip(report),
        report: report_file.to_path_buf(),
    };
    let error = |message: String| Error::Ncu { origin: origin.to_path_buf(), line: None, message };
    for record in &report.kernels {
        let trial = record.nvtx_path();
        let case = cases.iter().find(|c| c.name() == trial).ok_or_else(|| {
            error(format!(
                "kernel {} (ID {}) ran inside NVTX ranges {trial:?}, which name no selected trial; \
                 was the report made by another program?",
                record.kernel, record.id
            ))
        })?;
        let mut values = Values::new();
        for (name, metric) in record.metrics.iter().filter(|(n, _)| requested.contains(&n.as_str())) {
            if let MetricValue::Number(v) = metric.value {
                values.insert(name.clone(), v);
                p.units.insert(name.clone(), metric.unit.clone());
            }
        }
        for (name, value) in metrics::derive(&values, case.bytes, metrics::output_elements(case)) {
            values.insert(name.to_string(), value);
            let unit = metrics::DERIVED.iter().find(|d| d.name == name).map_or("", |d| d.unit);
            p.units.insert(name.to_string(), unit.to_string());
        }
        if p.values.insert(trial.clone(), values).is_some() {
            return Err(error(format!(
                "trial {trial}: ncu profiled more than one kernel inside its NVTX ranges; expected its one checked launch"
            )));
        }
        p.kernels.insert(trial, record.kernel.clone());
    }
    Ok(p)
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

/// Rows of the metrics CSV: one per trial and metric, sorted (pure).
pub fn rows(p: &Profiled, run_id: &str, git: &GitState, gpu_key: &str) -> Vec<MetricRow> {
    let mut out = Vec::new();
    for (trial, values) in &p.values {
        for (metric, value) in values {
            out.push(MetricRow {
                schema_version: RUN_CSV_SCHEMA,
                run_id: run_id.to_string(),
                commit: git.commit.clone(),
                dirty: git.dirty.map_or("unknown".into(), |d| d.to_string()),
                gpu_key: gpu_key.to_string(),
                ncu_version: p.ncu_version.clone(),
                clock_control: p.clock_control.clone(),
                chip: p.chip.clone(),
                trial: trial.clone(),
                kernel: p.kernels.get(trial).cloned().unwrap_or_default(),
                metric: metric.clone(),
                value: *value,
                unit: p.units.get(metric).cloned().unwrap_or_default(),
            });
        }
    }
    out
}
