//! Writing reports: whole or not at all. A report (the diff's Markdown and HTML, the JUnit XML) is
//! often written over last night's at the same path, by a CI job; a full disk or a killed process
//! must leave that previous report as it was, never a file cut short.
//!
//! Each report goes to a temporary file in its own folder (so that the rename stays on one file
//! system and is atomic, POSIX `rename(2)`), is flushed to disk, and only then renamed over its
//! path. A path that names a device or a FIFO (`/dev/null`, `>(xmllint -)`) is written in place
//! instead, never replaced, and a symbolic link is followed ([`crate::output`]). Messages name the
//! report's path, never the temporary file's.

use crate::error::{Error, Result};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Writes each `(path, bytes)` whole or not at all. Every report is first written to a temporary
/// file in its path's folder and synced; only when all of them are written are they renamed over
/// their paths, in order, so a failure while writing (a full disk, a missing folder) leaves every
/// previous report at these paths unchanged. A rename fails only where the folder cannot be
/// written, which creating the temporary file there has just tested.
///
/// # Errors
/// [`Error::Io`] naming the report's path (never the temporary file's), with a sentence that
/// says what went wrong and the fix: the path is a folder, its folder does not exist, or the
/// operating system's error while writing or renaming (e.g. `No space left on device`), adding
/// that the previous file at that path was left as it was.
pub fn write_whole(files: &[(&Path, &[u8])]) -> Result<()> {
    let mut staged = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        staged.push((*path, *bytes, stage(path, bytes)?));
    }
    for (path, bytes, staged) in staged {
        match staged {
            Staged::Temp(temp, real) => {
                temp.persist(real).map_err(|e| failed(path, &e.error, "could not be renamed over the report"))?;
            }
            Staged::InPlace(real) => {
                crate::output::write_in_place(&real, bytes, false)
                    .map_err(|e| failed(path, &e, "could not be written"))?;
            }
        }
    }
    Ok(())
}

/// A report ready to be put in place: a synced temporary file to rename over the path it names
/// (the report's path with links followed), or a device or FIFO to write in place.
enum Staged {
    Temp(tempfile::NamedTempFile, PathBuf),
    InPlace(PathBuf),
}

/// `bytes` in a synced temporary file beside the file `path` names, or nothing for a device or
/// FIFO, which is written in place.
fn stage(path: &Path, bytes: &[u8]) -> Result<Staged> {
    let real = crate::output::resolve(path);
    let at = crate::output::at(&real);
    if at.in_place() {
        return Ok(Staged::InPlace(real));
    }
    if at == crate::output::At::Folder {
        return Err(sentence(
            path,
            std::io::ErrorKind::IsADirectory,
            "is a folder, not a file; name a file for the report (e.g. a path ending in the report's extension)".into(),
        ));
    }
    if matches!(at, crate::output::At::Loop | crate::output::At::Other) {
        let why = crate::output::check(path, "report").err().map(|e| e.reason).unwrap_or_default();
        return Err(sentence(path, std::io::ErrorKind::InvalidInput, why));
    }
    let dir = crate::output::folder_of(&real);
    if !dir.is_dir() {
        return Err(sentence(
            path,
            std::io::ErrorKind::NotFound,
            format!(
                "the report's folder {} does not exist; create it (mkdir -p {}) or name a file in a folder that exists",
                dir.display(),
                dir.display()
            ),
        ));
    }
    let mut temp = crate::paths::temp_file_in(&dir).map_err(|e| failed(path, &e, "could not be started"))?;
    temp.as_file_mut().write_all(bytes).map_err(|e| failed(path, &e, "could not be written"))?;
    temp.as_file().sync_all().map_err(|e| failed(path, &e, "could not be written"))?;
    Ok(Staged::Temp(temp, real))
}

/// An [`Error::Io`] on `path` whose text is `message`.
fn sentence(path: &Path, kind: std::io::ErrorKind, message: String) -> Error {
    Error::Io { path: path.to_path_buf(), source: std::io::Error::new(kind, message) }
}

/// The report at `path` `what` (`could not be written`) because of `e`; the operating system's
/// words without any temporary file's name (tempfile adds `at path …` to its own errors).
fn failed(path: &Path, e: &std::io::Error, what: &str) -> Error {
    // tempfile wraps the operating system's error with the temporary file's path; look inside.
    let inner = e.get_ref().and_then(|i| i.source()).and_then(|s| s.downcast_ref::<std::io::Error>());
    let e = inner.unwrap_or(e);
    let os = match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
        None if e.get_ref().is_some() => e.to_string(),
        None => e.kind().to_string(),
    };
    sentence(
        path,
        e.kind(),
        format!("the report {what} ({os}); the previous file at this path, if any, is left as it was"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("report.md"), dir.path().join("report.html"));
        std::fs::write(&a, "last night's").unwrap();
        write_whole(&[(&a, b"new md"), (&b, b"new html")]).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"new md");
        assert_eq!(std::fs::read(&b).unwrap(), b"new html");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
    }

    #[test]
    fn a_failed_report_leaves_every_previous_one_and_names_its_path() {
        // Not tempfile's `.tmp` prefix: the message must not hold one.
        let dir = tempfile::Builder::new().prefix("reports").tempdir().unwrap();
        let good = dir.path().join("report.md");
        std::fs::write(&good, "last night's").unwrap();
        let missing = dir.path().join("no/such/dir/report.html");
        let e = write_whole(&[(&good, b"new"), (&missing, b"new")]).unwrap_err().to_string();
        assert_eq!(std::fs::read(&good).unwrap(), b"last night's", "nothing renamed when one report fails");
        assert!(e.starts_with(&format!("{}: the report's folder ", missing.display())), "{e}");
        assert!(e.contains("does not exist; create it"), "{e}");
        assert!(!e.contains(".tmp"), "no temporary file's name: {e}");
        let folder = dir.path().join("isdir.xml");
        std::fs::create_dir(&folder).unwrap();
        let e = write_whole(&[(&folder, b"x")]).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}: is a folder, not a file", folder.display())), "{e}");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
    }
}
