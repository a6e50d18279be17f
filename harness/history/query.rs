//! Questions asked of the history (issue 9): the two sides of a diff report, a trial's series with
//! its change points, the change points of every series, and the nightly gate's decision.
//!
//! Change points are always found per physical GPU (`gpu_uuid`): one GPU key covers many GPUs, and
//! a series mixing two of them has machine offsets of several % that E-divisive would report as
//! changes. Values that are not finite (a run that measured nothing) are left out of the series
//! given to [`changepoint::detect`], and its indices are mapped back to the points shown.
//!
//! The loaders (`resolve_side`, `show`, `changes`, `gate`) open stores; what they compute is in
//! pure functions beside them ([`measurements`], [`per_gpu_change_points`], [`all_change_points`],
//! [`decide`], the `format_*` printers), which the tests call with synthetic data.

use super::changepoint::{self, ChangePoint};
use super::import::{Kind, attach_metrics, parse_csv};
use super::store::{self, AllSeries, HistoryStore, RunSummary};
use super::{Run, RunMeta, Value};
use crate::report::diff::{Diff, Measurement, Side, TIME_METRIC, Trend, TrendPoint};
use crate::units::format_value;
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The gate's effect floor as a change-point magnitude: 1 %, the default of
/// `KERNELGATE_MIN_EFFECT` (`crate::config`), below which the gate calls no change a regression.
pub const GATE_MIN_MAGNITUDE: f64 = 0.01;

/// The change-point options of every history query: [`changepoint::Options`]' defaults (Otava's)
/// with `min_magnitude` [`GATE_MIN_MAGNITUDE`].
pub fn options() -> changepoint::Options {
    changepoint::Options { min_magnitude: GATE_MIN_MAGNITUDE, ..changepoint::Options::default() }
}

/// Exit code of `kernelgate history gate` for a regression: a `regressed` verdict or an increase of
/// a trial's time at the run's commit (the suite's `EXIT_REGRESSION`).
pub const EXIT_REGRESSED: u8 = 3;
/// Exit code of `kernelgate history gate` when nothing regressed but some trial is `invalid`.
pub const EXIT_INVALID: u8 = 4;

/// A commit as people read it: its first 7 characters.
fn short(commit: &str) -> &str {
    commit.get(..7).unwrap_or(commit)
}

/// The start of a GPU UUID that tells GPUs apart in print (`GPU-20ce1a7a`, 12 characters).
fn gpu_short(uuid: &str) -> &str {
    uuid.get(..12).unwrap_or(uuid)
}

/// The run CSV's statistics that judge a run against its own reference (baseline or A/B
/// revision) rather than measure it: a diff between two runs does not compare them.
pub const JUDGEMENT_STATISTICS: [&str; 5] = ["baseline_median", "delta", "p_value", "p_adjusted", "min_effect"];

/// A run's values as the diff report's rows (pure): `median` and the run CSV's other statistics
/// (not [`JUDGEMENT_STATISTICS`]), and ncu counters, by their names; [`crate::report::diff`] knows
/// which are statistics.
pub fn measurements(values: &[Value]) -> Vec<Measurement> {
    values
        .iter()
        .filter(|v| !JUDGEMENT_STATISTICS.contains(&v.metric.as_str()))
        .map(|v| Measurement {
            trial: v.trial.clone(),
            kernel: v.kernel.clone(),
            metric: v.metric.clone(),
            unit: v.unit.clone(),
            value: v.value,
            verdict: v.verdict.clone(),
            decided_by: v.decided_by.clone(),
        })
        .collect()
}

/// One side of a diff, resolved: its label and GPU, the runs it is made of, and their rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// Label and GPU for the report.
    pub side: Side,
    /// The GPU key of its runs (the store trends are read from).
    pub gpu_key: String,
    /// Its runs, with their values (several for a commit run more than once: diff takes medians).
    pub runs: Vec<Run>,
    /// Every value of every run, as report rows.
    pub rows: Vec<Measurement>,
}

/// What a side given by the user is: a run CSV, a run id (with a GPU UUID prefix), or a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    /// A run CSV (its `-metrics.csv` is read too, where it exists).
    File(PathBuf),
    /// A run id, `YYYYMMDDTHHMMSSZ` (possibly `-2` suffixed), and the start of a GPU UUID.
    Run {
        /// The run id.
        run_id: String,
        /// `@GPU-...` given after it, to pick one GPU of several.
        gpu_uuid: Option<String>,
    },
    /// A commit id or its start (at least 4 hex digits).
    Commit(String),
    /// `before:<run id>`: every run of the newest commit stored before that run's commit, on its GPU
    /// key (the nightly report's old side).
    Before(String),
}

impl Spec {
    /// Reads a side as the user gave it (pure but for one check: whether a file of that name
    /// exists). A name ending in `.csv`, or an existing file, is a file.
    ///
    /// # Errors
    /// [`Error::History`] for text that is none of the three, saying what each looks like.
    pub fn parse(text: &str) -> Result<Spec> {
        if let Some(run_id) = text.strip_prefix("before:") {
            return Ok(Spec::Before(run_id.to_string()));
        }
        if text.ends_with(".csv") || Path::new(text).is_file() {
            return Ok(Spec::File(PathBuf::from(text)));
        }
        let (id, uuid) = match text.split_once('@') {
            Some((id, uuid)) => (id, Some(uuid.to_string())),
            None => (text, None),
        };
        let b = id.as_bytes();
        let run_id = b.len() >= 16
            && b[..8].iter().all(u8::is_ascii_digit)
            && b[8] == b'T'
            && b[9..15].iter().all(u8::is_ascii_digit)
            && b[15] == b'Z';
        if run_id {
            return Ok(Spec::Run { run_id: id.to_string(), gpu_uuid: uuid });
        }
        if uuid.is_none() && text.len() >= 4 && text.chars().all(|c| c.is_ascii_hexdigit()) {
            return Ok(Spec::Commit(text.to_ascii_lowercase()));
        }
        Err(Error::History {
            path: PathBuf::from(text),
            line: None,
            message: "is neither a run CSV (a path ending in .csv), a run id (20261130T120000Z, optionally \
                      @GPU-uuid-prefix), a commit (at least 4 hex digits) nor before:<run id>"
                .into(),
        })
    }
}

/// The GPU keys to search: `gpu`, or every key with a store in `dir`.
fn keys(dir: &Path, gpu: Option<&str>) -> Result<Vec<String>> {
    let keys = match gpu {
        Some(key) => {
            let path = store::store_path(dir, key)?;
            if !path.is_file() {
                return Err(Error::History {
                    path,
                    line: None,
                    message: format!(
                        "no history for GPU key {key:?}; `kernelgate history runs` lists every key there is"
                    ),
                });
            }
            vec![key.to_string()]
        }
        None => store::gpu_keys(dir)?,
    };
    if keys.is_empty() {
        return Err(Error::History {
            path: dir.to_path_buf(),
            line: None,
            message:
                "no history here: a GPU run records one, and `kernelgate history import baselines/*/runs` fills it \
                 from run CSVs (--dir names another folder)"
                    .into(),
        });
    }
    Ok(keys)
}

/// The commits of `runs`, newest last, once each, as `commit:7 subject` lines (for errors).
fn candidates(runs: &[RunSummary], at_most: usize) -> String {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for r in runs {
        if !seen.iter().any(|(c, _)| *c == r.meta.commit) {
            seen.push((&r.meta.commit, &r.meta.subject));
        }
    }
    let skip = seen.len().saturating_sub(at_most);
    let mut out: Vec<String> =
        seen[skip..].iter().map(|(c, s)| format!("  {} {s}", short(c)).trim_end().to_string()).collect();
    if skip > 0 {
        out.insert(0, format!("  ({skip} older commits not shown)"));
    }
    out.join("\n")
}

/// Resolves a side of `kernelgate diff` ([`Spec::parse`]) against the stores in `dir` (the store of
/// `gpu`, or every store): a commit gives every run of that commit on that GPU key, a run id its
/// run (on one GPU), a file its runs.
///
/// # Errors
/// [`Error::History`] when nothing matches (naming what was searched and listing the stored
/// commits), when a commit prefix matches several commits or a run id several GPUs (listing
/// them), or when the matches are in several GPU keys (pass `--gpu`); errors of opening stores and
/// of reading a CSV ([`parse_csv`]).
pub fn resolve_side(dir: &Path, text: &str, gpu: Option<&str>) -> Result<Resolved> {
    let spec = Spec::parse(text)?;
    if let Spec::File(path) = &spec {
        return resolve_file(path);
    }
    let error = |message: String| Error::History { path: dir.to_path_buf(), line: None, message };
    let mut found: Vec<(String, HistoryStore, Vec<RunSummary>)> = Vec::new();
    let mut all_runs = Vec::new();
    for key in keys(dir, gpu)? {
        let store = HistoryStore::open(dir, &key)?;
        let runs = store.runs(None)?;
        // `before:<run id>`: the commit stored last before the first run of that run's commit.
        let before = match &spec {
            Spec::Before(id) => runs.iter().position(|r| r.meta.run_id == *id).and_then(|at| {
                let commit = &runs[at].meta.commit;
                let first = runs.iter().position(|r| r.meta.commit == *commit).unwrap_or(at);
                runs[..first].last().map(|r| r.meta.commit.clone())
            }),
            _ => None,
        };
        let matching: Vec<RunSummary> = runs
            .iter()
            .filter(|r| match &spec {
                Spec::Before(_) => before.as_ref().is_some_and(|c| r.meta.commit == *c),
                Spec::Commit(prefix) => r.meta.commit.starts_with(prefix.as_str()),
                Spec::Run { run_id, gpu_uuid } => {
                    r.meta.run_id == *run_id && gpu_uuid.as_ref().is_none_or(|u| r.meta.gpu_uuid.starts_with(u))
                }
                Spec::File(_) => unreachable!(),
            })
            .cloned()
            .collect();
        all_runs.extend(runs);
        if !matching.is_empty() {
            found.push((key, store, matching));
        }
    }
    let searched = match gpu {
        Some(key) => format!("the history of {key}"),
        None => format!("any history in {}", dir.display()),
    };
    let Some((key, store, matching)) = found.first() else {
        let what = match &spec {
            Spec::Commit(c) => format!("no run of a commit starting {c:?}"),
            Spec::Before(id) => format!("no run {id:?}, or no commit stored before its commit,"),
            _ => format!("no run {text:?}"),
        };
        return Err(error(format!("{what} in {searched}; its commits, oldest first:\n{}", candidates(&all_runs, 20))));
    };
    if found.len() > 1 {
        let keys: Vec<&str> = found.iter().map(|(k, _, _)| k.as_str()).collect();
        return Err(error(format!("{text:?} is in the history of several GPU keys ({}); pass --gpu", keys.join(", "))));
    }
    let label = match &spec {
        Spec::Commit(_) | Spec::Before(_) => {
            if matching.iter().any(|r| r.meta.commit != matching[0].meta.commit) {
                return Err(error(format!(
                    "commit {text:?} is ambiguous in {searched}; it starts:\n{}\ngive more of it",
                    candidates(matching, usize::MAX)
                )));
            }
            let m = &matching[0].meta;
            format!("{} {}", short(&m.commit), m.subject).trim_end().to_string()
        }
        _ => {
            if matching.len() > 1 {
                let gpus: Vec<String> =
                    matching.iter().map(|r| format!("  {}@{}", r.meta.run_id, r.meta.gpu_uuid)).collect();
                return Err(error(format!(
                    "run {text:?} was run on several GPUs; pick one with @ and the start of its UUID:\n{}",
                    gpus.join("\n")
                )));
            }
            format!("{} ({})", matching[0].meta.run_id, short(&matching[0].meta.commit))
        }
    };
    let mut runs = Vec::new();
    for r in matching {
        if let Some(run) = store.run(&r.meta.run_id, &r.meta.gpu_uuid)? {
            runs.push(run);
        }
    }
    Ok(resolved(label, key.clone(), runs))
}

/// A [`Resolved`] of `runs`: the GPU is the physical GPU's UUID start when they share one, else the
/// GPU key.
fn resolved(label: String, gpu_key: String, runs: Vec<Run>) -> Resolved {
    let first = runs.first().map(|r| r.meta.gpu_uuid.as_str()).unwrap_or("");
    let gpu = if runs.iter().all(|r| r.meta.gpu_uuid == first) && !first.is_empty() {
        // NVML UUIDs read `GPU-…`; without NVML the UUID is `unknown`: say what is unknown.
        let uuid = gpu_short(first);
        if uuid.starts_with("GPU-") { format!("{gpu_key} ({uuid})") } else { format!("{gpu_key} (GPU {uuid})") }
    } else {
        gpu_key.clone()
    };
    let rows = runs.iter().flat_map(|r| measurements(&r.values)).collect();
    Resolved { side: Side { label, gpu }, gpu_key, runs, rows }
}

/// A run CSV side: its runs, with the metrics of `<stem>-metrics.csv` beside it where it exists.
fn resolve_file(path: &Path) -> Result<Resolved> {
    let read = |p: &Path| -> Result<(Kind, Vec<Run>)> {
        let text = std::fs::read_to_string(p).map_err(Error::io(p))?;
        parse_csv(&text, p)
    };
    let (kind, mut runs) = read(path)?;
    if let Kind::Run(_) = kind {
        let stem = path.to_string_lossy();
        let metrics = PathBuf::from(format!("{}-metrics.csv", stem.trim_end_matches(".csv")));
        if metrics.is_file() {
            let (_, m) = read(&metrics)?;
            attach_metrics(&mut runs, m, &metrics)?;
        }
    }
    let Some(first) = runs.first() else {
        return Err(Error::History { path: path.to_path_buf(), line: None, message: "holds no run".into() });
    };
    let key = first.meta.gpu_key.clone();
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(resolved(format!("{name} ({})", short(&first.meta.commit)), key, runs))
}

/// The change points of a series of points that may mix physical GPUs (pure): `gpus[i]` and
/// `values[i]` are point `i`'s GPU UUID and value, in chronological order. Each GPU's finite values
/// are one series for [`changepoint::detect`]; the answer is `(point index, change point)`, sorted
/// by point index, the index being that of the first point of the new regime in the input.
pub fn per_gpu_change_points(
    gpus: &[&str],
    values: &[f64],
    options: &changepoint::Options,
) -> Vec<(usize, ChangePoint)> {
    let mut by_gpu: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, g) in gpus.iter().enumerate() {
        if values[i].is_finite() {
            by_gpu.entry(g).or_default().push(i);
        }
    }
    let mut out = Vec::new();
    let mut series = Vec::new();
    for indices in by_gpu.values() {
        series.clear();
        series.extend(indices.iter().map(|&i| values[i]));
        // Only finite values are passed, so detect cannot fail.
        let found = changepoint::detect(&series, options).unwrap_or_default();
        out.extend(found.into_iter().map(|cp| (indices[cp.index], cp)));
    }
    out.sort_by_key(|(i, _)| *i);
    out
}

/// Per-trial time trends across commits for the trials of a diff, from the store of `gpu_key` in
/// `dir`: `median`, one point per run in the store's order, labelled `commit:7`, GPU = UUID start,
/// with the change points of each physical GPU ([`per_gpu_change_points`], [`options`]). Trials
/// without history are left out.
///
/// # Errors
/// Those of [`HistoryStore::open_file`] and [`HistoryStore::series`]; none when `gpu_key` has no
/// store (no trends then).
pub fn trends(dir: &Path, gpu_key: &str, trials: &[&str]) -> Result<Vec<Trend>> {
    let path = store::store_path(dir, gpu_key)?;
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let store = HistoryStore::open(dir, gpu_key)?;
    let mut out = Vec::new();
    for trial in trials {
        let series = store.series(trial, TIME_METRIC)?;
        if let Some(t) = trend(trial, &series) {
            out.push(t);
        }
    }
    Ok(out)
}

/// `kernelgate diff A B`: both sides resolved ([`resolve_side`]) and compared
/// ([`crate::report::diff::diff`]), with the time [`trends`] of every trial of the diff from the new
/// side's GPU key (the old side's when the new side's has no store).
///
/// # Errors
/// Those of [`resolve_side`] and [`trends`].
pub fn diff_report(dir: &Path, old: &str, new: &str, gpu: Option<&str>) -> Result<(Diff, Vec<Trend>)> {
    let (a, b) = (resolve_side(dir, old, gpu)?, resolve_side(dir, new, gpu)?);
    let mut diff = crate::report::diff::diff(&a.side, &a.rows, &b.side, &b.rows);
    diff.notes.extend(other_gpus_note(&a.runs, &b.runs));
    let trials: Vec<&str> = diff.trials.iter().map(|t| t.trial.as_str()).collect();
    let mut trends = trends(dir, &b.gpu_key, &trials)?;
    if trends.is_empty() && a.gpu_key != b.gpu_key {
        trends = self::trends(dir, &a.gpu_key, &trials)?;
    }
    Ok((diff, trends))
}

/// A sentence when the two sides did not run on the same physical GPUs (pure): two H200s differ by
/// -5.8 to +2.9 % per kernel (baselines/nvidia-h200-sm90/BENCHMARK.md, "A second machine"), so a
/// change of that size between such sides may be the machines'.
pub fn other_gpus_note(old: &[Run], new: &[Run]) -> Option<String> {
    let uuids = |runs: &[Run]| -> std::collections::BTreeSet<String> {
        runs.iter().map(|r| gpu_short(&r.meta.gpu_uuid).to_string()).collect()
    };
    let (a, b) = (uuids(old), uuids(new));
    (a != b).then(|| {
        let list = |s: &std::collections::BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        format!(
            "the sides ran on different physical GPUs (old: {}; new: {}): medians of one kernel differed by -5.8 to \
             +2.9 % between two H200s, so changes of that size may be the machines'; compare runs of one GPU \
             (RUN_ID@GPU-...), or use KERNELGATE_AB",
            list(&a),
            list(&b)
        )
    })
}

/// One trial's [`Trend`] from its series ([`HistoryStore::series`]'s answer; pure). Values in a unit
/// other than the first one's are left out (they do not compare). `None` for an empty series.
pub fn trend(trial: &str, series: &[(RunMeta, Value)]) -> Option<Trend> {
    let unit = series.first()?.1.unit.clone();
    let kept: Vec<&(RunMeta, Value)> = series.iter().filter(|(_, v)| v.unit == unit).collect();
    let points: Vec<TrendPoint> = kept
        .iter()
        .map(|(m, v)| TrendPoint {
            label: short(&m.commit).to_string(),
            value: v.value,
            gpu: gpu_short(&m.gpu_uuid).into(),
        })
        .collect();
    let gpus: Vec<&str> = kept.iter().map(|(m, _)| m.gpu_uuid.as_str()).collect();
    let values: Vec<f64> = kept.iter().map(|(_, v)| v.value).collect();
    let change_points = per_gpu_change_points(&gpus, &values, &options()).into_iter().map(|(i, _)| i).collect();
    Some(Trend { trial: trial.to_string(), metric: TIME_METRIC.into(), unit, points, change_points })
}

/// `kernelgate history show TRIAL`: the trial's `metric` series of each GPU key (or of `gpu`), one
/// line per run, then its change points per physical GPU ([`format_show`]).
///
/// # Errors
/// [`Error::History`] when no store has the trial's metric (naming what was searched), and errors
/// of opening stores.
pub fn show(dir: &Path, gpu: Option<&str>, trial: &str, metric: &str) -> Result<String> {
    let mut out = String::new();
    for key in keys(dir, gpu)? {
        let series = HistoryStore::open(dir, &key)?.series(trial, metric)?;
        if !series.is_empty() {
            out.push_str(&format_show(&key, trial, metric, &series));
        }
    }
    if out.is_empty() {
        return Err(Error::History {
            path: dir.to_path_buf(),
            line: None,
            message: format!(
                "no {metric} of trial {trial:?} in {}; `kernelgate history runs` lists the runs, and trial names are family/variant/size",
                gpu.unwrap_or("any GPU key's history")
            ),
        });
    }
    Ok(out)
}

/// A change point as one line: `at <commit:7> (<subject>): +33.1 % (mean 101.0 us -> 134.0 us),
/// p = 1e-9` (pure). `meta` is the run of the first point of the new regime.
pub fn format_change(meta: &RunMeta, cp: &ChangePoint, unit: &str) -> String {
    let subject = if meta.subject.is_empty() { String::new() } else { format!(" ({})", meta.subject) };
    format!(
        "at {}{subject}: {:+.1} % (mean {} -> {}), p = {:.0e}",
        short(&meta.commit),
        100.0 * cp.change,
        format_value(cp.before, unit),
        format_value(cp.after, unit),
        cp.p_value
    )
}

/// The text of [`show`] for one GPU key's series (pure).
pub fn format_show(gpu_key: &str, trial: &str, metric: &str, series: &[(RunMeta, Value)]) -> String {
    let mut out = format!("{trial} {metric} on {gpu_key}: {}\n", crate::units::count(series.len(), "run"));
    for (m, v) in series {
        let dirty = if m.dirty == Some(true) { "+" } else { " " };
        let verdict = if v.verdict.is_empty() { "-" } else { &v.verdict };
        out.push_str(&format!(
            "  {:<7}{dirty} {:<18} {:<12} {:>14}  {verdict}\n",
            short(&m.commit),
            m.run_id,
            gpu_short(&m.gpu_uuid),
            format_value(v.value, &v.unit)
        ));
    }
    let unit = &series[0].1.unit;
    let same: Vec<&(RunMeta, Value)> = series.iter().filter(|(_, v)| v.unit == *unit).collect();
    let gpus: Vec<&str> = same.iter().map(|(m, _)| m.gpu_uuid.as_str()).collect();
    let values: Vec<f64> = same.iter().map(|(_, v)| v.value).collect();
    let found = per_gpu_change_points(&gpus, &values, &options());
    out.push_str(&format!(
        "change points ({}, per GPU, min magnitude {} %): {}\n",
        changepoint::METHOD,
        100.0 * GATE_MIN_MAGNITUDE,
        if found.is_empty() { "none" } else { "" }
    ));
    for (i, cp) in found {
        let m = &same[i].0;
        out.push_str(&format!("  {}: change point {}\n", gpu_short(&m.gpu_uuid), format_change(m, &cp, unit)));
    }
    out
}

/// A change point of one series of one physical GPU ([`all_change_points`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Index of the series in [`AllSeries::series`].
    pub series: usize,
    /// Index in [`AllSeries::runs`] of the first run of the new regime.
    pub run: usize,
    /// The change point.
    pub change: ChangePoint,
}

/// The change points of every series of `all` whose metric is `metric` (every metric for `None`),
/// per physical GPU, found on `threads` threads (at least 1), sorted newest first (by run, then
/// series). Pure.
pub fn all_change_points(
    all: &AllSeries,
    metric: Option<&str>,
    options: &changepoint::Options,
    threads: usize,
) -> Vec<Found> {
    let chosen: Vec<usize> =
        (0..all.series.len()).filter(|&i| metric.is_none_or(|m| all.series[i].metric == m)).collect();
    let threads = threads.max(1);
    let find = |part: &[usize]| -> Vec<Found> {
        let mut out = Vec::new();
        for &s in part {
            let points = &all.series[s].points;
            let gpus: Vec<&str> = points.iter().map(|p| all.runs[p.run].gpu_uuid.as_str()).collect();
            let values: Vec<f64> = points.iter().map(|p| p.value).collect();
            for (i, change) in per_gpu_change_points(&gpus, &values, options) {
                out.push(Found { series: s, run: points[i].run, change });
            }
        }
        out
    };
    let chunk = chosen.len().div_ceil(threads).max(1);
    let mut out: Vec<Found> = std::thread::scope(|scope| {
        let handles: Vec<_> = chosen.chunks(chunk).map(|part| scope.spawn(move || find(part))).collect();
        handles.into_iter().flat_map(|h| h.join().expect("change-point detection panicked")).collect()
    });
    out.sort_by(|a, b| b.run.cmp(&a.run).then(a.series.cmp(&b.series)));
    out
}

/// `kernelgate history changes`: the change points of every series of `metric` (every metric for
/// `None`) of each GPU key (or of `gpu`), per physical GPU, one line each, newest first; with
/// `since`, only those at or after the first run of that commit (a prefix).
///
/// # Errors
/// [`Error::History`] when `since` matches no stored commit of a key, or several; errors of
/// opening and reading stores.
pub fn changes(dir: &Path, gpu: Option<&str>, metric: Option<&str>, since: Option<&str>) -> Result<String> {
    let mut out = String::new();
    for key in keys(dir, gpu)? {
        let store = HistoryStore::open(dir, &key)?;
        let all = store.all_series()?;
        let from = match since {
            None => 0,
            Some(prefix) => {
                let hits: Vec<&RunMeta> = all.runs.iter().filter(|m| m.commit.starts_with(prefix)).collect();
                if hits.is_empty() || hits.iter().any(|m| m.commit != hits[0].commit) {
                    let summaries: Vec<RunSummary> =
                        all.runs.iter().map(|m| RunSummary { meta: m.clone(), values: 0 }).collect();
                    return Err(Error::History {
                        path: store.path().to_path_buf(),
                        line: None,
                        message: format!(
                            "--since {prefix:?} is {} commit of this history; its commits, oldest first:\n{}",
                            if hits.is_empty() { "no" } else { "more than one" },
                            candidates(&summaries, 20)
                        ),
                    });
                }
                all.runs.iter().position(|m| m.commit == hits[0].commit).unwrap_or(0)
            }
        };
        let found = all_change_points(&all, metric, &options(), 2);
        out.push_str(&format_changes(&key, &all, &found, from));
    }
    Ok(out)
}

/// The text of [`changes`] for one GPU key (pure): a header, then one line per change point whose
/// run is at index `from` or later.
pub fn format_changes(gpu_key: &str, all: &AllSeries, found: &[Found], from: usize) -> String {
    let kept: Vec<&Found> = found.iter().filter(|f| f.run >= from).collect();
    let mut out = format!(
        "{gpu_key}: {} ({}, per GPU, min magnitude {} %)\n",
        crate::units::count(kept.len(), "change point"),
        changepoint::METHOD,
        100.0 * GATE_MIN_MAGNITUDE
    );
    for f in kept {
        let (m, s) = (&all.runs[f.run], &all.series[f.series]);
        out.push_str(&format!(
            "  {} {} {} {} {}\n",
            gpu_short(&m.gpu_uuid),
            s.trial,
            s.metric,
            m.run_id,
            format_change(m, &f.change, &s.unit)
        ));
    }
    out
}

/// The nightly gate's outcome for one run, most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// A trial `regressed`, or a time change point at the run's commit is an increase:
    /// [`EXIT_REGRESSED`].
    Regressed,
    /// None of that, but a trial is `invalid`: [`EXIT_INVALID`].
    Invalid,
    /// Neither: exit 0.
    Pass,
}

impl Outcome {
    /// The process exit code of `kernelgate history gate`.
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Regressed => EXIT_REGRESSED,
            Outcome::Invalid => EXIT_INVALID,
            Outcome::Pass => 0,
        }
    }
}

/// The nightly gate's exit code from the suite's exit code and the history's [`Outcome`] (pure):
/// the suite's 3 (a trial failed its performance gate only) is a regression like the history's;
/// its 2 (a bad option) stays 2; any other failure of the suite (a wrong result, a failed counter
/// expectation, a harness error: libtest's 101) is 1, a harness error for the nightly job, with the
/// sentence to print. Otherwise the history decides: 3 regressed, 4 invalid, 0 pass.
pub fn nightly_exit(suite_exit: u8, history: Outcome) -> (u8, Option<String>) {
    match suite_exit {
        0 => (history.exit_code(), None),
        3 => (
            EXIT_REGRESSED,
            Some(
                "but the suite itself failed trials on their performance gate (exit 3): a regression, whatever the \
                 history says"
                    .into(),
            ),
        ),
        2 => (2, Some("the suite refused an option (exit 2); see its log".into())),
        n => (
            1,
            Some(format!(
                "the suite failed (exit {n}): a wrong result, a failed counter expectation or a harness error; see its \
                 log and JUnit"
            )),
        ),
    }
}

/// The gate's decision for one run, with its reasons (one line each).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The outcome.
    pub outcome: Outcome,
    /// Why: `regressed: <trial> (decided by time)`, `change point: <trial> ...`, `invalid: ...`.
    pub reasons: Vec<String>,
}

/// The gate's decision for `run` (pure): [`Outcome::Regressed`] if a trial's verdict is `regressed`
/// or one of `changes` (a trial's time change points, per physical GPU: trial, the run of the
/// first point of the new regime, the change point) is an increase at `run`'s commit on `run`'s
/// GPU; else [`Outcome::Invalid`] if a trial is `invalid`; else [`Outcome::Pass`].
pub fn decide(run: &Run, changes: &[(String, RunMeta, ChangePoint)]) -> Decision {
    let mut regressed = Vec::new();
    let mut invalid = Vec::new();
    let mut verdicts: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    for v in &run.values {
        verdicts.entry(&v.trial).or_insert((&v.verdict, &v.decided_by));
    }
    for (trial, (verdict, by)) in verdicts {
        let by = if by.is_empty() { String::new() } else { format!(" (decided by {by})") };
        match verdict {
            "regressed" => regressed.push(format!("regressed: {trial}{by}")),
            "invalid" => invalid.push(format!("invalid: {trial}{by}")),
            _ => {}
        }
    }
    for (trial, at, cp) in changes {
        if at.commit == run.meta.commit && at.gpu_uuid == run.meta.gpu_uuid && cp.after > cp.before {
            regressed.push(format!("change point: {trial} {}", format_change(at, cp, "s")));
        }
    }
    let outcome = if !regressed.is_empty() {
        Outcome::Regressed
    } else if !invalid.is_empty() {
        Outcome::Invalid
    } else {
        Outcome::Pass
    };
    regressed.extend(invalid);
    Decision { outcome, reasons: regressed }
}

/// `kernelgate history gate`: for the latest run of each GPU key (or of `gpu`), or the run(s)
/// `run_id` (one per physical GPU that ran it), [`decide`] on its verdicts and on the change points
/// of each trial's time on its GPU. Returns the text and the most severe outcome.
///
/// # Errors
/// [`Error::History`] when there is no store, `run_id` is in no store, or a store cannot be read.
pub fn gate(dir: &Path, gpu: Option<&str>, run_id: Option<&str>) -> Result<(String, Outcome)> {
    let mut out = String::new();
    let mut worst = Outcome::Pass;
    let mut gated = 0;
    for key in keys(dir, gpu)? {
        let store = HistoryStore::open(dir, &key)?;
        let all = store.all_series()?;
        // Run ids are UTC start times: the latest sorts last.
        let id = match run_id {
            Some(id) => id.to_string(),
            None => match all.runs.iter().map(|m| &m.run_id).max() {
                Some(id) => id.clone(),
                None => continue,
            },
        };
        let found = all_change_points(&all, Some(TIME_METRIC), &options(), 2);
        let changes: Vec<(String, RunMeta, ChangePoint)> =
            found.iter().map(|f| (all.series[f.series].trial.clone(), all.runs[f.run].clone(), f.change)).collect();
        for m in all.runs.iter().filter(|m| m.run_id == id) {
            let Some(run) = store.run(&m.run_id, &m.gpu_uuid)? else { continue };
            let d = decide(&run, &changes);
            gated += 1;
            worst = worst.min(d.outcome);
            let what = match d.outcome {
                Outcome::Regressed => "REGRESSED",
                Outcome::Invalid => "INVALID",
                Outcome::Pass => "pass",
            };
            out.push_str(&format!("{key} {} {} {}: {what}\n", m.run_id, gpu_short(&m.gpu_uuid), short(&m.commit)));
            for r in d.reasons {
                out.push_str(&format!("  {r}\n"));
            }
        }
    }
    if gated == 0 {
        return Err(Error::History {
            path: dir.to_path_buf(),
            line: None,
            message: match run_id {
                Some(id) => {
                    format!("no run {id:?} in {}; `kernelgate history runs` lists them", gpu.unwrap_or("any history"))
                }
                None => "no run in the history; nothing to gate".into(),
            },
        });
    }
    Ok((out, worst))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "nvidia-h200-sm90";

    #[test]
    fn sides_on_other_physical_gpus_are_named() {
        let a = run("20261130T000000Z", "GPU-aaaaaaaa-1", &"a".repeat(40), "s", 1e-4);
        let b = run("20261130T010000Z", "GPU-bbbbbbbb-2", &"b".repeat(40), "s", 1e-4);
        let note = other_gpus_note(std::slice::from_ref(&a), std::slice::from_ref(&b)).unwrap();
        assert!(note.contains("old: GPU-aaaaaaaa; new: GPU-bbbbbbbb"), "{note}");
        assert_eq!(other_gpus_note(std::slice::from_ref(&a), std::slice::from_ref(&a)), None);
    }

    #[test]
    fn the_nightly_exit_code_keeps_the_kinds_apart() {
        assert_eq!(nightly_exit(0, Outcome::Pass).0, 0);
        assert_eq!(nightly_exit(0, Outcome::Regressed).0, EXIT_REGRESSED);
        assert_eq!(nightly_exit(0, Outcome::Invalid).0, EXIT_INVALID);
        assert_eq!(nightly_exit(3, Outcome::Pass).0, EXIT_REGRESSED);
        assert_eq!(nightly_exit(2, Outcome::Pass).0, 2);
        let (code, why) = nightly_exit(101, Outcome::Regressed);
        assert_eq!(code, 1);
        assert!(why.unwrap().contains("exit 101"));
    }

    /// A synthetic run (made-up numbers, not a measurement): trials `fam/k/1` and `fam/k/2`, each
    /// with `median` (s), `noise` (%) and one counter; `fam/k/1`'s median is `median`.
    fn run(run_id: &str, gpu_uuid: &str, commit: &str, subject: &str, median: f64) -> Run {
        let mut r = crate::history::tests::run(run_id, gpu_uuid, commit, 0);
        r.meta.subject = subject.into();
        for (trial, t) in [("fam/k/1", median), ("fam/k/2", 2e-4)] {
            for (metric, unit, value) in
                [("median", "s", t), ("noise", "%", 0.5), ("dram__bytes_read.sum", "byte", 1e6)]
            {
                r.values.push(Value {
                    trial: trial.into(),
                    kernel: "k".into(),
                    metric: metric.into(),
                    unit: unit.into(),
                    value,
                    ci_low: None,
                    ci_high: None,
                    verdict: "unchanged".into(),
                    decided_by: "time".into(),
                });
            }
        }
        r
    }

    /// Synthetic noise in [0, 0.004): deterministic, not a measurement.
    fn wobble(i: usize) -> f64 {
        0.004 * ((i * 7919) % 13) as f64 / 13.0
    }

    fn commit(i: usize) -> String {
        format!("c0f{i:02}{}", "e".repeat(35))
    }

    /// 30 commits, each run once on GPU-aaaa and once on GPU-bbbb (5 % slower machine); `fam/k/1`
    /// becomes 30 % slower on both from commit 20 on. Run ids are in commit order.
    fn store_with_step(dir: &Path) {
        let mut store = HistoryStore::open(dir, KEY).unwrap();
        for i in 0..30 {
            for (g, uuid) in ["GPU-aaaa-0000-1111", "GPU-bbbb-0000-1111"].into_iter().enumerate() {
                let level = if i >= 20 { 1.3e-4 } else { 1e-4 };
                let value = level * (1.0 + 0.05 * g as f64 + wobble(i + g));
                let mut r =
                    run(&format!("202611{:02}T000000Z", i + 1), uuid, &commit(i), &format!("change {i}"), value);
                r.meta.commit_time = Some(1_764_000_000 + i as i64);
                store.append(&r).unwrap();
            }
        }
    }

    #[test]
    fn specs_are_told_apart() {
        assert_eq!(Spec::parse("runs/x.csv").unwrap(), Spec::File("runs/x.csv".into()));
        assert_eq!(
            Spec::parse("20261130T120000Z@GPU-20ce").unwrap(),
            Spec::Run { run_id: "20261130T120000Z".into(), gpu_uuid: Some("GPU-20ce".into()) }
        );
        assert_eq!(
            Spec::parse("20261130T120000Z-2").unwrap(),
            Spec::Run { run_id: "20261130T120000Z-2".into(), gpu_uuid: None }
        );
        assert_eq!(Spec::parse("C0FFEE").unwrap(), Spec::Commit("c0ffee".into()));
        for bad in ["abc", "main", "c0ffee@GPU"] {
            let err = Spec::parse(bad).unwrap_err().to_string();
            assert!(err.contains("neither a run CSV"), "{bad}: {err}");
        }
    }

    #[test]
    fn sides_resolve_from_commits_and_run_ids() {
        let dir = tempfile::tempdir().unwrap();
        store_with_step(dir.path());
        // A commit: its runs on both GPUs.
        let side = resolve_side(dir.path(), &commit(3)[..10], None).unwrap();
        assert_eq!(side.runs.len(), 2);
        assert_eq!(side.side.label, format!("{} change 3", &commit(3)[..7]));
        assert_eq!(side.side.gpu, KEY);
        assert_eq!(side.rows.len(), 12);
        // A run id on two GPUs is ambiguous until one is picked.
        let err = resolve_side(dir.path(), "20261104T000000Z", None).unwrap_err().to_string();
        assert!(err.contains("several GPUs") && err.contains("20261104T000000Z@GPU-bbbb-0000-1111"), "{err}");
        let side = resolve_side(dir.path(), "20261104T000000Z@GPU-bbbb", Some(KEY)).unwrap();
        assert_eq!(side.runs.len(), 1);
        assert_eq!(side.side.gpu, format!("{KEY} (GPU-bbbb-000)"));
        // A prefix of several commits, and none.
        let err = resolve_side(dir.path(), "c0f1", None).unwrap_err().to_string();
        assert!(
            err.contains("ambiguous") && err.contains("c0f10ee change 10") && err.contains("change 19\ngive more"),
            "{err}"
        );
        let err = resolve_side(dir.path(), "dead", None).unwrap_err().to_string();
        assert!(err.contains("no run of a commit starting \"dead\"") && err.contains("change 29"), "{err}");
        assert!(err.contains("10 older commits not shown"), "{err}");
        let err = resolve_side(dir.path(), "20991231T000000Z", None).unwrap_err().to_string();
        assert!(err.contains("no run \"20991231T000000Z\""), "{err}");
        // The same commit in two GPU keys needs --gpu.
        let mut other = HistoryStore::open(dir.path(), "nvidia-l4-sm89").unwrap();
        let mut r = run("20261101T000000Z", "GPU-cccc", &commit(0), "change 0", 1e-4);
        r.meta.gpu_key = "nvidia-l4-sm89".into();
        other.append(&r).unwrap();
        let err = resolve_side(dir.path(), &commit(0), None).unwrap_err().to_string();
        assert!(err.contains("several GPU keys (nvidia-h200-sm90, nvidia-l4-sm89); pass --gpu"), "{err}");
        assert_eq!(resolve_side(dir.path(), &commit(0), Some("nvidia-l4-sm89")).unwrap().runs.len(), 1);
        let err = resolve_side(dir.path(), &commit(0), Some("nvidia-a100-sm80")).unwrap_err().to_string();
        assert!(err.contains("no history for GPU key \"nvidia-a100-sm80\""), "{err}");
    }

    #[test]
    fn a_run_csv_is_a_side_with_its_metrics() {
        let dir = tempfile::tempdir().unwrap();
        let header = "schema_version,run_id,commit,dirty,gpu_key,gpu_name,compute_capability,sm_count,memory_mib,\
            driver,cuda,nvrtc,ecc,gpu_uuid,gpu_serial,vbios,pci_bus_id,copy_bandwidth_gbps,seed,work_scale,trial,\
            kernel,module_sha256,verdict,decided_by,ab_revision,throttle_reasons,other_processes,statistic,value,unit";
        let c = "a".repeat(40);
        let row = format!(
            "4,20260101T000000Z,{c},false,{KEY},Test GPU,9.0,1,1,d,c,n,true,GPU-x,s,v,p,1.0,7,1.0,fam/k/1,k,h,regressed,time,,,"
        );
        let csv = dir.path().join("20260101T000000Z.csv");
        std::fs::write(&csv, format!("{header}\n{row},median,0.25,s\n{row},noise,1.5,%\n")).unwrap();
        std::fs::write(
            dir.path().join("20260101T000000Z-metrics.csv"),
            format!(
                "schema_version,run_id,commit,dirty,gpu_key,ncu_version,clock_control,chip,trial,kernel,metric,value,unit\n\
                 4,20260101T000000Z,{c},false,{KEY},2025.3,none,384,fam/k/1,k,dram__bytes_read.sum,100.0,byte\n"
            ),
        )
        .unwrap();
        let side = resolve_side(&dir.path().join("no-history"), csv.to_str().unwrap(), None).unwrap();
        assert_eq!(side.side.label, "20260101T000000Z.csv (aaaaaaa)");
        assert_eq!(side.gpu_key, KEY);
        let metrics: Vec<&str> = side.rows.iter().map(|m| m.metric.as_str()).collect();
        assert!(metrics.contains(&"median") && metrics.contains(&"dram__bytes_read.sum"), "{metrics:?}");
        assert!(side.rows.iter().all(|m| m.verdict == "regressed"));
        let err = resolve_side(dir.path(), "missing.csv", None).unwrap_err().to_string();
        assert!(err.contains("missing.csv"), "{err}");
    }

    #[test]
    fn change_points_are_found_per_gpu_and_mapped_back() {
        // Synthetic: GPU a and b interleaved, b 5 % slower; a steps up 30 % at its 12th value; a
        // NaN on a is skipped.
        let (mut gpus, mut values) = (Vec::new(), Vec::new());
        for i in 0..24 {
            gpus.push("a");
            values.push(if i >= 12 { 1.3 } else { 1.0 } + wobble(i));
            gpus.push("b");
            values.push(1.05 + wobble(i + 5));
        }
        values[2] = f64::NAN;
        let found = per_gpu_change_points(&gpus, &values, &options());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, 24, "the 12th value of GPU a is point 24");
        assert!((found[0].1.change - 0.3).abs() < 0.01, "{:?}", found[0].1);
        // Mixed into one series, the machine offset alone is a change point: why they are split.
        let mixed: Vec<f64> = (0..48).map(|i| if i < 24 { 1.0 } else { 1.05 } + wobble(i)).collect();
        assert!(!changepoint::detect(&mixed, &options()).unwrap().is_empty());
        let found = per_gpu_change_points(
            &vec!["a"; 24].into_iter().chain(vec!["b"; 24]).collect::<Vec<_>>(),
            &mixed,
            &options(),
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn trends_and_show_mark_the_step_on_each_gpu() {
        let dir = tempfile::tempdir().unwrap();
        store_with_step(dir.path());
        let trends = trends(dir.path(), KEY, &["fam/k/1", "fam/k/2", "fam/none/1"]).unwrap();
        assert_eq!(trends.len(), 2, "a trial without history has no trend");
        let t = &trends[0];
        assert_eq!((t.trial.as_str(), t.unit.as_str(), t.points.len()), ("fam/k/1", "s", 60));
        let at: Vec<(&str, &str)> =
            t.change_points.iter().map(|&i| (t.points[i].label.as_str(), t.points[i].gpu.as_str())).collect();
        assert_eq!(at, [(&commit(20)[..7], "GPU-aaaa-000"), (&commit(20)[..7], "GPU-bbbb-000")]);
        assert!(trends[1].change_points.is_empty());

        let text = show(dir.path(), None, "fam/k/1", "median").unwrap();
        assert!(text.starts_with("fam/k/1 median on nvidia-h200-sm90: 60 runs\n"), "{text}");
        assert!(
            text.contains(&format!(
                "  {}  20261101T000000Z   GPU-aaaa-000       100.0 us  unchanged\n",
                &commit(0)[..7]
            )),
            "{text}"
        );
        let cps: Vec<&str> = text.lines().filter(|l| l.contains("change point at")).collect();
        assert_eq!(cps.len(), 2, "{text}");
        assert!(
            cps[0].starts_with(&format!("  GPU-aaaa-000: change point at {} (change 20): +3", &commit(20)[..7])),
            "{text}"
        );
        let err = show(dir.path(), None, "fam/k/9", "median").unwrap_err().to_string();
        assert!(err.contains("no median of trial \"fam/k/9\""), "{err}");
    }

    #[test]
    fn changes_are_newest_first_and_since_filters() {
        let dir = tempfile::tempdir().unwrap();
        store_with_step(dir.path());
        let text = changes(dir.path(), None, None, None).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("nvidia-h200-sm90: 2 change points ("), "{text}");
        assert!(lines[1].starts_with("  GPU-bbbb-000 fam/k/1 median 20261121T000000Z at "), "{text}");
        assert!(lines[2].starts_with("  GPU-aaaa-000 fam/k/1 median 20261121T000000Z at "), "{text}");
        let text = changes(dir.path(), Some(KEY), Some("median"), Some(&commit(21)[..12])).unwrap();
        assert!(text.starts_with("nvidia-h200-sm90: 0 change points"), "{text}");
        let err = changes(dir.path(), None, None, Some("c0f1")).unwrap_err().to_string();
        assert!(err.contains("more than one commit"), "{err}");
    }

    #[test]
    fn the_gate_decides_on_verdicts_and_change_points() {
        let base = run("20261201T000000Z", "GPU-a", &commit(5), "s", 1e-4);
        assert_eq!(decide(&base, &[]).outcome, Outcome::Pass);
        let mut invalid = base.clone();
        invalid.values[3].verdict = "invalid".into();
        let d = decide(&invalid, &[]);
        assert_eq!((d.outcome, d.outcome.exit_code()), (Outcome::Invalid, 4));
        assert_eq!(d.reasons, ["invalid: fam/k/2 (decided by time)"]);
        let mut regressed = invalid.clone();
        regressed.values[0].verdict = "regressed".into();
        let d = decide(&regressed, &[]);
        assert_eq!((d.outcome, d.outcome.exit_code()), (Outcome::Regressed, 3));
        assert_eq!(d.reasons, ["regressed: fam/k/1 (decided by time)", "invalid: fam/k/2 (decided by time)"]);

        let cp = ChangePoint { index: 5, before: 1e-4, after: 1.3e-4, change: 0.3, p_value: 1e-9 };
        let here = base.meta.clone();
        let d = decide(&base, &[("fam/k/1".into(), here.clone(), cp)]);
        assert_eq!(d.outcome, Outcome::Regressed);
        assert!(
            d.reasons[0].starts_with("change point: fam/k/1 at c0f05ee (s): +30.0 % (mean 100.0 us -> 130.0 us)"),
            "{:?}",
            d.reasons
        );
        let faster = ChangePoint { before: 1.3e-4, after: 1e-4, change: -0.23, ..cp };
        assert_eq!(decide(&base, &[("fam/k/1".into(), here.clone(), faster)]).outcome, Outcome::Pass);
        let elsewhere = RunMeta { commit: commit(4), ..here.clone() };
        assert_eq!(decide(&base, &[("fam/k/1".into(), elsewhere, cp)]).outcome, Outcome::Pass);
        let other_gpu = RunMeta { gpu_uuid: "GPU-b".into(), ..here };
        assert_eq!(decide(&base, &[("fam/k/1".into(), other_gpu, cp)]).outcome, Outcome::Pass);
    }

    #[test]
    fn append_many_is_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = HistoryStore::open(dir.path(), KEY).unwrap();
        let a = run("20261101T000000Z", "GPU-a", &commit(0), "s", 1e-4);
        let b = run("20261102T000000Z", "GPU-a", &commit(1), "s", 1e-4);
        assert_eq!(store.append_many(&[a.clone(), b.clone()]).unwrap(), 12);
        assert_eq!(store.append_many(std::slice::from_ref(&a)).unwrap(), 0, "idempotent as append");
        let c = run("20261103T000000Z", "GPU-a", &commit(2), "s", 1e-4);
        let mut changed = b;
        changed.values[0].value = 2e-4;
        let err = store.append_many(&[c, changed]).unwrap_err().to_string();
        assert!(err.contains("stored already"), "{err}");
        assert_eq!(store.runs(None).unwrap().len(), 2, "the run before the conflict was not appended either");
    }

    #[test]
    fn the_gate_reads_the_latest_run() {
        let dir = tempfile::tempdir().unwrap();
        let err = gate(dir.path(), None, None).unwrap_err().to_string();
        assert!(err.contains("no history here"), "{err}");
        store_with_step(dir.path());
        let (text, outcome) = gate(dir.path(), None, None).unwrap();
        assert_eq!(outcome, Outcome::Pass, "{text}");
        assert_eq!(text.lines().count(), 2, "both GPUs of the latest run id: {text}");
        // The runs of the step's commit: its change point is an increase there.
        let (text, outcome) = gate(dir.path(), Some(KEY), Some("20261121T000000Z")).unwrap();
        assert_eq!(outcome, Outcome::Regressed, "{text}");
        assert!(text.contains("REGRESSED\n  change point: fam/k/1 at "), "{text}");
        let err = gate(dir.path(), None, Some("20991231T000000Z")).unwrap_err().to_string();
        assert!(err.contains("no run \"20991231T000000Z\""), "{err}");
    }

    /// Issue 9's benchmark: 1,001,000 synthetic values (35 trials x 20 metrics x 1,430 runs, on two
    /// physical GPUs; made-up numbers with a 5 % step in one trial) stored in bulk, then timed:
    /// open + load every series + change points of every series per GPU (2 threads). Prints the
    /// seconds. `cargo test --release --lib history::query::tests::bench_changes -- --ignored --nocapture`.
    #[test]
    #[ignore = "benchmark: prints timings"]
    fn bench_changes() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = HistoryStore::open(dir.path(), KEY).unwrap();
        let start = std::time::Instant::now();
        let runs: Vec<Run> = (0..1430)
            .map(|i| {
                let uuid = if i % 2 == 0 { "GPU-aaaa" } else { "GPU-bbbb" };
                let mut r = run(&format!("run-{i:05}"), uuid, &format!("{i:040x}"), "synthetic", 0.0);
                r.meta.commit_time = Some(1_700_000_000 + i as i64);
                r.values.clear();
                for t in 0..35 {
                    for m in 0..20 {
                        let step = if t == 0 && i >= 1000 { 1.05 } else { 1.0 };
                        r.values.push(Value {
                            trial: format!("fam/k{t}/1"),
                            kernel: "k".into(),
                            metric: if m == 0 { "median".into() } else { format!("counter_{m}.sum") },
                            unit: if m == 0 { "s".into() } else { "".into() },
                            value: (1.0 + m as f64) * step * (1.0 + wobble(i * 31 + t * 7 + m)),
                            ci_low: None,
                            ci_high: None,
                            verdict: "unchanged".into(),
                            decided_by: "time".into(),
                        });
                    }
                }
                r
            })
            .collect();
        assert_eq!(store.append_many(&runs).unwrap(), 1_001_000);
        println!("append_many of 1,001,000 values: {:.2} s", start.elapsed().as_secs_f64());
        drop(store);
        let start = std::time::Instant::now();
        let store = HistoryStore::open(dir.path(), KEY).unwrap();
        let all = store.all_series().unwrap();
        let loaded = start.elapsed().as_secs_f64();
        let found = all_change_points(&all, None, &options(), 2);
        let total = start.elapsed().as_secs_f64();
        println!(
            "open + load {} values in {} series: {loaded:.3} s; + change points per GPU ({} found): {total:.3} s",
            all.series.iter().map(|s| s.points.len()).sum::<usize>(),
            all.series.len(),
            found.len()
        );
        // The step is in every metric of fam/k0/1, on both GPUs; nothing else moves.
        assert_eq!(found.len(), 40);
        assert!(found.iter().all(|f| all.series[f.series].trial == "fam/k0/1"
            && ["run-01000", "run-01001"].contains(&all.runs[f.run].run_id.as_str())));
    }
}
