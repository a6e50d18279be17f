//! History of runs keyed by the git commit the measured kernels came from (docs/history.md).
//!
//! A [`Run`] is one run of the suite on one physical GPU: its [`RunMeta`] (commit, GPU, toolchain)
//! and its [`Value`]s (every statistic of every trial, and every ncu counter). Runs are kept
//!
//! - in a local SQLite store per GPU key ([`store`]), `<dir>/<gpu_key>.sqlite`, by default under
//!   `<project root>/.kernelgate/history/` (the project's, [`crate::project::Project::history`]), which answers series queries;
//! - in git notes under `refs/notes/kernelgate` ([`notes`]), which travel between runners with
//!   `git push` / `git fetch` and merge without losing a row, and which [`sync`] brings into the
//!   local stores (`kernelgate history sync`);
//! - and they can be imported from the run CSVs that runs leave and that are committed under
//!   `<baselines>/*/runs/`, the project's baselines folder ([`mod@import`], [`import_command`]).
//!
//! A run is identified by `(run_id, gpu_uuid)`: two runners may start in the same second.
//!
//! [`query`] answers the questions asked of the stores: the sides of a diff report, a trial's
//! series, the change points of every series ([`changepoint`], per physical GPU), the nightly gate.
//!
//! Where a run's code came from is decided by [`provenance`] (the git state of a tree, read by
//! the project's build script and at run time) and [`built`] (the state built into the project's
//! test binary, and the one a run is recorded under).

pub mod bisect;
pub mod built;
pub mod ceilings;
pub mod changepoint;
pub mod import;
pub mod notes;
pub mod of_run;
/// The git state of a tree, read by the project's build script and at run time (the build
/// helper's, `kernelgate_build::provenance`).
pub use kernelgate_build::provenance;
pub mod quality;
pub mod query;
pub mod revision;
pub mod store;
pub mod sync;

pub use import::{Imported, import};
pub use notes::{Merged, NOTES_REF, NoteRuns, merge_ref, read_all, write_run};
pub use store::{AllSeries, HISTORY_SCHEMA, HistoryStore, Point, RunSummary, Series};

use crate::error::Result;
use std::path::Path;

/// Where a run came from (one per run). Text fields are `""` when unknown unless said otherwise.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunMeta {
    /// Run start, UTC, `YYYYMMDDTHHMMSSZ`, possibly `-2` suffixed (`crate::record::claim_stem`).
    pub run_id: String,
    /// Full hex id of the commit the measured kernels came from, or `unknown`.
    pub commit: String,
    /// The kernels differed from that commit when the binary was built; `None` when unknown.
    pub dirty: Option<bool>,
    /// SHA-256 of `kernels/` embedded at build time (`""` when unknown).
    pub kernels_sha256: String,
    /// Branch name (`""` when detached or unknown).
    pub branch: String,
    /// Committer time of `commit`, unix seconds.
    pub commit_time: Option<i64>,
    /// First line of the commit message.
    pub subject: String,
    /// Baseline folder key, e.g. `nvidia-h200-sm90`; the store file is named after it.
    pub gpu_key: String,
    /// Device name, e.g. `NVIDIA H200`.
    pub gpu_name: String,
    /// NVML UUID of the physical GPU; `unknown` when absent.
    pub gpu_uuid: String,
    /// Driver version (NVML).
    pub driver: String,
    /// The driver's CUDA version.
    pub cuda: String,
    /// NVRTC version.
    pub nvrtc: String,
    /// Nsight Compute version (`""` when the run did not profile).
    pub ncu: String,
    /// The revision timed against in a same-run A/B run; `""` otherwise.
    pub ab_revision: String,
    /// `KERNELGATE_WORK_SCALE` of the run: 1 for normal runs.
    pub work_scale: f64,
}

/// One measured value of one trial in one run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Value {
    /// Trial name, `family/variant/size`.
    pub trial: String,
    /// Entry point launched.
    pub kernel: String,
    /// `median` (time, seconds) and the other run-CSV statistics by their names
    /// (`crate::record::statistics`); ncu counters by ncu's metric name verbatim.
    pub metric: String,
    /// Unit of `value`: `s`, `%`, `byte`, `sector`, ...; `""` for ncu's plain counts.
    pub unit: String,
    /// The value, in `unit`. May be NaN (stored as SQL NULL, written `NaN` in notes).
    pub value: f64,
    /// Lower end of the 95 % confidence interval, when known (time median).
    pub ci_low: Option<f64>,
    /// Upper end of the 95 % confidence interval, when known.
    pub ci_high: Option<f64>,
    /// The gate's verdict for the trial (`crate::gate::Verdict::as_str`); `""` when none.
    pub verdict: String,
    /// What decided the verdict (`time`, `counter <metric>`, `conditions`); `""` when none.
    pub decided_by: String,
}

/// One run: where it came from and everything it measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Run {
    /// Where the run came from.
    pub meta: RunMeta,
    /// Its values, one per (trial, kernel, metric, unit).
    pub values: Vec<Value>,
    /// The identity of the code each trial timed: one per (trial, kernel) that names a module (the
    /// run CSV's `module_sha256`). Empty for runs recorded before kernelgate kept it (their notes
    /// and stores have none) and for metrics CSVs. A pool's nightly compares a GPU's runs of the
    /// same module ([`query::reference`]).
    #[serde(default)]
    pub modules: Vec<TrialModule>,
}

/// Which module a trial's kernel ran from in one run: the SHA-256 of the module the run loaded
/// (PTX text, or a prebuilt image: [`crate::record::CaseResult::module_sha256`]); `""` where the
/// trial launches no module of the project (a copy, a cuBLAS call).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct TrialModule {
    /// Trial name, `family/variant/size`.
    pub trial: String,
    /// Entry point launched.
    pub kernel: String,
    /// SHA-256 of the module, lowercase hex; `""` when the trial launched none.
    pub module_sha256: String,
}

impl Run {
    /// The identity of `trial`'s code in this run: its modules' hashes, one per kernel in kernel
    /// order, joined by `+`; `None` when the run recorded none for it (a run older than the
    /// modules' record).
    pub fn trial_module(&self, trial: &str) -> Option<String> {
        let mut found: Vec<&TrialModule> = self.modules.iter().filter(|m| m.trial == trial).collect();
        if found.is_empty() {
            return None;
        }
        found.sort();
        Some(found.iter().map(|m| m.module_sha256.as_str()).collect::<Vec<_>>().join("+"))
    }
}

/// The shortest time median or mean a run can measure, seconds: 1 ns, the finest step of the
/// timers kernelgate reads (ncu's `gpu__time_duration` counts whole nanoseconds; CUDA events resolve
/// about 0.5 us, CUDA Runtime API, `cudaEventElapsedTime`).
pub const SHORTEST_TIME_S: f64 = 1e-9;

/// Whether `text` is a commit id or an abbreviation of one (pure): hexadecimal digits, 4 to 40 of
/// them (SHA-1; git abbreviates to no fewer than 4, `core.abbrev`) or 64 (a SHA-256 repository,
/// `git help hash-function-transition`). A run's commit reaches git and `kernelgate diff` as an
/// argument, and keys its history: hex of another length is a mistyped id.
pub fn is_commit_id(text: &str) -> bool {
    matches!(text.len(), 4..=40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What makes a value read from a file (a run CSV, a metrics CSV, a git note) one that no run
/// measures, if anything (pure): a number that is not finite (NaN, an infinity); a time median or
/// mean (`median`, `mean`, `baseline_median` in `s`) below [`SHORTEST_TIME_S`]; a negative value of a
/// run statistic that cannot be negative (all but `delta`); a p-value above 1. The ranges are
/// those the baseline files are held to (`crate::gate::baseline`: a time entry's median and mean
/// are positive, its `min` may be 0, a reading below the timer's resolution), with the timer's step
/// as the floor of a median.
pub fn value_problem(metric: &str, unit: &str, value: f64) -> Option<String> {
    if !value.is_finite() {
        return Some(format!("is {value:?} {unit}, not a finite number: no run measures it"));
    }
    let time_centre = unit == "s" && matches!(metric, "median" | "mean" | "baseline_median");
    if time_centre && value < SHORTEST_TIME_S {
        return Some(format!(
            "is {value:?} s, and a time's {metric} is at least 1 ns, the finest step of any timer kernelgate reads: \
             this row measures nothing to compare"
        ));
    }
    // Every run-CSV statistic but `delta` (a signed change, percent) is never negative; ncu
    // counters are only required to be finite.
    if value < 0.0 && metric != "delta" && crate::record::STATISTICS.contains(&metric) {
        return Some(format!("is {value:?} {unit}, and {metric} is never negative"));
    }
    if value > 1.0 && matches!(metric, "p_value" | "p_adjusted") {
        return Some(format!("is {value:?}, and a p-value is at most 1"));
    }
    None
}

/// Whether a text field of [`RunMeta`] or [`Value`] is unknown: empty or `unknown`.
fn unknown(text: &str) -> bool {
    text.is_empty() || text == "unknown"
}

/// A field two copies of one run both know, with different values ([`merge_meta`],
/// [`merge_value`]): nothing known is overwritten, so the caller keeps the stored copy and says so.
///
/// # Example
/// ```
/// use kernelgate::history::Conflict;
/// let conflict = Conflict { field: "commit", stored: r#""c0f10ee""#.into(), new: r#""a1b2c3d""#.into() };
/// assert_eq!(conflict.to_string(), r#"commit is "c0f10ee" here and "a1b2c3d" in the new copy"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} is {stored} here and {new} in the new copy")]
pub struct Conflict {
    /// The field's name, as the run CSV's column (`commit`, `work_scale`, `value`).
    pub field: &'static str,
    /// The stored copy's value, as messages show it (text quoted).
    pub stored: String,
    /// The new copy's value, shown the same way.
    pub new: String,
}

/// Merges what `new` knows into `stored`, field by field: a field unknown in `stored` takes `new`'s
/// value; a field known in both must be equal. Returns whether `stored` changed. Used where the same
/// run arrives twice (the suite's append and a later import of its CSV, two runners' notes): nothing
/// known is ever overwritten, and nothing known is dropped.
///
/// # Errors
/// [`Conflict`]: the first field known in both with different values, and both values.
pub fn merge_meta(stored: &mut RunMeta, new: &RunMeta) -> std::result::Result<bool, Conflict> {
    let mut changed = false;
    let texts: [(&str, &mut String, &String); 13] = [
        ("run_id", &mut stored.run_id, &new.run_id),
        ("commit", &mut stored.commit, &new.commit),
        ("kernels_sha256", &mut stored.kernels_sha256, &new.kernels_sha256),
        ("branch", &mut stored.branch, &new.branch),
        ("subject", &mut stored.subject, &new.subject),
        ("gpu_key", &mut stored.gpu_key, &new.gpu_key),
        ("gpu_name", &mut stored.gpu_name, &new.gpu_name),
        ("gpu_uuid", &mut stored.gpu_uuid, &new.gpu_uuid),
        ("driver", &mut stored.driver, &new.driver),
        ("cuda", &mut stored.cuda, &new.cuda),
        ("nvrtc", &mut stored.nvrtc, &new.nvrtc),
        ("ncu", &mut stored.ncu, &new.ncu),
        ("ab_revision", &mut stored.ab_revision, &new.ab_revision),
    ];
    for (name, s, n) in texts {
        changed |= merge_text(name, s, n)?;
    }
    changed |= merge_option("dirty", &mut stored.dirty, &new.dirty)?;
    changed |= merge_option("commit_time", &mut stored.commit_time, &new.commit_time)?;
    if stored.work_scale.to_bits() != new.work_scale.to_bits() {
        return Err(Conflict {
            field: "work_scale",
            stored: stored.work_scale.to_string(),
            new: new.work_scale.to_string(),
        });
    }
    Ok(changed)
}

/// [`merge_meta`] for a [`Value`] of the same (trial, kernel, metric, unit): the value itself must
/// be the same (bit for bit, or both NaN); the interval, verdict and decided_by are filled in where
/// unknown.
///
/// # Errors
/// [`Conflict`]: the first field known in both with different values, and both values.
pub fn merge_value(stored: &mut Value, new: &Value) -> std::result::Result<bool, Conflict> {
    let same = stored.value.to_bits() == new.value.to_bits() || (stored.value.is_nan() && new.value.is_nan());
    if !same {
        return Err(Conflict {
            field: "value",
            stored: format!("{:?}", stored.value),
            new: format!("{:?}", new.value),
        });
    }
    let mut changed = merge_option("ci_low", &mut stored.ci_low, &new.ci_low)?;
    changed |= merge_option("ci_high", &mut stored.ci_high, &new.ci_high)?;
    changed |= merge_text("verdict", &mut stored.verdict, &new.verdict)?;
    changed |= merge_text("decided_by", &mut stored.decided_by, &new.decided_by)?;
    Ok(changed)
}

fn merge_text(field: &'static str, stored: &mut String, new: &str) -> std::result::Result<bool, Conflict> {
    if unknown(new) || stored == new {
        Ok(false)
    } else if unknown(stored) {
        *stored = new.to_string();
        Ok(true)
    } else {
        Err(Conflict { field, stored: format!("{stored:?}"), new: format!("{new:?}") })
    }
}

fn merge_option<T: PartialEq + Copy + std::fmt::Debug>(
    field: &'static str,
    stored: &mut Option<T>,
    new: &Option<T>,
) -> std::result::Result<bool, Conflict> {
    match (*stored, *new) {
        (_, None) => Ok(false),
        (None, Some(n)) => {
            *stored = Some(n);
            Ok(true)
        }
        (Some(s), Some(n)) if s == n => Ok(false),
        (Some(s), Some(n)) => Err(Conflict { field, stored: format!("{s:?}"), new: format!("{n:?}") }),
    }
}

/// The command that fills a history from the run CSVs a project keeps under its baselines folder
/// (each GPU key's `runs/`, [`mod@import`]): `kernelgate history import perf/baselines/*/runs` for
/// `baselines` = `perf/baselines`, the project's folder ([`crate::project::Project::baselines`]) as
/// messages show it ([`crate::project::Project::shown`]: relative to the project root where it
/// lies below it). What the messages that find no history, or a damaged store, say to run. Pure.
///
/// # Example
/// ```
/// let hint = kernelgate::history::import_command(std::path::Path::new("perf/baselines"));
/// assert_eq!(hint, "kernelgate history import perf/baselines/*/runs");
/// ```
pub fn import_command(baselines: &Path) -> String {
    let folder = if baselines.as_os_str().is_empty() { Path::new(".") } else { baselines };
    format!("kernelgate history import {}/*/runs", folder.display())
}

/// The line `kernelgate history runs`, `show` and `changes` print, exiting 0, where `dir` holds no
/// history: no run is recorded yet, and how to record one (a GPU run, or [`import_command`] of
/// `baselines`, the project's baselines folder as messages show it). An empty history is where a
/// project starts, not an error. Pure.
///
/// # Example
/// ```
/// use std::path::Path;
/// let line = kernelgate::history::no_history(Path::new("h"), Path::new("baselines"));
/// assert!(line.starts_with("no history under h: no run is recorded yet;"));
/// assert!(line.ends_with("`kernelgate history import baselines/*/runs` fills it from run CSVs"));
/// ```
pub fn no_history(dir: &Path, baselines: &Path) -> String {
    format!(
        "no history under {}: no run is recorded yet; a GPU run of the suite (`cargo test --release`) records one, \
         and `{}` fills it from run CSVs",
        dir.display(),
        import_command(baselines)
    )
}

/// `kernelgate history runs`: one line per stored run of each GPU key under `dir` (or of `gpu`
/// only): commit (7 characters), run id, the start of the GPU UUID, and the number of values.
/// Without any, [`no_history`]'s line.
///
/// # Errors
/// [`crate::Error::History`] if a store cannot be opened or read; [`crate::Error::Io`] if `dir`
/// cannot be listed.
pub fn list_runs(dir: &Path, gpu: Option<&str>, baselines: &Path) -> Result<String> {
    let keys = runs_by_key(dir, gpu, baselines)?;
    if keys.is_empty() {
        return Ok(format!("{}\n", no_history(dir, baselines)));
    }
    Ok(keys.iter().map(|(key, runs)| format_runs(key, runs)).collect())
}

/// The runs [`list_runs`] lists: per GPU key under `dir` (or `gpu` only), in key order, its stored
/// runs in the store's chronological order ([`HistoryStore::runs`]). Empty when `dir` holds no
/// store and `gpu` is `None`. `baselines` as [`HistoryStore::open_read`] takes it.
///
/// # Errors
/// Those of [`list_runs`].
pub fn runs_by_key(dir: &Path, gpu: Option<&str>, baselines: &Path) -> Result<Vec<(String, Vec<RunSummary>)>> {
    let keys = match gpu {
        Some(key) => vec![key.to_string()],
        None => store::gpu_keys(dir)?,
    };
    let mut out = Vec::new();
    for key in keys {
        let path = store::store_path(dir, &key)?;
        if !path.is_file() {
            return Err(crate::error::Error::History {
                path,
                line: None,
                message: format!("no history for GPU key {key:?}; `kernelgate history runs` lists every key there is"),
            });
        }
        let runs = HistoryStore::open_read(dir, &key, baselines)?.runs(None)?;
        out.push((key, runs));
    }
    Ok(out)
}

/// The table of [`list_runs`] for one GPU key (pure).
pub fn format_runs(gpu_key: &str, runs: &[RunSummary]) -> String {
    let mut out = format!("{gpu_key}: {} run{}\n", runs.len(), if runs.len() == 1 { "" } else { "s" });
    for r in runs {
        let commit: String = r.meta.commit.chars().take(7).collect();
        let uuid: String = r.meta.gpu_uuid.chars().take(12).collect();
        let dirty = if r.meta.dirty == Some(true) { "+" } else { " " };
        let ab: String = r.meta.ab_revision.chars().take(7).collect();
        let ab = if ab.is_empty() { String::new() } else { format!("  A/B against {ab}") };
        out.push_str(&format!("  {commit:<7}{dirty} {:<20} {uuid:<12} {:>7} rows{ab}\n", r.meta.run_id, r.values));
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes `files` (path, text) into the work tree at `dir` and commits them on HEAD (its
    /// parent the current HEAD, if any); returns the commit.
    pub(crate) fn commit_files(
        repo: &git2::Repository,
        dir: &Path,
        files: &[(&str, &str)],
        message: &str,
    ) -> git2::Oid {
        let mut index = repo.index().unwrap();
        for (path, text) in files {
            let full = dir.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, text).unwrap();
            index.add_path(Path::new(path)).unwrap();
        }
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let parents: Vec<git2::Commit> = repo.head().ok().and_then(|h| h.peel_to_commit().ok()).into_iter().collect();
        let parents: Vec<&git2::Commit> = parents.iter().collect();
        repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents).unwrap()
    }

    /// A synthetic run (made-up numbers, not a measurement).
    pub(crate) fn run(run_id: &str, gpu_uuid: &str, commit: &str, n: usize) -> Run {
        let meta = RunMeta {
            run_id: run_id.into(),
            commit: commit.into(),
            dirty: Some(false),
            kernels_sha256: "ab".repeat(32),
            branch: "main".into(),
            commit_time: Some(1_700_000_000),
            subject: "Faster \"transpose\", padded, tiles".into(),
            gpu_key: "nvidia-h200-sm90".into(),
            gpu_name: "NVIDIA H200".into(),
            gpu_uuid: gpu_uuid.into(),
            driver: "580.159.04".into(),
            cuda: "13.0".into(),
            nvrtc: "13.0".into(),
            ncu: String::new(),
            ab_revision: String::new(),
            work_scale: 1.0,
        };
        let values = (0..n)
            .map(|i| Value {
                trial: format!("synthetic/k{}/{}", i % 7, i / 7),
                kernel: "kern,\"quoted\"".into(),
                metric: if i % 2 == 0 { "median".into() } else { "dram__bytes_read.sum".into() },
                unit: if i % 2 == 0 { "s".into() } else { "byte".into() },
                value: 1e-4 * (1.0 + i as f64 / 1000.0),
                ci_low: (i % 2 == 0).then_some(0.9e-4),
                ci_high: (i % 2 == 0).then_some(1.1e-4),
                verdict: "unchanged".into(),
                decided_by: "time".into(),
            })
            .collect();
        Run { meta, values, modules: Vec::new() }
    }

    /// `r` with a module for each of its trials: `<d>` x 64 for trial `synthetic/k<d>/...`.
    pub(crate) fn with_modules(mut r: Run) -> Run {
        let mut trials: Vec<(String, String)> = r.values.iter().map(|v| (v.trial.clone(), v.kernel.clone())).collect();
        trials.sort();
        trials.dedup();
        r.modules = trials
            .into_iter()
            .map(|(trial, kernel)| {
                let digit = trial.chars().find(|c| c.is_ascii_digit()).unwrap_or('0');
                TrialModule { module_sha256: digit.to_string().repeat(64), trial, kernel }
            })
            .collect();
        r
    }

    #[test]
    fn merge_fills_unknowns_and_refuses_differences() {
        let full = run("20260101T000000Z", "GPU-1", "c0ffee", 1).meta;
        let mut partial = full.clone();
        partial.branch.clear();
        partial.commit_time = None;
        partial.gpu_uuid = "GPU-1".into();
        let mut stored = partial.clone();
        assert_eq!(merge_meta(&mut stored, &full), Ok(true));
        assert_eq!(stored, full);
        assert_eq!(merge_meta(&mut stored, &partial), Ok(false), "unknowns never overwrite");
        assert_eq!(stored, full);
        let mut other = full.clone();
        other.driver = "999".into();
        let err = merge_meta(&mut stored, &other).unwrap_err();
        assert_eq!((err.field, err.new.as_str()), ("driver", "\"999\""), "{err}");

        let v = run("20260101T000000Z", "GPU-1", "c0ffee", 1).values.remove(0);
        let mut bare = v.clone();
        bare.ci_low = None;
        bare.ci_high = None;
        bare.verdict.clear();
        assert_eq!(merge_value(&mut bare, &v), Ok(true));
        assert_eq!(bare, v);
        let mut moved = v.clone();
        moved.value *= 2.0;
        assert_eq!(merge_value(&mut bare, &moved).unwrap_err().field, "value");
        let (mut a, mut b) = (v.clone(), v);
        a.value = f64::NAN;
        b.value = f64::NAN;
        assert_eq!(merge_value(&mut a, &b), Ok(false), "NaN is the same NaN");
    }

    #[test]
    fn runs_table() {
        let r = run("20260101T000000Z", "GPU-20ce1a7a-fd28", "0123456789abcdef0123456789abcdef01234567", 3);
        let text = format_runs("nvidia-h200-sm90", &[RunSummary { meta: r.meta, values: 3 }]);
        assert_eq!(text, "nvidia-h200-sm90: 1 run\n  0123456  20260101T000000Z     GPU-20ce1a7a       3 rows\n");
    }
}
