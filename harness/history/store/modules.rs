//! The store's `modules` table: which module each stored run's trials ran from.

use super::sql_error;
use crate::error::Result;
use crate::history::TrialModule;
use rusqlite::Connection;
use std::path::Path;

/// The modules each run's trials ran from ([`crate::history::TrialModule`]): one row per (run,
/// trial, kernel). Created with the store and, for a store made before kernelgate kept modules,
/// at the next open for writing (`CREATE TABLE IF NOT EXISTS`: the other tables and
/// [`super::HISTORY_SCHEMA`] do not change, a kernelgate without the table reads and appends as before,
/// and a store is never rewritten). A run stored before has no rows here.
pub(super) const MODULES_SQL: &str = "
CREATE TABLE IF NOT EXISTS modules (
    run INTEGER NOT NULL REFERENCES runs (id),
    trial TEXT NOT NULL, kernel TEXT NOT NULL, module_sha256 TEXT NOT NULL,
    PRIMARY KEY (run, trial, kernel)
) WITHOUT ROWID;
";

/// The modules of the stored run with row id `run`, sorted by trial and kernel; none for a store
/// made before kernelgate kept modules and not opened for writing since (it has no `modules`
/// table).
///
/// # Errors
/// [`crate::Error::History`] naming `path` if SQLite fails (a damaged file's fix naming the
/// project's baselines folder `baselines`, [`super::damaged_fix`]).
pub(super) fn of_run(conn: &Connection, path: &Path, baselines: &Path, run: i64) -> Result<Vec<TrialModule>> {
    let fail = sql_error(path, baselines);
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'modules'", [], |r| r.get(0))
        .map_err(&fail)?;
    if tables == 0 {
        return Ok(Vec::new());
    }
    let mut stmt = conn
        .prepare("SELECT trial, kernel, module_sha256 FROM modules WHERE run = ?1 ORDER BY trial, kernel")
        .map_err(&fail)?;
    let rows = stmt
        .query_map([run], |r| Ok(TrialModule { trial: r.get(0)?, kernel: r.get(1)?, module_sha256: r.get(2)? }))
        .map_err(&fail)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(&fail)
}
