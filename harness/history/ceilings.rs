//! The ceilings a run measured, in the history: a run's `<stem>-ceilings.csv`
//! ([`crate::ceilings::file`]) joined to the runs of the run CSV beside it, as a value of every trial
//! of the run (the value the suite stores with each trial, [`super::of_run::ceiling_values`]), so
//! that a report can draw the roofs the trials ran under ([`crate::report::roofline`]).

use super::{Run, Value};
use crate::error::{Error, Result};
use crate::model::Ceiling;
use std::collections::BTreeMap;
use std::path::Path;

/// Adds the rate ceilings read from `path` ([`crate::ceilings::file::parse`]) to `runs`, the runs
/// of the run CSV beside it (pure but for reading `path`): each ceiling of run id and GPU UUID goes
/// to every trial of that run, named [`Ceiling::value_statistic`], with the trial's kernel and
/// verdict (from its `median` row, else its first). A trial that has the value already (a history
/// the suite appended to) keeps its own. Launch times are left out (no roof).
///
/// # Errors
/// [`Error::Io`] if `path` cannot be read; [`Error::History`] from parsing it, or naming `path` when
/// it holds a run of none of `runs` (another run's file under this run's name).
pub fn attach(runs: &mut [Run], path: &Path) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    let read = crate::ceilings::file::parse(&text, path)?;
    let mut by_run: BTreeMap<(&str, &str), Vec<(Ceiling, f64)>> = BTreeMap::new();
    for r in read.iter().filter(|r| r.ceiling.is_rate()) {
        by_run.entry((r.run_id.as_str(), r.gpu_uuid.as_str())).or_default().push((r.ceiling, r.value));
    }
    for ((run_id, uuid), ceilings) in by_run {
        let Some(run) = runs.iter_mut().find(|r| r.meta.run_id == run_id && r.meta.gpu_uuid == uuid) else {
            return Err(Error::History {
                path: path.to_path_buf(),
                line: None,
                message: format!(
                    "the run CSV beside it has no run {run_id} on GPU {uuid}, so its ceilings cannot be placed"
                ),
            });
        };
        // Each trial once, with the row its values are told by: its `median`, else its first.
        let mut trials: BTreeMap<String, Value> = BTreeMap::new();
        for v in &run.values {
            if v.metric == crate::model::TIME_STATISTIC || !trials.contains_key(&v.trial) {
                trials.insert(v.trial.clone(), v.clone());
            }
        }
        let has: std::collections::BTreeSet<(String, String)> =
            run.values.iter().map(|v| (v.trial.clone(), v.metric.clone())).collect();
        for (trial, like) in trials {
            for &(ceiling, value) in &ceilings {
                let metric = ceiling.value_statistic().expect("a rate");
                if has.contains(&(trial.clone(), metric.to_string())) {
                    continue;
                }
                run.values.push(Value {
                    metric: metric.into(),
                    unit: ceiling.unit().into(),
                    value,
                    ci_low: None,
                    ci_high: None,
                    ..like.clone()
                });
            }
        }
    }
    Ok(())
}

/// The path of the ceilings CSV of the run CSV `run_csv` (`<stem>.csv` -> `<stem>-ceilings.csv`).
pub fn beside(run_csv: &Path) -> std::path::PathBuf {
    let s = run_csv.to_string_lossy();
    std::path::PathBuf::from(format!("{}{}", s.strip_suffix(".csv").unwrap_or(&s), crate::ceilings::file::SUFFIX))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The suite's own append of a run (its ceilings with every trial) and a later import of the
    /// run's folder (run CSV, ceilings CSV) store the same values: the import adds nothing, and
    /// into an empty history it brings every ceiling, from a folder or from the CSVs named alone.
    #[test]
    fn the_suites_append_and_an_import_of_its_folder_agree() {
        let info = crate::record::tests::run();
        let ceilings = crate::ceilings::tests::fixture();
        let results = [
            crate::record::tests::result("copy/x/4", 0.5e-3, 2_000_000_000, 0),
            crate::record::tests::result("mm/y/4", 1e-3, 4096, 1 << 30),
        ];
        let dir = tempfile::tempdir().unwrap();
        let stem = crate::record::run_stem(dir.path(), &info.run_id, &info.git);
        let run_csv = stem.with_extension("csv");
        crate::record::write_csv(&run_csv, &crate::record::rows(&info, &results)).unwrap();
        let file = crate::ceilings::file::rows(&info.run_id, &info.facts, &ceilings);
        crate::record::write_csv(&beside(&run_csv), &file).unwrap();
        let trials: Vec<_> =
            results.iter().map(|r| super::super::of_run::Trial { result: r, median_ci: None }).collect();
        let run = super::super::of_run::run_of(&info, &ceilings, &trials, None);
        let history = dir.path().join("history");
        let appended = super::super::HistoryStore::open(&history, &info.facts.gpu_key, "baselines".as_ref())
            .unwrap()
            .append(&run)
            .unwrap();
        assert_eq!(appended, run.values.len());
        let folder = run_csv.parent().unwrap().to_path_buf();
        let imported =
            super::super::import(std::slice::from_ref(&folder), &history, None, "baselines".as_ref()).unwrap();
        assert_eq!((imported.runs, imported.new_rows), (1, 0), "the same values, bit for bit");
        for paths in [vec![folder], vec![run_csv.clone(), beside(&run_csv)]] {
            let fresh = tempfile::tempdir().unwrap();
            let imported = super::super::import(&paths, fresh.path(), None, "baselines".as_ref()).unwrap();
            assert_eq!((imported.runs, imported.new_rows), (1, run.values.len()), "{paths:?}");
            let store =
                super::super::HistoryStore::open_read(fresh.path(), &info.facts.gpu_key, "baselines".as_ref()).unwrap();
            let stored = store.run(&info.run_id, &info.facts.uuid).unwrap().unwrap();
            let mut fma: Vec<(&str, f64)> = stored
                .values
                .iter()
                .filter(|v| v.metric == "fma_ceiling")
                .map(|v| (v.trial.as_str(), v.value))
                .collect();
            fma.sort_by(|a, b| a.0.cmp(b.0));
            assert_eq!(fma, [("copy/x/4", 60000.0), ("mm/y/4", 60000.0)]);
        }
    }

    /// A run CSV and its ceilings CSV as a run writes them (the fixture's made-up ceilings) import
    /// as one run whose every trial carries each rate ceiling, bit for bit what the suite stores.
    #[test]
    fn the_ceilings_csv_joins_every_trial_of_its_run() {
        let dir = tempfile::tempdir().unwrap();
        let facts = crate::record::tests::facts();
        let ceilings = crate::ceilings::tests::fixture();
        let run_csv = dir.path().join("20261130T030000Z-0123456.csv");
        let file = beside(&run_csv);
        assert!(file.ends_with("20261130T030000Z-0123456-ceilings.csv"));
        crate::record::write_csv(&file, &crate::ceilings::file::rows("20261130T030000Z", &facts, &ceilings)).unwrap();
        let value = |trial: &str, metric: &str| Value {
            trial: trial.into(),
            kernel: "k".into(),
            metric: metric.into(),
            unit: "s".into(),
            value: 1e-3,
            ci_low: None,
            ci_high: None,
            verdict: "unchanged".into(),
            decided_by: "time".into(),
        };
        let mut run = super::super::tests::run("20261130T030000Z", &facts.uuid, "0123456", 0);
        run.values = vec![value("a/b/1", "median"), value("a/b/1", "noise"), value("a/c/1", "median")];
        let mut runs = vec![run];
        attach(&mut runs, &file).unwrap();
        let got: Vec<(&str, &str, f64)> = runs[0]
            .values
            .iter()
            .filter(|v| v.metric.ends_with("_ceiling"))
            .map(|v| (v.trial.as_str(), v.metric.as_str(), v.value))
            .collect();
        let expected: Vec<(&str, &str, f64)> = ["a/b/1", "a/c/1"]
            .into_iter()
            .flat_map(|t| super::super::of_run::ceiling_values(&ceilings).into_iter().map(move |(m, _, v)| (t, m, v)))
            .collect();
        assert_eq!(got, expected);
        assert!(runs[0].values.iter().filter(|v| v.metric.ends_with("_ceiling")).all(|v| v.verdict == "unchanged"));
        // Attached twice, nothing is added twice.
        let n = runs[0].values.len();
        attach(&mut runs, &file).unwrap();
        assert_eq!(runs[0].values.len(), n);
        // Another run's ceilings are refused.
        runs[0].meta.run_id = "20261130T040000Z".into();
        assert!(attach(&mut runs, &file).unwrap_err().to_string().contains("no run 20261130T030000Z"));
    }
}
