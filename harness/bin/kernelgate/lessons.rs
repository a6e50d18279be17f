//! `kernelgate lessons [PATHS...]`: the lesson trials' ratios over runs, from their lessons CSVs
//! (`kernelgate::lesson_record`), with the bound the margin rule gives
//! (`kernelgate::gate::lesson::margin_bound`): what a lesson's bound is set from.

use kernelgate::lesson_record::{lessons_csvs, read_lessons_csv, series};
use kernelgate::{Error, Result};
use std::path::PathBuf;

/// Reads every lessons CSV among `paths` (default `<project root>/target/kernelgate/runs`) and
/// prints the series table on stdout ([`kernelgate::report::lessons::series`]); `min_runs` judged
/// runs are needed before the margin rule is applied. Returns exit code 0.
///
/// # Errors
/// [`Error::Io`] for a path that cannot be read; [`Error::History`] for a lessons CSV that does not
/// parse (its file, line and field); [`Error::Compare`] when no lessons CSV is found, with where
/// they are written.
pub fn lessons_command(paths: Vec<PathBuf>, project: &kernelgate::project::Project, min_runs: usize) -> Result<u8> {
    let paths = if paths.is_empty() { vec![project.out_dir.join("runs")] } else { paths };
    let files = lessons_csvs(&paths)?;
    if files.is_empty() {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Error::Compare(format!(
            "no lessons CSV (*-lessons.csv) in {}: a run writes one beside its run CSV when it judged a lesson \
             trial (cargo test --release --test kernels -- _vs_)",
            shown.join(", ")
        )));
    }
    let mut rows = Vec::new();
    for f in &files {
        rows.extend(read_lessons_csv(f)?);
    }
    kernelgate::errln!("kernelgate: {} rows from {} lessons CSVs", rows.len(), files.len());
    kernelgate::out!("{}", kernelgate::report::lessons::series(&series(&rows), min_runs));
    Ok(0)
}
