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
/// `<stem>.csv` empty (`create_new`, so two processes never get the same one), trying `<stem>`,
/// `<stem>-2`, `<stem>-3`, ... Returns the stem; the caller writes the run CSV over the claim.
///
/// # Errors
/// [`Error::Io`] if the folder cannot be created or written.
pub fn claim_stem(out_dir: &Path, run_id: &str, git: &GitState) -> Result<PathBuf> {
    let base = run_stem(out_dir, run_id, git);
    let dir = base.parent().expect("a stem is inside runs/");
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    for n in 1.. {
        let stem = if n == 1 { base.clone() } else { PathBuf::from(format!("{}-{n}", base.display())) };
        let csv = PathBuf::from(format!("{}.csv", stem.display()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&csv) {
            Ok(_) => return Ok(stem),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&csv)(e)),
        }
    }
    unreachable!("some suffix is free")
}

/// Writes `rows` (run rows, metric rows: any serializable record) to a new CSV file at `path`,
/// creating folders, atomically: the rows go to a temporary file in the same folder, flushed to
/// disk, which is then moved to `path` only if `path` does not exist or is an empty claim of
/// [`claim_stem`]. A reader never sees a half-written file, and nothing recorded is overwritten.
///
/// # Errors
/// [`Error::Io`] if a non-empty `path` exists or a file cannot be written; [`Error::Csv`] on
/// serialization errors.
pub fn write_csv<R: serde::Serialize>(path: &Path, rows: &[R]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    if std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
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
    // Over an empty claim (rename replaces it), else where nothing is (persist_noclobber).
    let claimed = std::fs::metadata(path).is_ok_and(|m| m.len() == 0);
    let done = if claimed { temp.persist(path) } else { temp.persist_noclobber(path) };
    done.map(|_| ()).map_err(|e| Error::io(path)(e.error))
}
