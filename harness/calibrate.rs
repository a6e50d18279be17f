//! Which run records `kernelgate baseline calibrate` counts, and their medians.
//!
//! A run record is the `<stem>-baseline/` folder every run leaves beside its run CSV `<stem>.csv`
//! (`crate::suite`). Calibration wants runs of the blessed code under normal conditions, so a
//! record counts once per run (its folder name holds the run id and commit) and only when the run
//! CSV beside it says the run did its nominal work (`work_scale` 1; power-benchmark runs scale it).
//! A trial's median counts only when the record's module hash is the blessed one.

use crate::baseline::{BASELINE_FILE, Baseline};
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a record offered to [`gather`] was not used.
#[derive(Debug, Clone, PartialEq)]
pub enum Skipped {
    /// A power-benchmark run: its cases did this many times their work.
    PowerRun(f64),
    /// No run CSV beside the record, so its work scale is unknown.
    NoRunCsv,
    /// The same run (same folder name) as this record, offered earlier.
    Duplicate(PathBuf),
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skipped::PowerRun(scale) => write!(f, "a power-benchmark run (KERNELGATE_WORK_SCALE={scale})"),
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
    /// Per trial with a time entry in the baseline: the blessed median first, then each used
    /// record's median of the same code, seconds.
    pub medians: BTreeMap<String, Vec<f64>>,
    /// Records used.
    pub used: usize,
    /// Records not used, with why, in the order offered.
    pub skipped: Vec<(PathBuf, Skipped)>,
    /// Trial results left out because the record's module hash differs from the blessed one.
    pub other_code: usize,
}

/// The medians of `base`'s trials in the blessed run and in each usable record of `records`.
///
/// # Errors
/// [`Error::Baseline`] naming the folder when a record has no `baseline.csv`, or a run CSV whose
/// `work_scale` is not a number; [`Error::Io`] if a path cannot be resolved; what
/// [`Baseline::load`] returns for a corrupt record.
pub fn gather(base: &Baseline, records: &[PathBuf]) -> Result<Gathered> {
    let mut found = Gathered {
        medians: base
            .trials()
            .into_iter()
            .filter_map(|t| base.time(t).map(|e| (t.to_string(), vec![e.median])))
            .collect(),
        ..Gathered::default()
    };
    let mut seen: BTreeMap<std::ffi::OsString, PathBuf> = BTreeMap::new();
    for dir in records {
        if !dir.join(BASELINE_FILE).is_file() {
            return Err(Error::Baseline {
                path: dir.clone(),
                line: None,
                message: format!("no {BASELINE_FILE} here: pass the <stem>-baseline folders that runs leave"),
            });
        }
        let path = dir.canonicalize().map_err(Error::io(dir))?;
        let skip = match work_scale(&path)? {
            Some(1.0) => None,
            Some(scale) => Some(Skipped::PowerRun(scale)),
            None => Some(Skipped::NoRunCsv),
        };
        let name = path.file_name().unwrap_or_default().to_owned();
        let skip = skip.or_else(|| seen.get(&name).map(|first| Skipped::Duplicate(first.clone())));
        if let Some(why) = skip {
            found.skipped.push((dir.clone(), why));
            continue;
        }
        seen.insert(name, dir.clone());
        found.used += 1;
        let record = Baseline::load(dir)?;
        for (trial, list) in &mut found.medians {
            let (Some(blessed), Some(run)) = (base.time(trial), record.time(trial)) else { continue };
            if run.module_sha256 == blessed.module_sha256 {
                list.push(run.median);
            } else {
                found.other_code += 1;
            }
        }
    }
    Ok(found)
}

/// The `work_scale` of the run whose record is `record` (`<stem>-baseline/`), from the run CSV
/// beside it (`<stem>.csv`): 1 for run CSVs older than that column (schema 2) or without rows;
/// `None` without a run CSV.
///
/// # Errors
/// [`Error::Io`] if `record` cannot be resolved; [`Error::Csv`] if the run CSV cannot be read;
/// [`Error::Baseline`] naming the run CSV when its `work_scale` is not a number.
pub fn work_scale(record: &Path) -> Result<Option<f64>> {
    let path = record.canonicalize().map_err(Error::io(record))?;
    let Some(stem) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix("-baseline")) else {
        return Ok(None);
    };
    let csv_path = path.with_file_name(format!("{stem}.csv"));
    let Ok(mut reader) = csv::Reader::from_path(&csv_path) else { return Ok(None) };
    let csv_error = |source| Error::Csv { path: csv_path.clone(), source };
    let Some(column) = reader.headers().map_err(csv_error)?.iter().position(|h| h == "work_scale") else {
        return Ok(Some(1.0));
    };
    let Some(row) = reader.records().next() else { return Ok(Some(1.0)) };
    let row = row.map_err(csv_error)?;
    let text = row.get(column).unwrap_or_default();
    text.parse().map(Some).map_err(|_| Error::Baseline {
        path: csv_path.clone(),
        line: Some(2),
        message: format!("column `work_scale` holds {text:?}, not a number"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baseline::{TIME_METRIC, tests::entry};

    const T: &str = "transpose/naive/8192x8192";

    /// A baseline or run record holding one time entry for `T` with `median` and `module`.
    fn record(dir: &Path, median: f64, module: &str) {
        let mut e = entry(T, TIME_METRIC, median);
        e.module_sha256 = module.to_string();
        let mut b = Baseline::empty(dir);
        b.bless(vec![e], BTreeMap::from([(T.to_string(), vec![median])]));
        b.save().unwrap();
    }

    /// A run record `<runs>/<stem>-baseline` with its run CSV at `scale` (None: no CSV).
    fn run(runs: &Path, stem: &str, median: f64, module: &str, scale: Option<&str>) -> PathBuf {
        let dir = runs.join(format!("{stem}-baseline"));
        record(&dir, median, module);
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
    fn only_nominal_runs_of_the_blessed_code_count_once() {
        let tmp = tempfile::tempdir().unwrap();
        let blessed = "a".repeat(64);
        record(&tmp.path().join("base"), 1.0e-3, &blessed);
        let base = Baseline::load(&tmp.path().join("base")).unwrap();
        let runs = tmp.path().join("runs");
        let copies = tmp.path().join("copies");
        let used = run(&runs, "20261130T041704Z-93b90bf", 1.01e-3, &blessed, Some("1.0"));
        let offered = [
            used.clone(),
            run(&runs, "20261130T041801Z-93b90bf", 1.02e-3, &blessed, Some("1.02")),
            run(&runs, "20261130T041900Z-93b90bf", 1.03e-3, &"b".repeat(64), Some("1")),
            run(&copies, "20261130T041704Z-93b90bf", 1.01e-3, &blessed, Some("1")),
            run(&copies, "20261130T042000Z-93b90bf", 1.04e-3, &blessed, None),
        ];
        let g = gather(&base, &offered).unwrap();
        assert_eq!(g.medians[T], vec![1.0e-3, 1.01e-3], "the blessed median, then the one usable record");
        assert_eq!((g.used, g.other_code), (2, 1), "the other-code record is used, its trial result is not");
        let why: Vec<String> = g.skipped.iter().map(|(_, w)| w.to_string()).collect();
        assert_eq!(why.len(), 3, "{why:?}");
        assert!(why[0].contains("KERNELGATE_WORK_SCALE=1.02"), "{why:?}");
        assert!(why[1].starts_with("the same run as ") && why[1].ends_with("20261130T041704Z-93b90bf-baseline"));
        assert!(why[2].starts_with("no run CSV"), "{why:?}");
        let err = gather(&base, std::slice::from_ref(&runs)).unwrap_err().to_string();
        assert!(err.contains("no baseline.csv here"), "{err}");
    }

    #[test]
    fn work_scale_reads_the_run_csv_beside_the_record() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = run(tmp.path(), "20261130T041704Z-93b90bf", 1e-3, "a", Some("1.05"));
        assert_eq!(work_scale(&dir).unwrap(), Some(1.05));
        std::fs::write(tmp.path().join("20261130T041704Z-93b90bf.csv"), "schema_version,trial\n2,x\n").unwrap();
        assert_eq!(work_scale(&dir).unwrap(), Some(1.0), "schema 2 runs predate work scaling");
        std::fs::write(tmp.path().join("20261130T041704Z-93b90bf.csv"), "work_scale\nfast\n").unwrap();
        assert!(work_scale(&dir).unwrap_err().to_string().contains("holds \"fast\""));
    }
}
