//! The three CSV files of a baseline folder, bytes to rows and back. Pure: no I/O; every refusal
//! names the file, the 1-based line and the column, with the fix.
//!
//! Older schemas are read and migrated in memory (schema 1 of `baseline.csv` lacks the physical
//! GPU identity and the validity columns; schema 1 of `run_to_run.csv` lacks `metric`); files are
//! always written in the current schema, so a folder migrates at its first write.

use super::{Entry, RunToRun, TIME_METRIC};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// Version of `baseline.csv`'s columns. 2 added `gpu_uuid`, `gpu_serial`, `vbios`, `pci_bus_id`
/// and `invalid_reason` (the physical GPU's identity, and each record's validity: field report 08 in
/// `../shared/fixtures/field-reports/`). 3 added `nvrtc` and `ncu`: the tools that made the module
/// and measured the counters, so that a verdict across a tool change says so first (issue 41,
/// item 5).
pub const ENTRIES_SCHEMA: u32 = 3;

/// Version of `samples.csv`'s columns.
pub const SAMPLES_SCHEMA: u32 = 1;

/// Version of `run_to_run.csv`'s columns. 2 added `metric` (counters are calibrated too) and
/// renamed `median_rsd` to `rsd`.
pub const RUN_TO_RUN_SCHEMA: u32 = 2;

/// Columns of `baseline.csv` (schema [`ENTRIES_SCHEMA`]), in order: the field names of [`Entry`].
pub const ENTRY_COLUMNS: [&str; 29] = [
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
    "gpu_uuid",
    "gpu_serial",
    "vbios",
    "pci_bus_id",
    "invalid_reason",
    "nvrtc",
    "ncu",
];

/// Columns of `samples.csv`, in order.
pub const SAMPLE_COLUMNS: [&str; 4] = ["schema_version", "trial", "index", "seconds"];

/// Columns of `run_to_run.csv` (schema [`RUN_TO_RUN_SCHEMA`]), in order: the field names of
/// [`RunToRun`].
pub const RUN_TO_RUN_COLUMNS: [&str; 7] = ["schema_version", "trial", "metric", "module_sha256", "runs", "rsd", "date"];

/// The largest run-to-run relative standard deviation a calibration may hold: 20 %. A median (or
/// counter) that moves more than that between runs of the same code cannot be gated (its floor
/// would be above 80 % at 35 cases), so a larger value is refused as damage, not taken as a floor
/// that switches the gate off (a spread of 1.7e308 once made the floor `inf%`).
pub const MAX_RUN_TO_RUN_RSD: f64 = 0.20;

/// What to do about a damaged row; `RESTORE` is replaced by [`crate::store::restore_hint`] of the
/// file, `DIR` by its folder.
/// (`kernelgate baseline remove` cannot help: it writes through the store, which refuses a folder
/// it cannot read.)
const FIX_ROW: &str = "RESTORE; or correct the row by hand, or delete the trial's rows from every file of the folder \
                       (re-bless it later with KERNELGATE_BLESS=1), then `kernelgate baseline reseal DIR`";

/// What to do about a file that is damaged as a whole (header, encoding); `RESTORE` as above.
const FIX_FILE: &str = "RESTORE; or delete the folder's files and re-bless with KERNELGATE_BLESS=1";

/// `template` with `RESTORE` and `DIR` filled in for the file `path`.
fn fix(template: &str, path: &Path) -> String {
    let dir = path.parent().unwrap_or(Path::new("."));
    template.replace("RESTORE", &crate::store::restore_hint(path)).replace("DIR", &dir.display().to_string())
}

/// A corrupt-row error at `line`, with the fix naming the file.
pub(super) fn corrupt(path: &Path, line: Option<usize>, what: impl fmt::Display) -> Error {
    Error::Baseline { path: path.to_path_buf(), line, message: format!("{what}; {}", fix(FIX_ROW, path)) }
}

/// A corrupt-file error (its header or encoding) at `line`, with the fix naming the file.
fn corrupt_file(path: &Path, line: Option<usize>, what: impl fmt::Display) -> Error {
    Error::Baseline { path: path.to_path_buf(), line, message: format!("{what}; {}", fix(FIX_FILE, path)) }
}

/// One schema of a file: its version and columns.
struct Schema<'a> {
    version: u32,
    columns: &'a [&'a str],
}

/// A CSV file's records after its schema and header are checked: the schema found, and
/// `(line, record)` pairs.
///
/// The schema check comes first (a file of another schema may well have other columns): the
/// header must have a `schema_version` column, and the first row's version must be one of
/// `schemas` (the current one first); then the header must be that schema's columns exactly, and
/// every row must carry the same version.
fn records<'a>(
    bytes: &[u8],
    path: &Path,
    schemas: &'a [Schema<'a>],
) -> Result<(&'a Schema<'a>, Vec<(usize, csv::StringRecord)>)> {
    let current = &schemas[0];
    let expected = current.columns.join(",");
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
    let version_of = |record: &csv::StringRecord| record.get(schema_col).and_then(|t| t.parse::<u32>().ok());
    // The schema: the first row's, or for a file with no rows the one whose columns the header has.
    let schema = match out.get(1) {
        Some((line, first)) => match version_of(first) {
            Some(v) => {
                schemas.iter().find(|s| s.version == v).ok_or_else(|| unknown_schema(path, *line, v, current))?
            }
            None => current,
        },
        None => schemas.iter().find(|s| header.iter().eq(s.columns.iter().copied())).unwrap_or(current),
    };
    if header.iter().ne(schema.columns.iter().copied()) {
        let found: Vec<&str> = header.iter().collect();
        let missing: Vec<&str> = schema.columns.iter().copied().filter(|c| !found.contains(c)).collect();
        let extra: Vec<&str> = found.iter().copied().filter(|c| !schema.columns.contains(c)).collect();
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
        what += &format!(". It should be `{}`", schema.columns.join(","));
        return Err(corrupt_file(path, Some(header_line), what));
    }
    out.remove(0);
    for (line, record) in &out {
        if record.len() != schema.columns.len() {
            let what = format!(
                "this row has {} fields but the header on line {header_line} has {} (a truncated row, or a \
                 comma in an unquoted field)",
                record.len(),
                schema.columns.len()
            );
            return Err(corrupt(path, Some(*line), what));
        }
        match version_of(record) {
            Some(v) if v == schema.version => {}
            Some(v) if schemas.iter().any(|s| s.version == v) => {
                let what = format!(
                    "this row has schema_version {v} but the file's first row has {}; a file holds one schema",
                    schema.version
                );
                return Err(corrupt(path, Some(*line), what));
            }
            Some(v) => return Err(unknown_schema(path, *line, v, current)),
            None => {
                let text = record.get(schema_col).unwrap_or_default();
                let what = format!("column `schema_version` holds {text:?}, not a whole number");
                return Err(corrupt(path, Some(*line), what));
            }
        }
    }
    Ok((schema, out))
}

/// The error for a row of a schema this kernelgate does not read.
fn unknown_schema(path: &Path, line: usize, found: u32, current: &Schema<'_>) -> Error {
    let newer = if found > current.version { "a newer" } else { "an older" };
    Error::Baseline {
        path: path.to_path_buf(),
        line: Some(line),
        message: format!(
            "written by {newer} kernelgate (schema {found}); this one reads up to {}: use the kernelgate that wrote \
             it, or re-bless with KERNELGATE_BLESS=1 after deleting this folder's files",
            current.version
        ),
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
    /// The text of column `name`; empty when the schema has no such column.
    fn text(&self, name: &str) -> String {
        self.columns.iter().position(|c| *c == name).and_then(|i| self.record.get(i)).unwrap_or_default().to_string()
    }

    fn parse<T: FromStr>(&self, name: &str, what: &str) -> Result<T> {
        let text = self.text(name);
        text.parse().map_err(|_| {
            corrupt(self.path, Some(self.line), format_args!("column `{name}` holds {text:?}, not {what}"))
        })
    }

    fn float(&self, name: &str) -> Result<f64> {
        let v: f64 = self.parse(name, "a number")?;
        if !v.is_finite() {
            let what = format!("column `{name}` holds {v}; values must be finite numbers");
            return Err(corrupt(self.path, Some(self.line), what));
        }
        Ok(v)
    }
}

/// Parses `baseline.csv` (schema 1, 2 or 3; an older schema's missing columns read as empty, unrecorded), checking each entry ([`entry_problem`]) and that no
/// (trial, metric) pair appears twice.
pub(super) fn parse_entries(bytes: &[u8], path: &Path) -> Result<Vec<Entry>> {
    let (v1, v2): (Vec<&str>, Vec<&str>) = (ENTRY_COLUMNS[..22].to_vec(), ENTRY_COLUMNS[..27].to_vec());
    let schemas = [
        Schema { version: ENTRIES_SCHEMA, columns: &ENTRY_COLUMNS },
        Schema { version: 2, columns: &v2 },
        Schema { version: 1, columns: &v1 },
    ];
    let (schema, rows) = records(bytes, path, &schemas)?;
    let mut entries = Vec::new();
    let mut first_seen: HashMap<(String, String), usize> = HashMap::new();
    for (line, record) in rows {
        let f = Fields { record: &record, columns: schema.columns, line, path };
        let entry = Entry {
            trial: f.text("trial"),
            kernel: f.text("kernel"),
            metric: f.text("metric"),
            unit: f.text("unit"),
            n: f.parse("n", "a whole number")?,
            median: f.float("median")?,
            mad: f.float("mad")?,
            mean: f.float("mean")?,
            stddev: f.float("stddev")?,
            min: f.float("min")?,
            commit: f.text("commit"),
            date: f.text("date"),
            module_sha256: f.text("module_sha256"),
            sm_clock_mhz: if f.text("sm_clock_mhz").is_empty() { None } else { Some(f.float("sm_clock_mhz")?) },
            gpu_name: f.text("gpu_name"),
            compute_capability: f.text("compute_capability"),
            sm_count: f.parse("sm_count", "a whole number")?,
            memory_mib: f.parse("memory_mib", "a whole number")?,
            driver: f.text("driver"),
            cuda: f.text("cuda"),
            ecc: f.parse("ecc", "true or false")?,
            gpu_uuid: f.text("gpu_uuid"),
            gpu_serial: f.text("gpu_serial"),
            vbios: f.text("vbios"),
            pci_bus_id: f.text("pci_bus_id"),
            invalid_reason: f.text("invalid_reason"),
            nvrtc: f.text("nvrtc"),
            ncu: f.text("ncu"),
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

/// What makes an entry unusable, if anything: an empty trial or metric, n = 0, a non-finite
/// number, a negative value or spread, a time median or mean that is not positive (a time entry's
/// `min` may be 0: an event reading below the timer's resolution), a counter below 0, an SM clock
/// that is not positive, a date that is not RFC 3339.
pub(super) fn entry_problem(e: &Entry) -> Option<String> {
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
    if let Some((name, v)) = numbers.into_iter().find(|(_, v)| *v < 0.0) {
        return Some(format!("column `{name}` is {v}; durations, counts and spreads are never negative"));
    }
    if e.metric == TIME_METRIC
        && let Some((name, v)) = [("median", e.median), ("mean", e.mean)].into_iter().find(|(_, v)| *v <= 0.0)
    {
        return Some(format!(
            "column `{name}` is {v} s; a time entry's median and mean are positive (a kernel too short for the \
             timer cannot be blessed)"
        ));
    }
    if let Some(c) = e.sm_clock_mhz.filter(|c| *c <= 0.0) {
        return Some(format!("column `sm_clock_mhz` is {c}; a clock is positive (leave it empty when unknown)"));
    }
    if chrono::DateTime::parse_from_rfc3339(&e.date).is_err() {
        return Some(format!("column `date` holds {:?}, not an RFC 3339 time such as 2026-11-30T03:22:13Z", e.date));
    }
    None
}

/// Parses `samples.csv`; `timed` are the trials with a time entry. Samples are finite and `>= 0`
/// (a 0 is a reading below the timer's resolution, which the gate judges per trial).
pub(super) fn parse_samples(bytes: &[u8], path: &Path, timed: &BTreeSet<&str>) -> Result<BTreeMap<String, Vec<f64>>> {
    let schemas = [Schema { version: SAMPLES_SCHEMA, columns: &SAMPLE_COLUMNS }];
    let (_, rows) = records(bytes, path, &schemas)?;
    let mut samples: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (line, record) in rows {
        let f = Fields { record: &record, columns: &SAMPLE_COLUMNS, line, path };
        let trial = f.text("trial");
        if !timed.contains(trial.as_str()) {
            let what = format!(
                "samples of trial {trial:?}, which has no time entry in baseline.csv; delete this trial's rows"
            );
            return Err(corrupt(path, Some(line), what));
        }
        let index: usize = f.parse("index", "a whole number")?;
        let seconds = f.float("seconds")?;
        if seconds < 0.0 {
            let what = format!("column `seconds` holds {seconds}; a timing sample is never negative");
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
pub(super) fn run_to_run_problem(r: &RunToRun) -> Option<String> {
    if r.trial.is_empty() || r.metric.is_empty() {
        Some("trial and metric must not be empty".into())
    } else if !(r.rsd.is_finite() && (0.0..=MAX_RUN_TO_RUN_RSD).contains(&r.rsd)) {
        Some(format!(
            "rsd is {}; a run-to-run relative standard deviation is a number from 0 to {MAX_RUN_TO_RUN_RSD} \
             (beyond that nothing can be gated); re-run `kernelgate baseline calibrate`",
            r.rsd
        ))
    } else if r.runs < 2 {
        Some(format!("runs is {}; a spread needs at least 2 runs", r.runs))
    } else if chrono::DateTime::parse_from_rfc3339(&r.date).is_err() {
        Some(format!("date {:?} is not RFC 3339 (2026-11-30T03:22:13Z)", r.date))
    } else {
        None
    }
}

/// Parses `run_to_run.csv` (schema 1: time only, or 2); `metrics` are the (trial, metric) pairs
/// with an entry.
pub(super) fn parse_run_to_run(
    bytes: &[u8],
    path: &Path,
    metrics: &BTreeSet<(&str, &str)>,
) -> Result<BTreeMap<(String, String), RunToRun>> {
    let v1 = ["schema_version", "trial", "module_sha256", "runs", "median_rsd", "date"];
    let schemas =
        [Schema { version: RUN_TO_RUN_SCHEMA, columns: &RUN_TO_RUN_COLUMNS }, Schema { version: 1, columns: &v1 }];
    let (schema, rows) = records(bytes, path, &schemas)?;
    let mut out = BTreeMap::new();
    for (line, record) in rows {
        let f = Fields { record: &record, columns: schema.columns, line, path };
        let row = RunToRun {
            trial: f.text("trial"),
            metric: if schema.version == 1 { TIME_METRIC.to_string() } else { f.text("metric") },
            module_sha256: f.text("module_sha256"),
            runs: f.parse("runs", "a whole number")?,
            rsd: f.float(if schema.version == 1 { "median_rsd" } else { "rsd" })?,
            date: f.text("date"),
        };
        if let Some(problem) = run_to_run_problem(&row) {
            return Err(corrupt(path, Some(line), problem));
        }
        if !metrics.contains(&(row.trial.as_str(), row.metric.as_str())) {
            let what = format!(
                "a run-to-run spread for trial {:?} metric {:?}, which has no entry in baseline.csv; delete this row",
                row.trial, row.metric
            );
            return Err(corrupt(path, Some(line), what));
        }
        let key = (row.trial.clone(), row.metric.clone());
        if out.contains_key(&key) {
            let what =
                format!("trial {} metric {} appears a second time; delete one of the two rows", row.trial, row.metric);
            return Err(corrupt(path, Some(line), what));
        }
        out.insert(key, row);
    }
    Ok(out)
}

/// A CSV file's bytes: `header`, then `rows` serialized in order.
fn csv_bytes<R: serde::Serialize>(header: &[&str], rows: impl IntoIterator<Item = R>) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
    w.write_record(header).expect("writing to memory");
    for row in rows {
        w.serialize(row).expect("kernelgate's rows always serialize");
    }
    w.into_inner().expect("writing to memory")
}

/// `baseline.csv`'s bytes: the header, then the entries sorted by (trial, metric).
pub(super) fn entries_csv(entries: &[Entry]) -> Vec<u8> {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by(|a, b| (&a.trial, &a.metric).cmp(&(&b.trial, &b.metric)));
    // A tuple of the version and the struct serializes as one flat row.
    csv_bytes(&ENTRY_COLUMNS, sorted.into_iter().map(|e| (ENTRIES_SCHEMA, e)))
}

/// `samples.csv`'s bytes: the header, then the samples sorted by (trial, index).
pub(super) fn samples_csv(samples: &BTreeMap<String, Vec<f64>>) -> Vec<u8> {
    let rows = samples
        .iter()
        .flat_map(|(trial, list)| list.iter().enumerate().map(move |(i, s)| (SAMPLES_SCHEMA, trial, i, s)));
    csv_bytes(&SAMPLE_COLUMNS, rows)
}

/// `run_to_run.csv`'s bytes: the header, then one row per (trial, metric), sorted.
pub(super) fn run_to_run_csv(rows: &BTreeMap<(String, String), RunToRun>) -> Vec<u8> {
    csv_bytes(&RUN_TO_RUN_COLUMNS, rows.values().map(|r| (RUN_TO_RUN_SCHEMA, r)))
}
