//! `kernelgate history import`: run CSVs (`<stem>.csv`, every run-CSV schema from 1 to
//! `crate::record::RUN_CSV_SCHEMA`) and their ncu metrics CSVs (`<stem>-metrics.csv`), as runs leave
//! them under `<out>/runs/` and as they are committed under `baselines/*/runs/`, into the history
//! store of each run's GPU key; a run CSV brings the ceilings of the `<stem>-ceilings.csv` beside it
//! ([`super::ceilings`]).
//!
//! Every run CSV statistic becomes a [`Value`] named by its statistic (`median`, `noise`, ...); every
//! metrics row a [`Value`] named by ncu's metric, with the verdict of its trial from the run CSV.
//! Fields an older schema lacks are unknown: `gpu_uuid` `unknown` before schema 4, `work_scale` 1
//! before schema 3 (the power benchmark came with it), verdicts empty in schema 1. A run's commit
//! time and subject are read from the repository when it holds the commit. Every file is read and
//! checked before anything is appended (values finite and in their range, [`super::value_problem`];
//! each statistic of a trial once per run); an empty file, which a run that recorded nothing
//! leaves, is skipped with a warning; importing twice adds nothing.

use super::{HistoryStore, Run, RunMeta, Value};
use crate::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Run-CSV columns of each schema version (index 0 is version 1), from `crate::record::Row` as it
/// was at each version (`git log -p harness/record.rs`).
const RUN_COLUMNS: [&str; 6] = [
    "schema_version,run_id,commit,dirty,gpu_key,gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,nvrtc,\
     ecc,copy_bandwidth_gbps,seed,trial,kernel,statistic,value,unit",
    "schema_version,run_id,commit,dirty,gpu_key,gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,nvrtc,\
     ecc,copy_bandwidth_gbps,seed,trial,kernel,module_sha256,verdict,statistic,value,unit",
    "schema_version,run_id,commit,dirty,gpu_key,gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,nvrtc,\
     ecc,copy_bandwidth_gbps,seed,work_scale,trial,kernel,module_sha256,verdict,throttle_reasons,other_processes,\
     statistic,value,unit",
    "schema_version,run_id,commit,dirty,gpu_key,gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,nvrtc,\
     ecc,gpu_uuid,gpu_serial,vbios,pci_bus_id,copy_bandwidth_gbps,seed,work_scale,trial,kernel,module_sha256,verdict,\
     decided_by,ab_revision,throttle_reasons,other_processes,statistic,value,unit",
    "schema_version,run_id,commit,dirty,kernels_dirty,kernels_sha256,branch,commit_time,subject,repo_state,gpu_key,\
     gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,nvrtc,ecc,gpu_uuid,gpu_serial,vbios,pci_bus_id,\
     copy_bandwidth_gbps,seed,work_scale,trial,kernel,module_sha256,verdict,decided_by,ab_revision,throttle_reasons,\
     other_processes,statistic,value,unit",
    "schema_version,run_id,commit,dirty,kernels_dirty,kernels_sha256,branch,commit_time,subject,repo_state,gpu_key,\
     gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,nvrtc,ecc,gpu_uuid,gpu_serial,vbios,pci_bus_id,\
     copy_bandwidth_gbps,seed,work_scale,trial,kernel,module_sha256,verdict,decided_by,ab_revision,throttle_reasons,\
     other_processes,median_ci_low_s,median_ci_high_s,statistic,value,unit",
];

/// Metrics-CSV columns (`crate::ncu::profile::MetricRow`), the same in schema versions 1 to 4.
const METRICS_COLUMNS: &str =
    "schema_version,run_id,commit,dirty,gpu_key,ncu_version,clock_control,chip,trial,kernel,metric,value,unit";

/// Which file a CSV is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A run CSV of the given schema version.
    Run(u32),
    /// An ncu metrics CSV.
    Metrics,
}

/// What [`import`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Imported {
    /// CSV files read.
    pub files: usize,
    /// Runs found in them.
    pub runs: usize,
    /// Values that the stores did not have yet.
    pub new_rows: usize,
    /// One sentence per file skipped (an empty run CSV) or imported with a caveat (a metrics CSV
    /// without its run CSV), naming the file; for the caller to print as warnings.
    pub warnings: Vec<String>,
}

impl std::fmt::Display for Imported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "{} run{}, {} new row{} (from {} file{})",
            self.runs,
            s(self.runs),
            self.new_rows,
            s(self.new_rows),
            self.files,
            s(self.files)
        )
    }
}

/// Parses one run CSV or metrics CSV (pure): its kind and its runs, grouped by (run id, GPU UUID) in
/// the order they first appear; a metrics CSV's runs have GPU UUID `unknown` and `ncu` set.
///
/// # Errors
/// [`Error::History`] naming `path` and the line: an empty file (a run that recorded nothing), a
/// header of no known schema, a row of another schema version than its header, a field that does
/// not parse (`dirty`, `value`, `work_scale`), a value no run measures ([`super::value_problem`]),
/// an empty run id, trial or metric, a statistic of a run CSV given twice for one trial of one run
/// (naming both lines), or rows of one run that disagree on the run's fields.
pub fn parse_csv(text: &str, path: &Path) -> Result<(Kind, Vec<Run>)> {
    let bad =
        |line: u64, message: String| Error::History { path: path.to_path_buf(), line: Some(line as usize), message };
    if text.trim().is_empty() {
        let message = format!(
            "{} to import or compare: pick another run's CSV, or delete it (importing its folder skips it with a \
             warning)",
            empty_file(text)
        );
        return Err(Error::History { path: path.to_path_buf(), line: None, message });
    }
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| bad(1, format!("not CSV: {e}")))?.iter().collect::<Vec<_>>().join(",");
    let kind = if header == METRICS_COLUMNS {
        Kind::Metrics
    } else if let Some(i) = RUN_COLUMNS.iter().position(|c| *c == header) {
        Kind::Run(i as u32 + 1)
    } else if ["schema_version,trial,kernel,metric,", "schema_version,trial,index,seconds"]
        .iter()
        .any(|h| header.starts_with(h))
    {
        return Err(bad(
            1,
            "this is a baseline file (baselines/<gpu key>/baseline.csv or samples.csv), not a run CSV: compare a run \
             with a baseline with `kernelgate compare`, or give the run CSV (target/kernelgate/runs/<id>.csv)"
                .into(),
        ));
    } else {
        let newer = header.starts_with("schema_version,");
        return Err(bad(
            1,
            format!(
                "the header is not that of a kernelgate run CSV (schema 1 to {}) or metrics CSV{}; header: {header}",
                RUN_COLUMNS.len(),
                if newer { ": a newer kernelgate may have written it, import it with that version" } else { "" }
            ),
        ));
    };
    let columns: Vec<&str> = header.split(',').collect();
    let col = |name: &str| columns.iter().position(|c| *c == name);
    let mut runs: Vec<Run> = Vec::new();
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    // (run id, GPU UUID, trial, kernel, statistic, unit) -> the line and value first seen.
    let mut seen: HashMap<[String; 6], (u64, f64)> = HashMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| bad(e.position().map_or(0, |p| p.line()), format!("malformed row: {e}")))?;
        let line = record.position().map_or(0, |p| p.line());
        let get = |name: &str| col(name).and_then(|i| record.get(i)).unwrap_or("");
        let version = get("schema_version");
        let version_ok = match kind {
            Kind::Run(v) => version == v.to_string(),
            Kind::Metrics => version.parse::<u32>().is_ok_and(|v| (1..=crate::record::RUN_CSV_SCHEMA).contains(&v)),
        };
        if !version_ok {
            return Err(bad(line, format!("schema_version {version:?} does not match the file's header ({kind:?})")));
        }
        let number = |name: &str| -> Result<f64> {
            get(name).parse::<f64>().map_err(|_| bad(line, format!("{name} {:?} is not a number", get(name))))
        };
        // `kernel` may be empty in run CSVs: kernelgate 8e50198 and before wrote it empty for a
        // program of copies only (no kernel of its own).
        let kernel_required = kind == Kind::Metrics;
        let required = ["run_id", "trial", if kind == Kind::Metrics { "metric" } else { "statistic" }];
        for required in required.into_iter().chain(kernel_required.then_some("kernel")) {
            if get(required).is_empty() {
                return Err(bad(line, format!("{required} is empty")));
            }
        }
        let meta = RunMeta {
            run_id: get("run_id").into(),
            commit: get("commit").into(),
            // Schema 5 says whether the kernels differed from the commit; before it, `dirty` (any
            // tracked file, read at run time) is the closest there is.
            dirty: match get(if col("kernels_dirty").is_some() { "kernels_dirty" } else { "dirty" }) {
                "true" => Some(true),
                "false" => Some(false),
                "unknown" | "" => None,
                other => return Err(bad(line, format!("dirty {other:?} is not true, false or unknown"))),
            },
            kernels_sha256: get("kernels_sha256").into(),
            branch: get("branch").into(),
            commit_time: match get("commit_time") {
                "" => None,
                t => Some(t.parse::<i64>().map_err(|_| bad(line, format!("commit_time {t:?} is not Unix seconds")))?),
            },
            subject: get("subject").into(),
            gpu_key: get("gpu_key").into(),
            gpu_name: get("gpu_name").into(),
            gpu_uuid: col("gpu_uuid").map_or("unknown", |_| get("gpu_uuid")).into(),
            driver: get("driver").into(),
            cuda: get("cuda").into(),
            nvrtc: get("nvrtc").into(),
            ncu: get("ncu_version").into(),
            ab_revision: get("ab_revision").into(),
            work_scale: if col("work_scale").is_some() { number("work_scale")? } else { 1.0 },
        };
        // Schema 6 gives the median's 95 % interval on every row of the trial, in seconds: it
        // belongs to the `median` value (in seconds too), as the suite's own history rows have it.
        let is_median = kind != Kind::Metrics && get("statistic") == "median" && get("unit") == "s";
        let ci = |name: &str| -> Result<Option<f64>> {
            let end = if get(name).is_empty() { None } else { Some(number(name)?) };
            Ok(end.filter(|_| is_median))
        };
        let value = Value {
            trial: get("trial").into(),
            kernel: get("kernel").into(),
            metric: if kind == Kind::Metrics { get("metric") } else { get("statistic") }.into(),
            unit: get("unit").into(),
            value: number("value")?,
            ci_low: ci("median_ci_low_s")?,
            ci_high: ci("median_ci_high_s")?,
            verdict: get("verdict").into(),
            decided_by: get("decided_by").into(),
        };
        if let Some(problem) = super::value_problem(&value.metric, &value.unit, value.value) {
            return Err(bad(
                line,
                format!(
                    "{} {} of run {} {problem}, so kernelgate keeps it out of the history and out of every diff: \
                     correct the row from the run's log, or delete this trial's rows, then import again",
                    value.trial, value.metric, meta.run_id
                ),
            ));
        }
        if kind != Kind::Metrics {
            let id = [&meta.run_id, &meta.gpu_uuid, &value.trial, &value.kernel, &value.metric, &value.unit]
                .map(|t| t.to_string());
            if let Some((first, was)) = seen.insert(id, (line, value.value)) {
                return Err(bad(
                    line,
                    format!(
                        "{} {} ({}) of run {} is given twice, on line {first} ({was:?}) and here ({:?}); a run \
                         records each statistic of a trial once, so the file was concatenated or edited: keep the \
                         line the run wrote and delete the other (nothing was imported, nothing was averaged)",
                        value.trial, value.metric, value.unit, meta.run_id, value.value
                    ),
                ));
            }
        }
        let key = (meta.run_id.clone(), meta.gpu_uuid.clone());
        let at = *index.entry(key).or_insert_with(|| {
            runs.push(Run { meta: meta.clone(), values: Vec::new() });
            runs.len() - 1
        });
        if runs[at].meta != meta {
            return Err(bad(
                line,
                "this row's run fields (commit, GPU, driver, ...) differ from those of the run's first row; each run's rows must agree".to_string(),
            ));
        }
        runs[at].values.push(value);
    }
    if kind == Kind::Metrics {
        runs.iter_mut().for_each(|run| label_launches(&mut run.values));
    }
    Ok((kind, runs))
}

/// Why an empty CSV holds no run: its size and what leaves such a file.
fn empty_file(text: &str) -> String {
    format!(
        "the file is empty ({} bytes): a run that recorded nothing leaves it (a run killed before it wrote, a \
         sanitizer run that timed nothing), and it holds no run",
        text.len()
    )
}

/// The kernel labels of one metrics run's rows, in file order (pure). A metrics CSV lists, per
/// trial and metric, the combined row first and then one row per launch of a program of several
/// launches ([`crate::ncu::profile::rows`]). Launches read `kernel`, `kernel#2`, `kernel#3`, ... by
/// their order among the launches of that kernel, whatever the file wrote (72a91c3 and 8e50198
/// repeat the bare name, later files number them); a trial that launches one kernel several times
/// has its combined rows labelled with every launch joined by `+` (`k+k+k`), as 72a91c3 and the
/// current writer do, where 8c8c911 wrote the bare name and so two rows of one (trial, metric,
/// kernel).
fn label_launches(values: &mut [Value]) {
    let base = |label: &str| label.split_once('#').map_or(label, |(b, _)| b).to_string();
    let mut trials: Vec<&str> = Vec::new();
    for v in values.iter() {
        if !trials.contains(&v.trial.as_str()) {
            trials.push(&v.trial);
        }
    }
    let trials: Vec<String> = trials.into_iter().map(str::to_string).collect();
    for trial in trials {
        let rows: Vec<usize> = (0..values.len()).filter(|&i| values[i].trial == trial).collect();
        // Per metric, its rows in order: the first is the combined row, the rest its launches.
        let mut metrics: Vec<(String, Vec<usize>)> = Vec::new();
        for &i in &rows {
            match metrics.iter_mut().find(|(m, _)| *m == values[i].metric) {
                Some((_, at)) => at.push(i),
                None => metrics.push((values[i].metric.clone(), vec![i])),
            }
        }
        let mut launch_bases: Vec<String> = Vec::new();
        for (_, at) in &metrics {
            let bases: Vec<String> = at[1..].iter().map(|&i| base(&values[i].kernel)).collect();
            let mut seen: HashMap<String, usize> = HashMap::new();
            for (&i, b) in at[1..].iter().zip(&bases) {
                let n = seen.entry(b.clone()).or_insert(0);
                *n += 1;
                values[i].kernel = if *n == 1 { b.clone() } else { format!("{b}#{n}") };
            }
            if bases.len() > launch_bases.len() {
                launch_bases = bases;
            }
        }
        let Some(&first) = rows.first() else { continue };
        let combined = values[first].kernel.clone();
        if launch_bases.len() > 1 && !combined.contains('+') && launch_bases.iter().all(|b| *b == combined) {
            let every = launch_bases.join("+");
            for (_, at) in &metrics {
                values[at[0]].kernel = every.clone();
            }
        }
    }
}

/// Adds a metrics CSV's runs to the runs of the run CSV of the same stem (pure): each metrics run
/// joins the run of its run id, taking its ncu version; each metric takes its trial's verdict.
///
/// # Errors
/// [`Error::History`] naming `metrics_path` if a metrics run has no run of its id in the run CSV,
/// or several (rows of several GPUs), or another commit.
pub fn attach_metrics(runs: &mut [Run], metrics: Vec<Run>, metrics_path: &Path) -> Result<()> {
    let bad = |message: String| Error::History { path: metrics_path.to_path_buf(), line: None, message };
    for m in metrics {
        let mut same = runs.iter_mut().filter(|r| r.meta.run_id == m.meta.run_id);
        let (Some(run), None) = (same.next(), same.next()) else {
            return Err(bad(format!(
                "the run CSV beside it has no single run {} (none, or one per GPU), so its metrics cannot be placed",
                m.meta.run_id
            )));
        };
        if run.meta.commit != m.meta.commit || run.meta.gpu_key != m.meta.gpu_key {
            return Err(bad(format!("run {} has another commit or GPU key in the run CSV beside it", m.meta.run_id)));
        }
        run.meta.ncu = m.meta.ncu;
        let verdicts: BTreeMap<String, (String, String)> =
            run.values.iter().map(|v| (v.trial.clone(), (v.verdict.clone(), v.decided_by.clone()))).collect();
        for mut v in m.values {
            if let Some((verdict, decided_by)) = verdicts.get(&v.trial) {
                v.verdict = verdict.clone();
                v.decided_by = decided_by.clone();
            }
            run.values.push(v);
        }
    }
    Ok(())
}

/// Imports run CSVs and metrics CSVs into `<history_dir>/<gpu_key>.sqlite`. `paths` are files or
/// folders (a folder: its `*.csv` files, not ncu's `*-raw.csv` nor the lesson trials'
/// `*-lessons.csv`, [`crate::lesson_record`]); a run CSV brings the metrics CSV
/// beside it (`<stem>-metrics.csv`) and the other way round. A metrics CSV without its run CSV
/// joins the stored run of its run id (its GPU is then known); with none stored it is imported
/// alone, GPU `unknown`, and its run CSV joins it later ([`HistoryStore::append`]). An empty file
/// is skipped with a warning ([`Imported::warnings`]). With `repo`, commit time and subject come
/// from it. Every file is parsed before anything is appended, and the runs of each GPU key are
/// appended in one transaction: all of them or, on an error, none.
///
/// # Errors
/// [`Error::Io`] for a path that cannot be read; [`Error::History`] from [`parse_csv`],
/// [`attach_metrics`], [`HistoryStore::open`] (a damaged store) and [`HistoryStore::append_many`] (a
/// run that conflicts with its stored copy).
pub fn import(paths: &[PathBuf], history_dir: &Path, repo: Option<&git2::Repository>) -> Result<Imported> {
    let mut files = std::collections::BTreeSet::new();
    for p in paths {
        if p.is_dir() {
            for item in std::fs::read_dir(p).map_err(Error::io(p))? {
                let f = item.map_err(Error::io(p))?.path();
                let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
                let other = name.ends_with("-raw.csv") || name.ends_with(crate::lesson_record::LESSONS_CSV_SUFFIX);
                if f.is_file() && name.ends_with(".csv") && !other {
                    files.insert(f);
                }
            }
        } else {
            std::fs::metadata(p).map_err(Error::io(p))?;
            files.insert(p.clone());
        }
    }
    // Partners: `<stem>.csv`, `<stem>-metrics.csv` and `<stem>-ceilings.csv`, by the run CSV's path.
    let run_csv_of = |f: &Path| -> PathBuf {
        let s = f.to_string_lossy();
        match s.strip_suffix("-metrics.csv").or_else(|| s.strip_suffix(crate::ceilings::file::SUFFIX)) {
            Some(stem) => PathBuf::from(format!("{stem}.csv")),
            None => f.to_path_buf(),
        }
    };
    let mut groups: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for f in &files {
        groups.entry(run_csv_of(f)).or_default();
    }
    let mut out = Imported::default();
    let mut all = Vec::new();
    // Metrics CSVs without their run CSV: (file, its runs), placed once the stores are open.
    let mut alone = Vec::new();
    for run_csv in groups.keys() {
        let metrics_csv = PathBuf::from(format!("{}-metrics.csv", run_csv.to_string_lossy().trim_end_matches(".csv")));
        let mut load = |p: &Path| -> Result<Option<(Kind, Vec<Run>)>> {
            if !p.is_file() {
                return Ok(None);
            }
            let text = std::fs::read_to_string(p).map_err(Error::io(p))?;
            if text.trim().is_empty() {
                out.warnings.push(format!(
                    "{}: {}; skipped (delete it to silence this warning)",
                    p.display(),
                    empty_file(&text)
                ));
                return Ok(None);
            }
            out.files += 1;
            parse_csv(&text, p).map(Some)
        };
        let mut runs = None;
        match load(run_csv)? {
            // A metrics CSV named like a run CSV: taken alone.
            Some((Kind::Metrics, r)) => alone.push((run_csv.clone(), r)),
            Some((_, r)) => runs = Some(r),
            None => {}
        }
        if let Some((kind, metrics)) = load(&metrics_csv)? {
            if kind != Kind::Metrics {
                return Err(Error::History {
                    path: metrics_csv,
                    line: Some(1),
                    message: "named as a metrics CSV, but its header is a run CSV's".into(),
                });
            }
            match &mut runs {
                Some(runs) => attach_metrics(runs, metrics, &metrics_csv)?,
                None => alone.push((metrics_csv, metrics)),
            }
        }
        // The ceilings CSV beside it, a value of each of its trials (`super::ceilings`).
        if let Some(runs) = &mut runs
            && super::ceilings::beside(run_csv).is_file()
        {
            super::ceilings::attach(runs, &super::ceilings::beside(run_csv))?;
        }
        all.extend(runs.unwrap_or_default());
    }
    let mut by_key: BTreeMap<String, Vec<Run>> = BTreeMap::new();
    for run in all {
        by_key.entry(run.meta.gpu_key.clone()).or_default().push(run);
    }
    let mut alone_by_key: BTreeMap<String, Vec<(PathBuf, Run)>> = BTreeMap::new();
    for (path, runs) in alone {
        for run in runs {
            alone_by_key.entry(run.meta.gpu_key.clone()).or_default().push((path.clone(), run));
        }
    }
    for key in alone_by_key.keys() {
        by_key.entry(key.clone()).or_default();
    }
    for (key, mut runs) in by_key {
        let mut store = HistoryStore::open(history_dir, &key)?;
        for (path, metrics) in alone_by_key.remove(&key).unwrap_or_default() {
            runs.push(join_stored(&store, &runs, metrics, &path, &mut out.warnings)?);
        }
        if let Some(repo) = repo {
            for run in &mut runs {
                from_repository(repo, run);
            }
        }
        out.new_rows += store.append_many(&runs)?;
        out.runs += runs.len();
    }
    Ok(out)
}

/// The run a metrics CSV imported without its run CSV belongs to: the run of its run id among
/// `importing` (the run CSVs of this import) or stored in `store`, with the metrics attached
/// ([`attach_metrics`]: its ncu version, and each trial's verdict on its counters); the metrics
/// alone (GPU `unknown`, with a warning) when no such run is there yet.
///
/// # Errors
/// Those of [`attach_metrics`] and of reading the store.
fn join_stored(
    store: &HistoryStore,
    importing: &[Run],
    metrics: Run,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<Run> {
    let id = metrics.meta.run_id.clone();
    let found: Vec<Run> = match importing.iter().filter(|r| r.meta.run_id == id).cloned().collect::<Vec<_>>() {
        found if !found.is_empty() => found,
        _ => {
            let mut found = Vec::new();
            for r in store.runs(None)?.into_iter().filter(|r| r.meta.run_id == id) {
                found.extend(store.run(&r.meta.run_id, &r.meta.gpu_uuid)?);
            }
            found
        }
    };
    if found.is_empty() {
        warnings.push(format!(
            "{}: imported without its run CSV, so run {id} is stored with GPU unknown until that CSV is imported (it \
             then joins this run)",
            path.display()
        ));
        return Ok(metrics);
    }
    let mut found = found;
    attach_metrics(&mut found, vec![metrics], path)?;
    Ok(found.remove(0))
}

/// Fills `run`'s commit time and subject from `repo` when it holds the run's commit.
fn from_repository(repo: &git2::Repository, run: &mut Run) {
    if let Ok(c) = git2::Oid::from_str(&run.meta.commit).and_then(|oid| repo.find_commit(oid))
        && c.id().to_string() == run.meta.commit
    {
        run.meta.commit_time = Some(c.time().seconds());
        run.meta.subject = c.summary().ok().flatten().unwrap_or("").to_string();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthetic rows, one per schema (made-up values, not measurements).
    fn v1() -> String {
        format!(
            "{}\n1,20260101T000000Z,unknown,unknown,test-gpu-sm90,Test GPU,9.0,1,1,d,c,n,true,1.0,7,fam/k/1,k,median,0.5,s\n\
             1,20260101T000000Z,unknown,unknown,test-gpu-sm90,Test GPU,9.0,1,1,d,c,n,true,1.0,7,fam/k/1,k,noise,2.0,%\n",
            RUN_COLUMNS[0]
        )
    }

    fn v4(run_id: &str) -> String {
        format!(
            "{}\n4,{run_id},{c},false,test-gpu-sm90,Test GPU,9.0,1,1,d,c,n,true,GPU-x,s,v,p,1.0,7,1.0,fam/k/1,\"k,<T>\",h,\
             regressed,time,,,,median,0.25,s\n",
            RUN_COLUMNS[3],
            c = "a".repeat(40)
        )
    }

    fn metrics(run_id: &str) -> String {
        format!(
            "{METRICS_COLUMNS}\n4,{run_id},{c},false,test-gpu-sm90,2025.3,none,384,fam/k/1,\"k,<T>\",dram__bytes_read.sum,100.0,byte\n",
            c = "a".repeat(40)
        )
    }

    /// Rows of a metrics CSV for trial `fam/k/1` with `kernel,metric,value` each (made-up values).
    fn metrics_rows(rows: &[(&str, &str, f64)]) -> String {
        let mut text = format!("{METRICS_COLUMNS}\n");
        for (kernel, metric, value) in rows {
            text += &format!(
                "5,20260101T000000Z,{c},false,test-gpu-sm90,2025.3,none,384,fam/k/1,{kernel},{metric},{value},byte\n",
                c = "a".repeat(40)
            );
        }
        text
    }

    fn labels(text: &str) -> Vec<(String, String)> {
        let (_, runs) = parse_csv(text, Path::new("m.csv")).unwrap();
        runs[0].values.iter().map(|v| (v.kernel.clone(), v.metric.clone())).collect()
    }

    #[test]
    fn launches_of_one_kernel_get_one_labelling_whatever_wrote_them() {
        let x = "dram__bytes_write.sum";
        let expected: Vec<(String, String)> = ["k+k+k", "k+k+k", "k", "k#2", "k#3"]
            .iter()
            .zip(["derived", x, x, x, x])
            .map(|(k, m)| (k.to_string(), m.to_string()))
            .collect();
        // 72a91c3: every launch in the combined label, launches bare.
        let old = [("k+k+k", "derived", 1.0), ("k+k+k", x, 3.0), ("k", x, 1.0), ("k", x, 1.0), ("k", x, 1.0)];
        // 8c8c911: the combined row bare, launches numbered: two rows of (trial, metric, "k").
        let numbered = [("k", "derived", 1.0), ("k", x, 3.0), ("k", x, 1.0), ("k#2", x, 1.0), ("k#3", x, 1.0)];
        // Today's writer.
        let now = [("k+k+k", "derived", 1.0), ("k+k+k", x, 3.0), ("k", x, 1.0), ("k#2", x, 1.0), ("k#3", x, 1.0)];
        for rows in [&old[..], &numbered[..], &now[..]] {
            assert_eq!(labels(&metrics_rows(rows)), expected, "{rows:?}");
        }
        // Two kernels once each keep their names.
        let two = [("partials+final", x, 2.0), ("partials", x, 1.0), ("final", x, 1.0)];
        let got: Vec<String> = labels(&metrics_rows(&two)).into_iter().map(|(k, _)| k).collect();
        assert_eq!(got, ["partials+final", "partials", "final"]);
    }

    /// The run CSV the suite writes today reads back: this import cannot fall behind `record`.
    #[test]
    fn the_current_run_csv_round_trips() {
        use crate::record::{self, GitState, RepoState, RunInfo};
        let run = RunInfo {
            run_id: "20261130T030000Z".into(),
            seed: 7,
            git: GitState {
                commit: "c".repeat(40),
                dirty: Some(false),
                kernels_dirty: Some(true),
                branch: "main".into(),
                commit_time: Some(1_764_460_800),
                subject: "Pad, \"then\" swizzle".into(),
                state: RepoState::Branch,
            },
            kernels_sha256: "feed".into(),
            facts: record::tests::facts(),
            work_scale: 1.0,
            ab_revision: String::new(),
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.csv");
        let result = record::CaseResult { median_ci: Some(0.01), ..record::tests::result("fam/k/1", 1e-3, 8, 0) };
        record::write_csv(&path, &record::rows(&run, &[result])).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(",pci:00000000:18:00.0,4000.0,0x0000000000000007,"), "{text}");
        let (kind, runs) = parse_csv(&text, &path).unwrap();
        assert_eq!(kind, Kind::Run(crate::record::RUN_CSV_SCHEMA));
        let m = &runs[0].meta;
        assert_eq!((m.dirty, m.kernels_sha256.as_str(), m.branch.as_str()), (Some(true), "feed", "main"));
        assert_eq!((m.commit_time, m.subject.as_str()), (Some(1_764_460_800), "Pad, \"then\" swizzle"));
        assert!(runs[0].values.iter().any(|v| v.metric == "median" && v.value == 1e-3));
        // The median's interval, as the suite's own history rows have it, and on no other value.
        let median = runs[0].values.iter().find(|v| v.metric == "median").unwrap();
        assert_eq!((median.ci_low, median.ci_high), (Some(1e-3 * 0.99), Some(1e-3 * 1.01)));
        assert!(
            runs[0].values.iter().filter(|v| v.metric != "median").all(|v| v.ci_low.is_none() && v.ci_high.is_none())
        );
        // An interval that is not a number is refused with its line.
        let bad = text.replacen(&format!(",{},", 1e-3 * 0.99), ",low,", 1);
        assert_ne!(bad, text);
        let e = parse_csv(&bad, &path).unwrap_err().to_string();
        assert!(e.contains("run.csv:2:") && e.contains("median_ci_low_s \"low\" is not a number"), "{e}");
    }

    #[test]
    fn every_schema_parses_with_unknowns_for_what_it_lacks() {
        let (kind, runs) = parse_csv(&v1(), Path::new("a.csv")).unwrap();
        assert_eq!(kind, Kind::Run(1));
        assert_eq!(runs.len(), 1);
        let m = &runs[0].meta;
        assert_eq!((m.commit.as_str(), m.dirty, m.gpu_uuid.as_str(), m.work_scale), ("unknown", None, "unknown", 1.0));
        assert_eq!(runs[0].values.len(), 2);
        assert_eq!(runs[0].values[1].metric, "noise");
        assert_eq!(runs[0].values[1].verdict, "");

        let (kind, runs) = parse_csv(&v4("20260102T000000Z"), Path::new("b.csv")).unwrap();
        assert_eq!(kind, Kind::Run(4));
        assert_eq!(runs[0].meta.gpu_uuid, "GPU-x");
        assert_eq!(runs[0].meta.dirty, Some(false));
        let v = &runs[0].values[0];
        assert_eq!(
            (v.kernel.as_str(), v.verdict.as_str(), v.decided_by.as_str(), v.value),
            ("k,<T>", "regressed", "time", 0.25)
        );

        let (kind, m) = parse_csv(&metrics("20260102T000000Z"), Path::new("b-metrics.csv")).unwrap();
        assert_eq!(kind, Kind::Metrics);
        let mut runs = runs;
        attach_metrics(&mut runs, m, Path::new("b-metrics.csv")).unwrap();
        assert_eq!(runs[0].meta.ncu, "2025.3");
        assert_eq!(runs[0].values.len(), 2);
        assert_eq!(runs[0].values[1].verdict, "regressed", "a counter takes its trial's verdict");
        assert_eq!(runs[0].values[1].unit, "byte");
    }

    #[test]
    fn bad_files_are_refused_with_file_and_line() {
        let err = |text: &str| parse_csv(text, Path::new("runs/x.csv")).unwrap_err().to_string();
        let e = err("schema_version,run_id,whatever\n9,a,b\n");
        assert!(e.starts_with("runs/x.csv:1:") && e.contains("newer kernelgate"), "{e}");
        // The committed baseline's own files are named as such.
        for name in ["baseline.csv", "samples.csv"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines/nvidia-h200-sm90").join(name);
            let e = parse_csv(&std::fs::read_to_string(&path).unwrap(), &path).unwrap_err().to_string();
            assert!(e.contains("this is a baseline file") && e.contains("kernelgate compare"), "{e}");
        }
        let e = err(&v1().replace(",0.5,s", ",fast,s"));
        assert!(e.starts_with("runs/x.csv:2:") && e.contains("value \"fast\""), "{e}");
        let e = err(&v1().replacen("\n1,", "\n2,", 1));
        assert!(e.starts_with("runs/x.csv:2:") && e.contains("schema_version \"2\""), "{e}");
        let e = err(&v1().replace(
            "Test GPU,9.0,1,1,d,c,n,true,1.0,7,fam/k/1,k,noise",
            "Test GPU,9.0,1,1,OTHER,c,n,true,1.0,7,fam/k/1,k,noise",
        ));
        assert!(e.starts_with("runs/x.csv:3:") && e.contains("differ"), "{e}");
        let e = err(&format!("{}\n1,2,3\n", RUN_COLUMNS[0]));
        assert!(e.starts_with("runs/x.csv:2:") && e.contains("malformed"), "{e}");
        let e = err(&v1().replace(",unknown,unknown,", ",unknown,maybe,"));
        assert!(e.contains("dirty \"maybe\""), "{e}");
        let (_, m) = parse_csv(&metrics("other"), Path::new("m.csv")).unwrap();
        let (_, mut runs) = parse_csv(&v4("20260102T000000Z"), Path::new("r.csv")).unwrap();
        let e = attach_metrics(&mut runs, m, Path::new("m.csv")).unwrap_err().to_string();
        assert!(e.starts_with("m.csv:") && e.contains("run other"), "{e}");
    }

    /// Field reports turn3/12, 13 and 22: values no run measures and rows given twice are refused
    /// with file and line; an empty file is named as empty.
    #[test]
    fn values_out_of_range_and_rows_twice_are_refused_with_file_and_line() {
        let err = |text: &str| parse_csv(text, Path::new("runs/x.csv")).unwrap_err().to_string();
        for (value, says) in [
            ("inf", "is inf s, not a finite number"),
            ("-inf", "is -inf s"),
            ("NaN", "is NaN s"),
            ("1e309", "is inf s"),
            ("0", "is 0.0 s, and a time's median is at least 1 ns"),
            ("1e-300", "is 1e-300 s"),
            ("-0.0001", "is -0.0001 s"),
        ] {
            let e = err(&v1().replace(",median,0.5,s", &format!(",median,{value},s")));
            assert!(e.starts_with("runs/x.csv:2: fam/k/1 median of run 20260101T000000Z") && e.contains(says), "{e}");
        }
        let e = err(&v1().replace(",noise,2.0,%", ",noise,-2.0,%"));
        assert!(e.starts_with("runs/x.csv:3:") && e.contains("noise is never negative"), "{e}");
        let line = v1().lines().nth(1).unwrap().to_string();
        let twice = format!("{}{}\n", v1(), line.replace(",0.5,s", ",0.7,s"));
        let e = err(&twice);
        assert!(e.starts_with("runs/x.csv:4:") && e.contains("given twice, on line 2 (0.5) and here (0.7)"), "{e}");
        let e = err(&format!("{}{line}\n", v1()));
        assert!(e.contains("given twice") && e.contains("nothing was averaged"), "identical rows too: {e}");
        for empty in ["", "\n"] {
            let e = parse_csv(empty, Path::new("runs/e.csv")).unwrap_err().to_string();
            assert!(e.starts_with("runs/e.csv: the file is empty") && e.contains("holds no run"), "{e}");
        }
    }

    #[test]
    fn import_twice_adds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("runs");
        std::fs::create_dir_all(&runs).unwrap();
        std::fs::write(runs.join("20260101T000000Z-unknown.csv"), v1()).unwrap();
        std::fs::write(runs.join("20260102T000000Z-aaaaaaa.csv"), v4("20260102T000000Z")).unwrap();
        std::fs::write(runs.join("20260102T000000Z-aaaaaaa-metrics.csv"), metrics("20260102T000000Z")).unwrap();
        std::fs::write(runs.join("20260102T000000Z-aaaaaaa.log"), "not csv").unwrap();
        std::fs::write(runs.join("20260102T000000Z-aaaaaaa-raw.csv"), "ncu's own").unwrap();
        std::fs::write(runs.join("20260102T000000Z-aaaaaaa-lessons.csv"), "schema_version,trial\n1,x\n").unwrap();
        let history = dir.path().join("history");
        let first = import(std::slice::from_ref(&runs), &history, None).unwrap();
        assert_eq!(first, Imported { files: 3, runs: 2, new_rows: 4, warnings: vec![] });
        assert_eq!(first.to_string(), "2 runs, 4 new rows (from 3 files)");
        // Again, and naming the metrics file alone (it brings its run CSV): nothing new.
        assert_eq!(import(std::slice::from_ref(&runs), &history, None).unwrap().new_rows, 0);
        let only_metrics = [runs.join("20260102T000000Z-aaaaaaa-metrics.csv")];
        assert_eq!(
            import(&only_metrics, &history, None).unwrap(),
            Imported { files: 2, runs: 1, new_rows: 0, warnings: vec![] }
        );
        let store = HistoryStore::open(&history, "test-gpu-sm90").unwrap();
        let stored = store.runs(None).unwrap();
        assert_eq!(stored.iter().map(|r| r.values).collect::<Vec<_>>(), [2, 2]);
        assert_eq!(store.run("20260102T000000Z", "GPU-x").unwrap().unwrap().meta.ncu, "2025.3");
        // A malformed file stops the import before anything is appended.
        std::fs::write(runs.join("20260103T000000Z-bbbbbbb.csv"), v4("20260103T000000Z").replace(",0.25,", ",x,"))
            .unwrap();
        std::fs::write(runs.join("20260100T000000Z-ccccccc.csv"), v4("20260100T000000Z")).unwrap();
        let e = import(std::slice::from_ref(&runs), &history, None).unwrap_err().to_string();
        assert!(e.contains("20260103T000000Z-bbbbbbb.csv:2:"), "{e}");
        assert_eq!(store.runs(None).unwrap().len(), 2);
    }

    #[test]
    fn the_committed_run_csvs_import() {
        let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines/nvidia-h200-sm90/runs");
        if !runs.is_dir() {
            println!("skipped: no {}", runs.display());
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let first = import(std::slice::from_ref(&runs), dir.path(), None).unwrap();
        assert!(first.runs >= 1 && first.new_rows > 0, "{first}");
        assert_eq!(import(&[runs], dir.path(), None).unwrap().new_rows, 0);
    }
}
