//! The run's files on disk: their stem, claimed so that two runs never share one, and CSVs
//! written whole or not at all, never over a recorded file.

use super::GitState;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Stem of a run's files: `<out_dir>/runs/<run_id>-<commit:7>`; the run CSV adds `.csv`, the ncu
/// outputs `.ncu-rep`, `-metrics.csv`, `-raw.csv`, `-ncu.log`, the run record `-baseline/`.
pub fn run_stem(out_dir: &Path, run_id: &str, git: &GitState) -> PathBuf {
    let short: String = git.commit.chars().take(7).collect();
    out_dir.join("runs").join(format!("{run_id}-{short}"))
}

/// [`run_stem`], made unique: run ids are start times to the second, and two runs may start in the
/// same second (nextest starts one process per trial, in parallel). Claims the stem by creating
/// `<stem>.csv` holding the run CSV's header row alone ([`super::RUN_CSV_HEADER`]), trying `<stem>`,
/// `<stem>-2`, `<stem>-3`, ...: the header goes to a temporary file in the folder, which is then
/// linked at `<stem>.csv` only where nothing is (tempfile's `persist_noclobber`), so two processes
/// never get the same stem and no reader sees a part of a header. Returns the stem; the caller
/// writes the run CSV over the claim ([`write_csv`]). A run that writes no timed row (one whose
/// trials are all lesson trials, or one killed before it wrote) leaves the claim as it is: a CSV of
/// no rows, which pandas' `read_csv`, DuckDB's `read_csv` and `kernelgate history import` read as
/// such, where an empty file is refused by pandas (`EmptyDataError`).
///
/// # Errors
/// [`Error::Io`] if the folder cannot be created or written.
pub fn claim_stem(out_dir: &Path, run_id: &str, git: &GitState) -> Result<PathBuf> {
    use std::io::Write as _;
    let base = run_stem(out_dir, run_id, git);
    let dir = base.parent().expect("a stem is inside runs/");
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    for n in 1.. {
        let stem = if n == 1 { base.clone() } else { PathBuf::from(format!("{}-{n}", base.display())) };
        let csv = PathBuf::from(format!("{}.csv", stem.display()));
        let mut header = crate::paths::temp_file_in(dir).map_err(Error::io(dir))?;
        writeln!(header, "{}", super::RUN_CSV_HEADER).map_err(Error::io(&csv))?;
        match header.persist_noclobber(&csv) {
            Ok(_) => return Ok(stem),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&csv)(e.error)),
        }
    }
    unreachable!("some suffix is free")
}

/// Whether the file at `path` is a claim of [`claim_stem`] that nothing was written over: the run
/// CSV's header row alone, or empty (a claim of a kernelgate before claims held the header). Such
/// a file holds no row, so writing over it loses nothing.
fn is_claim(path: &Path) -> bool {
    let header = format!("{}\n", super::RUN_CSV_HEADER);
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => false,
        Ok(m) if m.len() == 0 => true,
        Ok(m) if m.len() == header.len() as u64 => std::fs::read(path).is_ok_and(|text| text == header.as_bytes()),
        _ => false,
    }
}

/// Writes `rows` (run rows, metric rows: any serializable record) to a new CSV file at `path`,
/// creating folders, atomically: the rows go to a temporary file in the same folder, flushed to
/// disk, which is then moved to `path` only if `path` does not exist or is a claim of
/// [`claim_stem`] (the run CSV's header alone, or empty). A reader never sees a half-written file,
/// and nothing recorded is overwritten.
///
/// # Errors
/// [`Error::Io`] if `path` exists and is not a claim, or a file cannot be written; [`Error::Csv`]
/// on serialization errors.
pub fn write_csv<R: serde::Serialize>(path: &Path, rows: &[R]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    let claimed = is_claim(path);
    if path.exists() && !claimed {
        let exists = std::io::Error::new(std::io::ErrorKind::AlreadyExists, "a recorded file is never overwritten");
        return Err(Error::io(path)(exists));
    }
    let temp = crate::paths::temp_file_in(dir).map_err(Error::io(dir))?;
    let mut w = csv::Writer::from_writer(temp);
    for row in rows {
        w.serialize(row).map_err(|source| Error::Csv { path: path.to_path_buf(), source })?;
    }
    let temp = w.into_inner().map_err(|e| Error::io(path)(e.into_error()))?;
    temp.as_file().sync_all().map_err(Error::io(path))?;
    // Over a claim (rename replaces it), else where nothing is (persist_noclobber).
    let done = if claimed { temp.persist(path) } else { temp.persist_noclobber(path) };
    done.map(|_| ()).map_err(|e| Error::io(path)(e.error))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::{result, run};
    use crate::record::{RUN_CSV_HEADER, rows};

    fn csv_of(stem: &Path) -> PathBuf {
        PathBuf::from(format!("{}.csv", stem.display()))
    }

    /// A claim is the run CSV's header alone: a run that writes no timed row (only lesson trials)
    /// leaves a CSV of no rows, never an empty file. Only a claim (or the empty claim of an older
    /// kernelgate) is written over; a file with a row, or with another header, never is.
    #[test]
    fn a_claim_holds_the_header_and_only_a_claim_is_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let run = run();
        let header = format!("{RUN_CSV_HEADER}\n");
        let first = csv_of(&claim_stem(dir.path(), &run.run_id, &run.git).unwrap());
        assert!(first.ends_with("runs/20261130T030000Z-0123456.csv"), "{}", first.display());
        assert_eq!(std::fs::read_to_string(&first).unwrap(), header, "the claim is the header alone");
        let mut reader = csv::Reader::from_path(&first).unwrap();
        assert_eq!(reader.headers().unwrap().iter().collect::<Vec<_>>().join(","), RUN_CSV_HEADER);
        assert_eq!(reader.records().count(), 0, "a table of no rows");
        #[cfg(unix)]
        {
            // Readable by a CI job's artifact upload, as a normally created file is.
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            let plain = dir.path().join("plain");
            std::fs::File::create(&plain).unwrap();
            assert_eq!(mode(&first), mode(&plain), "{:o}", mode(&first));
        }

        // The run's rows replace the claim.
        let rows = rows(&run, &[result("copy/x/4", 0.5e-3, 2_000_000_000, 0)]);
        write_csv(&first, &rows).unwrap();
        let written = std::fs::read_to_string(&first).unwrap();
        assert!(written.starts_with(&header) && written.lines().count() == 1 + rows.len(), "{written}");
        // A recorded file is not a claim: refused, and left as it was.
        let err = write_csv(&first, &rows).unwrap_err().to_string();
        assert!(err.contains("never overwritten"), "{err}");
        assert_eq!(std::fs::read_to_string(&first).unwrap(), written);

        // An empty claim (an older kernelgate's) is written over too; a file of the header and a
        // row, a header-only file of another CSV, or a folder, are not.
        let second = csv_of(&claim_stem(dir.path(), &run.run_id, &run.git).unwrap());
        assert!(second.ends_with("runs/20261130T030000Z-0123456-2.csv"), "{}", second.display());
        std::fs::write(&second, "").unwrap();
        write_csv(&second, &rows).unwrap();
        assert_eq!(std::fs::read_to_string(&second).unwrap(), written);
        let first_row = written.lines().take(2).collect::<Vec<_>>().join("\n") + "\n";
        let other_header = format!("{}\n", RUN_CSV_HEADER.replace("unit", "units"));
        for (name, text) in [("one-row.csv", first_row.as_str()), ("other.csv", other_header.as_str())] {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            assert!(write_csv(&path, &rows).unwrap_err().to_string().contains("never overwritten"), "{name}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{name} left as it was");
        }
        let folder = dir.path().join("folder.csv");
        std::fs::create_dir(&folder).unwrap();
        assert!(write_csv(&folder, &rows).is_err());
    }

    /// Processes that start in the same second claim stems of their own, each with its header.
    #[test]
    fn runs_of_one_second_claim_stems_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let run = run();
        let claimed: Vec<PathBuf> = std::thread::scope(|s| {
            let handles: Vec<_> =
                (0..8).map(|_| s.spawn(|| claim_stem(dir.path(), &run.run_id, &run.git).unwrap())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let distinct: std::collections::BTreeSet<&PathBuf> = claimed.iter().collect();
        assert_eq!(distinct.len(), 8, "{claimed:?}");
        for stem in &claimed {
            assert_eq!(std::fs::read_to_string(csv_of(stem)).unwrap(), format!("{RUN_CSV_HEADER}\n"));
        }
        let left: Vec<_> =
            std::fs::read_dir(dir.path().join("runs")).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left.len(), 8, "no temporary file is left behind: {left:?}");
    }
}
