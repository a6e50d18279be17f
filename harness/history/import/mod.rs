//! `kernelgate history import`: run CSVs (`<stem>.csv`, every run-CSV schema from 1 to
//! `crate::record::RUN_CSV_SCHEMA`) and their ncu metrics CSVs (`<stem>-metrics.csv`), as runs leave
//! them under `<out>/runs/` and as they are committed under `baselines/*/runs/`, into the history
//! store of each run's GPU key; a run CSV brings the ceilings of the `<stem>-ceilings.csv` beside it
//! ([`super::ceilings`]).
//!
//! Every run CSV statistic becomes a [`Value`](super::Value) named by its statistic (`median`,
//! `noise`, ...); every metrics row a [`Value`](super::Value) named by ncu's metric, with the
//! verdict of its trial from the run CSV. Fields an older schema lacks are unknown: `gpu_uuid`
//! `unknown` before schema 4, `work_scale` 1 before schema 3 (the power benchmark came with it),
//! verdicts empty in schema 1. A run's commit time and subject are read from the repository when it
//! holds the commit. Every file is read and checked before anything is appended (values finite and
//! in their range, [`super::value_problem`]; each statistic of a trial once per run); an empty
//! file, which a run that recorded nothing leaves, is skipped with a warning; importing twice adds
//! nothing.
//!
//! Reading one file is `parse.rs`'s ([`parse_csv`]); here the files are found and paired, a
//! metrics CSV joins its run, and the runs are appended.

mod parse;

pub(crate) use parse::HEADER_ONLY;
pub use parse::{Kind, LEFT_OUT_SHOWN, Parsed, capped, parse_csv, parse_csv_bytes};

use super::{HistoryStore, Run};
use crate::error::{Error, Result};
use parse::empty_file;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

/// The CSV files under `folder` that an import reads, into `files`: its `*.csv` and those of its
/// folders at any depth (a CI job's downloaded artifacts: `shard-1/runs/*.csv`), not ncu's
/// `*-raw.csv` nor the lesson trials' `*-lessons.csv`; folders whose name begins with `.`
/// (`.git`) and links to folders are not entered.
///
/// # Errors
/// [`Error::Io`] naming a folder that cannot be listed.
fn csv_files_under(folder: &Path, files: &mut std::collections::BTreeSet<PathBuf>) -> Result<()> {
    for item in std::fs::read_dir(folder).map_err(Error::io(folder))? {
        let item = item.map_err(Error::io(folder))?;
        let f = item.path();
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if item.file_type().map_err(Error::io(&f))?.is_dir() {
            if !name.starts_with('.') {
                csv_files_under(&f, files)?;
            }
            continue;
        }
        let other = name.ends_with("-raw.csv") || name.ends_with(crate::lesson_record::LESSONS_CSV_SUFFIX);
        if f.is_file() && name.ends_with(".csv") && !other {
            files.insert(f);
        }
    }
    Ok(())
}

/// Imports run CSVs and metrics CSVs into `<history_dir>/<gpu_key>.sqlite`. `paths` are files or
/// folders (a folder: the `*.csv` files under it at any depth, `csv_files_under`, not ncu's
/// `*-raw.csv` nor the lesson trials' `*-lessons.csv`, [`crate::lesson_record`]); a run CSV brings the metrics CSV
/// beside it (`<stem>-metrics.csv`) and the other way round. A metrics CSV without its run CSV
/// joins the stored run of its run id (its GPU is then known); with none stored it is imported
/// alone, GPU `unknown`, and its run CSV joins it later ([`HistoryStore::append`]). An empty file
/// is skipped with a warning ([`Imported::warnings`]). With `repo`, commit time and subject come
/// from it. Every file is parsed before anything is appended, and the runs of each GPU key are
/// appended in one transaction: all of them or, on an error, none. `baselines` as
/// [`HistoryStore::open`] takes it.
///
/// # Errors
/// [`Error::Io`] for a path that cannot be read; [`Error::History`] from [`parse_csv`],
/// [`attach_metrics`], [`HistoryStore::open`] (a damaged store) and [`HistoryStore::append_many`] (a
/// run that conflicts with its stored copy).
pub fn import(
    paths: &[PathBuf],
    history_dir: &Path,
    repo: Option<&git2::Repository>,
    baselines: &Path,
) -> Result<Imported> {
    let mut files = std::collections::BTreeSet::new();
    for p in paths {
        if p.is_dir() {
            csv_files_under(p, &mut files)?;
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
    // Files that could not be read as CSVs of kernelgate's, each a warning in `out`.
    let mut skipped: Vec<Error> = Vec::new();
    for run_csv in groups.keys() {
        let metrics_csv = PathBuf::from(format!("{}-metrics.csv", run_csv.to_string_lossy().trim_end_matches(".csv")));
        let mut load = |p: &Path| -> Result<Option<(Kind, Vec<Run>)>> {
            if !p.is_file() {
                return Ok(None);
            }
            let bytes = std::fs::read(p).map_err(Error::io(p))?;
            if bytes.trim_ascii().is_empty() {
                out.warnings.push(format!(
                    "{}: {}; skipped (delete it to silence this warning)",
                    p.display(),
                    empty_file(&String::from_utf8_lossy(&bytes))
                ));
                return Ok(None);
            }
            // A file that cannot be read as a run CSV at all is skipped with one warning; the
            // others are imported (a file named alone is an error: nothing would be imported).
            let parsed = match parse_csv_bytes(&bytes, p) {
                Ok(parsed) => parsed,
                Err(e) => {
                    out.warnings.push(format!("{e}; this file was skipped, the others are imported"));
                    skipped.push(e);
                    return Ok(None);
                }
            };
            out.files += 1;
            out.warnings.extend(parsed.left_out);
            Ok(Some((parsed.kind, parsed.runs)))
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
    // Nothing else to import: the first file's error is the answer, not a warning.
    if out.files == 0
        && let Some(first) = skipped.into_iter().next()
    {
        return Err(first);
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
        let mut store = HistoryStore::open(history_dir, &key, baselines)?;
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
    use super::parse::RUN_COLUMNS;
    use super::parse::tests::{metrics, v1, v4};
    use super::*;

    #[test]
    fn every_schema_parses_with_unknowns_for_what_it_lacks() {
        let Parsed { kind, runs, .. } = parse_csv(&v1(), Path::new("a.csv")).unwrap();
        assert_eq!(kind, Kind::Run(1));
        assert_eq!(runs.len(), 1);
        let m = &runs[0].meta;
        assert_eq!((m.commit.as_str(), m.dirty, m.gpu_uuid.as_str(), m.work_scale), ("unknown", None, "unknown", 1.0));
        assert_eq!(runs[0].values.len(), 2);
        assert_eq!(runs[0].values[1].metric, "noise");
        assert_eq!(runs[0].values[1].verdict, "");

        let Parsed { kind, runs, .. } = parse_csv(&v4("20260102T000000Z"), Path::new("b.csv")).unwrap();
        assert_eq!(kind, Kind::Run(4));
        assert_eq!(runs[0].meta.gpu_uuid, "GPU-x");
        assert_eq!(runs[0].meta.dirty, Some(false));
        let v = &runs[0].values[0];
        assert_eq!(
            (v.kernel.as_str(), v.verdict.as_str(), v.decided_by.as_str(), v.value),
            ("k,<T>", "regressed", "time", 0.25)
        );

        let Parsed { kind, runs: m, .. } = parse_csv(&metrics("20260102T000000Z"), Path::new("b-metrics.csv")).unwrap();
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
        // The committed baseline's own files are named as such (excerpts: tests/fixtures/baselines/).
        for name in ["baseline.csv", "samples.csv"] {
            let path = crate::source::fixture_path("baselines/nvidia-h200-sm90").join(name);
            let e = parse_csv(&std::fs::read_to_string(&path).unwrap(), &path).unwrap_err().to_string();
            assert!(e.contains("this is a baseline file") && e.contains("kernelgate compare"), "{e}");
        }
        // So is a committed lessons CSV.
        let lessons =
            crate::source::fixture_path("baselines/nvidia-h200-sm90/runs/lessons/20261201T231703Z-b1cb118-lessons.csv");
        let e = parse_csv(&std::fs::read_to_string(&lessons).unwrap(), &lessons).unwrap_err().to_string();
        assert!(e.contains("this is a lessons CSV") && e.contains("kernelgate lessons"), "{e}");
        // A row that cannot be read leaves its trial out, named with its line (turn4/R33's kind).
        let left_out = |text: &str| parse_csv(text, Path::new("runs/x.csv")).unwrap().left_out.join("\n");
        let w = left_out(&v1().replace(",0.5,s", ",fast,s"));
        assert!(w.starts_with("runs/x.csv:2:") && w.contains("value \"fast\""), "{w}");
        let w = left_out(&v1().replacen("\n1,", "\n2,", 1));
        assert!(w.starts_with("runs/x.csv:2:") && w.contains("schema_version \"2\""), "{w}");
        let w = left_out(&v1().replace(",unknown,unknown,test-gpu", ",--markdown=x.md,unknown,test-gpu"));
        assert!(w.contains("commit \"--markdown=x.md\" is not a commit id"), "a commit reaches git and diff: {w}");
        let mistyped = format!(",{},unknown,test-gpu", "a".repeat(41));
        let w = left_out(&v1().replace(",unknown,unknown,test-gpu", &mistyped));
        assert!(w.contains("is not a commit id (4 to 40 hex digits, or 64)"), "a mistyped id keys no commit: {w}");
        let e = err(&v1().replace(
            "Test GPU,9.0,1,1,d,c,n,true,1.0,7,fam/k/1,k,noise",
            "Test GPU,9.0,1,1,OTHER,c,n,true,1.0,7,fam/k/1,k,noise",
        ));
        assert!(e.starts_with("runs/x.csv:3:") && e.contains("differ"), "{e}");
        let w = left_out(&format!("{}\n1,2,3\n", RUN_COLUMNS[0]));
        assert!(w.starts_with("runs/x.csv:2:") && w.contains("the row has 3 fields and the header 20"), "{w}");
        let w = left_out(&v1().replace(",unknown,unknown,", ",unknown,maybe,"));
        assert!(w.contains("dirty \"maybe\""), "{w}");
        let m = parse_csv(&metrics("other"), Path::new("m.csv")).unwrap().runs;
        let mut runs = parse_csv(&v4("20260102T000000Z"), Path::new("r.csv")).unwrap().runs;
        let e = attach_metrics(&mut runs, m, Path::new("m.csv")).unwrap_err().to_string();
        assert!(e.starts_with("m.csv:") && e.contains("run other"), "{e}");
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
        let first = import(std::slice::from_ref(&runs), &history, None, "baselines".as_ref()).unwrap();
        assert_eq!(first, Imported { files: 3, runs: 2, new_rows: 4, warnings: vec![] });
        assert_eq!(first.to_string(), "2 runs, 4 new rows (from 3 files)");
        // Again, and naming the metrics file alone (it brings its run CSV): nothing new.
        assert_eq!(import(std::slice::from_ref(&runs), &history, None, "baselines".as_ref()).unwrap().new_rows, 0);
        let only_metrics = [runs.join("20260102T000000Z-aaaaaaa-metrics.csv")];
        assert_eq!(
            import(&only_metrics, &history, None, "baselines".as_ref()).unwrap(),
            Imported { files: 2, runs: 1, new_rows: 0, warnings: vec![] }
        );
        let store = HistoryStore::open(&history, "test-gpu-sm90", "baselines".as_ref()).unwrap();
        let stored = store.runs(None).unwrap();
        assert_eq!(stored.iter().map(|r| r.values).collect::<Vec<_>>(), [2, 2]);
        assert_eq!(store.run("20260102T000000Z", "GPU-x").unwrap().unwrap().meta.ncu, "2025.3");
        // A bad row leaves its trial out with a warning (turn4/R33's kind); a file that is no run
        // CSV at all is skipped with one; the rest of the folder is imported.
        std::fs::write(runs.join("20260103T000000Z-bbbbbbb.csv"), v4("20260103T000000Z").replace(",0.25,", ",x,"))
            .unwrap();
        std::fs::write(runs.join("20260100T000000Z-ccccccc.csv"), v4("20260100T000000Z")).unwrap();
        std::fs::write(runs.join("20260104T000000Z-ddddddd.csv"), "x,y\n1,2\n").unwrap();
        let imported = import(std::slice::from_ref(&runs), &history, None, "baselines".as_ref()).unwrap();
        let warnings = imported.warnings.join("\n");
        assert!(
            warnings.contains("20260103T000000Z-bbbbbbb.csv:2:") && warnings.contains("value \"x\" is not a number")
        );
        assert!(warnings.contains("20260104T000000Z-ddddddd.csv:1: the header is not that of a kernelgate run CSV"));
        assert!(warnings.contains("this file was skipped, the others are imported"), "{warnings}");
        assert!(
            store.runs(None).unwrap().iter().any(|r| r.meta.run_id == "20260100T000000Z"),
            "the good file is imported"
        );
        // A file named alone that is no run CSV: nothing to import, an error.
        let alone = runs.join("20260104T000000Z-ddddddd.csv");
        assert!(
            import(&[alone], &history, None, "baselines".as_ref())
                .unwrap_err()
                .to_string()
                .contains("not that of a kernelgate run CSV")
        );
    }

    /// A folder is read at any depth (a CI job's downloaded artifacts), hidden folders not.
    #[test]
    fn a_folder_is_read_at_any_depth_but_hidden_folders_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let artifacts = dir.path().join("artifacts");
        let deep = artifacts.join("shard-2-of-3/target/kernelgate/runs");
        let hidden = artifacts.join(".cache/runs");
        for folder in [&deep, &hidden] {
            std::fs::create_dir_all(folder).unwrap();
        }
        std::fs::write(deep.join("20260101T000000Z-aaaaaaa.csv"), v4("20260101T000000Z")).unwrap();
        std::fs::write(hidden.join("20260102T000000Z-aaaaaaa.csv"), v4("20260102T000000Z")).unwrap();
        let history = dir.path().join("history");
        let imported = import(&[artifacts], &history, None, "baselines".as_ref()).unwrap();
        assert_eq!((imported.files, imported.runs), (1, 1), "{imported}");
        let stored = HistoryStore::open(&history, "test-gpu-sm90", "baselines".as_ref()).unwrap().runs(None).unwrap();
        assert_eq!(stored.iter().map(|r| r.meta.run_id.as_str()).collect::<Vec<_>>(), ["20260101T000000Z"]);
    }

    /// Committed run CSVs of schemas 1, 2 (with its metrics CSV) and 5, excerpts of the shipped
    /// suite's H200 runs (tests/fixtures/baselines/README.md), import; again, they add nothing.
    #[test]
    fn the_committed_run_csvs_import() {
        let runs = crate::source::fixture_path("baselines/nvidia-h200-sm90/runs");
        let dir = tempfile::tempdir().unwrap();
        let first = import(std::slice::from_ref(&runs), dir.path(), None, "baselines".as_ref()).unwrap();
        assert!(first.runs >= 1 && first.new_rows > 0, "{first}");
        assert_eq!(import(&[runs], dir.path(), None, "baselines".as_ref()).unwrap().new_rows, 0);
    }
}
