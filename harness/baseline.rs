//! Per-GPU baselines on disk: what a later run is compared against.
//!
//! One folder per GPU under the project root, `baselines/<gpu-key>/` (the key is
//! [`crate::gpu::gpu_key`], e.g. `nvidia-h200-sm90`), holding two CSV files:
//!
//! - `baseline.csv`: one row per trial and metric ([`Entry`], columns [`ENTRY_COLUMNS`]). The
//!   metric `time` is the timing entry (unit `s`); every other metric is an ncu metric name,
//!   verbatim, or a derived metric name, stored with n = 1, median = mean = min = the value and
//!   mad = stddev = 0.
//! - `samples.csv`: the raw timing samples kept for the two-sample test, one row per sample
//!   (columns [`SAMPLE_COLUMNS`]); at most about a thousand per trial, chosen by the caller.
//! - `run_to_run.csv` (optional; written by `kernelgate baseline calibrate`): per trial, how much
//!   the median of the blessed code moves between runs ([`RunToRun`], columns
//!   [`RUN_TO_RUN_COLUMNS`]); when present, the gate's effect floor comes from it
//!   (`crate::compare::Policy::run_to_run_floor`).
//!
//! All carry a `schema_version` column ([`BASELINE_SCHEMA`]). Rows are written sorted by
//! (trial, metric) and (trial, index), and numbers in their shortest round-trip form, so a save
//! that changes one trial changes only that trial's lines. A file that cannot be read is an error
//! naming the file, the line and the fix, and is never rewritten: [`Baseline::load`] only reads,
//! and [`Baseline::save`] replaces each file whole by renaming a finished temporary file over it.

use crate::{Error, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Version of the columns of `baseline.csv` and `samples.csv`; bumped when a column changes
/// meaning. A file of another version is refused by [`Baseline::load`].
pub const BASELINE_SCHEMA: u32 = 1;

/// The folder under the project root that holds one folder per GPU key.
pub const BASELINES_DIR: &str = "baselines";

/// File name of the entries, in a GPU's baseline folder.
pub const BASELINE_FILE: &str = "baseline.csv";

/// File name of the kept timing samples, in a GPU's baseline folder.
pub const SAMPLES_FILE: &str = "samples.csv";

/// File name of the run-to-run spreads, in a GPU's baseline folder.
pub const RUN_TO_RUN_FILE: &str = "run_to_run.csv";

/// Columns of `run_to_run.csv`, in order: the field names of [`RunToRun`].
pub const RUN_TO_RUN_COLUMNS: [&str; 6] = ["schema_version", "trial", "module_sha256", "runs", "median_rsd", "date"];

/// Fewest runs of the blessed code a run-to-run spread must come from to be used (10). The sample
/// standard deviation of n values has a relative standard error of about `1 / sqrt(2 (n - 1))`:
/// 24 % at n = 10. 10 is also what the H200 benchmark calibrated from and checked
/// (baselines/nvidia-h200-sm90/BENCHMARK.md).
pub const MIN_RUNS: u64 = 10;

/// The metric name of the timing entry (unit `s`).
pub const TIME_METRIC: &str = "time";

/// Columns of `baseline.csv`, in order: the field names of [`Entry`].
pub const ENTRY_COLUMNS: [&str; 22] = [
    "schema_version",
    "trial",
    "kernel",
    "metric",
    "unit",
    "n",
    "median",
    "mad",
    "mean",
    "stddev",
    "min",
    "commit",
    "date",
    "module_sha256",
    "sm_clock_mhz",
    "gpu_name",
    "compute_capability",
    "sm_count",
    "memory_mib",
    "driver",
    "cuda",
    "ecc",
];

/// Columns of `samples.csv`, in order.
pub const SAMPLE_COLUMNS: [&str; 4] = ["schema_version", "trial", "index", "seconds"];

/// What to do about a damaged row; `PATH` is replaced by the file's path.
const FIX_ROW: &str = "restore the file from git (`git checkout -- PATH`), or delete the trial's rows and re-bless it \
                       with KERNELGATE_BLESS=1";

/// What to do about a file that is damaged as a whole (header, encoding); `PATH` as above.
const FIX_FILE: &str = "restore the file from git (`git checkout -- PATH`), or delete this folder's baseline.csv and \
                        samples.csv and re-bless with KERNELGATE_BLESS=1";

/// One row of `baseline.csv`: one metric of one trial, with where and when it was measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// [`BASELINE_SCHEMA`].
    pub schema_version: u32,
    /// Trial name, `family/variant/size`.
    pub trial: String,
    /// Entry point launched.
    pub kernel: String,
    /// [`TIME_METRIC`] for the timing entry; otherwise an ncu metric name, verbatim, or a derived
    /// metric name (`crate::ncu::metrics`).
    pub metric: String,
    /// Unit of the values: `s` for time; ncu's base unit for counters (may be empty).
    pub unit: String,
    /// Number of samples the statistics come from; 1 for a counter.
    pub n: u64,
    /// Median, in `unit`; a counter's value.
    pub median: f64,
    /// Median absolute deviation from the median (unscaled), in `unit`; 0 for a counter.
    pub mad: f64,
    /// Arithmetic mean, in `unit`; a counter's value.
    pub mean: f64,
    /// Sample standard deviation, in `unit`; 0 for a counter.
    pub stddev: f64,
    /// Smallest sample, in `unit`; a counter's value.
    pub min: f64,
    /// Full hex id of the git commit measured (`unknown` when git could not be read).
    pub commit: String,
    /// When it was blessed, UTC, RFC 3339 (`2026-11-30T03:22:13Z`; see [`utc_now`]).
    pub date: String,
    /// SHA-256 of the compiled PTX of the kernel's module, hex.
    pub module_sha256: String,
    /// Median SM clock during the samples, MHz; `None` (an empty field) if unknown.
    pub sm_clock_mhz: Option<f64>,
    /// Device name (`NVIDIA H200`).
    pub gpu_name: String,
    /// Compute capability, `major.minor` (`9.0`).
    pub compute_capability: String,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Device memory, MiB.
    pub memory_mib: u64,
    /// Kernel driver version (NVML).
    pub driver: String,
    /// CUDA version the driver supports, `major.minor`.
    pub cuda: String,
    /// ECC enabled.
    pub ecc: bool,
}

impl Entry {
    /// Whether this is the timing entry (metric [`TIME_METRIC`]).
    pub fn is_time(&self) -> bool {
        self.metric == TIME_METRIC
    }
}

/// The current time, UTC, in the RFC 3339 form [`Entry::date`] holds (`2026-11-30T03:22:13Z`).
pub fn utc_now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A value with its unit, as people read it: seconds (unit `s`) through
/// [`crate::report::duration`] (`968.8 us`); any other unit as the plain number and the unit
/// (`268435456 byte`, or the number alone for an empty unit).
pub fn format_value(value: f64, unit: &str) -> String {
    match unit {
        "s" => crate::report::duration(value),
        "" => significant(value),
        _ => format!("{} {unit}", significant(value)),
    }
}

/// `value` with at most 6 significant digits, trailing zeros dropped (`32.4617`, `0.5`); whole
/// numbers in full (`268435456`). For people: the CSV files keep every digit.
fn significant(value: f64) -> String {
    if !value.is_finite() || (value.fract() == 0.0 && value.abs() < 1e15) {
        return format!("{value}");
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = usize::try_from(5 - magnitude).unwrap_or(0);
    let text = format!("{value:.decimals$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

/// One row of `run_to_run.csv`: how much one trial's median moved between runs of the blessed code.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunToRun {
    /// [`BASELINE_SCHEMA`].
    pub schema_version: u32,
    /// Trial name.
    pub trial: String,
    /// The module hash of the runs it comes from: the time entry's [`Entry::module_sha256`] when
    /// calibrated. A later bless of other code makes the row stale ([`Baseline::run_to_run`]).
    pub module_sha256: String,
    /// Runs the spread comes from (the blessed run and the run records given).
    pub runs: u64,
    /// Relative standard deviation of those runs' medians: sample stddev / mean, a fraction.
    pub median_rsd: f64,
    /// When it was calibrated, UTC, RFC 3339.
    pub date: String,
}

/// One GPU's baseline: the entries of `<dir>/baseline.csv`, the samples of `<dir>/samples.csv` and
/// the run-to-run spreads of `<dir>/run_to_run.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// The GPU's folder, `<project root>/baselines/<gpu-key>` ([`Baseline::dir_for`]).
    pub dir: PathBuf,
    /// Every entry, sorted by (trial, metric) after [`Baseline::load`] and [`Baseline::bless`].
    pub entries: Vec<Entry>,
    /// Kept timing samples per trial, seconds, in the order measured; only trials with a time
    /// entry, and no empty lists.
    pub samples: BTreeMap<String, Vec<f64>>,
    /// Run-to-run spread per trial (`run_to_run.csv`); only trials with a time entry.
    pub run_to_run: BTreeMap<String, RunToRun>,
}

/// A metric of a trial whose value changed, appeared or disappeared, by a bless or a removal.
///
/// Displays as `transpose/naive/8192x8192 time: 968.8 us -> 960.0 us (-0.9%)`,
/// `... time: new 960.0 us` or `... time: removed` (values through [`format_value`]; no
/// percentage when the old value is 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Trial name.
    pub trial: String,
    /// Metric name ([`Entry::metric`]).
    pub metric: String,
    /// Unit of both values (the new entry's, or the removed one's).
    pub unit: String,
    /// Median before; `None` for a new metric.
    pub before: Option<f64>,
    /// Median after; `None` for a removed metric.
    pub after: Option<f64>,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: ", self.trial, self.metric)?;
        let value = |v: f64| format_value(v, &self.unit);
        match (self.before, self.after) {
            (Some(b), Some(a)) if b != 0.0 => {
                write!(f, "{} -> {} ({:+.1}%)", value(b), value(a), 100.0 * (a - b) / b)
            }
            (Some(b), Some(a)) => write!(f, "{} -> {}", value(b), value(a)),
            (None, Some(a)) => write!(f, "new {}", value(a)),
            (Some(_), None) => write!(f, "removed"),
            (None, None) => write!(f, "absent"),
        }
    }
}

impl Baseline {
    /// The folder for a GPU key under the project root: `<root>/baselines/<gpu_key>`.
    pub fn dir_for(root: &Path, gpu_key: &str) -> PathBuf {
        root.join(BASELINES_DIR).join(gpu_key)
    }

    /// A baseline with no entries and no samples, for `dir`.
    pub fn empty(dir: impl Into<PathBuf>) -> Baseline {
        Baseline { dir: dir.into(), entries: Vec::new(), samples: BTreeMap::new(), run_to_run: BTreeMap::new() }
    }

    /// Loads `<dir>/baseline.csv` and `<dir>/samples.csv`. A missing folder or missing files are
    /// an empty baseline, not an error. Entries come back sorted by (trial, metric). Nothing is
    /// ever written.
    ///
    /// # Errors
    /// [`Error::Io`] if a file exists but cannot be read. [`Error::Baseline`] naming the file and
    /// the 1-based line, with the fix, if a file is corrupt: not CSV, empty, a header other than
    /// [`ENTRY_COLUMNS`] / [`SAMPLE_COLUMNS`], a row with too few or too many fields, a value that
    /// does not parse, NaN or infinity in a numeric column, an empty trial or metric, a date that
    /// is not RFC 3339, a (trial, metric) pair twice, samples of a trial with no time entry, sample
    /// indices out of sequence, or a sample that is not a positive number of seconds; or if its
    /// `schema_version` is not [`BASELINE_SCHEMA`].
    pub fn load(dir: &Path) -> Result<Baseline> {
        let entries_path = dir.join(BASELINE_FILE);
        let samples_path = dir.join(SAMPLES_FILE);
        let mut entries = match read_if_present(&entries_path)? {
            Some(bytes) => parse_entries(&bytes, &entries_path)?,
            None => Vec::new(),
        };
        entries.sort_by(|a, b| (&a.trial, &a.metric).cmp(&(&b.trial, &b.metric)));
        let timed: BTreeSet<&str> = entries.iter().filter(|e| e.is_time()).map(|e| e.trial.as_str()).collect();
        let samples = match read_if_present(&samples_path)? {
            Some(bytes) => parse_samples(&bytes, &samples_path, &timed)?,
            None => BTreeMap::new(),
        };
        let spread_path = dir.join(RUN_TO_RUN_FILE);
        let run_to_run = match read_if_present(&spread_path)? {
            Some(bytes) => parse_run_to_run(&bytes, &spread_path, &timed)?,
            None => BTreeMap::new(),
        };
        Ok(Baseline { dir: dir.to_path_buf(), entries, samples, run_to_run })
    }

    /// The run-to-run spread of `trial`'s median, when it can be used: calibrated from at least
    /// [`MIN_RUNS`] runs of the code blessed now (its module hash equals the time entry's).
    pub fn run_to_run(&self, trial: &str) -> Option<&RunToRun> {
        let time = self.time(trial)?;
        self.run_to_run.get(trial).filter(|r| r.runs >= MIN_RUNS && r.module_sha256 == time.module_sha256)
    }

    /// Sets the run-to-run spread of each trial in `medians` (trial -> medians of runs of its
    /// blessed code, seconds; the caller includes the blessed median and checks module hashes)
    /// that has a time entry and at least [`MIN_RUNS`] medians; replaces what was there. Returns
    /// how many trials were set, and one line per trial: what was set, or why not.
    pub fn calibrate(&mut self, medians: &BTreeMap<String, Vec<f64>>) -> (usize, Vec<String>) {
        let mut set = 0;
        let date = utc_now();
        let mut said = Vec::new();
        for (trial, ms) in medians {
            let Some(time) = self.time(trial) else {
                said.push(format!("{trial}: not calibrated: no time entry in this baseline"));
                continue;
            };
            if (ms.len() as u64) < MIN_RUNS {
                let runs = if ms.len() == 1 { "1 run".to_string() } else { format!("{} runs", ms.len()) };
                said.push(format!("{trial}: not calibrated: {runs} of the blessed code, {MIN_RUNS} needed"));
                continue;
            }
            let rsd = crate::stats::relative_stddev(ms);
            let before = self
                .run_to_run
                .get(trial)
                .map_or_else(String::new, |r| format!(" (was {:.3}% over {} runs)", 100.0 * r.median_rsd, r.runs));
            said.push(format!("{trial}: median moves {:.3}% between {} runs{before}", 100.0 * rsd, ms.len()));
            let row = RunToRun {
                schema_version: BASELINE_SCHEMA,
                trial: trial.clone(),
                module_sha256: time.module_sha256.clone(),
                runs: ms.len() as u64,
                median_rsd: rsd,
                date: date.clone(),
            };
            self.run_to_run.insert(trial.clone(), row);
            set += 1;
        }
        (set, said)
    }

    /// The timing entry of `trial` (metric [`TIME_METRIC`]).
    pub fn time(&self, trial: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.trial == trial && e.is_time())
    }

    /// The counter entries of `trial` (every metric but [`TIME_METRIC`]), sorted by metric.
    pub fn counters<'a>(&'a self, trial: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries.iter().filter(move |e| e.trial == trial && !e.is_time())
    }

    /// The kept timing samples of `trial`, seconds.
    pub fn samples(&self, trial: &str) -> Option<&[f64]> {
        self.samples.get(trial).map(Vec::as_slice)
    }

    /// Every trial with an entry, sorted, each once.
    pub fn trials(&self) -> Vec<&str> {
        let set: BTreeSet<&str> = self.entries.iter().map(|e| e.trial.as_str()).collect();
        set.into_iter().collect()
    }

    /// Replaces every entry and the samples of each trial present in `entries` with the given
    /// ones; trials not mentioned are untouched (byte for byte after [`Baseline::save`]). A
    /// mentioned trial missing from `samples` (or with an empty list there) keeps no samples.
    /// Returns the changes, one per metric whose value (median) changed, appeared or disappeared,
    /// sorted by trial then metric; unchanged values produce no [`Change`].
    ///
    /// Nothing is checked here; [`Baseline::save`] refuses a baseline it could not load back (a
    /// NaN value, a (trial, metric) pair twice, samples without a time entry).
    ///
    /// # Panics
    /// If `samples` holds a trial that has no entry in `entries` (a caller's bug: those samples
    /// would replace another trial's).
    pub fn bless(&mut self, entries: Vec<Entry>, samples: BTreeMap<String, Vec<f64>>) -> Vec<Change> {
        let blessed: BTreeSet<String> = entries.iter().map(|e| e.trial.clone()).collect();
        if let Some(stray) = samples.keys().find(|t| !blessed.contains(*t)) {
            panic!("Baseline::bless: samples given for trial {stray}, which has no entry among those blessed");
        }
        let (before, kept): (Vec<Entry>, Vec<Entry>) =
            std::mem::take(&mut self.entries).into_iter().partition(|e| blessed.contains(&e.trial));
        let changes = changes(&before, &entries);
        self.entries = kept;
        self.entries.extend(entries);
        self.entries.sort_by(|a, b| (&a.trial, &a.metric).cmp(&(&b.trial, &b.metric)));
        self.samples.retain(|t, _| !blessed.contains(t));
        self.samples.extend(samples.into_iter().filter(|(_, s)| !s.is_empty()));
        changes
    }

    /// Removes every entry and the samples of the given trials; returns the changes (each removed
    /// metric, sorted by trial then metric). A trial that is not there is skipped.
    pub fn remove(&mut self, trials: &[String]) -> Vec<Change> {
        let gone: BTreeSet<&str> = trials.iter().map(String::as_str).collect();
        let (before, kept): (Vec<Entry>, Vec<Entry>) =
            std::mem::take(&mut self.entries).into_iter().partition(|e| gone.contains(e.trial.as_str()));
        self.entries = kept;
        self.samples.retain(|t, _| !gone.contains(t.as_str()));
        self.run_to_run.retain(|t, _| !gone.contains(t.as_str()));
        changes(&before, &[])
    }

    /// Writes both files, creating the folder: rows sorted by (trial, metric) and (trial, index),
    /// numbers in their shortest round-trip form, so diffs are stable. Each file is written to a
    /// temporary file in the same folder, flushed to disk, then renamed over the old one, so no
    /// reader ever sees a half-written file; a file whose content is unchanged is not rewritten.
    /// The two renames are not one atomic step: a crash between them leaves a new `baseline.csv`
    /// beside the old `samples.csv`.
    ///
    /// # Errors
    /// [`Error::Baseline`] (and nothing written) if the baseline could not be loaded back: an
    /// entry of another schema version, with an empty trial or metric, n = 0, a non-finite number
    /// or a date that is not RFC 3339; a (trial, metric) pair twice; samples of a trial with no
    /// time entry, or a sample that is not a positive finite number of seconds. [`Error::Io`] if
    /// the folder or a file cannot be written; [`Error::Csv`] if a row cannot be serialized.
    pub fn save(&self) -> Result<()> {
        let entries_path = self.dir.join(BASELINE_FILE);
        let samples_path = self.dir.join(SAMPLES_FILE);
        self.check(&entries_path, &samples_path)?;
        let spread_path = self.dir.join(RUN_TO_RUN_FILE);
        let entries_csv = self.entries_csv(&entries_path)?;
        let samples_csv = self.samples_csv(&samples_path)?;
        let spread_csv = self.run_to_run_csv(&spread_path)?;
        std::fs::create_dir_all(&self.dir).map_err(Error::io(&self.dir))?;
        // Every temporary file is complete before any rename, so a full disk or a write error
        // changes nothing. No run_to_run.csv is created for a baseline that never had one.
        let staged = [
            Staged::write(&entries_path, &entries_csv)?,
            Staged::write(&samples_path, &samples_csv)?,
            if self.run_to_run.is_empty() && !spread_path.exists() {
                None
            } else {
                Staged::write(&spread_path, &spread_csv)?
            },
        ];
        for s in staged.into_iter().flatten() {
            s.commit()?;
        }
        // Make the renames durable where the platform allows opening a folder (not on Windows).
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Refuses what [`Baseline::load`] would refuse, naming the trial and metric.
    fn check(&self, entries_path: &Path, samples_path: &Path) -> Result<()> {
        let refuse = |path: &Path, message: String| Error::Baseline {
            path: path.to_path_buf(),
            line: None,
            message: format!("not saved: {message}"),
        };
        let mut seen = BTreeSet::new();
        for e in &self.entries {
            if e.schema_version != BASELINE_SCHEMA {
                let message = format!(
                    "trial {} metric {} has schema_version {}, but this kernelgate writes {BASELINE_SCHEMA}; \
                     build entries with baseline::BASELINE_SCHEMA",
                    e.trial, e.metric, e.schema_version
                );
                return Err(refuse(entries_path, message));
            }
            if let Some(problem) = entry_problem(e) {
                let message = format!(
                    "trial {:?} metric {:?}: {problem}; leave such a value out of the bless",
                    e.trial, e.metric
                );
                return Err(refuse(entries_path, message));
            }
            if !seen.insert((e.trial.as_str(), e.metric.as_str())) {
                let message = format!(
                    "trial {} has two entries for metric {}; bless each metric of a trial once",
                    e.trial, e.metric
                );
                return Err(refuse(entries_path, message));
            }
        }
        for (trial, samples) in &self.samples {
            if self.time(trial).is_none() {
                let message =
                    format!("samples are kept for trial {trial}, which has no time entry; bless its time too");
                return Err(refuse(samples_path, message));
            }
            if let Some((i, s)) = samples.iter().enumerate().find(|(_, s)| !(s.is_finite() && **s > 0.0)) {
                let message = format!("sample {i} of trial {trial} is {s}, not a positive number of seconds");
                return Err(refuse(samples_path, message));
            }
        }
        let spread_path = self.dir.join(RUN_TO_RUN_FILE);
        for (trial, r) in &self.run_to_run {
            if self.time(trial).is_none() {
                let message = format!("a run-to-run spread is kept for trial {trial}, which has no time entry");
                return Err(refuse(&spread_path, message));
            }
            if let Some(problem) = run_to_run_problem(r) {
                return Err(refuse(&spread_path, format!("trial {trial}: {problem}")));
            }
        }
        Ok(())
    }

    /// `run_to_run.csv`'s bytes: the header, then one row per trial, sorted.
    fn run_to_run_csv(&self, path: &Path) -> Result<Vec<u8>> {
        let csv_error = |source| Error::Csv { path: path.to_path_buf(), source };
        let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
        w.write_record(RUN_TO_RUN_COLUMNS).map_err(csv_error)?;
        for r in self.run_to_run.values() {
            w.serialize(r).map_err(csv_error)?;
        }
        w.into_inner().map_err(|e| Error::io(path)(e.into_error()))
    }

    /// `baseline.csv`'s bytes: the header, then the entries sorted by (trial, metric).
    fn entries_csv(&self, path: &Path) -> Result<Vec<u8>> {
        let mut sorted: Vec<&Entry> = self.entries.iter().collect();
        sorted.sort_by(|a, b| (&a.trial, &a.metric).cmp(&(&b.trial, &b.metric)));
        let csv_error = |source| Error::Csv { path: path.to_path_buf(), source };
        let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
        w.write_record(ENTRY_COLUMNS).map_err(csv_error)?;
        for e in sorted {
            w.serialize(e).map_err(csv_error)?;
        }
        w.into_inner().map_err(|e| Error::io(path)(e.into_error()))
    }

    /// `samples.csv`'s bytes: the header, then the samples sorted by (trial, index).
    fn samples_csv(&self, path: &Path) -> Result<Vec<u8>> {
        let csv_error = |source| Error::Csv { path: path.to_path_buf(), source };
        let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
        w.write_record(SAMPLE_COLUMNS).map_err(csv_error)?;
        for (trial, samples) in &self.samples {
            for (index, seconds) in samples.iter().enumerate() {
                w.serialize((BASELINE_SCHEMA, trial, index, seconds)).map_err(csv_error)?;
            }
        }
        w.into_inner().map_err(|e| Error::io(path)(e.into_error()))
    }
}

/// The GPU keys in `baselines` (the folder of per-GPU folders: `<root>/baselines`, or
/// `KERNELGATE_BASELINES`) that hold a `baseline.csv`, sorted. Folders without one (a folder of
/// run records only, for instance) are not baselines and are left out; a missing folder gives none.
///
/// # Errors
/// [`Error::Io`] if the folder exists but cannot be listed.
pub fn gpu_keys(baselines: &Path) -> Result<Vec<String>> {
    let dir = baselines.to_path_buf();
    let listing = match std::fs::read_dir(&dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&dir)(e)),
    };
    let mut keys = Vec::new();
    for item in listing {
        let item = item.map_err(Error::io(&dir))?;
        if item.path().join(BASELINE_FILE).is_file()
            && let Some(key) = item.file_name().to_str()
        {
            keys.push(key.to_string());
        }
    }
    keys.sort();
    Ok(keys)
}

/// The changes from `before` to `after` (entries of the same trials), sorted by trial then metric.
fn changes(before: &[Entry], after: &[Entry]) -> Vec<Change> {
    let index = |entries: &[Entry]| -> BTreeMap<(String, String), (f64, String)> {
        entries.iter().map(|e| ((e.trial.clone(), e.metric.clone()), (e.median, e.unit.clone()))).collect()
    };
    let (before, after) = (index(before), index(after));
    let keys: BTreeSet<&(String, String)> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter_map(|key| {
            let (b, a) = (before.get(key), after.get(key));
            if let (Some((b, _)), Some((a, _))) = (b, a)
                && b == a
            {
                return None;
            }
            let unit = a.or(b).map(|(_, u)| u.clone()).unwrap_or_default();
            Some(Change {
                trial: key.0.clone(),
                metric: key.1.clone(),
                unit,
                before: b.map(|(v, _)| *v),
                after: a.map(|(v, _)| *v),
            })
        })
        .collect()
}

/// What makes a schema-current entry unusable, if anything: an empty trial or metric, n = 0, a
/// non-finite number, a date that is not RFC 3339.
fn entry_problem(e: &Entry) -> Option<String> {
    if e.trial.is_empty() {
        return Some("column `trial` is empty".into());
    }
    if e.metric.is_empty() {
        return Some("column `metric` is empty".into());
    }
    if e.n == 0 {
        return Some("column `n` is 0; an entry comes from at least one sample".into());
    }
    let numbers = [("median", e.median), ("mad", e.mad), ("mean", e.mean), ("stddev", e.stddev), ("min", e.min)];
    let clock = e.sm_clock_mhz.map(|c| ("sm_clock_mhz", c));
    if let Some((name, v)) = numbers.into_iter().chain(clock).find(|(_, v)| !v.is_finite()) {
        return Some(format!("column `{name}` is {v}; values must be finite numbers"));
    }
    if chrono::DateTime::parse_from_rfc3339(&e.date).is_err() {
        return Some(format!("column `date` holds {:?}, not an RFC 3339 time such as 2026-11-30T03:22:13Z", e.date));
    }
    None
}

/// The file's bytes; `None` if it does not exist (nor its folder).
fn read_if_present(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path)(e)),
    }
}

/// A corrupt-row error at `line`, with the fix naming the file.
fn corrupt(path: &Path, line: Option<usize>, what: impl fmt::Display) -> Error {
    let fix = FIX_ROW.replace("PATH", &path.display().to_string());
    Error::Baseline { path: path.to_path_buf(), line, message: format!("{what}; {fix}") }
}

/// A corrupt-file error (its header or encoding) at `line`, with the fix naming the file.
fn corrupt_file(path: &Path, line: Option<usize>, what: impl fmt::Display) -> Error {
    let fix = FIX_FILE.replace("PATH", &path.display().to_string());
    Error::Baseline { path: path.to_path_buf(), line, message: format!("{what}; {fix}") }
}

/// A CSV file's records after its schema and header are checked: `(line, record)` pairs.
///
/// The schema check comes first (a file of another schema may well have other columns): the
/// header must have a `schema_version` column, and the first row's version must be
/// [`BASELINE_SCHEMA`]; then the header must be `columns` exactly. Every row's version is checked
/// again by the caller ([`check_schema`]).
fn records(bytes: &[u8], path: &Path, columns: &[&str]) -> Result<Vec<(usize, csv::StringRecord)>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes);
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map(|p| p.line() as usize);
            corrupt_file(path, line, format_args!("the file cannot be read as CSV ({e})"))
        })?;
        let line = record.position().map_or(out.len() + 1, |p| p.line() as usize);
        out.push((line, record));
    }
    let expected = columns.join(",");
    let Some((header_line, header)) = out.first().cloned() else {
        return Err(corrupt_file(
            path,
            None,
            format_args!("the file is empty; its first line should be the header `{expected}`"),
        ));
    };
    let Some(schema_col) = header.iter().position(|c| c == "schema_version") else {
        let what = format!(
            "the header has no `schema_version` column, so this is not a kernelgate baseline file; expected `{expected}`"
        );
        return Err(corrupt_file(path, Some(header_line), what));
    };
    if let Some((line, first)) = out.get(1) {
        check_schema(first, schema_col, *line, path, true)?;
    }
    if header.iter().ne(columns.iter().copied()) {
        let found: Vec<&str> = header.iter().collect();
        let missing: Vec<&str> = columns.iter().copied().filter(|c| !found.contains(c)).collect();
        let extra: Vec<&str> = found.iter().copied().filter(|c| !columns.contains(c)).collect();
        let mut what = String::from("the header is not kernelgate's");
        if !missing.is_empty() {
            what += &format!(": column `{}` is missing", missing.join("`, `"));
        }
        if !extra.is_empty() {
            what += &format!(
                "{} column `{}` is unexpected",
                if missing.is_empty() { ":" } else { ";" },
                extra.join("`, `")
            );
        }
        if missing.is_empty() && extra.is_empty() {
            what += ": its columns are out of order";
        }
        what += &format!(". It should be `{expected}`");
        return Err(corrupt_file(path, Some(header_line), what));
    }
    out.remove(0);
    for (line, record) in &out {
        if record.len() != columns.len() {
            let what = format!(
                "this row has {} fields but the header on line {header_line} has {} (a truncated row, or a \
                 comma in an unquoted field)",
                record.len(),
                columns.len()
            );
            return Err(corrupt(path, Some(*line), what));
        }
        check_schema(record, schema_col, *line, path, false)?;
    }
    Ok(out)
}

/// Checks a row's `schema_version`. `lenient`: a field that is absent or not a number is left to
/// the later, full check.
fn check_schema(record: &csv::StringRecord, col: usize, line: usize, path: &Path, lenient: bool) -> Result<()> {
    let Some(text) = record.get(col) else { return Ok(()) };
    match text.parse::<u32>() {
        Ok(BASELINE_SCHEMA) => Ok(()),
        Ok(n) => Err(Error::Baseline {
            path: path.to_path_buf(),
            line: Some(line),
            message: format!(
                "written by a kernelgate with schema {n}; this one reads {BASELINE_SCHEMA}: re-bless with \
                 KERNELGATE_BLESS=1, or use a matching kernelgate (a bless keeps the trials it does not run, \
                 so it reads this file too: delete baseline.csv and samples.csv in this folder first)"
            ),
        }),
        Err(_) if lenient => Ok(()),
        Err(_) => {
            Err(corrupt(path, Some(line), format_args!("column `schema_version` holds {text:?}, not a whole number")))
        }
    }
}

/// Field access with errors that name the column and line.
struct Fields<'a> {
    record: &'a csv::StringRecord,
    columns: &'a [&'a str],
    line: usize,
    path: &'a Path,
}

impl Fields<'_> {
    fn text(&self, i: usize) -> String {
        self.record.get(i).unwrap_or_default().to_string()
    }

    fn parse<T: FromStr>(&self, i: usize, what: &str) -> Result<T> {
        let text = self.record.get(i).unwrap_or_default();
        text.parse().map_err(|_| {
            corrupt(self.path, Some(self.line), format_args!("column `{}` holds {text:?}, not {what}", self.columns[i]))
        })
    }

    fn float(&self, i: usize) -> Result<f64> {
        let v: f64 = self.parse(i, "a number")?;
        if !v.is_finite() {
            let what = format!("column `{}` holds {v}; values must be finite numbers", self.columns[i]);
            return Err(corrupt(self.path, Some(self.line), what));
        }
        Ok(v)
    }
}

/// Parses `baseline.csv`.
fn parse_entries(bytes: &[u8], path: &Path) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    let mut first_seen: HashMap<(String, String), usize> = HashMap::new();
    for (line, record) in records(bytes, path, &ENTRY_COLUMNS)? {
        let f = Fields { record: &record, columns: &ENTRY_COLUMNS, line, path };
        let entry = Entry {
            schema_version: BASELINE_SCHEMA, // checked by `records`
            trial: f.text(1),
            kernel: f.text(2),
            metric: f.text(3),
            unit: f.text(4),
            n: f.parse(5, "a whole number")?,
            median: f.float(6)?,
            mad: f.float(7)?,
            mean: f.float(8)?,
            stddev: f.float(9)?,
            min: f.float(10)?,
            commit: f.text(11),
            date: f.text(12),
            module_sha256: f.text(13),
            sm_clock_mhz: if f.text(14).is_empty() { None } else { Some(f.float(14)?) },
            gpu_name: f.text(15),
            compute_capability: f.text(16),
            sm_count: f.parse(17, "a whole number")?,
            memory_mib: f.parse(18, "a whole number")?,
            driver: f.text(19),
            cuda: f.text(20),
            ecc: f.parse(21, "true or false")?,
        };
        if let Some(problem) = entry_problem(&entry) {
            return Err(corrupt(path, Some(line), problem));
        }
        let key = (entry.trial.clone(), entry.metric.clone());
        if let Some(first) = first_seen.insert(key, line) {
            let what = format!(
                "trial {} metric {} appears a second time (first on line {first}); delete one of the two rows",
                entry.trial, entry.metric
            );
            return Err(corrupt(path, Some(line), what));
        }
        entries.push(entry);
    }
    Ok(entries)
}

/// Parses `samples.csv`; `timed` are the trials with a time entry.
fn parse_samples(bytes: &[u8], path: &Path, timed: &BTreeSet<&str>) -> Result<BTreeMap<String, Vec<f64>>> {
    let mut samples: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (line, record) in records(bytes, path, &SAMPLE_COLUMNS)? {
        let f = Fields { record: &record, columns: &SAMPLE_COLUMNS, line, path };
        let trial = f.text(1);
        if !timed.contains(trial.as_str()) {
            let what = format!(
                "samples of trial {trial:?}, which has no time entry in {BASELINE_FILE}; delete this trial's rows"
            );
            return Err(corrupt(path, Some(line), what));
        }
        let index: usize = f.parse(2, "a whole number")?;
        let seconds = f.float(3)?;
        if seconds <= 0.0 {
            let what = format!("column `seconds` holds {seconds}; a timing sample is a positive number of seconds");
            return Err(corrupt(path, Some(line), what));
        }
        let list = samples.entry(trial).or_default();
        if index != list.len() {
            let what = format!(
                "sample index {index} where {} was expected: each trial's samples are numbered 0, 1, 2, ... in \
                 order, without gaps or repeats",
                list.len()
            );
            return Err(corrupt(path, Some(line), what));
        }
        list.push(seconds);
    }
    Ok(samples)
}

/// What is wrong with a run-to-run row, if anything.
fn run_to_run_problem(r: &RunToRun) -> Option<String> {
    if r.schema_version != BASELINE_SCHEMA {
        Some(format!("schema_version {}, but this kernelgate writes {BASELINE_SCHEMA}", r.schema_version))
    } else if !(r.median_rsd.is_finite() && r.median_rsd >= 0.0) {
        Some(format!("median_rsd is {}; a spread is a finite number >= 0", r.median_rsd))
    } else if r.runs < 2 {
        Some(format!("runs is {}; a spread needs at least 2 runs", r.runs))
    } else if chrono::DateTime::parse_from_rfc3339(&r.date).is_err() {
        Some(format!("date {:?} is not RFC 3339 (2026-11-30T03:22:13Z)", r.date))
    } else {
        None
    }
}

/// Parses `run_to_run.csv`; `timed` are the trials with a time entry.
fn parse_run_to_run(bytes: &[u8], path: &Path, timed: &BTreeSet<&str>) -> Result<BTreeMap<String, RunToRun>> {
    let mut rows = BTreeMap::new();
    for (line, record) in records(bytes, path, &RUN_TO_RUN_COLUMNS)? {
        let f = Fields { record: &record, columns: &RUN_TO_RUN_COLUMNS, line, path };
        let row = RunToRun {
            schema_version: BASELINE_SCHEMA, // checked by `records`
            trial: f.text(1),
            module_sha256: f.text(2),
            runs: f.parse(3, "a whole number")?,
            median_rsd: f.float(4)?,
            date: f.text(5),
        };
        if !timed.contains(row.trial.as_str()) {
            let what = format!(
                "a run-to-run spread for trial {:?}, which has no time entry in {BASELINE_FILE}; delete this row",
                row.trial
            );
            return Err(corrupt(path, Some(line), what));
        }
        if let Some(problem) = run_to_run_problem(&row) {
            return Err(corrupt(path, Some(line), problem));
        }
        if rows.contains_key(&row.trial) {
            let what = format!("trial {} appears a second time; delete one of the two rows", row.trial);
            return Err(corrupt(path, Some(line), what));
        }
        rows.insert(row.trial.clone(), row);
    }
    Ok(rows)
}

/// A finished temporary file beside its target, removed on drop unless renamed over the target.
struct Staged {
    temp: PathBuf,
    target: PathBuf,
    done: bool,
}

impl Staged {
    /// Writes `bytes` to a new temporary file in `target`'s folder and flushes it to disk; `None`
    /// when `target` already holds exactly `bytes`.
    fn write(target: &Path, bytes: &[u8]) -> Result<Option<Staged>> {
        if std::fs::read(target).is_ok_and(|old| old == bytes) {
            return Ok(None);
        }
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let dir = target.parent().unwrap_or(Path::new("."));
        let name = target.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        loop {
            let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let temp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
            // `create_new` with the platform's default permissions (unlike tempfile's 0600), which
            // the renamed file keeps.
            let mut file = match std::fs::OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(file) => file,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(&temp)(e)),
            };
            let staged = Staged { temp, target: target.to_path_buf(), done: false };
            file.write_all(bytes).and_then(|()| file.sync_all()).map_err(Error::io(&staged.temp))?;
            return Ok(Some(staged));
        }
    }

    /// Renames the temporary file over the target.
    fn commit(mut self) -> Result<()> {
        std::fs::rename(&self.temp, &self.target).map_err(Error::io(&self.target))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A test entry of `trial` and `metric` with `median` (the other fields plausible H200 values).
    pub(crate) fn entry(trial: &str, metric: &str, median: f64) -> Entry {
        let time = metric == TIME_METRIC;
        Entry {
            schema_version: BASELINE_SCHEMA,
            trial: trial.into(),
            kernel: "transpose_naive".into(),
            metric: metric.into(),
            unit: if time { "s".into() } else { "byte".into() },
            n: if time { 1000 } else { 1 },
            median,
            mad: if time { median / 100.0 } else { 0.0 },
            mean: median,
            stddev: if time { median / 50.0 } else { 0.0 },
            min: median,
            commit: "a30cdc2a4a2c7df9899037e7124ad80bc48cb789".into(),
            date: "2026-11-30T03:22:13Z".into(),
            module_sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
            sm_clock_mhz: if time { Some(1980.0) } else { None },
            gpu_name: "NVIDIA H200".into(),
            compute_capability: "9.0".into(),
            sm_count: 132,
            memory_mib: 143_771,
            driver: "580.159.04".into(),
            cuda: "13.0".into(),
            ecc: true,
        }
    }

    const A: &str = "transpose/naive/8192x8192";
    const B: &str = "copy/vec4/16777216";

    /// Two trials: A with time, a counter and samples; B with time and samples.
    fn two_trials(dir: &Path) -> Baseline {
        let mut base = Baseline::empty(dir);
        let entries = vec![
            entry(A, TIME_METRIC, 968.8e-6),
            entry(A, "dram__bytes_read.sum", 268_435_456.0),
            entry(B, TIME_METRIC, 1.234e-4),
        ];
        let samples = BTreeMap::from([
            (A.to_string(), vec![968.8e-6, 970.1e-6, 0.000_967_5]),
            (B.to_string(), vec![1.234e-4, 1.25e-4]),
        ]);
        base.bless(entries, samples);
        base
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap()
    }

    /// The (file name, line, message) of an `Error::Baseline`.
    fn baseline_error(result: Result<Baseline>) -> (String, Option<usize>, String) {
        match result {
            Err(Error::Baseline { path, line, message }) => {
                (path.file_name().unwrap().to_string_lossy().into_owned(), line, message)
            }
            other => panic!("expected Error::Baseline, got {other:?}"),
        }
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let key_dir = Baseline::dir_for(dir.path(), "nvidia-h200-sm90");
        assert_eq!(key_dir, dir.path().join("baselines/nvidia-h200-sm90"));
        let base = two_trials(&key_dir);
        base.save().unwrap();
        let loaded = Baseline::load(&key_dir).unwrap();
        assert_eq!(loaded, base);
        assert_eq!(loaded.trials(), vec![B, A]);
        assert_eq!(loaded.time(A).unwrap().median, 968.8e-6);
        assert_eq!(loaded.counters(A).map(|e| e.metric.as_str()).collect::<Vec<_>>(), ["dram__bytes_read.sum"]);
        assert_eq!(loaded.counters(B).count(), 0);
        assert_eq!(loaded.samples(B), Some(&[1.234e-4, 1.25e-4][..]));
        assert_eq!(loaded.samples("none/x/1"), None);
        let text = read(&key_dir.join(BASELINE_FILE));
        let mut lines = text.lines();
        assert_eq!(lines.next().unwrap(), ENTRY_COLUMNS.join(","));
        assert_eq!(
            lines.next().unwrap(),
            "1,copy/vec4/16777216,transpose_naive,time,s,1000,0.0001234,1.234e-6,0.0001234,2.468e-6,0.0001234,\
             a30cdc2a4a2c7df9899037e7124ad80bc48cb789,2026-11-30T03:22:13Z,\
             9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08,1980.0,NVIDIA H200,9.0,132,143771,\
             580.159.04,13.0,true"
        );
        assert!(text.contains(",dram__bytes_read.sum,byte,1,268435456.0,0.0,268435456.0,0.0,268435456.0,"), "{text}");
        assert!(text.contains(",9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08,,NVIDIA H200,"));
        assert_eq!(
            read(&key_dir.join(SAMPLES_FILE)),
            "schema_version,trial,index,seconds\n1,copy/vec4/16777216,0,0.0001234\n1,copy/vec4/16777216,1,0.000125\n\
             1,transpose/naive/8192x8192,0,0.0009688\n1,transpose/naive/8192x8192,1,0.0009701\n\
             1,transpose/naive/8192x8192,2,0.0009675\n"
        );
        // A second save of the same baseline writes the same bytes.
        let before = std::fs::read(key_dir.join(BASELINE_FILE)).unwrap();
        loaded.save().unwrap();
        assert_eq!(std::fs::read(key_dir.join(BASELINE_FILE)).unwrap(), before);
    }

    #[test]
    fn bless_of_one_trial_leaves_the_others_rows_byte_identical() {
        let dir = tempfile::tempdir().unwrap();
        two_trials(dir.path()).save().unwrap();
        let rows_of = |text: &str, trial: &str| -> Vec<String> {
            text.lines().filter(|l| l.contains(&format!(",{trial},"))).map(String::from).collect()
        };
        let (old_entries, old_samples) = (read(&dir.path().join(BASELINE_FILE)), read(&dir.path().join(SAMPLES_FILE)));
        let mut base = Baseline::load(dir.path()).unwrap();
        let mut blessed = entry(A, TIME_METRIC, 960.0e-6);
        blessed.commit = "0123456789abcdef0123456789abcdef01234567".into();
        base.bless(vec![blessed], BTreeMap::from([(A.to_string(), vec![960.0e-6; 4])]));
        base.save().unwrap();
        let (new_entries, new_samples) = (read(&dir.path().join(BASELINE_FILE)), read(&dir.path().join(SAMPLES_FILE)));
        assert_eq!(rows_of(&new_entries, B), rows_of(&old_entries, B));
        assert_eq!(rows_of(&new_entries, B).len(), 1);
        assert_eq!(rows_of(&new_samples, B), rows_of(&old_samples, B));
        assert_eq!(rows_of(&new_samples, B).len(), 2);
        assert_ne!(rows_of(&new_entries, A), rows_of(&old_entries, A));
        assert_eq!(rows_of(&new_samples, A).len(), 4);
        // A's counter was not among the blessed entries: it is gone.
        assert!(!new_entries.contains("dram__bytes_read.sum"));
    }

    #[test]
    fn changes_list_new_changed_removed_and_omit_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let mut base = two_trials(dir.path());
        let c = "copy/plain/16777216";
        let changes = base.bless(
            vec![
                entry(A, TIME_METRIC, 960.0e-6),          // changed
                entry(A, "l1tex__t_sectors.sum", 1024.0), // new; dram__bytes_read.sum removed
                entry(B, TIME_METRIC, 1.234e-4),          // unchanged
                entry(c, TIME_METRIC, 2.5e-3),            // new trial
            ],
            BTreeMap::new(),
        );
        let shown: Vec<String> = changes.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "copy/plain/16777216 time: new 2.500 ms",
                "transpose/naive/8192x8192 dram__bytes_read.sum: removed",
                "transpose/naive/8192x8192 l1tex__t_sectors.sum: new 1024 byte",
                "transpose/naive/8192x8192 time: 968.8 us -> 960.0 us (-0.9%)",
            ]
        );
        assert_eq!(
            changes[3],
            Change {
                trial: A.into(),
                metric: "time".into(),
                unit: "s".into(),
                before: Some(968.8e-6),
                after: Some(960.0e-6)
            }
        );
        assert!(base.samples.is_empty(), "blessed trials without samples keep none");
        let up =
            Change { trial: A.into(), metric: "x".into(), unit: String::new(), before: Some(0.0), after: Some(2.0) };
        assert_eq!(up.to_string(), "transpose/naive/8192x8192 x: 0 -> 2");
        let up = Change { before: Some(4.0), after: Some(5.0), unit: "sector".into(), ..up };
        assert_eq!(up.to_string(), "transpose/naive/8192x8192 x: 4 sector -> 5 sector (+25.0%)");
    }

    #[test]
    fn remove_drops_entries_and_samples_of_the_trials() {
        let dir = tempfile::tempdir().unwrap();
        let mut base = two_trials(dir.path());
        let changes = base.remove(&[A.to_string(), "not/there/1".to_string()]);
        let shown: Vec<String> = changes.iter().map(ToString::to_string).collect();
        assert_eq!(shown, [format!("{A} dram__bytes_read.sum: removed"), format!("{A} time: removed")]);
        assert_eq!(base.trials(), vec![B]);
        assert_eq!(base.samples.keys().collect::<Vec<_>>(), [B]);
        base.save().unwrap();
        assert_eq!(Baseline::load(dir.path()).unwrap(), base);
    }

    #[test]
    #[should_panic(expected = "samples given for trial copy/vec4/16777216")]
    fn bless_refuses_samples_of_a_trial_not_blessed() {
        let mut base = Baseline::empty("unused");
        base.bless(vec![entry(A, TIME_METRIC, 1e-3)], BTreeMap::from([(B.to_string(), vec![1e-3])]));
    }

    #[test]
    fn schema_mismatch_names_the_file_the_line_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        two_trials(dir.path()).save().unwrap();
        let path = dir.path().join(BASELINE_FILE);
        // A future schema with one more column: the schema is reported, not the header.
        let text = read(&path).replace("\n1,", "\n2,").replace("ecc\n", "ecc,extra\n").replace("true\n", "true,x\n");
        std::fs::write(&path, &text).unwrap();
        let (file, line, message) = baseline_error(Baseline::load(dir.path()));
        assert_eq!((file.as_str(), line), (BASELINE_FILE, Some(2)));
        assert!(
            message.starts_with(
                "written by a kernelgate with schema 2; this one reads 1: re-bless with KERNELGATE_BLESS=1, or use a \
                 matching kernelgate"
            ),
            "{message}"
        );
        let shown = Baseline::load(dir.path()).unwrap_err().to_string();
        assert!(shown.starts_with(&format!("{}:2: written by", path.display())), "{shown}");
        // The samples file too, on the row that differs.
        two_trials(dir.path()).save().unwrap();
        let samples = dir.path().join(SAMPLES_FILE);
        let mut lines: Vec<String> = read(&samples).lines().map(String::from).collect();
        lines[3] = lines[3].replacen("1,", "3,", 1);
        std::fs::write(&samples, lines.join("\n") + "\n").unwrap();
        let (file, line, message) = baseline_error(Baseline::load(dir.path()));
        assert_eq!((file.as_str(), line), (SAMPLES_FILE, Some(4)));
        assert!(message.starts_with("written by a kernelgate with schema 3;"), "{message}");
    }

    /// Saves the two-trial baseline, applies `edit` to `file`'s text, and returns the load error
    /// after checking that the failed load left the file's bytes as they were.
    fn corrupted(file: &str, edit: impl Fn(&str) -> String) -> (String, Option<usize>, String) {
        let dir = tempfile::tempdir().unwrap();
        two_trials(dir.path()).save().unwrap();
        let path = dir.path().join(file);
        let edited = edit(&read(&path));
        std::fs::write(&path, &edited).unwrap();
        let listing = |d: &Path| {
            let mut v: Vec<_> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name()).collect();
            v.sort();
            v
        };
        let files = listing(dir.path());
        let error = baseline_error(Baseline::load(dir.path()));
        assert_eq!(read(&path), edited, "a failed load never rewrites the file");
        assert_eq!(listing(dir.path()), files, "a failed load writes nothing");
        error
    }

    /// `text` with line `n` (1-based) replaced by `f(line)`.
    fn edit_line(text: &str, n: usize, f: impl Fn(&str) -> String) -> String {
        text.lines().enumerate().map(|(i, l)| if i + 1 == n { f(l) } else { l.to_string() } + "\n").collect()
    }

    #[test]
    fn corrupt_files_are_errors_naming_file_and_line() {
        // Truncated: the last row cut short, as by a full disk.
        let (file, line, message) = corrupted(BASELINE_FILE, |t| t[..t.len() - 40].to_string());
        assert_eq!((file.as_str(), line), (BASELINE_FILE, Some(4)));
        assert!(message.contains("fields but the header on line 1 has 22"), "{message}");
        assert!(message.contains("(`git checkout -- /") && message.contains("/baseline.csv`)"), "{message}");
        assert!(message.contains("KERNELGATE_BLESS=1"), "{message}");
        // A median that is not a number.
        let (file, line, message) =
            corrupted(BASELINE_FILE, |t| edit_line(t, 3, |l| l.replacen(",268435456.0,", ",12x,", 1)));
        assert_eq!((file.as_str(), line), (BASELINE_FILE, Some(3)));
        assert!(message.starts_with("column `median` holds \"12x\", not a number"), "{message}");
        // NaN.
        let (_, line, message) =
            corrupted(BASELINE_FILE, |t| edit_line(t, 4, |l| l.replacen(",0.0009688,", ",NaN,", 1)));
        assert_eq!(line, Some(4));
        assert!(message.starts_with("column `median` holds NaN; values must be finite"), "{message}");
        let (_, line, message) = corrupted(BASELINE_FILE, |t| edit_line(t, 2, |l| l.replacen(",1980.0,", ",inf,", 1)));
        assert_eq!(line, Some(2));
        assert!(message.starts_with("column `sm_clock_mhz` holds inf"), "{message}");
        // The same (trial, metric) twice.
        let (_, line, message) = corrupted(BASELINE_FILE, |t| {
            let row = t.lines().nth(1).unwrap().to_string();
            format!("{t}{row}\n")
        });
        assert_eq!(line, Some(5));
        assert!(message.contains("metric time appears a second time (first on line 2)"), "{message}");
        // Samples of a trial with no time entry.
        let (file, line, message) = corrupted(SAMPLES_FILE, |t| format!("{t}1,gone/x/1,0,0.001\n"));
        assert_eq!((file.as_str(), line), (SAMPLES_FILE, Some(7)));
        assert!(message.starts_with("samples of trial \"gone/x/1\", which has no time entry"), "{message}");
        // A header column missing (and the rows still full width).
        let (file, line, message) = corrupted(BASELINE_FILE, |t| edit_line(t, 1, |l| l.replace(",mad,", ",")));
        assert_eq!((file.as_str(), line), (BASELINE_FILE, Some(1)));
        assert!(message.starts_with("the header is not kernelgate's: column `mad` is missing."), "{message}");
        assert!(
            message.ends_with("delete this folder's baseline.csv and samples.csv and re-bless with KERNELGATE_BLESS=1")
        );
        // No schema_version column at all.
        let (_, line, message) =
            corrupted(SAMPLES_FILE, |t| edit_line(t, 1, |l| l.replace("schema_version", "version")));
        assert_eq!(line, Some(1));
        assert!(message.starts_with("the header has no `schema_version` column"), "{message}");
        // A gap in the sample indices.
        let (_, line, message) = corrupted(SAMPLES_FILE, |t| edit_line(t, 5, |l| l.replacen(",1,", ",2,", 1)));
        assert_eq!(line, Some(5));
        assert!(message.starts_with("sample index 2 where 1 was expected"), "{message}");
        // An empty file.
        let (_, line, message) = corrupted(BASELINE_FILE, |_| String::new());
        assert_eq!(line, None);
        assert!(message.starts_with("the file is empty"), "{message}");
        // Not RFC 3339.
        let (_, line, message) =
            corrupted(BASELINE_FILE, |t| t.replacen("2026-11-30T03:22:13Z", "20261130T032213Z", 1));
        assert_eq!(line, Some(2));
        assert!(message.starts_with("column `date` holds \"20261130T032213Z\""), "{message}");
    }

    #[test]
    fn run_to_run_calibration_round_trips_and_is_used_only_when_it_fits() {
        let dir = tempfile::tempdir().unwrap();
        let mut base = two_trials(dir.path());
        base.save().unwrap();
        assert!(!dir.path().join(RUN_TO_RUN_FILE).exists(), "no calibration, no file");
        // A: 10 medians 1 % apart in pairs; B: only 3 runs.
        let a: Vec<f64> = (0..10).map(|i| if i % 2 == 0 { 99.0e-6 } else { 101.0e-6 }).collect();
        let (set, said) = base.calibrate(&BTreeMap::from([(A.to_string(), a), (B.to_string(), vec![1e-4; 3])]));
        assert_eq!(set, 1);
        assert!(said[1].contains("10 runs") && said[0].contains("3 runs of the blessed code, 10 needed"), "{said:?}");
        let rsd = base.run_to_run(A).unwrap().median_rsd;
        assert!((rsd - 0.01 * (10.0f64 / 9.0).sqrt()).abs() < 1e-12, "sample stddev / mean: {rsd}");
        assert!(base.run_to_run(B).is_none());
        base.save().unwrap();
        let text = read(&dir.path().join(RUN_TO_RUN_FILE));
        assert!(
            text.starts_with("schema_version,trial,module_sha256,runs,median_rsd,date\n1,transpose/naive/8192x8192,")
        );
        let loaded = Baseline::load(dir.path()).unwrap();
        assert_eq!(loaded, base);
        // A re-bless of other code makes the calibration stale: kept on disk, not used.
        let mut rebless = loaded.clone();
        let mut other = entry(A, TIME_METRIC, 900e-6);
        other.module_sha256 = "0".repeat(64);
        rebless.bless(vec![other], BTreeMap::from([(A.to_string(), vec![900e-6])]));
        assert!(rebless.run_to_run(A).is_none() && rebless.run_to_run.contains_key(A));
        // Removing the trial removes its calibration.
        let mut removed = loaded.clone();
        removed.remove(&[A.to_string()]);
        assert!(removed.run_to_run.is_empty());
        removed.save().unwrap();
        assert_eq!(
            read(&dir.path().join(RUN_TO_RUN_FILE)),
            "schema_version,trial,module_sha256,runs,median_rsd,date\n"
        );
    }

    #[test]
    fn corrupt_run_to_run_rows_name_file_and_line_and_are_not_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let mut base = two_trials(dir.path());
        base.calibrate(&BTreeMap::from([(A.to_string(), vec![1e-3; 12])]));
        base.save().unwrap();
        let path = dir.path().join(RUN_TO_RUN_FILE);
        let good = read(&path);
        for (edit, line, says) in [
            (good.replace(",12,", ",1,"), 2, "runs is 1"),
            (good.replace(",0.0,", ",-0.5,"), 2, "median_rsd is -0.5"),
            (format!("{good}1,gone/x/1,ab,12,0.01,2026-11-30T03:22:13Z\n"), 3, "no time entry"),
        ] {
            std::fs::write(&path, &edit).unwrap();
            let (file, at, message) = baseline_error(Baseline::load(dir.path()));
            assert_eq!((file.as_str(), at), (RUN_TO_RUN_FILE, Some(line)), "{message}");
            assert!(message.contains(says), "{message}");
            assert_eq!(read(&path), edit, "a failed load writes nothing");
        }
    }

    #[test]
    fn missing_folder_or_files_are_an_empty_baseline() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("baselines/nvidia-h200-sm90");
        assert_eq!(Baseline::load(&missing).unwrap(), Baseline::empty(&missing));
        // A folder of run records only.
        std::fs::create_dir_all(missing.join("runs")).unwrap();
        std::fs::write(missing.join("README.md"), "runs\n").unwrap();
        assert_eq!(Baseline::load(&missing).unwrap(), Baseline::empty(&missing));
        assert!(Baseline::load(&missing).unwrap().trials().is_empty());
        assert_eq!(gpu_keys(&dir.path().join(BASELINES_DIR)).unwrap(), Vec::<String>::new());
        Baseline::empty(dir.path().join("baselines/b-sm80")).save().unwrap();
        two_trials(&dir.path().join("baselines/a-sm90")).save().unwrap();
        assert_eq!(gpu_keys(&dir.path().join(BASELINES_DIR)).unwrap(), ["a-sm90", "b-sm80"]);
        assert_eq!(gpu_keys(&dir.path().join("nowhere")).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn save_is_atomic_and_refuses_what_load_would_refuse() {
        let dir = tempfile::tempdir().unwrap();
        let key_dir = dir.path().join("baselines/nvidia-h200-sm90");
        let listing = || {
            let mut v: Vec<String> = std::fs::read_dir(&key_dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        let mut base = two_trials(&key_dir);
        base.save().unwrap();
        assert_eq!(listing(), [BASELINE_FILE, SAMPLES_FILE], "no temporary file is left behind");
        base.bless(vec![entry(B, TIME_METRIC, 2e-4)], BTreeMap::new());
        base.save().unwrap();
        assert_eq!(listing(), [BASELINE_FILE, SAMPLES_FILE]);
        let saved = (read(&key_dir.join(BASELINE_FILE)), read(&key_dir.join(SAMPLES_FILE)));
        // A NaN value, a duplicate metric, samples without a time entry: refused, nothing written.
        let mut nan = base.clone();
        nan.bless(vec![entry(A, TIME_METRIC, f64::NAN)], BTreeMap::new());
        let mut twice = base.clone();
        twice.bless(vec![entry(A, TIME_METRIC, 1e-3), entry(A, TIME_METRIC, 2e-3)], BTreeMap::new());
        let mut untimed = base.clone();
        untimed.bless(vec![entry(A, "x.sum", 1.0)], BTreeMap::from([(A.to_string(), vec![1e-3])]));
        for (bad, file, says) in [
            (nan, BASELINE_FILE, "column `median` is NaN"),
            (twice, BASELINE_FILE, "two entries for metric time"),
            (untimed, SAMPLES_FILE, "no time entry"),
        ] {
            match bad.save() {
                Err(Error::Baseline { path, line: None, message }) => {
                    assert_eq!(path, key_dir.join(file));
                    assert!(message.starts_with("not saved: ") && message.contains(says), "{message}");
                }
                other => panic!("expected Error::Baseline, got {other:?}"),
            }
            assert_eq!((read(&key_dir.join(BASELINE_FILE)), read(&key_dir.join(SAMPLES_FILE))), saved);
            assert_eq!(listing(), [BASELINE_FILE, SAMPLES_FILE]);
        }
    }

    #[test]
    fn format_value_uses_readable_times() {
        assert_eq!(format_value(968.8e-6, "s"), "968.8 us");
        assert_eq!(format_value(32.0, "byte/sector"), "32 byte/sector");
        assert_eq!(format_value(0.5, ""), "0.5");
        assert_eq!(format_value(32.46173143386841, "wavefront/inst"), "32.4617 wavefront/inst");
        assert_eq!(format_value(268_435_456.0, "byte"), "268435456 byte");
        assert_eq!(format_value(11_185_002.67, "byte"), "11185003 byte");
        assert_eq!(format_value(0.000_123_456_78, "%"), "0.000123457 %");
    }
}
