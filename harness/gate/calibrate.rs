//! Which run records `kernelgate baseline calibrate` counts, and their values.
//!
//! A run record is the `<stem>-baseline/` folder every run leaves beside its run CSV `<stem>.csv`
//! ([`super::records::RunRecord`]). Calibration wants runs of the blessed code under normal
//! conditions, so a record counts once per run (its folder name holds the run id and commit), only
//! when the run did its nominal work (`work_scale` 1; power-benchmark runs scale it), and a trial's
//! result only when it was valid (no other process on the GPU, not throttled, no sample below the
//! timer's resolution: field report 08, where one contended run raised a floor from 1 % to 5.5 %),
//! its module hash is the blessed one, and it ran on the physical GPU that blessed (where both
//! record their NVML UUID). Time medians and counters (from runs with ncu) are
//! gathered alike, per (trial, metric).

use super::baseline::Baseline;
use super::records::RunRecord;
use crate::error::Result;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// Why a record offered to [`gather`] was not used.
#[derive(Debug, Clone, PartialEq)]
pub enum Skipped {
    /// A power-benchmark run: its cases did this many times their work.
    PowerRun(f64),
    /// A same-run A/B run against this revision: its times were taken in pairs with another version.
    AbRun(String),
    /// No run CSV beside the record, so its work scale is unknown.
    NoRunCsv,
    /// The same run (same folder name) as this record, offered earlier.
    Duplicate(PathBuf),
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skipped::PowerRun(scale) => write!(f, "a power-benchmark run (KERNELGATE_WORK_SCALE={scale})"),
            Skipped::AbRun(rev) => write!(f, "a same-run A/B run (KERNELGATE_AB={rev})"),
            Skipped::NoRunCsv => {
                write!(f, "no run CSV beside it to tell its work scale (keep <stem>.csv next to <stem>-baseline/)")
            }
            Skipped::Duplicate(first) => write!(f, "the same run as {}", first.display()),
        }
    }
}

/// What [`gather`] found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Gathered {
    /// Per (trial, metric) with an entry in the baseline: the blessed value first (a time entry's
    /// median, s; a counter's value), then each used record's value of the same code.
    pub values: BTreeMap<(String, String), Vec<f64>>,
    /// Records used.
    pub used: usize,
    /// Records not used, with why, in the order offered.
    pub skipped: Vec<(PathBuf, Skipped)>,
    /// Trial results left out because the record's module hash differs from the blessed one.
    pub other_code: usize,
    /// Trial results left out because they were measured on another physical GPU than the blessed
    /// one (both NVML UUIDs recorded and different): a calibration holds for the machine that
    /// blessed (baselines/nvidia-h200-sm90/BENCHMARK.md, "A second machine").
    pub other_gpu: usize,
    /// Trial results used although the record or the baseline does not name its physical GPU
    /// (written before kernelgate kept UUIDs), so that it could not be checked.
    pub unidentified: usize,
    /// Trial results left out because the record says they are invalid: (record, trial, why).
    pub invalid: Vec<(PathBuf, String, String)>,
}

/// The values of `base`'s entries in the blessed run and in each usable record of `records`.
///
/// # Errors
/// What [`RunRecord::load`] returns: a folder that is not a run record, a corrupt one, or a run
/// CSV that cannot be read.
pub fn gather(base: &Baseline, records: &[PathBuf]) -> Result<Gathered> {
    let mut found = Gathered {
        values: base.entries.iter().map(|e| ((e.trial.clone(), e.metric.clone()), vec![e.median])).collect(),
        ..Gathered::default()
    };
    let mut seen: BTreeMap<std::ffi::OsString, PathBuf> = BTreeMap::new();
    for dir in records {
        let record = RunRecord::load(dir)?;
        let skip = match (&record.ab_revision, record.work_scale) {
            (Some(rev), _) => Some(Skipped::AbRun(rev.clone())),
            (None, Some(1.0)) => None,
            (None, Some(scale)) => Some(Skipped::PowerRun(scale)),
            (None, None) => Some(Skipped::NoRunCsv),
        };
        let name = record.record.dir.canonicalize().unwrap_or_else(|_| dir.clone());
        let name = name.file_name().unwrap_or_default().to_owned();
        let skip = skip.or_else(|| seen.get(&name).map(|first| Skipped::Duplicate(first.clone())));
        if let Some(why) = skip {
            found.skipped.push((dir.clone(), why));
            continue;
        }
        seen.insert(name, dir.clone());
        found.used += 1;
        let mut said_invalid = std::collections::BTreeSet::new();
        for ((trial, metric), list) in &mut found.values {
            let (Some(blessed), Some(run)) = (
                base.entries.iter().find(|e| &e.trial == trial && &e.metric == metric),
                record.record.entries.iter().find(|e| &e.trial == trial && &e.metric == metric),
            ) else {
                continue;
            };
            let time = usize::from(metric == super::baseline::TIME_METRIC);
            let unknown = blessed.gpu_uuid.is_empty() || run.gpu_uuid.is_empty();
            if let Some(why) = record.invalid(trial) {
                if said_invalid.insert(trial.clone()) {
                    found.invalid.push((dir.clone(), trial.clone(), why.to_string()));
                }
            } else if run.module_sha256 != blessed.module_sha256 {
                found.other_code += time;
            } else if !unknown && run.gpu_uuid != blessed.gpu_uuid {
                found.other_gpu += time;
            } else {
                found.unidentified += time * usize::from(unknown);
                list.push(run.median);
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::baseline::TIME_METRIC;
    use crate::gate::baseline::tests::{entry, save};
    use std::path::Path;

    const T: &str = "transpose/naive/8192x8192";

    /// A baseline or run record holding one time entry for `T` with `median` and `module`.
    fn record(dir: &Path, median: f64, module: &str, invalid: &str) {
        let mut e = entry(T, TIME_METRIC, median);
        e.module_sha256 = module.to_string();
        e.invalid_reason = invalid.to_string();
        let mut c = entry(T, "smsp__sass_inst_executed_op_global_ld.sum", 1000.0);
        c.module_sha256 = module.to_string();
        let mut b = Baseline::empty(dir);
        b.bless(vec![e, c], BTreeMap::from([(T.to_string(), vec![median])]));
        save(&b).unwrap();
    }

    /// A record folder moved to another physical GPU: its entries' UUID changed.
    trait OtherGpu {
        fn with_other_gpu(self) -> Self;
    }

    impl OtherGpu for PathBuf {
        fn with_other_gpu(self) -> PathBuf {
            Baseline::update(&self, |b| {
                b.entries.iter_mut().for_each(|e| e.gpu_uuid = "GPU-2da622ba".into());
                Ok(Some(()))
            })
            .unwrap();
            self
        }
    }

    /// A run record `<runs>/<stem>-baseline` with its run CSV at `scale` (None: no CSV).
    fn run(runs: &Path, stem: &str, median: f64, module: &str, scale: Option<&str>, invalid: &str) -> PathBuf {
        let dir = runs.join(format!("{stem}-baseline"));
        record(&dir, median, module, invalid);
        if let Some(scale) = scale {
            std::fs::write(
                runs.join(format!("{stem}.csv")),
                format!("schema_version,work_scale,trial\n3,{scale},{T}\n"),
            )
            .unwrap();
        }
        dir
    }

    #[test]
    fn only_valid_nominal_runs_of_the_blessed_code_count_once() {
        let tmp = tempfile::tempdir().unwrap();
        let blessed = "a".repeat(64);
        record(&tmp.path().join("base"), 1.0e-3, &blessed, "");
        let base = Baseline::load(&tmp.path().join("base")).unwrap();
        let runs = tmp.path().join("runs");
        let copies = tmp.path().join("copies");
        let used = run(&runs, "20261130T041704Z-93b90bf", 1.01e-3, &blessed, Some("1.0"), "");
        let offered = [
            used.clone(),
            run(&runs, "20261130T041801Z-93b90bf", 1.02e-3, &blessed, Some("1.02"), ""),
            run(&runs, "20261130T041900Z-93b90bf", 1.03e-3, &"b".repeat(64), Some("1"), ""),
            run(&copies, "20261130T041704Z-93b90bf", 1.01e-3, &blessed, Some("1"), ""),
            run(&copies, "20261130T042000Z-93b90bf", 1.04e-3, &blessed, None, ""),
            run(&runs, "20261130T042100Z-93b90bf", 1.10e-3, &blessed, Some("1"), "other processes (pids [42])"),
            run(&runs, "20261130T042200Z-93b90bf", 1.06e-3, &blessed, Some("1"), "").with_other_gpu(),
        ];
        let g = gather(&base, &offered).unwrap();
        let time = (T.to_string(), TIME_METRIC.to_string());
        assert_eq!(g.values[&time], vec![1.0e-3, 1.01e-3], "the blessed median, then the one usable record");
        let counter = (T.to_string(), "smsp__sass_inst_executed_op_global_ld.sum".to_string());
        assert_eq!(g.values[&counter], vec![1000.0, 1000.0], "counters are gathered alike");
        assert_eq!(
            (g.used, g.other_code, g.other_gpu),
            (4, 1, 1),
            "records of other code, another GPU or invalid trials are read, not used"
        );
        assert_eq!(g.unidentified, 0);
        assert_eq!(g.invalid.len(), 1);
        assert!(g.invalid[0].2.contains("pids [42]"), "{:?}", g.invalid);
        let why: Vec<String> = g.skipped.iter().map(|(_, w)| w.to_string()).collect();
        assert_eq!(why.len(), 3, "{why:?}");
        assert!(why[0].contains("KERNELGATE_WORK_SCALE=1.02"), "{why:?}");
        assert!(why[1].starts_with("the same run as ") && why[1].ends_with("20261130T041704Z-93b90bf-baseline"));
        assert!(why[2].starts_with("no run CSV"), "{why:?}");
        let err = gather(&base, std::slice::from_ref(&runs)).unwrap_err().to_string();
        assert!(err.contains("no baseline.csv here"), "{err}");
    }
}
