//! One run CSV or metrics CSV read into runs (pure, [`parse_csv`]): the run-CSV columns of every
//! schema version and the metrics CSV's, the checks of each row (with file and line), and the
//! kernel labels of a metrics run's launches, whichever kernelgate wrote the file.

use crate::error::{Error, Result};
use crate::history::{Run, RunMeta, TrialModule, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// How a lessons CSV's header starts (`crate::lesson_record::LessonRow`'s first columns): named as
/// such when given to import or compare.
const LESSONS_HEADER: &str = "schema_version,run_id,commit,gpu_key,gpu_uuid,trial,good,bad,";
/// Run-CSV columns of each schema version (index 0 is version 1), from `crate::record::Row` as it
/// was at each version (`git log -p harness/record.rs harness/record/mod.rs`).
pub(super) const RUN_COLUMNS: [&str; 7] = [
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
    "schema_version,run_id,commit,dirty,kernels_dirty,kernels_sha256,branch,commit_time,subject,repo_state,gpu_key,\
     gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,nvrtc,ecc,gpu_uuid,gpu_serial,vbios,pci_bus_id,\
     copy_bandwidth_gbps,seed,work_scale,trial,kernel,module_sha256,compile_options,element_types,verdict,decided_by,\
     ab_revision,throttle_reasons,other_processes,median_ci_low_s,median_ci_high_s,statistic,value,unit",
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

/// Parses one run CSV or metrics CSV (pure): its kind and its runs, grouped by (run id, GPU UUID) in
/// the order they first appear; a metrics CSV's runs have GPU UUID `unknown` and `ncu` set. A value
/// no run measures ([`crate::history::value_problem`]: NaN, infinite, negative, a time below 1 ns)
/// leaves its trial out of the run (of a metrics CSV: the value), with one warning per trial naming
/// file and line ([`Parsed::left_out`]); the rest is read.
///
/// # Errors
/// [`Error::History`] naming `path` and the line: an empty file (a run that recorded nothing), a
/// header of no known schema, a row of another schema version than its header, a field that does
/// not parse (`dirty`, `value`, `work_scale`), an empty run id, trial or metric, a statistic of a run CSV
/// given twice for one trial of one run (naming both lines), or rows of one run that disagree on
/// the run's fields.
pub fn parse_csv(text: &str, path: &Path) -> Result<Parsed> {
    parse_text(text, path, &BTreeMap::new())
}

/// [`parse_csv`] of a file's bytes: a line holding bytes that are not UTF-8 (a Latin-1 subject)
/// leaves its trial out with a warning naming the line and the byte, and the rest is read.
///
/// # Errors
/// As [`parse_csv`].
pub fn parse_csv_bytes(bytes: &[u8], path: &Path) -> Result<Parsed> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_csv(text, path),
        Err(_) => {
            let mut bad_lines = BTreeMap::new();
            for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                if let Err(e) = std::str::from_utf8(line) {
                    bad_lines.insert(i as u64 + 1, line[e.valid_up_to()]);
                }
            }
            parse_text(&String::from_utf8_lossy(bytes), path, &bad_lines)
        }
    }
}

/// [`parse_csv`], with `bad_lines` (1-based line to its first byte that is not UTF-8) left out.
fn parse_text(text: &str, path: &Path, bad_lines: &BTreeMap<u64, u8>) -> Result<Parsed> {
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
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
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
    } else if ["schema_version,trial,metric,module_sha256,runs,rsd", "schema_version,file,"]
        .iter()
        .any(|h| header.starts_with(h))
    {
        return Err(bad(
            1,
            "this is one of a baseline folder's tables (run_to_run.csv, an architecture's resources.csv or \
             sass/opcodes.csv), not a run CSV: give the runs' folder (target/kernelgate/runs, baselines/<gpu key>/runs)"
                .into(),
        ));
    } else if header.starts_with(LESSONS_HEADER) {
        return Err(bad(
            1,
            "this is a lessons CSV (<run>-lessons.csv: the lesson trials' ratios), not a run CSV: read it with \
             `kernelgate lessons`, or give the run CSV beside it (<run>.csv)"
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
    // (run id, GPU UUID, trial) -> the lines and problems of its values no run measures.
    let mut problems: BTreeMap<(String, String, String), Vec<(u64, String)>> = BTreeMap::new();
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    // (run id, GPU UUID, trial, kernel, statistic, unit) -> the line and value first seen.
    let mut seen: HashMap<[String; 6], (u64, f64)> = HashMap::new();
    let width = columns.len();
    for record in reader.records() {
        let record = record.map_err(|e| bad(e.position().map_or(0, |p| p.line()), format!("malformed row: {e}")))?;
        let line = record.position().map_or(0, |p| p.line());
        let get = |name: &str| -> &str { col(name).and_then(|i| record.get(i)).unwrap_or("") };
        // A row kernelgate cannot read leaves its trial out of its run (one warning per trial,
        // after the loop), never the file.
        let key = (
            get("run_id").to_string(),
            col("gpu_uuid").map_or("unknown", |_| get("gpu_uuid")).to_string(),
            get("trial").to_string(),
        );
        let mut refuse_row = |problem: String| {
            let key = if key.2.is_empty() {
                (key.0.clone(), key.1.clone(), format!("(the row on line {line})"))
            } else {
                key.clone()
            };
            problems.entry(key).or_default().push((line, problem));
        };
        if let Some(byte) = bad_lines.get(&line) {
            refuse_row(format!("byte 0x{byte:02x} on this line is not UTF-8 (another encoding, Latin-1 most likely)"));
            continue;
        }
        if record.len() != width {
            refuse_row(format!(
                "the row has {} fields and the header {width} (a row cut short or joined)",
                record.len()
            ));
            continue;
        }
        let row =
            read_row(get, col("kernels_dirty").is_some(), col("work_scale").is_some(), col("gpu_uuid").is_some(), kind);
        let (meta, value) = match row {
            Ok(row) => row,
            Err(problem) => {
                refuse_row(problem);
                continue;
            }
        };
        if let Some(problem) = crate::history::value_problem(&value.metric, &value.unit, value.value) {
            // A value no run measures leaves out its trial (of a metrics CSV, the value).
            refuse_row(format!("{} {problem}", value.metric));
            continue;
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
            runs.push(Run { meta: meta.clone(), values: Vec::new(), modules: Vec::new() });
            runs.len() - 1
        });
        if runs[at].meta != meta {
            return Err(bad(
                line,
                "this row's run fields (commit, GPU, driver, ...) differ from those of the run's first row; each run's rows must agree".to_string(),
            ));
        }
        if kind != Kind::Metrics && col("module_sha256").is_some() {
            runs[at].modules.push(TrialModule {
                trial: value.trial.clone(),
                kernel: value.kernel.clone(),
                module_sha256: get("module_sha256").to_string(),
            });
        }
        runs[at].values.push(value);
    }
    let mut left_out = Vec::new();
    for ((run_id, uuid, trial), bad) in problems {
        let what = if kind == Kind::Metrics {
            "leaves these values out (the trial's other metrics are read)"
        } else {
            for run in runs.iter_mut().filter(|r| r.meta.run_id == run_id && r.meta.gpu_uuid == uuid) {
                run.values.retain(|v| v.trial != trial);
                run.modules.retain(|m| m.trial != trial);
            }
            "leaves this trial of the run out"
        };
        let (first, problem) = &bad[0];
        let more = match &bad[1..] {
            [] => String::new(),
            rest => format!(
                "; and {} more of its rows (lines {})",
                rest.len(),
                rest.iter().map(|(l, _)| l.to_string()).collect::<Vec<_>>().join(", ")
            ),
        };
        left_out.push(format!(
            "{}:{first}: {trial} of run {run_id}: {problem}{more}; kernelgate {what} of the history, every diff and \
             export, and reads the rest of the file: correct the row from the run's log to keep it",
            path.display()
        ));
    }
    runs.retain(|r| !r.values.is_empty());
    for run in &mut runs {
        run.modules.sort();
        run.modules.dedup();
    }
    if kind == Kind::Metrics {
        runs.iter_mut().for_each(|run| label_launches(&mut run.values));
    }
    Ok(Parsed { kind, runs, left_out: capped(left_out, LEFT_OUT_SHOWN) })
}

/// One row's run fields and value, read with `get` (a column's text by name; `""` where the file
/// has no such column): `Err` says why the row cannot be used (a required field empty, a field
/// that does not parse, a schema version other than the header's), for [`parse_csv`] to leave its
/// trial out. A commit must be a commit id (hex) or `unknown`: a run CSV's commit reaches git and
/// `kernelgate diff` as an argument.
fn read_row<'r>(
    get: impl Fn(&str) -> &'r str,
    kernels_dirty: bool,
    work_scale: bool,
    has_uuid: bool,
    kind: Kind,
) -> std::result::Result<(RunMeta, Value), String> {
    let version = get("schema_version");
    let version_ok = match kind {
        Kind::Run(v) => version == v.to_string(),
        Kind::Metrics => version.parse::<u32>().is_ok_and(|v| (1..=crate::record::RUN_CSV_SCHEMA).contains(&v)),
    };
    if !version_ok {
        return Err(format!("schema_version {version:?} does not match the file's header ({kind:?})"));
    }
    let number = |name: &str| -> std::result::Result<f64, String> {
        get(name).parse::<f64>().map_err(|_| format!("{name} {:?} is not a number", get(name)))
    };
    // `kernel` may be empty in run CSVs: kernelgate 8e50198 and before wrote it empty for a
    // program of copies only (no kernel of its own).
    let kernel_required = kind == Kind::Metrics;
    let required = ["run_id", "trial", if kind == Kind::Metrics { "metric" } else { "statistic" }];
    for required in required.into_iter().chain(kernel_required.then_some("kernel")) {
        if get(required).is_empty() {
            return Err(format!("{required} is empty"));
        }
    }
    let commit = get("commit");
    if !(crate::history::is_commit_id(commit) || matches!(commit, "" | "unknown")) {
        return Err(format!(
            "commit {:?} is not a commit id (4 to 40 hex digits, or 64) or unknown",
            crate::console::shown(commit)
        ));
    }
    let meta = RunMeta {
        run_id: get("run_id").into(),
        commit: commit.into(),
        // Schema 5 says whether the kernels differed from the commit; before it, `dirty` (any
        // tracked file, read at run time) is the closest there is.
        dirty: match get(if kernels_dirty { "kernels_dirty" } else { "dirty" }) {
            "true" => Some(true),
            "false" => Some(false),
            "unknown" | "" => None,
            other => return Err(format!("dirty {other:?} is not true, false or unknown")),
        },
        kernels_sha256: get("kernels_sha256").into(),
        branch: get("branch").into(),
        commit_time: match get("commit_time") {
            "" => None,
            t => Some(t.parse::<i64>().map_err(|_| format!("commit_time {t:?} is not Unix seconds"))?),
        },
        subject: get("subject").into(),
        gpu_key: get("gpu_key").into(),
        gpu_name: get("gpu_name").into(),
        gpu_uuid: if has_uuid { get("gpu_uuid") } else { "unknown" }.into(),
        driver: get("driver").into(),
        cuda: get("cuda").into(),
        nvrtc: get("nvrtc").into(),
        ncu: get("ncu_version").into(),
        ab_revision: get("ab_revision").into(),
        work_scale: if work_scale { number("work_scale")? } else { 1.0 },
    };
    // Schema 6 gives the median's 95 % interval on every row of the trial, in seconds: it
    // belongs to the `median` value (in seconds too), as the suite's own history rows have it.
    let is_median = kind != Kind::Metrics && get("statistic") == "median" && get("unit") == "s";
    let ci = |name: &str| -> std::result::Result<Option<f64>, String> {
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
    // The suite writes the median's interval around the median; one that does not hold it was
    // edited, and the GPU reference would gate on it (`regressed` needs the interval above).
    if let (Some(low), Some(high)) = (value.ci_low, value.ci_high)
        && !(low <= value.value && value.value <= high)
    {
        return Err(format!(
            "the median {} s lies outside its own 95 % interval [{low}, {high}] s (median_ci_low_s, \
             median_ci_high_s): a run writes the interval around its median",
            value.value
        ));
    }
    Ok((meta, value))
}

/// What [`parse_csv`] read from one CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// Run CSV (of a schema) or metrics CSV.
    pub kind: Kind,
    /// Its runs, in the order of their first rows.
    pub runs: Vec<Run>,
    /// One warning per trial left out of a run CSV (a value of it no run measures: NaN, negative, a
    /// time below 1 ns), or per trial whose values are left out of a metrics CSV, naming file, line,
    /// trial and run; at most [`LEFT_OUT_SHOWN`], the last counting the rest.
    pub left_out: Vec<String>,
}

/// Trials left out that [`parse_csv`] names one by one in a file.
pub const LEFT_OUT_SHOWN: usize = 10;

/// The first `shown` of `warnings`, and a last line counting the others.
pub fn capped(mut warnings: Vec<String>, shown: usize) -> Vec<String> {
    if warnings.len() > shown {
        let more = warnings.len() - shown;
        warnings.truncate(shown);
        warnings.push(format!("{more} more trials left out as above (at most {shown} are named)"));
    }
    warnings
}

/// What a run CSV of its header alone is, given where one run is wanted (a `diff` side, an
/// export, `--run`): a run that wrote no row of the run CSV leaves it (`crate::record::claim_stem`).
pub(crate) const HEADER_ONLY: &str = "holds no run: it is a run CSV's header alone, which a run that timed no trial \
of the run CSV leaves (one whose trials were all lesson trials, or one killed before it wrote); name another run";

/// Why an empty CSV holds no run: its size and what leaves such a file.
pub(super) fn empty_file(text: &str) -> String {
    format!(
        "the file is empty ({} bytes): a run that recorded nothing left it (an older kernelgate's run killed \
         before it wrote, or that timed nothing: a sanitizer or lesson-only run; kernelgate now leaves the run \
         CSV's header row there), and it holds no run",
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Synthetic rows, one per schema (made-up values, not measurements).
    pub(crate) fn v1() -> String {
        format!(
            "{}\n1,20260101T000000Z,unknown,unknown,test-gpu-sm90,Test GPU,9.0,1,1,d,c,n,true,1.0,7,fam/k/1,k,median,0.5,s\n\
             1,20260101T000000Z,unknown,unknown,test-gpu-sm90,Test GPU,9.0,1,1,d,c,n,true,1.0,7,fam/k/1,k,noise,2.0,%\n",
            RUN_COLUMNS[0]
        )
    }

    pub(crate) fn v4(run_id: &str) -> String {
        format!(
            "{}\n4,{run_id},{c},false,test-gpu-sm90,Test GPU,9.0,1,1,d,c,n,true,GPU-x,s,v,p,1.0,7,1.0,fam/k/1,\"k,<T>\",h,\
             regressed,time,,,,median,0.25,s\n",
            RUN_COLUMNS[3],
            c = "a".repeat(40)
        )
    }

    pub(crate) fn metrics(run_id: &str) -> String {
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
        let runs = parse_csv(text, Path::new("m.csv")).unwrap().runs;
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
        let Parsed { kind, runs, .. } = parse_csv(&text, &path).unwrap();
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
        // An interval that is not a number leaves its trial out, named with its line.
        let bad = text.replacen(&format!(",{},", 1e-3 * 0.99), ",low,", 1);
        assert_ne!(bad, text);
        let parsed = parse_csv(&bad, &path).unwrap();
        let w = parsed.left_out.join("\n");
        assert!(w.contains("run.csv:2:") && w.contains("median_ci_low_s \"low\" is not a number"), "{w}");
        assert!(parsed.runs.iter().all(|r| r.values.iter().all(|v| v.trial != "fam/k/1")));
        // So does an interval that does not hold its median (an edited median, or ends swapped).
        // (The interval is on every row of the trial; the median's row is checked.)
        for (from, to, n) in [
            (format!(",{},", 1e-3), format!(",{},", 2e-3), 1),
            (format!(",{},", 1e-3 * 0.99), format!(",{},", 1.02e-3), usize::MAX),
        ] {
            let edited = text.replacen(&from, &to, n);
            assert_ne!(edited, text, "{from}");
            let parsed = parse_csv(&edited, &path).unwrap();
            let w = parsed.left_out.join("\n");
            assert!(w.contains("run.csv:3: fam/k/1") && w.contains("lies outside its own 95 % interval"), "{w}");
            assert!(parsed.runs.iter().all(|r| r.values.iter().all(|v| v.trial != "fam/k/1")));
        }
    }

    /// A baseline folder's other tables are named as such, not as a newer kernelgate's run CSV (a
    /// new user's report).
    #[test]
    fn a_baseline_folders_tables_are_named_as_such() {
        for header in [
            "schema_version,trial,metric,module_sha256,runs,rsd,date",
            "schema_version,file,kernel,block,shared_dynamic_bytes,regs",
            "schema_version,file,function,opcode,count,nvrtc,nvdisasm",
        ] {
            let e = parse_csv(&format!("{header}\n2,a,b,c,d,e,f\n"), Path::new("t.csv")).unwrap_err().to_string();
            assert!(e.contains("one of a baseline folder's tables") && !e.contains("newer kernelgate"), "{e}");
        }
    }

    /// Field reports turn3/12, 13 and 22, and turn4/R33: a value no run measures is left out with a
    /// warning naming file and line, and the rest of the file is read; rows given twice are refused
    /// with file and line; an empty file is named as empty.
    #[test]
    fn values_out_of_range_are_left_out_and_rows_twice_are_refused_with_file_and_line() {
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
            let text = v1().replace(",median,0.5,s", &format!(",median,{value},s"));
            let parsed = parse_csv(&text, Path::new("runs/x.csv")).unwrap();
            let [w] = parsed.left_out.as_slice() else { panic!("one warning: {:?}", parsed.left_out) };
            assert!(w.starts_with("runs/x.csv:2: fam/k/1 of run 20260101T000000Z: median") && w.contains(says), "{w}");
            assert!(w.contains("leaves this trial of the run out") && w.contains("reads the rest"), "{w}");
            assert!(parsed.runs.iter().all(|r| r.values.iter().all(|v| v.trial != "fam/k/1")), "the trial is out");
        }
        let text = v1().replace(",noise,2.0,%", ",noise,-2.0,%").replace(",median,0.5,s", ",median,NaN,s");
        let parsed = parse_csv(&text, Path::new("runs/x.csv")).unwrap();
        let [w] = parsed.left_out.as_slice() else { panic!("one warning per trial: {:?}", parsed.left_out) };
        assert!(w.starts_with("runs/x.csv:2:") && w.contains("; and 1 more of its rows (lines 3)"), "{w}");
        let many = capped((0..25).map(|i| format!("w{i}")).collect(), LEFT_OUT_SHOWN);
        assert_eq!(many.len(), LEFT_OUT_SHOWN + 1);
        assert_eq!(many.last().unwrap(), "15 more trials left out as above (at most 10 are named)");
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

    /// The newest schema's columns are the run CSV's header as a run writes it, and a run that
    /// timed nothing (its run CSV the header alone: `crate::record::claim_stem`) reads as a run CSV
    /// of no runs.
    #[test]
    fn a_run_csv_of_its_header_alone_holds_no_run() {
        assert_eq!(RUN_COLUMNS.last().copied(), Some(crate::record::RUN_CSV_HEADER));
        let text = format!("{}\n", crate::record::RUN_CSV_HEADER);
        let Parsed { kind, runs, .. } = parse_csv(&text, Path::new("runs/h.csv")).unwrap();
        assert_eq!((kind, runs.len()), (Kind::Run(crate::record::RUN_CSV_SCHEMA), 0));
    }
}
