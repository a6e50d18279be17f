//! The lessons CSV: one row per lesson trial of a run ([`crate::case::lesson`]), written beside
//! the run CSV as `<run stem>-lessons.csv` (docs/reading-results.md describes the columns).
//!
//! A lesson trial times two programs against each other and has no baseline of its own, so it is
//! not a row of the run CSV (whose rows the bless, the history and `kernelgate compare` read as
//! one program's timings): its pairs, ratio, interval, bound and verdict are a record of their
//! own. Writing is [`crate::record::write_csv`]'s (atomic, never over a recorded file); reading
//! checks the schema version and every field.

use crate::error::{Error, Result};
use std::path::Path;

/// Version of the lessons CSV's columns; a reader refuses a newer one.
pub const LESSONS_CSV_SCHEMA: u32 = 1;

/// The suffix of a run's lessons CSV after the run's stem ([`crate::record::run_stem`]).
pub const LESSONS_CSV_SUFFIX: &str = "-lessons.csv";

/// One lesson trial of a run. Times in seconds; ratios are good / bad, unitless.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LessonRow {
    /// [`LESSONS_CSV_SCHEMA`].
    pub schema_version: u32,
    /// The run's id (its UTC start, `YYYYMMDDTHHMMSSZ`), as in the run CSV.
    pub run_id: String,
    /// The commit the run is recorded under, as in the run CSV.
    pub commit: String,
    /// The GPU key (`nvidia-h200-sm90`).
    pub gpu_key: String,
    /// The physical GPU's NVML UUID.
    pub gpu_uuid: String,
    /// The lesson trial, `family/<good>_vs_<bad>/size`.
    pub trial: String,
    /// The good program's trial name (`launch/graph/4096x8`).
    pub good: String,
    /// The bad program's trial name.
    pub bad: String,
    /// The largest ratio at which the lesson holds (declared beside the cases).
    pub bound: f64,
    /// Pairs timed.
    pub pairs: usize,
    /// Pairs left out as throttled; the others are judged.
    pub throttled_pairs: usize,
    /// The good program's median over the judged pairs, seconds; empty without pairs.
    pub good_median_s: Option<f64>,
    /// The bad program's median, seconds.
    pub bad_median_s: Option<f64>,
    /// The median per-pair ratio good / bad; empty when the pairs were not judged.
    pub ratio: Option<f64>,
    /// The low end of the ratio's 95 % confidence interval.
    pub ratio_low: Option<f64>,
    /// The high end.
    pub ratio_high: Option<f64>,
    /// `holds`, `broken`, `unclear` or `invalid` ([`crate::gate::lesson::LessonVerdict`]).
    pub verdict: String,
    /// Why sampling stopped: `converged` or `timeout`.
    pub stop: String,
    /// Wall time of the pairs' loop, seconds.
    pub wall_s: f64,
    /// The verdict's sentence.
    pub reason: String,
}

impl LessonRow {
    /// The row in a few words, for the trial's own line: `ratio 0.62 (bound 0.84)  holds`, or the
    /// verdict alone where the pairs were not judged.
    pub fn summary(&self) -> String {
        match self.ratio {
            Some(r) => format!("ratio {r:.3} (bound {:.2})  {}", self.bound, self.verdict),
            None => self.verdict.clone(),
        }
    }
}

/// Writes `rows` to a new file at `path` ([`crate::record::write_csv`]).
///
/// # Errors
/// As [`crate::record::write_csv`].
pub fn write_lessons_csv(path: &Path, rows: &[LessonRow]) -> Result<()> {
    crate::record::write_csv(path, rows)
}

/// Reads a lessons CSV written by [`write_lessons_csv`].
///
/// # Errors
/// [`Error::History`] naming the file, the 1-based line and the field: a file that cannot be read,
/// a row that does not parse, a schema version newer than [`LESSONS_CSV_SCHEMA`] (read it with a
/// newer kernelgate), a verdict or stop reason that is not one of the words above.
pub fn read_lessons_csv(path: &Path) -> Result<Vec<LessonRow>> {
    let bad = |line: Option<usize>, message: String| Error::History { path: path.to_path_buf(), line, message };
    let mut reader = csv::Reader::from_path(path).map_err(|e| bad(None, format!("cannot be read as CSV: {e}")))?;
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize::<LessonRow>().enumerate() {
        let line = i + 2;
        let row =
            row.map_err(|e| bad(Some(line), format!("not a lessons CSV row ({e}); the columns are LessonRow's")))?;
        if row.schema_version > LESSONS_CSV_SCHEMA {
            return Err(bad(
                Some(line),
                format!(
                    "field schema_version is {}, newer than this kernelgate reads ({LESSONS_CSV_SCHEMA}); read it with \
                     a newer kernelgate",
                    row.schema_version
                ),
            ));
        }
        if crate::gate::lesson::LessonVerdict::parse(&row.verdict).is_none() {
            return Err(bad(
                Some(line),
                format!("field verdict is {:?}; expected holds, broken, unclear or invalid", row.verdict),
            ));
        }
        if !matches!(row.stop.as_str(), "converged" | "timeout") {
            return Err(bad(Some(line), format!("field stop is {:?}; expected converged or timeout", row.stop)));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// One lesson trial's rows over several runs: what its bound is set from.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonSeries {
    /// The lesson trial.
    pub trial: String,
    /// Its rows (runs).
    pub runs: usize,
    /// The distinct physical GPUs (`gpu_uuid`) among them.
    pub gpus: usize,
    /// Rows with no ratio (not judged); left out of the figures below.
    pub unjudged: usize,
    /// Smallest, median and largest ratio of the judged rows; `None` without any.
    pub ratios: Option<[f64; 3]>,
    /// The highest top of a judged row's 95 % interval.
    pub highest_high: Option<f64>,
    /// The bound of the latest row (by run id): the one in force when it ran.
    pub bound: f64,
    /// How many rows had each verdict, by word.
    pub verdicts: std::collections::BTreeMap<String, usize>,
}

/// Groups `rows` by lesson trial, sorted by trial name ([`LessonSeries`]).
pub fn series(rows: &[LessonRow]) -> Vec<LessonSeries> {
    let mut by_trial: std::collections::BTreeMap<&str, Vec<&LessonRow>> = Default::default();
    for r in rows {
        by_trial.entry(&r.trial).or_default().push(r);
    }
    by_trial
        .into_iter()
        .map(|(trial, rows)| {
            let judged: Vec<f64> = rows.iter().filter_map(|r| r.ratio).collect();
            let mut uuids: Vec<&str> = rows.iter().map(|r| r.gpu_uuid.as_str()).collect();
            uuids.sort_unstable();
            uuids.dedup();
            let latest = rows.iter().max_by(|a, b| a.run_id.cmp(&b.run_id)).expect("a group has a row");
            let mut verdicts = std::collections::BTreeMap::new();
            for r in &rows {
                *verdicts.entry(r.verdict.clone()).or_insert(0) += 1;
            }
            let ratios = (!judged.is_empty()).then(|| {
                let min = judged.iter().copied().fold(f64::INFINITY, f64::min);
                let max = judged.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                [min, crate::stats::median(&judged), max]
            });
            LessonSeries {
                trial: trial.to_string(),
                runs: rows.len(),
                gpus: uuids.len(),
                unjudged: rows.len() - judged.len(),
                ratios,
                highest_high: rows.iter().filter_map(|r| r.ratio_high).reduce(f64::max),
                bound: latest.bound,
                verdicts,
            }
        })
        .collect()
}

/// The lessons CSVs among `paths`: a file as it is, a folder's `*-lessons.csv` files, sorted.
///
/// # Errors
/// [`Error::History`] for a path that does not exist (naming where lessons CSVs come from);
/// [`Error::Io`] for a path that cannot be read.
pub fn lessons_csvs(paths: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>> {
    let mut files = std::collections::BTreeSet::new();
    for p in paths {
        if p.is_dir() {
            for item in std::fs::read_dir(p).map_err(Error::io(p))? {
                let f = item.map_err(Error::io(p))?.path();
                if f.is_file() && f.to_string_lossy().ends_with(LESSONS_CSV_SUFFIX) {
                    files.insert(f);
                }
            }
        } else if !p.exists() {
            return Err(Error::History {
                path: p.clone(),
                line: None,
                message: "no such file or folder; lessons CSVs (`<run>-lessons.csv`) are written beside the run CSV by \
                          a GPU run of the lesson trials (`cargo test --release --test kernels -- _vs_`); the committed \
                          H200 runs are in baselines/nvidia-h200-sm90/runs/lessons"
                    .to_string(),
            });
        } else {
            files.insert(p.clone());
        }
    }
    Ok(files.into_iter().collect())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A row as a lesson trial writes it (the figures are made up for the test, not measured).
    pub(crate) fn row(trial: &str, verdict: &str, ratio: Option<[f64; 3]>) -> LessonRow {
        LessonRow {
            schema_version: LESSONS_CSV_SCHEMA,
            run_id: "20261201T200000Z".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            gpu_key: "nvidia-h200-sm90".into(),
            gpu_uuid: "GPU-00000000-0000-0000-0000-000000000000".into(),
            trial: trial.into(),
            good: "launch/graph/4096x8".into(),
            bad: "launch/one_by_one/4096x8".into(),
            bound: 0.83,
            pairs: 812,
            throttled_pairs: 0,
            good_median_s: ratio.map(|_| 1.0e-5),
            bad_median_s: ratio.map(|_| 1.5e-5),
            ratio: ratio.map(|r| r[0]),
            ratio_low: ratio.map(|r| r[1]),
            ratio_high: ratio.map(|r| r[2]),
            verdict: verdict.into(),
            stop: "converged".into(),
            wall_s: 1.25,
            reason: "the lesson holds: graph, with a comma and \"quotes\"".into(),
        }
    }

    #[test]
    fn a_rows_summary_gives_ratio_bound_and_verdict() {
        assert_eq!(row("l/a_vs_b/1", "holds", Some([0.6612, 0.65, 0.67])).summary(), "ratio 0.661 (bound 0.83)  holds");
        assert_eq!(row("l/a_vs_b/1", "invalid", None).summary(), "invalid");
    }

    #[test]
    fn rows_round_trip_through_the_file_and_empty_fields_stay_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs").join(format!("20261201T200000Z-0123456{LESSONS_CSV_SUFFIX}"));
        let rows = vec![
            row("launch/graph_vs_one_by_one/4096x8", "holds", Some([0.66, 0.655, 0.665])),
            row("transfers/h2d_pinned_vs_pageable/16777216", "invalid", None),
        ];
        write_lessons_csv(&path, &rows).unwrap();
        assert_eq!(read_lessons_csv(&path).unwrap(), rows);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("schema_version,run_id,commit,gpu_key,gpu_uuid,trial,good,bad,bound,pairs,"),
            "{text}"
        );
        assert!(text.lines().nth(2).unwrap().contains(",0.83,812,0,,,,,,invalid,"), "{text}");
        assert!(write_lessons_csv(&path, &rows).is_err(), "a recorded file is never overwritten");
    }

    #[test]
    fn series_group_the_runs_of_each_lesson_and_leave_unjudged_rows_out_of_the_ratios() {
        let mut rows = vec![
            row("b/x_vs_y/1", "holds", Some([0.60, 0.59, 0.61])),
            row("a/x_vs_y/1", "holds", Some([0.66, 0.65, 0.67])),
            row("a/x_vs_y/1", "unclear", Some([0.62, 0.55, 0.84])),
            row("a/x_vs_y/1", "invalid", None),
        ];
        rows[2].run_id = "20261202T000000Z".into();
        rows[2].bound = 0.80;
        rows[2].gpu_uuid = "GPU-1".into();
        let s = series(&rows);
        assert_eq!(s.iter().map(|s| s.trial.as_str()).collect::<Vec<_>>(), ["a/x_vs_y/1", "b/x_vs_y/1"]);
        let a = &s[0];
        assert_eq!((a.runs, a.gpus, a.unjudged), (3, 2, 1));
        let [min, median, max] = a.ratios.unwrap();
        assert!(min == 0.62 && (median - 0.64).abs() < 1e-12 && max == 0.66, "{:?}", a.ratios);
        assert_eq!(a.highest_high, Some(0.84));
        assert_eq!(a.bound, 0.80, "the latest run's bound");
        assert_eq!(a.verdicts.get("holds"), Some(&1));
        assert_eq!(a.verdicts.get("invalid"), Some(&1));
        let only_invalid = series(&rows[3..]);
        assert_eq!((only_invalid[0].ratios, only_invalid[0].highest_high), (None, None));
    }

    #[test]
    fn a_folder_gives_its_lessons_csvs_only() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["r1-lessons.csv", "r1.csv", "r1-metrics.csv", "r2-lessons.csv"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let found = lessons_csvs(&[dir.path().to_path_buf()]).unwrap();
        let names: Vec<String> = found.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["r1-lessons.csv", "r2-lessons.csv"]);
        let absent = lessons_csvs(&[dir.path().join("absent")]).unwrap_err().to_string();
        assert!(absent.contains("absent: no such file or folder; lessons CSVs"), "{absent}");
        assert!(absent.contains("baselines/nvidia-h200-sm90/runs/lessons"), "the fix: {absent}");
    }

    #[test]
    fn bad_files_are_refused_with_the_line_and_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x-lessons.csv");
        write_lessons_csv(&path, &[row("a/b_vs_c/1", "holds", Some([0.5, 0.4, 0.6]))]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let edited = |from: &str, to: &str, name: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
            read_lessons_csv(&p).unwrap_err().to_string()
        };
        let e = edited("\n1,", "\n2,", "newer.csv");
        assert!(e.contains("newer.csv:2: field schema_version is 2, newer than this kernelgate reads (1)"), "{e}");
        let e = edited(",holds,", ",fine,", "verdict.csv");
        assert!(e.contains("verdict.csv:2: field verdict is \"fine\"; expected holds"), "{e}");
        let e = edited(",converged,", ",done,", "stop.csv");
        assert!(e.contains("stop.csv:2: field stop is \"done\""), "{e}");
        let e = edited(",812,", ",many,", "pairs.csv");
        assert!(e.contains("pairs.csv:2: not a lessons CSV row"), "{e}");
        let e = read_lessons_csv(&dir.path().join("absent.csv")).unwrap_err().to_string();
        assert!(e.contains("absent.csv: cannot be read as CSV"), "{e}");
    }
}
