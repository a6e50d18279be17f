//! Series and their change points: per physical GPU, trends for the report, `history show` and
//! `history changes`.

use super::*;

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
/// Those of [`HistoryStore::open_read`] (`baselines` as it takes it) and [`HistoryStore::series`];
/// none when `gpu_key` has no store (no trends then).
pub fn trends(dir: &Path, gpu_key: &str, trials: &[&str], baselines: &Path) -> Result<Vec<Trend>> {
    let path = store::store_path(dir, gpu_key)?;
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let store = HistoryStore::open_read(dir, gpu_key, baselines)?;
    let mut out = Vec::new();
    for trial in trials {
        let series = store.series(trial, TIME_STATISTIC)?;
        if let Some(t) = trend(trial, &series) {
            out.push(t);
        }
    }
    Ok(out)
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
    Some(Trend { trial: trial.to_string(), metric: TIME_STATISTIC.into(), unit, points, change_points })
}

/// `kernelgate history show TRIAL`: the trial's `metric` series of each GPU key (or of `gpu`), one
/// line per run, then its change points per physical GPU ([`format_show`] of [`show_series`]).
/// `baselines` is the project's baselines folder as messages show it, which the fix names when
/// there is no history or a store is damaged ([`crate::history::import_command`]).
///
/// # Errors
/// Those of [`show_series`].
pub fn show(dir: &Path, gpu: Option<&str>, trial: &str, metric: &str, baselines: &Path) -> Result<String> {
    Ok(show_series(dir, gpu, trial, metric, baselines)?
        .iter()
        .map(|(key, series)| format_show(key, trial, metric, series))
        .collect())
}

/// One GPU key's series of a trial: the key, and each run's meta and value, oldest first.
pub type KeySeries = (String, Vec<(RunMeta, Value)>);

/// The series [`show`] prints: per GPU key that has the trial's `metric` (every key, or `gpu`), the
/// key and its series ([`HistoryStore::series`]: chronological, one point per run). Never empty.
/// `baselines` is the project's baselines folder as messages show it, which the fix names when
/// there is no history or a store is damaged ([`crate::history::import_command`]).
///
/// # Errors
/// [`Error::History`] when no store has the trial's metric (naming what was searched), and errors
/// of opening stores.
pub fn show_series(
    dir: &Path,
    gpu: Option<&str>,
    trial: &str,
    metric: &str,
    baselines: &Path,
) -> Result<Vec<KeySeries>> {
    let mut out = Vec::new();
    for key in keys(dir, gpu, baselines)? {
        let series = HistoryStore::open_read(dir, &key, baselines)?.series(trial, metric)?;
        if !series.is_empty() {
            out.push((key, series));
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

/// The change points [`format_show`] prints for one series (pure): those of the points in the
/// first point's unit (points in another unit do not compare), per physical GPU
/// ([`per_gpu_change_points`], [`options`]), as `(index in series, change point)`, the index being
/// that of the first point of the new regime. Empty for an empty series.
pub fn series_change_points(series: &[(RunMeta, Value)]) -> Vec<(usize, ChangePoint)> {
    let Some(unit) = series.first().map(|(_, v)| &v.unit) else { return Vec::new() };
    let same: Vec<usize> = (0..series.len()).filter(|&i| series[i].1.unit == *unit).collect();
    let gpus: Vec<&str> = same.iter().map(|&i| series[i].0.gpu_uuid.as_str()).collect();
    let values: Vec<f64> = same.iter().map(|&i| series[i].1.value).collect();
    per_gpu_change_points(&gpus, &values, &options()).into_iter().map(|(i, cp)| (same[i], cp)).collect()
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
    let found = series_change_points(series);
    out.push_str(&format!(
        "change points ({}, per GPU, min magnitude {} %): {}\n",
        changepoint::METHOD,
        100.0 * GATE_MIN_MAGNITUDE,
        if found.is_empty() { "none" } else { "" }
    ));
    for (i, cp) in found {
        let m = &series[i].0;
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
/// `since`, only those at or after the first run of that commit (a prefix). The text of
/// [`find_changes`], by [`format_changes`]. `baselines` as [`find_changes`] takes it.
///
/// # Errors
/// Those of [`find_changes`].
pub fn changes(
    dir: &Path,
    gpu: Option<&str>,
    metric: Option<&str>,
    since: Option<&str>,
    baselines: &Path,
) -> Result<String> {
    Ok(find_changes(dir, gpu, metric, since, baselines)?
        .iter()
        .map(|k| format_changes(&k.gpu_key, &k.all, &k.found, k.from))
        .collect())
}

/// One GPU key's answer to [`find_changes`].
#[derive(Debug, Clone, PartialEq)]
pub struct KeyChanges {
    /// The GPU key.
    pub gpu_key: String,
    /// Its every series.
    pub all: AllSeries,
    /// The change points of the chosen series ([`all_change_points`]), newest first.
    pub found: Vec<Found>,
    /// Index in `all.runs` of the first run of `since`'s commit (0 without `since`): the change
    /// points at earlier runs are not asked for.
    pub from: usize,
}

/// What [`changes`] prints, per GPU key (every key, or `gpu`): its series, their change points
/// ([`all_change_points`] of `metric`, every metric for `None`) and where `since` starts.
/// `baselines` is the project's baselines folder as messages show it, which the fix names when
/// there is no history or a store is damaged ([`crate::history::import_command`]).
///
/// # Errors
/// [`Error::History`] when `since` matches no stored commit of a key, or several; errors of
/// opening and reading stores.
pub fn find_changes(
    dir: &Path,
    gpu: Option<&str>,
    metric: Option<&str>,
    since: Option<&str>,
    baselines: &Path,
) -> Result<Vec<KeyChanges>> {
    let mut out = Vec::new();
    for key in keys(dir, gpu, baselines)? {
        let store = HistoryStore::open_read(dir, &key, baselines)?;
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
        out.push(KeyChanges { gpu_key: key, all, found, from });
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
