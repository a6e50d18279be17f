//! Per-GPU baselines on disk: what a later run is compared against. The one module that writes a
//! baseline folder (or a run record, which has the same form).
//!
//! One folder per GPU under the project root, `baselines/<gpu-key>/` (the key is
//! [`crate::model::gpu_key`], e.g. `nvidia-h200-sm90`), holding three CSV files and a manifest:
//!
//! - `baseline.csv`: one row per trial and metric ([`Entry`], columns [`ENTRY_COLUMNS`]). The
//!   metric `time` is the timing entry (unit `s`); every other metric is an ncu metric name,
//!   verbatim, or a derived metric name, stored with n = 1, median = mean = min = the value and
//!   mad = stddev = 0.
//! - `samples.csv`: the raw timing samples kept for the two-sample test, one row per sample
//!   (columns [`SAMPLE_COLUMNS`]); at most about a thousand per trial, chosen by the caller.
//! - `run_to_run.csv`: per trial and metric, how much the blessed code's value moves between runs
//!   ([`RunToRun`], columns [`RUN_TO_RUN_COLUMNS`]; written by `kernelgate baseline calibrate`,
//!   header only until then); the gate's effect floor and counter tolerances come from it.
//! - `manifest.json`: the commit record ([`crate::store`]): the three files change together or
//!   not at all, under a lock, and a file cut short or edited is refused by name.
//!
//! Every CSV file carries a `schema_version` column; older schemas are read and migrated at the
//! first write (`files.rs`). Rows are written sorted by (trial, metric) and (trial, index), numbers
//! in their shortest round-trip form, so a change of one trial changes only that trial's lines. A
//! folder that cannot be read is an error naming the file, the line and the fix, and is never
//! rewritten: [`Baseline::load`] only reads, and [`Baseline::update`] refuses to write a folder
//! it could not read, or a baseline it could not read back.

mod files;
pub mod run;
pub mod summary;

pub use files::{
    ENTRIES_SCHEMA, ENTRY_COLUMNS, MAX_RUN_TO_RUN_RSD, RUN_TO_RUN_COLUMNS, RUN_TO_RUN_SCHEMA, SAMPLE_COLUMNS,
    SAMPLES_SCHEMA,
};

use crate::error::{Error, Result};
use crate::store::Store;
use crate::units::format_value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// File name of the entries, in a GPU's baseline folder.
pub const BASELINE_FILE: &str = "baseline.csv";

/// File name of the kept timing samples, in a GPU's baseline folder.
pub const SAMPLES_FILE: &str = "samples.csv";

/// File name of the run-to-run spreads, in a GPU's baseline folder.
pub const RUN_TO_RUN_FILE: &str = "run_to_run.csv";

/// The files of a baseline folder, committed together.
pub const FILES: [&str; 3] = [BASELINE_FILE, SAMPLES_FILE, RUN_TO_RUN_FILE];

/// Fewest runs of the blessed code a run-to-run spread must come from to be used (10). The sample
/// standard deviation of n values has a relative standard error of about `1 / sqrt(2 (n - 1))`:
/// 24 % at n = 10. 10 is also what the H200 benchmark calibrated from and checked
/// (baselines/nvidia-h200-sm90/BENCHMARK.md).
pub const MIN_RUNS: u64 = 10;

/// The `metric` of a trial's timing entry in `baseline.csv` (unit `s`). The run CSV and the history
/// name the same time by its statistic, [`crate::model::TIME_STATISTIC`] (`median`): two files,
/// two columns, one time.
pub const TIME_METRIC: &str = "time";

/// One row of `baseline.csv`: one metric of one trial, with where and when it was measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Entry {
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
    /// Median, in `unit`; a counter's value. A time entry's is positive.
    pub median: f64,
    /// Median absolute deviation from the median (unscaled), in `unit`; 0 for a counter.
    pub mad: f64,
    /// Arithmetic mean, in `unit`; a counter's value.
    pub mean: f64,
    /// Sample standard deviation, in `unit`; 0 for a counter.
    pub stddev: f64,
    /// Smallest sample, in `unit`; a counter's value. May be 0 for time (below the timer's
    /// resolution).
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
    /// The physical GPU: NVML UUID (`GPU-20ce1a7a-…`); empty when unknown (schema 1, no NVML).
    pub gpu_uuid: String,
    /// The board's serial number (NVML); empty when unknown.
    pub gpu_serial: String,
    /// VBIOS version (NVML); empty when unknown.
    pub vbios: String,
    /// PCI bus id (`00000000:18:00.0`); empty when unknown.
    pub pci_bus_id: String,
    /// Why the measurement cannot be judged (another process on the GPU, throttled samples,
    /// samples below the timer's resolution), for a run record; empty when valid. Blessed entries
    /// are always valid.
    pub invalid_reason: String,
    /// The NVRTC that compiled the trial's modules, `major.minor` (`13.0`); empty when unrecorded
    /// (schema 1 and 2). Another NVRTC makes other PTX, so another module.
    pub nvrtc: String,
    /// For a counter entry, the version of the ncu that measured it (`2025.3.1.0`); empty for the
    /// time entry and when unrecorded (schema 1 and 2). Another ncu may collect a metric another way.
    pub ncu: String,
}

impl Entry {
    /// Whether this is the timing entry (metric [`TIME_METRIC`]).
    pub fn is_time(&self) -> bool {
        self.metric == TIME_METRIC
    }

    /// When this entry was measured under another driver, CUDA or NVRTC than this run's (`now`), a
    /// phrase naming both sides, e.g. `the baseline was measured with driver 580.159.04 (CUDA 13.0,
    /// NVRTC 13.0), this run with 590.48.01 (CUDA 13.1, NVRTC 13.1)`: a new driver brings its own
    /// PTX compiler and scheduling, and a new NVRTC other PTX, so a time judged across either moves
    /// with the environment as well as with the code. `None` when all are the same; a part the
    /// entry did not record (an older schema) is not compared.
    pub fn other_environment(&self, now: &Environment<'_>) -> Option<String> {
        let driver_moved =
            !(self.driver.is_empty() && self.cuda.is_empty()) && (self.driver != now.driver || self.cuda != now.cuda);
        let nvrtc_moved = !self.nvrtc.is_empty() && self.nvrtc != now.nvrtc;
        (driver_moved || nvrtc_moved).then(|| {
            let nvrtc = |v: &str| if self.nvrtc.is_empty() { String::new() } else { format!(", NVRTC {v}") };
            format!(
                "the baseline was measured with driver {} (CUDA {}{}), this run with {} (CUDA {}{})",
                self.driver,
                self.cuda,
                nvrtc(&self.nvrtc),
                now.driver,
                now.cuda,
                nvrtc(now.nvrtc)
            )
        })
    }

    /// For a counter entry measured by another ncu than this run's `ncu` (its version), a phrase
    /// naming both: `the baseline's counters were measured with ncu 2025.3.1.0, this run's with
    /// 2026.2.0.0`. `None` for the same version, a time entry, or an entry that did not record it.
    pub fn other_ncu(&self, ncu: &str) -> Option<String> {
        (!self.ncu.is_empty() && self.ncu != ncu)
            .then(|| format!("the baseline's counters were measured with ncu {}, this run's with {ncu}", self.ncu))
    }
}

/// The tools a run measures with, as a baseline entry records them ([`Entry::other_environment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Environment<'a> {
    /// Kernel driver version (NVML), `580.159.04`.
    pub driver: &'a str,
    /// CUDA version the driver supports, `major.minor`.
    pub cuda: &'a str,
    /// NVRTC, `major.minor`.
    pub nvrtc: &'a str,
}

impl<'a> Environment<'a> {
    /// The environment of a GPU's facts.
    pub fn of(facts: &'a crate::model::DeviceFacts) -> Environment<'a> {
        Environment { driver: &facts.driver_version, cuda: &facts.cuda_driver_version, nvrtc: &facts.nvrtc_version }
    }
}

/// The current time, UTC, in the RFC 3339 form [`Entry::date`] holds (`2026-11-30T03:22:13Z`).
pub fn utc_now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// One row of `run_to_run.csv`: how much one metric of one trial moved between runs of the
/// blessed code.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunToRun {
    /// Trial name.
    pub trial: String,
    /// [`TIME_METRIC`] (the spread of the median) or a counter's name (the spread of its value).
    pub metric: String,
    /// The module hash of the runs it comes from: the entry's [`Entry::module_sha256`] when
    /// calibrated. A later bless of other code makes the row stale ([`Baseline::run_to_run`]).
    pub module_sha256: String,
    /// Runs the spread comes from (the blessed run and the run records given).
    pub runs: u64,
    /// Relative standard deviation of those runs' values: sample stddev / mean, a fraction, at most
    /// [`MAX_RUN_TO_RUN_RSD`].
    pub rsd: f64,
    /// When it was calibrated, UTC, RFC 3339.
    pub date: String,
}

/// One GPU's baseline (or one run's record): the entries of `baseline.csv`, the samples of
/// `samples.csv` and the run-to-run spreads of `run_to_run.csv` in folder `dir`.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// The folder, `<the project's baselines>/<gpu-key>` ([`crate::project::Project::baselines`]) or a run's
    /// `<stem>-baseline/`.
    pub dir: PathBuf,
    /// Every entry, sorted by (trial, metric).
    pub entries: Vec<Entry>,
    /// Kept timing samples per trial, seconds, in the order measured; only trials with a time
    /// entry, and no empty lists.
    pub samples: BTreeMap<String, Vec<f64>>,
    /// Run-to-run spread per (trial, metric); only pairs with an entry.
    pub run_to_run: BTreeMap<(String, String), RunToRun>,
    /// Whether a manifest vouched for the files (`false` for a folder written before manifests,
    /// or a new one).
    pub sealed: bool,
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
    /// A baseline with nothing in it, for `dir`.
    pub fn empty(dir: impl Into<PathBuf>) -> Baseline {
        Baseline {
            dir: dir.into(),
            entries: Vec::new(),
            samples: BTreeMap::new(),
            run_to_run: BTreeMap::new(),
            sealed: false,
        }
    }

    /// The store behind folder `dir`.
    fn store(dir: &Path) -> Store {
        Store::new(dir, &FILES, "baseline folder", format!("kernelgate baseline reseal {}", dir.display()))
    }

    /// Loads the folder `dir`. A missing folder or one without files is an empty baseline, not an
    /// error. Nothing is ever written.
    ///
    /// # Errors
    /// [`Error::Io`] if a file exists but cannot be read. [`Error::Store`] naming the file, when it
    /// does not match what `manifest.json` vouches for (cut short, edited, missing).
    /// [`Error::Baseline`] naming the file and the 1-based line, with the fix, if a file is corrupt:
    /// not CSV, empty, a header of no known schema, a row with too few or too many fields, a value
    /// that does not parse, NaN or infinity, a negative value, a time median that is not positive,
    /// an empty trial or metric, a date that is not RFC 3339, a (trial, metric) pair twice, samples
    /// of a trial with no time entry, a time entry with no samples, sample indices out of sequence,
    /// a negative sample, a run-to-run spread out of range; or a `schema_version` this kernelgate
    /// does not read.
    pub fn load(dir: &Path) -> Result<Baseline> {
        let snapshot = Baseline::store(dir).read()?;
        Baseline::parse(dir, &snapshot)
    }

    /// The baseline held by `snapshot`'s files.
    fn parse(dir: &Path, snapshot: &crate::store::Snapshot) -> Result<Baseline> {
        let path = |name: &str| dir.join(name);
        let mut entries = match snapshot.file(BASELINE_FILE) {
            Some(bytes) => files::parse_entries(bytes, &path(BASELINE_FILE))?,
            None => Vec::new(),
        };
        entries.sort_by(|a, b| (&a.trial, &a.metric).cmp(&(&b.trial, &b.metric)));
        let timed: BTreeSet<&str> = entries.iter().filter(|e| e.is_time()).map(|e| e.trial.as_str()).collect();
        let samples = match snapshot.file(SAMPLES_FILE) {
            Some(bytes) => files::parse_samples(bytes, &path(SAMPLES_FILE), &timed)?,
            None => BTreeMap::new(),
        };
        if let Some(bare) = timed.iter().find(|t| !samples.contains_key(**t)) {
            return Err(files::corrupt(
                &path(SAMPLES_FILE),
                None,
                format_args!(
                    "trial {bare} has a time entry in {BASELINE_FILE} but no samples here: the file was cut short or \
                     its rows deleted"
                ),
            ));
        }
        let metrics: BTreeSet<(&str, &str)> = entries.iter().map(|e| (e.trial.as_str(), e.metric.as_str())).collect();
        let run_to_run = match snapshot.file(RUN_TO_RUN_FILE) {
            Some(bytes) => files::parse_run_to_run(bytes, &path(RUN_TO_RUN_FILE), &metrics)?,
            None => BTreeMap::new(),
        };
        Ok(Baseline { dir: dir.to_path_buf(), entries, samples, run_to_run, sealed: snapshot.sealed })
    }

    /// Changes the baseline folder `dir` as one atomic step: under the folder's exclusive lock
    /// (waiting for another writer), loads it as it is now, applies `change`, checks the result
    /// ([`Baseline::check`]), and commits all three files together. `change` returns `None` to
    /// write nothing. A folder that does not exist yet is created. Returns `change`'s value.
    ///
    /// # Errors
    /// What [`Baseline::load`] returns (nothing written); `change`'s error (nothing written);
    /// [`Error::Baseline`] when the changed baseline could not be loaded back (nothing written);
    /// [`Error::Io`] when the folder cannot be written (the previous contents stay whole).
    pub fn update<T>(dir: &Path, change: impl FnOnce(&mut Baseline) -> Result<Option<T>>) -> Result<Option<T>> {
        Baseline::update_with(dir, change, &mut |_| std::ops::ControlFlow::Continue(()))
    }

    /// [`Baseline::update`] with the store's fault-injection hook ([`Store::update_with`]).
    ///
    /// # Errors
    /// As [`Baseline::update`].
    pub fn update_with<T>(
        dir: &Path,
        change: impl FnOnce(&mut Baseline) -> Result<Option<T>>,
        hook: &mut dyn FnMut(&crate::store::Step) -> std::ops::ControlFlow<()>,
    ) -> Result<Option<T>> {
        let store = Baseline::store(dir);
        let done = store.update_with(
            |snapshot| {
                let mut base = Baseline::parse(dir, snapshot)?;
                let Some(value) = change(&mut base)? else { return Ok(None) };
                base.check()?;
                let files = BTreeMap::from([
                    (BASELINE_FILE.to_string(), files::entries_csv(&base.entries)),
                    (SAMPLES_FILE.to_string(), files::samples_csv(&base.samples)),
                    (RUN_TO_RUN_FILE.to_string(), files::run_to_run_csv(&base.run_to_run)),
                ]);
                Ok(Some((files, value)))
            },
            hook,
        )?;
        Ok(done)
    }

    /// Vouches for the folder's files as they are now (after a deliberate edit, or a git merge):
    /// loads them without the manifest's check, refuses them as [`Baseline::load`] would, adds an
    /// empty `run_to_run.csv` to a folder written before that file existed, and commits a new
    /// manifest. Returns the new generation.
    ///
    /// # Errors
    /// [`Error::Baseline`] when `dir` holds no `baseline.csv` (nothing is created); as
    /// [`Baseline::load`] for a corrupt file (nothing written); [`Error::Io`].
    pub fn reseal(dir: &Path) -> Result<u64> {
        if !dir.join(BASELINE_FILE).is_file() {
            return Err(Error::Baseline {
                path: dir.to_path_buf(),
                line: None,
                message: format!(
                    "no {BASELINE_FILE} here, so nothing to reseal: name a baseline folder (baselines/<gpu-key>) or \
                     a run record (<stem>-baseline)"
                ),
            });
        }
        Baseline::store(dir).reseal(|snapshot| {
            let base = Baseline::parse(dir, snapshot)?;
            base.check()?;
            // A folder from before run_to_run.csv existed gets it, empty, so all three are sealed.
            let mut added = BTreeMap::new();
            if snapshot.file(RUN_TO_RUN_FILE).is_none() {
                added.insert(RUN_TO_RUN_FILE.to_string(), files::run_to_run_csv(&base.run_to_run));
            }
            Ok(added)
        })
    }

    /// The run-to-run spread of `trial`'s median, when it can be used: calibrated from at least
    /// [`MIN_RUNS`] runs of the code blessed now (its module hash equals the time entry's).
    pub fn run_to_run(&self, trial: &str) -> Option<&RunToRun> {
        self.spread(trial, TIME_METRIC)
    }

    /// The run-to-run spread of `metric` of `trial` (a counter, or [`TIME_METRIC`]), when it can be
    /// used: from at least [`MIN_RUNS`] runs of the code blessed now.
    pub fn spread(&self, trial: &str, metric: &str) -> Option<&RunToRun> {
        let entry = self.entries.iter().find(|e| e.trial == trial && e.metric == metric)?;
        self.run_to_run
            .get(&(trial.to_string(), metric.to_string()))
            .filter(|r| r.runs >= MIN_RUNS && r.module_sha256 == entry.module_sha256)
    }

    /// Sets the run-to-run spread of each (trial, metric) in `values` (the values of runs of its
    /// blessed code: the time entry's median, or a counter's value; the caller includes the
    /// blessed value and checks module hashes) that has an entry and at least [`MIN_RUNS`] values,
    /// and a spread of at most [`MAX_RUN_TO_RUN_RSD`]; replaces what was there. Returns the
    /// (trial, metric) pairs set, and one line per (trial, metric): what was set, or why not.
    pub fn calibrate(&mut self, values: &BTreeMap<(String, String), Vec<f64>>) -> (Vec<(String, String)>, Vec<String>) {
        let mut set = Vec::new();
        let date = utc_now();
        let mut said = Vec::new();
        for ((trial, metric), vs) in values {
            let what = if metric == TIME_METRIC { trial.clone() } else { format!("{trial} {metric}") };
            let Some(entry) = self.entries.iter().find(|e| &e.trial == trial && &e.metric == metric) else {
                said.push(format!("{what}: not calibrated: no entry in this baseline"));
                continue;
            };
            if (vs.len() as u64) < MIN_RUNS {
                let runs = if vs.len() == 1 { "1 run".to_string() } else { format!("{} runs", vs.len()) };
                said.push(format!("{what}: not calibrated: {runs} of the blessed code, {MIN_RUNS} needed"));
                continue;
            }
            let rsd = crate::stats::relative_stddev(vs);
            if !(rsd.is_finite() && rsd <= MAX_RUN_TO_RUN_RSD) {
                said.push(format!(
                    "{what}: not calibrated: it moves {:.1}% between {} runs, more than the {:.0}% any gate could \
                     use; this trial is too unstable on this runner to gate",
                    100.0 * rsd,
                    vs.len(),
                    100.0 * MAX_RUN_TO_RUN_RSD
                ));
                continue;
            }
            let key = (trial.clone(), metric.clone());
            let before = self
                .run_to_run
                .get(&key)
                .map_or_else(String::new, |r| format!(" (was {:.3}% over {} runs)", 100.0 * r.rsd, r.runs));
            let moves = if metric == TIME_METRIC { "median moves" } else { "moves" };
            said.push(format!("{what}: {moves} {:.3}% between {} runs{before}", 100.0 * rsd, vs.len()));
            let row = RunToRun {
                trial: trial.clone(),
                metric: metric.clone(),
                module_sha256: entry.module_sha256.clone(),
                runs: vs.len() as u64,
                rsd,
                date: date.clone(),
            };
            self.run_to_run.insert(key.clone(), row);
            set.push(key);
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
    /// ones; trials not mentioned are untouched (byte for byte once written). A mentioned trial
    /// missing from `samples` (or with an empty list there) keeps no samples. Returns the changes,
    /// one per metric whose value (median) changed, appeared or disappeared, sorted by trial then
    /// metric; unchanged values produce no [`Change`].
    ///
    /// Nothing is checked here; [`Baseline::update`] refuses a baseline it could not load back (a
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
        // Spreads of metrics no longer there go; those of other code stay, stale ([`Baseline::spread`]).
        let present: BTreeSet<(String, String)> =
            self.entries.iter().map(|e| (e.trial.clone(), e.metric.clone())).collect();
        self.run_to_run.retain(|key, _| present.contains(key));
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
        self.run_to_run.retain(|(t, _), _| !gone.contains(t.as_str()));
        changes(&before, &[])
    }

    /// Refuses what [`Baseline::load`] would refuse, naming the trial and metric: the check
    /// [`Baseline::update`] makes before writing.
    ///
    /// # Errors
    /// [`Error::Baseline`] naming the file: an entry with an empty trial or metric, n = 0, a
    /// non-finite or negative number, a time median that is not positive, a date that is not
    /// RFC 3339; a (trial, metric) pair twice; samples of a trial with no time entry, a time entry
    /// with no samples, or a sample that is negative or not finite; a spread of a pair with no
    /// entry, or out of range.
    pub fn check(&self) -> Result<()> {
        let refuse = |file: &str, message: String| Error::Baseline {
            path: self.dir.join(file),
            line: None,
            message: format!("not saved: {message}"),
        };
        let mut seen = BTreeSet::new();
        for e in &self.entries {
            if let Some(problem) = files::entry_problem(e) {
                let message = format!(
                    "trial {:?} metric {:?}: {problem}; leave such a value out of the bless",
                    e.trial, e.metric
                );
                return Err(refuse(BASELINE_FILE, message));
            }
            if !seen.insert((e.trial.as_str(), e.metric.as_str())) {
                let message = format!(
                    "trial {} has two entries for metric {}; bless each metric of a trial once",
                    e.trial, e.metric
                );
                return Err(refuse(BASELINE_FILE, message));
            }
        }
        if let Some(bare) = self.entries.iter().find(|e| e.is_time() && !self.samples.contains_key(&e.trial)) {
            let message = format!("trial {} has a time entry but no kept samples; bless its samples too", bare.trial);
            return Err(refuse(SAMPLES_FILE, message));
        }
        for (trial, samples) in &self.samples {
            if self.time(trial).is_none() {
                let message =
                    format!("samples are kept for trial {trial}, which has no time entry; bless its time too");
                return Err(refuse(SAMPLES_FILE, message));
            }
            if let Some((i, s)) = samples.iter().enumerate().find(|(_, s)| !(s.is_finite() && **s >= 0.0)) {
                let message = format!("sample {i} of trial {trial} is {s}, not a number of seconds >= 0");
                return Err(refuse(SAMPLES_FILE, message));
            }
        }
        for ((trial, metric), r) in &self.run_to_run {
            if !seen.contains(&(trial.as_str(), metric.as_str())) {
                let message =
                    format!("a run-to-run spread is kept for trial {trial} metric {metric}, which has no entry");
                return Err(refuse(RUN_TO_RUN_FILE, message));
            }
            if let Some(problem) = files::run_to_run_problem(r) {
                return Err(refuse(RUN_TO_RUN_FILE, format!("trial {trial} metric {metric}: {problem}")));
            }
        }
        Ok(())
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

/// Each GPU baseline folder of `baselines` ([`gpu_keys`]) with the oldest CUDA release
/// (`major.minor`, [`Entry::cuda`]) of the drivers that blessed its entries: the release its
/// runners are known to load PTX of ([`crate::compile::prebuilt::isa_unloadable`]). The folder is
/// named relative to `root` (the project's root) when it lies under it, else as `baselines`
/// joins it. A folder whose `baseline.csv` cannot be read or records
/// no release is left out: the suite's GPU trials report a damaged baseline. Reads only the
/// `cuda` column.
///
/// # Errors
/// [`gpu_keys`]'s.
pub fn runner_cuda(baselines: &Path, root: &Path) -> Result<Vec<(String, String)>> {
    let release = crate::compile::prebuilt::cuda_release;
    let mut found = Vec::new();
    for key in gpu_keys(baselines)? {
        let Ok(mut reader) = csv::Reader::from_path(baselines.join(&key).join(BASELINE_FILE)) else { continue };
        let Some(column) = reader.headers().ok().and_then(|h| h.iter().position(|c| c == "cuda")) else { continue };
        let oldest = reader
            .records()
            .filter_map(|r| r.ok()?.get(column).map(str::to_string))
            .filter(|cuda| release(cuda).is_some())
            .min_by_key(|cuda| release(cuda));
        if let Some(cuda) = oldest {
            let folder = baselines.join(&key);
            found.push((folder.strip_prefix(root).unwrap_or(&folder).display().to_string(), cuda));
        }
    }
    Ok(found)
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

#[cfg(test)]
pub(crate) mod tests;
