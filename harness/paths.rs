//! Run files and temporary files: temporary files made beside the file they will replace, the list
//! of a run's CSVs. Plain functions of the file system, imported by every stage that writes the
//! working tree. Where a project keeps things is [`crate::project`]'s.

use std::path::Path;

/// A temporary file in `dir` to be renamed over a result file, with the permissions a file created
/// normally gets (0o666 less the umask): tempfile's default 0o600 would leave run CSVs and JUnit
/// reports unreadable to a CI job's artifact upload running as another user.
pub fn temp_file_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Appends the path of the run CSV `run_csv` that a run wrote, made absolute against the current
/// folder (`std::path::absolute`, so that a reader in another folder finds it), and a line feed
/// to the file `list` (`KERNELGATE_RUN_FILE`), creating it if need be: what `scripts/nightly`
/// reads the run from instead of a listing of the runs folder, which another run in the same
/// folder would race. One `write` on a file opened for appending (POSIX `O_APPEND`), so that the
/// processes of one run under cargo-nextest, each writing its own run CSV, add whole lines. A
/// device or FIFO at `list` is written in place ([`crate::output`]).
///
/// # Errors
/// [`crate::Error::Io`] naming `list` when it cannot be opened or written (its folder missing, a
/// folder in its place), or naming `run_csv` when the current folder cannot be read.
pub fn note_run_csv(list: &Path, run_csv: &Path) -> crate::error::Result<()> {
    use std::io::Write as _;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| crate::error::Error::Io { path, source }
    };
    let absolute = std::path::absolute(run_csv).map_err(io(run_csv))?;
    let mut line = absolute.into_os_string().into_encoded_bytes();
    line.push(b'\n');
    let real = crate::output::resolve(list);
    if crate::output::at(&real).in_place() {
        return crate::output::write_in_place(&real, &line, true).map_err(io(list));
    }
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(list).map_err(io(list))?;
    file.write_all(&line).map_err(io(list))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each call adds one line, the run CSV's absolute path; a list in a folder that does not
    /// exist is an error naming it.
    #[test]
    fn note_run_csv_appends_one_absolute_line_per_run_csv() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("run.txt");
        let first = dir.path().join("runs/20261201T000000Z-c0ffee.csv");
        note_run_csv(&list, &first).unwrap();
        note_run_csv(&list, Path::new("relative/20261201T000001Z-c0ffee.csv")).unwrap();
        let text = std::fs::read_to_string(&list).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text:?}");
        assert_eq!(lines[0], first.to_str().unwrap());
        let second = std::env::current_dir().unwrap().join("relative/20261201T000001Z-c0ffee.csv");
        assert_eq!(lines[1], second.to_str().unwrap());
        assert!(text.ends_with('\n'));
        let missing = dir.path().join("no/such/folder/run.txt");
        let e = note_run_csv(&missing, &first).unwrap_err().to_string();
        assert!(e.starts_with(&missing.display().to_string()), "{e}");
    }
}
