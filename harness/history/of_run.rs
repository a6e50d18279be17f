//! A suite run in history form (pure): one [`Run`] per physical GPU, every statistic of the run CSV
//! and every ncu counter of its trials as [`Value`]s, the time median with its 95 % confidence
//! interval, and with each trial the rate ceilings its GPU measured at the run's start (the
//! `<run>-ceilings.csv` values, named by [`crate::model::Ceiling::value_statistic`]).

use super::{Run, RunMeta, TrialModule, Value};
use crate::expect::Values;
use crate::model::Ceilings;
use crate::record::{self, CaseResult, RunInfo};
use std::collections::BTreeMap;

/// One timed trial: its result, and the relative half-width of its median's 95 % confidence
/// interval (`crate::gate::timing::median_ci_half_width`, a fraction), when known.
#[derive(Debug, Clone)]
pub struct Trial<'a> {
    /// The trial's outcome.
    pub result: &'a CaseResult,
    /// Relative CI half-width of the median.
    pub median_ci: Option<f64>,
}

/// ncu's counters of a run: per trial, metric -> value (base units), and the unit of each metric.
#[derive(Debug, Clone, Copy)]
pub struct Counters<'a> {
    /// Per trial.
    pub values: &'a BTreeMap<String, Values>,
    /// Per metric; `""` for counts.
    pub units: &'a BTreeMap<String, String>,
    /// ncu's version.
    pub ncu_version: &'a str,
}

/// The run of `info` on one GPU (its facts are `info.facts`, its measured ceilings `ceilings`), with
/// `trials` timed there and the counters of those trials when the run profiled them. Each trial
/// gets the value of every rate ceiling measured (`copy_ceiling` 4210.6 GB/s, ...: [`ceiling_values`]).
pub fn run_of(info: &RunInfo, ceilings: &Ceilings, trials: &[Trial<'_>], counters: Option<Counters<'_>>) -> Run {
    let f = &info.facts;
    let meta = RunMeta {
        run_id: info.run_id.clone(),
        commit: info.git.commit.clone(),
        dirty: info.git.kernels_dirty,
        kernels_sha256: info.kernels_sha256.clone(),
        branch: info.git.branch.clone(),
        commit_time: info.git.commit_time,
        subject: info.git.subject.clone(),
        gpu_key: f.gpu_key.clone(),
        gpu_name: f.name.clone(),
        gpu_uuid: f.uuid.clone(),
        driver: f.driver_version.clone(),
        cuda: f.cuda_driver_version.clone(),
        nvrtc: f.nvrtc_version.clone(),
        ncu: counters.map_or(String::new(), |c| c.ncu_version.to_string()),
        ab_revision: info.ab_revision.clone(),
        work_scale: info.work_scale,
    };
    let mut values = Vec::new();
    let mut modules = Vec::new();
    for t in trials {
        let r = t.result;
        modules.push(TrialModule {
            trial: r.trial.clone(),
            kernel: r.kernel.clone(),
            module_sha256: r.module_sha256.clone(),
        });
        let value = |metric: &str, unit: &str, value: f64| Value {
            trial: r.trial.clone(),
            kernel: r.kernel.clone(),
            metric: metric.to_string(),
            unit: unit.to_string(),
            value,
            ci_low: None,
            ci_high: None,
            verdict: r.verdict.as_str().to_string(),
            decided_by: r.decided_by.clone(),
        };
        for (statistic, unit, v) in record::statistics(r, f.copy_bandwidth_gbps) {
            let mut row = value(statistic, unit, v);
            if statistic == "median"
                && let Some(ci) = t.median_ci.filter(|c| c.is_finite())
            {
                row.ci_low = Some(v * (1.0 - ci));
                row.ci_high = Some(v * (1.0 + ci));
            }
            values.push(row);
        }
        for (statistic, unit, v) in ceiling_values(ceilings) {
            values.push(value(statistic, unit, v));
        }
        if let Some(c) = counters
            && let Some(found) = c.values.get(&r.trial)
        {
            for (metric, v) in found {
                values.push(value(metric, c.units.get(metric).map_or("", String::as_str), *v));
            }
        }
    }
    modules.sort();
    modules.dedup();
    Run { meta, values, modules }
}

/// The rate ceilings of `ceilings` as history values: ([`crate::model::Ceiling::value_statistic`],
/// unit, value), in [`crate::model::Ceiling::ALL`] order; the launch times are left out (no roof).
pub fn ceiling_values(ceilings: &Ceilings) -> Vec<(&'static str, &'static str, f64)> {
    ceilings.measured.iter().filter_map(|m| Some((m.ceiling.value_statistic()?, m.ceiling.unit(), m.value))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::{facts, result};
    use crate::record::{GitState, RepoState};

    #[test]
    fn statistics_counters_and_the_median_interval() {
        let info = RunInfo {
            run_id: "20261130T030000Z".into(),
            seed: 1,
            git: GitState { kernels_dirty: Some(true), ..GitState::unknown(RepoState::NoRefs) },
            kernels_sha256: "k".into(),
            facts: facts(),
            work_scale: 1.0,
            ab_revision: String::new(),
        };
        let r = result("fam/k/1", 2e-3, 8, 0);
        let values =
            BTreeMap::from([("fam/k/1".to_string(), Values::from([("dram__bytes_read.sum".to_string(), 8.0)]))]);
        let units = BTreeMap::from([("dram__bytes_read.sum".to_string(), "byte".to_string())]);
        let counters = Counters { values: &values, units: &units, ncu_version: "2025.3.1.0" };
        let ceilings = crate::ceilings::tests::fixture();
        let run = run_of(&info, &ceilings, &[Trial { result: &r, median_ci: Some(0.01) }], Some(counters));
        assert_eq!((run.meta.dirty, run.meta.ncu.as_str()), (Some(true), "2025.3.1.0"));
        assert_eq!(run.meta.gpu_uuid, facts().uuid);
        let median = run.values.iter().find(|v| v.metric == "median").unwrap();
        assert_eq!((median.value, median.unit.as_str()), (2e-3, "s"));
        assert!((median.ci_low.unwrap() - 1.98e-3).abs() < 1e-12 && (median.ci_high.unwrap() - 2.02e-3).abs() < 1e-12);
        let dram = run.values.iter().find(|v| v.metric == "dram__bytes_read.sum").unwrap();
        assert_eq!((dram.value, dram.unit.as_str(), dram.verdict.as_str()), (8.0, "byte", "no-baseline"));
        // Every statistic of the run CSV is there, the five rate ceilings, and the counter.
        assert_eq!(run.values.len(), record::statistics(&r, 1.0).len() + 5 + 1);
        let copy = run.values.iter().find(|v| v.metric == "copy_ceiling").unwrap();
        assert_eq!((copy.value, copy.unit.as_str(), copy.trial.as_str()), (4223.206434886277, "GB/s", "fam/k/1"));
        assert!(!run.values.iter().any(|v| v.metric.contains("launch")), "launch times are no roof");
        let without = run_of(&info, &Ceilings::default(), &[Trial { result: &r, median_ci: None }], None);
        assert!(!without.values.iter().any(|v| v.metric.ends_with("_ceiling")), "none measured, none stored");
        assert!(without.values.iter().all(|v| v.ci_low.is_none()) && without.meta.ncu.is_empty());
        assert_eq!(run.trial_module("fam/k/1"), Some(r.module_sha256.clone()), "the module timed is recorded");
        assert_eq!(run.trial_module("fam/other/1"), None);
    }
}
