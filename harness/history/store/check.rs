//! Opening checks of a history store file: is it there, is it kernelgate's, of which GPU key and
//! schema, is it intact (`PRAGMA quick_check`), and the messages that name the file and the fix.

use super::*;

/// "No history store here" for `path` (missing, or an empty file).
pub(super) fn no_store(path: &Path) -> Error {
    Error::History {
        path: path.to_path_buf(),
        line: None,
        message: "no history store here; a run or `kernelgate history import` creates one".into(),
    }
}

/// The file is the history of `stored`, not of `wanted`.
pub(super) fn other_key(path: &Path, stored: &str, wanted: &str) -> Error {
    Error::History {
        path: path.to_path_buf(),
        line: None,
        message: format!("this is the history of GPU key {stored:?}, not of {wanted:?}"),
    }
}

/// A read-only reader that cannot read beside the writer whose WAL frames are there.
pub(super) fn writer_beside(path: &Path, e: Error) -> Error {
    let Error::History { path: p, line, message } = e else { return e };
    Error::History {
        path: p,
        line,
        message: format!(
            "{message}: its -wal file holds a writer's pages, and reading beside them needs SQLite's -shm file, \
             which this user cannot create in {}; read it again once the writer has finished, or as a user who may \
             write that folder",
            path.parent().map_or_else(|| ".".into(), |d| d.display().to_string())
        ),
    }
}

/// The key of the history in `conn` (read from its `info` table), or `None` for a file with no
/// tables yet (a new or empty file).
///
/// # Errors
/// [`Error::History`] for another program's database, a schema other than [`HISTORY_SCHEMA`], or
/// a SQLite failure (a damaged file's fix naming the project's baselines folder `baselines`).
pub(super) fn identify(conn: &Connection, path: &Path, baselines: &Path) -> Result<Option<String>> {
    let fail = sql_error(path, baselines);
    let refuse = |message: String| Error::History { path: path.to_path_buf(), line: None, message };
    let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(&fail)?;
    let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(&fail)?;
    let objects: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)).map_err(&fail)?;
    if version == 0 && app == 0 && objects == 0 {
        return Ok(None);
    }
    if app != APPLICATION_ID {
        return Err(refuse(format!(
            "this SQLite database is not a kernelgate history (application_id {app}); move it aside, and kernelgate \
             creates a new store here"
        )));
    }
    if version != HISTORY_SCHEMA {
        return Err(refuse(format!(
            "history schema version {version} is not one this kernelgate reads (it reads {HISTORY_SCHEMA}); {}",
            if version > HISTORY_SCHEMA {
                "a newer kernelgate wrote it: use that version, or move the file aside to start a new history"
            } else {
                "move the file aside to start a new history"
            }
        )));
    }
    conn.query_row("SELECT value FROM info WHERE key = 'gpu_key'", [], |r| r.get::<_, String>(0))
        .map(Some)
        .map_err(&fail)
}

/// Runs `PRAGMA quick_check` on the open store at `path` (every page and b-tree of the file; not
/// whether indexes match their tables: <https://sqlite.org/pragma.html#pragma_quick_check>). It
/// reads the whole file: 0.13 s for a store of 1,000,000 values on the 2-core CI machine
/// (`bench_million_rows`).
///
/// # Errors
/// [`Error::History`] naming `path`, the first problems SQLite lists and the fix
/// ([`damaged_fix`] with the project's baselines folder `baselines`) when the check fails or SQLite
/// finds the file malformed; the "not a SQLite database" error for a file that is not a database.
pub fn check_integrity(conn: &Connection, path: &Path, baselines: &Path) -> Result<()> {
    let fail = sql_error(path, baselines);
    let problems: Vec<String> = {
        let mut stmt = conn.prepare("PRAGMA quick_check").map_err(&fail)?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(&fail)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(&fail)?
    };
    if problems != ["ok"] {
        // A problem may span lines, under a `*** in database main ***` heading.
        let problems: Vec<&str> = problems
            .iter()
            .flat_map(|p| p.lines())
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("***"))
            .collect();
        let shown: Vec<&str> = problems.iter().take(QUICK_CHECK_SHOWN).copied().collect();
        let more = problems.len().saturating_sub(QUICK_CHECK_SHOWN);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        return Err(Error::History {
            path: path.to_path_buf(),
            line: None,
            message: format!(
                "the history store is damaged: SQLite's quick_check reports {}{more}; {}",
                shown.iter().map(|p| format!("{p:?}")).collect::<Vec<_>>().join(", "),
                damaged_fix(path, baselines)
            ),
        });
    }
    Ok(())
}

/// The fix for the damaged store file `path`: nothing was written to it; move it aside, rebuild the
/// history from the run CSVs the project keeps under its baselines folder `baselines` (as messages
/// show it, [`crate::history::import_command`]) and the git notes, or let SQLite recover what it can
/// still read. Pure.
pub fn damaged_fix(path: &Path, baselines: &Path) -> String {
    let p = path.display();
    format!(
        "nothing was written to it. Fix: move it aside (`mv {p} {p}.damaged`) and rebuild the history from the run \
         CSVs (`{}`) and the git notes (`kernelgate history sync`), or recover what SQLite can still read \
         (`sqlite3 {p}.damaged .recover | sqlite3 {p}`)",
        crate::history::import_command(baselines)
    )
}

/// `path` as an SQLite `file:` URI (<https://sqlite.org/uri.html>): absolute, with every byte but
/// letters, digits, `/`, `-`, `_`, `.` and `~` percent-encoded.
pub(super) fn file_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for &b in absolute.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}
