//! Run records, and two records in baseline form judged against each other trial by trial
//! (`kernelgate compare`).
//!
//! A run record is the `<stem>-baseline/` folder a run leaves beside its run CSV `<stem>.csv`: its
//! results in baseline form ([`Baseline`]). The record says which trials were measured under bad
//! conditions ([`super::baseline::Entry::invalid_reason`]); records written before that column
//! existed get it from the run CSV beside them (other processes on the GPU, more than 10 % of the
//! samples throttled). The run CSV also holds the run's work scale (power-benchmark runs).

use super::baseline::{BASELINE_FILE, Baseline, Entry};
use super::counters::{CounterBase, distinct_kernels};
use super::judge::{Base, Judged, Now, TimeUnit, judge};
use super::timing::Policy;
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A record in baseline form, with what the run CSV beside it adds.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// The record's entries, samples and spreads.
    pub record: Baseline,
    /// The run's `KERNELGATE_WORK_SCALE` from the run CSV beside the record (1 for run CSVs older
    /// than that column); `None` without a run CSV (a blessed baseline, or a record copied alone).
    pub work_scale: Option<f64>,
    /// The revision of a same-run A/B run (`KERNELGATE_AB`, the run CSV's `ab_revision`); `None`
    /// for other runs and without a run CSV. An A/B record's times were taken in pairs with
    /// another version of each kernel: not a run to bless or calibrate from.
    pub ab_revision: Option<String>,
    /// Invalid trials according to the run CSV, for records older than their own
    /// `invalid_reason` column.
    csv_invalid: BTreeMap<String, String>,
}

impl RunRecord {
    /// Loads the record (or baseline) folder `dir` and the run CSV beside it, if any.
    ///
    /// # Errors
    /// [`Error::Baseline`] naming the folder when it has no `baseline.csv`; what
    /// [`Baseline::load`] returns; [`Error::Csv`] or [`Error::Baseline`] naming the run CSV when it
    /// cannot be read or a value in it does not parse.
    pub fn load(dir: &Path) -> Result<RunRecord> {
        if !dir.join(BASELINE_FILE).is_file() {
            return Err(Error::Baseline {
                path: dir.to_path_buf(),
                line: None,
                message: format!(
                    "no {BASELINE_FILE} here: pass a baseline folder (baselines/<gpu-key>) or a run record (the \
                     <stem>-baseline folder a run leaves under target/kernelgate/runs/)"
                ),
            });
        }
        let record = Baseline::load(dir)?;
        let facts = match run_csv_beside(dir) {
            Some(csv) if csv.is_file() => read_run_csv(&csv)?,
            _ => RunCsvFacts::default(),
        };
        Ok(RunRecord {
            record,
            work_scale: facts.work_scale,
            ab_revision: facts.ab_revision,
            csv_invalid: facts.invalid,
        })
    }

    /// Why `trial`'s measurement in this record cannot be judged, if it cannot.
    pub fn invalid(&self, trial: &str) -> Option<&str> {
        self.record
            .time(trial)
            .map(|e| e.invalid_reason.as_str())
            .filter(|r| !r.is_empty())
            .or_else(|| self.csv_invalid.get(trial).map(String::as_str))
    }
}

/// `<runs>/<stem>.csv` for the record `<runs>/<stem>-baseline`.
fn run_csv_beside(record: &Path) -> Option<PathBuf> {
    let path = record.canonicalize().ok()?;
    let stem = path.file_name()?.to_str()?.strip_suffix("-baseline")?.to_string();
    Some(path.with_file_name(format!("{stem}.csv")))
}

/// What a run CSV says about its record.
#[derive(Debug, Default)]
struct RunCsvFacts {
    work_scale: Option<f64>,
    ab_revision: Option<String>,
    invalid: BTreeMap<String, String>,
}

/// The work scale, the A/B revision and the invalid trials of a run CSV (schema 2 and later: long
/// form, one row per trial and statistic). A trial is invalid when other processes computed on the
/// GPU (`other_processes`) or more than [`crate::measure::MAX_THROTTLED_FRACTION`] of its samples
/// were throttled (`throttled_samples` / `samples`).
fn read_run_csv(path: &Path) -> Result<RunCsvFacts> {
    let csv_error = |source| Error::Csv { path: path.to_path_buf(), source };
    let mut reader = csv::Reader::from_path(path).map_err(csv_error)?;
    let headers = reader.headers().map_err(csv_error)?.clone();
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (scale_col, trial_col, stat_col, value_col, others_col) =
        (col("work_scale"), col("trial"), col("statistic"), col("value"), col("other_processes"));
    let ab_col = col("ab_revision");
    let mut ab_revision = None;
    let mut scale = if scale_col.is_none() { Some(1.0) } else { None };
    let mut others: BTreeMap<String, String> = BTreeMap::new();
    let mut counts: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for (i, row) in reader.records().enumerate() {
        let row = row.map_err(csv_error)?;
        let line = i + 2;
        let field = |c: Option<usize>| c.and_then(|c| row.get(c)).unwrap_or_default();
        if let Some(c) = scale_col
            && scale.is_none()
        {
            let text = field(Some(c));
            scale = Some(text.parse().map_err(|_| Error::Baseline {
                path: path.to_path_buf(),
                line: Some(line),
                message: format!("column `work_scale` holds {text:?}, not a number"),
            })?);
        }
        if ab_revision.is_none() && !field(ab_col).is_empty() {
            ab_revision = Some(field(ab_col).to_string());
        }
        let trial = field(trial_col).to_string();
        if trial.is_empty() {
            continue;
        }
        let pids = field(others_col).trim();
        if !pids.is_empty() {
            others.insert(trial.clone(), pids.to_string());
        }
        let value = || field(value_col).parse::<f64>().unwrap_or(f64::NAN);
        match field(stat_col) {
            "samples" => counts.entry(trial).or_default().0 = value(),
            "throttled_samples" => counts.entry(trial).or_default().1 = value(),
            _ => {}
        }
    }
    let mut invalid: BTreeMap<String, String> = others
        .into_iter()
        .map(|(t, pids)| (t, format!("other processes computed on the GPU (pids {pids}; from the run CSV)")))
        .collect();
    for (trial, (n, throttled)) in counts {
        if throttled > crate::model::MAX_THROTTLED_FRACTION * n && !invalid.contains_key(&trial) {
            invalid.insert(trial, format!("{throttled} of {n} samples throttled (power or thermal; from the run CSV)"));
        }
    }
    Ok(RunCsvFacts { work_scale: scale.or(Some(1.0)), ab_revision, invalid })
}

/// What tells two GPUs apart, as recorded with an entry.
fn identity(e: &Entry) -> String {
    if e.gpu_uuid.is_empty() {
        "unknown (recorded before kernelgate kept GPU UUIDs)".into()
    } else {
        e.gpu_uuid.clone()
    }
}

/// How `kernelgate compare` judges two records.
#[derive(Clone, Copy)]
pub struct CompareOptions<'a> {
    /// The gate's policy.
    pub policy: Policy,
    /// Multiply the run's samples by this (power estimates; 1.0 compares as measured).
    pub scale: f64,
    /// Compare SM cycles (seconds x each record's median SM clock) instead of seconds.
    pub cycles: bool,
    /// Why a trial is host-bound, by name, when it is (the project's case facts:
    /// [`crate::case::facts::Facts::host_bound`]); `None` knows none. A host-bound trial without a
    /// calibrated run-to-run floor in `base` gets [`super::host_bound_verdict`]: its change is shown
    /// and does not gate.
    pub host_bound: Option<HostBound<'a>>,
}

/// Why a trial's time is not the kernel's, if it is not (the project's
/// [`crate::case::Case::host_bound`], by trial name; `kernelgate history gate` passes
/// [`crate::case::facts::Facts::host_bound`]): its change points and `invalid` verdicts are listed
/// and do not gate.
pub type HostBound<'a> = &'a dyn Fn(&str) -> Option<String>;

impl std::fmt::Debug for CompareOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompareOptions")
            .field("policy", &self.policy)
            .field("scale", &self.scale)
            .field("cycles", &self.cycles)
            .field("host_bound", &self.host_bound.map(|_| "Fn(&str) -> Option<String>"))
            .finish()
    }
}

/// What [`compare_records`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    /// Per common trial, sorted by trial: the judgement.
    pub rows: Vec<(String, Judged)>,
    /// Differences between the two records' GPUs, drivers and clocks that do not refuse the
    /// comparison but bear on it: one sentence each.
    pub warnings: Vec<String>,
    /// Trials in only one of the two records (or without a time entry and samples in one), sorted.
    pub only_in_one: Vec<String>,
}

/// Judges every trial with a time entry and samples in both records, `run`'s against `base`'s,
/// through [`judge`] with `tests` = the number of trials compared. `scale` 1.0 compares as
/// measured; 1.02 applies a synthetic 2 % slowdown to real samples, to estimate the gate's power
/// against the runner's real run-to-run noise (an estimate: a kernel that really does 2 % more work
/// need not slow down uniformly). The effect floor comes from `base`'s run-to-run spread where it
/// has a usable one, `delta` from the two records' full-run medians, and counters of both records
/// are compared as in a run.
///
/// The GPUs are checked per trial (field report 07): another model or compute capability refuses
/// the comparison; another physical GPU, driver, CUDA version or SM clock (more than 1 % apart) is
/// a warning, and with `cycles` the clocks are compared out.
///
/// # Errors
/// [`Error::Compare`] when no trial is in both records, or a trial was measured on another GPU
/// model; [`crate::Error::Samples`] naming the trial when `scale` is not positive and finite or a
/// sample is unusable.
pub fn compare_records(base: &RunRecord, run: &RunRecord, options: &CompareOptions) -> Result<Compared> {
    let scale = options.scale;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(Error::Samples(format!("scale {scale} is not a positive finite number")));
    }
    let (b, r) = (&base.record, &run.record);
    let common: Vec<&str> = r
        .trials()
        .into_iter()
        .filter(|t| b.time(t).is_some() && r.time(t).is_some() && b.samples(t).is_some() && r.samples(t).is_some())
        .collect();
    let all: std::collections::BTreeSet<&str> = b.trials().into_iter().chain(r.trials()).collect();
    if common.is_empty() {
        return Err(Error::Compare(format!(
            "no trial has a time entry and samples in both {} ({}) and {} ({}): nothing to compare; pass two \
             records of the same suite",
            b.dir.display(),
            crate::units::count(b.trials().len(), "trial"),
            r.dir.display(),
            crate::units::count(r.trials().len(), "trial")
        )));
    }
    let mut warnings = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut warn = |w: String| {
        if seen.insert(w.clone()) {
            warnings.push(w);
        }
    };
    for t in &common {
        let (eb, er) = (b.time(t).expect("common"), r.time(t).expect("common"));
        if eb.gpu_name != er.gpu_name || eb.compute_capability != er.compute_capability {
            return Err(Error::Compare(format!(
                "trial {t} was measured on {} (compute capability {}) in {} and on {} (compute capability {}) in {}: \
                 times of different GPU models are not comparable; compare records of one GPU key",
                eb.gpu_name,
                eb.compute_capability,
                b.dir.display(),
                er.gpu_name,
                er.compute_capability,
                r.dir.display()
            )));
        }
        let machines = "medians of one kernel differed by -5.8 to +2.9 % between two H200s, \
                        baselines/nvidia-h200-sm90/BENCHMARK.md";
        if eb.gpu_uuid.is_empty() && er.gpu_uuid.is_empty() {
            warn(format!(
                "neither record names its physical GPU (recorded before kernelgate kept GPU UUIDs): they may come \
                 from two machines of the same model ({machines})"
            ));
        } else if eb.gpu_uuid != er.gpu_uuid {
            warn(format!(
                "another physical GPU: base {} vs run {} (same model; {machines})",
                identity(eb),
                identity(er)
            ));
        }
        if eb.driver != er.driver || eb.cuda != er.cuda {
            warn(format!(
                "another driver: base {} (CUDA {}) vs run {} (CUDA {})",
                eb.driver, eb.cuda, er.driver, er.cuda
            ));
        }
        if let (Some(cb), Some(cr)) = (eb.sm_clock_mhz, er.sm_clock_mhz)
            && (cr / cb - 1.0).abs() > 0.01
        {
            let hint = if options.cycles {
                "compared in cycles"
            } else {
                "times scale with the clock; --cycles compares cycles"
            };
            warn(format!("another SM clock: base {cb} MHz vs run {cr} MHz ({:+.1}%): {hint}", 100.0 * (cr / cb - 1.0)));
        }
    }
    let tests = common.len();
    let unit = if options.cycles { TimeUnit::Cycles } else { TimeUnit::Seconds };
    let mut rows = Vec::new();
    for trial in &common {
        let (eb, er) = (b.time(trial).expect("common"), r.time(trial).expect("common"));
        // Seconds, or cycles at each record's median SM clock (approximate: one clock per record).
        let (fb, fr) = if options.cycles {
            match (eb.sm_clock_mhz, er.sm_clock_mhz) {
                (Some(cb), Some(cr)) => (cb * 1e6, cr * 1e6),
                _ => {
                    return Err(Error::Compare(format!(
                        "--cycles needs the SM clock of trial {trial} in both records; one lacks it"
                    )));
                }
            }
        } else {
            (1.0, 1.0)
        };
        let base_samples: Vec<f64> = b.samples(trial).expect("common").iter().map(|s| s * fb).collect();
        let run_samples: Vec<f64> = r.samples(trial).expect("common").iter().map(|s| s * fr * scale).collect();
        let counters: Vec<CounterBase<'_>> = b
            .counters(trial)
            .map(|e| CounterBase {
                metric: &e.metric,
                value: e.median,
                rsd: b.spread(trial, &e.metric).map(|s| s.rsd),
                kernels: distinct_kernels(&e.kernel),
            })
            .collect();
        let run_counters: BTreeMap<String, f64> = r.counters(trial).map(|e| (e.metric.clone(), e.median)).collect();
        let reference = Base {
            samples: &base_samples,
            median: eb.median * fb,
            spread: b.run_to_run(trial).map(|s| (s.rsd, s.runs)),
            counters,
            invalid: base.invalid(trial),
        };
        let now = Now {
            samples: &run_samples,
            median: Some(er.median * fr * scale),
            invalid: run.invalid(trial),
            counters: (!run_counters.is_empty()).then_some(&run_counters),
        };
        let mut judged = judge(&now, Some(&reference), &options.policy, tests, unit)
            .map_err(|e| Error::Samples(format!("{trial}: {e}")))?;
        if b.run_to_run(trial).is_none()
            && let Some(why) = options.host_bound.and_then(|f| f(trial))
        {
            judged = super::host_bound_verdict(judged, &why);
        }
        rows.push((trial.to_string(), judged));
    }
    let only_in_one = all.iter().filter(|t| !common.contains(t)).map(|t| t.to_string()).collect();
    Ok(Compared { rows, warnings, only_in_one })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::baseline::TIME_METRIC;
    use crate::gate::baseline::tests::{entry, save};
    use crate::gate::timing::Verdict;

    /// A record in `dir` with `trials`, 200 jittered samples around 100 us each.
    fn record(dir: &Path, trials: &[&str], edit: impl Fn(&mut Entry)) -> RunRecord {
        let jitter = |i: usize| 1e-4 * (1.0 + 0.001 * ((i * 7919) % 13) as f64);
        let mut b = Baseline::empty(dir);
        let entries = trials
            .iter()
            .map(|t| {
                let mut e = entry(t, TIME_METRIC, jitter(0));
                e.median = 1e-4 * 1.006;
                edit(&mut e);
                e
            })
            .collect();
        let samples = trials.iter().map(|t| (t.to_string(), (0..200).map(jitter).collect())).collect();
        b.bless(entries, samples);
        save(&b).unwrap();
        RunRecord::load(dir).unwrap()
    }

    fn options(scale: f64) -> CompareOptions<'static> {
        CompareOptions { policy: Policy::default(), scale, cycles: false, host_bound: None }
    }

    #[test]
    fn records_compare_trial_by_trial_and_scale_for_power() {
        let tmp = tempfile::tempdir().unwrap();
        let base = record(&tmp.path().join("a"), &["a/x/1", "a/y/1"], |_| {});
        let run = record(&tmp.path().join("b"), &["a/x/1", "b/z/1"], |_| {});
        let same = compare_records(&base, &run, &options(1.0)).unwrap();
        assert_eq!(same.rows.len(), 1, "only trials in both records");
        assert_eq!((same.rows[0].0.as_str(), same.rows[0].1.verdict), ("a/x/1", Verdict::Unchanged));
        assert_eq!(same.only_in_one, ["a/y/1", "b/z/1"], "named, sorted");
        assert!(same.warnings.is_empty(), "{:?}", same.warnings);
        let slower = compare_records(&base, &run, &options(1.05)).unwrap();
        assert_eq!(slower.rows[0].1.verdict, Verdict::Regressed);
        assert!((slower.rows[0].1.comparison.as_ref().unwrap().delta - 0.05).abs() < 1e-9);
        assert!(compare_records(&base, &run, &options(0.0)).is_err());
        // Nothing in common is an error, not a pass.
        let other = record(&tmp.path().join("c"), &["c/c/1"], |_| {});
        let e = compare_records(&base, &other, &options(1.0)).unwrap_err().to_string();
        assert!(e.contains("nothing to compare"), "{e}");
    }

    #[test]
    fn a_host_bound_trial_without_a_calibrated_floor_is_shown_and_does_not_gate() {
        fn host_bound(trial: &str) -> Option<String> {
            (trial == "t/pageable/1").then(|| "t/pageable/1 copies pageable host memory".to_string())
        }
        let tmp = tempfile::tempdir().unwrap();
        let base = record(&tmp.path().join("a"), &["t/pageable/1", "t/pinned/1"], |_| {});
        let run = record(&tmp.path().join("b"), &["t/pageable/1", "t/pinned/1"], |_| {});
        let slower = CompareOptions { host_bound: Some(&host_bound), ..options(1.08) };
        let rows = compare_records(&base, &run, &slower).unwrap().rows;
        assert_eq!((rows[0].0.as_str(), rows[0].1.verdict), ("t/pageable/1", Verdict::Ambiguous));
        assert!(rows[0].1.reason.starts_with("regressed (") && rows[0].1.reason.contains("does not gate"));
        assert_eq!((rows[1].0.as_str(), rows[1].1.verdict), ("t/pinned/1", Verdict::Regressed), "not host-bound");
        // Calibrated, it gates past its run-to-run floor like any trial.
        let mut calibrated = base.clone();
        for t in ["t/pageable/1", "t/pinned/1"] {
            let module_sha256 = calibrated.record.time(t).unwrap().module_sha256.clone();
            calibrated.record.run_to_run.insert(
                (t.to_string(), TIME_METRIC.to_string()),
                crate::gate::baseline::RunToRun {
                    trial: t.to_string(),
                    metric: TIME_METRIC.to_string(),
                    module_sha256,
                    runs: 10,
                    rsd: 0.002,
                    date: "2026-12-01T00:00:00Z".into(),
                },
            );
        }
        let rows = compare_records(&calibrated, &run, &slower).unwrap().rows;
        assert_eq!(rows[0].1.verdict, Verdict::Regressed);
    }

    #[test]
    fn another_model_is_refused_and_another_gpu_or_clock_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let base = record(&tmp.path().join("a"), &["a/x/1"], |_| {});
        let a100 = record(&tmp.path().join("b"), &["a/x/1"], |e| {
            e.gpu_name = "NVIDIA A100-SXM4-80GB".into();
            e.compute_capability = "8.0".into();
        });
        let e = compare_records(&base, &a100, &options(1.0)).unwrap_err().to_string();
        assert!(e.contains("NVIDIA A100-SXM4-80GB (compute capability 8.0)") && e.contains("not comparable"), "{e}");
        let other = record(&tmp.path().join("c"), &["a/x/1"], |e| {
            e.gpu_uuid = "GPU-2da622ba".into();
            e.sm_clock_mhz = Some(1590.0);
            e.driver = "590.1".into();
        });
        let c = compare_records(&base, &other, &options(1.0)).unwrap();
        let w = c.warnings.join("\n");
        assert!(w.contains("another physical GPU: base GPU-20ce1a7a") && w.contains("run GPU-2da622ba"), "{w}");
        assert!(w.contains("another SM clock: base 1980 MHz vs run 1590 MHz (-19.7%)"), "{w}");
        assert!(w.contains("another driver: base 580.159.04"), "{w}");
        // In cycles, a run at a lower clock that took proportionally longer is unchanged.
        let slow_clock = record(&tmp.path().join("d"), &["a/x/1"], |e| e.sm_clock_mhz = Some(990.0));
        let mut doubled = slow_clock.clone();
        for s in doubled.record.samples.values_mut() {
            s.iter_mut().for_each(|x| *x *= 2.0);
        }
        doubled.record.entries.iter_mut().for_each(|e| e.median *= 2.0);
        let by_time = compare_records(&base, &doubled, &options(1.0)).unwrap();
        assert_eq!(by_time.rows[0].1.verdict, Verdict::Regressed);
        let by_cycles = compare_records(&base, &doubled, &CompareOptions { cycles: true, ..options(1.0) }).unwrap();
        assert_eq!(by_cycles.rows[0].1.verdict, Verdict::Unchanged, "{}", by_cycles.rows[0].1.reason);
    }

    #[test]
    fn invalid_records_are_judged_invalid_from_their_column_or_their_run_csv() {
        let tmp = tempfile::tempdir().unwrap();
        let base = record(&tmp.path().join("base"), &["a/x/1", "a/y/1"], |_| {});
        let marked = record(&tmp.path().join("r1-baseline"), &["a/x/1", "a/y/1"], |e| {
            if e.trial == "a/x/1" {
                e.invalid_reason = "other processes computed on the GPU (pids [7])".into();
            }
        });
        let c = compare_records(&base, &marked, &options(1.0)).unwrap();
        assert_eq!(c.rows[0].1.verdict, Verdict::Invalid);
        assert!(c.rows[0].1.reason.contains("pids [7]"));
        assert_eq!(c.rows[1].1.verdict, Verdict::Unchanged, "the other trial is still judged");
        // A record from before the column: the run CSV beside it says which trial shared the GPU.
        let dir = tmp.path().join("r2-baseline");
        record(&dir, &["a/x/1", "a/y/1"], |_| {});
        std::fs::write(
            tmp.path().join("r2.csv"),
            "schema_version,work_scale,trial,other_processes,statistic,value\n3,1,a/y/1,4242 4243,median,1e-4\n\
             3,1,a/x/1,,samples,100\n3,1,a/x/1,,throttled_samples,20\n",
        )
        .unwrap();
        let legacy = RunRecord::load(&dir).unwrap();
        assert_eq!(legacy.work_scale, Some(1.0));
        assert!(legacy.invalid("a/y/1").unwrap().contains("pids 4242 4243"));
        assert!(legacy.invalid("a/x/1").unwrap().contains("20 of 100 samples throttled"));
        let c = compare_records(&base, &legacy, &options(1.0)).unwrap();
        assert!(c.rows.iter().all(|(_, j)| j.verdict == Verdict::Invalid));
    }
}
